"""The model x metric matrix and its conversation resamples, shared by every analysis."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike
from attunestats.constants import SIMULATED_LABEL
from attunestats.errors import AttunestatsWarning, NotApplicable, warn
from attunestats.independence._kernels import constant_metrics
from attunestats.inference.bootstrap import (
    METHODS,
    ResamplingPlan,
    SumStatistic,
    mean_statistic,
    run_bootstrap,
    scores_statistic,
)

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

#: One representative metric per capability (the default of :func:`capability_matrix`):
#: emotion recognition = mean per-turn emotion-label F1; behaviour classification = binary
#: OM-assessment accuracy; preference prediction = pairwise accuracy; holistic understanding =
#: normalised four-branch score; response quality = draft-judge score. Claim (a) of the paper is
#: about the first three and response quality, claim (g) about holistic versus the others.
DEFAULT_METRICS: Mapping[str, str] = MappingProxyType(
    {
        "emotion": "avg_emotion_f1",
        "behaviour": "avg_binary_om_accuracy",
        "preference": "avg_pairwise_accuracy",
        "holistic": "four_branch_normalized",
        "response": "avg_draft_judge_score",
    }
)


@dataclass(frozen=True)
class MetricMatrix:
    """Models x metrics estimates with their conversation resamples.

    Every value is *oriented* so that higher is better (a lower-is-better metric is multiplied by
    -1, see ``orientation``), so a positive correlation always means "models good at one are good
    at the other".

    Attributes
    ----------
    estimate : numpy.ndarray, shape (M, K)
        Oriented full-data estimates (model ``m``, metric ``k``).
    predictors, metrics, capabilities : tuple of str
        Row labels (models; ``"name [mode]"`` for a non-default mode), metric names and the
        capability each metric stands for (column labels of every table).
    orientation : numpy.ndarray, shape (K,)
        ``+1`` or ``-1`` per metric.
    bootstrap_distribution : numpy.ndarray, shape (B, M, K)
        Oriented estimates in each conversation resample (all models share the resample).
    jackknife_distribution : numpy.ndarray or None, shape (J, M, K)
        Leave-one-unit-out estimates (for BCa intervals).
    weights : numpy.ndarray, shape (B, C)
        Conversation weights of each resample.
    unit, n_units, method, confidence_level, n_resamples, seed, simulated
        Resampling unit and number of units, interval method and level, number of resamples,
        seed record and whether the data are simulated.
    """

    estimate: np.ndarray
    predictors: tuple[str, ...]
    metrics: tuple[str, ...]
    capabilities: tuple[str, ...]
    orientation: np.ndarray
    unit: str
    n_units: int
    method: str
    confidence_level: float
    n_resamples: int
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: np.ndarray = field(repr=False)
    jackknife_distribution: np.ndarray | None = field(repr=False, default=None)
    weights: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))
    statistic: SumStatistic | None = field(repr=False, default=None)
    column_index: np.ndarray | None = field(repr=False, default=None)
    design: pd.DataFrame | None = field(repr=False, default=None)
    plan: ResamplingPlan = field(repr=False, default_factory=ResamplingPlan)

    @property
    def n_models(self) -> int:
        """Number of models (rows)."""
        return self.estimate.shape[0]

    @property
    def n_metrics(self) -> int:
        """Number of metrics (columns)."""
        return self.estimate.shape[1]

    @property
    def labels(self) -> tuple[str, ...]:
        """Column labels used in tables: the capability, or the metric where capabilities repeat."""
        if len(set(self.capabilities)) == len(self.capabilities):
            return self.capabilities
        return self.metrics

    def select(self, metrics: Sequence[str]) -> MetricMatrix:
        """The matrix restricted to some metrics (same models and resamples)."""
        metrics = list(metrics)
        missing = [m for m in metrics if m not in self.metrics]
        if missing:
            raise ValueError(f"metrics {missing} are not in this matrix; have {list(self.metrics)}")
        if len(metrics) < 2 or len(set(metrics)) != len(metrics):
            raise ValueError(f"select needs at least 2 distinct metrics; got {metrics}")
        idx = [self.metrics.index(m) for m in metrics]
        jack = self.jackknife_distribution
        return replace(
            self,
            estimate=self.estimate[:, idx],
            metrics=tuple(metrics),
            capabilities=tuple(self.capabilities[i] for i in idx),
            orientation=self.orientation[idx],
            bootstrap_distribution=self.bootstrap_distribution[:, :, idx],
            jackknife_distribution=None if jack is None else jack[:, :, idx],
            column_index=None if self.column_index is None else self.column_index[:, idx],
        )

    def evaluate(self, weights: np.ndarray) -> np.ndarray:
        """Oriented estimates under conversation weights (n, C) -> (n, M, K)."""
        if self.statistic is None or self.column_index is None:
            raise ValueError(
                "this MetricMatrix holds no per-conversation values (built without them); "
                "build it with capability_matrix or metric_matrix"
            )
        values = self.statistic.evaluate(np.atleast_2d(weights))
        return values[:, self.column_index] * self.orientation

    def to_frame(self) -> pd.DataFrame:
        """One row per model and metric: raw estimate, percentile interval and bootstrap SE."""
        M, K = self.estimate.shape
        dist = self.bootstrap_distribution * self.orientation  # back to the raw scale
        alpha = (1.0 - self.confidence_level) / 2.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low = np.nanquantile(dist, alpha, axis=0)
            high = np.nanquantile(dist, 1.0 - alpha, axis=0)
            se = np.nanstd(dist, axis=0, ddof=1)
        frame = pd.DataFrame(
            {
                "predictor": np.repeat(self.predictors, K),
                "metric": np.tile(self.metrics, M),
                "capability": np.tile(self.capabilities, M),
                "estimate": (self.estimate * self.orientation).ravel(),
                "ci_low": low.ravel(),
                "ci_high": high.ravel(),
                "standard_error": se.ravel(),
                "higher_is_better": np.tile(self.orientation > 0, M),
                "n_resamples": self.n_resamples,
                "confidence_level": self.confidence_level,
                "unit": self.unit,
                "simulated": self.simulated,
            }
        )
        return label_frame(frame, self.simulated)


def label_frame(frame: pd.DataFrame, simulated: bool) -> pd.DataFrame:
    """Attach the simulated label (``attrs["label"]``) to a result table."""
    frame.attrs["simulated"] = bool(simulated)
    frame.attrs["label"] = SIMULATED_LABEL if simulated else ""
    return frame


# --------------------------------------------------------------------------------------------
# Building the matrix
# --------------------------------------------------------------------------------------------
def _check_bootstrap_options(method: Any, n_resamples: Any, confidence_level: Any) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer):
        raise TypeError(f"n_resamples must be an int; got {n_resamples!r}")
    if n_resamples < 100:
        raise ValueError(f"n_resamples must be at least 100; got {n_resamples}")
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, float | int):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")


def _finish(
    statistic: SumStatistic,
    column_index: np.ndarray,
    design: pd.DataFrame,
    *,
    predictors: tuple[str, ...],
    metrics: tuple[str, ...],
    capabilities: tuple[str, ...],
    orientation: np.ndarray,
    plan: ResamplingPlan,
    method: str,
    n_resamples: int,
    confidence_level: float,
    rng: RNGLike,
    simulated: bool,
) -> MetricMatrix:
    with warnings.catch_warnings():
        # degenerate BCa intervals of single estimates do not matter here: only the
        # distributions are used
        warnings.simplefilter("ignore", AttunestatsWarning)
        boot = run_bootstrap(
            statistic,
            design,
            plan=plan,
            method=method,  # type: ignore[arg-type]
            n_resamples=int(n_resamples),
            confidence_level=float(confidence_level),
            rng=rng,
            simulated=simulated,
        )
    estimate = boot.estimate[column_index] * orientation
    bad = np.argwhere(~np.isfinite(estimate))
    if bad.size:
        where = [(predictors[i], metrics[k]) for i, k in bad[:5]]
        raise ValueError(
            f"{len(bad)} model x metric estimate(s) are missing (no scored conversation), e.g. "
            f"{where}; choose other metrics or predictors"
        )
    dist = boot.bootstrap_distribution[:, column_index] * orientation
    jack = (
        boot.jackknife_distribution[:, column_index] * orientation
        if boot.jackknife_distribution is not None
        else None
    )
    return MetricMatrix(
        estimate=estimate,
        predictors=predictors,
        metrics=metrics,
        capabilities=capabilities,
        orientation=orientation,
        unit=plan.unit if plan.strata is None else f"{plan.unit} (strata: {plan.strata})",
        n_units=boot.n_units,
        method=method,
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
        seed=boot.seed,
        simulated=simulated,
        bootstrap_distribution=dist,
        jackknife_distribution=jack,
        weights=boot.weights,
        statistic=statistic,
        column_index=column_index,
        design=design,
        plan=plan,
    )


def _resolve_metrics(
    metrics: Mapping[str, str] | Sequence[str] | None, available: set[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from attunestats.metrics.registry import METRICS

    if metrics is None:
        chosen = {c: m for c, m in DEFAULT_METRICS.items() if m in available}
        dropped = [m for m in DEFAULT_METRICS.values() if m not in available]
        if dropped:
            warn(
                f"default metrics {dropped} have no values in these scores and are left out",
                AttunestatsWarning,
            )
        names, caps = tuple(chosen.values()), tuple(chosen)
    elif isinstance(metrics, Mapping):
        names, caps = tuple(metrics.values()), tuple(str(c) for c in metrics)
    elif isinstance(metrics, Sequence) and not isinstance(metrics, str):
        names = tuple(metrics)
        caps = tuple(METRICS[m].capability if m in METRICS else str(m) for m in names)
    else:
        raise TypeError(
            f"metrics must be a mapping capability -> metric, a sequence of metric names or None; "
            f"got {metrics!r}"
        )
    unknown = [m for m in names if m not in METRICS or METRICS[m].level != "conversation"]
    if unknown:
        raise ValueError(
            f"metrics {unknown} are not conversation-level metrics of the registry "
            "(see attunestats.METRICS)"
        )
    missing = [m for m in names if m not in available]
    if missing:
        raise ValueError(f"metrics {missing} have no values in these scores")
    if len(set(names)) != len(names):
        raise ValueError(f"metrics must be distinct; got {list(names)}")
    if len(names) < 2:
        raise ValueError(f"need at least 2 metrics; got {list(names)}")
    return names, caps


def capability_matrix(
    scores: Scores,
    *,
    metrics: Mapping[str, str] | Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
    kind: str | None = "model",
    unit: str = "conversation",
    strata: str | None = None,
    method: str = "percentile",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> MetricMatrix:
    """The models x capabilities matrix of a scored release, with conversation resamples.

    Parameters
    ----------
    scores : Scores
        Output of :func:`attunestats.score`.
    metrics : mapping or sequence, optional
        ``{capability: metric}`` or metric names (capability from the registry). Default
        :data:`DEFAULT_METRICS` (one representative metric per capability; those without values
        in ``scores`` are left out with a warning).
    predictors : sequence of str, optional
        Predictors to use (default: all of ``kind``).
    kind : {"model", "human"} or None
        Kind of predictor used when ``predictors`` is None (``None``: all). The paper's claim is
        about the evaluated models, so human raters are excluded by default.
    unit, strata : see :class:`attunestats.inference.bootstrap.ResamplingPlan`.
    method : {"percentile", "basic", "bca"}
        Interval method of the bootstrap intervals derived from this matrix.
    n_resamples, confidence_level, rng
        As in :func:`scipy.stats.bootstrap`.

    Returns
    -------
    MetricMatrix
    """
    from attunestats.metrics.score import Scores

    if not isinstance(scores, Scores):
        raise TypeError(f"scores must be a Scores (attunestats.score); got {type(scores).__name__}")
    _check_bootstrap_options(method, n_resamples, confidence_level)
    table = scores.predictors
    if predictors is None:
        if kind is None:
            predictors = list(table["predictor"])
        else:
            if kind not in set(table["kind"]):
                raise ValueError(
                    f"kind={kind!r} matches no predictor; kinds present: {sorted(set(table['kind']))}"
                )
            predictors = list(table.loc[table["kind"] == kind, "predictor"])
    else:
        predictors = list(predictors)
        unknown = sorted(set(predictors) - set(table["predictor"]))
        if unknown:
            raise ValueError(
                f"unknown predictors {unknown}; available: {sorted(table['predictor'])}"
            )
    conv = scores.conversation
    conv = conv[conv["predictor"].isin(predictors)]
    available = set(conv.loc[conv["value"].notna(), "metric"])
    names, caps = _resolve_metrics(metrics, available)
    from attunestats.metrics.registry import METRICS

    statistic, design = scores_statistic(scores, metrics=list(names), predictors=predictors)
    labels = statistic.labels
    keys = labels[["predictor", "mode"]].drop_duplicates().sort_values(["predictor", "mode"])
    key_list = list(keys.itertuples(index=False, name=None))
    if len(key_list) < 4:
        raise NotApplicable(
            f"need at least 4 models to study their correlations; got {len(key_list)}"
        )
    pos = {tuple(r): i for i, r in enumerate(labels[["predictor", "mode", "metric"]].itertuples(
        index=False, name=None))}  # fmt: skip
    column_index = np.array([[pos[(p, md, m)] for m in names] for p, md in key_list])
    row_labels = tuple(p if md == "default" else f"{p} [{md}]" for p, md in key_list)
    orientation = np.array([-1.0 if METRICS[m].higher_is_better is False else 1.0 for m in names])
    plan = ResamplingPlan(unit=unit, strata=strata)  # type: ignore[arg-type]
    matrix = _finish(
        statistic,
        column_index,
        design,
        predictors=row_labels,
        metrics=names,
        capabilities=caps,
        orientation=orientation,
        plan=plan,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
        simulated=bool(getattr(scores, "simulated", False)),
    )
    flat = [m for m, const in zip(names, constant_metrics(matrix.estimate)) if const]
    if not flat:
        return matrix
    why = (
        f"metrics {flat} take the same value for every model (e.g. no predictions of that "
        "kind in the runs): a constant has no correlation with anything"
    )
    if metrics is not None or len(names) - len(flat) < 2:
        raise ValueError(f"{why}; choose other metrics")
    warn(f"default {why}; they are left out", AttunestatsWarning)
    keep = {c: m for c, m in zip(caps, names) if m not in flat}
    return capability_matrix(
        scores, metrics=keep, predictors=predictors, kind=kind, unit=unit, strata=strata,
        method=method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng,
    )  # fmt: skip


def metric_matrix(
    values: np.ndarray,
    *,
    predictors: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    capabilities: Sequence[str] | None = None,
    higher_is_better: Sequence[bool] | None = None,
    design: pd.DataFrame | None = None,
    unit: str = "conversation",
    strata: str | None = None,
    method: str = "percentile",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    simulated: bool = False,
) -> MetricMatrix:
    """The matrix from per-conversation values (C conversations x M models x K metrics).

    Model-level estimates are null-aware means over conversations (NaN = null), exactly as
    :func:`attunestats.inference.bootstrap.mean_statistic` computes them.

    Parameters
    ----------
    values : array_like, shape (C, M, K)
        Conversation-level values.
    predictors, metrics, capabilities : sequence of str, optional
        Labels (defaults ``model-1``..., ``metric-1``..., the metric names).
    higher_is_better : sequence of bool, optional
        Orientation per metric (default all True).
    design : pandas.DataFrame, optional
        One row per conversation with ``conversation_id`` (and ``participant_id`` / the strata
        column when the plan needs them); default ids ``"0"``, ``"1"``, ...
    unit, strata, method, n_resamples, confidence_level, rng
        As in :func:`capability_matrix`.
    simulated : bool
        Mark every output as computed from simulated data.

    Returns
    -------
    MetricMatrix
    """
    _check_bootstrap_options(method, n_resamples, confidence_level)
    v = np.asarray(values, dtype=float)
    if v.ndim != 3:
        raise ValueError(f"values must have shape (conversations, models, metrics); got {v.shape}")
    C, M, K = v.shape
    if C < 2:
        raise ValueError(f"values need at least 2 conversations; got {C}")
    if M < 4:
        raise ValueError(f"values need at least 4 models; got {M}")
    if K < 2:
        raise ValueError(f"values need at least 2 metrics; got {K}")
    predictors = tuple(predictors) if predictors is not None else tuple(
        f"model-{i + 1}" for i in range(M))  # fmt: skip
    metrics = tuple(metrics) if metrics is not None else tuple(f"metric-{k + 1}" for k in range(K))
    capabilities = tuple(capabilities) if capabilities is not None else metrics
    for name, labels, n in (("predictors", predictors, M), ("metrics", metrics, K),
                            ("capabilities", capabilities, K)):  # fmt: skip
        if len(labels) != n:
            raise ValueError(f"{name} must have {n} labels; got {len(labels)}")
    if len(set(predictors)) != M or len(set(metrics)) != K:
        raise ValueError("predictors and metrics must be distinct labels")
    if higher_is_better is None:
        orientation = np.ones(K)
    else:
        hib = list(higher_is_better)
        if len(hib) != K:
            raise ValueError(f"higher_is_better must have {K} values; got {len(hib)}")
        orientation = np.array([1.0 if h else -1.0 for h in hib])
    if design is None:
        design = pd.DataFrame({"conversation_id": [str(i) for i in range(C)]})
    elif len(design) != C or "conversation_id" not in design.columns:
        raise ValueError(
            f"design must have {C} rows and a conversation_id column; got {len(design)} rows, "
            f"columns {list(design.columns)}"
        )
    labels = pd.DataFrame({"predictor": np.repeat(predictors, K), "metric": np.tile(metrics, M)})
    statistic = mean_statistic(v.reshape(C, M * K), labels)
    column_index = np.arange(M * K).reshape(M, K)
    plan = ResamplingPlan(unit=unit, strata=strata)  # type: ignore[arg-type]
    return _finish(
        statistic,
        column_index,
        design.reset_index(drop=True),
        predictors=predictors,
        metrics=metrics,
        capabilities=capabilities,
        orientation=orientation,
        plan=plan,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
        simulated=bool(simulated),
    )


def check_matrix(data: Any) -> MetricMatrix:
    """``data`` as a MetricMatrix, or a clear TypeError."""
    if not isinstance(data, MetricMatrix):
        raise TypeError(
            "data must be a MetricMatrix (capability_matrix(scores) or metric_matrix(values)); "
            f"got {type(data).__name__}"
        )
    return data


def check_int(name: str, value: Any, low: int) -> int:
    """An int >= low, or a clear error naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int; got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}; got {value}")
    return int(value)


def check_level(name: str, value: Any) -> float:
    """A probability in (0, 1), or a clear error naming the argument."""
    if isinstance(value, bool) or not isinstance(value, float | int | np.floating):
        raise TypeError(f"{name} must be a number in (0, 1); got {value!r}")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must be in (0, 1); got {value!r}")
    return float(value)
