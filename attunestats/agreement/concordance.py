"""Kendall's coefficient of concordance W among raters who rank (or score) the same units.

Each rater's ratings are ranked across the units (ties get mid-ranks). With ``m`` raters,
``n`` units, rank sums ``R_j`` and ``S = sum_j (R_j - m (n + 1) / 2)^2``::

    W = 12 S / (m^2 (n^3 - n) - m sum_i T_i),   T_i = sum over tie groups of rater i (t^3 - t)

(Kendall & Babington Smith 1939; tie correction as in Siegel & Castellan 1988). The test of
no concordance uses Friedman's statistic ``m (n - 1) W ~ chi2(n - 1)``. Units with a missing
rating are dropped (with a warning): W needs every rater to rank the same units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats.agreement._input import DEFAULT_COLUMNS, _check_ratings
from attunestats.errors import AttunestatsWarning, warn

__all__ = ["KendallWResult", "kendall_w"]


@dataclass(frozen=True, repr=False)
class KendallWResult(ResultMixin):
    """Kendall's W with Friedman's chi-square test.

    Attributes
    ----------
    statistic : float
        W, in [0, 1].
    chi2 : float
        ``m (n - 1) W``.
    df : int
        ``n - 1``.
    pvalue : float
        Upper tail of chi2(df).
    mean_spearman : float
        ``(m W - 1) / (m - 1)``, the average Spearman correlation over rater pairs (exact
        without ties).
    n_units, n_raters, n_units_dropped : int
    """

    _title = "Kendall's coefficient of concordance W"

    statistic: float
    chi2: float
    df: int
    pvalue: float
    mean_spearman: float
    n_units: int
    n_raters: int
    n_units_dropped: int

    def to_frame(self) -> pd.DataFrame:
        """One tidy row."""
        return pd.DataFrame(
            {
                "coefficient": ["kendall_w"],
                "statistic": [self.statistic],
                "chi2": [self.chi2],
                "df": [self.df],
                "pvalue": [self.pvalue],
                "mean_spearman": [self.mean_spearman],
                "n_units": [self.n_units],
                "n_raters": [self.n_raters],
            }
        )


def kendall_w(data: Any, *, columns: Sequence[Any] = DEFAULT_COLUMNS) -> KendallWResult:
    """Kendall's coefficient of concordance, corrected for ties.

    Parameters
    ----------
    data : array_like (raters x units) or pandas.DataFrame (long table)
        Ranks or scores (ranked within each rater; higher score = higher rank).
    columns : (unit, rater, value)

    Returns
    -------
    KendallWResult

    Examples
    --------
    >>> ranks = [[1, 3, 4, 5, 2, 8, 6, 7, 10, 9], [2, 1, 4, 5, 6, 3, 8, 7, 10, 9],
    ...          [3, 2, 1, 5, 7, 4, 6, 8, 9, 10], [4, 2, 3, 1, 6, 7, 5, 9, 8, 10]]
    >>> round(kendall_w(ranks).statistic, 4)  # sum of squared deviations 1048
    0.7939
    """
    ratings = _check_ratings(data, columns=columns)
    if not ratings.numeric:
        raise ValueError("kendall_w needs numeric ranks or scores")
    complete = (ratings.codes >= 0).all(axis=0)
    dropped = int((~complete).sum())
    if dropped:
        warn(
            f"kendall_w: {dropped} of {ratings.n_units} units have a missing rating and are "
            "left out (every rater must rank the same units)",
            AttunestatsWarning,
        )
    x = ratings.domain[ratings.codes[:, complete]]  # raters x units
    m, n = x.shape
    if m < 2:
        raise ValueError(f"kendall_w needs at least 2 raters; data has {m}")
    if n < 2:
        raise ValueError(f"kendall_w needs at least 2 complete units; data has {n}")
    ranks = stats.rankdata(x, axis=1)
    rank_sums = ranks.sum(axis=0)
    s = float(((rank_sums - m * (n + 1) / 2.0) ** 2).sum())
    ties = 0.0
    for row in x:
        _, t = np.unique(row, return_counts=True)
        ties += float((t**3 - t).sum())
    denom = m**2 * (n**3 - n) - m * ties
    if denom <= 0:
        raise ValueError("kendall_w: every rater gave all units the same score; W is undefined")
    w = 12.0 * s / denom
    chi2 = m * (n - 1) * w
    return KendallWResult(
        statistic=float(w),
        chi2=float(chi2),
        df=int(n - 1),
        pvalue=float(stats.chi2.sf(chi2, n - 1)),
        mean_spearman=float((m * w - 1) / (m - 1)),
        n_units=int(n),
        n_raters=int(m),
        n_units_dropped=dropped,
    )
