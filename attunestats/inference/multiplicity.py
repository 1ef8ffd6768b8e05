"""Multiplicity: adjusted p-values and intervals that agree with them.

Every comparison table states its correction (there is no silent default), and its intervals are
adjusted the same way as its tests, so that "the interval excludes 0" and "the adjusted p-value is
below alpha" never disagree:

``"maxt"``
    Single-step max-|t| (Hothorn, Bretz and Westfall 2008): the adjusted p-value of contrast ``k``
    is ``P(max_j |T_j| >= |t_k|)`` under the joint (multivariate t) null distribution of the
    family, and the intervals ``estimate +/- c * se`` with ``c`` the ``1 - alpha`` quantile of
    ``max_j |T_j|`` are *simultaneous*: they cover every contrast of the family at once with
    probability ``1 - alpha``. It accounts for the correlation of the contrasts (all pairs of
    11 predictors share their participants), so it is less conservative than Bonferroni.
    The joint law is drawn by Monte Carlo; as ``max_j |T_j| >= |T_k|``, the adjusted p-value is
    never below the contrast's own t test on the family's df, nor the interval narrower.
``"bonferroni"``
    ``p * m``; intervals at level ``1 - alpha / m`` (simultaneous, conservative).
``"holm"`` (Holm 1979) and ``"bh"`` (Benjamini and Hochberg 1995)
    Step-down FWER and step-up FDR adjusted p-values. No simultaneous interval matches a
    step-wise test; the intervals reported with them are *compatible* intervals: marginal
    intervals at the level the procedure tested each contrast at (:func:`interval_alpha`), which
    exclude 0 exactly when the adjusted p-value is below alpha. For BH these are the
    false-coverage-rate intervals of Benjamini and Yekutieli (2005).
``"none"``
    Marginal tests and intervals.

The family is stated with every table (e.g. all predictor pairs of one metric).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy import stats

CORRECTIONS: tuple[str, ...] = ("maxt", "holm", "bonferroni", "bh", "none")
Correction = Literal["maxt", "holm", "bonferroni", "bh", "none"]

#: What the intervals reported with each correction are.
INTERVAL_KINDS: dict[str, str] = {
    "maxt": "simultaneous (max-|t|)",
    "bonferroni": "simultaneous (Bonferroni)",
    "holm": "compatible with the Holm-adjusted tests (not simultaneous)",
    "bh": "compatible with the BH-adjusted tests (false coverage rate, Benjamini-Yekutieli)",
    "none": "marginal",
}


def check_correction(correction: object) -> str:
    """Validate a correction name (required everywhere; there is no default)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    return str(correction)


def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, *, method: str) -> np.ndarray:
    """Adjusted p-values: Holm step-down, Bonferroni, Benjamini-Hochberg step-up, or unchanged.

    NaN p-values stay NaN and do not count in the family size. ``"maxt"`` needs the joint
    distribution of the test statistics: use :func:`maxt_adjust`.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"method must be one of {CORRECTIONS}; got {method!r}")
    if method == "maxt":
        raise ValueError("method='maxt' needs the joint null distribution; use maxt_adjust()")
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-d; got shape {p.shape}")
    bad = (p < 0) | (p > 1)
    if np.any(bad):
        raise ValueError(f"pvalues must lie in [0, 1]; got {p[bad][:3].tolist()}")
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        out[ok] = q
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(q * m, 1.0)
        return out
    order = np.argsort(q, kind="stable")
    sorted_p = q[order]
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * sorted_p)
    else:  # bh
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * sorted_p[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(adj, 1.0)
    out[ok] = adjusted
    return out


def interval_alpha(
    correction: str, pvalues: np.ndarray, adjusted: np.ndarray, alpha: float
) -> np.ndarray:
    """Per-contrast level ``alpha_k`` of the intervals reported with a p-value correction.

    ``"none"``: ``alpha``; ``"bonferroni"``: ``alpha / m`` (simultaneous); ``"holm"``: the
    level at which Holm's step-down tested the contrast, ``alpha / (m - i + 1)`` for the
    ``i``-th smallest p-value among the ``r`` rejected and ``alpha / (m - r)`` for the others;
    ``"bh"``: ``max(R, 1) alpha / m`` with ``R`` rejections (Benjamini and Yekutieli's 2005
    false-coverage-rate intervals). In every case the marginal interval at level
    ``1 - alpha_k`` excludes the null exactly when the adjusted p-value is below ``alpha``.
    """
    p = np.asarray(pvalues, dtype=float)
    adj = np.asarray(adjusted, dtype=float)
    ok = ~np.isnan(p)
    m = max(int(ok.sum()), 1)
    out = np.full(p.shape, np.nan)
    if correction == "none":
        out[ok] = alpha
    elif correction == "bonferroni":
        out[ok] = alpha / m
    elif correction == "bh":
        r = int(np.sum(adj[ok] < alpha))
        out[ok] = max(r, 1) * alpha / m
    elif correction == "holm":
        idx = np.flatnonzero(ok)
        order = idx[np.argsort(p[idx], kind="stable")]
        r = int(np.sum(adj[ok] < alpha))
        steps = np.arange(1, m + 1)
        levels = np.where(steps <= r, alpha / (m - steps + 1), alpha / max(m - r, 1))
        out[order] = levels
    else:
        raise ValueError(f"no interval level rule for correction {correction!r}")
    return out


def maxt_adjust(
    t_values: np.ndarray, max_draws: np.ndarray, alpha: float
) -> tuple[np.ndarray, float]:
    """Single-step max-|t| adjusted p-values and the matching simultaneous critical value.

    ``p~_k = (1 + #{max >= |t_k|}) / (B + 1)``. The critical value ``c`` is the order statistic
    of the draws for which ``|t| > c`` holds exactly when ``p~ < alpha``, so a simultaneous
    interval ``estimate +/- c se`` excludes 0 exactly when the adjusted test rejects.
    """
    draws = np.sort(np.asarray(max_draws, dtype=float))
    t = np.abs(np.asarray(t_values, dtype=float))
    n = draws.size
    if n == 0:
        return np.full(t.shape, np.nan), np.nan
    at_least = n - np.searchsorted(draws, t, side="left")
    adjusted = np.where(np.isnan(t), np.nan, (1.0 + at_least) / (n + 1.0))
    # p~ < alpha  <=>  #{draws < |t|} > n - (alpha (n + 1) - 1)  <=>  |t| > draws[m - 1]
    m = int(np.floor(n - (alpha * (n + 1.0) - 1.0))) + 1
    crit = float(draws[m - 1]) if 1 <= m <= n else (np.inf if m > n else -np.inf)
    return np.minimum(adjusted, 1.0), crit


def t_quantile(alpha: np.ndarray | float, df: np.ndarray | float) -> np.ndarray:
    """Two-sided ``t`` critical value at level ``1 - alpha``."""
    return stats.t.ppf(1.0 - np.asarray(alpha, dtype=float) / 2.0, df)
