"""Chance-corrected agreement coefficients: Cohen's kappa, Fleiss' kappa, Gwet's AC1/AC2.

Definitions and standard errors
-------------------------------
Cohen's kappa (two raters, contingency table ``p_ij`` of proportions, agreement weights
``w_ij`` with ``w_ii = 1``): ``p_o = sum w p``, ``p_e = sum_ij w_ij p_i. p_.j``,
``kappa = (p_o - p_e) / (1 - p_e)``. Standard errors of Fleiss, Cohen & Everitt (1969), as
printed by SAS PROC FREQ: with ``wbar_i. = sum_j p_.j w_ij`` and ``wbar_.j = sum_i p_i. w_ij``

* ASE (used for the confidence interval ``kappa -/+ z ASE``)::

      [sum_ij p_ij (w_ij - (wbar_i. + wbar_.j)(1 - kappa))^2 - (kappa - p_e (1 - kappa))^2]
      / (n (1 - p_e)^2)

* ASE0, under H0: kappa = 0 (used for the z test)::

      [sum_ij p_i. p_.j (w_ij - (wbar_i. + wbar_.j))^2 - p_e^2] / (n (1 - p_e)^2)

Fleiss' kappa (any number of raters; Fleiss 1971 generalised to missing ratings as in Gwet
2014, ch. 2): ``p_a`` averages ``sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))`` over units with
``r_i >= 2`` ratings, ``pi_k`` averages ``r_ik / r_i`` over units with ratings, and
``p_e = sum_k pi_k^2``. Two standard errors:

* ``standard_error``: Gwet's (2014) linearisation, conditional on the raters (units are the
  sampling units); ``t(n - 1)`` interval with the upper limit capped at 1, t-test p-value
  (as the irrCAC package);
* ``standard_error_h0``: Fleiss, Nee & Landis (1979), valid under H0: kappa = 0 and only when
  every unit has the same number of ratings; z statistic and normal p-value (as R
  ``irr::kappam.fleiss``).

Gwet's AC1 (AC2 with weights): ``p_e = T_w sum_k pi_k (1 - pi_k) / (q (q - 1))`` with ``T_w``
the sum of the weights and ``q`` the number of categories. Variance conditional on the raters:
for raw ratings Gwet's (2014) linearisation (handles missing ratings); for a two-rater
contingency table Gwet's (2008) closed form. Both with a ``t(n - 1)`` interval capped at 1.

Weights (agreement weights, 1 on the diagonal; Gwet 2014 ch. 3) are computed from the numeric
category values when they are numeric, else from positions ``1..q``: ``"identity"``,
``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``, ``"circular"``,
``"bipolar"``, or a square array.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats.agreement._input import (
    DEFAULT_COLUMNS,
    _check_choice,
    _check_ratings,
    _check_unit_interval,
    _Ratings,
)
from attunestats.agreement._results import (
    ConfidenceInterval,
    normal_interval,
    normal_pvalue,
    t_interval_upper_clipped,
)

__all__ = [
    "CohenKappaResult",
    "FleissKappaResult",
    "GwetResult",
    "agreement_weights",
    "cohen_kappa",
    "fleiss_kappa",
    "gwet_ac1",
]

WEIGHT_NAMES = (
    "identity",
    "linear",
    "quadratic",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)
ALTERNATIVES = ("two-sided", "greater", "less")


# ---------------------------------------------------------------------------------------------
# weights


def agreement_weights(weights: str | None, scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Agreement weight matrix (1 on the diagonal) for categories with the given scores.

    Parameters
    ----------
    weights : str or None
        One of ``"identity"`` (or None), ``"linear"``, ``"quadratic"``, ``"ordinal"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"`` (Gwet 2014, ch. 3).
    scores : sequence of float
        Numeric score of each category, in category order (positions ``1..q`` for
        non-numeric categories). ``"ordinal"`` uses only the order.

    Returns
    -------
    ndarray, shape (q, q)

    Examples
    --------
    >>> agreement_weights("linear", [1, 2, 3])
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0.5],
           [0. , 0.5, 1. ]])
    """
    name = "identity" if weights is None else _check_choice(weights, "weights", WEIGHT_NAMES)
    x = np.asarray(scores, dtype=np.float64)
    q = x.size
    if name == "identity" or q < 2:
        return np.eye(q)
    lo, hi = x.min(), x.max()
    diff = x[:, None] - x[None, :]
    if name == "linear":
        return 1.0 - np.abs(diff) / (hi - lo)
    if name == "quadratic":
        return 1.0 - (diff / (hi - lo)) ** 2
    if name == "radical":
        return 1.0 - np.sqrt(np.abs(diff)) / np.sqrt(hi - lo)
    if name == "ordinal":
        k = np.arange(q)
        nkl = np.abs(k[:, None] - k[None, :]) + 1.0
        d = nkl * (nkl - 1.0) / 2.0
        return 1.0 - d / d.max()
    if name == "ratio":
        if (x <= 0).any():
            raise ValueError(f"weights='ratio' needs positive category scores; got {x.tolist()}")
        d = (diff / (x[:, None] + x[None, :])) ** 2
        return 1.0 - d / ((hi - lo) / (hi + lo)) ** 2
    if name == "circular":
        d = np.sin(np.pi * diff / (hi - lo + 1.0)) ** 2
        return 1.0 - d / d.max()
    # bipolar
    num = diff**2
    den = (x[:, None] + x[None, :] - 2 * lo) * (2 * hi - x[:, None] - x[None, :])
    d = np.divide(num, den, out=np.zeros_like(num), where=~np.eye(q, dtype=bool))
    return 1.0 - d / d.max()


def _weight_matrix(weights: Any, scores: np.ndarray) -> tuple[np.ndarray, str]:
    q = scores.size
    if weights is None or isinstance(weights, str):
        name = "identity" if weights is None else weights
        return agreement_weights(name, scores), name
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (q, q):
        raise ValueError(
            f"weights matrix must be {q} x {q} (one row/column per category); got shape {w.shape}"
        )
    if not np.isfinite(w).all() or (w > 1).any() or (w < 0).any():
        raise ValueError("weights matrix must hold agreement weights in [0, 1]")
    if not np.allclose(np.diag(w), 1.0):
        raise ValueError("weights matrix must have 1 on the diagonal (agreement weights)")
    return w, "custom"


def _check_ordered(weights: Any, categories: np.ndarray, value_domain: Any, func: str) -> None:
    """Named weights other than identity use the categories' order and spacing: text labels
    have none of their own (sorting them alphabetically would silently change the result), so
    they need an ordered ``value_domain``, as ``krippendorff_alpha(level="ordinal")`` does."""
    if not isinstance(weights, str) or weights == "identity" or value_domain is not None:
        return
    if all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in categories):
        return
    raise ValueError(
        f"{func}: weights={weights!r} with non-numeric values needs an ordered value_domain (the "
        f"values, e.g. {categories[0]!r}, have no order of their own)"
    )


def _scores(ratings_domain: np.ndarray, numeric: bool) -> np.ndarray:
    if numeric:
        return ratings_domain.astype(np.float64)
    return np.arange(1, ratings_domain.size + 1, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# Cohen


@dataclass(frozen=True, repr=False)
class CohenKappaResult(ResultMixin):
    """Cohen's kappa (weighted or not) with asymptotic standard errors.

    Attributes
    ----------
    statistic : float
        Kappa.
    standard_error : float
        ASE, the asymptotic standard error (Fleiss, Cohen & Everitt 1969).
    standard_error_h0 : float
        ASE0, the standard error under H0: kappa = 0.
    confidence_interval : ConfidenceInterval
        ``kappa -/+ z * ASE``.
    zstatistic, pvalue : float
        ``kappa / ASE0`` and its normal p-value for ``alternative``.
    p_observed, p_expected : float
        Weighted observed and chance agreement.
    n_units : int
        Units rated by both raters.
    weights : str
        Name of the weights ("identity" = unweighted, "custom" for a matrix).
    categories : ndarray
        Category labels (rows/columns of ``table``).
    table : ndarray
        Contingency table of counts (rater 1 in rows).
    weight_matrix : ndarray
        Agreement weights used.
    """

    _title = "Cohen's kappa"
    estimand = "agreement of these two raters, the rated units a sample of units"
    method = ("asymptotic SE (ASE; Fleiss, Cohen and Everitt 1969) for the normal interval; ASE0 "
              "(under kappa = 0) for the z test")  # fmt: skip

    statistic: float
    standard_error: float
    standard_error_h0: float
    confidence_interval: ConfidenceInterval
    zstatistic: float
    pvalue: float
    alternative: str
    confidence_level: float
    p_observed: float
    p_expected: float
    n_units: int
    weights: str
    categories: np.ndarray = field(repr=False)
    table: np.ndarray = field(repr=False)
    weight_matrix: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One tidy row."""
        name = "cohen_kappa" if self.weights == "identity" else "weighted_cohen_kappa"
        return pd.DataFrame(
            {
                "coefficient": [name],
                "weights": [self.weights],
                "statistic": [self.statistic],
                "standard_error": [self.standard_error],
                "ci_low": [self.confidence_interval.low],
                "ci_high": [self.confidence_interval.high],
                "confidence_level": [self.confidence_level],
                "standard_error_h0": [self.standard_error_h0],
                "zstatistic": [self.zstatistic],
                "pvalue": [self.pvalue],
                "alternative": [self.alternative],
                "p_observed": [self.p_observed],
                "p_expected": [self.p_expected],
                "n_units": [self.n_units],
            }
        )


def _check_table(table: Any, name: str = "table") -> np.ndarray:
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"{name} must be a square contingency table; got shape {t.shape}")
    if t.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 categories; got shape {t.shape}")
    if not np.isfinite(t).all() or (t < 0).any():
        raise ValueError(f"{name} must hold non-negative finite counts")
    if t.sum() <= 0:
        raise ValueError(f"{name} is empty (all counts are 0)")
    return t


def _exactly_one(data: Any, other: Any, other_name: str, func: str) -> None:
    if (data is None) == (other is None):
        raise ValueError(f"{func} needs exactly one of data or {other_name}")


def _two_rater_table(ratings: _Ratings, func: str) -> np.ndarray:
    if ratings.n_raters != 2:
        raise ValueError(
            f"{func} needs exactly 2 raters; data has {ratings.n_raters} "
            "(use fleiss_kappa or gwet_ac1 for more)"
        )
    c1, c2 = ratings.codes
    both = (c1 >= 0) & (c2 >= 0)
    if not both.any():
        raise ValueError(f"{func}: no unit is rated by both raters")
    q = ratings.n_values
    flat = c1[both] * q + c2[both]
    return np.bincount(flat, minlength=q * q).reshape(q, q).astype(np.float64)


def cohen_kappa(
    data: Any = None,
    *,
    table: Any = None,
    weights: str | np.ndarray | None = None,
    value_domain: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    columns: Sequence[Any] = DEFAULT_COLUMNS,
) -> CohenKappaResult:
    """Cohen's kappa, unweighted or weighted, with ASE and ASE0 (as SAS PROC FREQ).

    Parameters
    ----------
    data : array_like (2 x units) or pandas.DataFrame (long table), optional
        Ratings of exactly two raters; units missing either rating are dropped.
    table : array_like, optional
        A square contingency table of counts instead of ``data`` (rater 1 in rows).
    weights : {None, "linear", "quadratic", ...} or array, optional
        Agreement weights (see :func:`agreement_weights`): "linear" = Cicchetti-Allison,
        "quadratic" = Fleiss-Cohen. Scores are the numeric category values of ``data`` (or of
        ``value_domain``), else category positions; for a ``table``, positions unless a
        numeric ``value_domain`` gives the scores.
    value_domain : sequence, optional
        All categories in order (categories no rater used still count).
    confidence_level : float, default 0.95
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Alternative of the z test of H0: kappa = 0.
    columns : (unit, rater, value)
        Column names of a long table.

    Returns
    -------
    CohenKappaResult

    Examples
    --------
    >>> res = cohen_kappa(table=[[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    >>> round(res.statistic, 4), round(res.standard_error, 4), round(res.standard_error_h0, 4)
    (0.4842, 0.138, 0.1484)
    """
    _exactly_one(data, table, "table", "cohen_kappa")
    confidence_level = _check_unit_interval(confidence_level, "confidence_level")
    alternative = _check_choice(alternative, "alternative", ALTERNATIVES)
    if table is not None:
        counts = _check_table(table)
        q = counts.shape[0]
        if value_domain is not None:
            categories = np.asarray(list(value_domain), dtype=object)
            if categories.size != q:
                raise ValueError(
                    f"value_domain has {categories.size} values but table has {q} categories"
                )
            numeric = all(isinstance(v, (int, float, np.number)) for v in categories)
            scores = _scores(categories, numeric)
        else:
            categories = np.arange(q)
            scores = np.arange(1, q + 1, dtype=np.float64)
    else:
        ratings = _check_ratings(data, columns=columns, value_domain=value_domain)
        counts = _two_rater_table(ratings, "cohen_kappa")
        categories = ratings.domain
        scores = _scores(ratings.domain, ratings.numeric)
        if counts.shape[0] < 2:
            raise ValueError(
                f"cohen_kappa: a single category ({categories.tolist()!r}); kappa is undefined"
            )
    if table is None:
        _check_ordered(weights, categories, value_domain, "cohen_kappa")
    w, wname = _weight_matrix(weights, scores)
    n = counts.sum()
    p = counts / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    p_o = float((w * p).sum())
    p_e = float(row @ w @ col)
    if not p_e < 1:
        raise ValueError(
            "cohen_kappa: chance agreement is 1 (both raters used a single category); kappa is "
            "undefined"
        )
    kappa = (p_o - p_e) / (1 - p_e)
    wbar_row = w @ col  # wbar_i. = sum_j p_.j w_ij
    wbar_col = row @ w  # wbar_.j = sum_i p_i. w_ij
    both = wbar_row[:, None] + wbar_col[None, :]
    var = ((p * (w - both * (1 - kappa)) ** 2).sum() - (kappa - p_e * (1 - kappa)) ** 2) / (
        n * (1 - p_e) ** 2
    )
    var0 = ((np.outer(row, col) * (w - both) ** 2).sum() - p_e**2) / (n * (1 - p_e) ** 2)
    se = float(np.sqrt(max(var, 0.0)))
    se0 = float(np.sqrt(max(var0, 0.0)))
    z = kappa / se0 if se0 > 0 else float("nan")
    return CohenKappaResult(
        statistic=float(kappa),
        standard_error=se,
        standard_error_h0=se0,
        confidence_interval=normal_interval(kappa, se, confidence_level),
        zstatistic=float(z),
        pvalue=normal_pvalue(z, alternative),
        alternative=alternative,
        confidence_level=confidence_level,
        p_observed=p_o,
        p_expected=p_e,
        n_units=int(round(n)),
        weights=wname,
        categories=categories,
        table=counts,
        weight_matrix=w,
    )


# ---------------------------------------------------------------------------------------------
# Fleiss and Gwet (many raters)


def _unit_category_counts(
    data: Any, counts: Any, value_domain: Any, columns: Any, func: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(units x categories) rating counts of units with at least one rating, categories, scores."""
    _exactly_one(data, counts, "counts", func)
    if counts is not None:
        r = np.asarray(counts, dtype=np.float64)
        if r.ndim != 2:
            raise ValueError(f"counts must be a units x categories table; got shape {r.shape}")
        if not np.isfinite(r).all() or (r < 0).any() or not np.allclose(r, np.round(r)):
            raise ValueError("counts must hold non-negative integer counts")
        if value_domain is not None:
            categories = np.asarray(list(value_domain), dtype=object)
            if categories.size != r.shape[1]:
                raise ValueError(
                    f"value_domain has {categories.size} values but counts has {r.shape[1]} columns"
                )
            numeric = all(isinstance(v, (int, float, np.number)) for v in categories)
            scores = _scores(categories, numeric)
        else:
            categories = np.arange(r.shape[1])
            scores = np.arange(1, r.shape[1] + 1, dtype=np.float64)
    else:
        ratings = _check_ratings(data, columns=columns, value_domain=value_domain)
        r = ratings.unit_counts()
        categories = ratings.domain
        scores = _scores(ratings.domain, ratings.numeric)
    r = r[r.sum(axis=1) > 0]
    if r.shape[0] == 0:
        raise ValueError(f"{func}: no unit has a rating")
    if r.shape[1] < 2:
        raise ValueError(
            f"{func}: a single category ({categories.tolist()!r}); the coefficient is undefined"
        )
    if not (r.sum(axis=1) >= 2).any():
        raise ValueError(f"{func}: no unit has ratings from two or more raters")
    return r, categories, scores


@dataclass(frozen=True, repr=False)
class FleissKappaResult(ResultMixin):
    """Fleiss' kappa (generalised to missing ratings) with two standard errors.

    Attributes
    ----------
    statistic : float
    standard_error : float
        Gwet's (2014) standard error conditional on the raters.
    confidence_interval : ConfidenceInterval
        ``t(n_units - 1)`` interval from ``standard_error``, upper limit capped at 1.
    pvalue : float
        Two-sided t-test of kappa = 0 from ``standard_error``.
    standard_error_h0, zstatistic_h0, pvalue_h0 : float
        Fleiss, Nee & Landis (1979) standard error under H0: kappa = 0, the z statistic and its
        two-sided normal p-value; NaN unless every unit has the same number of ratings (and for
        ``method="randolph"``).
    method : str
        "fleiss" (chance agreement from the category proportions) or "randolph" (free
        marginals, ``p_e = 1/q``).
    """

    _title = "Fleiss' kappa"
    estimand = "agreement of these raters, the rated units a sample of units"

    statistic: float
    standard_error: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    standard_error_h0: float
    zstatistic_h0: float
    pvalue_h0: float
    p_observed: float
    p_expected: float
    n_units: int
    n_categories: int
    method: str
    confidence_level: float
    category_proportions: np.ndarray = field(repr=False)
    categories: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One tidy row."""
        return pd.DataFrame(
            {
                "coefficient": ["fleiss_kappa"],
                "method": [self.method],
                "statistic": [self.statistic],
                "standard_error": [self.standard_error],
                "ci_low": [self.confidence_interval.low],
                "ci_high": [self.confidence_interval.high],
                "confidence_level": [self.confidence_level],
                "pvalue": [self.pvalue],
                "standard_error_h0": [self.standard_error_h0],
                "zstatistic_h0": [self.zstatistic_h0],
                "pvalue_h0": [self.pvalue_h0],
                "p_observed": [self.p_observed],
                "p_expected": [self.p_expected],
                "n_units": [self.n_units],
            }
        )


def _linearised_se(
    r: np.ndarray, w: np.ndarray, coef: float, p_e: float, pe_unit: np.ndarray
) -> float:
    """Gwet's (2014) linearised standard error conditional on raters (irrCAC's formula)."""
    n = r.shape[0]
    ri = r.sum(axis=1)
    two = ri >= 2
    n2 = int(two.sum())
    sum_q = (r * (r @ w.T - 1.0)).sum(axis=1)
    den = ri * (ri - 1.0)
    den[den == 0] = 1.0
    pa_unit = sum_q / den
    coef_unit = (n / n2) * (pa_unit - p_e * two) / (1.0 - p_e)
    coef_star = coef_unit - 2.0 * (1.0 - coef) * (pe_unit - p_e) / (1.0 - p_e)
    if n < 2:
        return float("nan")
    var = ((coef_star - coef) ** 2).sum() / (n * (n - 1.0))
    return float(np.sqrt(var))


def _observed_agreement(r: np.ndarray, w: np.ndarray) -> float:
    ri = r.sum(axis=1)
    two = ri >= 2
    sum_q = (r * (r @ w.T - 1.0)).sum(axis=1)
    return float((sum_q[two] / (ri[two] * (ri[two] - 1.0))).mean())


def fleiss_kappa(
    data: Any = None,
    *,
    counts: Any = None,
    method: str = "fleiss",
    value_domain: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
    columns: Sequence[Any] = DEFAULT_COLUMNS,
) -> FleissKappaResult:
    """Fleiss' kappa for any number of raters, missing ratings allowed.

    Parameters
    ----------
    data : array_like (raters x units) or pandas.DataFrame (long table), optional
        Nominal ratings.
    counts : array_like, optional
        Instead of ``data``: a units x categories table of rating counts (rows may have
        different totals when ratings are missing).
    method : {"fleiss", "randolph"}, default "fleiss"
        Chance agreement from the observed category proportions (Fleiss 1971) or uniform over
        the categories (Randolph's free-marginal kappa).
    value_domain : sequence, optional
        All categories (unused categories count for "randolph").
    confidence_level : float, default 0.95
    columns : (unit, rater, value)

    Returns
    -------
    FleissKappaResult

    Examples
    --------
    >>> table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...          [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...          [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> round(fleiss_kappa(counts=table).statistic, 3)
    0.21
    """
    method = _check_choice(method, "method", ("fleiss", "randolph"))
    confidence_level = _check_unit_interval(confidence_level, "confidence_level")
    r, categories, _ = _unit_category_counts(data, counts, value_domain, columns, "fleiss_kappa")
    n, q = r.shape
    ri = r.sum(axis=1)
    w = np.eye(q)
    p_a = _observed_agreement(r, w)
    pi = (r / ri[:, None]).mean(axis=0)
    if method == "fleiss":
        p_e = float(pi @ pi)
        pe_unit = (r @ pi) / ri
    else:
        p_e = 1.0 / q
        pe_unit = np.full(n, p_e)
    if not p_e < 1:
        raise ValueError("fleiss_kappa: chance agreement is 1 (a single category was used)")
    kappa = (p_a - p_e) / (1.0 - p_e)
    se = _linearised_se(r, w, kappa, p_e, pe_unit)
    tstat = kappa / se if se > 0 else float("nan")
    pval = float(2 * stats.t.sf(abs(tstat), n - 1)) if np.isfinite(tstat) else float("nan")
    ci = t_interval_upper_clipped(kappa, se, n - 1, confidence_level)

    se0 = z0 = p0 = float("nan")
    if method == "fleiss" and np.all(ri == ri[0]) and ri[0] >= 2:
        m = ri[0]
        pj = r.sum(axis=0) / r.sum()
        pq = pj * (1 - pj)
        spq = pq.sum()
        inner = spq**2 - (pq * (1 - 2 * pj)).sum()
        se0 = float(np.sqrt(2.0) / (spq * np.sqrt(n * m * (m - 1))) * np.sqrt(max(inner, 0.0)))
        z0 = kappa / se0 if se0 > 0 else float("nan")
        p0 = normal_pvalue(z0, "two-sided")
    return FleissKappaResult(
        statistic=float(kappa),
        standard_error=se,
        confidence_interval=ci,
        pvalue=pval,
        standard_error_h0=se0,
        zstatistic_h0=float(z0),
        pvalue_h0=p0,
        p_observed=p_a,
        p_expected=p_e,
        n_units=int(n),
        n_categories=int(q),
        method=method,
        confidence_level=confidence_level,
        category_proportions=pi,
        categories=categories,
    )


@dataclass(frozen=True, repr=False)
class GwetResult(ResultMixin):
    """Gwet's AC1 (unweighted) or AC2 (weighted) agreement coefficient.

    Attributes
    ----------
    statistic : float
    standard_error : float
        Conditional on the raters (Gwet 2008 for a table, Gwet 2014 for raw ratings).
    confidence_interval : ConfidenceInterval
        ``t(n_units - 1)`` interval, upper limit capped at 1.
    pvalue : float
        Two-sided t-test of AC = 0.
    coefficient : str
        "AC1" or "AC2".
    """

    _title = "Gwet's AC1 / AC2"
    estimand = "agreement of these raters, the rated units a sample of units"
    method = "linearised SE conditional on the raters (Gwet 2008, 2014), t(n_units - 1) interval"

    statistic: float
    standard_error: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    coefficient: str
    weights: str
    p_observed: float
    p_expected: float
    n_units: int
    n_categories: int
    confidence_level: float
    categories: np.ndarray = field(repr=False)
    weight_matrix: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One tidy row."""
        return pd.DataFrame(
            {
                "coefficient": ["gwet_" + self.coefficient.lower()],
                "weights": [self.weights],
                "statistic": [self.statistic],
                "standard_error": [self.standard_error],
                "ci_low": [self.confidence_interval.low],
                "ci_high": [self.confidence_interval.high],
                "confidence_level": [self.confidence_level],
                "pvalue": [self.pvalue],
                "p_observed": [self.p_observed],
                "p_expected": [self.p_expected],
                "n_units": [self.n_units],
            }
        )


def gwet_ac1(
    data: Any = None,
    *,
    table: Any = None,
    weights: str | np.ndarray | None = None,
    value_domain: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
    columns: Sequence[Any] = DEFAULT_COLUMNS,
) -> GwetResult:
    """Gwet's AC1 (or AC2 with ``weights``) for any number of raters, missing ratings allowed.

    Parameters
    ----------
    data : array_like (raters x units) or pandas.DataFrame (long table), optional
        Ratings.
    table : array_like, optional
        Instead of ``data``: a square two-rater contingency table of counts.
    weights : {None, "linear", "quadratic", "ordinal", "radical", "ratio", "circular", \
"bipolar"} or array, optional
        Agreement weights (:func:`agreement_weights`); None gives AC1.
    value_domain : sequence, optional
        All categories in order (``q`` in the chance agreement counts unused ones too).
    confidence_level : float, default 0.95
    columns : (unit, rater, value)

    Returns
    -------
    GwetResult

    Examples
    --------
    >>> res = gwet_ac1(table=[[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> round(res.statistic, 5), round(res.standard_error, 5)
    (0.84933, 0.04322)
    """
    confidence_level = _check_unit_interval(confidence_level, "confidence_level")
    if table is not None:
        _exactly_one(data, table, "table", "gwet_ac1")
        return _gwet_table(table, weights, value_domain, confidence_level)
    r, categories, scores = _unit_category_counts(data, None, value_domain, columns, "gwet_ac1")
    _check_ordered(weights, categories, value_domain, "gwet_ac1")
    w, wname = _weight_matrix(weights, scores)
    n, q = r.shape
    ri = r.sum(axis=1)
    p_a = _observed_agreement(r, w)
    pi = (r / ri[:, None]).mean(axis=0)
    tw = w.sum()
    p_e = float(tw * (pi * (1 - pi)).sum() / (q * (q - 1)))
    ac = (p_a - p_e) / (1 - p_e)
    pe_unit = tw / (q * (q - 1)) * (r @ (1 - pi)) / ri
    se = _linearised_se(r, w, ac, p_e, pe_unit)
    return _gwet_result(ac, se, n, p_a, p_e, q, wname, w, categories, confidence_level)


def _gwet_result(
    ac: float,
    se: float,
    n: int,
    p_a: float,
    p_e: float,
    q: int,
    wname: str,
    w: np.ndarray,
    categories: np.ndarray,
    confidence_level: float,
) -> GwetResult:
    tstat = ac / se if se > 0 else float("nan")
    pval = float(2 * stats.t.sf(abs(tstat), n - 1)) if np.isfinite(tstat) else float("nan")
    return GwetResult(
        statistic=float(ac),
        standard_error=float(se),
        confidence_interval=t_interval_upper_clipped(ac, se, n - 1, confidence_level),
        pvalue=pval,
        coefficient="AC1" if np.allclose(w, np.eye(q)) else "AC2",
        weights=wname,
        p_observed=float(p_a),
        p_expected=float(p_e),
        n_units=int(n),
        n_categories=int(q),
        confidence_level=confidence_level,
        categories=categories,
        weight_matrix=w,
    )


def _gwet_table(table: Any, weights: Any, value_domain: Any, confidence_level: float) -> GwetResult:
    counts = _check_table(table)
    q = counts.shape[0]
    if value_domain is not None:
        categories = np.asarray(list(value_domain), dtype=object)
        if categories.size != q:
            raise ValueError(
                f"value_domain has {categories.size} values but table has {q} categories"
            )
        numeric = all(isinstance(v, (int, float, np.number)) for v in categories)
        scores = _scores(categories, numeric)
    else:
        categories = np.arange(q)
        scores = np.arange(1, q + 1, dtype=np.float64)
    w, wname = _weight_matrix(weights, scores)
    n = counts.sum()
    p = counts / n
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2
    tw = w.sum()
    p_a = float((w * p).sum())
    p_e = float(tw * (pi * (1 - pi)).sum() / (q * (q - 1)))
    ac = (p_a - p_e) / (1 - p_e)
    # Gwet (2008) variance for two raters, conditional on the raters
    term = w - 2 * (1 - ac) * tw * (1 - (pi[:, None] + pi[None, :]) / 2) / (q * (q - 1))
    var = ((p * term**2).sum() - (p_a - 2 * (1 - ac) * p_e) ** 2) / (n * (1 - p_e) ** 2)
    se = float(np.sqrt(max(var, 0.0)))
    return _gwet_result(ac, se, int(round(n)), p_a, p_e, q, wname, w, categories, confidence_level)
