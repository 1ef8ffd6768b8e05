"""Command line: ``attunestats <command> ...``.

Commands
--------
simulate OUT --seed N       write a simulated release (official format + truth.json)
validate DIR                check a release; print every problem; exit 1 if any
summary [DIR]               print the counts of a release (default: the bundled simulated one)
score [DIR] [--out FILE]    recompute every metric; write tables (CSV/Parquet) + summary JSON
reproduce [--release DIR] [--out DIR] [--fast]
                            rebuild every table and figure (executes the notebooks)
power ...                   power / minimum detectable effect (see ``attunestats power --help``)
study ...                   run or resume a simulation study, serially, on processes or on Dask

With no DIR, commands use the bundled simulated release (:mod:`attunestats.release.bundled`);
everything computed from it is labelled simulated.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def _release_dir(value: str | None) -> Path:
    if value:
        return Path(value)
    from attunestats.release.bundled import bundled_release_path

    path = bundled_release_path()
    print(f"(no release given: using the bundled SIMULATED release at {path})", file=sys.stderr)
    return path


def _cmd_simulate(args: argparse.Namespace) -> int:
    from attunestats.release.simulate import SCENARIOS, simulate_release

    overrides = {}
    for name in ("n_conversations", "n_participants", "n_topics", "n_models", "n_human_raters"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    if args.scenario not in SCENARIOS:
        print(
            f"unknown scenario {args.scenario!r}; choose from {sorted(SCENARIOS)}", file=sys.stderr
        )
        return 2
    out = simulate_release(
        args.out,
        rng=args.seed,
        config=SCENARIOS[args.scenario],
        overwrite=args.overwrite,
        **overrides,
    )
    print(f"wrote simulated release ({args.scenario}, seed {args.seed}) to {out}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from attunestats.release.load import validate_release

    problems = validate_release(args.dir, subset=args.subset)
    if problems:
        print(f"{len(problems)} problem(s) in {args.dir}:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"{args.dir}: valid")
    return 0


def _cmd_summary(args: argparse.Namespace) -> int:
    from attunestats.release.load import load_release

    release = load_release(_release_dir(args.dir), subset=args.subset)
    if release.simulated:
        from attunestats.constants import SIMULATED_LABEL

        print(f"*** {SIMULATED_LABEL} ***")
    summary = release.summary()
    width = max(len(str(item)) for item in summary["item"])
    for item, value in summary.itertuples(index=False):
        print(f"{item:<{width}}  {value}")
    counts = release.report.counts()
    if len(counts):
        print("\nload report (normalised, clamped, derived or dropped):")
        for rule, count, description in counts.itertuples(index=False):
            print(f"  {count:>7}  {rule}: {description}")
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from attunestats.metrics.score import score, write_scores
    from attunestats.release.load import load_release

    release = load_release(_release_dir(args.dir), subset=args.subset)
    scores = score(release)
    out = Path(args.out) if args.out else Path("scores.csv")
    written = write_scores(scores, out)
    for path in written:
        print(f"wrote {path}")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from attunestats.artifacts.reproduce import reproduce

    return reproduce(
        release=args.release,
        out=args.out,
        fast=args.fast,
        seed=args.seed,
        notebooks_dir=args.notebooks,
    )


def _cmd_power(args: argparse.Namespace) -> int:
    from attunestats.design.power import power_command

    return power_command(args.rest)


def _cmd_study(args: argparse.Namespace) -> int:
    from attunestats.design.studies import study_command

    return study_command(args.rest)


_PASSTHROUGH = {"power": _cmd_power, "study": _cmd_study}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attunestats",
        description="Statistics for the AttuneBench emotional-intelligence benchmark.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("simulate", help="write a simulated release in the official format")
    p.add_argument("out", help="output directory (must not exist or be empty)")
    p.add_argument("--seed", type=int, required=True, help="random seed (same seed, same bytes)")
    p.add_argument("--scenario", default="paper", help="simulation scenario (default: paper)")
    for name in ("n_conversations", "n_participants", "n_topics", "n_models", "n_human_raters"):
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, default=None)
    p.add_argument("--overwrite", action="store_true", help="replace an existing release")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("validate", help="check a release and list every problem")
    p.add_argument("dir")
    p.add_argument(
        "--subset", default=None, help="Test Samples subset (Sample200, Subsample100, ...)"
    )
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("summary", help="print the counts and load report of a release")
    p.add_argument("dir", nargs="?", default=None)
    p.add_argument("--subset", default=None)
    p.set_defaults(func=_cmd_summary)

    p = sub.add_parser("score", help="recompute every metric and write the tables")
    p.add_argument("dir", nargs="?", default=None)
    p.add_argument("--subset", default=None)
    p.add_argument("--out", default=None, help="output file: .csv or .parquet (default scores.csv)")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("reproduce", help="rebuild every table and figure into paper_figures/")
    p.add_argument("--release", default=None, help="release directory (default: bundled simulated)")
    p.add_argument("--out", default="paper_figures", help="output directory")
    p.add_argument("--fast", action="store_true", help="few resamples and short MCMC (CI mode)")
    p.add_argument("--seed", type=int, default=20260521, help="root seed of every artefact")
    p.add_argument("--notebooks", default=None, help="notebook directory (default: notebooks/)")
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser("power", help="power and minimum detectable effects (attunestats power --help)",
                       add_help=False)  # fmt: skip
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_power)

    p = sub.add_parser("study", help="run or resume a simulation study (attunestats study --help)",
                       add_help=False)  # fmt: skip
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_study)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``attunestats`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _PASSTHROUGH:
        # these commands parse their own arguments (argparse.REMAINDER cannot pass on --help)
        args = argparse.Namespace(command=argv[0], rest=argv[1:], func=_PASSTHROUGH[argv[0]])
    else:
        args = build_parser().parse_args(argv)
    from attunestats.errors import ReleaseError

    try:
        return int(args.func(args))
    except ReleaseError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except (FileExistsError, FileNotFoundError, NotADirectoryError, ValueError, TypeError) as exc:
        # bad arguments or paths: a clear message and exit status 2, as argparse does
        print(f"attunestats {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
