"""``attunestats validate DIR`` and ``attunestats summary [DIR]``: check and describe a release."""

from __future__ import annotations

import argparse
from typing import Any

from attunestats.cli._common import release_dir


def validate_command(args: argparse.Namespace) -> int:
    """Print every problem of the release; exit code 1 if any."""
    from attunestats.release.load import validate_release

    problems = validate_release(args.dir, subset=args.subset)
    if problems:
        print(f"{len(problems)} problem(s) in {args.dir}:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"{args.dir}: valid")
    return 0


def summary_command(args: argparse.Namespace) -> int:
    """Print the counts and the load report of a release (default: the bundled one)."""
    from attunestats.release.load import load_release

    release = load_release(release_dir(args.dir), subset=args.subset)
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


def register(sub: Any) -> None:
    """Add ``validate`` and ``summary`` to the subparsers ``sub``."""
    p = sub.add_parser("validate", help="check a release and list every problem")
    p.add_argument("dir")
    p.add_argument(
        "--subset", default=None, help="Test Samples subset (Sample200, Subsample100, ...)"
    )
    p.set_defaults(func=validate_command)

    p = sub.add_parser("summary", help="print the counts and load report of a release")
    p.add_argument("dir", nargs="?", default=None)
    p.add_argument("--subset", default=None)
    p.set_defaults(func=summary_command)
