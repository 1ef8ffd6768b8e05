"""Power and minimum detectable effects for model comparisons, diagnosis/topic contrasts, independence.

Methodologists extending the benchmark ask how many conversations or participants they need to
separate two models, detect a diagnosis or topic effect, or confirm independence of capabilities.
Conversations are clustered within participants, so the answer depends on both counts. This module
answers it three ways, which check each other:

Analytic (means)
    A conversation-level contrast with total variance ``sd^2`` and intraclass correlation ``icc``
    between conversations of one participant has the design effect (Kish; Eldridge, Ashby & Kerry
    2006 for unequal cluster sizes with coefficient of variation ``cv``)::

        deff = 1 + ((cv^2 + 1) * m - 1) * icc,        m = n_conversations / n_participants

    so ``n`` clustered conversations carry the information of ``n / deff`` independent ones (ICC
    0.20 with 10-conversation clusters: deff 2.8). :func:`analytic_power` gives the power of the
    z test with ``n_eff = n / deff`` (``method="z"``, the design-effect approximation) and of the
    cluster-level t test (``method="t"``: noncentral t with ``n_participants - 1`` degrees of
    freedom, ``- 2`` for a between-participant contrast), which is *exact* for normal data with
    equal cluster sizes. :func:`analytic_mde` inverts either.

Simulation from a clustered normal model (:class:`ContrastModel`, any mean metric)
    ``y = effect * x + u[participant] + e`` with ``Var(u) = icc sd^2``, ``Var(e) = (1 - icc) sd^2``
    for three designs: ``"paired"`` (the per-conversation difference of two predictors on one
    metric; ``x = 1``), ``"between"`` (a participant-level contrast such as a diagnosis group;
    ``x`` = group of the participant, share ``allocation`` of participants) and ``"within"`` (a
    conversation-level contrast such as one topic against the rest; ``x`` drawn per conversation
    with probability ``allocation``). :func:`fit_contrast` estimates ``effect, sd, icc`` and the
    cluster-size spread from a scored release (real or simulated; moment/ANOVA estimators).
    :func:`power_curve` simulates datasets over a grid of conversation and participant counts and
    tests each with the cluster-aware test of the design: the cluster-robust (CR1) t test of the
    pooled mean with ``G - 1`` degrees of freedom (``paired``; for equal cluster sizes identical
    to the t test on participant means), the difference of the pooled group means with
    cluster-robust variances per group and ``G - 2`` degrees of freedom (``between``; for equal
    cluster sizes and equal groups identical to the two-sample t test on participant means), or
    the participant fixed-effects regression slope (participant-demeaned OLS, ``n - G - 1``
    degrees of freedom; ``within``), exact for this random-intercept model (a participant x
    contrast random slope, not modelled here, would need a cluster-robust variance);
    ``test="bootstrap"`` uses the package's cluster bootstrap instead (``paired`` only: one
    cluster bootstrap of the mean, two-sided bootstrap p-value of :mod:`attunestats.inference.compare`).
    Every test here is shift-equivariant with a shift-invariant standard error, so each simulated
    dataset is drawn once under ``effect = 0`` and the power at any effect is read off the same
    datasets (common random numbers): curves are smooth in the effect and the minimum detectable
    effect is found by root finding on them (:meth:`PowerResult.minimum_detectable_effect`).

Simulation from the release simulator (:func:`release_power`, any registry metric, pooled too)
    Full releases are drawn with :mod:`attunestats.release.simulate` with two predictors whose
    skills on one capability are set (from a simulated release's ``truth.json`` through
    :func:`attunestats.release.simulate.truth_from_file`, or given on the logit scale); each
    replicate draws new participants, topics and conversations, scores the release and tests the
    paired difference with the package's cluster bootstrap (:func:`attunestats.inference.bootstrap.
    bootstrap_scores` with ``unit="participant"`` or ``"conversation"``). With equal skills it
    measures the size of the test. It is the slow, assumption-free check of the normal model.

Independence (:func:`independence_power_curve`)
    The tests of :mod:`attunestats.independence` act on model means, whose reliability grows with
    the number of conversations: ``rel(n) = s^2 / (s^2 + sigma^2 deff / n)`` with ``s^2`` the
    between-model variance of true scores and ``sigma^2`` the per-conversation noise variance
    (fitted from a :class:`~attunestats.independence.MetricMatrix` by
    :func:`fit_independence_noise`). The curve runs
    :func:`attunestats.independence.independence_power` at ``rel(n)`` for every ``n``.

Every simulated quantity is labelled simulated; Monte Carlo intervals (Wilson) accompany every
simulated power. Simulations run through :mod:`attunestats.design.studies`, so they can be spread over
local processes or a Dask cluster and give the same numbers on any executor.

Command line: ``attunestats power analytic|curve|release ...`` (:mod:`attunestats.cli.power`).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, stats

from attunestats.constants import SIMULATED_LABEL

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attunestats.metrics.score import Scores
    from attunestats.release.simulate import SimulationConfig, TrueEffects

__all__ = [
    "DESIGNS",
    "ContrastModel",
    "PowerResult",
    "analytic_mde",
    "analytic_power",
    "design_effect",
    "fit_contrast",
    "fit_contrast_values",
    "fit_independence_noise",
    "independence_power_curve",
    "plot_power_curves",
    "power_curve",
    "release_power",
    "summarise_power",
]

DESIGNS: tuple[str, ...] = ("paired", "between", "within")
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
TESTS: tuple[str, ...] = ("cluster_t", "bootstrap")
Design = Literal["paired", "between", "within"]
Alternative = Literal["two-sided", "greater", "less"]


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}; got {value!r}")


def _check_prob(name: str, value: Any, *, open_low: bool = True) -> float:
    """A number in (0, 1) (or [0, 1) when ``open_low`` is False)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number; got {value!r}")
    v = float(value)
    low_ok = v > 0.0 if open_low else v >= 0.0
    if not (math.isfinite(v) and low_ok and v < 1.0):
        raise ValueError(f"{name} must lie in {'(0' if open_low else '[0'}, 1); got {value!r}")
    return v


def _as_int_array(name: str, value: Any, low: int) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(value))
    if (
        arr.size == 0
        or arr.dtype.kind not in "iu"
        and not (
            arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
        )
    ):
        raise ValueError(f"{name} must be integers >= {low}; got {value!r}")
    arr = arr.astype(np.int64)
    if np.any(arr < low):
        raise ValueError(f"{name} must be integers >= {low}; got {value!r}")
    return arr


def _as_float_array(name: str, value: Any, *, low: float = -math.inf) -> np.ndarray:
    try:
        arr = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be numbers; got {value!r}") from err
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < low):
        raise ValueError(f"{name} must be finite numbers >= {low:g}; got {value!r}")
    return arr


# --------------------------------------------------------------------------------------------
# analytic
# --------------------------------------------------------------------------------------------
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
    if isinstance(cv, bool) or not isinstance(cv, int | float) or not 0 <= cv < math.inf:
        raise ValueError(f"cv must be a finite number >= 0; got {cv!r}")
    out = 1.0 + ((cv**2 + 1.0) * m - 1.0) * r
    return float(out[0]) if np.ndim(cluster_size) == 0 and np.ndim(icc) == 0 else out


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
    if not (isinstance(sd, int | float) and math.isfinite(sd) and sd > 0):
        raise ValueError(f"sd must be a positive number; got {sd!r}")
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
    var, df = _variance_factor(design, n, p, icc, float(cv), allocation)
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

    high = float(sd)
    while gap(high) < 0:
        high *= 2.0
        if high > 1e8 * sd:
            raise ValueError("power is not reachable (too few participants for the test)")
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-10 * sd))


# --------------------------------------------------------------------------------------------
# the clustered normal model, its fit and its simulation
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ContrastModel:
    """Clustered normal model of a conversation-level contrast (see the module docstring).

    Attributes
    ----------
    design : {"paired", "between", "within"}
    effect : float
        True contrast (metric scale).
    sd : float
        Total sd of a conversation-level value.
    icc : float
        Share of the variance between participants.
    allocation : float
        Share of participants (between) or conversations (within) in the focal group; unused for
        paired.
    cluster_cv : float
        Coefficient of variation of conversations per participant (0: as equal as possible).
    metric, label : str
        What the contrast is (for tables).
    source : mapping
        Where the parameters come from (release name, counts, ``simulated``).
    simulated : bool
        True when fitted on a simulated release (results carry the simulated label either way:
        power is a simulation).
    """

    design: Design
    effect: float
    sd: float
    icc: float
    allocation: float = 0.5
    cluster_cv: float = 0.0
    metric: str = ""
    label: str = ""
    source: Mapping[str, Any] = field(default_factory=dict)
    simulated: bool = False

    def __post_init__(self) -> None:
        _check_choice("design", self.design, DESIGNS)
        for name in ("effect", "sd", "cluster_cv"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
                raise TypeError(f"{name} must be a number; got {v!r}")
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be finite; got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.sd <= 0:
            raise ValueError(f"sd must be > 0; got {self.sd!r}")
        if self.cluster_cv < 0:
            raise ValueError(f"cluster_cv must be >= 0; got {self.cluster_cv!r}")
        object.__setattr__(self, "icc", _check_prob("icc", self.icc, open_low=False))
        object.__setattr__(self, "allocation", _check_prob("allocation", self.allocation))

    def analytic_power(
        self,
        n_conversations: Any,
        n_participants: Any = None,
        *,
        effect: Any = None,
        method: Literal["z", "t"] = "z",
        alpha: float = 0.05,
        alternative: Alternative = "two-sided",
    ) -> Any:
        """:func:`analytic_power` with this model's parameters."""
        return analytic_power(
            self.effect if effect is None else effect,
            sd=self.sd,
            n_conversations=n_conversations,
            n_participants=n_participants,
            icc=self.icc,
            cv=self.cluster_cv,
            design=self.design,
            allocation=self.allocation,
            alpha=alpha,
            alternative=alternative,
            method=method,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able parameters."""
        return {
            "design": self.design,
            "effect": self.effect,
            "sd": self.sd,
            "icc": self.icc,
            "allocation": self.allocation,
            "cluster_cv": self.cluster_cv,
            "metric": self.metric,
            "label": self.label,
            "source": dict(self.source),
            "simulated": self.simulated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContrastModel:
        """Inverse of :meth:`to_dict`."""
        return cls(**dict(data))


def _anova_components(
    y: np.ndarray, codes: np.ndarray, n_groups_fixed: int = 1
) -> tuple[float, float]:
    """One-way random-effects ANOVA estimates ``(sigma_b^2, sigma_w^2)`` (unequal sizes).

    ``n_groups_fixed`` fixed means already removed from ``y`` reduce the between degrees of
    freedom (1 for the grand mean).
    """
    g = int(codes.max()) + 1
    m = np.bincount(codes, minlength=g).astype(float)
    sums = np.bincount(codes, weights=y, minlength=g)
    means = sums / m
    n = y.size
    grand = y.mean()
    ssb = float(np.sum(m * (means - grand) ** 2))
    ssw = float(np.sum((y - means[codes]) ** 2))
    if n - g <= 0:
        raise ValueError("every participant has one conversation: the ICC is not identifiable")
    msw = ssw / (n - g)
    df_b = g - n_groups_fixed
    if df_b <= 0:
        return 0.0, msw
    msb = ssb / df_b
    n0 = (n - float(np.sum(m**2)) / n) / (g - 1)  # = m for equal cluster sizes
    return max(0.0, (msb - msw) / n0), msw


def fit_contrast_values(
    values: Any,
    clusters: Any,
    *,
    design: Design = "paired",
    x: Any = None,
    metric: str = "",
    label: str = "",
    simulated: bool = False,
) -> ContrastModel:
    """Moment estimates of a :class:`ContrastModel` from conversation-level values.

    Parameters
    ----------
    values : array
        One value per conversation: the paired difference (``paired``) or the metric value
        (``between``, ``within``). NaN rows are dropped.
    clusters : array
        Participant of each conversation.
    design : {"paired", "between", "within"}
    x : array of bool, optional
        Focal group indicator per conversation (``between``: constant within participant;
        ``within``: e.g. the topic). Required unless ``paired``.

    Notes
    -----
    ``paired``: ``effect`` is the pooled mean; ``between``: the difference of pooled group means;
    ``within``: the slope of the participant-demeaned regression of ``values`` on ``x``. The
    residuals (values minus the fitted effect and grand mean; group means for ``between``) give
    the one-way ANOVA variance components, ``sd^2 = sigma_b^2 + sigma_w^2`` and
    ``icc = sigma_b^2 / sd^2`` (for balanced data these equal REML estimates when positive).
    """
    _check_choice("design", design, DESIGNS)
    y = np.asarray(values, dtype=float)
    c = np.asarray(clusters)
    if y.ndim != 1 or c.shape != y.shape:
        raise ValueError(f"values and clusters must be 1-d of one length; got {y.shape}, {c.shape}")
    keep = np.isfinite(y)
    xv = None
    if design != "paired":
        if x is None:
            raise ValueError(f"design={design!r} needs x (the focal-group indicator)")
        xv = np.asarray(x)
        if xv.shape != y.shape:
            raise ValueError(f"x must have the shape of values {y.shape}; got {xv.shape}")
        xv = xv.astype(bool)
    y, c = y[keep], c[keep]
    xv = None if xv is None else xv[keep]
    codes, uniques = pd.factorize(pd.Series(c), sort=True)
    g = len(uniques)
    if y.size < 3 or g < 2:
        raise ValueError(f"need at least 3 values in 2 participants; got {y.size} in {g}")
    sizes = np.bincount(codes, minlength=g).astype(float)
    cv = float(sizes.std(ddof=0) / sizes.mean())
    allocation = 0.5
    if design == "paired":
        effect = float(y.mean())
        resid = y - effect
        sb, sw = _anova_components(resid, codes, 1)
    elif design == "between":
        per_part = pd.Series(xv).groupby(codes).agg(["min", "max"])
        if (per_part["min"] != per_part["max"]).any():
            raise ValueError("design='between' needs x constant within each participant")
        part_x = per_part["min"].to_numpy()
        if part_x.all() or not part_x.any():
            raise ValueError("design='between' needs participants in both groups")
        allocation = float(part_x.mean())
        m1, m0 = y[xv].mean(), y[~xv].mean()
        effect = float(m1 - m0)
        resid = y - np.where(xv, m1, m0)
        sb, sw = _anova_components(resid, codes, 2)
    else:
        if xv.all() or not xv.any():
            raise ValueError("design='within' needs conversations in both groups")
        allocation = float(xv.mean())
        ym = y - (np.bincount(codes, weights=y) / sizes)[codes]
        xm = xv - (np.bincount(codes, weights=xv.astype(float)) / sizes)[codes]
        sxx = float(np.sum(xm**2))
        if sxx <= 0:
            raise ValueError("design='within' needs the focal group to vary within participants")
        effect = float(np.sum(xm * ym) / sxx)
        resid = y - effect * xv
        resid = resid - resid.mean()
        sb, sw = _anova_components(resid, codes, 1)
    total = sb + sw
    if total <= 0:
        raise ValueError("the values have no variance; power is undefined")
    return ContrastModel(
        design=design,
        effect=effect,
        sd=math.sqrt(total),
        icc=sb / total,
        allocation=allocation,
        cluster_cv=cv,
        metric=metric,
        label=label,
        source={"n_conversations": int(y.size), "n_participants": int(g)},
        simulated=simulated,
    )


def fit_contrast(
    scores: Scores,
    *,
    metric: str,
    predictors: Sequence[str] | None = None,
    diagnosis: str | None = None,
    reference: str = "none",
    topic: str | None = None,
    predictor: str | None = None,
    mode: str = "default",
) -> ContrastModel:
    """Fit a :class:`ContrastModel` to a scored release (real or simulated).

    Exactly one of:

    - ``predictors=(a, b)``: the paired difference ``a - b`` of ``metric`` (``paired``);
    - ``diagnosis=g``: participants of diagnosis group ``g`` against ``reference``
      (``between``);
    - ``topic=t``: conversations on topic ``t`` against the other topics (``within``).

    For the diagnosis and topic contrasts the value of a conversation is ``metric`` of
    ``predictor``, or its mean over the evaluated models when ``predictor`` is None. ``metric``
    must be a mean-aggregated conversation-level registry metric (pooled metrics are not means
    of conversation values: use :func:`release_power`).
    """
    from attunestats.metrics.registry import METRICS

    spec = METRICS.get(metric)
    if spec is None or spec.level != "conversation" or spec.aggregation != "mean":
        raise ValueError(
            f"metric must be a mean-aggregated conversation-level registry metric; got {metric!r}"
            " (pooled metrics: use release_power)"
        )
    chosen = [v is not None for v in (predictors, diagnosis, topic)]
    if sum(chosen) != 1:
        raise ValueError("give exactly one of predictors=(a, b), diagnosis=..., topic=...")
    conv = scores.conversation
    conv = conv[(conv["metric"] == metric) & (conv["mode"] == mode)]
    if conv.empty:
        raise ValueError(f"no values of metric {metric!r} in mode {mode!r}")
    wide = conv.pivot_table(
        index="conversation_id", columns="predictor", values="value", aggfunc="first"
    )
    design = scores.design.set_index("conversation_id")
    simulated = bool(getattr(scores, "simulated", False))
    source = {"release": str(scores.release_info.get("name", "")), "simulated": simulated}
    if predictors is not None:
        if len(predictors) != 2 or predictors[0] == predictors[1]:
            raise ValueError(f"predictors must be two different names; got {predictors!r}")
        missing = [p for p in predictors if p not in wide.columns]
        if missing:
            raise ValueError(f"unknown predictors {missing}; available: {sorted(wide.columns)}")
        a, b = predictors
        diff = (wide[a] - wide[b]).dropna()
        clusters = design.loc[diff.index, "participant_id"].to_numpy()
        model = fit_contrast_values(
            diff.to_numpy(), clusters, design="paired", metric=metric, label=f"{a} - {b}",
            simulated=simulated,
        )  # fmt: skip
    else:
        if predictor is not None:
            if predictor not in wide.columns:
                raise ValueError(
                    f"unknown predictor {predictor!r}; available: {sorted(wide.columns)}"
                )
            y = wide[predictor]
            who = predictor
        else:
            kinds = scores.predictors.set_index("predictor")["kind"]
            models = [p for p in wide.columns if kinds.get(p) == "model"]
            if not models:
                raise ValueError("no evaluated models in scores; give predictor=")
            y = wide[models].mean(axis=1, skipna=True)
            who = "mean of models"
        y = y.dropna()
        d = design.loc[y.index]
        if diagnosis is not None:
            groups = set(d["diagnosis_group"].astype(str))
            for name, g in (("diagnosis", diagnosis), ("reference", reference)):
                if g not in groups:
                    raise ValueError(
                        f"{name} group {g!r} not in the release; have {sorted(groups)}"
                    )
            keep = d["diagnosis_group"].isin([diagnosis, reference]).to_numpy()
            y, d = y[keep], d[keep]
            x = (d["diagnosis_group"] == diagnosis).to_numpy()
            model = fit_contrast_values(
                y.to_numpy(), d["participant_id"].to_numpy(), design="between", x=x,
                metric=metric, label=f"{diagnosis} - {reference} ({who})", simulated=simulated,
            )  # fmt: skip
        else:
            topics = set(d["topic"].astype(str))
            if topic not in topics:
                raise ValueError(f"topic {topic!r} not in the release")
            x = (d["topic"] == topic).to_numpy()
            model = fit_contrast_values(
                y.to_numpy(), d["participant_id"].to_numpy(), design="within", x=x,
                metric=metric, label=f"{topic} - other topics ({who})", simulated=simulated,
            )  # fmt: skip
    return ContrastModel(**{**model.to_dict(), "source": {**source, **model.source}})


# --------------------------------------------------------------------------------------------
# simulation kernels
# --------------------------------------------------------------------------------------------
def _cluster_sizes(n: int, p: int, cv: float, rng: np.random.Generator) -> np.ndarray:
    """Conversations per participant: as equal as possible, or gamma-weighted when ``cv > 0``.

    Every participant gets at least one conversation; with ``cv > 0`` the other ``n - p`` are
    allocated multinomially with gamma(1/cv^2) weights.
    """
    if cv <= 0:
        sizes = np.full(p, n // p)
        sizes[: n % p] += 1
        return sizes
    w = rng.gamma(1.0 / cv**2, size=p)
    return 1 + rng.multinomial(n - p, w / w.sum())


def _cr1_mean(y: np.ndarray, codes: np.ndarray, g: int) -> tuple[float, float]:
    """Pooled mean and its CR1 cluster-robust standard error (NaN with one cluster)."""
    n = y.size
    mean = float(y.mean())
    if g < 2:
        return mean, math.nan
    s = np.bincount(codes, weights=y - mean, minlength=g)
    var = g / (g - 1) * float(np.sum(s**2)) / n**2
    return mean, math.sqrt(var)


def _simulate_null(
    model: ContrastModel, n: int, p: int | None, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One dataset under ``effect = 0``: values, cluster codes, focal indicator."""
    if p is None:
        codes = np.arange(n)
        u = np.zeros(n)
        e = rng.normal(0.0, model.sd, size=n)
    else:
        sizes = _cluster_sizes(n, p, model.cluster_cv, rng)
        codes = np.repeat(np.arange(p), sizes)
        u = rng.normal(0.0, model.sd * math.sqrt(model.icc), size=p)[codes]
        e = rng.normal(0.0, model.sd * math.sqrt(1.0 - model.icc), size=n)
    if model.design == "between":
        g = codes.max() + 1
        k = min(g - 1, max(1, int(round(model.allocation * g))))
        x = codes < k
    elif model.design == "within":
        x = rng.random(n) < model.allocation
    else:
        x = np.ones(n, dtype=bool)
    return u + e, codes, x


def _cluster_test(
    design: str, y: np.ndarray, codes: np.ndarray, x: np.ndarray, clustered: bool
) -> tuple[float, float, float]:
    """Estimate, standard error and degrees of freedom of the design's cluster-aware test."""
    g = int(codes.max()) + 1
    if design == "paired":
        if not clustered:
            return float(y.mean()), float(y.std(ddof=1) / math.sqrt(y.size)), y.size - 1.0
        est, se = _cr1_mean(y, codes, g)
        return est, se, g - 1.0
    if design == "between":
        parts = []
        for sel in (x, ~x):
            yy, cc = y[sel], codes[sel]
            uc, cc = np.unique(cc, return_inverse=True)
            parts.append(_cr1_mean(yy, cc, len(uc)))
        (m1, s1), (m0, s0) = parts
        return m1 - m0, math.sqrt(s1**2 + s0**2), g - 2.0
    # within: participant fixed-effects slope (participant-demeaned OLS), n - G - 1 df
    xf = x.astype(float)
    if clustered:
        m = np.bincount(codes, minlength=g).astype(float)
        yd = y - (np.bincount(codes, weights=y, minlength=g) / m)[codes]
        xd = xf - (np.bincount(codes, weights=xf, minlength=g) / m)[codes]
        df = y.size - g - 1.0
    else:
        yd, xd = y - y.mean(), xf - xf.mean()
        df = y.size - 2.0
    sxx = float(np.sum(xd**2))
    if sxx <= 1e-12 or df < 1:
        return math.nan, math.nan, math.nan  # the contrast does not vary within participants
    b = float(np.sum(xd * yd) / sxx)
    r = yd - b * xd
    var = float(np.sum(r**2)) / df / sxx
    return b, math.sqrt(var), df


def power_curve_replicate(config: Mapping[str, Any], seed: int) -> pd.DataFrame:
    """One batch of simulated datasets for every grid point (the ``power_curve`` study kind).

    ``config``: ``model`` (:meth:`ContrastModel.to_dict`), ``grid`` (list of
    ``[n_conversations, n_participants or None]``), ``batch`` (datasets per grid point),
    ``test`` (``cluster_t`` or ``bootstrap``), ``effects`` and ``n_resamples`` (bootstrap only).
    Dataset ``j`` of grid point ``k`` draws from ``SeedSequence([seed, k, j])``. Rows: one per
    grid point and dataset with the estimate under ``effect = 0`` (``estimate0``), its standard
    error and degrees of freedom (``cluster_t``), or bootstrap p-values per effect.
    """
    model = ContrastModel.from_dict(config["model"])
    test = config.get("test", "cluster_t")
    batch = int(config["batch"])
    rows: dict[str, list[Any]] = {
        k: [] for k in ("n_conversations", "n_participants", "dataset", "estimate0",
                        "standard_error", "df", "effect", "pvalue")
    }  # fmt: skip
    for k, (n, p) in enumerate(config["grid"]):
        n = int(n)
        p = None if p is None else int(p)
        for j in range(batch):
            rng = np.random.default_rng(np.random.SeedSequence([int(seed), k, j]))
            y, codes, x = _simulate_null(model, n, p, rng)
            if test == "cluster_t":
                est, se, df = _cluster_test(model.design, y, codes, x, p is not None)
                entries = [(est, se, df, math.nan, math.nan)]
            else:
                entries = _bootstrap_entries(y, codes, config, rng)
            for est, se, df, effect, pval in entries:
                rows["n_conversations"].append(n)
                rows["n_participants"].append(-1 if p is None else p)
                rows["dataset"].append(j)
                rows["estimate0"].append(est)
                rows["standard_error"].append(se)
                rows["df"].append(df)
                rows["effect"].append(effect)
                rows["pvalue"].append(pval)
    return pd.DataFrame(rows)


def _bootstrap_entries(
    y: np.ndarray, codes: np.ndarray, config: Mapping[str, Any], rng: np.random.Generator
) -> list[tuple[float, float, float, float, float]]:
    """Cluster-bootstrap p-values of the paired mean at every effect (same resamples)."""
    from attunestats.inference.bootstrap import cluster_bootstrap_mean
    from attunestats.inference.compare import bootstrap_pvalue

    boot = cluster_bootstrap_mean(
        y, codes, method="percentile", n_resamples=int(config.get("n_resamples", 999)), rng=rng
    )
    est0 = float(boot.estimate[0])
    se = float(boot.standard_error[0])
    dist0 = boot.bootstrap_distribution[:, 0]
    out = []
    for d in config["effects"]:
        d = float(d)
        p = float(bootstrap_pvalue((dist0 + d)[:, None], np.array([est0 + d]))[0])
        out.append((est0, se, math.nan, d, p))
    return out


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------
def _wilson(k: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    z = stats.norm.ppf(0.5 + level / 2)
    p = k / n
    denom = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return centre - half, centre + half


def _rejections(sims: pd.DataFrame, effect: float, alpha: float, alternative: str) -> np.ndarray:
    """Rejection indicators of the cluster t test at ``effect`` (datasets shifted by it)."""
    se = sims["standard_error"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, (sims["estimate0"].to_numpy() + effect) / se, np.nan)
    df = sims["df"].to_numpy()
    if alternative == "two-sided":
        p = 2 * stats.t.sf(np.abs(t), df)
    elif alternative == "greater":
        p = stats.t.sf(t, df)
    else:
        p = stats.t.cdf(t, df)
    return np.where(np.isfinite(p), p < alpha, False)


def summarise_power(
    frame: pd.DataFrame,
    *,
    effects: Any = None,
    alpha: float | None = None,
    alternative: str | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Power per grid point and effect, with a Wilson Monte Carlo interval.

    ``frame`` holds simulated datasets: rows of :func:`power_curve_replicate` (cluster t:
    ``estimate0, standard_error, df``; power at any ``effects``) or rows with a ``reject`` column
    (bootstrap and release studies, grouped by their settings).
    """
    study = frame.attrs.get("study", {}).get("study", {}).get("config", {})
    alpha = float(alpha if alpha is not None else study.get("alpha", 0.05))
    alternative = alternative or study.get("alternative", "two-sided")
    keys = [c for c in ("n_conversations", "n_participants") if c in frame.columns]
    rows = []
    if "reject" in frame.columns or frame.get("pvalue", pd.Series(dtype=float)).notna().any():
        data = frame
        if "reject" not in data.columns:
            data = data.assign(reject=data["pvalue"] < alpha)
        extra = [c for c in ("effect", "logit_difference", "true_correlation") if c in data.columns]
        for key, sub in data.groupby(keys + extra, sort=True):
            k, n = int(sub["reject"].sum()), int(sub.shape[0])
            rows.append((*key, k, n, sub))
        cols = keys + extra
    else:
        if effects is None:
            effects = study.get("effects", [0.0])
        effects = _as_float_array("effects", effects)
        cols = keys + ["effect"]
        for key, sub in frame.groupby(keys, sort=True):
            for d in effects:
                rej = _rejections(sub, float(d), alpha, alternative)
                rows.append((*key, float(d), int(rej.sum()), int(rej.size), sub))
    out = pd.DataFrame([r[:-1] for r in rows], columns=cols + ["n_reject", "n_simulations"])
    k = out["n_reject"].to_numpy(float)
    n = out["n_simulations"].to_numpy(float)
    out["power"] = k / n
    out["mc_se"] = np.sqrt(out["power"] * (1 - out["power"]) / n)
    low, high = _wilson(k, n, confidence_level)
    out["ci_low"], out["ci_high"] = low, high
    if "n_participants" in out.columns:
        out["n_participants"] = out["n_participants"].astype("int64")
    out["alpha"] = alpha
    out["alternative"] = alternative
    out["simulated"] = True
    out.attrs["label"] = SIMULATED_LABEL
    return out


@dataclass(frozen=True)
class PowerResult:
    """Simulated power over a grid, with the analytic approximation alongside.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ``n_conversations, n_participants, effect``: ``power`` (simulated),
        ``mc_se``, ``ci_low, ci_high`` (Wilson interval at ``confidence_level``),
        ``analytic_z`` (design-effect approximation), ``analytic_t`` (cluster-level noncentral t),
        ``design_effect`` (variance of the estimate relative to as many independent
        conversations: ``1 + ((cv^2 + 1) m - 1) icc``; ``(1 - icc) n / (n - G)`` for
        ``within``), ``n_simulations``, the settings and ``simulated``. ``n_participants``
        is -1 for independent conversations.
    model : ContrastModel or None
        The clustered normal model (None for :func:`release_power` and
        :func:`independence_power_curve`).
    simulations : pandas.DataFrame
        The simulated datasets' rows (repr=False).
    """

    table: pd.DataFrame
    model: ContrastModel | None
    alpha: float
    alternative: str
    test: str
    n_simulations: int
    seed: int
    simulated: bool = True
    simulations: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    def to_frame(self) -> pd.DataFrame:
        """The table, labelled simulated."""
        out = self.table.copy()
        out.attrs["label"] = SIMULATED_LABEL
        return out

    def power_at(self, effect: Any) -> pd.DataFrame:
        """Simulated power at other effects, on the same simulated datasets (cluster t only)."""
        if self.test != "cluster_t" or self.model is None:
            raise ValueError("power_at needs test='cluster_t' (bootstrap p-values are per effect)")
        table = summarise_power(
            self.simulations, effects=effect, alpha=self.alpha, alternative=self.alternative
        )
        return _with_analytic(table, self.model, self.alpha, self.alternative)

    def minimum_detectable_effect(self, power: float = 0.8) -> pd.DataFrame:
        """Smallest effect whose simulated power reaches ``power``, per grid point.

        Root finding on the simulated power curve of the same datasets (cluster t only), next to
        the analytic z and t values. ``mde`` is NaN when not reached below ``20 sd``.
        """
        power = _check_prob("power", power)
        if self.test != "cluster_t" or self.model is None:
            raise ValueError("minimum_detectable_effect needs test='cluster_t'")
        if self.alternative == "less":
            raise ValueError("alternative='less': the MDE is defined for positive effects")
        rows = []
        for (n, p), sub in self.simulations.groupby(["n_conversations", "n_participants"]):

            def frac(d: float, sub: pd.DataFrame = sub) -> float:
                return float(_rejections(sub, d, self.alpha, self.alternative).mean()) - power

            hi = self.model.sd * 20.0
            grid = np.linspace(0.0, hi, 401)
            vals = np.array([frac(d) for d in grid])
            above = np.flatnonzero(vals >= 0)
            if above.size == 0:
                mde = math.nan
            elif above[0] == 0:
                mde = 0.0
            else:
                lo_d, hi_d = grid[above[0] - 1], grid[above[0]]
                for _ in range(50):
                    mid = 0.5 * (lo_d + hi_d)
                    lo_d, hi_d = (mid, hi_d) if frac(mid) < 0 else (lo_d, mid)
                mde = hi_d
            pp = None if p < 0 else int(p)
            opts = {
                "icc": self.model.icc, "cv": self.model.cluster_cv, "design": self.model.design,
                "allocation": self.model.allocation, "alpha": self.alpha,
                "alternative": self.alternative,
            }  # fmt: skip
            rows.append(
                {
                    "n_conversations": int(n),
                    "n_participants": int(p),
                    "power": power,
                    "mde": mde,
                    "analytic_z": _safe_mde(self.model.sd, int(n), pp, power, method="z", **opts),
                    "analytic_t": _safe_mde(self.model.sd, int(n), pp, power, method="t", **opts),
                    "n_simulations": int(sub.shape[0]),
                    "simulated": True,
                }
            )
        out = pd.DataFrame(rows)
        out.attrs["label"] = SIMULATED_LABEL
        return out


def _safe_mde(sd: float, n: int, p: int | None, power: float, **opts: Any) -> float:
    try:
        return analytic_mde(sd=sd, n_conversations=n, n_participants=p, power=power, **opts)
    except ValueError:
        return math.nan


def _with_analytic(
    table: pd.DataFrame, model: ContrastModel, alpha: float, alternative: str
) -> pd.DataFrame:
    p = table["n_participants"].to_numpy()
    n = table["n_conversations"].to_numpy()
    out = table.copy()
    for method in ("z", "t"):
        vals = []
        for ni, pi, d in zip(n, p, out["effect"], strict=True):
            try:
                vals.append(
                    model.analytic_power(
                        int(ni),
                        None if pi < 0 else int(pi),
                        effect=float(d),
                        method=method,
                        alpha=alpha,
                        alternative=alternative,
                    )  # fmt: skip
                )
            except ValueError:
                vals.append(math.nan)
        out[f"analytic_{method}"] = vals
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(p > 0, n / np.where(p > 0, p, 1), 1.0)
    if model.design == "within":
        # variance relative to n independent conversations: (1 - icc) n / (n - G)
        with np.errstate(divide="ignore", invalid="ignore"):
            deff = (1.0 - model.icc) * n / (n - np.where(p > 0, p, 0))
    else:
        deff = 1.0 + ((model.cluster_cv**2 + 1.0) * m - 1.0) * model.icc
    out["design_effect"] = np.where(p > 0, deff, 1.0)
    out["design"] = model.design
    out["metric"] = model.metric
    out["contrast"] = model.label
    return out


# --------------------------------------------------------------------------------------------
# power curves (clustered normal model), run as a study
# --------------------------------------------------------------------------------------------
def _run(study: Any, out: str | os.PathLike[str] | None, run_options: Mapping[str, Any]) -> Any:
    from attunestats.design.studies import read_study, run_study

    if out is not None:
        return run_study(study, out, **run_options).to_frame()
    with tempfile.TemporaryDirectory(prefix="attunestats-power-") as tmp:
        result = run_study(study, os.path.join(tmp, "power.parquet"), **run_options)
        return read_study(result.path)


def power_curve(
    model: ContrastModel,
    *,
    n_conversations: Any,
    n_participants: Any = None,
    effects: Any = None,
    n_simulations: int = 1000,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
    test: Literal["cluster_t", "bootstrap"] = "cluster_t",
    n_resamples: int = 999,
    seed: int = 0,
    batch_size: int = 100,
    out: str | os.PathLike[str] | None = None,
    executor: str = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> PowerResult:
    """Simulated power of the cluster-aware test over a grid of conversations x participants.

    Parameters
    ----------
    model : ContrastModel
        Specified, or fitted with :func:`fit_contrast`.
    n_conversations, n_participants : int or sequence of int
        The grid (every combination with ``n_conversations >= n_participants``). ``None``
        participants: independent conversations.
    effects : float or sequence, optional
        Effects at which power is reported (default: the model's effect). With the cluster t
        test every effect is evaluated on the same datasets.
    n_simulations : int
        Datasets per grid point.
    alpha, alternative : test settings.
    test : {"cluster_t", "bootstrap"}
        ``"bootstrap"``: the package's cluster bootstrap (percentile p-value; paired only;
        about ``n_resamples`` times slower).
    seed : int
        Study seed (same seed, same numbers on any executor).
    batch_size : int
        Datasets per study replicate (a replicate is the unit of work and of resumption).
    out : path, optional
        Keep the simulated datasets in this Parquet study file (resumable); default: a
        temporary file.
    executor, n_workers, scheduler, progress
        As in :func:`attunestats.design.studies.run_study`.

    Returns
    -------
    PowerResult
    """
    from attunestats.design.studies import Study

    if not isinstance(model, ContrastModel):
        raise TypeError(f"model must be a ContrastModel; got {type(model).__name__}")
    _check_choice("test", test, TESTS)
    _check_choice("alternative", alternative, ALTERNATIVES)
    alpha = _check_prob("alpha", alpha)
    if test == "bootstrap" and model.design != "paired":
        raise ValueError("test='bootstrap' is implemented for design='paired' only")
    ns = _as_int_array("n_conversations", n_conversations, 2)
    ps = (
        [None]
        if n_participants is None
        else list(_as_int_array("n_participants", n_participants, 2))
    )
    if model.design == "between" and ps == [None]:
        raise ValueError("design='between' compares participants: give n_participants")
    if model.design == "between":
        for p in ps:
            k = min(p - 1, max(1, round(model.allocation * p)))
            if k < 2 or p - k < 2:
                raise ValueError(
                    f"design='between' needs at least 2 participants in each group; "
                    f"n_participants={p} with allocation {model.allocation:g} gives {k} and {p - k}"
                )
    grid = [[int(n), None if p is None else int(p)] for n in ns for p in ps if p is None or n >= p]
    if not grid:
        raise ValueError("no grid point has n_conversations >= n_participants")
    effects_arr = _as_float_array("effects", model.effect if effects is None else effects)
    for name, v, low in (("n_simulations", n_simulations, 2), ("batch_size", batch_size, 1)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {v!r}")
    batch = min(int(batch_size), int(n_simulations))
    n_rep = math.ceil(n_simulations / batch)
    config = {
        "model": model.to_dict(),
        "grid": grid,
        "batch": batch,
        "test": test,
        "effects": [float(d) for d in effects_arr],
        "n_resamples": int(n_resamples),
        "alpha": alpha,
        "alternative": alternative,
    }
    study = Study(
        "attunestats.design.power:power_curve_replicate", config, n_replicates=n_rep, seed=seed,
        name="power_curve",
    )  # fmt: skip
    frame = _run(study, out, {"executor": executor, "n_workers": n_workers,
                              "scheduler": scheduler, "progress": progress})  # fmt: skip
    frame = frame[frame["replicate"] * batch + frame["dataset"] < n_simulations]
    table = summarise_power(frame, effects=effects_arr, alpha=alpha, alternative=alternative)
    table = _with_analytic(table, model, alpha, alternative)
    table["test"] = test
    return PowerResult(
        table=table,
        model=model,
        alpha=alpha,
        alternative=alternative,
        test=test,
        n_simulations=int(n_simulations),
        seed=int(seed),
        simulations=frame.reset_index(drop=True),
    )


# --------------------------------------------------------------------------------------------
# power from the release simulator (any registry metric), run as a study
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _ReleaseContext:
    config: Any
    theta: np.ndarray  # (2, 5): the two predictors' skills
    capabilities: tuple[int, ...]
    settings: Mapping[str, Any]


def release_power_setup(config: Mapping[str, Any]) -> _ReleaseContext:
    """Context of the ``release_power`` study kind (parses the JSON config)."""
    from attunestats.release.simulate import CAPABILITIES, SimulationConfig

    base = SimulationConfig.from_dict(config["simulation"])
    theta = np.asarray(config["theta"], dtype=float)
    if theta.shape != (2, len(CAPABILITIES)):
        raise ValueError(f"theta must be 2 x {len(CAPABILITIES)}; got shape {theta.shape}")
    caps = tuple(CAPABILITIES.index(c) for c in config["capabilities"])
    return _ReleaseContext(base, theta, caps, dict(config))


def release_power_replicate(context: _ReleaseContext, seed: int) -> pd.DataFrame:
    """One simulated release per grid point and skill difference; paired bootstrap test.

    For grid point ``k`` (conversations ``n``, participants ``p``) the population (participants,
    their diagnoses, topics, interactions) is drawn from ``SeedSequence([seed, k])``; predictor
    0 gets skills ``theta[0]``, predictor 1 ``theta[1]`` with, on the contrast's capabilities,
    predictor 0's skill minus the logit difference (``None``: ``theta[1]`` as given); the same
    conversations' random draws are reused for every difference (common random numbers). The release is scored and the paired difference of
    ``metric`` (predictor 0 minus 1) bootstrapped with the package's cluster bootstrap.
    """
    import warnings
    from dataclasses import replace

    from attunestats.errors import AttunestatsWarning
    from attunestats.inference.bootstrap import bootstrap_scores
    from attunestats.inference.compare import bootstrap_pvalue
    from attunestats.metrics.score import score
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import draw_effects, simulate_documents

    s = context.settings
    metric = s["metric"]
    rows = []
    for k, (n, p) in enumerate(s["grid"]):
        cfg = replace(
            context.config,
            n_conversations=int(n),
            n_participants=int(p),
            n_models=2,
            n_human_raters=0,
            participant_weights=None,
        )
        sub = int(np.random.SeedSequence([int(seed), k]).generate_state(1, np.uint64)[0] >> 1)
        base = draw_effects(cfg, rng=sub)
        for diff in s["logit_differences"]:
            theta = base.theta.copy()
            theta[0] = context.theta[0]
            theta[1] = context.theta[1]
            caps = list(context.capabilities)
            if diff is not None:
                theta[1, caps] = theta[0, caps] - float(diff)
            effects = replace(base, theta=theta)
            docs = simulate_documents(cfg, rng=sub, effects=effects)
            scores = score(release_from_documents(docs.conversations, docs.runs, docs.release_info))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", AttunestatsWarning)
                boot = bootstrap_scores(
                    scores, metrics=[metric], unit=s["unit"], method="percentile",
                    n_resamples=int(s["n_resamples"]), rng=sub,
                )  # fmt: skip
            ia = boot.index_of(predictor=effects.predictors[0], metric=metric)[0]
            ib = boot.index_of(predictor=effects.predictors[1], metric=metric)[0]
            est = float(boot.estimate[ia] - boot.estimate[ib])
            dist = boot.bootstrap_distribution[:, ia] - boot.bootstrap_distribution[:, ib]
            pval = float(bootstrap_pvalue(dist[:, None], np.array([est]))[0])
            rows.append(
                {
                    "n_conversations": int(n),
                    "n_participants": int(p),
                    "logit_difference": float(s["base_difference"] if diff is None else diff),
                    "estimate": est,
                    "standard_error": float(np.nanstd(dist, ddof=1)),
                    "pvalue": pval,
                    "reject": bool(pval < float(s["alpha"])),
                }
            )
    return pd.DataFrame(rows)


def release_power(
    config: SimulationConfig | None = None,
    *,
    metric: str,
    n_conversations: Any,
    n_participants: Any,
    logit_differences: Any = None,
    effects: TrueEffects | None = None,
    predictors: Sequence[str] | None = None,
    unit: Literal["participant", "conversation"] = "participant",
    n_simulations: int = 200,
    n_resamples: int = 499,
    alpha: float = 0.05,
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    executor: str = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> PowerResult:
    """Size and power of the paired bootstrap comparison on full simulated releases.

    Parameters
    ----------
    config : SimulationConfig, optional
        Generative model (default: ``effects.config``, else the paper-like scenario). Each
        simulated release has two predictors, no human raters, and ``n`` conversations from
        ``p`` participants drawn anew (a new population of participants per release).
    metric : str
        Any conversation-level registry metric, pooled ones included.
    n_conversations, n_participants : int or sequence of int
        The grid (``n >= p``).
    logit_differences : float, sequence or None
        Skill of predictor 0 minus predictor 1 on the metric's capability (every capability for
        a composite), logit scale: predictor 1's skill there is set to predictor 0's minus it
        (other capabilities keep the base skills). ``0`` measures the size of the test. ``None``:
        the base skills as they are (e.g. the planted difference of a simulated release),
        reported as their mean difference over the contrast's capabilities.
    effects, predictors : optional
        Base skills: the rows of ``predictors`` (two names) in ``effects`` (e.g.
        ``truth_from_file("release/truth.json")`` of a simulated release: its planted skills);
        default: the first two models of ``draw_effects(config, rng=seed)``.
    unit : {"participant", "conversation"}
        Resampling unit of the bootstrap (two-stage participant plan, or conversations).
    n_simulations : int
        Simulated releases per grid point and difference.
    n_resamples, alpha, seed, out, executor, n_workers, scheduler, progress
        See :func:`power_curve`.

    Returns
    -------
    PowerResult
        ``table`` rows per grid point and ``logit_difference``: ``power`` with its Monte Carlo
        interval and ``effect``, the mean estimated metric-scale difference (the expected effect
        on the metric at that logit difference), with ``effect_se``.
    """
    from attunestats.design.studies import Study
    from attunestats.metrics.registry import METRICS
    from attunestats.release.simulate import CAPABILITIES, SimulationConfig, draw_effects

    spec = METRICS.get(metric)
    if spec is None or spec.level != "conversation":
        raise ValueError(f"metric must be a conversation-level registry metric; got {metric!r}")
    caps = list(CAPABILITIES) if spec.capability == "composite" else [spec.capability]
    _check_choice("unit", unit, ("participant", "conversation"))
    alpha = _check_prob("alpha", alpha)
    if config is None:
        config = effects.config if effects is not None else SimulationConfig()
    if not isinstance(config, SimulationConfig):
        raise TypeError(f"config must be a SimulationConfig; got {type(config).__name__}")
    if effects is None:
        if predictors is not None:
            raise ValueError("predictors needs effects (the population they come from)")
        base = draw_effects(config, rng=int(seed))
        rows = [0, 1]
        if base.kinds[:2] != ("model", "model"):
            raise ValueError("config must have at least 2 models")
    else:
        base = effects
        names = list(predictors) if predictors is not None else list(effects.predictors[:2])
        if len(names) != 2 or any(n not in effects.predictors for n in names):
            raise ValueError(f"predictors must be two of {effects.predictors}; got {predictors!r}")
        rows = [effects.predictors.index(n) for n in names]
    theta = base.theta[rows]
    ns = _as_int_array("n_conversations", n_conversations, 2)
    ps = _as_int_array("n_participants", n_participants, 1)
    grid = [[int(n), int(p)] for n in ns for p in ps if n >= p]
    if not grid:
        raise ValueError("no grid point has n_conversations >= n_participants")
    if logit_differences is None:
        diffs: list[float | None] = [None]
    else:
        diffs = [float(d) for d in _as_float_array("logit_differences", logit_differences)]
    cap_idx = [CAPABILITIES.index(c) for c in caps]
    base_difference = float(np.mean(theta[0, cap_idx] - theta[1, cap_idx]))
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, int) or n_simulations < 2:
        raise ValueError(f"n_simulations must be an integer >= 2; got {n_simulations!r}")
    study_config = {
        "simulation": config.to_dict(),
        "theta": theta.tolist(),
        "capabilities": caps,
        "metric": metric,
        "grid": grid,
        "logit_differences": diffs,
        "base_difference": base_difference,
        "unit": unit,
        "n_resamples": int(n_resamples),
        "alpha": alpha,
    }
    study = Study(
        "attunestats.design.power:release_power_replicate", study_config, n_replicates=n_simulations,
        seed=seed, setup="attunestats.design.power:release_power_setup", name="release_power",
    )  # fmt: skip
    frame = _run(study, out, {"executor": executor, "n_workers": n_workers,
                              "scheduler": scheduler, "progress": progress})  # fmt: skip
    table = summarise_power(frame, alpha=alpha)
    keys = ["n_conversations", "n_participants", "logit_difference"]
    eff = frame.groupby(keys)["estimate"].agg(["mean", "std", "count"]).reset_index()
    eff["effect_se"] = eff["std"] / np.sqrt(eff["count"])
    table = table.merge(eff.rename(columns={"mean": "effect"})[keys + ["effect", "effect_se"]],
                        on=keys, how="left")  # fmt: skip
    table["metric"] = metric
    table["unit"] = unit
    table["test"] = "bootstrap"
    table["design"] = "paired"
    table["contrast"] = f"{base.predictors[rows[0]]} - {base.predictors[rows[1]]}"
    table.attrs["label"] = SIMULATED_LABEL
    return PowerResult(
        table=table, model=None, alpha=alpha, alternative="two-sided", test="bootstrap",
        n_simulations=int(n_simulations), seed=int(seed), simulations=frame,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# independence
# --------------------------------------------------------------------------------------------
def fit_independence_noise(matrix: Any) -> pd.DataFrame:
    """Between-model and per-conversation noise variance of each metric of a MetricMatrix.

    From :func:`attunestats.independence.capability_matrix`: the noise variance of a model mean
    is the bootstrap variance (mean over models); times the number of resampling units it is the
    per-conversation noise ``sigma^2``; the true-score variance is the variance of the estimates
    across models minus the noise variance (floored at 0). Reliability at ``n`` conversations:
    ``s^2 / (s^2 + sigma^2 / n)``.
    """
    est = np.asarray(matrix.estimate, dtype=float)
    dist = np.asarray(matrix.bootstrap_distribution, dtype=float)
    n_units = int(matrix.n_units)
    noise_var_mean = np.nanmean(np.nanvar(dist, axis=0, ddof=1), axis=0)  # (K,)
    between = np.var(est, axis=0, ddof=1)
    skill_var = np.maximum(between - noise_var_mean, 0.0)
    sigma2 = noise_var_mean * n_units
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = skill_var / (skill_var + noise_var_mean)
    out = pd.DataFrame(
        {
            "metric": list(matrix.metrics),
            "capability": list(matrix.capabilities),
            "skill_sd": np.sqrt(skill_var),
            "noise_sd": np.sqrt(sigma2),
            "n_units": n_units,
            "reliability": rel,
            "simulated": bool(matrix.simulated),
        }
    )
    return out


def reliability_at(
    n_conversations: Any, *, skill_sd: Any, noise_sd: Any, design_effect: float = 1.0
) -> np.ndarray:
    """Reliability ``s^2 / (s^2 + sigma^2 deff / n)`` of model means at ``n`` conversations.

    Arrays broadcast: ``n`` along the first axis, per-metric ``skill_sd``/``noise_sd`` along
    the last.
    """
    n = _as_int_array("n_conversations", n_conversations, 1).astype(float)[:, None]
    s2 = _as_float_array("skill_sd", skill_sd, low=0.0) ** 2
    e2 = _as_float_array("noise_sd", noise_sd, low=0.0) ** 2
    if design_effect < 1:
        raise ValueError(f"design_effect must be >= 1; got {design_effect!r}")
    return s2 / (s2 + e2 * float(design_effect) / n)


def independence_power_replicate(config: Mapping[str, Any], seed: int) -> pd.DataFrame:
    """A batch of simulated benchmarks per number of conversations (independence test power)."""
    try:
        from attunestats.independence import independence_power
    except ImportError as err:  # pragma: no cover - depends on the independence module
        raise ImportError(f"independence power needs attunestats.independence: {err}") from err
    rows = []
    for k, (n, rel) in enumerate(zip(config["n_conversations"], config["reliability"],
                                     strict=True)):  # fmt: skip
        res = independence_power(
            config["correlations"], n_models=int(config["n_models"]),
            n_metrics=int(config["n_metrics"]), reliability=float(min(rel, 1.0)),
            n_simulations=int(config["batch"]), n_permutations=int(config["n_permutations"]),
            alpha=float(config["alpha"]), rng=np.random.SeedSequence([int(seed), k]),
        )  # fmt: skip
        for r in config["correlations"]:
            g = np.asarray(res.details[f"{float(r):g}"]["global_p"])
            for j, pv in enumerate(g):
                rows.append(
                    {
                        "n_conversations": int(n),
                        "n_participants": -1,
                        "true_correlation": float(r),
                        "reliability": float(rel),
                        "dataset": j,
                        "pvalue": float(pv),
                        "reject": bool(pv < float(config["alpha"])),
                    }
                )
    return pd.DataFrame(rows)


def independence_power_curve(
    n_conversations: Any,
    *,
    skill_sd: Any,
    noise_sd: Any,
    correlations: Any = (0.0, 0.3, 0.5),
    design_effect: float = 1.0,
    n_models: int = 11,
    n_metrics: int = 5,
    n_simulations: int = 400,
    n_permutations: int = 999,
    alpha: float = 0.05,
    seed: int = 0,
    batch_size: int = 100,
    out: str | os.PathLike[str] | None = None,
    executor: str = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> PowerResult:
    """Power of the global independence test against the number of conversations.

    The reliability of the model means at each ``n`` (:func:`reliability_at`; per metric, then
    averaged over metrics because :func:`attunestats.independence.independence_power` takes one
    reliability) feeds :func:`attunestats.independence.independence_power`. Rows with
    ``true_correlation = 0`` give the size. ``skill_sd``/``noise_sd`` may come from
    :func:`fit_independence_noise`.
    """
    from attunestats.design.studies import Study

    alpha = _check_prob("alpha", alpha)
    ns = _as_int_array("n_conversations", n_conversations, 1)
    rel = reliability_at(ns, skill_sd=skill_sd, noise_sd=noise_sd, design_effect=design_effect)
    rel = np.nanmean(rel, axis=1)
    if not np.all((rel > 0) & np.isfinite(rel)):
        raise ValueError("skill_sd must be > 0 for some metric: the reliability is 0")
    corr = _as_float_array("correlations", correlations)
    batch = min(int(batch_size), int(n_simulations))
    config = {
        "n_conversations": [int(n) for n in ns],
        "reliability": [float(r) for r in rel],
        "correlations": [float(r) for r in corr],
        "n_models": int(n_models),
        "n_metrics": int(n_metrics),
        "batch": batch,
        "n_permutations": int(n_permutations),
        "alpha": alpha,
    }
    study = Study(
        "attunestats.design.power:independence_power_replicate", config,
        n_replicates=math.ceil(n_simulations / batch), seed=seed, name="independence_power",
    )  # fmt: skip
    frame = _run(study, out, {"executor": executor, "n_workers": n_workers,
                              "scheduler": scheduler, "progress": progress})  # fmt: skip
    frame = frame[frame["replicate"] * batch + frame["dataset"] < n_simulations]
    table = summarise_power(frame, alpha=alpha)
    table = table.merge(
        pd.DataFrame({"n_conversations": ns, "reliability": rel}), on="n_conversations"
    )
    table["test"] = "global independence (permutation)"
    table.attrs["label"] = SIMULATED_LABEL
    return PowerResult(
        table=table, model=None, alpha=alpha, alternative="two-sided",
        test="independence", n_simulations=int(n_simulations), seed=int(seed), simulations=frame,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# figure
# --------------------------------------------------------------------------------------------
def plot_power_curves(
    frame: pd.DataFrame,
    *,
    simulated: bool,
    effect: float | None = None,
    target: float = 0.8,
) -> Figure:
    """Power against the number of conversations and against the number of participants.

    ``frame`` is :meth:`PowerResult.to_frame` (columns ``n_conversations, n_participants,
    power, ci_low, ci_high``, optionally ``analytic_z`` and ``effect``). Left: power against
    conversations, one line per participant count; right (when several participant counts):
    power against participants, one line per conversation count. Simulated power is drawn as
    points with their Monte Carlo intervals, the design-effect approximation (``analytic_z``)
    as dashed lines; a dotted line marks ``target``. With several effects in ``frame``, the
    figure shows ``effect`` (default: the smallest).
    """
    import matplotlib.pyplot as plt

    from attunestats.report.figures import PAGE_WIDTH, mark_simulated, style

    needed = {"n_conversations", "n_participants", "power", "ci_low", "ci_high"}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass PowerResult.to_frame()")
    data = frame
    label = ""
    if "effect" in data.columns and data["effect"].nunique() > 1:
        chosen = float(data["effect"].min()) if effect is None else float(effect)
        data = data[np.isclose(data["effect"], chosen)]
        if data.empty:
            raise ValueError(f"effect {effect!r} is not in frame")
        label = f"effect {chosen:g}"
    elif "effect" in data.columns and data["effect"].notna().any():
        label = f"effect {float(data['effect'].iloc[0]):.3g}"
    parts = sorted(data["n_participants"].unique())
    convs = sorted(data["n_conversations"].unique())
    two = len(parts) > 1
    with style():
        fig, axes = plt.subplots(1, 2 if two else 1, figsize=(PAGE_WIDTH, 2.6) if two
                                 else (PAGE_WIDTH / 2, 2.6), squeeze=False)  # fmt: skip
        panels = [("n_conversations", "n_participants", "conversations", "participants")]
        if two:
            panels.append(("n_participants", "n_conversations", "participants", "conversations"))
        cmap = plt.get_cmap("viridis")
        for ax, (xcol, hue, xname, huename) in zip(axes[0], panels, strict=True):
            levels = sorted(data[hue].unique())
            for i, level in enumerate(levels):
                sub = data[data[hue] == level].sort_values(xcol)
                colour = cmap(i / max(1, len(levels) - 1) * 0.85)
                name = "independent" if level < 0 else f"{level:g} {huename}"
                x = sub[xcol].to_numpy(float)
                y = sub["power"].to_numpy(float)
                err = np.vstack([y - sub["ci_low"].to_numpy(float),
                                 sub["ci_high"].to_numpy(float) - y])  # fmt: skip
                ax.errorbar(x, y, yerr=err, fmt="o-", ms=3, lw=1, color=colour, capsize=2,
                            label=name)  # fmt: skip
                if "analytic_z" in sub.columns and sub["analytic_z"].notna().any():
                    ax.plot(x, sub["analytic_z"].to_numpy(float), "--", lw=0.9, color=colour)
            ax.axhline(target, ls=":", lw=0.8, color="0.4")
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(f"number of {xname}")
            ax.set_ylabel("power")
            ax.legend(fontsize=6, frameon=False, loc="lower right")
            if len(convs if xcol == "n_conversations" else parts) > 1:
                ax.set_xscale("log")
        title = "simulated power (points, Monte Carlo 95% CI); design-effect approximation dashed"
        fig.suptitle(title + (f"; {label}" if label else ""), fontsize=7)
        fig.tight_layout()
    return mark_simulated(fig, simulated)
