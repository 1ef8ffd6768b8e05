"""The Wilson score interval of a proportion, shared by the power and study summaries.

May import: only the standard library.
"""

from __future__ import annotations

import math


def wilson_interval(rate: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval of a proportion ``rate`` observed on ``n`` (possibly effective,
    non-integer) trials, at the normal quantile ``z``; limits clipped to [0, 1].

    Examples
    --------
    >>> [round(x, 4) for x in wilson_interval(0.5, 10, 1.959964)]
    [0.2366, 0.7634]
    """
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
