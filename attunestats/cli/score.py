"""``attunestats score [DIR] [--out FILE]``: recompute every metric and write the tables.

The load report is printed to stderr first (``--quiet``: errors only; ``--strict``: warnings are
errors; ``--all``: every finding); a release with errors is refused and nothing is written. The
destination is checked before any work: ``--out`` must be a file name ending in ``.csv`` or
``.parquet`` in an existing, writable directory (not a directory itself). Every file is written
to a temporary sibling and renamed into place (:mod:`attunestats._io`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from attunestats.cli._common import add_report_arguments, load_for_command


def score_command(args: argparse.Namespace) -> int:
    """Score the release and write the tables (CSV/Parquet) and the summary JSON."""
    from attunestats._io import check_file_destination
    from attunestats.metrics.score import score, write_scores

    out = Path(args.out) if args.out else Path("scores.csv")
    check_file_destination(out, what="--out")
    if out.suffix.lower() not in (".csv", ".parquet"):
        raise ValueError(f"--out must end in .csv or .parquet, got {str(out)!r}")
    release = load_for_command(args.dir, args)
    if release is None:
        return 1
    scores = score(release)
    written = write_scores(scores, out)
    for path in written:
        print(f"wrote {path}")
    if (scores.release_info or {}).get("simulated"):
        print("SIMULATED release: these scores are not findings about real models (every table "
              "has a column 'simulated')")  # fmt: skip
    return 0


def register(sub: Any) -> None:
    """Add ``score`` to the subparsers ``sub``."""
    p = sub.add_parser("score", help="recompute every metric and write the tables")
    p.add_argument("dir", nargs="?", default=None)
    p.add_argument("--subset", default=None)
    p.add_argument("--out", default=None, help="output file: .csv or .parquet (default scores.csv)")
    add_report_arguments(p)
    p.set_defaults(func=score_command)
