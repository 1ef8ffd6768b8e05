"""``attunestats simulate OUT --seed N``: a simulated release (official format + truth.json)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

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
    if args.scenario not in SCENARIOS:
        print(
            f"unknown scenario {args.scenario!r}; choose from {sorted(SCENARIOS)}", file=sys.stderr
        )
        return 2
    for name in _SIZES:  # every flag checked before any work, in the CLI's words
        value = getattr(args, name)
        low = 0 if name == "n_human_raters" else 1
        if value is not None and value < low:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {value}")
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


def register(sub: Any) -> None:
    """Add ``simulate`` to the subparsers ``sub``."""
    p = sub.add_parser("simulate", help="write a simulated release in the official format")
    p.add_argument("out", help="output directory (must not exist or be empty)")
    p.add_argument("--seed", type=int, required=True, help="random seed (same seed, same bytes)")
    p.add_argument("--scenario", default="paper", help="simulation scenario (default: paper)")
    for name in _SIZES:
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, default=None)
    p.add_argument("--overwrite", action="store_true", help="replace an existing release")
    p.set_defaults(func=simulate_command)
