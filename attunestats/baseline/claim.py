"""Claim (f) of the paper as an explicit test, one evidence row per tested quantity.

Claim (f): "a human baseline beats most models at predicting preferences but is weak at
predicting conversation goals", tested with the rule :data:`CLAIM_F_RULE` on the comparisons of
:func:`attunestats.baseline.humans_vs_models`: common ground (each rater on the units they
rated) and the population of participants (participant jackknife, t) by default.

Every evidence row is one tested quantity (the mean of humans minus one model on the preference
metric; the mean of humans minus the mean of the models on the goal metric), and its interval and
p-value come from the same test in the same family (the interval is adjusted like the p-value,
:mod:`attunestats.inference.multiplicity`), so "the interval excludes 0" and "the adjusted p-value
is below alpha" never disagree. A row is *shown* when its interval excludes 0 on the claimed side
and *opposite_shown* when it excludes 0 on the other side; the verdict counts those flags, so a
"supported" verdict implies both the intervals and the p-values on the claimed side.

(The module is ``claim``, not ``claim_f``, so that ``attunestats.baseline.claim_f`` is always the
function.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike
from attunestats.baseline.comparison import GROUNDS, HumansVsModelsResult, humans_vs_models

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

__all__ = ["CLAIM_F_RULE", "CLAIM_F_STATEMENT", "ClaimFResult", "claim_f"]

#: Claim (f) of the paper (spec section 0).
CLAIM_F_STATEMENT = (
    "a human baseline (three people doing the EM's task) beats most models at predicting "
    "preferences but is weak at predicting conversation goals"
)

#: The decision rule of :func:`claim_f`.
CLAIM_F_RULE = (
    "Humans and models are compared on common ground (each rater with the models on the units "
    "that rater rated; the mean of humans is the average over raters of the per-rater "
    "differences) for the population of participants (participant jackknife, t tests), unless "
    "another ground or estimand is named. Preference part: the mean of the human raters minus "
    "each of the M models on the preference metric (avg_pairwise_accuracy), the M tests "
    "corrected together (the chosen correction), one evidence row per model; the part is shown "
    "when the mean of humans is significantly better than more than M/2 models. Goal part: the "
    "mean of the humans minus the mean of the models on the goal metric (q1_looking_for_score), "
    "one test, one evidence row; shown when it is significantly below 0. In every row the "
    "interval is adjusted like the p-value, so a row is significant exactly when its interval "
    "excludes 0, and it is 'shown' when the interval excludes 0 on the claimed side. SUPPORTED if "
    "both parts are shown (an intersection-union test: each part at level alpha = 1 - "
    "confidence_level). CONTRADICTED if the opposite of a part is shown at the same levels: at "
    "least M/2 models significantly better than the mean of humans on the preference metric, or "
    "the mean of humans significantly above the mean of the models on the goal metric (a union "
    "of two level-alpha tests, so a true claim is called contradicted with probability at most "
    "2 alpha). Otherwise NOT DECIDABLE AT THIS SAMPLE SIZE when the power to support a true claim "
    "at this number of participants is below 80% (the effects taken at their estimated sizes; "
    "participants_needed says how many would give 80%), else INCONCLUSIVE. A secondary preference metric, when asked for, is reported "
    "in rows that do not enter the verdict (enters_verdict False)."
)
VERDICTS = ("supported", "contradicted", "inconclusive")

_EVIDENCE_FROM_COMPARISONS = (
    "comparison", "human", "model", "ground", "estimate_human", "estimate_model", "difference",
    "ci_low", "ci_high", "interval_level", "interval", "standard_error", "df", "pvalue",
    "pvalue_adjusted", "significant", "composite_points", "composite_points_low",
    "composite_points_high", "standardized_effect", "standardized_effect_low",
    "standardized_effect_high", "n_conversations", "n_turns", "n_binary_judgements",
    "n_pairwise_comparisons", "n_conversations_metric", "correction", "method", "estimand",
    "confidence_level", "n_units", "unit", "simulated",
)  # fmt: skip


@dataclass(frozen=True, repr=False)
class ClaimFResult(ResultMixin):
    """The verdict on claim (f) with the evidence behind it.

    Attributes
    ----------
    verdict : {"supported", "contradicted", "not decidable at this sample size", "inconclusive"}
    power, participants_needed : float
        Rough planning numbers (NaN unless the units are participants): the probability of
        supporting the claim at this number of participants if its effects were their estimated
        sizes, and the number of participants that would give 80% (:func:`claim_f_power`).
    statement, rule : str
        The claim and the decision rule (:data:`CLAIM_F_RULE`).
    preference_supported, preference_contradicted, goal_supported, goal_contradicted : bool
        The four parts of the rule.
    evidence : pandas.DataFrame
        One row per tested quantity: ``role`` (``"preference"``, ``"goal"`` or
        ``"secondary_preference"``), ``metric``, ``quantity`` (in words), ``claimed``
        (``"positive"`` or ``"negative"``), the comparison's estimates, ``difference`` with
        ``ci_low``/``ci_high`` at ``interval_level``, ``pvalue`` and ``pvalue_adjusted`` (same
        test, same family: ``family``), ``shown`` / ``opposite_shown`` (interval excludes 0 on
        the claimed / other side), ``enters_verdict``, the effect sizes, the units compared and
        the settings.
    by_metric : pandas.DataFrame
        One row per metric of the claim (from :attr:`HumansVsModelsResult.by_metric`): mean of
        humans, mean of models, their difference, and the models beaten / better after correction.
    comparisons : pandas.DataFrame
        Every comparison of the claim's metrics (:class:`HumansVsModelsResult`).
    grounds : pandas.DataFrame
        The units compared per rater.
    agreement : pandas.DataFrame or None
        Rater agreement on the pairwise selections and Q1 goals, when a release was given
        (context only; it does not enter the verdict).
    """

    _title = "Claim (f): the human baseline on preferences and on goals"
    _summary_columns = (
        "role", "model", "difference", "ci_low", "ci_high", "interval_level", "pvalue_adjusted",
        "shown", "opposite_shown",
    )  # fmt: skip

    verdict: str
    statement: str
    rule: str
    preference_supported: bool
    preference_contradicted: bool
    goal_supported: bool
    goal_contradicted: bool
    evidence: pd.DataFrame
    by_metric: pd.DataFrame
    comparisons: pd.DataFrame
    grounds: pd.DataFrame
    correction: str
    confidence_level: float
    n_humans: int
    n_models: int
    n_models_beaten: int
    n_models_better: int
    preference_metric: str
    goal_metric: str
    ground: str
    estimand: str
    method: str
    simulated: bool
    agreement: pd.DataFrame | None = field(repr=False, default=None)
    power: float = float("nan")
    participants_needed: float = float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The evidence table (one row per tested quantity) with the verdict in every row."""
        out = self.evidence.copy()
        out.insert(0, "claim", "f")
        out["verdict"] = self.verdict
        return out

    def _summary_meta(self) -> dict[str, str]:
        meta = {"Claim": self.statement, "Verdict": self.verdict, **super()._summary_meta()}
        meta["Ground"] = GROUNDS[self.ground]
        meta["Humans, models"] = f"{self.n_humans}, {self.n_models}"
        meta["Preference"] = (
            f"{self.preference_metric}: mean of humans significantly better than "
            f"{self.n_models_beaten} of {self.n_models} models, worse than {self.n_models_better}"
        )
        goal = self.evidence.loc[self.evidence["role"] == "goal"].iloc[0]
        meta["Goal"] = (
            f"{self.goal_metric}: mean of humans - mean of models = {goal['difference']:.4g} "
            f"[{goal['ci_low']:.4g}, {goal['ci_high']:.4g}]"
        )
        return meta

    def _summary_notes(self) -> list[str]:
        return [f"rule: {self.rule}"]

    def to_dict(self) -> dict[str, Any]:
        """Plain summary for the claims audit."""
        by = self.by_metric.set_index("metric")
        goal = self.evidence.loc[self.evidence["role"] == "goal"].iloc[0]
        return {
            "claim": "f",
            "statement": self.statement,
            "verdict": self.verdict,
            "rule": self.rule,
            "preference_supported": self.preference_supported,
            "preference_contradicted": self.preference_contradicted,
            "goal_supported": self.goal_supported,
            "goal_contradicted": self.goal_contradicted,
            "n_models_beaten_on_preference": self.n_models_beaten,
            "share_models_beaten_on_preference": self.n_models_beaten / self.n_models,
            "preference_difference": float(by.loc[self.preference_metric, "difference"]),
            "goal_difference": float(goal["difference"]),
            "goal_ci": (float(goal["ci_low"]), float(goal["ci_high"])),
            "goal_pvalue": float(goal["pvalue_adjusted"]),
            "ground": self.ground,
            "estimand": self.estimand,
            "correction": self.correction,
            "confidence_level": self.confidence_level,
            "n_humans": self.n_humans,
            "n_models": self.n_models,
            "power": self.power,
            "participants_needed": self.participants_needed,
            "simulated": self.simulated,
        }


def _evidence_rows(table: pd.DataFrame, metric: str, role: str, comparison: str, claimed: str,
                   family: str, enters: bool) -> pd.DataFrame:  # fmt: skip
    sel = table.loc[(table["metric"] == metric) & (table["comparison"] == comparison)]
    out = sel[[c for c in _EVIDENCE_FROM_COMPARISONS if c in sel.columns]].copy()
    out.insert(0, "role", role)
    out.insert(1, "metric", metric)
    out.insert(2, "quantity", [f"{metric}: {h} - {m}" for h, m in zip(sel["human"], sel["model"],
                                                                      strict=True)])  # fmt: skip
    out.insert(3, "claimed", claimed)
    lo, hi = out["ci_low"].to_numpy(float), out["ci_high"].to_numpy(float)
    positive = claimed == "positive"
    out["shown"] = (lo > 0) if positive else (hi < 0)
    out["opposite_shown"] = (hi < 0) if positive else (lo > 0)
    out["family"] = family
    out["enters_verdict"] = enters
    return out


def claim_f(
    data: Release | Scores | HumansVsModelsResult,
    release: Release | None = None,
    *,
    correction: Literal["maxt", "holm", "bonferroni", "bh", "none"] = "holm",
    preference_metric: str = "avg_pairwise_accuracy",
    secondary_preference_metric: str | None = None,
    goal_metric: str = "q1_looking_for_score",
    humans: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    mode: str = "default",
    ground: Literal["common", "all"] = "common",
    estimand: Literal["participants", "these-participants"] = "participants",
    method: Literal["jackknife", "cr2"] = "jackknife",
    n_resamples: int = 10_000,
    n_draws: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimFResult:
    """Test claim (f): humans beat most models on preferences but are weak on goals.

    Parameters
    ----------
    data : Release, Scores or HumansVsModelsResult
        A Release (scored here), its Scores with ``release=`` (the common ground needs the
        Release), or a :func:`humans_vs_models` result with ``family="metric"`` to reuse (then the
        options below that shape the comparison are ignored).
    release : Release, optional
        The Release of ``data``; also gives the raters' agreement on the pairwise selections and
        Q1 goals (context only).
    correction : {"maxt", "holm", "bonferroni", "bh", "none"}, default "holm"
        Correction over the M human-mean-vs-model tests of the preference metric.
    preference_metric, secondary_preference_metric, goal_metric : str
        The metrics of the claim (see :data:`CLAIM_F_RULE`); the secondary one (e.g.
        ``"avg_pairwise_kendall_tau"``) is reported but does not enter the verdict.
    humans, models, mode, ground, estimand, method, n_resamples, n_draws, confidence_level, rng
        As in :func:`humans_vs_models`.

    Returns
    -------
    ClaimFResult
        ``verdict`` by the rule :data:`CLAIM_F_RULE`.

    Examples
    --------
    >>> import attunestats as at
    >>> release = at.load_bundled_release()                # doctest: +SKIP
    >>> res = claim_f(release)                             # doctest: +SKIP
    >>> res.verdict                                        # doctest: +SKIP
    'supported'
    >>> res.evidence[["role", "model", "difference", "ci_low", "ci_high", "shown"]]  # doctest: +SKIP
    """
    from attunestats.baseline.agreement import rater_agreement
    from attunestats.release.model import Release as ReleaseType

    metrics = [preference_metric, goal_metric]
    if secondary_preference_metric is not None:
        metrics.insert(1, secondary_preference_metric)
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"the claim's metrics must differ; got {metrics}")
    from attunestats.metrics.registry import METRICS

    for metric in (preference_metric, goal_metric):
        spec = METRICS.get(metric)
        if spec is None or spec.higher_is_better is not True:
            raise ValueError(f"claim (f) needs metrics where higher is better; {metric!r} is not")
    if isinstance(data, HumansVsModelsResult):
        res = data
        if res.family != "metric":
            raise ValueError("claim (f) corrects within each metric: reuse a result with "
                             f"family='metric'; got family={res.family!r}")  # fmt: skip
        have = set(res.comparisons["metric"])
        missing = [m for m in metrics if m not in have]
        if missing:
            raise ValueError(f"the humans_vs_models result lacks the claim's metrics {missing}")
    else:
        res = humans_vs_models(
            data, correction=correction, release=release, ground=ground, estimand=estimand,
            family="metric", metrics=metrics, humans=humans, models=models, mode=mode,
            method=method, n_resamples=n_resamples, n_draws=n_draws,
            confidence_level=confidence_level, rng=rng,
        )  # fmt: skip
    if release is None and isinstance(data, ReleaseType):
        release = data
    level = res.confidence_level
    table = res.comparisons
    n_models = len(res.models)
    pref_family = (f"mean of humans vs each of the {n_models} models on {preference_metric} "
                   f"({res.correction})")  # fmt: skip
    parts = [
        _evidence_rows(table, preference_metric, "preference", "human_mean - model", "positive",
                       pref_family, True),
    ]  # fmt: skip
    if secondary_preference_metric is not None:
        parts.append(_evidence_rows(
            table, secondary_preference_metric, "secondary_preference", "human_mean - model",
            "positive", f"mean of humans vs each of the {n_models} models on "
            f"{secondary_preference_metric} ({res.correction})", False,
        ))  # fmt: skip
    parts.append(_evidence_rows(table, goal_metric, "goal", "human_mean - model_mean", "negative",
                                "single test", True))  # fmt: skip
    evidence = pd.concat(parts, ignore_index=True)
    pref = evidence.loc[evidence["role"] == "preference"]
    n_beaten = int(pref["shown"].sum())
    n_better = int(pref["opposite_shown"].sum())
    preference_supported = n_beaten > n_models / 2
    preference_contradicted = n_better >= n_models / 2
    goal = evidence.loc[evidence["role"] == "goal"].iloc[0]
    goal_supported = bool(goal["shown"])
    goal_contradicted = bool(goal["opposite_shown"])
    power, needed = claim_f_power(evidence, alpha=1.0 - level, n_models=n_models)
    if preference_contradicted or goal_contradicted:
        verdict = "contradicted"
    elif preference_supported and goal_supported:
        verdict = "supported"
    elif np.isfinite(power) and power < 0.8:
        verdict = "not decidable at this sample size"
    else:
        verdict = "inconclusive"
    agreement = None
    if release is not None:
        agreement = rater_agreement(
            release, predictors=list(res.humans), mode=mode,
            annotations=["pairwise", "q1_looking_for"], confidence_level=level,
        ).to_frame()  # fmt: skip
    return ClaimFResult(
        verdict=verdict,
        statement=CLAIM_F_STATEMENT,
        rule=CLAIM_F_RULE,
        preference_supported=bool(preference_supported),
        preference_contradicted=bool(preference_contradicted),
        goal_supported=goal_supported,
        goal_contradicted=goal_contradicted,
        evidence=evidence,
        by_metric=res.by_metric.loc[res.by_metric["metric"].isin(metrics)].reset_index(drop=True),
        comparisons=table.loc[table["metric"].isin(metrics)].reset_index(drop=True),
        grounds=res.grounds,
        correction=res.correction,
        confidence_level=level,
        n_humans=len(res.humans),
        n_models=n_models,
        n_models_beaten=n_beaten,
        n_models_better=n_better,
        preference_metric=preference_metric,
        goal_metric=goal_metric,
        ground=res.ground,
        estimand=res.estimand,
        method=res.method,
        simulated=res.simulated,
        agreement=agreement,
        power=power,
        participants_needed=needed,
    )


def claim_f_power(evidence: pd.DataFrame, *, alpha: float, n_models: int) -> tuple[float, float]:
    """Power to support claim (f) at this size, and participants for 80% (planning numbers).

    Each evidence row that enters the verdict is taken at its estimated size (its
    ``difference``; a row is shown only on its ``claimed`` side, so a difference on the other
    side has almost no power) with its standard error scaled as ``1 / sqrt(P)`` for ``P``
    participants and its own degrees of freedom ``df`` scaled as ``(P - 1) / (P_now - 1)``
    (``P - 1`` without a ``df`` column); a row is shown with the power of its two-sided t test
    at the level its interval was computed at (``1 - interval_level``: the corrected level of
    this sample's tests, a planning proxy for Holm's data-dependent steps; ``alpha`` without the
    column). Rows are taken as independent: a rough planning number. The
    preference part needs more than ``n_models / 2`` of its rows shown (the number shown is
    Poisson-binomial, rows taken as independent), the goal part its one row; the power is the
    product. NaN when the units are not participants (then the sample size is not a number of
    participants).

    Examples
    --------
    >>> ev = pd.DataFrame({"role": ["preference"] * 3 + ["goal"], "enters_verdict": True,
    ...                    "difference": [0.1, 0.1, 0.1, -0.1], "standard_error": 0.02,
    ...                    "unit": "participants", "n_units": 11})
    >>> power, needed = claim_f_power(ev, alpha=0.05, n_models=3)
    >>> round(power, 2), needed
    (0.99, 11.0)
    """
    rows = evidence.loc[evidence["enters_verdict"].astype(bool)]
    units = rows["unit"].astype(str).unique() if "unit" in rows else []
    if len(rows) == 0 or list(units) != ["participants"]:
        return float("nan"), float("nan")
    n_units = float(rows["n_units"].iloc[0])
    pref = rows.loc[rows["role"] == "preference"]
    goal = rows.loc[rows["role"] == "goal"]
    need_shown = n_models // 2 + 1

    def shown(part: pd.DataFrame, n: float) -> np.ndarray:
        se = part["standard_error"].to_numpy(float) * np.sqrt(n_units / n)
        if "df" in part:
            df_now = part["df"].to_numpy(float)
            df = np.maximum(df_now * (n - 1.0) / max(n_units - 1.0, 1.0), 1.0)
        else:
            df = np.full(len(part), max(n - 1.0, 1.0))
        level = (1.0 - part["interval_level"].to_numpy(float) if "interval_level" in part
                 else np.full(len(part), alpha))  # fmt: skip
        diff = part["difference"].to_numpy(float)
        if "claimed" in part:
            sign = np.where(part["claimed"].to_numpy() == "negative", -1.0, 1.0)
            delta = sign * diff
        else:
            delta = np.abs(diff)
        q = stats.t.ppf(1 - level / 2, df)
        return stats.t.sf(q - delta / se, df)

    def power_at(n: float) -> float:
        dist = np.array([1.0])  # Poisson-binomial distribution of the preference rows shown
        for p in shown(pref, n):
            dist = np.append(dist * (1 - p), 0.0) + np.append(0.0, dist * p)
        p_pref = float(dist[need_shown:].sum())
        p_goal = float(np.prod(shown(goal, n))) if len(goal) else 1.0
        return p_pref * p_goal

    now = power_at(n_units)
    if not np.isfinite(now):
        return float("nan"), float("nan")
    from attunestats.inference.claims import smallest_n_for_power

    return now, smallest_n_for_power(power_at, n_units)
