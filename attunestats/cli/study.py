"""``attunestats study kinds|run|summary ...``: run, resume or summarise a simulation study.

The runner lives in :mod:`attunestats.design.studies`; this module parses the arguments and
prints. :func:`add_executor_arguments` and :func:`executor_options` are shared with
``attunestats power``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attunestats.cli._common import seed
from attunestats.constants import SIMULATED_LABEL


def _config_argument(value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    text = Path(value).read_text() if not value.lstrip().startswith("{") else value
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"--config must be a JSON object or a JSON file; {err}") from err
    if not isinstance(data, dict):
        raise ValueError(f"--config must be a JSON object; got {type(data).__name__}")
    return data


def add_executor_arguments(parser: Any) -> None:
    """``--executor``, ``--workers``, ``--scheduler`` and ``--no-progress`` (shared with power)."""
    from attunestats.design.studies import EXECUTORS

    parser.add_argument("--executor", choices=EXECUTORS, default=None,
                        help="serial (default), processes, or dask (default dask when "
                        "--scheduler is given)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (processes: CPU count; dask LocalCluster: 2)")  # fmt: skip
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler, e.g. tcp://host:8786; "
                        "with --executor dask and no address, a LocalCluster is started")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress line")


def executor_options(args: Any) -> dict[str, Any]:
    """Keyword arguments of :func:`~attunestats.design.studies.run_study` from parsed arguments."""
    executor = args.executor or ("dask" if args.scheduler else "serial")
    return {
        "executor": executor,
        "n_workers": args.workers,
        "scheduler": args.scheduler,
        "progress": False if args.no_progress else None,
    }


def study_command(argv: Sequence[str]) -> int:
    """``attunestats study ...``: run, resume or summarise a simulation study.

    ``attunestats study kinds``; ``attunestats study run KIND --replicates N --seed S --out F
    [--config JSON] [--executor serial|processes|dask] [--workers W] [--scheduler ADDRESS]``;
    ``attunestats study summary F``. Returns the exit code.
    """
    from attunestats.design.studies import (
        STUDY_KINDS,
        StudyError,
        make_study,
        read_study,
        run_study,
        summarise_coverage,
    )

    parser = argparse.ArgumentParser(prog="attunestats study", description=study_command.__doc__)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("kinds", help="list the registered study kinds")
    p = sub.add_parser("run", help="run or resume a study")
    p.add_argument("kind", help="study kind (see `attunestats study kinds`)")
    p.add_argument("--replicates", type=int, required=True)
    p.add_argument("--seed", type=seed, required=True)
    p.add_argument("--out", required=True, help="results file (.parquet)")
    p.add_argument("--config", default=None, help="JSON object or file overriding the defaults")
    p.add_argument("--overwrite", action="store_true", help="discard existing results first")
    add_executor_arguments(p)
    p = sub.add_parser("summary", help="summarise a study file")
    p.add_argument("file", help="results file of `study run` (.parquet)")
    args = parser.parse_args(list(argv))
    try:
        if args.action == "kinds":
            for kind in sorted(STUDY_KINDS):
                print(f"{kind:15s} {STUDY_KINDS[kind].description}")
            return 0
        if args.action == "run":
            study = make_study(
                args.kind,
                _config_argument(args.config),
                n_replicates=args.replicates,
                rng=args.seed,
            )
            result = run_study(study, args.out, overwrite=args.overwrite, **executor_options(args))
            print(
                f"{result.path}: {result.n_replicates} replicates ({result.n_computed} computed, "
                f"{result.n_resumed} resumed) in {result.elapsed:.1f} s with {result.executor} "
                f"x {result.n_workers}; {SIMULATED_LABEL}"
            )
            return 0
        frame = _read_study_file(args.file, read_study)
        study = frame.attrs.get("study", {})
        # the whole summary is computed before anything is printed: an error is the only output
        if "covered" in frame.columns:
            by = ["kind"] if "kind" in frame.columns else []
            table = summarise_coverage(frame, by=by).to_string(index=False)
        elif "reject" in frame.columns:
            from attunestats.design.power import summarise_power

            table = summarise_power(frame).to_string(index=False)
        else:
            table = frame.describe(include="all").to_string()
        print(f"{args.file}: {study.get('name', '?')}, {study.get('n_replicates', '?')} "
              f"replicates, seed {study.get('study', {}).get('seed', '?')}")  # fmt: skip
        print(f"*** {SIMULATED_LABEL} ***")
        print(table)
        return 0
    except (ValueError, TypeError, ImportError, StudyError, OSError) as err:
        from attunestats.cli import _one_line  # OSErrors with their reason, not a bare path

        print(f"attunestats study: error: {_cli_words(_one_line(err))}", file=sys.stderr)
        return 2


def _read_study_file(file: str, read_study: Any) -> Any:
    """``study summary FILE``: the study, or one error naming FILE and the reason."""
    import errno

    path = Path(file)
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", file)
    if path.is_dir() and not any(path.iterdir()):
        raise ValueError(f"FILE {file!r} is an empty directory, not a study file (.parquet)")
    frame = read_study(path)
    if frame.columns.empty or frame.empty:
        raise ValueError(f"FILE {file!r} holds no study results (no replicates in it)")
    return frame


_CLI_WORDS = (
    (r"overwrite=True \(--overwrite\)|overwrite=True", "--overwrite"),
    (r"\bn_replicates\b", "--replicates"),
    (r"(?<![\w-])config key", "--config key"),
    (r"^out (?=must|')", "--out "),
    (r"(?<![\w-])out '", "--out '"),
)


def _cli_words(message: str) -> str:
    """A message of the Python API in the command line's words (``--overwrite``, not ``overwrite=True``)."""
    import re

    message = " ".join(message.split("\n")[0].split())
    for python, cli in _CLI_WORDS:
        message = re.sub(python, cli, message)
    return message


def _run(args: argparse.Namespace) -> int:
    return study_command(args.rest)


def register(sub: Any) -> None:
    """Add ``study`` (which parses its own arguments) to the subparsers ``sub``."""
    p = sub.add_parser("study", help="run or resume a simulation study (attunestats study --help)",
                       add_help=False)  # fmt: skip
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_run)
