"""``attunestats list``: the paper map of the artefact registry.

For every table and figure that ``attunestats reproduce`` builds: its id, the paper result it
stands for, its output files, the notebook that tells its story and its builder
(:func:`attunestats.artifacts.registry.paper_map`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def list_command(args: argparse.Namespace) -> int:
    """Print the paper map (text, CSV or JSON); returns the exit code."""
    from attunestats.artifacts.registry import paper_map, select

    unknown = []
    for item in args.only:
        try:
            select([item])
        except ValueError:
            unknown.append(item)
    if unknown:
        names = ", ".join(repr(item) for item in unknown)
        raise ValueError(
            f"{'ID' if len(unknown) == 1 else 'IDs'} {names} "
            f"match{'es' if len(unknown) == 1 else ''} no artefact id, output name or "
            "notebook; `attunestats list` (with no ID) shows them all"
        )
    frame = paper_map(select(args.only))
    if args.format == "csv":
        print(frame.to_csv(index=False, lineterminator="\n"), end="")
    elif args.format == "json":
        print(json.dumps(frame.to_dict(orient="records"), indent=2))
    else:
        for row in frame.itertuples(index=False):
            print(f"{row.id}  ({row.notebook}; builder {row.builder})")
            print(f"    {row.title}")
            print(f"    paper:   {row.paper_ref}")
            print(f"    outputs: {row.outputs.replace(' ', ', ')}")
        print(f"{len(frame)} artefacts; rebuild some with `attunestats reproduce --only ID ...`")
    return 0


def register(sub: Any) -> None:
    """Add ``list`` to the subparsers ``sub``."""
    p = sub.add_parser("list", help="the paper map: every table and figure `reproduce` builds")
    p.add_argument(
        "only", nargs="*", metavar="ID", help="only these (ids, output or notebook names/numbers)"
    )
    p.add_argument("--format", choices=("text", "csv", "json"), default="text")
    p.set_defaults(func=list_command)
