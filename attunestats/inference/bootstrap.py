"""Cluster bootstrap for every metric of every predictor, paired by construction.

Estimands. The conversation bootstrap (``unit="conversation"``, the default of
:func:`bootstrap_scores`) answers a *conditional* question: how much would the scores move with
new conversations of *these* participants? It is labelled "these participants" wherever it is
reported. The package's default inference for the population of participants is the
participant jackknife of :mod:`attunestats.inference.participants`
(:func:`~attunestats.inference.participants.infer_scores`); the participant bootstrap here
(``unit="participant"``) targets the same population but is less reliable with few participants
(its percentile intervals are too narrow by about ``sqrt((P - 1) / P)`` and do not correct for
unequal participants; measured in the participant coverage study).

Every predictor-level AttuneBench metric is either a (null-aware) mean of conversation-level values
or a statistic of confusion counts summed over conversations. Both are functions of *sums over
conversations*, so one bootstrap resample is one vector of conversation weights ``w`` (how often
each conversation was drawn) and every statistic of every predictor is recomputed from ``w @ X``,
where the columns of ``X`` hold the per-conversation sums. A (resamples x conversations) weight
matrix times X evaluates all predictors and metrics at once, and because all predictors share the
same weights the comparisons between them are paired (design.md, "Performance").

Resampling plans (:class:`ResamplingPlan`)
------------------------------------------
``unit="conversation"`` (default)
    Conversations are drawn with replacement (Efron's bootstrap with the conversation as the
    independent unit: turns stay together). Optional ``strata="topic"`` (or any column of the
    design) resamples conversations within each stratum, keeping stratum sizes fixed.
``unit="participant"``
    Participants are drawn with replacement, each with all of their conversations (the cluster
    bootstrap; Davison and Hinkley 1997, section 3.8, resampling at the first stage only).
    Resampling conversations again inside the drawn participants, as an earlier version did,
    counts the within-participant variance twice (its variance is about
    ``(P - 1) / P + (m - 1) / m`` times the true one when participants do not differ).

Interval methods
----------------
``"percentile"``, ``"basic"`` and ``"bca"`` (bias-corrected and accelerated; Efron 1987), as
:func:`scipy.stats.bootstrap` defines them. The BCa acceleration comes from the jackknife over the
resampling unit (leave one conversation out, or one participant out). When
BCa is degenerate for a statistic (all resampled values on one side of the estimate, or a
jackknife without spread), the percentile interval is used for it and an
:class:`~attunestats.errors.AttunestatsWarning` says for how many.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.inference._intervals import (  # noqa: F401  (re-exported)
    METHODS,
    Method,
    _check_common,
    _column_quantiles,
    _interval_summary,
    _warn_degenerate,
    confidence_interval,
)
from attunestats.inference.sums import (  # noqa: F401  (re-exported)
    SumStatistic,
    concat_statistics,
    mean_statistic,
    ratio_statistic,
    scores_statistic,
)

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

UNITS = ("conversation", "participant")
Unit = Literal["conversation", "participant"]


# --------------------------------------------------------------------------------------------
# Resampling plans
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResamplingPlan:
    """How conversations are resampled: the unit, and optional strata.

    Parameters
    ----------
    unit : {"conversation", "participant"}
        Resampling unit; ``"participant"`` resamples participants with all their conversations.
    strata : str or None
        Column of the design within which units are resampled: with ``unit="conversation"`` any
        conversation attribute (e.g. ``"topic"``); with ``unit="participant"`` a participant
        attribute (e.g. ``"diagnosis_group"``: participants are drawn within their group, so every
        resample keeps each group's number of participants).
    """

    unit: Unit = "conversation"
    strata: str | None = None

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}; got {self.unit!r}")
        if self.strata is not None and (not isinstance(self.strata, str) or not self.strata):
            raise TypeError(f"strata must be a column name or None; got {self.strata!r}")

    def describe(self) -> str:
        """One sentence describing the plan (recorded with every result)."""
        if self.unit == "participant":
            within = f" within strata of {self.strata!r}" if self.strata else ""
            return (
                f"participants drawn with replacement{within}, each with all of their conversations"
            )
        if self.strata:
            return f"conversations drawn with replacement within strata of {self.strata!r}"
        return "conversations drawn with replacement"

    # ----------------------------------------------------------------------------------------
    def weights(
        self, design: pd.DataFrame, n_resamples: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Resample weights, shape (n_resamples, n_conversations), rows summing to C.

        Conversations are in the order of ``design`` (callers sort it by conversation id).
        """
        n_conv = len(design)
        if self.unit == "conversation" and self.strata is None:
            return _uniform_counts(np.arange(n_conv), n_conv, n_resamples, rng)
        if self.unit == "conversation":
            groups = _group_indices(design, self.strata)
            weights = np.zeros((n_resamples, n_conv))
            for members in groups:
                weights += _uniform_counts(members, n_conv, n_resamples, rng)
            return weights
        groups = _group_indices(design, "participant_id")
        n_groups = len(groups)
        if self.strata is None:
            drawn = _uniform_counts(np.arange(n_groups), n_groups, n_resamples, rng)  # (B, P)
        else:
            drawn = np.zeros((n_resamples, n_groups))
            for members in _participant_strata(design, groups, self.strata):
                drawn += _uniform_counts(members, n_groups, n_resamples, rng)
        weights = np.zeros((n_resamples, n_conv))
        for j, members in enumerate(groups):  # a drawn participant brings all conversations
            weights[:, members] = drawn[:, j][:, None]
        return weights

    def jackknife(self, design: pd.DataFrame) -> np.ndarray:
        """Leave-one-unit-out weights, shape (n_units, n_conversations)."""
        n_conv = len(design)
        if self.unit == "conversation":
            return 1.0 - np.eye(n_conv)
        groups = _group_indices(design, "participant_id")
        weights = np.ones((len(groups), n_conv))
        for j, members in enumerate(groups):
            weights[j, members] = 0.0
        return weights

    def n_units(self, design: pd.DataFrame) -> int:
        """Number of first-stage resampling units in ``design``."""
        if self.unit == "participant":
            return int(design["participant_id"].nunique())
        return len(design)


def _uniform_counts(
    members: np.ndarray, n_total: int, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Counts (B, n_total) of len(members) draws with replacement among ``members``."""
    m = len(members)
    draws = members[rng.integers(0, m, size=(n_resamples, m))]
    offsets = (np.arange(n_resamples) * n_total)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_total)
    return counts.reshape(n_resamples, n_total).astype(np.float64)


def _participant_strata(
    design: pd.DataFrame, groups: list[np.ndarray], column: str
) -> list[np.ndarray]:
    """Participant indices (into ``groups``) per value of a participant-level ``column``."""
    if column not in design.columns:
        raise ValueError(f"the design has no column {column!r}; columns: {list(design.columns)}")
    values = []
    for members in groups:
        distinct = design[column].iloc[members].unique()
        if len(distinct) != 1:
            pid = design["participant_id"].iloc[members[0]]
            raise ValueError(
                f"strata column {column!r} is not constant within participant {pid!r} "
                f"(values {list(distinct)}); participant strata need a participant attribute"
            )
        values.append(distinct[0])
    codes, uniques = pd.factorize(pd.Series(values), sort=True)
    return [np.flatnonzero(codes == k) for k in range(len(uniques))]


def _group_indices(design: pd.DataFrame, column: str) -> list[np.ndarray]:
    if column not in design.columns:
        raise ValueError(f"the design has no column {column!r}; columns: {list(design.columns)}")
    values = design[column]
    if values.isna().any():
        raise ValueError(f"design column {column!r} has missing values; cannot resample by it")
    codes, uniques = pd.factorize(values, sort=True)
    return [np.flatnonzero(codes == k) for k in range(len(uniques))]


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class BootstrapResult(ResultMixin):
    """Bootstrap estimates, intervals and distributions of many statistics at once.

    Attributes
    ----------
    labels : pandas.DataFrame
        One row per statistic (for scores: ``predictor``, ``mode``, ``metric``).
    estimate, ci_low, ci_high, standard_error : numpy.ndarray
        Point estimate (full data), interval bounds and bootstrap standard error per label.
    method_used : numpy.ndarray
        Interval method per label (``"bca"`` or ``"percentile"`` where BCa was degenerate).
    bootstrap_distribution : numpy.ndarray
        Resampled statistics, shape (n_resamples, n_labels).
    jackknife_distribution : numpy.ndarray or None
        Leave-one-unit-out statistics, shape (n_units, n_labels) (for BCa).
    weights : numpy.ndarray
        The resample weights (n_resamples, n_conversations), so other statistics can be
        evaluated on exactly the same resamples (paired comparisons, rank intervals).
    conversation_ids : tuple of str
        Conversation order of the columns of ``weights``.
    """

    _title = "Cluster bootstrap of benchmark scores"

    labels: pd.DataFrame
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    standard_error: np.ndarray
    method_used: np.ndarray
    method: str
    confidence_level: float
    n_resamples: int
    plan: ResamplingPlan
    seed: int | str | None
    simulated: bool = False
    n_units: int = 0
    conversation_ids: tuple[str, ...] = ()
    bootstrap_distribution: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))
    jackknife_distribution: np.ndarray | None = field(repr=False, default=None)
    weights: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))

    @property
    def estimand_key(self) -> str:
        """``"these-participants"`` (conversations resampled) or ``"participants"``."""
        return "participants" if self.plan.unit == "participant" else "these-participants"

    @property
    def estimand(self) -> str:
        """The estimand in one sentence."""
        from attunestats.inference.participants import ESTIMANDS

        return ESTIMANDS[self.estimand_key]

    def describe(self) -> str:
        """One sentence: estimand and method."""
        return (
            f"Estimand: {self.estimand}. Method: {self.method} bootstrap intervals, "
            f"{self.plan.describe()}, {self.n_resamples} resamples."
        )

    def to_frame(self) -> pd.DataFrame:
        """One tidy row per statistic with estimate, interval, SE and the settings used."""
        frame = self.labels.copy()
        frame["estimate"] = self.estimate
        frame["ci_low"] = self.ci_low
        frame["ci_high"] = self.ci_high
        frame["standard_error"] = self.standard_error
        frame["method"] = self.method_used
        frame["estimand"] = self.estimand_key
        frame["unit"] = (
            self.plan.unit
            if self.plan.strata is None
            else (f"{self.plan.unit} (strata: {self.plan.strata})")
        )
        frame["n_resamples"] = self.n_resamples
        frame["confidence_level"] = self.confidence_level
        frame["seed"] = pd.Series([self.seed] * len(frame), dtype=object)
        frame["simulated"] = self.simulated
        return frame

    def index_of(self, **selectors: Any) -> np.ndarray:
        """Positions of the labels matching every ``column=value`` given."""
        keep = np.ones(len(self.labels), dtype=bool)
        for column, value in selectors.items():
            if column not in self.labels.columns:
                raise KeyError(f"no label column {column!r}; columns: {list(self.labels.columns)}")
            keep &= (self.labels[column] == value).to_numpy()
        return np.flatnonzero(keep)

    def distribution(self, **selectors: Any) -> np.ndarray:
        """The bootstrap distribution of the one label matching ``selectors``."""
        idx = self.index_of(**selectors)
        if len(idx) != 1:
            raise KeyError(f"{selectors} matches {len(idx)} labels, not exactly one")
        return self.bootstrap_distribution[:, idx[0]]


def run_bootstrap(
    statistic: SumStatistic,
    design: pd.DataFrame,
    *,
    plan: ResamplingPlan | None = None,
    method: Method = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    simulated: bool = False,
    batch_size: int | None = None,
) -> BootstrapResult:
    """Bootstrap any :class:`SumStatistic` over the conversations of ``design``.

    ``design`` has one row per conversation, in the row order of ``statistic.X``, with at least
    ``conversation_id`` (and ``participant_id`` or the strata column when the plan uses them).
    """
    plan = plan or ResamplingPlan()
    _check_common(method, n_resamples, confidence_level)
    if len(design) != statistic.X.shape[0]:
        raise ValueError(
            f"design has {len(design)} conversations but the statistic has {statistic.X.shape[0]} rows"
        )
    if len(design) < 2:
        raise ValueError(f"need at least 2 conversations to resample; got {len(design)}")
    generator = check_rng(rng)
    estimate = statistic.evaluate(np.ones((1, len(design))))[0]
    weights = plan.weights(design, int(n_resamples), generator)
    distribution = statistic.evaluate(weights, batch_size=batch_size)
    jackknife = (
        statistic.evaluate(plan.jackknife(design), batch_size=batch_size)
        if method == "bca"
        else None
    )
    low, high, degenerate, se = _interval_summary(
        distribution,
        estimate,
        method=method,
        confidence_level=float(confidence_level),
        jackknife=jackknife,
    )
    if method == "bca":
        labels = statistic.labels.reset_index(drop=True)
        which = [" ".join(str(v) for v in labels.iloc[i].to_numpy())
                 for i in np.flatnonzero(degenerate)[:3]]  # fmt: skip
        _warn_degenerate(int(degenerate.sum()), len(estimate), which)
    used = np.where(degenerate, "percentile", method).astype(object)
    return BootstrapResult(
        labels=statistic.labels.reset_index(drop=True),
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        standard_error=se,
        method_used=used,
        method=method,
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
        plan=plan,
        seed=seed_record(rng),
        simulated=simulated,
        n_units=plan.n_units(design),
        conversation_ids=tuple(design["conversation_id"].astype(str)),
        bootstrap_distribution=distribution,
        jackknife_distribution=jackknife,
        weights=weights,
    )


def cluster_bootstrap_mean(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[Any] | np.ndarray | None = None,
    *,
    method: Method = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> BootstrapResult:
    """Cluster bootstrap of the pooled mean of ``values`` (clusters resampled whole).

    The estimate is ``sum(values) / len(values)``; with ``clusters=None`` every value is its own
    cluster (the ordinary bootstrap of a mean). Clusters are sorted, so the order of the input
    rows does not change a seeded result.

    Examples
    --------
    >>> res = cluster_bootstrap_mean([1, 0, 1, 1, 0, 1], clusters=[1, 1, 2, 2, 3, 3], rng=1,
    ...                              n_resamples=2000, method="percentile")
    >>> round(float(res.estimate[0]), 4)
    0.6667
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size < 2:
        raise ValueError(
            f"values must be a 1-d sequence of at least 2 numbers; got shape {v.shape}"
        )
    if np.isnan(v).any():
        raise ValueError("values contain NaN; drop them first")
    if clusters is None:
        cluster_codes = np.arange(v.size)
        ids = [str(i) for i in range(v.size)]
    else:
        c = np.asarray(clusters)
        if c.shape != v.shape:
            raise ValueError(f"clusters must have the shape of values {v.shape}; got {c.shape}")
        cluster_codes, uniques = pd.factorize(pd.Series(c), sort=True)
        ids = [str(u) for u in uniques]
    n_clusters = int(cluster_codes.max()) + 1
    sums = np.bincount(cluster_codes, weights=v, minlength=n_clusters)[:, None]
    counts = np.bincount(cluster_codes, minlength=n_clusters).astype(float)[:, None]
    stat = ratio_statistic(sums, counts, pd.DataFrame({"statistic": ["mean"]}))
    design = pd.DataFrame({"conversation_id": ids})
    return run_bootstrap(
        stat,
        design,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
    )


def bootstrap_scores(
    scores: Scores,
    *,
    metrics: Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
    unit: Unit,
    strata: str | None = None,
    method: Method = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> BootstrapResult:
    """Cluster-bootstrap intervals for every metric of every predictor in one vectorised pass.

    Parameters
    ----------
    scores : Scores
        Output of :func:`attunestats.score`.
    metrics : sequence of str, optional
        Conversation-level registry metrics (default: all present, including pillars and the
        composite, which are recomputed inside each resample as means of per-conversation values).
    predictors : sequence of str, optional
        Subset of predictors (default: all).
    unit : {"conversation", "participant"}
        Required, so that the estimand is always chosen by name: ``"conversation"`` is the
        conditional analysis (these participants, conversations resampled); ``"participant"``
        resamples participants (the population of participants; with few participants prefer
        :func:`attunestats.infer_scores`, the package's default inference, whose intervals hold
        their level, see docs/explanation/estimands.md).
    strata : see :class:`ResamplingPlan`.
    method : {"bca", "percentile", "basic"}
    n_resamples, confidence_level, rng : as in :func:`scipy.stats.bootstrap`.

    Returns
    -------
    BootstrapResult
        Labels ``predictor``, ``mode``, ``metric``; all predictors share the resample weights.

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())
    >>> boot = at.bootstrap_scores(scores, unit="participant", metrics=["composite_score"],
    ...                            n_resamples=200, rng=1)
    >>> boot  # doctest: +ELLIPSIS
    <BootstrapResult: 14 rows; estimand='the population of participants: ...'; method='bca'; SIMULATED>
    >>> boot.to_frame().columns[:6].tolist()
    ['predictor', 'mode', 'metric', 'estimate', 'ci_low', 'ci_high']
    """
    if unit not in UNITS:
        raise ValueError(
            f"unit must be one of {UNITS} (the estimand is chosen by name: 'conversation' = these "
            f"participants, 'participant' = the population of participants); got {unit!r}"
        )
    plan = ResamplingPlan(unit=unit, strata=strata)
    statistic, design = scores_statistic(scores, metrics=metrics, predictors=predictors)
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    return run_bootstrap(
        statistic,
        design,
        plan=plan,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
        simulated=simulated,
    )
