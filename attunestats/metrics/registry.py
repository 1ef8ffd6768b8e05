"""The metric registry: one place that defines every metric ``score()`` produces.

Each metric is a :class:`MetricSpec` (name, level, range, direction, pillar, capability, how it
aggregates to a predictor, whether it may be null, whether it enters the composite, a one-line
description). Tables, the bootstrap, the hierarchical models and the figures read the registry, so a
metric registered here appears everywhere without further code.

Levels
------
- ``"turn"``: one value per scored turn (``Scores.turn``). Every turn metric ``x`` has a
  conversation-level counterpart ``avg_x``: the mean over the conversation's scored turns
  (null-aware when ``nullable``; spec 2.6).
- ``"conversation"``: one value per (predictor, mode, conversation) (``Scores.conversation``).
- ``"predictor"``: one value per (predictor, mode) that is not a summary of conversation values
  (only ``composite_z``).

Aggregation to a predictor (spec 3)
-----------------------------------
- ``"mean"``: unweighted mean over conversations; null-aware (conversations whose value is null are
  left out). Standard error: sample SD (n - 1) / sqrt(n) over the same conversations.
- ``"pooled"``: the statistic ``pooled_stat`` of the confusion counts ``tp, tn, fp, fn`` of task
  ``pooled_task`` summed over all turns of all conversations (``Scores.counts``), *not* the mean of
  the conversation values. :func:`pooled_statistic` computes it from (resampled) sums.
- ``"derived"``: computed from other predictor-level values (``composite_z``).

Adding a metric
---------------
A methodologist adds a metric in one call; ``score()`` computes it and every table, bootstrap and
figure picks it up. Give :class:`MetricSpec` a ``compute`` function and register it::

    from attunestats.metrics.registry import MetricSpec, register_metric

    def exact_match(ctx):
        # ctx.values: the built-in turn metrics of the scored turns (one row per ctx.keys row)
        return (ctx.values["emotion_f1"] == 1.0).astype(float).to_numpy()

    register_metric(MetricSpec(
        name="emotion_exact_match", level="turn", range=(0.0, 1.0), higher_is_better=True,
        pillar="emotion_tracking", capability="emotion",
        description="1 if the predicted tag set equals the ground-truth tag set",
        compute=exact_match,
    ))  # also registers 'avg_emotion_exact_match' (conversation level, mean over turns)

    scores = attunestats.score(release)  # the new metric is in every table now

``compute(ctx)`` receives a :class:`MetricContext` and returns one float per row of ``ctx.keys``
(``NaN`` = null): for a turn metric the rows are the scored turns (predictor, mode,
conversation_id, turn), for a conversation metric the runs (predictor, mode, conversation_id).
``ctx.values`` holds the metrics already computed at that level (built-ins first, then custom
metrics in registration order), ``ctx.release`` the :class:`~attunestats.release.model.Release`,
``ctx.options`` the :class:`~attunestats.metrics.conventions.ScoringOptions`, and
``ctx.gt(table)`` / ``ctx.pred(table)`` return a ground-truth or prediction table restricted to the
rows in ``ctx.keys`` with a ``row`` column pointing into ``ctx.keys``. A conversation metric that
combines others is a one-liner on ``ctx.values`` (e.g. a composite with other weights). Registering
a turn metric also registers its ``avg_`` counterpart unless ``with_average=False``. Pooled metrics
are declared with ``aggregation="pooled"``, ``pooled_task`` and ``pooled_stat`` and need no
``compute``. Built-in metrics (``compute=None``) are computed by the vectorised kernels in
``attunestats.metrics.turn`` and ``attunestats.metrics.conversation``; add a built-in by extending a
kernel and adding its spec to ``attunestats.metrics.builtin_metrics`` (the list of built-in specs,
registered here in its order). :func:`unregister_metric` removes a custom metric (tests).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from attunestats.constants import PILLARS
from attunestats.metrics.builtin_metrics import BINARY_TASKS, BUILTIN_SPECS, POOLED_STATS

if TYPE_CHECKING:
    import pandas as pd

Level = Literal["turn", "conversation", "predictor"]
Pillar = Literal["emotion_tracking", "evaluation_quality", "holistic_comprehension"]
Capability = Literal["emotion", "behaviour", "preference", "holistic", "response", "composite"]
Aggregation = Literal["mean", "pooled", "derived"]

LEVELS: tuple[str, ...] = ("turn", "conversation", "predictor")
CAPABILITIES: tuple[str, ...] = (
    "emotion", "behaviour", "preference", "holistic", "response", "composite",
)  # fmt: skip
AGGREGATIONS: tuple[str, ...] = ("mean", "pooled", "derived")


@dataclass(frozen=True)
class MetricContext:
    """What a custom metric's ``compute`` function sees (see the module docstring).

    Attributes
    ----------
    level : str
        ``"turn"`` or ``"conversation"``.
    keys : pandas.DataFrame
        The rows to fill: predictor, mode, conversation_id (and turn for turn metrics).
    values : pandas.DataFrame
        Metrics computed so far at this level, one column per metric, aligned with ``keys``.
    release : Release
        The release being scored.
    options : ScoringOptions
        The scoring conventions in force.
    """

    level: str
    keys: pd.DataFrame
    values: pd.DataFrame
    release: Any
    options: Any

    def gt(self, table: str) -> pd.DataFrame:
        """Ground-truth table ``table`` joined to ``keys`` (column ``row`` = index into ``keys``)."""
        df = self.release.tables[table]
        on = ["conversation_id"] + (["turn"] if self.level == "turn" and "turn" in df else [])
        keys = self.keys.loc[:, ["predictor", "mode", *on]].assign(row=np.arange(len(self.keys)))
        return keys.merge(df, on=on, how="inner", sort=False)

    def pred(self, table: str) -> pd.DataFrame:
        """Prediction table ``table`` joined to ``keys`` (column ``row`` = index into ``keys``)."""
        df = self.release.tables[table]
        on = ["predictor", "mode", "conversation_id"]
        if self.level == "turn" and "turn" in df:
            on.append("turn")
        keys = self.keys.loc[:, on].assign(row=np.arange(len(self.keys)))
        return keys.merge(df, on=on, how="inner", sort=False)


@dataclass(frozen=True)
class MetricSpec:
    """Definition of one metric.

    Attributes
    ----------
    name : str
        Column/metric name; conversation-level names of the main metrics follow spec section 5.
    level : {"turn", "conversation", "predictor"}
    range : tuple of float
        Smallest and largest possible value (``-inf``/``inf`` when unbounded).
    higher_is_better : bool or None
        ``None`` for two-sided quantities (gaps, ratios).
    pillar : str or None
        Composite pillar the metric belongs to (``emotion_tracking``, ``evaluation_quality``,
        ``holistic_comprehension``) or ``None``.
    capability : str
        ``emotion``, ``behaviour``, ``preference``, ``holistic``, ``response`` or ``composite``.
    description : str
        One line.
    aggregation : {"mean", "pooled", "derived"}
        How a predictor-level value is formed (module docstring).
    pooled_task, pooled_stat : str or None
        For pooled metrics: the binary task (``om``, ``human``, ``om_hp``, ``human_hp``) and the
        statistic (``accuracy``, ``precision``, ``recall``, ``f1``, ``mcc``).
    nullable : bool
        Whether the value may be null (NaN), e.g. intensity MAE when no tag matched.
    in_composite : bool
        Whether the metric is an input of the composite score.
    source : str or None
        For ``avg_`` metrics: the turn metric averaged.
    display_name : str
        Name shown in tables, figures and the docs (e.g. "Emotion F1", "Pairwise accuracy");
        empty: derived from ``name`` (:func:`display_name`).
    compute : callable or None
        ``compute(MetricContext) -> array`` for custom metrics; ``None`` for built-ins and pooled.
    """

    name: str
    level: Level
    range: tuple[float, float]
    higher_is_better: bool | None
    pillar: Pillar | None
    capability: Capability
    description: str
    aggregation: Aggregation = "mean"
    pooled_task: str | None = None
    pooled_stat: str | None = None
    nullable: bool = False
    in_composite: bool = False
    source: str | None = None
    compute: Callable[[MetricContext], Any] | None = field(default=None, compare=False, repr=False)
    display_name: str = ""

    @property
    def label(self) -> str:
        """The display name (``display_name``, or one derived from ``name``)."""
        return self.display_name or _humanize(self.name)

    @property
    def builtin(self) -> bool:
        """True for metrics computed by the package's own kernels."""
        return self.name in _BUILTIN_NAMES

    def to_dict(self) -> dict[str, Any]:
        """The spec as a plain dict (without ``compute``)."""
        return {
            "name": self.name,
            "level": self.level,
            "range_low": float(self.range[0]),
            "range_high": float(self.range[1]),
            "higher_is_better": self.higher_is_better,
            "pillar": self.pillar,
            "capability": self.capability,
            "aggregation": self.aggregation,
            "pooled_task": self.pooled_task,
            "pooled_stat": self.pooled_stat,
            "nullable": self.nullable,
            "in_composite": self.in_composite,
            "source": self.source,
            "display_name": self.label,
            "description": self.description,
        }


def _humanize(name: str) -> str:
    """``avg_my_metric`` -> "My metric" (for metrics registered without a display name)."""
    words = name.removeprefix("avg_").replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else name


def display_name(metric: str) -> str:
    """The display name of a metric, from its registry entry (one place for every table).

    Registered metrics use :attr:`MetricSpec.label`; an unregistered name is humanised
    (underscores to spaces, first letter capitalised) so tables never fail on it.

    Examples
    --------
    >>> display_name("avg_emotion_f1"), display_name("avg_pairwise_accuracy")
    ('Emotion F1', 'Pairwise accuracy')
    >>> display_name("my_new_metric")
    'My new metric'
    """
    spec = _REGISTRY.get(metric)
    return spec.label if spec is not None else _humanize(str(metric))


# --------------------------------------------------------------------------------------------------
# pooled statistics


def pooled_statistic(stat: str, tp: Any, tn: Any, fp: Any, fn: Any) -> np.ndarray:
    """A binary-classification statistic from (summed) confusion counts, vectorised.

    Follows spec 2.2: accuracy = (tp + tn) / N, precision = tp / (tp + fp), recall = tp / (tp + fn),
    F1 = 2 p r / (p + r), MCC = (tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn)); each is 0 when
    its denominator is 0.

    Parameters
    ----------
    stat : {"accuracy", "precision", "recall", "f1", "mcc"}
    tp, tn, fp, fn : array_like
        Counts (any broadcastable shape, e.g. resamples x predictors).

    Returns
    -------
    numpy.ndarray of float64, the broadcast shape of the counts.

    Examples
    --------
    >>> float(pooled_statistic("mcc", 5, 3, 1, 1))
    0.5833333333333334
    """
    if stat not in POOLED_STATS:
        raise ValueError(f"stat must be one of {POOLED_STATS}, got {stat!r}")
    tp, tn, fp, fn = (np.asarray(x, dtype=np.float64) for x in (tp, tn, fp, fn))
    with np.errstate(divide="ignore", invalid="ignore"):
        if stat == "accuracy":
            n = tp + tn + fp + fn
            return np.where(n > 0, (tp + tn) / np.where(n > 0, n, 1.0), 0.0)
        if stat == "precision":
            d = tp + fp
            return np.where(d > 0, tp / np.where(d > 0, d, 1.0), 0.0)
        if stat == "recall":
            d = tp + fn
            return np.where(d > 0, tp / np.where(d > 0, d, 1.0), 0.0)
        if stat == "f1":
            p = pooled_statistic("precision", tp, tn, fp, fn)
            r = pooled_statistic("recall", tp, tn, fp, fn)
            s = p + r
            return np.where(s > 0, 2.0 * p * r / np.where(s > 0, s, 1.0), 0.0)
        denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        return np.where(denom > 0, (tp * tn - fp * fn) / np.where(denom > 0, denom, 1.0), 0.0)


# --------------------------------------------------------------------------------------------------
# the registry and the built-in metrics

_REGISTRY: dict[str, MetricSpec] = {}
#: Every registered metric by name (read-only view; use :func:`register_metric` to add).
METRICS: Mapping[str, MetricSpec] = MappingProxyType(_REGISTRY)


def _average_of(spec: MetricSpec) -> MetricSpec:
    return replace(
        spec,
        name=f"avg_{spec.name}",
        level="conversation",
        aggregation="mean",
        source=spec.name,
        compute=None,
        description=f"mean over the conversation's scored turns of {spec.name}"
        + (" (turns where it is null left out)" if spec.nullable else ""),
    )


def _add(spec: MetricSpec, *, with_average: bool = True) -> None:
    _REGISTRY[spec.name] = spec
    if spec.level == "turn" and with_average:
        avg = _average_of(spec)
        _REGISTRY[avg.name] = avg


for _kwargs in BUILTIN_SPECS:  # the built-in metrics (attunestats.metrics.builtin_metrics)
    _add(MetricSpec(**_kwargs))

_BUILTIN_NAMES: frozenset[str] = frozenset(_REGISTRY)

#: Conversation-/predictor-level names of the main metrics, exactly as in spec section 5.
MAIN_METRICS: tuple[str, ...] = (
    "avg_emotion_hit_rate", "avg_emotion_f1", "avg_emotion_f1_intensity",
    "avg_emotion_intensity_mae", "avg_emotion_va_score", "avg_emotion_va_intensity_score",
    "avg_binary_om_accuracy", "avg_binary_human_accuracy", "avg_binary_om_accuracy_hp",
    "avg_binary_human_accuracy_hp", "avg_pairwise_accuracy", "avg_pairwise_kendall_tau",
    "panas_mae", "panas_normalized", "panas_baseline_adjusted", "panas_item_mae",
    "q1_looking_for_score", "q2_emotion_clarity_match", "q3_model_fit_match",
    "q3_model_fit_ordinal_distance", "q3_follow_up_score", "four_branch_mae",
    "four_branch_normalized", "emotion_tracking", "evaluation_quality",
    "holistic_comprehension", "composite_score", "equal_weight_composite",
)  # fmt: skip
#: The three pillars of the composite, in order, with their weights in constants.COMPOSITE_WEIGHTS.
PILLAR_METRICS: tuple[str, ...] = tuple(PILLARS)
#: The turn metrics that are computed only when a predictor x mode has drafts / judge output.
DRAFT_METRICS: tuple[str, ...] = (
    "response_similarity", "response_similarity_original", "response_similarity_llm_improved",
    "response_similarity_human_edited", "response_preference_alignment",
)  # fmt: skip
JUDGE_METRICS: tuple[str, ...] = ("draft_judge_score",)
DRAFT_BINARY_METRICS: tuple[str, ...] = ("draft_binary_alignment",)


# --------------------------------------------------------------------------------------------------
# queries and registration


def metric_names(
    *,
    level: str | None = None,
    capability: str | None = None,
    in_composite: bool | None = None,
    aggregation: str | None = None,
    pillar: str | None = None,
    builtin: bool | None = None,
) -> list[str]:
    """Names of registered metrics matching every given filter, in registration order.

    Examples
    --------
    >>> metric_names(level="conversation", in_composite=True)[:2]
    ['avg_emotion_f1', 'avg_emotion_va_score']
    """
    for arg, value, allowed in (
        ("level", level, LEVELS),
        ("capability", capability, CAPABILITIES),
        ("aggregation", aggregation, AGGREGATIONS),
        ("pillar", pillar, PILLARS),
    ):
        if value is not None and value not in allowed:
            raise ValueError(f"{arg} must be one of {allowed} or None, got {value!r}")
    out = []
    for spec in _REGISTRY.values():
        if level is not None and spec.level != level:
            continue
        if capability is not None and spec.capability != capability:
            continue
        if in_composite is not None and spec.in_composite != in_composite:
            continue
        if aggregation is not None and spec.aggregation != aggregation:
            continue
        if pillar is not None and spec.pillar != pillar:
            continue
        if builtin is not None and spec.builtin != builtin:
            continue
        out.append(spec.name)
    return out


def _check_spec(spec: MetricSpec) -> None:
    if not isinstance(spec, MetricSpec):
        raise TypeError(f"spec must be a MetricSpec, got {type(spec).__name__}")
    if not spec.name or not spec.name.isidentifier():
        raise ValueError(f"spec.name must be a non-empty identifier, got {spec.name!r}")
    if spec.level not in ("turn", "conversation"):
        raise ValueError(f"spec.level must be 'turn' or 'conversation', got {spec.level!r}")
    if spec.capability not in CAPABILITIES:
        raise ValueError(f"spec.capability must be one of {CAPABILITIES}, got {spec.capability!r}")
    if spec.pillar is not None and spec.pillar not in PILLARS:
        raise ValueError(f"spec.pillar must be one of {PILLARS} or None, got {spec.pillar!r}")
    if spec.aggregation not in ("mean", "pooled"):
        raise ValueError(f"spec.aggregation must be 'mean' or 'pooled', got {spec.aggregation!r}")
    lo, hi = spec.range
    if not lo <= hi:
        raise ValueError(f"spec.range must be (low, high) with low <= high, got {spec.range!r}")
    if spec.aggregation == "pooled":
        if spec.level != "conversation":
            raise ValueError(f"pooled metric {spec.name!r} must have level 'conversation'")
        if spec.pooled_task not in BINARY_TASKS:
            raise ValueError(f"spec.pooled_task must be one of {BINARY_TASKS}, got "
                             f"{spec.pooled_task!r}")  # fmt: skip
        if spec.pooled_stat not in POOLED_STATS:
            raise ValueError(f"spec.pooled_stat must be one of {POOLED_STATS}, got "
                             f"{spec.pooled_stat!r}")  # fmt: skip
    elif spec.compute is None:
        raise ValueError(f"metric {spec.name!r} needs a compute function (or aggregation='pooled')")
    elif not callable(spec.compute):
        raise TypeError(f"spec.compute must be callable, got {type(spec.compute).__name__}")


def register_metric(spec: MetricSpec, *, with_average: bool = True, replace: bool = False) -> None:
    """Register a custom metric (see "Adding a metric" in the module docstring).

    Parameters
    ----------
    spec : MetricSpec
        With ``level`` "turn" or "conversation" and a ``compute`` function (or a pooled metric).
    with_average : bool, default True
        For a turn metric, also register its conversation-level ``avg_<name>`` counterpart.
    replace : bool, default False
        Allow replacing an already registered custom metric of the same name.

    Examples
    --------
    >>> import attunestats as at
    >>> from attunestats.metrics.registry import MetricSpec, register_metric, unregister_metric
    >>> def exact_match(ctx):  # 1 where the predicted tag set is the ground truth's
    ...     return (ctx.values["emotion_f1"] == 1.0).astype(float).to_numpy()
    >>> register_metric(MetricSpec(
    ...     name="emotion_exact_match", level="turn", range=(0.0, 1.0), higher_is_better=True,
    ...     pillar="emotion_tracking", capability="emotion",
    ...     description="1 if the predicted tag set equals the ground-truth tag set",
    ...     compute=exact_match))
    >>> scores = at.score(at.load_bundled_release())
    >>> turn = scores.turn
    >>> mine = turn[turn["metric"] == "emotion_exact_match"]["value"].to_numpy()
    >>> f1 = turn[turn["metric"] == "emotion_f1"]["value"].to_numpy()
    >>> bool(((f1 == 1.0) == (mine == 1.0)).all())
    True
    >>> "avg_emotion_exact_match" in set(scores.conversation["metric"])
    True
    >>> unregister_metric("emotion_exact_match")
    """
    _check_spec(spec)
    names = [spec.name] + ([f"avg_{spec.name}"] if spec.level == "turn" and with_average else [])
    for name in names:
        if name in _BUILTIN_NAMES:
            raise ValueError(f"spec.name {name!r} is a built-in metric and cannot be replaced")
        if name in _REGISTRY and not replace:
            raise ValueError(f"metric {name!r} is already registered (pass replace=True)")
    _add(spec, with_average=with_average)


def unregister_metric(name: str) -> None:
    """Remove a custom metric (and its ``avg_`` counterpart)."""
    if name in _BUILTIN_NAMES:
        raise ValueError(f"name {name!r} is a built-in metric and cannot be removed")
    if name not in _REGISTRY:
        raise ValueError(f"name {name!r} is not a registered metric")
    spec = _REGISTRY.pop(name)
    avg = f"avg_{name}"
    if spec.level == "turn" and avg in _REGISTRY and _REGISTRY[avg].source == name:
        _REGISTRY.pop(avg)


def metrics_frame() -> pd.DataFrame:
    """The registry as a table, one row per metric (for docs and reports)."""
    import pandas as pd

    return pd.DataFrame([spec.to_dict() for spec in _REGISTRY.values()])


def iter_specs(level: str) -> Iterator[MetricSpec]:
    """Registered specs of one level, in registration order."""
    return (s for s in _REGISTRY.values() if s.level == level)
