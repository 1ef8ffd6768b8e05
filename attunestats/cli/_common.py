"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

#: the scenarios of :data:`attunestats.release.simulate.SCENARIOS` (not imported here: a fast
#: ``--help``; ``tests/cli`` checks that the two agree)
SCENARIO_NAMES = ("paper", "null")


def seed(value: str) -> int:
    """``--seed``: a non-negative integer, checked when the arguments are parsed (before any work)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {number}")
    return number


def release_dir(value: str | None) -> Path:
    """The release folder given on the command line, or the bundled simulated release (said so)."""
    if value:
        return Path(value)
    from attunestats.release.bundled import bundled_release_path

    path = bundled_release_path()
    print(f"(no release given: using the bundled SIMULATED release at {path})", file=sys.stderr)
    return path


def add_report_arguments(parser: Any) -> None:
    """``--strict``, ``--quiet`` and ``--all`` (the load report of ``validate`` and ``score``)."""
    parser.add_argument("--strict", action="store_true",
                        help="warnings are errors (the release is refused if it has any)")  # fmt: skip
    parser.add_argument("--quiet", action="store_true",
                        help="print only the errors of the load report (not the warnings)")  # fmt: skip
    parser.add_argument("--all", action="store_true", dest="all_findings",
                        help="list every error and warning (default: the first 10 of each group)")  # fmt: skip


def print_report(report: Any, args: argparse.Namespace) -> None:
    """Print the load report to stderr: everything, or only its errors with ``--quiet``."""
    per_group = None if getattr(args, "all_findings", False) else 10
    quiet = getattr(args, "quiet", False)
    if quiet and not report.errors:
        return
    print(report.text(max_per_group=per_group, errors_only=quiet), file=sys.stderr)


def load_for_command(dir_: str | None, args: argparse.Namespace) -> Any:
    """Load the release of a command, printing its load report; ``None`` when it is refused."""
    from attunestats.errors import ReleaseError
    from attunestats.release.load import load_release

    try:
        release = load_release(
            release_dir(dir_), subset=args.subset, strict=args.strict, warn=False
        )
    except ReleaseError as exc:
        report = getattr(exc, "report", None)
        if report is not None:
            print_report(
                report, argparse.Namespace(quiet=args.quiet, all_findings=args.all_findings)
            )
        else:
            print(str(exc), file=sys.stderr)
        n = len(exc.problems)
        print(f"attunestats {args.command}: the release {str(release_dir(dir_))!r} has {n} "
              f"error{'s' if n != 1 else ''}"
              f"{' (warnings counted as errors: --strict)' if args.strict else ''}; nothing "
              "was written", file=sys.stderr)  # fmt: skip
        return None
    print_report(release.report, args)
    return release
