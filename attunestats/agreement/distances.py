"""Distances between ratings for Krippendorff's alpha with non-numeric values.

Each function takes two values and returns the squared-difference function ``delta^2`` of
Krippendorff's alpha directly (it is *not* squared again): 0 for identical values, larger for
more different ones. Pass one to ``krippendorff_alpha(..., distance=...)`` or name it
(``"masi"``, ``"jaccard"``, ``"valence_arousal"``).

* :func:`jaccard_distance` and :func:`masi_distance` compare *sets* of labels, e.g. the emotion
  tags an annotator gave one turn (Passonneau 2006). The empty set (a "neutral" turn) is a value
  like any other: two empty sets agree (distance 0); an empty and a non-empty set disagree
  completely (distance 1).
* :func:`valence_arousal_distance` compares *single* emotion labels by ``1 - sim`` with the
  valence-arousal similarity of spec section 1.5 (``constants.VALENCE_AROUSAL``, rounded to 4
  decimals like the official scorer).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from attunestats.constants import VALENCE_AROUSAL

__all__ = ["jaccard_distance", "masi_distance", "valence_arousal_distance"]


def _as_set(value: Any, name: str) -> frozenset[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{name} must be a set of labels (frozenset, set, list or tuple); got {value!r}"
        )
    return frozenset(value)


def jaccard_distance(a: Iterable[Any], b: Iterable[Any]) -> float:
    """Jaccard distance ``1 - |a & b| / |a | b|`` between two sets of labels.

    Two empty sets have distance 0.

    Examples
    --------
    >>> jaccard_distance({"upset", "nervous"}, {"upset"})
    0.5
    """
    sa, sb = _as_set(a, "a"), _as_set(b, "b")
    union = len(sa | sb)
    if union == 0:
        return 0.0
    return 1.0 - len(sa & sb) / union


def masi_distance(a: Iterable[Any], b: Iterable[Any]) -> float:
    """MASI distance (Measuring Agreement on Set-valued Items; Passonneau 2006).

    ``1 - J * M`` with ``J`` the Jaccard index and the monotonicity weight ``M`` = 1 for equal
    sets, 2/3 when one set contains the other, 1/3 when they overlap otherwise and 0 when they
    are disjoint. Two empty sets have distance 0.

    Examples
    --------
    >>> round(masi_distance({"a", "b"}, {"a", "b", "c"}), 4)  # J = 2/3, M = 2/3
    0.5556
    """
    sa, sb = _as_set(a, "a"), _as_set(b, "b")
    if sa == sb:
        return 0.0
    inter = len(sa & sb)
    if inter == 0:
        return 1.0
    if sa <= sb or sb <= sa:
        m = 2.0 / 3.0
    else:
        m = 1.0 / 3.0
    return 1.0 - (inter / len(sa | sb)) * m


def _coordinates(label: Any, name: str) -> tuple[float, float]:
    if not isinstance(label, str):
        raise TypeError(f"{name} must be an emotion label (str); got {label!r}")
    key = label.strip().lower()
    try:
        return VALENCE_AROUSAL[key]
    except KeyError:
        raise ValueError(
            f"{name}={label!r} is not one of the {len(VALENCE_AROUSAL)} emotion labels with "
            f"valence-arousal coordinates (constants.VALENCE_AROUSAL)"
        ) from None


def valence_arousal_distance(a: str, b: str) -> float:
    """``1 - sim(a, b)`` with the valence-arousal similarity of spec section 1.5.

    ``sim = 1 - ||(V_a, A_a) - (V_b, A_b)||_2 / sqrt(2)``, rounded to 4 decimals as in the
    official scorer; labels are compared after ``strip().lower()``. Labels without coordinates
    raise ``ValueError`` (the scorer scores them 0, which is not a distance: an unknown label
    would then disagree with itself).

    Examples
    --------
    >>> valence_arousal_distance("afraid", "scared")  # sim = 0.9842
    0.0158
    """
    va, aa = _coordinates(a, "a")
    vb, ab = _coordinates(b, "b")
    sim = round(1.0 - math.hypot(va - vb, aa - ab) / math.sqrt(2.0), 4)
    return round(1.0 - sim, 4)
