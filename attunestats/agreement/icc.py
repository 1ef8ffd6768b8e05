"""Intraclass correlations: the six Shrout & Fleiss (1979) forms with F-based intervals.

With ``n`` units (targets) rated by the same ``k`` raters (judges) and the two-way ANOVA mean
squares ``MSR`` (units), ``MSC`` (raters), ``MSE`` (residual) and ``MSW`` (within units)::

    ICC(1,1) = (MSR - MSW) / (MSR + (k - 1) MSW)                      one-way random
    ICC(A,1) = (MSR - MSE) / (MSR + (k - 1) MSE + k (MSC - MSE) / n)  two-way, absolute agreement
    ICC(C,1) = (MSR - MSE) / (MSR + (k - 1) MSE)                      two-way, consistency
    ICC(1,k) = (MSR - MSW) / MSR
    ICC(A,k) = (MSR - MSE) / (MSR + (MSC - MSE) / n)
    ICC(C,k) = (MSR - MSE) / MSR

(Shrout & Fleiss's ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k); McGraw & Wong's
names in parentheses are used here.) Intervals are the exact F-based ones for the one-way and
consistency forms and McGraw & Wong's (1996) approximate interval with Satterthwaite degrees of
freedom for absolute agreement; the average-measure limits are the Spearman-Brown transforms
of the single-measure limits. F tests are of H0: ICC = 0 (``MSR/MSW`` for the one-way forms,
``MSR/MSE`` otherwise). The layout must be complete: units with a missing rating are dropped
(with a warning).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats.agreement._input import DEFAULT_COLUMNS, _check_ratings, _check_unit_interval
from attunestats.agreement._results import ConfidenceInterval
from attunestats.errors import AttunestatsWarning, warn

__all__ = ["ICC_FORMS", "ICCResult", "icc"]

#: Names of the six forms, in result order (McGraw & Wong notation; Shrout & Fleiss in docs).
ICC_FORMS = ("ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)")
_SHROUT_FLEISS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
_DESCRIPTIONS = (
    "one-way random, single rater",
    "two-way random, absolute agreement, single rater",
    "two-way, consistency, single rater",
    "one-way random, mean of k raters",
    "two-way random, absolute agreement, mean of k raters",
    "two-way, consistency, mean of k raters",
)


@dataclass(frozen=True, repr=False)
class ICCResult(ResultMixin):
    """All six intraclass correlations with F tests and intervals.

    Array attributes have one entry per form, in the order of :data:`ICC_FORMS`.

    Attributes
    ----------
    forms : tuple of str
        ``ICC_FORMS``.
    statistic : ndarray
        The six ICCs.
    confidence_interval : ConfidenceInterval
        ``low`` and ``high`` arrays.
    fstatistic, df1, df2, pvalue : ndarray
        F test of ICC = 0.
    n_units, n_raters : int
        Complete units used and raters.
    n_units_dropped : int
        Units left out because a rating was missing.
    mean_squares : dict
        ``MSR``, ``MSC``, ``MSE``, ``MSW``.
    """

    _title = "Intraclass correlation"

    forms: tuple[str, ...]
    statistic: np.ndarray
    confidence_interval: ConfidenceInterval
    fstatistic: np.ndarray
    df1: np.ndarray
    df2: np.ndarray
    pvalue: np.ndarray
    confidence_level: float
    n_units: int
    n_raters: int
    n_units_dropped: int
    mean_squares: dict[str, float] = field(repr=False)

    def __getitem__(self, form: str) -> float:
        """The ICC of one form, by McGraw-Wong (``"ICC(A,1)"``) or Shrout-Fleiss (``"ICC2"``)."""
        for names in (self.forms, _SHROUT_FLEISS):
            if form in names:
                return float(self.statistic[names.index(form)])
        raise KeyError(f"unknown ICC form {form!r}; use one of {list(self.forms)}")

    def to_frame(self) -> pd.DataFrame:
        """Six tidy rows, one per form."""
        return pd.DataFrame(
            {
                "coefficient": list(self.forms),
                "shrout_fleiss": list(_SHROUT_FLEISS),
                "description": list(_DESCRIPTIONS),
                "statistic": self.statistic,
                "ci_low": self.confidence_interval.low,
                "ci_high": self.confidence_interval.high,
                "confidence_level": self.confidence_level,
                "fstatistic": self.fstatistic,
                "df1": self.df1,
                "df2": self.df2,
                "pvalue": self.pvalue,
                "n_units": self.n_units,
                "n_raters": self.n_raters,
            }
        )


def icc(
    data: Any,
    *,
    confidence_level: float = 0.95,
    columns: Sequence[Any] = DEFAULT_COLUMNS,
) -> ICCResult:
    """The six Shrout-Fleiss / McGraw-Wong intraclass correlations with F-based intervals.

    Parameters
    ----------
    data : array_like (raters x units) or pandas.DataFrame (long table)
        Numeric ratings. Units with any missing rating are dropped (complete two-way layout).
    confidence_level : float, default 0.95
    columns : (unit, rater, value)

    Returns
    -------
    ICCResult

    Examples
    --------
    >>> sf = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]]
    >>> res = icc(sf)  # Shrout & Fleiss (1979): 6 targets x 4 judges
    >>> round(res["ICC(1,1)"], 2), round(res["ICC(A,1)"], 2), round(res["ICC(C,1)"], 2)
    (0.17, 0.29, 0.71)
    """
    confidence_level = _check_unit_interval(confidence_level, "confidence_level")
    ratings = _check_ratings(data, columns=columns)
    if not ratings.numeric:
        raise ValueError("icc needs numeric ratings")
    complete = (ratings.codes >= 0).all(axis=0)
    dropped = int((~complete).sum())
    if dropped:
        warn(
            f"icc: {dropped} of {ratings.n_units} units have a missing rating and are left out "
            "(the ANOVA needs a complete units x raters layout)",
            AttunestatsWarning,
        )
    x = ratings.domain[ratings.codes[:, complete]].T  # units x raters
    n, k = x.shape
    if k < 2:
        raise ValueError(f"icc needs at least 2 raters; data has {k}")
    if n < 2:
        raise ValueError(f"icc needs at least 2 complete units; data has {n}")
    gm = x.mean()
    ss_total = ((x - gm) ** 2).sum()
    ss_r = k * ((x.mean(axis=1) - gm) ** 2).sum()
    ss_c = n * ((x.mean(axis=0) - gm) ** 2).sum()
    ss_e = ss_total - ss_r - ss_c
    msr = ss_r / (n - 1)
    msc = ss_c / (k - 1)
    mse = ss_e / ((n - 1) * (k - 1))
    msw = (ss_c + ss_e) / (n * (k - 1))
    if not (msw > 0 and mse > 0):
        raise ValueError("icc: ratings have no within-unit variation; the ICCs are undefined")

    # each form is (numerator) / (denominator); a denominator <= 0 (no spread between units
    # against the rater and residual mean squares) leaves the form undefined: NaN with a
    # warning, not an impossible value such as 6.5 or -inf
    denominators = np.array([
        msr + (k - 1) * msw, msr + (k - 1) * mse + k * (msc - mse) / n, msr + (k - 1) * mse,
        msr, msr + (msc - mse) / n, msr,
    ])  # fmt: skip
    numerators = np.array([msr - msw, msr - mse, msr - mse, msr - msw, msr - mse, msr - mse])
    undefined = ~(denominators > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = np.where(undefined, np.nan, numerators / denominators)
    if undefined.any():
        warn(
            f"icc: {', '.join(np.asarray(ICC_FORMS)[undefined])} undefined: the ANOVA estimate's "
            f"denominator is <= 0 (units differ too little against raters and residual: MSR "
            f"{msr:.4g}, MSC {msc:.4g}, MSE {mse:.4g})",
            AttunestatsWarning,
        )
    icc1, icc2, icc3, icc1k, icc2k, icc3k = statistic

    alpha = 1.0 - confidence_level
    df_n, df_w, df_e = n - 1.0, n * (k - 1.0), (n - 1.0) * (k - 1.0)
    f1 = msr / msw
    f3 = msr / mse
    # one-way forms: F = MSR/MSW with (n - 1, n(k - 1)) df
    fl1 = f1 / stats.f.ppf(1 - alpha / 2, df_n, df_w)
    fu1 = f1 * stats.f.ppf(1 - alpha / 2, df_w, df_n)
    # consistency forms: F = MSR/MSE with (n - 1, (n - 1)(k - 1)) df
    fl3 = f3 / stats.f.ppf(1 - alpha / 2, df_n, df_e)
    fu3 = f3 * stats.f.ppf(1 - alpha / 2, df_e, df_n)
    # absolute agreement: McGraw & Wong (1996) with Satterthwaite df
    a = k * icc2 / (n * (1 - icc2))
    b = 1 + k * icc2 * (n - 1) / (n * (1 - icc2))
    v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / df_e)
    f_star_hi = stats.f.ppf(1 - alpha / 2, df_n, v)
    f_star_lo = stats.f.ppf(1 - alpha / 2, v, df_n)
    c = k * msc + (k * n - k - n) * mse
    l2 = n * (msr - f_star_hi * mse) / (f_star_hi * c + n * msr)
    u2 = n * (f_star_lo * msr - mse) / (c + n * f_star_lo * msr)

    def single(f_lo: float, f_hi: float) -> tuple[float, float]:
        return (f_lo - 1) / (f_lo + k - 1), (f_hi - 1) / (f_hi + k - 1)

    def spearman_brown(r: float) -> float:
        return k * r / (1 + (k - 1) * r)

    with np.errstate(invalid="ignore", divide="ignore"):
        l1, u1 = single(fl1, fu1)
        l3, u3 = single(fl3, fu3)
        low = np.array([l1, l2, l3, 1 - 1 / fl1, spearman_brown(l2), 1 - 1 / fl3])
        high = np.array([u1, u2, u3, 1 - 1 / fu1, spearman_brown(u2), 1 - 1 / fu3])
    low[undefined], high[undefined] = np.nan, np.nan
    fstat = np.array([f1, f3, f3, f1, f3, f3])
    df1 = np.full(6, df_n)
    df2 = np.array([df_w, df_e, df_e, df_w, df_e, df_e])
    return ICCResult(
        forms=ICC_FORMS,
        statistic=np.array([icc1, icc2, icc3, icc1k, icc2k, icc3k]),
        confidence_interval=ConfidenceInterval(low, high),  # type: ignore[arg-type]
        fstatistic=fstat,
        df1=df1,
        df2=df2,
        pvalue=stats.f.sf(fstat, df1, df2),
        confidence_level=confidence_level,
        n_units=int(n),
        n_raters=int(k),
        n_units_dropped=dropped,
        mean_squares={"MSR": float(msr), "MSC": float(msc), "MSE": float(mse), "MSW": float(msw)},
    )
