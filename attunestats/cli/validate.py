"""``attunestats validate DIR`` and ``attunestats summary [DIR]``: check and describe a release.

``validate`` prints the load report to stderr on every run: the errors, then the warnings (each
group counted, each finding naming the file, the JSON path, the value and what was expected),
then what was read; ``--all`` lists every finding of a group (default: the first 10),
``--quiet`` prints only the errors, ``--strict`` makes warnings errors. The verdict is one line
on stdout; the exit status is 1 when the release has errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from attunestats.cli._common import add_report_arguments, print_report, release_dir


def validate_command(args: argparse.Namespace) -> int:
    """Print the load report; exit code 1 if the release has errors."""
    from attunestats.release.load import check_release

    report = check_release(args.dir, subset=args.subset, strict=args.strict)
    print_report(report, args)
    if report.errors:
        n = len(report.errors)
        print(f"{args.dir}: {n} error{'s' if n != 1 else ''}"
              f"{' (warnings counted as errors: --strict)' if args.strict else ''}")  # fmt: skip
        return 1
    n = len(report.warnings)
    print(f"{args.dir}: valid" + (f" ({n} warning{'s' if n != 1 else ''})" if n else ""))
    return 0


def summary_command(args: argparse.Namespace) -> int:
    """Print the counts and the load report of a release (default: the bundled one)."""
    from attunestats.release.load import load_release

    release = load_release(release_dir(args.dir), subset=args.subset, warn=False)
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
    if release.report.warnings:
        print(f"\n{release.report.summary_line()} (attunestats validate lists them)",
              file=sys.stderr)  # fmt: skip
    return 0


def register(sub: Any) -> None:
    """Add ``validate`` and ``summary`` to the subparsers ``sub``."""
    p = sub.add_parser("validate", help="check a release: print every error and warning")
    p.add_argument("dir")
    p.add_argument(
        "--subset", default=None, help="Test Samples subset (Sample200, Subsample100, ...)"
    )
    add_report_arguments(p)
    p.set_defaults(func=validate_command)

    p = sub.add_parser("summary", help="print the counts and load report of a release")
    p.add_argument("dir", nargs="?", default=None)
    p.add_argument("--subset", default=None)
    p.set_defaults(func=summary_command)
