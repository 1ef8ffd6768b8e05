"""Shared pieces of :mod:`attunestats.design.power`.

Names of designs, alternatives and tests, argument checks, and running a power simulation as a
study (:mod:`attunestats.design.studies`).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from attunestats.design.studies.runner import read_study, run_study

DESIGNS: tuple[str, ...] = ("paired", "between", "within")
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
TESTS: tuple[str, ...] = ("cluster_t", "bootstrap")
Design = Literal["paired", "between", "within"]
Alternative = Literal["two-sided", "greater", "less"]


def grid_cells(
    ns: Sequence[int], ps: Sequence[int | None], *, extra: int = 0
) -> list[list[int | None]]:
    """The (n_conversations, n_participants) cells with at least one conversation per
    participant (``extra`` more in all: 2 for a contrast within participants, whose test needs
    conversations that vary within participants); a warning names the cells left out, an error
    says when none is left."""
    from attunestats.errors import AttunestatsWarning, warn

    # a size listed twice is one grid point (else its cell would be simulated, and counted, twice)
    ns = list(dict.fromkeys(int(n) for n in ns))
    ps = list(dict.fromkeys(None if p is None else int(p) for p in ps))
    grid = [[n, p] for n in ns for p in ps if p is None or n >= p + extra]
    skipped = [(int(n), int(p)) for n in ns for p in ps if p is not None and n < p + extra]
    need = "n_participants" + (f" + {extra}" if extra else "")
    than = "participants" + (f" + {extra} (a contrast within participants)" if extra else "")
    if not grid:
        raise ValueError(
            f"no grid point has n_conversations >= {need} (n_conversations is the total "
            f"over all participants; got n_conversations {sorted({int(n) for n in ns})}, "
            f"n_participants {sorted({int(p) for p in ps if p is not None})})"
        )
    if skipped:
        cells = ", ".join(f"({n} conversations, {p} participants)" for n, p in skipped[:10])
        more = f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""
        warn(
            f"left out {len(skipped)} of {len(grid) + len(skipped)} grid cells with fewer "
            f"conversations (the total over all participants) than {than}: {cells}{more}",
            AttunestatsWarning,
        )
    return grid


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}; got {value!r}")


def _check_prob(name: str, value: Any, *, open_low: bool = True) -> float:
    """A number in (0, 1) (or [0, 1) when ``open_low`` is False)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number; got {value!r}")
    v = float(value)
    low_ok = v > 0.0 if open_low else v >= 0.0
    if not (math.isfinite(v) and low_ok and v < 1.0):
        raise ValueError(f"{name} must lie in {'(0' if open_low else '[0'}, 1); got {value!r}")
    return v


def _as_int_array(name: str, value: Any, low: int) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(value))
    if (
        arr.size == 0
        or arr.dtype.kind not in "iu"
        and not (
            arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
        )
    ):
        raise ValueError(f"{name} must be integers >= {low}; got {value!r}")
    arr = arr.astype(np.int64)
    if np.any(arr < low):
        raise ValueError(f"{name} must be integers >= {low}; got {value!r}")
    return arr


def _as_float_array(name: str, value: Any, *, low: float = -math.inf) -> np.ndarray:
    try:
        arr = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be numbers; got {value!r}") from err
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < low):
        raise ValueError(f"{name} must be finite numbers >= {low:g}; got {value!r}")
    return arr


def _run(study: Any, out: str | os.PathLike[str] | None, run_options: Mapping[str, Any]) -> Any:
    if out is not None:
        return run_study(study, out, **run_options).to_frame()
    with tempfile.TemporaryDirectory(prefix="attunestats-power-") as tmp:
        result = run_study(study, os.path.join(tmp, "power.parquet"), **run_options)
        return read_study(result.path)
