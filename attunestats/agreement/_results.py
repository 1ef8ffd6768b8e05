"""Small shared pieces of the agreement result objects."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats


class ConfidenceInterval(NamedTuple):
    """Lower and upper confidence limits."""

    low: float
    high: float


def normal_interval(estimate: float, se: float, confidence_level: float) -> ConfidenceInterval:
    """``estimate -/+ z * se`` with the normal quantile (Wald interval)."""
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    return ConfidenceInterval(float(estimate - z * se), float(estimate + z * se))


def t_interval_upper_clipped(
    estimate: float, se: float, df: float, confidence_level: float
) -> ConfidenceInterval:
    """``estimate -/+ t(df) * se`` with the upper limit capped at 1 (Gwet 2014 convention)."""
    t = stats.t.ppf(0.5 + confidence_level / 2, df)
    high = float(estimate + t * se)
    # a NaN limit stays NaN (min(1.0, nan) would give 1.0: half an interval)
    return ConfidenceInterval(float(estimate - t * se), high if np.isnan(high) else min(1.0, high))


def normal_pvalue(z: float, alternative: str) -> float:
    """p-value of a z statistic for ``alternative`` in {"two-sided", "greater", "less"}."""
    if not np.isfinite(z):
        return float("nan")
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(2 * stats.norm.sf(abs(z)))
