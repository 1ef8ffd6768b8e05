"""Codes, vocabularies and small helpers shared by the ground-truth and prediction draws.

Private helper of :mod:`attunestats.release.simulate`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attunestats import constants as K

_QIDS = K.BINARY_QUESTION_IDS
_YES, _NO, _NA, _NULL, _OMIT = 0, 1, 2, -1, 3
_BIN_STR = ("yes", "no", "na")
_MASKED = {"original": "original", "alternate": "alternate1", "human": "alternate2"}
_POS = tuple(i.lower() for i in K.PANAS_POSITIVE)
_NEG = tuple(i.lower() for i in K.PANAS_NEGATIVE)
_TITLE = {i.lower(): i for i in K.PANAS_ITEMS}
_LABELS = _POS + _NEG
_VALENCE = {**dict.fromkeys(_POS, 0), **dict.fromkeys(_NEG, 1)}


def _logistic(a: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-np.asarray(a, dtype=float)))


def _turn_position(n_turns: int) -> np.ndarray:
    if n_turns == 1:
        return np.array([0.5])
    return np.arange(n_turns) / (n_turns - 1)


def _clamp_int(value: float, low: int, high: int) -> int:
    """``round(value)`` clamped to ``low..high`` (Python rounding, half to even)."""
    return max(low, min(high, round(value)))
