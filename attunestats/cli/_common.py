"""Helpers shared by the command modules."""

from __future__ import annotations

import sys
from pathlib import Path


def release_dir(value: str | None) -> Path:
    """The release folder given on the command line, or the bundled simulated release (said so)."""
    if value:
        return Path(value)
    from attunestats.release.bundled import bundled_release_path

    path = bundled_release_path()
    print(f"(no release given: using the bundled SIMULATED release at {path})", file=sys.stderr)
    return path
