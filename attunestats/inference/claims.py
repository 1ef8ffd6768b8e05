"""The paper's claims as explicit tests, each with an effect size, an interval and a verdict.

Claims (spec section 0):

(a) model rankings on emotion recognition, behaviour classification, preference prediction and
    response quality are largely independent;
(b) preference alignment and response-quality judgements discriminate between models far more than
    emotion-label F1;
(c) models track the affect of participants reporting anxiety/depression worse than that of
    participants with no diagnosis, while classifying behaviour for them more accurately;
(d) romantic relationships is the hardest topic for nearly every model;
(e) behaviour metrics (binary OM accuracy) degrade from early to late turns while affect inference
    stays stable;
(f) a human baseline beats most models at predicting preferences but is weak at predicting
    conversation goals;
(g) models strong on holistic (conversation-level) understanding are weak on turn-level metrics and
    vice versa.

Each claim function returns a :class:`ClaimResult`: the effect (with its definition), an interval,
a p-value corrected within the claim (Holm over the claim's sub-tests) or a posterior probability,
the verdict (``"supported"``, ``"contradicted"`` or ``"inconclusive"``) and the verdict rule in
words. Claims are about the *evaluated models* (``kind == "model"``) except (f). Everything
computed from a simulated release is labelled simulated; a verdict on simulated data is a check of
the method against what the simulator planted, not a finding about real models.

Verdict rules are deliberately strict: "supported" needs every part of a claim to be shown at
``1 - confidence_level``; "contradicted" needs some part to be shown in the opposite direction;
anything else is "inconclusive" (which, with 11 models or 4 participants per group, is often the
honest answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, child_seed, root_seed, seed_record
from attunestats.inference.bootstrap import (
    ResamplingPlan,
    SumStatistic,
    bootstrap_scores,
    confidence_interval,
    run_bootstrap,
)
from attunestats.inference.compare import adjust_pvalues, bootstrap_pvalue, compare_models

Verdict = Literal["supported", "contradicted", "inconclusive"]

CLAIMS = {
    "a": "model rankings on emotion recognition, behaviour classification, preference prediction "
    "and response quality are largely independent",
    "b": "preference alignment and response-quality judgements discriminate between models far "
    "more than emotion-label F1",
    "c": "models track the affect of participants reporting anxiety/depression worse than that of "
    "participants with no diagnosis, while classifying behaviour for them more accurately",
    "d": "romantic relationships is the hardest topic for nearly every model",
    "e": "behaviour metrics (binary OM accuracy) degrade from early to late turns while affect "
    "inference stays stable",
    "f": "a human baseline beats most models at predicting preferences but is weak at predicting "
    "conversation goals",
    "g": "models strong on holistic (conversation-level) understanding are weak on turn-level "
    "metrics and vice versa",
}


@dataclass(frozen=True, repr=False)
class ClaimResult(ResultMixin):
    """One claim tested: effect, interval, corrected p-value or posterior probability, verdict."""

    _title = "Claim of the paper, tested"

    claim: str
    statement: str
    effect: str
    estimate: float
    ci_low: float
    ci_high: float
    pvalue: float | None
    posterior_probability: float | None
    verdict: Verdict
    rule: str
    method: str
    confidence_level: float
    simulated: bool
    seed: int | str | None = None
    details: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    def to_frame(self) -> pd.DataFrame:
        """One row: the claim and its test."""
        row = {k: getattr(self, k) for k in (
            "claim", "statement", "effect", "estimate", "ci_low", "ci_high", "pvalue",
            "posterior_probability", "verdict", "rule", "method", "confidence_level", "simulated",
        )}  # fmt: skip
        row["seed"] = self.seed
        return pd.DataFrame([row])


@dataclass(frozen=True, repr=False)
class ClaimsAudit(ResultMixin):
    """Every claim tested on one release."""

    _title = "Audit of the paper's claims"

    results: tuple[ClaimResult, ...]

    def to_frame(self) -> pd.DataFrame:
        """One row per claim."""
        return pd.concat([r.to_frame() for r in self.results], ignore_index=True)

    def details(self) -> pd.DataFrame:
        """The sub-tests of every claim, stacked with a ``claim`` column."""
        frames = [r.details.assign(claim=r.claim) for r in self.results if not r.details.empty]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def __getitem__(self, claim: str) -> ClaimResult:
        for r in self.results:
            if r.claim == claim:
                return r
        raise KeyError(f"claim {claim!r} not in this audit; have {[r.claim for r in self.results]}")


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _models(scores: Any) -> list[str]:
    models = scores.names("model") if (scores.predictors["kind"] == "model").any() else []
    if len(models) < 2:
        raise ValueError(f"the claims are about evaluated models; found {len(models)} (need >= 2)")
    return models


def _simulated(scores: Any) -> bool:
    return bool(getattr(scores, "release_info", {}).get("simulated", False))


def _model_average(
    scores: Any, metrics: Sequence[str], weights: Sequence[float] | None = None
) -> pd.Series:
    """Per conversation: mean over evaluated models of a weighted sum of conversation metrics."""
    models = _models(scores)
    conv = scores.conversation
    sub = conv[conv["predictor"].isin(models) & conv["metric"].isin(list(metrics))]
    missing = sorted(set(metrics) - set(sub["metric"]))
    if missing:
        raise ValueError(f"metrics {missing} are not in the scores")
    wide = sub.pivot_table(
        index=["conversation_id", "predictor"], columns="metric", values="value", aggfunc="mean"
    )
    w = (
        np.ones(len(metrics)) / len(metrics)
        if weights is None
        else np.asarray(weights, dtype=float)
    )
    combined = (wide[list(metrics)] * w).sum(axis=1, min_count=len(metrics))
    return combined.groupby(level="conversation_id").mean()


def _contrast_statistic(
    outcomes: pd.DataFrame, group: pd.Series, level_a: str, level_b: str
) -> SumStatistic:
    """Difference of group means (a - b) of each outcome column, null-aware, as sums."""
    cols = []
    names = list(outcomes.columns)
    for name in names:
        y = outcomes[name].to_numpy(dtype=float)
        ok = ~np.isnan(y)
        ya = np.where(ok & (group == level_a).to_numpy(), np.nan_to_num(y), 0.0)
        na = (ok & (group == level_a).to_numpy()).astype(float)
        yb = np.where(ok & (group == level_b).to_numpy(), np.nan_to_num(y), 0.0)
        nb = (ok & (group == level_b).to_numpy()).astype(float)
        cols += [ya, na, yb, nb]
    X = np.column_stack(cols)

    def finalize(sums: np.ndarray) -> np.ndarray:
        out = np.empty((sums.shape[0], len(names)))
        for k in range(len(names)):
            s = sums[:, 4 * k : 4 * k + 4]
            out[:, k] = s[:, 0] / s[:, 1] - s[:, 2] / s[:, 3]
        return out

    return SumStatistic(X, finalize, pd.DataFrame({"outcome": names}))


def _verdict_from_tests(
    directions: Sequence[int], low: np.ndarray, high: np.ndarray, adjusted: np.ndarray, alpha: float
) -> Verdict:
    """Supported: every sub-test significant in its claimed direction; contradicted: one significant
    in the opposite direction; else inconclusive."""
    shown = [(p < alpha) and ((d > 0 and lo > 0) or (d < 0 and hi < 0))
             for d, lo, hi, p in zip(directions, low, high, adjusted, strict=True)]  # fmt: skip
    opposite = [(p < alpha) and ((d > 0 and hi < 0) or (d < 0 and lo > 0))
                for d, lo, hi, p in zip(directions, low, high, adjusted, strict=True)]  # fmt: skip
    if all(shown):
        return "supported"
    if any(opposite):
        return "contradicted"
    return "inconclusive"


# --------------------------------------------------------------------------------------------
# claims (a) and (g): structure of capabilities (attunestats.independence)
# --------------------------------------------------------------------------------------------
CLAIM_A_METRICS = {
    "emotion": "avg_emotion_f1",
    "behaviour": "avg_binary_om_accuracy",
    "preference": "avg_pairwise_accuracy",
    "response": "avg_draft_judge_score",
}
CLAIM_G_METRICS = {"holistic": "holistic_comprehension", "turn_level": "turn_level_average"}


def _independence_report(data: Any, metrics: dict[str, str], *, n_resamples: int, confidence_level: float,
                         rng: RNGLike, n_permutations: int = 2000, n_splits: int = 200) -> Any:  # fmt: skip
    from attunestats.independence import capability_independence
    from attunestats.metrics.score import Scores

    options: dict[str, Any] = {}
    if isinstance(data, Scores):
        present = set(data.conversation["metric"].unique())
        missing = {c: m for c, m in metrics.items() if m not in present}
        if missing:
            raise ValueError(f"metrics {sorted(missing.values())} are not in the scores")
        options = {"metrics": metrics, "n_resamples": n_resamples}
    return capability_independence(
        data, correction="holm", n_permutations=n_permutations, n_splits=n_splits,
        confidence_level=confidence_level, rng=rng, **options,
    )  # fmt: skip


def claim_a(
    data: Any,
    *,
    metrics: dict[str, str] | None = None,
    threshold: float = 0.3,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (a): the rankings on the four capabilities are largely independent.

    ``data`` is Scores (one metric per capability, ``metrics``; default :data:`CLAIM_A_METRICS`)
    or an :class:`~attunestats.independence.MetricMatrix`. Per pair, the noise-corrected
    correlation across models with its Bonferroni-simultaneous population interval
    (:func:`attunestats.independence.capability_independence`, Holm). "Largely independent" is
    read as ``|rho| < threshold``: supported if every pair is shown inside ``(-threshold,
    threshold)`` (an equivalence test), contradicted if some pair is shown outside it in either
    direction ("related"), else inconclusive. With 11 models the intervals are wide, so
    "inconclusive" is the expected honest answer even when the claim is true.
    """
    from attunestats.metrics.score import Scores

    metrics = dict(metrics or CLAIM_A_METRICS)
    skipped: list[str] = []
    if isinstance(data, Scores):  # capabilities without their metric (e.g. no draft judge) drop out
        present = set(data.conversation["metric"].unique())
        skipped = [c for c, m in metrics.items() if m not in present]
        metrics = {c: m for c, m in metrics.items() if m in present}
        if len(metrics) < 2:
            raise ValueError(
                f"claim (a) needs at least two of the metrics {list(CLAIM_A_METRICS.values())}"
            )
    report = _independence_report(data, metrics, n_resamples=n_resamples,
                                  confidence_level=confidence_level, rng=rng)  # fmt: skip
    table = report.to_frame()
    low, high = table["verdict_ci_low"].to_numpy(), table["verdict_ci_high"].to_numpy()
    inside = (low > -threshold) & (high < threshold)
    shown_large = (low >= threshold) | (high <= -threshold)
    if inside.all():
        verdict: Verdict = "supported"
    elif shown_large.any():
        verdict = "contradicted"
    else:
        verdict = "inconclusive"
    k = int(np.nanargmax(np.abs(table["corrected"].to_numpy())))
    return ClaimResult(
        claim="a", statement=CLAIMS["a"],
        effect=f"largest |noise-corrected correlation| across models ({table['capability_a'].iloc[k]} vs "
        f"{table['capability_b'].iloc[k]}); every pair in details",
        estimate=float(table["corrected"].iloc[k]), ci_low=float(low[k]), ci_high=float(high[k]),
        pvalue=float(table["pvalue_adjusted"].min()), posterior_probability=None, verdict=verdict,
        rule=f"supported if every pair's simultaneous interval lies inside (-{threshold}, {threshold}); "
        f"contradicted if some pair's lies entirely beyond +-{threshold}; else inconclusive"
        + (f"; capabilities without their metric: {skipped}" if skipped else ""),
        method="noise-corrected rank structure (attunestats.independence), Holm-simultaneous intervals",
        confidence_level=confidence_level, simulated=bool(report.simulated), seed=seed_record(rng),
        details=table,
    )  # fmt: skip


def claim_g(
    data: Any,
    *,
    metrics: dict[str, str] | None = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (g): holistic understanding and turn-level performance are negatively related across models.

    The noise-corrected correlation across models between the holistic pillar and the turn-level
    average (default :data:`CLAIM_G_METRICS`); supported if its population interval lies below 0,
    contradicted if above 0, else inconclusive.
    """
    report = _independence_report(data, metrics or CLAIM_G_METRICS, n_resamples=n_resamples,
                                  confidence_level=confidence_level, rng=rng)  # fmt: skip
    table = report.to_frame()
    row = table.iloc[0]
    low, high = float(row["verdict_ci_low"]), float(row["verdict_ci_high"])
    verdict: Verdict = "supported" if high < 0 else ("contradicted" if low > 0 else "inconclusive")
    return ClaimResult(
        claim="g", statement=CLAIMS["g"],
        effect=f"noise-corrected correlation across models, {row['capability_a']} vs {row['capability_b']}",
        estimate=float(row["corrected"]), ci_low=low, ci_high=high,
        pvalue=float(row["pvalue_adjusted"]), posterior_probability=None, verdict=verdict,
        rule="supported if the population interval of the noise-corrected correlation lies below 0; "
        "contradicted if above 0; else inconclusive",
        method="noise-corrected correlation (attunestats.independence)",
        confidence_level=confidence_level, simulated=bool(report.simulated), seed=seed_record(rng),
        details=table,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# claim (b): discrimination
# --------------------------------------------------------------------------------------------
def claim_b(
    scores: Any,
    *,
    preference: Sequence[str] = ("avg_pairwise_accuracy",),
    response: Sequence[str] = ("avg_draft_judge_score",),
    reference: str = "avg_emotion_f1",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (b): D(metric) - D(emotion F1) > 0 for the preference and response-quality metrics.

    D is the discrimination index of :mod:`attunestats.inference.compare` (true between-model variance over
    the noise of paired differences), comparable across metrics; each contrast has the conservative
    (Bonferroni-combined noncentral F) interval and p-value of
    :meth:`~attunestats.inference.compare.ComparisonResult.discrimination_contrast`, Holm-corrected over the
    contrasts. "Preference alignment" is pairwise accuracy (the metric of the composite; pass
    ``preference=("avg_pairwise_accuracy", "avg_pairwise_kendall_tau")`` to require tau too) and
    "response-quality judgements" the draft-judge score. Metrics absent from the release (e.g. no
    draft judge) are skipped and listed in the rule.
    """
    models = _models(scores)
    present = set(scores.conversation["metric"])
    targets = [m for m in (*preference, *response) if m in present]
    skipped = [m for m in (*preference, *response) if m not in present]
    if reference not in present or not targets:
        raise ValueError(
            f"claim (b) needs {reference!r} and at least one of {list(preference) + list(response)}"
        )
    boot = bootstrap_scores(
        scores, metrics=[reference, *targets], predictors=models, method="percentile",
        n_resamples=n_resamples, confidence_level=confidence_level, rng=rng,
    )  # fmt: skip
    cmp = compare_models(boot, correction="none")
    rows = [cmp.discrimination_contrast(m, reference) for m in targets]
    details = pd.DataFrame(rows)
    details["pvalue_adjusted"] = adjust_pvalues(details["pvalue"].to_numpy(), method="holm")
    alpha = 1 - confidence_level
    verdict = _verdict_from_tests(
        [1] * len(rows), details["ci_low"].to_numpy(), details["ci_high"].to_numpy(),
        details["pvalue_adjusted"].to_numpy(), alpha,
    )  # fmt: skip
    weakest = int(np.argmin(details["difference"].to_numpy()))
    rule = (
        "supported if D(m) - D(emotion F1) > 0 is shown (Holm, conservative interval excluding 0) "
        "for every preference/response metric present; contradicted if one is shown < 0"
        + (f"; skipped (absent): {skipped}" if skipped else "")
    )
    return ClaimResult(
        claim="b", statement=CLAIMS["b"],
        effect=f"smallest D(metric) - D({reference}) over {targets} (here {details['metric_a'].iloc[weakest]})",
        estimate=float(details["difference"].iloc[weakest]),
        ci_low=float(details["ci_low"].iloc[weakest]), ci_high=float(details["ci_high"].iloc[weakest]),
        pvalue=float(details["pvalue_adjusted"].max()), posterior_probability=None, verdict=verdict,
        rule=rule, method="discrimination index with noncentral-F intervals (Bonferroni-combined)",
        confidence_level=confidence_level, simulated=_simulated(scores), seed=seed_record(rng),
        details=details,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# claim (c): diagnosis
# --------------------------------------------------------------------------------------------
def claim_c(
    scores: Any,
    *,
    group: str = "anxiety_depression",
    reference_group: str = "none",
    affect: Sequence[str] = ("emotion_tracking",),
    behaviour: Sequence[str] = ("avg_binary_om_accuracy", "avg_binary_human_accuracy"),
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (c): affect tracking lower and behaviour accuracy higher for ``group`` than ``reference_group``.

    Outcomes per conversation are averaged over the evaluated models; the effects are differences of
    group means (``group - reference_group``). Diagnosis is a participant trait, so the bootstrap
    resamples *participants* (two-stage, within diagnosis groups) - with a handful of participants
    per group the intervals are wide, honestly.
    """
    design = scores.design.sort_values("conversation_id", ignore_index=True)
    outcomes = pd.DataFrame(
        {
            "affect": _model_average(scores, affect).reindex(design["conversation_id"]).to_numpy(),
            "behaviour": _model_average(scores, behaviour)
            .reindex(design["conversation_id"])
            .to_numpy(),
        }
    )
    groups = design["diagnosis_group"].astype(str)
    for g in (group, reference_group):
        n = design.loc[groups == g, "participant_id"].nunique()
        if n < 2:
            raise ValueError(f"claim (c) needs >= 2 participants in group {g!r}; found {n}")
    stat = _contrast_statistic(outcomes, groups.reset_index(drop=True), group, reference_group)
    import warnings

    from attunestats.errors import AttunestatsWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AttunestatsWarning)
        boot = run_bootstrap(
            stat, design, plan=ResamplingPlan(unit="participant", strata="diagnosis_group"),
            method="percentile", n_resamples=n_resamples, confidence_level=confidence_level, rng=rng,
            simulated=_simulated(scores),
        )  # fmt: skip
    p = bootstrap_pvalue(boot.bootstrap_distribution, boot.estimate)
    adjusted = adjust_pvalues(p, method="holm")
    details = pd.DataFrame(
        {
            "outcome": ["affect tracking (" + "+".join(affect) + ")", "behaviour accuracy (" + "+".join(behaviour) + ")"],
            "claimed_direction": ["negative", "positive"],
            "difference": boot.estimate, "ci_low": boot.ci_low, "ci_high": boot.ci_high,
            "pvalue": p, "pvalue_adjusted": adjusted,
        }
    )  # fmt: skip
    verdict = _verdict_from_tests(
        [-1, 1], boot.ci_low, boot.ci_high, adjusted, 1 - confidence_level
    )
    return ClaimResult(
        claim="c", statement=CLAIMS["c"],
        effect=f"affect tracking, {group} minus {reference_group} (model average; behaviour in details)",
        estimate=float(boot.estimate[0]), ci_low=float(boot.ci_low[0]), ci_high=float(boot.ci_high[0]),
        pvalue=float(adjusted.max()), posterior_probability=None, verdict=verdict,
        rule="supported if affect difference < 0 and behaviour difference > 0 are both shown "
        "(percentile intervals excluding 0, Holm-corrected bootstrap p-values); contradicted if "
        "either is shown in the opposite direction",
        method="two-stage participant bootstrap within diagnosis groups",
        confidence_level=confidence_level, simulated=_simulated(scores), seed=seed_record(rng),
        details=details,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# claim (d): the hardest topic (hierarchical model)
# --------------------------------------------------------------------------------------------
CLAIM_D_TOPIC = "romantic relationships"


def claim_d(
    scores: Any,
    *,
    topic: str = CLAIM_D_TOPIC,
    outcome: Literal["behaviour", "emotion"] = "behaviour",
    nearly_every: float = 0.8,
    fit: Any = None,
    parameterization: Any = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    accept_failed_diagnostics: bool = False,
    n_resamples: int | None = None,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (d): ``topic`` is the hardest topic for nearly every model (hierarchical posterior).

    A hierarchical model of the outcome (``"behaviour"``: binary OM accuracy,
    :func:`attunestats.hierarchical.behaviour_model_from_scores`; ``"emotion"``: turn-level
    emotion F1) with topic effects and predictor x topic interactions is fitted to the evaluated
    models. In each posterior draw, model ``m``'s topic effect is ``topic_effect[t] +
    predictor_topic[m, t]`` (adjusted for participant, diagnosis, conversation and turn); the draw
    counts the share of models whose lowest effect is ``topic``'s. The effect is the posterior
    mean of that share (interval: its equal-tailed ``confidence_level`` posterior interval);
    ``posterior_probability`` is P(share >= ``nearly_every``).

    Verdict: supported if P(share >= nearly_every) >= ``confidence_level``; contradicted if
    P(share < 0.5) >= ``confidence_level`` (the topic is the hardest for fewer than half the models);
    else inconclusive. "Nearly every" = at least 80% of the models by default (our reading; the
    paper gives no number). With about 4 conversations per topic, a topic has to be much harder
    than the rest to be shown hardest: inconclusive is a frequent, honest verdict. A fit that fails
    the diagnostics gate gives "inconclusive" unless ``accept_failed_diagnostics=True``.

    ``parameterization`` is passed to the model constructor (``"auto"``: see
    :mod:`attunestats.hierarchical.model`; when topics barely differ, ``sigma_topic`` near 0,
    the centred topic level mixes badly and ``{"topic": "noncentred"}`` passes the gate).
    ``fit`` reuses a :class:`~attunestats.hierarchical.FitResult` of such a model (then
    ``outcome``, ``parameterization``, ``draws``, ``tune`` and ``chains`` are not used; only its
    evaluated models count, human raters in it are left out of the share). ``n_resamples`` is
    accepted for the audit's uniform call and not used (no resampling).
    """
    from attunestats import hierarchical as H
    from attunestats.hierarchical.summaries import draws as posterior_draws

    del n_resamples
    if not 0 < nearly_every <= 1:
        raise ValueError(f"nearly_every must be in (0, 1]; got {nearly_every!r}")
    if fit is None:
        models = _models(scores)
        if outcome == "behaviour":
            m = H.behaviour_model_from_scores(
                scores, task="om", predictors=models, parameterization=parameterization
            )
        elif outcome == "emotion":
            m = H.emotion_model_from_scores(
                scores, metric="emotion_f1", predictors=models, parameterization=parameterization
            )
        else:
            raise ValueError(f"outcome must be 'behaviour' or 'emotion'; got {outcome!r}")
    else:
        m = fit.model
    # checked before any sampling
    if topic not in m.topics:
        raise ValueError(f"topic {topic!r} is not in the release; topics: {list(m.topics)[:8]} ...")
    if not m.has_topic_effect:
        raise ValueError("the model has no topic effects (a single topic)")
    if fit is None:
        fit = H.fit(m, draws=draws, tune=tune, chains=chains, rng=rng, progress_bar=False)
    common = dict(statement=CLAIMS["d"], confidence_level=confidence_level,
                  simulated=_simulated(scores), seed=seed_record(rng))  # fmt: skip
    method = (f"hierarchical {m.outcome} model ({fit.sampler}, {fit.chains} x {fit.draws} draws): "
              "posterior share of models whose lowest topic effect is the topic's")  # fmt: skip
    rule = (f"supported if P(share of models >= {nearly_every:g}) >= {confidence_level:g}; "
            f"contradicted if P(share < 0.5) >= {confidence_level:g}; fits failing the diagnostics "
            "gate are inconclusive")  # fmt: skip
    if not fit.passed and accept_failed_diagnostics:
        method += f"; DIAGNOSTICS FAILED, reported on request ({len(fit.failures)} failures)"
    if not fit.passed and not accept_failed_diagnostics:
        return ClaimResult(
            claim="d", effect="not reportable: MCMC diagnostics failed", estimate=np.nan,
            ci_low=np.nan, ci_high=np.nan, pvalue=None, posterior_probability=None,
            verdict="inconclusive", rule=rule + f" ({fit.failure_message()})", method=method,
            details=pd.DataFrame([fit.overview()]), **common,
        )  # fmt: skip
    evaluated = set(_models(scores))
    keep = [i for i, p in enumerate(m.predictors) if p in evaluated]
    if not keep:
        raise ValueError("the fitted model contains none of the evaluated models")
    v = posterior_draws(fit, "topic_effect")  # (S, T)
    if m.has_predictor_topic:
        tp = posterior_draws(fit, "predictor_topic")[:, keep, :]
    else:
        tp = np.zeros((v.shape[0], len(keep), v.shape[1]))
    total = v[:, None, :] + tp  # (S, M, T)
    t = list(m.topics).index(topic)
    hardest = np.argmin(total, axis=2)  # (S, M)
    is_topic = hardest == t
    share = is_topic.mean(axis=1)
    alpha = 1 - confidence_level
    lo, hi = np.quantile(share, [alpha / 2, 1 - alpha / 2])
    p_nearly = float((share >= nearly_every - 1e-12).mean())
    p_below_half = float((share < 0.5).mean())
    if p_nearly >= confidence_level:
        verdict: Verdict = "supported"
    elif p_below_half >= confidence_level:
        verdict = "contradicted"
    else:
        verdict = "inconclusive"
    n_t = total.shape[2]
    mode_topic = [m.topics[int(np.bincount(hardest[:, i], minlength=n_t).argmax())]
                  for i in range(len(keep))]  # fmt: skip
    eff = total[:, :, t]
    details = pd.DataFrame(
        {
            "predictor": [m.predictors[i] for i in keep], "topic": topic,
            "p_hardest": is_topic.mean(axis=0), "topic_effect": eff.mean(axis=0),
            "ci_low": np.quantile(eff, alpha / 2, axis=0), "ci_high": np.quantile(eff, 1 - alpha / 2, axis=0),
            "most_probable_hardest_topic": mode_topic,
            "p_share_at_least_nearly_every": p_nearly, "p_share_below_half": p_below_half,
            "fit_passed": fit.passed,
        }
    )  # fmt: skip
    return ClaimResult(
        claim="d", effect=f"posterior share of models for which {topic!r} is the hardest topic "
        f"({m.outcome}; per model in details)", estimate=float(share.mean()), ci_low=float(lo),
        ci_high=float(hi), pvalue=None, posterior_probability=p_nearly, verdict=verdict, rule=rule,
        method=method, details=details, **common,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# claim (e): turn dynamics
# --------------------------------------------------------------------------------------------
def early_late_changes(
    scores: Any,
    *,
    outcomes: dict[str, dict[str, float]] | None = None,
    predictors: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per conversation: late-turn minus early-turn mean of each outcome, averaged over predictors.

    Phases as in :func:`attunestats.inference.dynamics.turn_phases` (early ``x <= 1/3``, late ``x >= 2/3``;
    conversations with fewer than 3 scored turns left out). ``outcomes`` maps a name to
    turn-metric weights (default: behaviour = ``binary_om_accuracy``; affect =
    ``0.5 emotion_f1 + 0.5 emotion_va_score``).
    """
    from attunestats.inference.dynamics import turn_phases

    if outcomes is None:
        outcomes = {
            "behaviour": {"binary_om_accuracy": 1.0},
            "affect": {"emotion_f1": 0.5, "emotion_va_score": 0.5},
        }
    if predictors is None:
        predictors = _models(scores)
    needed = sorted({m for w in outcomes.values() for m in w})
    phases = turn_phases(scores, metrics=needed, predictors=predictors)
    phases = phases[phases["phase"] != "mid"]
    wide = phases.pivot_table(index=["conversation_id", "predictor", "phase"], columns="metric",
                              values="value", aggfunc="first")  # fmt: skip
    combined = pd.DataFrame({name: sum(wide[m] * w for m, w in weights.items())
                             for name, weights in outcomes.items()})  # fmt: skip
    change = combined.xs("late", level="phase") - combined.xs("early", level="phase")
    return change.groupby(level="conversation_id").mean()


def claim_e(
    scores: Any,
    *,
    equivalence_margin: float = 0.05,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (e): behaviour accuracy falls from early to late turns; affect tracking stays within a margin.

    Behaviour: the 95% interval of the late - early change (conversation bootstrap) lies below 0.
    Affect: equivalence (two one-sided tests at ``1 - confidence_level``): the ``1 - 2 alpha``
    interval of its change lies inside ``(-equivalence_margin, equivalence_margin)`` (0-1 scale).
    The default margin, 0.05 (five points on the 0-1 scale), is our choice of a smallest change of
    interest, not the paper's (it gives no number); pass another to test a stricter notion of
    "stable". With 200 conversations the affect change is estimated to about +-0.02 (90%).
    """
    change = early_late_changes(scores)
    design = scores.design.set_index("conversation_id").loc[change.index].reset_index()
    values = change[["behaviour", "affect"]].to_numpy(dtype=float)
    from attunestats.inference.bootstrap import mean_statistic

    stat = mean_statistic(values, pd.DataFrame({"outcome": ["behaviour", "affect"]}))
    boot = run_bootstrap(stat, design, method="percentile", n_resamples=n_resamples,
                         confidence_level=confidence_level, rng=rng, simulated=_simulated(scores))  # fmt: skip
    alpha = 1 - confidence_level
    p = bootstrap_pvalue(boot.bootstrap_distribution, boot.estimate)
    eq_low, eq_high, _ = confidence_interval(
        boot.bootstrap_distribution[:, [1]],
        boot.estimate[[1]],
        method="percentile",
        confidence_level=1 - 2 * alpha,
    )
    margin = float(equivalence_margin)
    behaviour_down = boot.ci_high[0] < 0
    behaviour_up = boot.ci_low[0] > 0
    affect_stable = (eq_low[0] > -margin) and (eq_high[0] < margin)
    affect_moves = (boot.ci_low[1] > margin) or (boot.ci_high[1] < -margin)
    if behaviour_down and affect_stable:
        verdict: Verdict = "supported"
    elif behaviour_up or affect_moves:
        verdict = "contradicted"
    else:
        verdict = "inconclusive"
    details = pd.DataFrame(
        {
            "outcome": ["behaviour (binary_om_accuracy)", "affect (0.5 emotion_f1 + 0.5 emotion_va_score)"],
            "claimed": ["decrease", f"stable within +-{margin}"],
            "late_minus_early": boot.estimate, "ci_low": boot.ci_low, "ci_high": boot.ci_high,
            "equivalence_ci_low": [np.nan, eq_low[0]], "equivalence_ci_high": [np.nan, eq_high[0]],
            "pvalue": p, "n_conversations": len(change),
        }
    )  # fmt: skip
    return ClaimResult(
        claim="e", statement=CLAIMS["e"],
        effect="late minus early turns, binary OM accuracy (model average; affect in details)",
        estimate=float(boot.estimate[0]), ci_low=float(boot.ci_low[0]), ci_high=float(boot.ci_high[0]),
        pvalue=float(p[0]), posterior_probability=None, verdict=verdict,
        rule=f"supported if the behaviour change's {confidence_level:.0%} interval is below 0 and the "
        f"affect change's {1 - 2 * alpha:.0%} interval lies within +-{margin} (TOST); contradicted "
        f"if behaviour is shown to rise or affect to move beyond +-{margin}",
        method="conversation bootstrap of per-conversation early/late differences",
        confidence_level=confidence_level, simulated=_simulated(scores), seed=seed_record(rng),
        details=details,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# claim (f): human baseline
# --------------------------------------------------------------------------------------------
def claim_f(
    scores: Any,
    *,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (f) through :func:`attunestats.baseline.claim_f` (rule: ``baseline.CLAIM_F_RULE``).

    Headline effect: mean of the human raters minus mean of the models on pairwise accuracy; the
    goal (Q1) comparison and the share of models beaten are in the details.
    """
    from attunestats.baseline import claim_f as baseline_claim_f

    res = baseline_claim_f(
        scores, correction="holm", method="percentile", n_resamples=n_resamples,
        confidence_level=confidence_level, rng=rng,
    )  # fmt: skip
    ev = res.evidence.set_index("role")
    pref = ev.loc["preference"]
    return ClaimResult(
        claim="f", statement=CLAIMS["f"],
        effect="mean of human raters minus mean of models, pairwise accuracy "
        f"(beats {int(pref['n_models_beaten'])}/{int(pref['n_models'])} models; Q1 goals in details)",
        estimate=float(pref["difference"]), ci_low=float(pref["ci_low"]), ci_high=float(pref["ci_high"]),
        pvalue=float(res.evidence["pvalue_adjusted"].max()), posterior_probability=None,
        verdict=res.verdict, rule=res.rule, method="paired conversation bootstrap (humans vs models)",
        confidence_level=confidence_level, simulated=bool(res.simulated), seed=seed_record(rng),
        details=res.evidence,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# the audit
# --------------------------------------------------------------------------------------------
def audit_claims(
    scores: Any,
    *,
    claims: Sequence[str] = ("a", "b", "c", "d", "e", "f", "g"),
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = 0,
    **options: Any,
) -> ClaimsAudit:
    """Test each claim in ``claims`` on ``scores``; each gets its own child seed of ``rng``.

    ``rng`` is the root seed (an int, or anything :func:`attunestats._rng.root_seed` accepts);
    claim ``c`` uses ``child_seed(root, "claim-c")``, so one claim tested alone gives the same
    numbers as in the full audit.
    """
    seed = root_seed(rng)
    functions = {"a": claim_a, "b": claim_b, "c": claim_c, "d": claim_d, "e": claim_e, "f": claim_f,
                 "g": claim_g}  # fmt: skip
    unknown = [c for c in claims if c not in functions]
    if unknown:
        raise ValueError(f"claims {unknown} are not available; available: {sorted(functions)}")
    results = []
    for c in claims:
        kwargs = dict(options.get(c, {}))
        claim_rng = child_seed(seed, f"claim-{c}")
        try:
            results.append(functions[c](scores, n_resamples=n_resamples, confidence_level=confidence_level,
                                        rng=claim_rng, **kwargs))  # fmt: skip
        except ValueError as exc:  # the release lacks what the claim needs: say so, do not guess
            results.append(ClaimResult(
                claim=c, statement=CLAIMS[c], effect="not testable on this release", estimate=np.nan,
                ci_low=np.nan, ci_high=np.nan, pvalue=None, posterior_probability=None,
                verdict="inconclusive", rule=f"not testable: {exc}", method="",
                confidence_level=confidence_level, simulated=_simulated(scores), seed=claim_rng,
            ))  # fmt: skip
    return ClaimsAudit(tuple(results))
