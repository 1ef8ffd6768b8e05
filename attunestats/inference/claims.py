"""The paper's claims as explicit tests: one row per tested quantity, coherent and decidable.

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

How a claim is tested
---------------------
A claim has one or more *parts*, each a tested quantity (a difference, a contrast of
discrimination indices, a correlation). Every part is one row of :meth:`ClaimResult.to_frame`,
and in every row the interval and the p-value come from the same procedure, on the same
statistic, in the same family, so they cannot disagree:

- a *difference* part tests ``H0: quantity = 0`` two-sided; its interval excludes 0 exactly when
  ``pvalue < alpha``, and the part is *shown* when the interval excludes 0 on the claimed side;
- an *equivalence* part tests ``H0: |quantity| >= margin`` by two one-sided tests (TOST); its
  interval (level ``1 - 2 alpha_k``) lies inside ``(-margin, margin)`` exactly when
  ``pvalue < alpha``;
- the parts of one claim form one family, corrected by Holm, with each interval computed at the
  level Holm tested its part at (:func:`attunestats.inference.multiplicity.interval_alpha`);
  claim (a) is an intersection-union test (all pairs must be shown equivalent), which needs no
  correction.

Verdicts: ``"supported"`` when every part is shown on its claimed side, ``"contradicted"`` when some
part is shown on the other side, ``"not decidable at this sample size"`` when neither and the
power to support a true claim at this size is below 80% (the row says how many participants would
give 80%), else ``"inconclusive"``. Claim (d) is Bayesian (posterior probability).

The default estimand is the population of participants (participant jackknife, ``t`` with the
working-model df; :mod:`attunestats.inference.participants`); claims (a) and (g) use the
participant cluster bootstrap of :mod:`attunestats.independence` (the noise-corrected correlation
of these models' true scores). Everything computed from a simulated release is labelled
simulated: a verdict on simulated data checks the method against what the simulator planted.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, child_seed, root_seed, seed_record
from attunestats.inference.multiplicity import adjust_pvalues, interval_alpha
from attunestats.inference.participants import ESTIMANDS, participant_inference
from attunestats.inference.sums import SumStatistic, mean_statistic

VERDICTS = ("supported", "contradicted", "not decidable at this sample size", "inconclusive",
            "not testable")  # fmt: skip

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

PART_COLUMNS = (
    "claim", "part", "quantity", "claimed", "test", "estimate", "ci_low", "ci_high",
    "interval_level", "margin", "pvalue", "pvalue_unadjusted", "family", "shown",
    "opposite_shown", "n_units", "unit",
)  # fmt: skip


@dataclass(frozen=True, repr=False)
class ClaimResult(ResultMixin):
    """One claim tested: one row per tested quantity (``parts``) and the claim's verdict.

    Attributes
    ----------
    parts : pandas.DataFrame
        One row per tested quantity (:data:`PART_COLUMNS`): the estimate, the interval and the
        p-value of its test (same procedure, same family), whether it is ``shown`` on the
        claimed side or on the opposite one. A claim the release cannot test (verdict ``"not
        testable"``) has one row with only ``claim`` set, so that it stays visible in tables.
        Claims (a) and (g) add ``estimate_flag`` (``"ok"``, ``"clamped"`` past +-1 or
        ``"undefined"``, where the estimate is NaN and the rule says why) and
        ``share_undefined`` (the share of resamples in which the correlation was undefined).
    verdict : str
        One of :data:`VERDICTS`.
    power, participants_needed : float or None
        Power to support the claim at this size when it is true, and the number of participants
        that would give 80% (claims whose verdict can be "not decidable").
    posterior_probability : float or None
        Claim (d): posterior probability of the claim.
    """

    claim: str
    statement: str
    verdict: str
    rule: str
    method: str
    estimand: str
    confidence_level: float
    simulated: bool
    parts: pd.DataFrame = field(repr=False)
    seed: int | str | None = None
    power: float | None = None
    participants_needed: float | None = None
    posterior_probability: float | None = None
    details: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    _title = "Claim of the paper, tested"
    _summary_columns = ("part", "claimed", "estimate", "ci_low", "ci_high", "interval_level",
                        "pvalue", "shown")  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per tested quantity, with the claim's statement, verdict, rule and method."""
        frame = self.parts.copy()
        for key in ("statement", "verdict", "rule", "method", "estimand", "confidence_level",
                    "simulated", "power", "participants_needed", "posterior_probability"):  # fmt: skip
            frame[key] = getattr(self, key)
        frame["seed"] = pd.Series([self.seed] * len(frame), dtype=object)
        return frame

    def _summary_meta(self) -> dict[str, str]:
        meta = {"Claim": f"({self.claim}) {self.statement}", "Verdict": self.verdict.upper()}
        meta.update(super()._summary_meta())
        meta["Rule"] = self.rule
        if self.power is not None:  # NaN: a part without a positive standard error
            meta["Power here"] = f"{self.power:.2f}" if np.isfinite(self.power) else "not defined"
        if self.participants_needed is not None and np.isfinite(self.participants_needed):
            meta["Needed for 80%"] = f"about {int(np.ceil(self.participants_needed))} participants"
        return meta


@dataclass(frozen=True, repr=False)
class ClaimsAudit(ResultMixin):
    """Every claim tested on one release."""

    results: tuple[ClaimResult, ...]

    _title = "Audit of the paper's claims"
    _summary_columns = ("claim", "part", "test", "estimate", "ci_low", "ci_high",
                        "interval_level", "pvalue", "verdict")  # fmt: skip

    @property
    def simulated(self) -> bool:
        return any(r.simulated for r in self.results)

    def _summary_meta(self) -> dict[str, str]:
        estimands = {r.estimand for r in self.results if r.estimand}
        return {
            "Estimand": (next(iter(estimands)) if len(estimands) == 1 else
                         "one per claim (notes below; column 'estimand' of to_frame())"),
            "Method": "one per claim (notes below; column 'method' of to_frame())",
            "Tests": "'difference': two-sided test of 0 with its interval at 'interval_level'; "
            "'equivalence': TOST p-value of |value| < margin with its 1 - 2 alpha interval; "
            "'posterior': a posterior probability (no p-value)",
            **{k: v for k, v in super()._summary_meta().items() if k not in ("Estimand", "Method")},
        }  # fmt: skip

    def _summary_notes(self) -> list[str]:
        return [f"({r.claim}) {r.verdict}. Rule: {r.rule}. Method: {r.method or '-'}. "
                f"Estimand: {r.estimand or '-'}." for r in self.results]  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per tested quantity of every claim."""
        return pd.concat([r.to_frame() for r in self.results], ignore_index=True)

    def verdicts(self) -> pd.DataFrame:
        """One row per claim: statement, verdict, power and participants needed."""
        return pd.DataFrame([{"claim": r.claim, "statement": r.statement, "verdict": r.verdict,
                              "power": r.power, "participants_needed": r.participants_needed,
                              "posterior_probability": r.posterior_probability}
                             for r in self.results])  # fmt: skip

    def details(self) -> pd.DataFrame:
        """The supporting tables of every claim, stacked with a ``claim`` column.

        Column ``seed``: the seed that reruns the row: a sub-analysis's own seed where it
        records one, otherwise its claim's seed. (Every row has one, so the column of a CSV
        of this table reads back as the exact 63-bit integers; a column with gaps would be
        read as floats.)
        """
        frames = []
        for r in self.results:
            if r.details.empty:
                continue
            frame = r.details.assign(claim=r.claim)
            own = frame["seed"] if "seed" in frame else pd.Series(None, index=frame.index)
            frame["seed"] = pd.Series(
                [r.seed if _missing(s) else s for s in own], index=frame.index, dtype=object
            )
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def __getitem__(self, claim: str) -> ClaimResult:
        for r in self.results:
            if r.claim == claim:
                return r
        raise KeyError(f"claim {claim!r} not in this audit; have {[r.claim for r in self.results]}")


def _f_part(evidence_row: Any) -> str:
    """Claim (f)'s part: the evidence role and, where the row compares one model, its name
    (twelve rows called "preference" do not say which model each is)."""
    role = str(evidence_row.get("role", evidence_row.get("part", "")))
    model = evidence_row.get("model")
    return f"{role} vs {model}" if isinstance(model, str) and model else role


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


# --------------------------------------------------------------------------------------------
# parts: tests, intervals, verdicts
# --------------------------------------------------------------------------------------------
def _t_pvalue(test: str, estimate: float, se: float, df: float, margin: float) -> float:
    if not (np.isfinite(estimate) and np.isfinite(se) and se > 0):
        return float("nan")
    if test == "equivalence":
        return float(max(stats.t.sf((estimate + margin) / se, df),
                         stats.t.cdf((estimate - margin) / se, df)))  # fmt: skip
    return float(2.0 * stats.t.sf(abs(estimate / se), df))


def t_parts(parts: list[dict[str, Any]], *, alpha: float, family: str) -> list[dict[str, Any]]:
    """Holm over the parts (t statistics): adjusted p-values and intervals at Holm's levels.

    Each part has ``test`` (``"difference"`` or ``"equivalence"``), ``estimate``,
    ``standard_error``, ``df`` and, for equivalence, ``margin``.
    """
    raw = np.array([_t_pvalue(p["test"], p["estimate"], p["standard_error"], p["df"],
                              p.get("margin", np.nan)) for p in parts])  # fmt: skip
    adjusted = adjust_pvalues(raw, method="holm") if len(parts) > 1 else raw
    levels = interval_alpha("holm", raw, adjusted, alpha) if len(parts) > 1 else np.full(1, alpha)
    out = []
    for p, p_raw, p_adj, a_k in zip(parts, raw, adjusted, levels, strict=True):
        two_sided = p["test"] == "difference"
        q = stats.t.ppf(1.0 - (a_k / 2.0 if two_sided else a_k), p["df"])
        out.append({**p, "ci_low": p["estimate"] - q * p["standard_error"],
                    "ci_high": p["estimate"] + q * p["standard_error"],
                    "interval_level": 1.0 - a_k if two_sided else 1.0 - 2.0 * a_k,
                    "pvalue": p_adj, "pvalue_unadjusted": p_raw,
                    "family": family if len(parts) > 1 else "single test"})  # fmt: skip
    return out


def _shown(row: dict[str, Any]) -> tuple[bool, bool]:
    lo, hi = row["ci_low"], row["ci_high"]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return False, False
    if row["test"] == "equivalence":
        m = row["margin"]
        return bool(lo > -m and hi < m), bool(lo >= m or hi <= -m)
    if row["claimed"] == "positive":
        return bool(lo > 0), bool(hi < 0)
    if row["claimed"] == "negative":
        return bool(hi < 0), bool(lo > 0)
    return bool(lo > 0 or hi < 0), False  # "nonzero"


def part_frame(claim: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The parts table of a claim (shown / opposite computed from each row's own interval).

    Without tested rows (e.g. a fit that failed its gate) the table has one row with only
    ``claim`` set and nothing shown, so that the claim stays visible in the audit's tables.
    """
    if not rows:
        empty = pd.DataFrame({"claim": [claim]}, columns=list(PART_COLUMNS))
        numeric = ("estimate", "ci_low", "ci_high", "interval_level", "margin", "pvalue",
                   "pvalue_unadjusted", "n_units")  # fmt: skip
        return empty.astype(dict.fromkeys(numeric, float)).assign(
            part="(none tested)", claimed="", test="", shown=False, opposite_shown=False
        )
    done = []
    for r in rows:
        shown, opposite = _shown(r)
        done.append({"claim": claim, "margin": np.nan, "n_units": np.nan, "unit": "", **r,
                     "shown": shown, "opposite_shown": opposite})  # fmt: skip
    frame = pd.DataFrame(done)
    extra = [c for c in frame.columns if c not in PART_COLUMNS]
    return frame[[c for c in PART_COLUMNS if c in frame.columns] + extra]


def verdict_of(parts: pd.DataFrame, power: float | None = None) -> str:
    """Supported / contradicted / not decidable / inconclusive from a parts table."""
    if len(parts) and parts["shown"].all():
        return "supported"
    if parts["opposite_shown"].any():
        return "contradicted"
    if power is not None and np.isfinite(power) and power < 0.8:
        return "not decidable at this sample size"
    return "inconclusive"


def t_power(parts: list[dict[str, Any]], alpha: float, n_units: int) -> tuple[float, float]:
    """Power to show every part (each at its true claimed size) and participants for 80%.

    The true value of each part is taken to be its estimate (0 for equivalence parts, the
    claim's most favourable case); a difference part is shown only on its claimed side, so an
    estimate on the other side gives it almost no power. Each part is tested as the audit tests
    it: a t test on the part's own (working-model) df, scaled to ``n`` participants as
    ``df (n - 1) / (P - 1)``, with the SE scaling as ``1 / sqrt(n)``, and Holm over the parts
    (all parts shown means the sorted p-values pass Holm's steps ``alpha / k, ...,
    alpha``). The parts are taken as independent: a rough planning number, labelled as such.
    Both are NaN when a part has no positive, finite standard error (e.g. a metric every
    predictor scores the same): the power of such a part is not defined.
    """
    ses = np.array([float(p["standard_error"]) for p in parts], dtype=float)
    if not len(ses) or not (np.isfinite(ses) & (ses > 0)).all():
        return np.nan, np.nan
    k = len(parts)
    levels = alpha / np.arange(k, 0, -1)  # Holm's steps: alpha / k, ..., alpha

    def reject(p: dict[str, Any], n: float, level: float) -> float:
        """Probability that the part's test rejects at ``level`` with ``n`` participants."""
        se = p["standard_error"] * np.sqrt(n_units / n)
        df = max(float(p.get("df", n_units - 1.0)) * (n - 1.0) / max(n_units - 1.0, 1.0), 1.0)
        if p["test"] == "equivalence":
            z = p["margin"] / se - stats.t.ppf(1 - level, df)
            return max(2 * stats.t.cdf(z, df) - 1, 0.0) if z > 0 else 0.0
        q = stats.t.ppf(1 - level / 2, df)
        claimed = p.get("claimed")
        delta = {"positive": p["estimate"], "negative": -p["estimate"]}.get(
            claimed, abs(p["estimate"])
        )
        return float(stats.t.sf(q - delta / se, df))

    def power_at(n: float) -> float:
        # P(p_i <= level_j) for every part and step; a part's p-value falls in bin j when it is
        # below step j but not step j - 1 (bin k: above alpha); Holm shows all parts when, for
        # every j, at least j p-values lie below step j
        cdf = np.array([[reject(p, n, a) for a in levels] for p in parts])  # (k, k), rising
        bins = np.diff(np.column_stack([np.zeros(k), cdf]), axis=1)  # (k, k) bin probabilities
        total = 0.0
        for assignment in itertools.product(range(k), repeat=k):
            counts = np.cumsum(np.bincount(assignment, minlength=k))
            if np.all(counts >= np.arange(1, k + 1)):
                total += float(np.prod(bins[np.arange(k), assignment]))
        return total

    return power_at(float(n_units)), smallest_n_for_power(power_at, n_units)


def smallest_n_for_power(power_at: Any, start: float, *, target: float = 0.8,
                         upper: int = 20_000) -> float:  # fmt: skip
    """The smallest number of participants ``n >= max(start, 3)`` with ``power_at(n) >= target``
    (bisection: the power rises with ``n``, as the SE shrinks and the df grow); NaN when even
    ``upper`` participants do not reach it (or the power is undefined)."""
    lo, hi = max(int(start), 3), upper
    if not power_at(float(hi)) >= target:
        return float("nan")
    if power_at(float(lo)) >= target:
        return float(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power_at(float(mid)) >= target else (mid, hi)
    return float(hi)


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
    w = np.ones(len(metrics)) / len(metrics) if weights is None else np.asarray(weights, float)
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
        in_a, in_b = (group == level_a).to_numpy(), (group == level_b).to_numpy()
        cols += [np.where(ok & in_a, np.nan_to_num(y), 0.0), (ok & in_a).astype(float),
                 np.where(ok & in_b, np.nan_to_num(y), 0.0), (ok & in_b).astype(float)]  # fmt: skip
    X = np.column_stack(cols)

    def finalize(sums: np.ndarray) -> np.ndarray:
        out = np.empty((sums.shape[0], len(names)))
        for k in range(len(names)):
            s = sums[:, 4 * k : 4 * k + 4]
            out[:, k] = s[:, 0] / s[:, 1] - s[:, 2] / s[:, 3]
        return out

    return SumStatistic(X, finalize, pd.DataFrame({"outcome": names}))


def _untestable(c: str, exc: Exception, confidence_level: float, simulated: bool,
                seed: Any) -> ClaimResult:  # fmt: skip
    return ClaimResult(
        claim=c, statement=CLAIMS[c], verdict="not testable", rule=f"not testable: {exc}",
        method="none (not testable)", estimand="none (not testable)", confidence_level=confidence_level, simulated=simulated,
        parts=pd.DataFrame({"claim": [c]}, columns=list(PART_COLUMNS)), seed=seed,
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
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    n_resamples: int | None = None,
) -> ClaimResult:
    """Claim (b): D(metric) - D(emotion F1) > 0 for the preference and response-quality metrics.

    D is the discrimination index of :mod:`attunestats.inference.compare` (true between-model
    variance over the participant-level noise of paired differences), comparable across metrics.
    One part per target metric; each part's interval combines the two noncentral-F intervals
    (Bonferroni) at the level Holm tested it at, and its p-value is the Holm-adjusted inversion
    of that same interval, so they agree. Metrics absent from the release are skipped and listed.
    ``n_resamples`` is accepted for the audit's uniform call and not used.
    """
    from attunestats.inference.compare import (
        _interval_pvalue,
        compare_models,
        discrimination_interval,
    )

    del n_resamples
    models = _models(scores)
    present = set(scores.conversation["metric"])
    targets = [m for m in (*preference, *response) if m in present]
    skipped = [m for m in (*preference, *response) if m not in present]
    if reference not in present or not targets:
        raise ValueError(
            f"claim (b) needs {reference!r} and at least one of {list(preference) + list(response)}"
        )
    from attunestats.inference.participants import infer_scores

    inf = infer_scores(scores, metrics=[reference, *targets], predictors=models,
                       confidence_level=confidence_level)  # fmt: skip
    cmp = compare_models(inf, correction="none", rng=rng, n_draws=1000)
    disc = cmp.discrimination.set_index("metric")
    alpha = 1.0 - confidence_level

    def interval_for(a: str, b: str):
        ra, rb = disc.loc[a], disc.loc[b]

        def interval(level: float) -> tuple[float, float]:
            lo_a, hi_a = discrimination_interval(ra["sni"], int(ra["n_predictors"]),
                                                 int(ra["df_noise"]), level)  # fmt: skip
            lo_b, hi_b = discrimination_interval(rb["sni"], int(rb["n_predictors"]),
                                                 int(rb["df_noise"]), level)  # fmt: skip
            return lo_a - hi_b, hi_a - lo_b

        return interval

    raw = np.array([_interval_pvalue(interval_for(m, reference)) for m in targets])
    adjusted = adjust_pvalues(raw, method="holm")
    levels = interval_alpha("holm", raw, adjusted, alpha)
    rows = []
    for m, p_raw, p_adj, a_k in zip(targets, raw, adjusted, levels, strict=True):
        lo, hi = interval_for(m, reference)(1.0 - a_k / 2.0)
        rows.append({
            "part": m, "quantity": f"D({m}) - D({reference})", "claimed": "positive",
            "test": "difference", "estimate": float(disc.loc[m, "discrimination"]
                                                    - disc.loc[reference, "discrimination"]),
            "ci_low": lo, "ci_high": hi, "interval_level": 1.0 - a_k, "pvalue": p_adj,
            "pvalue_unadjusted": p_raw, "family": f"Holm over {len(targets)} contrast(s)",
            "n_units": inf.n_participants, "unit": "participants",
        })  # fmt: skip
    parts = part_frame("b", rows)
    return ClaimResult(
        claim="b", statement=CLAIMS["b"], verdict=verdict_of(parts),
        rule="supported if D(m) - D(emotion F1) > 0 is shown for every preference/response metric "
        "(Holm over the metrics; each interval combines two noncentral-F intervals at the level "
        "Holm tested it at); contradicted if one is shown < 0"
        + (f"; skipped (absent): {skipped}" if skipped else ""),
        method="discrimination index D = sni - 1 with noise from the participant jackknife; "
        "noncentral-F intervals, Bonferroni-combined",
        estimand=ESTIMANDS["participants"], confidence_level=confidence_level,
        simulated=_simulated(scores), parts=parts, seed=seed_record(rng),
        details=cmp.discrimination,
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
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    n_resamples: int | None = None,
) -> ClaimResult:
    """Claim (c): affect tracking lower and behaviour accuracy higher for ``group`` than
    ``reference_group``.

    Outcomes per conversation are averaged over the evaluated models; each part is the difference
    of group means (``group - reference_group``). Diagnosis is a participant trait, so the
    participants are the units: the jackknife deletes one participant at a time within diagnosis
    groups (strata), with Satterthwaite (Welch) degrees of freedom; with a handful of
    participants per group the intervals are wide, honestly. Holm over the two parts.
    ``n_resamples`` and ``rng`` are accepted for the audit's uniform call and not used.
    """
    del n_resamples
    design = scores.design.sort_values("conversation_id", ignore_index=True)
    outcomes = pd.DataFrame({
        "affect": _model_average(scores, affect).reindex(design["conversation_id"]).to_numpy(),
        "behaviour": _model_average(scores, behaviour).reindex(design["conversation_id"]).to_numpy(),
    })  # fmt: skip
    groups = design["diagnosis_group"].astype(str)
    for g in (group, reference_group):
        n = design.loc[groups == g, "participant_id"].nunique()
        if n < 2:
            raise ValueError(f"claim (c) needs >= 2 participants in group {g!r}; found {n}")
    keep = groups.isin([group, reference_group]).to_numpy()
    stat = _contrast_statistic(outcomes[keep].reset_index(drop=True),
                               groups[keep].reset_index(drop=True), group, reference_group)  # fmt: skip
    res = participant_inference(stat, design[keep].reset_index(drop=True),
                                strata="diagnosis_group", confidence_level=confidence_level)  # fmt: skip
    base = [
        {"part": "affect", "quantity": f"affect tracking ({'+'.join(affect)}), {group} - "
         f"{reference_group}", "claimed": "negative"},
        {"part": "behaviour", "quantity": f"behaviour accuracy ({'+'.join(behaviour)}), {group} - "
         f"{reference_group}", "claimed": "positive"},
    ]  # fmt: skip
    rows = [{**b, "test": "difference", "estimate": float(res.estimate[k]),
             "standard_error": float(res.standard_error[k]), "df": float(res.df[k]),
             "n_units": res.n_participants, "unit": "participants"}
            for k, b in enumerate(base)]  # fmt: skip
    rows = t_parts(rows, alpha=1.0 - confidence_level, family="Holm over the 2 parts")
    parts = part_frame("c", rows)
    power, needed = t_power(rows, 1.0 - confidence_level, res.n_participants)
    return ClaimResult(
        claim="c", statement=CLAIMS["c"], verdict=verdict_of(parts, power),
        rule="supported if the affect difference is shown < 0 and the behaviour difference > 0 "
        "(Holm over the two parts, t intervals at Holm's levels); contradicted if either is shown "
        "in the opposite direction; 'not decidable at this sample size' if neither and the power "
        "to show both (at the estimated effects) is below 0.8",
        method="stratified participant jackknife (diagnosis groups), Welch-Satterthwaite t",
        estimand=ESTIMANDS["participants"], confidence_level=confidence_level,
        simulated=_simulated(scores), parts=parts, seed=seed_record(rng), power=power,
        participants_needed=needed,
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

    Phases as in :func:`attunestats.inference.dynamics.turn_phases` (early ``x <= 1/3``, late
    ``x >= 2/3``; conversations with fewer than 3 scored turns left out). ``outcomes`` maps a
    name to turn-metric weights (default: behaviour = ``binary_om_accuracy``; affect =
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
    scored = set(phases.loc[phases["value"].notna(), "metric"])
    empty = [m for m in needed if m not in scored]
    if empty:  # a metric no conversation scores cannot enter an early/late change
        raise ValueError(f"early/late changes need turn metrics {empty}, which have no value in "
                         "the early and late turns of any conversation of these scores")  # fmt: skip
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
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    n_resamples: int | None = None,
) -> ClaimResult:
    """Claim (e): behaviour accuracy falls from early to late turns; affect stays within a margin.

    Part "behaviour": the late - early change of binary OM accuracy (model average), two-sided
    test, claimed negative. Part "affect": equivalence of the change of ``0.5 emotion F1 + 0.5 VA
    score`` within ``+-equivalence_margin`` (two one-sided tests; its interval is at level
    ``1 - 2 alpha``). The default margin, 0.05 on the 0-1 scale, is our choice of a smallest
    change of interest (the paper gives no number). Participant jackknife, Holm over the parts.
    ``n_resamples`` and ``rng`` are accepted for the audit's uniform call and not used.
    """
    del n_resamples
    margin = float(equivalence_margin)
    if not margin > 0:
        raise ValueError(f"equivalence_margin must be > 0; got {equivalence_margin!r}")
    change = early_late_changes(scores)
    design = scores.design.set_index("conversation_id").loc[change.index].reset_index()
    values = change[["behaviour", "affect"]].to_numpy(dtype=float)
    stat = mean_statistic(values, pd.DataFrame({"outcome": ["behaviour", "affect"]}))
    res = participant_inference(stat, design, confidence_level=confidence_level)
    rows = [
        {"part": "behaviour", "quantity": "late - early, binary OM accuracy (model average)",
         "claimed": "negative", "test": "difference"},
        {"part": "affect", "quantity": "late - early, 0.5 emotion F1 + 0.5 VA score (model average)",
         "claimed": f"within +-{margin:g}", "test": "equivalence", "margin": margin},
    ]  # fmt: skip
    rows = [{**r, "estimate": float(res.estimate[k]), "standard_error": float(res.standard_error[k]),
             "df": float(res.df[k]), "n_units": res.n_participants, "unit": "participants"}
            for k, r in enumerate(rows)]  # fmt: skip
    rows = t_parts(rows, alpha=1.0 - confidence_level, family="Holm over the 2 parts")
    parts = part_frame("e", rows)
    power, needed = t_power(rows, 1.0 - confidence_level, res.n_participants)
    return ClaimResult(
        claim="e", statement=CLAIMS["e"], verdict=verdict_of(parts, power),
        rule=f"supported if the behaviour change is shown < 0 and the affect change is shown within "
        f"+-{margin:g} (TOST), Holm over the two parts; contradicted if behaviour is shown to rise "
        f"or affect to move beyond +-{margin:g}; 'not decidable at this sample size' if neither and "
        "the power to show both is below 0.8",
        method="participant jackknife of per-conversation late - early changes, t (TOST for affect)",
        estimand=ESTIMANDS["participants"], confidence_level=confidence_level,
        simulated=_simulated(scores), parts=parts, seed=seed_record(rng), power=power,
        participants_needed=needed,
        details=pd.DataFrame({"n_conversations": [len(change)]}),
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
    release: Any = None,
    **options: Any,
) -> ClaimsAudit:
    """Test each claim in ``claims`` on ``scores``; each gets its own child seed of ``rng``.

    ``rng`` is the root seed (an int, or anything :func:`attunestats._rng.root_seed` accepts);
    claim ``c`` uses ``child_seed(root, "claim-c")``, so one claim tested alone gives the same
    numbers as in the full audit. ``release`` (the Release the scores come from) lets claim (f)
    compare humans and models on the units the humans rated. ``options`` maps a claim letter to
    keyword arguments of its function (e.g. ``a={"margin": 0.2}``).

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())
    >>> audit = at.audit_claims(scores, claims=("b", "e"), n_resamples=200, rng=1)
    >>> audit
    <ClaimsAudit: 4 rows; SIMULATED>
    >>> audit.to_frame()[["claim", "part", "test", "verdict"]]
      claim                   part         test    verdict
    0     b  avg_pairwise_accuracy   difference  supported
    1     b  avg_draft_judge_score   difference  supported
    2     e              behaviour   difference  supported
    3     e                 affect  equivalence  supported
    >>> print(audit.summary())  # rules, methods and estimands of every claim  # doctest: +SKIP
    """
    from attunestats.inference.claims_independence import claim_a, claim_g
    from attunestats.inference.claims_topic import claim_d

    seed = root_seed(rng)
    functions = {"a": claim_a, "b": claim_b, "c": claim_c, "d": claim_d, "e": claim_e,
                 "f": claim_f, "g": claim_g}  # fmt: skip
    unknown = [c for c in claims if c not in functions]
    if unknown:
        raise ValueError(f"claims {unknown} are not available; available: {sorted(functions)}")
    results = []
    for c in claims:
        kwargs = dict(options.get(c, {}))
        if c == "f" and release is not None:
            kwargs.setdefault("release", release)
        claim_rng = child_seed(seed, f"claim-{c}")
        try:
            results.append(functions[c](scores, n_resamples=n_resamples,
                                        confidence_level=confidence_level, rng=claim_rng,
                                        **kwargs))  # fmt: skip
        except ValueError as exc:  # the release lacks what the claim needs: say so, do not guess
            results.append(_untestable(c, exc, confidence_level, _simulated(scores), claim_rng))
    return ClaimsAudit(tuple(results))


def claim_f(
    scores: Any,
    *,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    release: Any = None,
) -> ClaimResult:
    """Claim (f) through :func:`attunestats.baseline.claim_f` (rule: ``baseline.CLAIM_F_RULE``).

    Each evidence row of the baseline's test is one part (its interval and p-value come from the
    same procedure there).
    """
    from attunestats.baseline import claim_f as baseline_claim_f

    kwargs: dict[str, Any] = {"correction": "holm", "confidence_level": confidence_level,
                              "rng": rng}  # fmt: skip
    if release is not None:
        kwargs["release"] = release
    res = baseline_claim_f(scores, n_resamples=n_resamples, **kwargs)
    ev = res.evidence
    rows = []
    for _, e in ev.iterrows():
        claimed = "positive" if str(e.get("claimed", "")).startswith(("beat", "higher", "pos")) else (
            "negative" if str(e.get("claimed", "")).startswith(("below", "lower", "neg", "weak"))
            else ("positive" if e.get("role") == "preference" else "negative")
        )  # fmt: skip
        rows.append({
            "part": _f_part(e), "quantity": str(e.get("quantity", e.get("metric", ""))),
            "claimed": claimed, "test": "difference", "estimate": float(e["difference"]),
            "ci_low": float(e["ci_low"]), "ci_high": float(e["ci_high"]),
            "interval_level": float(e.get("interval_level", confidence_level)),
            "pvalue": float(e.get("pvalue_adjusted", e.get("pvalue", np.nan))),
            "pvalue_unadjusted": float(e.get("pvalue", np.nan)),
            "family": str(e.get("family", "see claim (f) rule")),
            "n_units": e.get("n_units", np.nan), "unit": str(e.get("unit", "")),
        })  # fmt: skip
    parts = part_frame("f", rows)
    return ClaimResult(
        claim="f", statement=CLAIMS["f"], verdict=res.verdict, rule=res.rule,
        method=getattr(res, "method", "paired humans vs models comparison"),
        estimand=getattr(res, "estimand", ""), confidence_level=confidence_level,
        simulated=bool(res.simulated), parts=parts, seed=seed_record(rng), details=ev,
        power=float(getattr(res, "power", np.nan)),
        participants_needed=float(getattr(res, "participants_needed", np.nan)),
    )  # fmt: skip
