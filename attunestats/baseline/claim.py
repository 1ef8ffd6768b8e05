"""Claim (f) of the paper: the human baseline "beats most models at predicting preferences but is
weak at predicting conversation goals", tested with the rule :data:`CLAIM_F_RULE` on one paired
bootstrap of the scores (:func:`attunestats.baseline.humans_vs_models`).

(The module is ``claim``, not ``claim_f``, so that ``attunestats.baseline.claim_f`` is always the
function.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike
from attunestats.baseline.agreement import rater_agreement
from attunestats.baseline.comparison import humans_vs_models

if TYPE_CHECKING:
    from collections.abc import Sequence

    from attunestats.inference.bootstrap import BootstrapResult
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

__all__ = ["CLAIM_F_RULE", "CLAIM_F_STATEMENT", "ClaimFResult", "claim_f"]

# --------------------------------------------------------------------------------------------
# claim (f)
# --------------------------------------------------------------------------------------------
#: Claim (f) of the paper (spec section 0).
CLAIM_F_STATEMENT = (
    "a human baseline (three people doing the EM's task) beats most models at predicting "
    "preferences but is weak at predicting conversation goals"
)

#: The decision rule of :func:`claim_f`.
CLAIM_F_RULE = (
    "Evidence comes from one paired cluster bootstrap of the scores. Preference part: the mean of "
    "the human raters is compared with each of the M models on the preference metric "
    "(avg_pairwise_accuracy), the M p-values corrected together (the chosen correction). Goal "
    "part: the mean of the humans is compared with the mean of the models on the goal metric "
    "(q1_looking_for_score), one test. SUPPORTED if the human mean is significantly better than "
    "more than M/2 models on the preference metric AND significantly below the model mean on the "
    "goal metric (an intersection-union test: each part at level alpha = 1 - confidence_level). "
    "CONTRADICTED if the opposite of a part is shown, each part at level alpha/2 (Bonferroni over "
    "the two parts): at least M/2 models significantly better than the human mean on the "
    "preference metric, or the human mean significantly above the model mean on the goal metric. "
    "Otherwise INCONCLUSIVE. The secondary preference metric (avg_pairwise_kendall_tau) is "
    "reported but does not enter the verdict."
)
VERDICTS = ("supported", "contradicted", "inconclusive")


@dataclass(frozen=True, repr=False)
class ClaimFResult(ResultMixin):
    """The verdict on claim (f) with the evidence behind it.

    Attributes
    ----------
    verdict : {"supported", "contradicted", "inconclusive"}
    statement, rule : str
        The claim and the decision rule (:data:`CLAIM_F_RULE`).
    preference_supported, preference_contradicted, goal_supported, goal_contradicted : bool
        The four parts of the rule.
    evidence : pandas.DataFrame
        One row per metric of the claim (preference, secondary preference, goal): human mean,
        model mean, their difference with interval and p-values, and the numbers and shares of
        models the human mean beats / loses to significantly after correction.
    comparisons : pandas.DataFrame
        The underlying human-mean-vs-each-model rows (:class:`HumansVsModelsResult`).
    agreement : pandas.DataFrame or None
        Rater agreement on the pairwise selections and Q1 goals, when a release was given.
    """

    _title = "Claim (f): the human baseline on preferences and on goals"
    _summary_columns = (
        "role", "metric", "human_mean", "model_mean", "difference", "ci_low", "ci_high",
        "pvalue_adjusted", "n_models_beaten", "n_models_better",
    )  # fmt: skip

    verdict: str
    statement: str
    rule: str
    preference_supported: bool
    preference_contradicted: bool
    goal_supported: bool
    goal_contradicted: bool
    evidence: pd.DataFrame
    comparisons: pd.DataFrame
    correction: str
    confidence_level: float
    n_humans: int
    n_models: int
    simulated: bool
    agreement: pd.DataFrame | None = None

    def to_frame(self) -> pd.DataFrame:
        """The evidence table with the verdict in every row."""
        out = self.evidence.copy()
        out.insert(0, "claim", "f")
        out["verdict"] = self.verdict
        return out

    def _estimand(self) -> str:
        return (
            "mean of the human raters minus each model (preference metric) and minus the mean of "
            "the models (goal metric)"
        )

    def _method(self) -> str:
        return "paired cluster bootstrap of the scores (humans vs models)"

    def _summary_meta(self) -> dict[str, str]:
        return {
            "Claim": self.statement,
            "Verdict": self.verdict,
            **super()._summary_meta(),
            "Humans, models": f"{self.n_humans}, {self.n_models}",
        }

    def _summary_notes(self) -> list[str]:
        return [f"rule: {self.rule}"]

    def to_dict(self) -> dict[str, Any]:
        """Plain summary for the claims audit."""
        ev = self.evidence.set_index("role")
        return {
            "claim": "f",
            "statement": self.statement,
            "verdict": self.verdict,
            "rule": self.rule,
            "preference_supported": self.preference_supported,
            "preference_contradicted": self.preference_contradicted,
            "goal_supported": self.goal_supported,
            "goal_contradicted": self.goal_contradicted,
            "share_models_beaten_on_preference": float(ev.loc["preference", "share_models_beaten"]),
            "preference_difference": float(ev.loc["preference", "difference"]),
            "goal_difference": float(ev.loc["goal", "difference"]),
            "goal_ci": (float(ev.loc["goal", "ci_low"]), float(ev.loc["goal", "ci_high"])),
            "correction": self.correction,
            "confidence_level": self.confidence_level,
            "n_humans": self.n_humans,
            "n_models": self.n_models,
            "simulated": self.simulated,
        }


def claim_f(
    data: Scores | BootstrapResult,
    release: Release | None = None,
    *,
    correction: Literal["holm", "bh", "none"] = "holm",
    preference_metric: str = "avg_pairwise_accuracy",
    secondary_preference_metric: str | None = "avg_pairwise_kendall_tau",
    goal_metric: str = "q1_looking_for_score",
    humans: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    mode: str = "default",
    method: Literal["percentile", "basic", "bca"] = "bca",
    unit: Literal["conversation", "participant"] = "conversation",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimFResult:
    """Test claim (f): humans beat most models on preferences but are weak on goals.

    Parameters
    ----------
    data : Scores or BootstrapResult
        Scores (bootstrapped here on the claim's metrics) or a bootstrap of scores to reuse.
    release : Release, optional
        When given, rater agreement on the pairwise selections and Q1 goals is attached (context
        only; it does not enter the verdict).
    correction : {"holm", "bh", "none"}, default "holm"
        Correction over the M human-mean-vs-model tests of each metric.
    preference_metric, secondary_preference_metric, goal_metric : str
        The metrics of the claim (see :data:`CLAIM_F_RULE`).
    humans, models, mode, method, unit, n_resamples, confidence_level, rng
        As in :func:`humans_vs_models`.

    Returns
    -------
    ClaimFResult
        ``verdict`` by the rule :data:`CLAIM_F_RULE`.

    Examples
    --------
    >>> import attunestats as at
    >>> release = at.load_bundled_release()                             # doctest: +SKIP
    >>> res = claim_f(at.score(release), release, n_resamples=2000, rng=1)  # doctest: +SKIP
    >>> res.verdict                                                     # doctest: +SKIP
    'supported'
    """
    metrics = [preference_metric, goal_metric]
    if secondary_preference_metric is not None:
        metrics.insert(1, secondary_preference_metric)
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"the claim's metrics must differ; got {metrics}")
    res = humans_vs_models(
        data, correction=correction, family="metric", metrics=metrics, humans=humans,
        models=models, mode=mode, method=method, unit=unit, n_resamples=n_resamples,
        confidence_level=confidence_level, rng=rng,
    )  # fmt: skip
    level = res.confidence_level
    alpha = 1.0 - level
    table = res.comparisons
    n_models = len(res.models)
    roles = {preference_metric: "preference", goal_metric: "goal"}
    if secondary_preference_metric is not None:
        roles[secondary_preference_metric] = "secondary_preference"
    for metric in (preference_metric, goal_metric):
        hib = res.by_metric.set_index("metric").loc[metric, "higher_is_better"]
        if hib is None or pd.isna(hib) or not bool(hib):
            raise ValueError(f"claim (f) needs metrics where higher is better; {metric!r} is not")

    def per_model(metric: str) -> pd.DataFrame:
        sel = (table["metric"] == metric) & (table["comparison"] == "human_mean - model")
        return table.loc[sel]

    pref = per_model(preference_metric)
    p_adj = pref["pvalue_adjusted"].to_numpy(dtype=float)
    diff = pref["difference"].to_numpy(dtype=float)
    n_beaten = int(np.sum((p_adj < alpha) & (diff > 0)))
    n_better_half = int(np.sum((p_adj < alpha / 2) & (diff < 0)))
    preference_supported = n_beaten > n_models / 2
    preference_contradicted = n_better_half >= n_models / 2

    goal = table.loc[
        (table["metric"] == goal_metric) & (table["comparison"] == "human_mean - model_mean")
    ].iloc[0]
    g_p, g_d = float(goal["pvalue"]), float(goal["difference"])
    goal_supported = g_p < alpha and g_d < 0
    goal_contradicted = g_p < alpha / 2 and g_d > 0
    if preference_contradicted or goal_contradicted:
        verdict = "contradicted"
    elif preference_supported and goal_supported:
        verdict = "supported"
    else:
        verdict = "inconclusive"

    evidence = res.by_metric.loc[res.by_metric["metric"].isin(metrics)].copy()
    evidence.insert(0, "role", evidence["metric"].map(roles))
    evidence = evidence.set_index("metric").loc[metrics].reset_index()
    evidence["comparisons_corrected_over"] = f"{n_models} models"
    agreement = None
    if release is not None:
        agreement = rater_agreement(
            release,
            predictors=list(res.humans),
            mode=mode,
            annotations=["pairwise", "q1_looking_for"],
            n_resamples=min(n_resamples, 2000),
            confidence_level=level,
            rng=rng if not isinstance(rng, np.random.Generator) else rng.spawn(1)[0],
        ).to_frame()
    return ClaimFResult(
        verdict=verdict,
        statement=CLAIM_F_STATEMENT,
        rule=CLAIM_F_RULE,
        preference_supported=bool(preference_supported),
        preference_contradicted=bool(preference_contradicted),
        goal_supported=bool(goal_supported),
        goal_contradicted=bool(goal_contradicted),
        evidence=evidence,
        comparisons=table.loc[table["metric"].isin(metrics)].reset_index(drop=True),
        correction=res.correction,
        confidence_level=level,
        n_humans=len(res.humans),
        n_models=n_models,
        simulated=res.simulated,
        agreement=agreement,
    )
