"""``attunestats score [DIR] [--out FILE]``: recompute every metric and write the tables."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from attunestats.cli._common import release_dir


def score_command(args: argparse.Namespace) -> int:
    """Score the release and write the tables (CSV/Parquet) and the summary JSON."""
    from attunestats.metrics.score import score, write_scores
    from attunestats.release.load import load_release

    release = load_release(release_dir(args.dir), subset=args.subset)
    scores = score(release)
    out = Path(args.out) if args.out else Path("scores.csv")
    written = write_scores(scores, out)
    for path in written:
        print(f"wrote {path}")
    return 0


def register(sub: Any) -> None:
    """Add ``score`` to the subparsers ``sub``."""
    p = sub.add_parser("score", help="recompute every metric and write the tables")
    p.add_argument("dir", nargs="?", default=None)
    p.add_argument("--subset", default=None)
    p.add_argument("--out", default=None, help="output file: .csv or .parquet (default scores.csv)")
    p.set_defaults(func=score_command)
