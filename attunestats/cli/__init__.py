"""Command line: ``attunestats <command> ...``; one module per command, this one dispatches.

What lives here
---------------
- this module: :func:`main` (the ``attunestats`` entry point), :func:`build_parser` and the
  dispatch with its exit codes;
- :mod:`~attunestats.cli.simulate`: ``simulate OUT --seed N`` (a simulated release in the official
  format + truth.json);
- :mod:`~attunestats.cli.validate`: ``validate DIR`` (check a release; print every problem; exit 1
  if any) and ``summary [DIR]`` (the counts and load report of a release);
- :mod:`~attunestats.cli.score`: ``score [DIR] [--out FILE]`` (recompute every metric; write
  tables (CSV/Parquet) + summary JSON);
- :mod:`~attunestats.cli.reproduce`: ``reproduce [--release DIR] [--out DIR] [--fast]`` (rebuild
  every table and figure);
- :mod:`~attunestats.cli.power`: ``power analytic|curve|release ...`` (power / minimum detectable
  effect, see ``attunestats power --help``);
- :mod:`~attunestats.cli.study`: ``study kinds|run|summary ...`` (run or resume a simulation
  study, serially, on processes or on Dask).

Warnings raised while a command runs are printed as one line ``attunestats <command>: warning:
...`` on stderr (:func:`main` installs the formatter), never in Python's ``file:line`` form.

Each command module has ``register(subparsers)``, which adds its subcommand(s) with
``set_defaults(func=...)``; ``func(args)`` returns the exit code. ``power`` and ``study`` parse
their own arguments (``argparse.REMAINDER`` cannot pass ``--help`` on).

With no DIR, commands use the bundled simulated release (:mod:`attunestats.release.bundled`);
everything computed from it is labelled simulated.

May import: everything in the package (it is the top layer); heavy modules only inside the
command functions, so that ``attunestats --help`` stays fast. Nothing imports ``cli``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any

#: command modules, in the order of ``attunestats --help``
_COMMAND_MODULES = ("simulate", "validate", "score", "reproduce", "list", "power", "study")
#: commands that parse their own arguments -> "module:function(argv) -> exit code"
_PASSTHROUGH = {
    "power": "attunestats.cli.power:power_command",
    "study": "attunestats.cli.study:study_command",
}


def _passthrough(args: argparse.Namespace) -> int:
    module, _, name = _PASSTHROUGH[args.command].partition(":")
    return getattr(importlib.import_module(module), name)(args.rest)


def build_parser() -> argparse.ArgumentParser:
    """The ``attunestats`` parser with every command's subparser."""
    parser = argparse.ArgumentParser(
        prog="attunestats",
        description="Statistics for the AttuneBench emotional-intelligence benchmark.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _COMMAND_MODULES:
        importlib.import_module(f"attunestats.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``attunestats`` command."""
    # no list(...) here: importing the command module cli/list.py binds ``list`` in this namespace
    argv = [*(sys.argv[1:] if argv is None else argv)]
    if argv and argv[0] in _PASSTHROUGH:
        # these commands parse their own arguments (argparse.REMAINDER cannot pass on --help)
        args = argparse.Namespace(command=argv[0], rest=argv[1:], func=_passthrough)
    else:
        args = build_parser().parse_args(argv)
    from attunestats.errors import ReleaseError

    try:
        # every warning is one line ``attunestats <command>: warning: ...`` on stderr, never
        # Python's ``file:line: Category: message`` with a line of the entry-point script
        with warnings.catch_warnings():
            warnings.showwarning = _warning_printer(args.command)
            return int(args.func(args))
    except BrokenPipeError:
        # the reader went away (``attunestats list | head``): stop quietly, as command-line tools
        # killed by SIGPIPE do (status 128 + 13), and keep Python from complaining at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except ReleaseError as exc:
        report = getattr(exc, "report", None)
        print(report.text() if report is not None else str(exc), file=sys.stderr)
        return 1
    except (OSError, ValueError, TypeError) as exc:
        # bad arguments, unusable or unwritable destinations: one clear line, exit status 2 (as
        # argparse does), never a traceback
        print(f"attunestats {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2


#: Python API wording in warning messages -> the command line's
_WARNING_WORDS = ((r"\bsee release\.report\b", "`attunestats validate DIR` lists them"),)


def _warning_printer(command: str) -> Any:
    """A ``warnings.showwarning`` that prints ``attunestats <command>: warning: <message>``.

    One line (the message's whitespace collapsed), on stderr; the category is named when the
    warning is not one of attunestats' own (``AttunestatsWarning``), e.g. a numpy
    ``RuntimeWarning``. The warning filters still decide what is shown (``-W error`` still
    raises).
    """

    def show(message: Any, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:  # fmt: skip
        from attunestats.errors import AttunestatsWarning

        text = " ".join(str(message).split())
        for python, cli in _WARNING_WORDS:
            text = re.sub(python, cli, text)
        if not issubclass(category, AttunestatsWarning):
            text = f"{category.__name__}: {text}"
        # as warnings.showwarning: a closed or broken stderr loses the warning
        with contextlib.suppress(OSError):
            print(f"attunestats {command}: warning: {text}", file=file or sys.stderr)

    return show


def _one_line(exc: BaseException) -> str:
    """An exception as one line (an OSError with its file name, without ``[Errno N]``)."""
    if isinstance(exc, OSError) and exc.strerror and type(exc).__name__ != "OutputError":
        where = f": {exc.filename!r}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    text = " ".join(str(exc).split("\n")[0].split())
    if (
        isinstance(exc, FileNotFoundError)
        and not exc.strerror
        and (os.path.sep in text or " " not in text)
    ):
        return f"No such file or directory: {text!r}"  # e.g. pyarrow's bare path
    return text or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
