"""``attunestats simulate OUT --seed N``: a simulated release (official format + truth.json)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from attunestats.cli._common import SCENARIO_NAMES, seed

_SIZES = ("n_conversations", "n_participants", "n_topics", "n_models", "n_human_raters")


def simulate_command(args: argparse.Namespace) -> int:
    """Write the simulated release; returns the exit code."""
    from attunestats._io import check_dir_destination
    from attunestats.release.simulate import SCENARIOS, simulate_release

    overrides = {}
    for name in _SIZES:
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    for name in _SIZES:  # every flag checked before any work, in the CLI's words
        value = getattr(args, name)
        low = 0 if name == "n_human_raters" else 1
        if value is not None and value < low:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {value}")
    _check_not_cwd(args.out)
    out_dir = check_dir_destination(args.out, what="OUT")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not args.overwrite:
        raise ValueError(f"OUT {args.out!r} is not empty; pass --overwrite to replace it")
    try:
        out = simulate_release(
            args.out,
            rng=args.seed,
            config=SCENARIOS[args.scenario],
            overwrite=args.overwrite,
            **overrides,
        )
    except ValueError as exc:  # the configuration's messages, in the CLI's words
        message = str(exc)
        for name in _SIZES:
            message = message.replace(name, f"--{name.replace('_', '-')}")
        raise ValueError(message.replace("overwrite=True", "--overwrite")) from None
    print(f"wrote simulated release ({args.scenario}, seed {args.seed}) to {out}")
    return 0


def _check_not_cwd(out: str) -> None:
    """OUT is replaced as a whole: never the current directory or a folder that contains it."""
    target, cwd = Path(os.path.realpath(out)), Path(os.path.realpath(os.getcwd()))
    if target == cwd:
        raise ValueError(f"OUT {out!r} is the current directory, which cannot be the target (the "
                         "release folder is replaced as a whole); give a new or empty folder, "
                         "e.g. 'release'")  # fmt: skip
    if target in cwd.parents:
        raise ValueError(f"OUT {out!r} contains the current directory, which cannot be the "
                         "target (the release folder is replaced as a whole); give a new or "
                         "empty folder")  # fmt: skip


def register(sub: Any) -> None:
    """Add ``simulate`` to the subparsers ``sub``."""
    p = sub.add_parser("simulate", help="write a simulated release in the official format")
    p.add_argument("out", help="output directory (must not exist or be empty)")
    p.add_argument("--seed", type=seed, required=True, help="random seed (same seed, same bytes)")
    p.add_argument("--scenario", choices=SCENARIO_NAMES, default="paper",
                   help="simulation scenario: paper (every paper claim planted true; the "
                   "default) or null (no capability correlation, no diagnosis, topic or drift "
                   "effects)")  # fmt: skip
    for name in _SIZES:
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, default=None)
    p.add_argument("--overwrite", action="store_true", help="replace an existing release")
    p.set_defaults(func=simulate_command)
