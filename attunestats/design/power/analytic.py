"""Analytic power and minimum detectable effects of a clustered mean contrast.

The design effect of a mean over clustered conversations (Kish; Eldridge, Ashby & Kerry 2006 for
unequal cluster sizes), the power of the z test with ``n_eff = n / deff`` and of the cluster-level
t test (noncentral t), and their inversion (the minimum detectable effect). See the docstring of
:mod:`attunestats.design.power`.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from scipy import optimize, stats

from attunestats.design.power._common import (
    ALTERNATIVES,
    DESIGNS,
    Alternative,
    Design,
    _as_float_array,
    _as_int_array,
    _check_choice,
    _check_prob,
)

__all__ = ["analytic_mde", "analytic_power", "design_effect"]


def design_effect(cluster_size: Any, icc: Any, *, cv: float = 0.0) -> Any:
    """Design effect of a mean over clustered conversations.

    ``deff = 1 + ((cv^2 + 1) * m - 1) * icc`` with ``m`` the mean cluster size and ``cv`` the
    coefficient of variation of cluster sizes (``cv = 0``: Kish's ``1 + (m - 1) icc``; Eldridge,
    Ashby & Kerry 2006, Int J Epidemiol 35:1292).

    Examples
    --------
    >>> round(float(design_effect(10, 0.2)), 6)
    2.8
    """
    m = _as_float_array("cluster_size", cluster_size, low=1.0)
    r = _as_float_array("icc", icc, low=0.0)
    if np.any(r > 1):
        raise ValueError(f"icc must lie in [0, 1]; got {icc!r}")
    cv = _check_cv(cv)
    out = 1.0 + ((cv**2 + 1.0) * m - 1.0) * r
    return float(out[0]) if np.ndim(cluster_size) == 0 and np.ndim(icc) == 0 else out


def _check_cv(cv: Any) -> float:
    """The coefficient of variation of cluster sizes: a finite number >= 0."""
    ok = not isinstance(cv, bool) and isinstance(cv, int | float | np.integer | np.floating)
    if not (ok and 0 <= cv < math.inf):
        raise ValueError(f"cv must be a finite number >= 0; got {cv!r}")
    return float(cv)


def _variance_factor(
    design: str, n: np.ndarray, p: np.ndarray | None, icc: float, cv: float, allocation: float
) -> tuple[np.ndarray, np.ndarray]:
    """(variance of the estimator) / sd^2 and the degrees of freedom of the cluster-level test."""
    if p is None:
        if design == "between":
            raise ValueError("design='between' compares participants: give n_participants")
        if design == "paired":
            return 1.0 / n, n - 1.0
        return 1.0 / (n * allocation * (1.0 - allocation)), n - 2.0
    m = n / p
    if design == "paired":
        deff = 1.0 + ((cv**2 + 1.0) * m - 1.0) * icc
        return deff / n, p - 1.0
    if design == "between":
        deff = 1.0 + ((cv**2 + 1.0) * m - 1.0) * icc
        n1 = n * allocation
        return deff * (1.0 / n1 + 1.0 / (n - n1)), p - 2.0
    # within: participant fixed effects absorb u; E[sum of demeaned x^2] = (n - G) pi (1 - pi)
    return (1.0 - icc) / ((n - p) * allocation * (1.0 - allocation)), n - p - 1.0


def _power_from_ncp(
    ncp: np.ndarray, df: np.ndarray, alpha: float, alternative: str, method: str
) -> np.ndarray:
    if method == "z":
        if alternative == "two-sided":
            c = stats.norm.ppf(1 - alpha / 2)
            return stats.norm.cdf(ncp - c) + stats.norm.cdf(-ncp - c)
        c = stats.norm.ppf(1 - alpha)
        return stats.norm.cdf(ncp - c) if alternative == "greater" else stats.norm.cdf(-ncp - c)
    if alternative == "two-sided":
        c = stats.t.ppf(1 - alpha / 2, df)
        return _nct_upper(c, df, ncp) + _nct_upper(c, df, -ncp)
    c = stats.t.ppf(1 - alpha, df)
    return _nct_upper(c, df, ncp) if alternative == "greater" else _nct_upper(c, df, -ncp)


def _nct_upper(c: Any, df: Any, ncp: Any) -> np.ndarray:
    """``P(T >= c)`` for noncentral t; scipy returns NaN in far tails, which are 0 or 1 there."""
    out = np.asarray(stats.nct.sf(c, df, ncp), dtype=float)
    bad = np.isnan(out)
    if bad.any():
        out = np.where(bad, np.where(np.asarray(ncp) > np.asarray(c), 1.0, 0.0), out)
    return out


def analytic_power(
    effect: Any,
    *,
    sd: float,
    n_conversations: Any,
    n_participants: Any = None,
    icc: float = 0.0,
    cv: float = 0.0,
    design: Design = "paired",
    allocation: float = 0.5,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
    method: Literal["z", "t"] = "z",
) -> Any:
    """Power of a test of a clustered mean contrast (arrays broadcast).

    Parameters
    ----------
    effect : float or array
        True contrast on the metric scale (difference of two predictors, of two diagnosis
        groups, or topic minus the rest).
    sd : float
        Total sd of one conversation-level value of the contrast (``Var(u) + Var(e)``).
    n_conversations, n_participants : int or array
        Total conversations and participants (clusters). ``n_participants=None``: independent
        conversations (``icc`` ignored; paired t with ``n - 1`` degrees of freedom).
    icc : float
        Share of ``sd^2`` between participants.
    cv : float
        Coefficient of variation of the cluster sizes (0 = equal sizes).
    design : {"paired", "between", "within"}
        See the module docstring. ``"within"``: participant fixed effects remove the
        participant effects, leaving ``(1 - icc) sd^2`` per conversation; the expected
        within-participant spread of the focal indicator is ``(n - G) a (1 - a)``
        (``a = allocation``), so ``Var = (1 - icc) sd^2 / ((n - G) a (1 - a))`` with
        ``n - G - 1`` degrees of freedom (approximate: the spread is random).
    allocation : float
        Share of participants (``between``) or conversations (``within``) in the focal group.
    alpha, alternative : as in :func:`scipy.stats.ttest_1samp`.
    method : {"z", "t"}
        ``"z"``: normal test with ``n_eff = n / deff`` (the design-effect approximation);
        ``"t"``: noncentral t with ``G - 1`` (``G - 2`` for ``between``, ``n - G - 1`` for
        ``within``) degrees of freedom, exact for the cluster-level t test with equal cluster
        sizes and normal data.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(float(analytic_power(0.3, sd=1.0, n_conversations=100, n_participants=10,
    ...                            icc=0.1, method="z")), 4)
    0.5857
    """
    _check_choice("design", design, DESIGNS)
    _check_choice("alternative", alternative, ALTERNATIVES)
    _check_choice("method", method, ("z", "t"))
    alpha = _check_prob("alpha", alpha)
    if isinstance(sd, bool) or not isinstance(sd, int | float | np.integer | np.floating):
        raise TypeError(f"sd must be a number; got {sd!r}")
    if not (math.isfinite(sd) and sd > 0):
        raise ValueError(f"sd must be a positive number; got {sd!r}")
    cv = _check_cv(cv)
    icc = _check_prob("icc", icc, open_low=False)
    allocation = _check_prob("allocation", allocation)
    eff = _as_float_array("effect", effect)
    n = _as_int_array("n_conversations", n_conversations, 2).astype(float)
    p = None
    if n_participants is not None:
        p = _as_int_array("n_participants", n_participants, 2).astype(float)
        if np.any(np.broadcast_to(n, np.broadcast_shapes(n.shape, p.shape)) < p):
            raise ValueError(
                "n_conversations must be >= n_participants (every participant has a conversation)"
            )
        if design == "between" and np.any(p < 3):
            raise ValueError(f"design='between' needs n_participants >= 3; got {n_participants!r}")
        if design == "within" and np.any(n < p + 2):
            raise ValueError(
                "design='within' needs n_conversations >= n_participants + 2 (a contrast within "
                "participants)"
            )
    var, df = _variance_factor(design, n, p, icc, cv, allocation)
    ncp = eff / (float(sd) * np.sqrt(var))
    out = _power_from_ncp(ncp, np.broadcast_to(df, ncp.shape), alpha, alternative, method)
    scalar = all(
        np.ndim(v) == 0 for v in (effect, n_conversations, n_participants) if v is not None
    )
    return float(np.asarray(out).ravel()[0]) if scalar else np.asarray(out)


def analytic_mde(
    *,
    sd: float,
    n_conversations: int,
    n_participants: int | None = None,
    power: float = 0.8,
    **options: Any,
) -> float:
    """Smallest positive effect whose :func:`analytic_power` reaches ``power``.

    ``options`` are those of :func:`analytic_power` (``icc``, ``cv``, ``design``, ``allocation``,
    ``alpha``, ``alternative``, ``method``). With ``method="z"`` and a two-sided test this is
    close to ``(z_{1-alpha/2} + z_{power}) * se``.

    Examples
    --------
    >>> round(analytic_mde(sd=1.0, n_conversations=200, n_participants=20, icc=0.2), 4)
    0.3315
    """
    power = _check_prob("power", power)
    if options.get("alternative") == "less":
        raise ValueError("alternative='less' detects negative effects; use 'greater' for the MDE")

    def gap(d: float) -> float:
        return (
            analytic_power(
                d, sd=sd, n_conversations=n_conversations, n_participants=n_participants, **options
            )
            - power
        )

    at_zero = gap(0.0)  # the power at effect 0 is the size of the test
    if at_zero >= 0:
        alpha = options.get("alpha", 0.05)
        raise ValueError(
            f"power must exceed alpha, the power at effect 0 (any effect reaches a lower target); "
            f"got power {power:g}, alpha {alpha:g}"
        )
    high = float(sd)
    while gap(high) < 0:
        high *= 2.0
        if high > 1e8 * sd:
            raise ValueError("power is not reachable (too few participants for the test)")
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-10 * sd))


def _safe_mde(sd: float, n: int, p: int | None, power: float, **opts: Any) -> float:
    try:
        return analytic_mde(sd=sd, n_conversations=n, n_participants=p, power=power, **opts)
    except ValueError:
        return math.nan
