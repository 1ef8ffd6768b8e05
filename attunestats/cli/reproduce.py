"""``attunestats reproduce``: rebuild the tables and figures of the artefact registry.

``--only ID [ID ...]`` rebuilds some artefacts (ids, output names, notebook stems or numbers, as
``attunestats list`` shows them) and keeps the other files of ``--out``; ``--notebooks`` also
executes the notebooks of the artefacts built into ``<out>/notebooks/``
(:mod:`attunestats.artifacts.reproduce`).
"""

from __future__ import annotations

import argparse
from typing import Any

from attunestats.cli._common import seed

DEFAULT_SEED = (
    20260521  # attunestats.artifacts.context.DEFAULT_ROOT_SEED (not imported: fast --help)
)


def reproduce_command(args: argparse.Namespace) -> int:
    """Build the selected artefacts into ``--out``; returns the exit code."""
    from attunestats.artifacts.reproduce import reproduce

    return reproduce(
        release=args.release,
        out=args.out,
        fast=args.fast,
        rng=args.seed,
        only=args.only,
        notebooks=args.notebooks,
        notebooks_dir=args.notebooks_dir,
        allow_failed_fits=args.allow_failed_fits,
        quiet=args.quiet,
    )


def register(sub: Any) -> None:
    """Add ``reproduce`` to the subparsers ``sub``."""
    p = sub.add_parser("reproduce", help="rebuild every table and figure into paper_figures/")
    p.add_argument("--release", default=None, help="release directory (default: bundled simulated)")
    p.add_argument("--out", default="paper_figures", help="output directory")
    p.add_argument("--fast", action="store_true", help="few resamples and short MCMC (CI mode)")
    p.add_argument("--seed", type=seed, default=DEFAULT_SEED, help="root seed of every artefact")
    p.add_argument(
        "--only",
        nargs="+",
        default=None,
        metavar="ID",
        help="build only these artefacts (ids, output names, notebook names or numbers; see "
        "`attunestats list`) and keep the other files of --out",
    )
    p.add_argument(
        "--notebooks",
        action="store_true",
        help="also execute the notebooks of the artefacts built into OUT/notebooks/",
    )
    p.add_argument("--notebooks-dir", default=None, help="notebook directory (default: notebooks/)")
    p.add_argument(
        "--allow-failed-fits",
        action="store_true",
        help="exit 0 even when MCMC fits fail the diagnostics gate (their outputs are stamped "
        "'diagnostics failed' and listed in MANIFEST.json either way)",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar (shown by default on a terminal only)",
    )
    p.set_defaults(func=reproduce_command)
