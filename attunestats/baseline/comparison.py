"""Human raters against models, on common ground, for the population of participants.

:func:`humans_vs_models` compares every human rater (and the mean of the raters) with every
model (and the mean of the models), per metric.

Ground (``ground=``)
--------------------
``"common"`` (default)
    Each rater is compared with the models on the units that rater rated
    (:func:`attunestats.baseline.common_ground`, rule
    :data:`~attunestats.baseline.ground.COMMON_GROUND_RULE`):
    the rater's conversations, turns, answered binary judgements, selected pairwise comparisons
    and, for conversation-level metrics, the conversations where the rater gave the predictions.
    The release is restricted to those units and scored once per rater (the rater and the
    models), so a model that answers exactly like the rater wherever the rater answered differs
    from the rater by exactly 0 on every metric and on the composite. The "mean of humans"
    comparisons are the average over raters of the per-rater common-ground differences
    (``human_mean - model`` = mean over raters ``r`` of ``r - model`` on ``r``'s ground); their
    human and model estimates are the averages of the per-rater ones. This needs the Release
    (scores alone do not know which units a rater rated).
``"all"``
    Every predictor on all of its units, as the official scorer reports it (a rater's missing
    answers scored as the scorer reads them). Labelled ``ground="all"`` in every row.

Estimand (``estimand=``)
------------------------
``"participants"`` (default)
    The population of participants: all statistics of all grounds are evaluated together by the
    participant-level inference of :func:`attunestats.inference.participants.participant_inference`
    (delete-one-participant jackknife, t intervals with the working-model Satterthwaite df; or
    ``method="cr2"``). Every difference is a linear contrast of those statistics, so it keeps the
    pairing of participants and conversations (the rater's grounds share the participants).
``"these-participants"``
    The conditional analysis: conversations resampled (the conversation bootstrap of
    :func:`attunestats.inference.bootstrap.run_bootstrap`), studentized symmetric intervals and
    p-values from the same draws (:func:`attunestats.inference.contrasts.bootstrap_family`).

Multiplicity and effect sizes
-----------------------------
The correction is required (``"maxt"``, ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``;
:mod:`attunestats.inference.multiplicity`) and applies within each family: the comparisons of one
kind (:data:`COMPARISONS`) within one metric (``family="metric"``) or of one kind across the
metrics (``family="all"``). Intervals are adjusted the same way as the tests (column
``interval``, level ``interval_level``), so an interval excludes 0 exactly when the adjusted
p-value is below ``1 - confidence_level``. Each row carries the difference in the metric's units,
in composite points (``composite_points``) and a standardized effect at the participant level
(``standardized_effect``), each with an interval, as in :func:`attunestats.compare_models`.

Everything computed from a simulated release carries ``simulated=True``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.baseline._checks import _check_choice, _check_correction, _check_level

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

__all__ = ["COMPARISONS", "ESTIMANDS", "GROUNDS", "HumansVsModelsResult", "humans_vs_models"]

#: Comparison kinds of :func:`humans_vs_models`, in table order.
COMPARISONS = (
    "human_mean - model",
    "human - model",
    "human - model_mean",
    "human_mean - model_mean",
)
HUMAN_MEAN = "mean of humans"
MODEL_MEAN = "mean of models"
#: Grounds of the comparison and what each means.
GROUNDS: Mapping[str, str] = {
    "common": "common ground: each rater and the models on the units that rater rated",
    "all": "all units: every predictor on all of its units (missing answers scored as the scorer "
    "reads them)",
}
#: Estimand keys (``estimand=``).
ESTIMANDS = ("participants", "these-participants")
_COUNT_COLUMNS = (
    "n_conversations", "n_turns", "n_binary_judgements", "n_pairwise_comparisons",
)  # fmt: skip
_SETTINGS = (
    "ground", "correction", "family", "interval", "method", "estimand", "confidence_level",
    "n_units", "unit", "n_resamples", "seed", "simulated",
)  # fmt: skip


@dataclass(frozen=True, repr=False)
class HumansVsModelsResult(ResultMixin):
    """Differences between human raters and models, per metric.

    Attributes
    ----------
    comparisons : pandas.DataFrame
        One row per metric and comparison: ``comparison`` (one of :data:`COMPARISONS`),
        ``human`` (a rater, or ``"mean of humans"``), ``model`` (a model, or ``"mean of
        models"``), ``ground`` (``"common"`` or ``"all"``), ``estimate_human``,
        ``estimate_model``, ``difference`` (human minus model), ``ci_low``, ``ci_high`` (adjusted
        like the tests: ``interval``, ``interval_level``), ``standard_error``, ``df``,
        ``pvalue`` (unadjusted), ``pvalue_adjusted``, ``significant`` (adjusted p below
        ``1 - confidence_level``), ``human_better`` / ``human_worse`` (significant and in the
        metric's better / worse direction; both False for metrics without a direction), the
        effect sizes (``composite_points`` and ``standardized_effect`` with ``_low`` / ``_high``),
        the units compared (``n_conversations``, ``n_turns``, ``n_binary_judgements``,
        ``n_pairwise_comparisons`` of the ground, summed over the raters in "mean of humans"
        rows; ``n_conversations_metric``: conversations where the metric is compared), the metric's
        ``pillar``, ``capability`` and ``higher_is_better``, and the settings (``correction``,
        ``family``, ``method``, ``estimand``, ``confidence_level``, ``n_units``, ``unit``,
        ``n_resamples``, ``seed``, ``simulated``).
    by_metric : pandas.DataFrame
        One row per metric (what ``summary()`` prints): ``human_mean``, ``model_mean``,
        ``difference`` (= mean of humans minus mean of models) with interval and p-values,
        ``n_models``, ``n_models_beaten`` (models the mean of humans beats significantly after
        correction), ``share_models_beaten``, ``n_models_better`` (models significantly better
        than the mean of humans), ``share_models_better``.
    grounds : pandas.DataFrame
        One row per rater: the counts of :class:`~attunestats.baseline.ground.CommonGround`
        (common ground) or of all the rater's units (``ground="all"``).
    source : ScoreInference or BootstrapResult
        The one inference every number comes from (labels ``ground``, ``predictor``, ``mode``,
        ``metric``).
    """

    _title = "Human raters against models"
    _summary_columns = (
        "metric", "human_mean", "model_mean", "difference", "ci_low", "ci_high",
        "pvalue_adjusted", "n_models_beaten", "n_models_better",
    )  # fmt: skip

    comparisons: pd.DataFrame
    by_metric: pd.DataFrame
    grounds: pd.DataFrame
    humans: tuple[str, ...]
    models: tuple[str, ...]
    ground: str
    correction: str
    family: str
    confidence_level: float
    estimand_key: str
    method: str
    simulated: bool
    seed: int | str | None = None
    source: Any = field(repr=False, default=None)

    @property
    def boot(self) -> Any:
        """The inference the comparisons come from (alias of :attr:`source`)."""
        return self.source

    @property
    def estimand(self) -> str:
        from attunestats.inference.participants import ESTIMANDS as WORDS

        return f"{WORDS[self.estimand_key]}; {GROUNDS[self.ground]}"

    def to_frame(self) -> pd.DataFrame:
        """The comparison table (a copy)."""
        return self.comparisons.copy()

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        frame = self.by_metric[[c for c in self._summary_columns if c in self.by_metric]]
        meta = self._summary_meta()
        meta["Ground"] = GROUNDS[self.ground]
        if not self.comparisons.empty:
            first = self.comparisons.iloc[0]
            meta["Intervals"] = str(first["interval"])
            meta["Units"] = f"{int(first['n_units'])} {first['unit']}"
        meta["Family"] = (
            "the comparisons of one kind within one metric" if self.family == "metric"
            else "the comparisons of one kind across all metrics"
        )  # fmt: skip
        meta["Humans"] = ", ".join(self.humans)
        meta["Models"] = f"{len(self.models)}"
        notes = [
            "one row per metric: mean of humans minus mean of models; n_models_beaten / "
            "n_models_better count the models the mean of humans is significantly better / worse "
            "than after correction; to_frame() has every comparison.",
        ]
        if self.ground == "common":
            from attunestats.baseline.ground import COMMON_GROUND_RULE

            counts = ", ".join(
                f"{r.rater}: {r.n_conversations} conversations, {r.n_turns} turns, "
                f"{r.n_binary_judgements} judgements, {r.n_pairwise_comparisons} comparisons"
                for r in self.grounds.itertuples()
            )
            notes += [
                f"common ground per rater: {counts}.",
                "'mean of humans' rows average the per-rater common-ground differences.",
                f"rule: {COMMON_GROUND_RULE}",
            ]
        return self._title, meta, frame, notes


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------
def _default_metrics(available: set[str]) -> list[str]:
    from attunestats.metrics.registry import MAIN_METRICS, METRICS

    return [m for m in MAIN_METRICS if m in available and METRICS[m].level == "conversation"]


def _split_predictors(
    kinds: Mapping[str, str],
    present: Sequence[str],
    humans: Sequence[str] | str | None,
    models: Sequence[str] | str | None,
) -> tuple[list[str], list[str]]:
    present = sorted(set(present))
    if humans is None:
        humans = [p for p in present if kinds.get(p) == "human"]
    else:
        humans = [humans] if isinstance(humans, str) else list(humans)
    if models is None:
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


def _inputs(data: Any, release: Any, ground: str) -> tuple[Any, Any]:
    """(release or None, scores or None) from ``data`` and ``release=``."""
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

    if isinstance(data, Release):
        if release is not None and release is not data:
            raise ValueError("data is a Release; do not pass another one as release=")
        return data, None
    if isinstance(data, Scores):
        if release is not None and not isinstance(release, Release):
            raise TypeError(f"release must be an attunestats Release; got {type(release).__name__}")
        if release is None and ground == "common":
            raise ValueError(
                "humans_vs_models on common ground needs the Release: Scores alone do not record "
                "which conversations, turns, judgements and comparisons each rater rated. Pass "
                "the Release as data (it is scored here) or as release=, or ask for "
                "ground='all' (every predictor on all of its units)"
            )
        return release, data
    raise TypeError(
        f"data must be a Release (scored here) or Scores (with release=); got {type(data).__name__}"
    )


# --------------------------------------------------------------------------------------------
# the statistics of every ground, and one inference over all of them
# --------------------------------------------------------------------------------------------
def _ground_counts_all(release: Any, scores: Any, rater: str, mode: str) -> dict[str, Any]:
    """Units of a rater on all units: its runs' conversations and turns, and their ground truth
    (judgements scored in some task, comparisons); from the scores when there is no release
    (judgements then unknown)."""
    from attunestats.baseline.annotations import _binary_references

    if release is None:
        turn = scores.turn
        turns = turn.loc[(turn["predictor"] == rater) & (turn["mode"] == mode),
                         ["conversation_id", "turn"]].drop_duplicates()  # fmt: skip
        comp = scores.comparisons
        return {
            "n_conversations": int(turns["conversation_id"].nunique()),
            "n_turns": len(turns),
            "n_binary_judgements": pd.NA,
            "n_pairwise_comparisons": int(((comp["predictor"] == rater)
                                           & (comp["mode"] == mode)).sum()),
        }  # fmt: skip
    t = release.tables
    runs = t["runs"]
    convs = runs.loc[(runs["predictor"] == rater) & (runs["mode"] == mode), "conversation_id"]
    pt = t["pred_turns"]
    turns = pt.loc[(pt["predictor"] == rater) & (pt["mode"] == mode), ["conversation_id", "turn"]]
    turns = turns.drop_duplicates()
    refs = _binary_references(release)[["conversation_id", "turn", "question_id"]]
    refs = refs.drop_duplicates().merge(turns, on=["conversation_id", "turn"])
    pc = t["pairwise_comparisons"].merge(turns, on=["conversation_id", "turn"])
    return {
        "n_conversations": int(convs.nunique()),
        "n_turns": len(turns),
        "n_binary_judgements": len(refs),
        "n_pairwise_comparisons": len(pc),
    }


def _statistics(
    release: Any,
    scores: Any,
    *,
    ground: str,
    humans: Sequence[str] | str | None,
    models: Sequence[str] | str | None,
    metrics: Sequence[str] | None,
    mode: str,
) -> tuple[Any, pd.DataFrame, list[str], list[str], list[str], pd.DataFrame, dict, bool]:
    """The stacked SumStatistic of every ground (labels ``ground``, predictor, mode, metric)."""
    from attunestats.baseline.ground import common_ground
    from attunestats.inference.sums import concat_statistics, scores_statistic
    from attunestats.metrics.score import score

    if scores is None:
        scores = score(release)
    kinds = dict(
        zip(scores.predictors["predictor"].astype(str), scores.predictors["kind"].astype(str),
            strict=True)
    )  # fmt: skip
    conv = scores.conversation
    present = conv.loc[conv["mode"] == mode, "predictor"].astype(str).unique().tolist()
    if not present:
        modes = sorted(conv["mode"].astype(str).unique())
        raise ValueError(f"mode={mode!r} has no scores; modes: {modes}")
    h, m = _split_predictors(kinds, present, humans, models)
    if metrics is None:
        metrics = _default_metrics(set(conv["metric"]))
    metrics = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    have = set(conv["metric"])
    missing = [x for x in metrics if x not in have]
    if missing:
        raise ValueError(f"metrics {missing} are not in the scores")
    parts, counts, metric_n = [], [], {}
    design = None
    if ground == "all":
        stat, design = scores_statistic(scores, metrics=metrics, predictors=h + m)
        stat = replace(stat, labels=stat.labels.assign(ground="all"))
        parts.append(stat)
        for r in h:
            counts.append({"rater": r, **_ground_counts_all(release, scores, r, mode)})
        metric_n["all"] = _metric_conversations(scores, h + m, mode)
    else:
        options = scores.options
        for r in h:
            cg = common_ground(release, r, models=m, mode=mode)
            scores_r = cg.score(options=options)
            stat, design_r = scores_statistic(scores_r, metrics=metrics, predictors=[r, *m])
            if design is None:
                design = design_r
            elif not design["conversation_id"].equals(design_r["conversation_id"]):
                raise RuntimeError("internal: the raters' grounds have different designs")
            parts.append(replace(stat, labels=stat.labels.assign(ground=r)))
            counts.append({"rater": r, **dict(cg.counts)})
            metric_n[r] = _metric_conversations(scores_r, [r], mode)
    statistic = concat_statistics(parts)
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    return statistic, design, h, m, metrics, pd.DataFrame(counts), metric_n, simulated


def _metric_conversations(scores: Any, predictors: Sequence[str], mode: str) -> dict:
    """(predictor, metric) -> number of conversations where the metric has a value."""
    conv = scores.conversation
    sub = conv.loc[conv["predictor"].isin(list(predictors)) & (conv["mode"] == mode)]
    n = sub.loc[sub["value"].notna()].groupby(["predictor", "metric"]).size()
    runs = sub.groupby("predictor")["conversation_id"].nunique()
    return {"n": n.to_dict(), "runs": runs.to_dict()}


def _contrast_matrices(
    labels: pd.DataFrame, metric: str, humans: Sequence[str], models: Sequence[str],
    ground: str, mode: str,
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, str, str]]]:  # fmt: skip
    """Human-side and model-side weights (labels x comparisons) of every comparison kind."""
    pos = {
        (g, p): i
        for i, (g, p, md, mt) in enumerate(
            zip(labels["ground"], labels["predictor"], labels["mode"], labels["metric"],
                strict=True)
        )
        if mt == metric and md == mode
    }  # fmt: skip

    def idx(r: str, p: str) -> int:
        g = r if ground == "common" else "all"
        if (g, p) not in pos:
            raise ValueError(
                f"metric {metric!r} has no statistic for predictor {p!r} (ground {g!r})"
            )
        return pos[(g, p)]

    n_labels, n_h, n_m = len(labels), len(humans), len(models)
    wh_cols, wm_cols, meta = [], [], []

    def add(h_terms: list[tuple[int, float]], m_terms: list[tuple[int, float]], kind: str,
            human: str, model: str) -> None:  # fmt: skip
        wh, wm = np.zeros(n_labels), np.zeros(n_labels)
        for i, w in h_terms:
            wh[i] += w
        for i, w in m_terms:
            wm[i] += w
        wh_cols.append(wh)
        wm_cols.append(wm)
        meta.append((kind, human, model))

    for mdl in models:
        add([(idx(r, r), 1.0 / n_h) for r in humans], [(idx(r, mdl), 1.0 / n_h) for r in humans],
            COMPARISONS[0], HUMAN_MEAN, mdl)  # fmt: skip
    for r in humans:
        for mdl in models:
            add([(idx(r, r), 1.0)], [(idx(r, mdl), 1.0)], COMPARISONS[1], r, mdl)
    for r in humans:
        add([(idx(r, r), 1.0)], [(idx(r, mdl), 1.0 / n_m) for mdl in models], COMPARISONS[2], r,
            MODEL_MEAN)  # fmt: skip
    add([(idx(r, r), 1.0 / n_h) for r in humans],
        [(idx(r, mdl), 1.0 / (n_h * n_m)) for r in humans for mdl in models],
        COMPARISONS[3], HUMAN_MEAN, MODEL_MEAN)  # fmt: skip
    return np.column_stack(wh_cols), np.column_stack(wm_cols), meta


# --------------------------------------------------------------------------------------------
# main entry
# --------------------------------------------------------------------------------------------
def humans_vs_models(
    data: Release | Scores,
    *,
    correction: Literal["maxt", "holm", "bonferroni", "bh", "none"],
    release: Release | None = None,
    ground: Literal["common", "all"] = "common",
    estimand: Literal["participants", "these-participants"] = "participants",
    family: Literal["metric", "all"] = "metric",
    metrics: Sequence[str] | None = None,
    humans: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    mode: str = "default",
    method: Literal["jackknife", "cr2"] = "jackknife",
    n_resamples: int = 10_000,
    n_draws: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> HumansVsModelsResult:
    """Human raters vs models, on common ground, for the population of participants.

    See the module docstring for the ground, the estimand, the families and the effect sizes.

    Parameters
    ----------
    data : Release or Scores
        A Release (scored here), or its Scores with ``release=`` (the Release is needed for the
        common ground; with ``ground="all"`` Scores alone suffice).
    correction : {"maxt", "holm", "bonferroni", "bh", "none"}
        Multiplicity correction of tests *and* intervals; required, echoed in every row.
    release : Release, optional
        The Release ``data`` (Scores) was scored from.
    ground : {"common", "all"}, default "common"
        Each rater on the units they rated, or every predictor on all of its units.
    estimand : {"participants", "these-participants"}, default "participants"
        Population of participants (participant jackknife, t), or the conditional conversation
        bootstrap.
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
    method : {"jackknife", "cr2"}, default "jackknife"
        Participant-level method (``estimand="participants"``).
    n_resamples : int, default 10000
        Conversation resamples (``estimand="these-participants"``).
    n_draws : int, default 10000
        Draws of the joint null law for ``correction="maxt"``.
    confidence_level : float, default 0.95
    rng : int, Generator or SeedSequence, optional
        Seed of the bootstrap and of the max-|t| draws.

    Returns
    -------
    HumansVsModelsResult

    Examples
    --------
    >>> import attunestats as at
    >>> release = at.load_bundled_release()
    >>> res = at.humans_vs_models(release, correction="holm", metrics=["avg_pairwise_accuracy"],
    ...                           n_draws=1000, rng=1)
    >>> res.grounds[["rater", "n_conversations", "n_turns"]]  # the common ground of each rater
             rater  n_conversations  n_turns
    0  sim-human-1              200     1412
    1  sim-human-2              200     1415
    2  sim-human-3              200     1409
    >>> res.by_metric[["metric", "difference", "ci_low", "ci_high", "share_models_beaten"]]  # doctest: +SKIP
    """
    correction = _check_correction(correction)
    ground = _check_choice(ground, "ground", tuple(GROUNDS))
    estimand = _check_choice(estimand, "estimand", ESTIMANDS)
    family = _check_choice(family, "family", ("metric", "all"))
    method = _check_choice(method, "method", ("jackknife", "cr2"))
    level = _check_level(confidence_level)
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string; got {mode!r}")
    for name, value, minimum in (("n_resamples", n_resamples, 2), ("n_draws", n_draws, 100)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    generator = check_rng(rng)
    rel, scores = _inputs(data, release, ground)
    statistic, design, h, m, metrics, grounds, metric_n, simulated = _statistics(
        rel, scores, ground=ground, humans=humans, models=models, metrics=metrics, mode=mode
    )
    from attunestats.inference.contrasts import (
        adjust_family,
        bootstrap_family,
        joint_abs_t,
        participant_family,
        standardized_effect,
    )
    from attunestats.inference.participants import _nan_matmul
    from attunestats.metrics.composite import composite_points_per_unit
    from attunestats.metrics.registry import METRICS

    if estimand == "participants":
        from attunestats.inference.participants import participant_inference

        source = participant_inference(statistic, design, method=method, confidence_level=level,
                                       simulated=simulated)  # fmt: skip
        method_words = {"jackknife": "participant jackknife, t tests (working-model "
                        "Satterthwaite df)", "cr2": "CR2, t tests (working-model Satterthwaite "
                        "df)"}[method]  # fmt: skip
        n_res = None
    else:
        from attunestats.inference.bootstrap import ResamplingPlan, run_bootstrap

        source = run_bootstrap(statistic, design, plan=ResamplingPlan("conversation"),
                               method="percentile", n_resamples=int(n_resamples),
                               confidence_level=level, rng=generator, simulated=simulated)  # fmt: skip
        method_words = "conversation bootstrap, studentized symmetric"
        n_res = int(n_resamples)
    labels = source.labels

    blocks = []
    for metric in metrics:
        wh, wm, meta = _contrast_matrices(labels, metric, h, m, ground, mode)
        blocks.append((metric, wh, wm, meta))
    w_all = np.hstack([wh - wm for _, wh, wm, _ in blocks])
    fam_all = (participant_family(source, w_all) if estimand == "participants"
               else bootstrap_family(source, w_all))  # fmt: skip
    est = source.estimate
    rows = []
    offset = 0
    for metric, wh, wm, meta in blocks:
        k = wh.shape[1]
        spec = METRICS.get(metric)
        frame = pd.DataFrame({
            "metric": metric,
            "pillar": getattr(spec, "pillar", None),
            "capability": getattr(spec, "capability", None),
            "higher_is_better": getattr(spec, "higher_is_better", None),
            "comparison": [x for x, _, _ in meta],
            "human": [x for _, x, _ in meta],
            "model": [x for _, _, x in meta],
            # only the statistics each row uses: a NaN elsewhere must not spread to every row
            "estimate_human": _nan_matmul(est[None, :], wh)[0],
            "estimate_model": _nan_matmul(est[None, :], wm)[0],
            "_col": np.arange(offset, offset + k),
        })  # fmt: skip
        rows.append(frame)
        offset += k
    table = pd.concat(rows, ignore_index=True)
    table.insert(7, "ground", ground)
    groups = ["comparison"] if family == "all" else ["metric", "comparison"]
    n_rows = len(table)
    out = {c: np.full(n_rows, np.nan) for c in (
        "difference", "ci_low", "ci_high", "standard_error", "df", "pvalue", "pvalue_adjusted",
        "interval_level", "standardized_effect", "standardized_effect_low",
        "standardized_effect_high")}  # fmt: skip
    interval = np.empty(n_rows, dtype=object)
    for _, idx in table.groupby(groups, sort=False).groups.items():
        rows_ = np.asarray(idx)
        cols = table.loc[rows_, "_col"].to_numpy()
        fam = fam_all.subset(cols)
        abs_t = (joint_abs_t(fam, n_draws=int(n_draws), rng=generator)
                 if correction == "maxt" else None)  # fmt: skip
        adj = adjust_family(fam, correction=correction, confidence_level=level, abs_t=abs_t)
        # max-|t| refers every row to one t law (the family's smallest df): the standardized
        # effect's interval must use the same df to exclude 0 exactly when the difference's does
        fam_d = (replace(fam, df=np.full(fam.df.shape, np.nanmin(fam.df)))
                 if correction == "maxt" and fam.source == "participants" and len(fam.df)
                 else fam)  # fmt: skip
        with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 for a zero-spread row
            d, d_low, d_high = standardized_effect(
                fam_d, adj.row_alpha,
                critical_value=None if fam.source == "participants" else adj.critical_value,
            )  # fmt: skip
        p_adj = np.asarray(adj.pvalue_adjusted, dtype=float)
        # a difference that is exactly 0 with no spread (e.g. a model identical to the rater on
        # its ground): t = 0/0, but the test cannot reject; its adjusted p-value is 1
        flat = (fam.standard_error == 0) & (fam.estimate == 0)
        p_adj = np.where(flat & np.isnan(p_adj), 1.0, p_adj)
        out["difference"][rows_] = fam.estimate
        out["ci_low"][rows_] = adj.ci_low
        out["ci_high"][rows_] = adj.ci_high
        out["standard_error"][rows_] = fam.standard_error
        out["df"][rows_] = fam.df
        out["pvalue"][rows_] = fam.pvalue
        out["pvalue_adjusted"][rows_] = p_adj
        out["interval_level"][rows_] = 1.0 - adj.row_alpha
        out["standardized_effect"][rows_] = d
        out["standardized_effect_low"][rows_] = d_low
        out["standardized_effect_high"][rows_] = d_high
        interval[rows_] = adj.interval_kind
    for key in ("difference", "ci_low", "ci_high", "standard_error", "df", "pvalue",
                "pvalue_adjusted", "interval_level"):  # fmt: skip
        table[key] = out[key]
    points = np.array([composite_points_per_unit(x) for x in table["metric"]])
    table["composite_points"] = table["difference"] * points
    table["composite_points_low"] = table["ci_low"] * points
    table["composite_points_high"] = table["ci_high"] * points
    for key in ("standardized_effect", "standardized_effect_low", "standardized_effect_high"):
        table[key] = out[key]
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
    _add_counts(table, grounds, metric_n, h, ground)
    table["interval"] = interval
    settings = {
        "correction": correction, "family": family, "method": method_words,
        "estimand": estimand, "confidence_level": level, "n_units": fam_all.n_units,
        "unit": fam_all.unit, "n_resamples": n_res, "seed": seed_record(rng),
        "simulated": simulated,
    }  # fmt: skip
    for key, value in settings.items():
        table[key] = (pd.Series([value] * n_rows, dtype=object)
                      if key in ("seed", "n_resamples") else value)  # fmt: skip
    table = table.drop(columns="_col")
    by_metric = _by_metric(table, len(m))
    return HumansVsModelsResult(
        comparisons=table,
        by_metric=by_metric,
        grounds=grounds,
        humans=tuple(h),
        models=tuple(m),
        ground=ground,
        correction=correction,
        family=family,
        confidence_level=level,
        estimand_key=estimand,
        method=method_words,
        simulated=simulated,
        seed=seed_record(rng),
        source=source,
    )


def _add_counts(table: pd.DataFrame, grounds: pd.DataFrame, metric_n: dict,
                humans: Sequence[str], ground: str) -> None:  # fmt: skip
    """Units of the ground in every row (summed over raters for the mean of humans)."""
    from attunestats.metrics.registry import METRICS

    per = grounds.set_index("rater")
    for col in _COUNT_COLUMNS:
        values = pd.array(per[col].tolist(), dtype="Int64")
        lookup = dict(zip(per.index, values, strict=True))
        total = values.sum(skipna=False)
        table[col] = pd.array(
            [total if hu == HUMAN_MEAN else lookup[hu] for hu in table["human"]], dtype="Int64"
        )

    def n_metric(rater: str, metric: str) -> int:
        info = metric_n["all" if ground == "all" else rater]
        spec = METRICS.get(metric)
        if spec is not None and spec.aggregation == "pooled":
            return int(info["runs"].get(rater, 0))
        return int(info["n"].get((rater, metric), 0))

    table["n_conversations_metric"] = [
        sum(n_metric(r, mt) for r in humans) if hu == HUMAN_MEAN else n_metric(hu, mt)
        for hu, mt in zip(table["human"], table["metric"], strict=True)
    ]


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
                "interval_level": mm["interval_level"],
                "standard_error": mm["standard_error"],
                "df": mm["df"],
                "pvalue": mm["pvalue"],
                "pvalue_adjusted": mm["pvalue_adjusted"],
                "significant": mm["significant"],
                "composite_points": mm["composite_points"],
                "standardized_effect": mm["standardized_effect"],
                "n_models": n_models,
                "n_models_beaten": beaten,
                "share_models_beaten": beaten / n_models,
                "n_models_better": better,
                "share_models_better": better / n_models,
                **{k: mm[k] for k in (*_COUNT_COLUMNS, "n_conversations_metric", *_SETTINGS)},
            }
        )  # fmt: skip
    return pd.DataFrame(out)
