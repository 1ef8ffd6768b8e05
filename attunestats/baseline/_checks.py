"""Argument checks shared by the modules of :mod:`attunestats.baseline`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _check_release(release: Any) -> None:
    from attunestats.release.model import Release

    if not isinstance(release, Release):
        raise TypeError(f"release must be an attunestats Release; got {type(release).__name__}")


def _check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {value!r}")
    return value


def _check_level(confidence_level: Any) -> float:
    if isinstance(confidence_level, bool) or not isinstance(
        confidence_level, int | float | np.floating
    ):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    return float(confidence_level)


def _check_resamples(n_resamples: Any, minimum: int = 0) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer):
        raise TypeError(f"n_resamples must be an integer; got {n_resamples!r}")
    if n_resamples < minimum:
        raise ValueError(f"n_resamples must be >= {minimum}; got {n_resamples}")
    return int(n_resamples)


def _check_correction(correction: Any) -> str:
    from attunestats.inference.compare import CORRECTIONS

    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {list(CORRECTIONS)}; got {correction!r}")
    return str(correction)
