"""``attunestats reproduce``: rebuild every table and figure (:mod:`attunestats.artifacts`)."""

from __future__ import annotations

import argparse
from typing import Any


def reproduce_command(args: argparse.Namespace) -> int:
    """Build every artefact into ``--out``; returns the exit code."""
    from attunestats.artifacts.reproduce import reproduce

    return reproduce(
        release=args.release,
        out=args.out,
        fast=args.fast,
        seed=args.seed,
        notebooks_dir=args.notebooks,
    )


def register(sub: Any) -> None:
    """Add ``reproduce`` to the subparsers ``sub``."""
    p = sub.add_parser("reproduce", help="rebuild every table and figure into paper_figures/")
    p.add_argument("--release", default=None, help="release directory (default: bundled simulated)")
    p.add_argument("--out", default="paper_figures", help="output directory")
    p.add_argument("--fast", action="store_true", help="few resamples and short MCMC (CI mode)")
    p.add_argument("--seed", type=int, default=20260521, help="root seed of every artefact")
    p.add_argument("--notebooks", default=None, help="notebook directory (default: notebooks/)")
    p.set_defaults(func=reproduce_command)
