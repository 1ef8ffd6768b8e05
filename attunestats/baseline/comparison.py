"""Human raters against models on identical conversations: paired bootstrap differences.
Humans vs models
----------------
:func:`humans_vs_models` bootstraps every (predictor, metric) once with
:func:`attunestats.inference.bootstrap.bootstrap_scores` (shared conversation weights). The mean of the
human raters is a linear combination of their labels, so it is evaluated on the same resamples
(and jackknife values, for BCa) as a contrast: every difference is paired. p-values are the
bootstrap p-values of :func:`attunestats.inference.compare.bootstrap_pvalue`; the multiplicity correction
(``"holm"``, ``"bh"`` or ``"none"``, required) is applied within each family of comparisons.

Everything computed from a simulated release carries ``simulated=True`` (and the figures the
:data:`~attunestats.constants.SIMULATED_LABEL`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike
from attunestats.baseline._checks import _check_choice, _check_correction, _check_level

if TYPE_CHECKING:
    from attunestats.inference.bootstrap import BootstrapResult
    from attunestats.metrics.score import Scores

__all__ = ["COMPARISONS", "HumansVsModelsResult", "humans_vs_models"]

# --------------------------------------------------------------------------------------------
# humans vs models
# --------------------------------------------------------------------------------------------
#: Comparison kinds of :func:`humans_vs_models`, in table order.
COMPARISONS = (
    "human_mean - model",
    "human - model",
    "human - model_mean",
    "human_mean - model_mean",
)
HUMAN_MEAN = "mean of humans"
MODEL_MEAN = "mean of models"


@dataclass(frozen=True, repr=False)
class HumansVsModelsResult(ResultMixin):
    """Paired bootstrap differences between human raters and models, per metric.

    Attributes
    ----------
    comparisons : pandas.DataFrame
        One row per metric and comparison: ``comparison`` (one of :data:`COMPARISONS`),
        ``human`` (a rater, or ``"mean of humans"``), ``model`` (a model, or ``"mean of
        models"``), ``estimate_human``, ``estimate_model``, ``difference`` (human minus model),
        ``ci_low``, ``ci_high``, ``standard_error``, ``pvalue`` (two-sided bootstrap),
        ``pvalue_adjusted``, ``significant`` (adjusted p below ``1 - confidence_level``),
        ``human_better`` / ``human_worse`` (significant and in the metric's better / worse
        direction; both False for two-sided metrics), the metric's ``pillar``, ``capability`` and
        ``higher_is_better``, and the settings (``correction``, ``family``, ``method``,
        ``interval_method``, ``confidence_level``, ``n_resamples``, ``unit``, ``seed``,
        ``simulated``).
    by_metric : pandas.DataFrame
        One row per metric (what ``summary()`` prints): ``human_mean``, ``model_mean``,
        ``difference`` (= human mean minus model mean) with interval and p-values, ``n_models``,
        ``n_models_beaten`` (models the human mean beats significantly after correction),
        ``share_models_beaten``, ``n_models_better`` (models significantly better than the human
        mean), ``share_models_better``.
    boot : BootstrapResult
        The one bootstrap every number comes from.
    """

    _title = "Human raters against models (paired bootstrap)"
    _summary_columns = (
        "metric", "human_mean", "model_mean", "difference", "ci_low", "ci_high",
        "pvalue_adjusted", "n_models_beaten", "n_models_better",
    )  # fmt: skip

    comparisons: pd.DataFrame
    by_metric: pd.DataFrame
    humans: tuple[str, ...]
    models: tuple[str, ...]
    correction: str
    family: str
    confidence_level: float
    simulated: bool
    boot: Any = field(repr=False, default=None)

    def to_frame(self) -> pd.DataFrame:
        """The comparison table (a copy)."""
        return self.comparisons.copy()

    def _estimand(self) -> str:
        return "metric of the human raters minus metric of the models, same conversations"

    def _method(self) -> str:
        return _method_words(self.comparisons, self.family)

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        frame = self.by_metric[[c for c in self._summary_columns if c in self.by_metric]]
        meta = {
            **self._summary_meta(),
            **_settings_meta(self.comparisons),
            "Humans": ", ".join(self.humans),
            "Models": f"{len(self.models)}",
        }
        notes = [
            "one row per metric: mean of humans minus mean of models; n_models_beaten / "
            "n_models_better count the models the mean of humans is significantly better / worse "
            "than after correction; to_frame() has every comparison.",
        ]
        return self._title, meta, frame, notes


def _method_words(table: pd.DataFrame, family: str) -> str:
    """The bootstrap behind a comparison table, in words (from its settings columns)."""
    if table.empty or "method" not in table:
        return ""
    first = table.iloc[0]
    return (
        f"paired {first['method']} intervals, cluster bootstrap over {first['unit']}s; "
        f"correction within each {'metric' if family == 'metric' else 'comparison kind'}"
    )


def _settings_meta(table: pd.DataFrame) -> dict[str, str]:
    if table.empty:
        return {}
    first = table.iloc[0]
    out = {}
    if "n_resamples" in table:
        out["Resamples"] = str(first["n_resamples"])
    if "seed" in table and first["seed"] is not None:
        out["Seed"] = str(first["seed"])
    return out


def _default_metrics(available: set[str]) -> list[str]:
    from attunestats.metrics.registry import MAIN_METRICS, METRICS

    return [m for m in MAIN_METRICS if m in available and METRICS[m].level == "conversation"]


def _split_predictors(
    kinds: Mapping[str, str] | None,
    names: Sequence[str],
    humans: Sequence[str] | None,
    models: Sequence[str] | None,
) -> tuple[list[str], list[str]]:
    present = sorted(set(names))
    if humans is None:
        if kinds is None:
            raise ValueError(
                "humans must name the human raters when data is a BootstrapResult (its labels do "
                "not record predictor kinds)"
            )
        humans = [p for p in present if kinds.get(p) == "human"]
    else:
        humans = [humans] if isinstance(humans, str) else list(humans)
    if models is None:
        if kinds is None:
            models = [p for p in present if p not in set(humans)]
        else:
            models = [p for p in present if kinds.get(p) == "model"]
    else:
        models = [models] if isinstance(models, str) else list(models)
    for arg, group in (("humans", humans), ("models", models)):
        unknown = sorted(set(group) - set(present))
        if unknown:
            raise ValueError(f"{arg} {unknown} are not predictors of the data; have {present}")
        if not group:
            raise ValueError(f"no {arg} to compare (predictors: {present})")
    overlap = sorted(set(humans) & set(models))
    if overlap:
        raise ValueError(f"predictors {overlap} are given both as humans and as models")
    return sorted(dict.fromkeys(humans)), sorted(dict.fromkeys(models))


def humans_vs_models(
    data: Scores | BootstrapResult,
    *,
    correction: Literal["holm", "bh", "none"],
    family: Literal["metric", "all"] = "metric",
    metrics: Sequence[str] | None = None,
    humans: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    mode: str = "default",
    method: Literal["percentile", "basic", "bca"] = "bca",
    unit: Literal["conversation", "participant"] = "conversation",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> HumansVsModelsResult:
    """Human raters vs models on identical conversations: paired bootstrap differences.

    One cluster bootstrap of the scores (:func:`attunestats.inference.bootstrap.bootstrap_scores`) gives
    every predictor's metric in every resample on shared conversation weights. The differences
    (each rater, and the mean of the raters, minus each model and minus the mean of the models)
    are contrasts of those labels, evaluated on the same resamples: paired by construction.

    Parameters
    ----------
    data : Scores or BootstrapResult
        Scores to bootstrap, or a bootstrap of scores to reuse (then ``humans`` is required and
        the bootstrap options below are ignored).
    correction : {"holm", "bh", "none"}
        Multiplicity correction, required and echoed in every row.
    family : {"metric", "all"}, default "metric"
        Family of the correction: the comparisons of one kind (:data:`COMPARISONS`) within one
        metric (e.g. the mean of humans against each of the M models: M tests), or of one kind
        across all metrics.
    metrics : sequence of str, optional
        Conversation-level metrics (default: the main metrics of spec section 5 present,
        pillars and composites included).
    humans, models : sequence of str, optional
        Default: predictors of kind ``"human"`` and ``"model"``.
    mode : str, default "default"
        Run mode compared.
    method, unit, n_resamples, confidence_level, rng
        Bootstrap options (see :func:`~attunestats.inference.bootstrap.bootstrap_scores`).

    Returns
    -------
    HumansVsModelsResult

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())                            # doctest: +SKIP
    >>> res = humans_vs_models(scores, correction="holm", n_resamples=2000, rng=1)  # doctest: +SKIP
    >>> res.by_metric[["metric", "difference", "ci_low", "ci_high", "share_models_beaten"]]  # doctest: +SKIP
    """
    from attunestats.inference.bootstrap import (
        BootstrapResult,
        bootstrap_scores,
        confidence_interval,
    )
    from attunestats.inference.compare import adjust_pvalues, bootstrap_pvalue
    from attunestats.metrics.registry import METRICS
    from attunestats.metrics.score import Scores

    correction = _check_correction(correction)
    family = _check_choice(family, "family", ("metric", "all"))  # type: ignore[assignment]
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string; got {mode!r}")
    if isinstance(data, BootstrapResult):
        boot = data
        kinds = None
        names = boot.labels.loc[boot.labels["mode"] == mode, "predictor"].astype(str).tolist()
        h, m = _split_predictors(kinds, names, humans, models)
    elif isinstance(data, Scores):
        kinds = dict(
            zip(data.predictors["predictor"].astype(str), data.predictors["kind"].astype(str))
        )
        conv = data.conversation
        names = conv.loc[conv["mode"] == mode, "predictor"].astype(str).unique().tolist()
        h, m = _split_predictors(kinds, names, humans, models)
        if metrics is None:
            metrics = _default_metrics(set(conv["metric"]))
        level = _check_level(confidence_level)
        boot = bootstrap_scores(
            data, metrics=metrics, predictors=h + m, unit=unit, method=method,
            n_resamples=n_resamples, confidence_level=level, rng=rng,
        )  # fmt: skip
    else:
        raise TypeError(f"data must be Scores or a BootstrapResult; got {type(data).__name__}")
    level = boot.confidence_level if isinstance(data, BootstrapResult) else level
    labels = boot.labels
    if "mode" not in labels.columns:
        labels = labels.assign(mode="default")
    have = list(dict.fromkeys(labels["metric"]))
    if metrics is None:
        metrics = have
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    missing = [x for x in metrics if x not in have]
    if missing:
        raise ValueError(f"metrics {missing} are not in the bootstrap; have {have}")
    jack_all = boot.jackknife_distribution
    rows = []
    for metric in metrics:
        sel = (labels["metric"] == metric) & (labels["mode"] == mode)
        pos = {p: i for p, i in zip(labels.loc[sel, "predictor"].astype(str), np.flatnonzero(sel))}
        absent = [p for p in h + m if p not in pos]
        if absent:
            raise ValueError(f"metric {metric!r} has no bootstrap label for predictors {absent}")
        ih = np.array([pos[p] for p in h])
        im = np.array([pos[p] for p in m])
        C, meta = _contrasts(ih, im, h, m, len(labels))
        pos_part, neg_part = np.clip(C, 0, None), np.clip(-C, 0, None)
        est_h, est_m = boot.estimate @ pos_part, boot.estimate @ neg_part
        d_est = boot.estimate @ C
        d_dist = boot.bootstrap_distribution @ C
        d_jack = jack_all @ C if jack_all is not None else None
        lo, hi, degenerate = confidence_interval(
            d_dist, d_est, method=boot.method, confidence_level=level, jackknife=d_jack
        )
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            se = np.nanstd(d_dist, axis=0, ddof=1)
        spec = METRICS.get(metric)
        frame = pd.DataFrame(
            {
                "metric": metric,
                "pillar": getattr(spec, "pillar", None),
                "capability": getattr(spec, "capability", None),
                "higher_is_better": getattr(spec, "higher_is_better", None),
                "comparison": [k for k, _, _ in meta],
                "human": [x for _, x, _ in meta],
                "model": [x for _, _, x in meta],
                "estimate_human": est_h,
                "estimate_model": est_m,
                "difference": d_est,
                "ci_low": lo,
                "ci_high": hi,
                "standard_error": se,
                "pvalue": bootstrap_pvalue(d_dist, d_est),
                "interval_method": np.where(degenerate, "percentile", boot.method),
            }
        )
        rows.append(frame)
    table = pd.concat(rows, ignore_index=True)
    groups = ["comparison"] if family == "all" else ["metric", "comparison"]
    table["pvalue_adjusted"] = np.nan
    for _, idx in table.groupby(groups, sort=False).groups.items():
        table.loc[idx, "pvalue_adjusted"] = adjust_pvalues(
            table.loc[idx, "pvalue"].to_numpy(dtype=float),
            method=correction,  # type: ignore[arg-type]
        )
    alpha = 1.0 - level
    table["significant"] = table["pvalue_adjusted"] < alpha
    hib = table["higher_is_better"]
    up = (hib == True).to_numpy()  # noqa: E712 - object column with None
    down = (hib == False).to_numpy()  # noqa: E712
    pos_d = (table["difference"] > 0).to_numpy()
    neg_d = (table["difference"] < 0).to_numpy()
    sig = table["significant"].to_numpy()
    table["human_better"] = sig & ((up & pos_d) | (down & neg_d))
    table["human_worse"] = sig & ((up & neg_d) | (down & pos_d))
    settings = {
        "correction": correction,
        "family": family,
        "method": boot.method,
        "confidence_level": level,
        "n_resamples": boot.n_resamples,
        "unit": boot.plan.unit,
        "seed": boot.seed,
        "simulated": bool(boot.simulated),
    }
    for key, value in settings.items():
        table[key] = pd.Series([value] * len(table), dtype=object) if key == "seed" else value
    by_metric = _by_metric(table, len(m))
    return HumansVsModelsResult(
        comparisons=table,
        by_metric=by_metric,
        humans=tuple(h),
        models=tuple(m),
        correction=correction,
        family=family,
        confidence_level=level,
        simulated=bool(boot.simulated),
        boot=boot,
    )


def _contrasts(
    ih: np.ndarray, im: np.ndarray, humans: Sequence[str], models: Sequence[str], n_labels: int
) -> tuple[np.ndarray, list[tuple[str, str, str]]]:
    """Contrast matrix (labels x comparisons) of every comparison kind, and its row labels."""
    columns: list[np.ndarray] = []
    meta: list[tuple[str, str, str]] = []

    def add(weights: Sequence[tuple[np.ndarray, float]], kind: str, human: str, model: str) -> None:
        c = np.zeros(n_labels)
        for idx, w in weights:
            c[idx] += w
        columns.append(c)
        meta.append((kind, human, model))

    hmean = (ih, 1.0 / len(ih))
    mmean = (im, -1.0 / len(im))
    for j, model in zip(im, models, strict=True):
        add([hmean, (np.array([j]), -1.0)], COMPARISONS[0], HUMAN_MEAN, model)
    for i, human in zip(ih, humans, strict=True):
        for j, model in zip(im, models, strict=True):
            add([(np.array([i]), 1.0), (np.array([j]), -1.0)], COMPARISONS[1], human, model)
    for i, human in zip(ih, humans, strict=True):
        add([(np.array([i]), 1.0), mmean], COMPARISONS[2], human, MODEL_MEAN)
    add([hmean, mmean], COMPARISONS[3], HUMAN_MEAN, MODEL_MEAN)
    return np.column_stack(columns), meta


def _by_metric(table: pd.DataFrame, n_models: int) -> pd.DataFrame:
    out = []
    for metric, sub in table.groupby("metric", sort=False):
        mm = sub.loc[sub["comparison"] == "human_mean - model_mean"].iloc[0]
        per = sub.loc[sub["comparison"] == "human_mean - model"]
        beaten, better = int(per["human_better"].sum()), int(per["human_worse"].sum())
        out.append(
            {
                "metric": metric,
                "pillar": mm["pillar"],
                "capability": mm["capability"],
                "higher_is_better": mm["higher_is_better"],
                "human_mean": mm["estimate_human"],
                "model_mean": mm["estimate_model"],
                "difference": mm["difference"],
                "ci_low": mm["ci_low"],
                "ci_high": mm["ci_high"],
                "standard_error": mm["standard_error"],
                "pvalue": mm["pvalue"],
                "pvalue_adjusted": mm["pvalue_adjusted"],
                "significant": mm["significant"],
                "n_models": n_models,
                "n_models_beaten": beaten,
                "share_models_beaten": beaten / n_models,
                "n_models_better": better,
                "share_models_better": better / n_models,
                **{k: mm[k] for k in ("correction", "family", "method", "confidence_level",
                                      "n_resamples", "unit", "seed", "simulated")},
            }
        )  # fmt: skip
    return pd.DataFrame(out)
