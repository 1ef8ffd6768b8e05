"""Claims (a) and (g): the structure of capabilities across the evaluated models.

Both are about *these* models' rankings (the models are fixed; the participants are the sample):
the quantity is the noise-corrected correlation between two capabilities of the models' true
scores, with the uncertainty of the participant cluster bootstrap of
:mod:`attunestats.independence` (the models' scores resampled by participant inside a
noise-deflated bootstrap world; see
:func:`~attunestats.independence.noise_corrected_correlations`). The interval and the p-value of
each part come from the same bootstrap distribution ``F``:

- a two-sided test of ``rho = 0`` has ``p = 2 min(F(0), 1 - F(0-))`` and the equal-tailed
  percentile interval of level ``1 - alpha`` excludes 0 exactly when ``p < alpha``;
- the equivalence test of ``|rho| < margin`` has ``p = max(F(-margin), 1 - F(margin-))`` (two
  one-sided tests) and the percentile interval of level ``1 - 2 alpha`` lies inside the margins
  exactly when ``p < alpha``.

What correlations across *models in general* would be is a different question that 11 models
cannot settle (a correlation from 11 points has a 95% interval of about +-0.55); the
population-of-models interval is in each claim's details.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.inference.claims import (
    CLAIMS,
    ClaimResult,
    _simulated,
    part_frame,
    verdict_of,
)

CLAIM_A_METRICS = {
    "emotion": "avg_emotion_f1",
    "behaviour": "avg_binary_om_accuracy",
    "preference": "avg_pairwise_accuracy",
    "response": "avg_draft_judge_score",
}
CLAIM_G_METRICS = {"holistic": "holistic_comprehension", "turn_level": "turn_level_average"}

ESTIMAND = (
    "correlation between two capabilities of these models' true scores on the population of "
    "participants (noise removed); about these models, not models in general: for models in "
    "general see details' population_ci_low/high, the intervals behind "
    "capability_independence's verdicts, which a dozen models rarely decide"
)


UNDEFINED_NOTE = (
    "estimate 'undefined': a capability's true-score variance across the models is estimated "
    "<= 0 (its differences between models are within noise), so the correlation has no value; "
    "the interval is that of the resamples, clamped to [-1, 1] (none when every model scores "
    "that capability the same)"
)


def _estimate(pair: Any) -> float:
    """The corrected correlation, or NaN where it is undefined (never the clamped limit +-1)."""
    return float(pair["corrected"]) if pair["flag"] != "undefined" else np.nan


def _flags(pair: Any) -> dict[str, Any]:
    """Columns saying how far to trust a part's estimate: the flag of
    :func:`~attunestats.independence.noise_corrected_correlations` (``"ok"``, ``"clamped"`` past
    +-1, ``"undefined"``) and the share of resamples in which the correlation was undefined."""
    return {"estimate_flag": str(pair["flag"]),
            "share_undefined": float(pair["share_undefined"])}  # fmt: skip


def _undefined_rule(parts: pd.DataFrame) -> str:
    flagged = parts.loc[parts["estimate_flag"] == "undefined", "part"].tolist()
    return f"; {UNDEFINED_NOTE}: {flagged}" if flagged else ""


def _bounds(dist: np.ndarray, tail: float) -> tuple[float, float]:
    """``(low, high)``: the limits of the values that :func:`_tails` does not reject at ``tail``.

    With ``n`` finite draws sorted, ``low`` is the ``k``-th smallest and ``high`` the ``k``-th
    largest, ``k = ceil(tail (n + 1)) - 1``: exactly the ``v`` with ``(1 + #(x <= v)) / (n + 1)
    >= tail`` (and the mirror), so an interval excludes a value precisely when the Monte Carlo
    p-value of :func:`_tails` is below ``tail``. Too few draws for ``tail`` (``k < 1``): the
    interval is unbounded.
    """
    x = np.sort(dist[np.isfinite(dist)])
    n = len(x)
    if n == 0:
        return np.nan, np.nan
    k = int(np.ceil(tail * (n + 1) - 1e-9)) - 1
    if k < 1:
        return -np.inf, np.inf
    k = min(k, n)
    return float(x[k - 1]), float(x[n - k])


def _tails(dist: np.ndarray, value: float) -> tuple[float, float]:
    """Monte Carlo tail probabilities ``((1 + #(x <= value)) / (n + 1), (1 + #(x >= value)) /
    (n + 1))`` over the ``n`` finite draws: never 0 (Davison and Hinkley 1997, sec. 4.2.1; the
    ``+1`` counts the observed sample), so the smallest p-value is ``1 / (n + 1)``."""
    x = dist[np.isfinite(dist)]
    if len(x) == 0:
        return np.nan, np.nan
    n = len(x)
    return float((1 + np.sum(x <= value)) / (n + 1)), float((1 + np.sum(x >= value)) / (n + 1))


def _correlations(data: Any, metrics: dict[str, str], *, n_resamples: int,
                  confidence_level: float, rng: RNGLike) -> tuple[Any, Any]:  # fmt: skip
    from attunestats.independence import capability_matrix, noise_corrected_correlations
    from attunestats.independence._matrix import MetricMatrix
    from attunestats.metrics.score import Scores

    gen = check_rng(rng)
    seeds = gen.integers(0, 2**63 - 1, size=2)
    if isinstance(data, Scores):
        present = set(data.conversation["metric"].unique())
        missing = {c: m for c, m in metrics.items() if m not in present}
        if missing:
            raise ValueError(f"metrics {sorted(missing.values())} are not in the scores")
        matrix = capability_matrix(data, metrics=metrics, unit="participant",
                                   n_resamples=n_resamples, confidence_level=confidence_level,
                                   rng=int(seeds[0]))  # fmt: skip
    elif isinstance(data, MetricMatrix):
        matrix = data
    else:
        raise TypeError(f"data must be Scores or a MetricMatrix; got {type(data).__name__}")
    nc = noise_corrected_correlations(matrix, confidence_level=confidence_level,
                                      rng=int(seeds[1]))  # fmt: skip
    return matrix, nc


def claim_a(
    data: Any,
    *,
    metrics: dict[str, str] | None = None,
    margin: float = 0.3,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (a): every pair of capabilities has ``|rho| < margin`` (rankings largely independent).

    One part per pair of capabilities (default :data:`CLAIM_A_METRICS`; capabilities without their
    metric in the release drop out): the equivalence test of ``|rho| < margin`` (TOST), its
    interval at level ``1 - 2 alpha``. "Largely independent" is read as every pair shown inside
    ``(-margin, margin)`` (``margin = 0.3`` by default, a "small" correlation; our reading: the
    paper gives no number): an intersection-union test, each pair at level alpha, no correction.
    Contradicted if some pair is shown outside the margin (its ``1 - alpha / K`` interval entirely
    beyond ``+-margin``; Bonferroni over the K pairs, in ``details``). Otherwise, with the power
    to show a true claim (all correlations 0) below 0.8, the verdict is "not decidable at this
    sample size" with the participants that would give 0.8 (the bootstrap SD taken to shrink as
    ``1 / sqrt(P)``: a planning number).
    """
    from attunestats.metrics.score import Scores

    if not 0 < margin < 1:
        raise ValueError(f"margin must be in (0, 1); got {margin!r}")
    metrics = dict(metrics or CLAIM_A_METRICS)
    skipped: list[str] = []
    if isinstance(data, Scores):
        present = set(data.conversation["metric"].unique())
        skipped = [c for c, m in metrics.items() if m not in present]
        metrics = {c: m for c, m in metrics.items() if m in present}
        if len(metrics) < 2:
            raise ValueError(f"claim (a) needs at least two of {list(CLAIM_A_METRICS.values())}")
    alpha = 1.0 - confidence_level
    matrix, nc = _correlations(data, metrics, n_resamples=n_resamples,
                               confidence_level=confidence_level, rng=rng)  # fmt: skip
    pairs = nc.pairs
    dist = nc.sample_distribution
    n_pairs = len(pairs)
    n_part = _n_participants(data)
    rows, related = [], []
    for j, pair in pairs.iterrows():
        d = dist[:, j]
        below, _ = _tails(d, -margin)
        _, above = _tails(d, margin)
        p_tost = max(below, above)
        lo, hi = _bounds(d, alpha)
        rows.append({
            "part": f"{pair['capability_a']} vs {pair['capability_b']}",
            "quantity": f"noise-corrected correlation across models, {pair['metric_a']} vs "
            f"{pair['metric_b']}", "claimed": f"within +-{margin:g}", "test": "equivalence",
            "margin": margin, "estimate": _estimate(pair), "ci_low": lo, "ci_high": hi,
            "interval_level": 1.0 - 2.0 * alpha, "pvalue": p_tost, "pvalue_unadjusted": p_tost,
            "family": "intersection-union (every pair at alpha)", "n_units": n_part,
            "unit": "participants", **_flags(pair),
        })  # fmt: skip
        lo_r, hi_r = _bounds(d, alpha / (2.0 * n_pairs))
        related.append({"pair": rows[-1]["part"], "related_ci_low": lo_r, "related_ci_high": hi_r,
                        "shown_related": bool(lo_r >= margin or hi_r <= -margin),
                        "population_ci_low": float(pair["ci_low"]),
                        "population_ci_high": float(pair["ci_high"]),
                        "bootstrap_sd": float(np.nanstd(d, ddof=1))})  # fmt: skip
    parts = part_frame("a", rows)
    # contradiction: a pair shown beyond the margin at alpha / K (Bonferroni over the pairs)
    shown_related = np.array([r["shown_related"] for r in related])
    parts["opposite_shown"] = shown_related
    sds = np.array([r["bootstrap_sd"] for r in related])
    power, needed = _equivalence_power(sds, margin, alpha, n_part)
    verdict = verdict_of(parts, power)
    details = pd.DataFrame(related)
    details["power_this_size"] = power
    return ClaimResult(
        claim="a", statement=CLAIMS["a"], verdict=verdict,
        rule=f"supported if every pair's {1 - 2 * alpha:.0%} interval of the noise-corrected "
        f"correlation lies inside (-{margin:g}, {margin:g}) (TOST, intersection-union); "
        f"contradicted if some pair's {1 - alpha / n_pairs:.1%} interval (Bonferroni over "
        f"{n_pairs} pairs) lies entirely beyond +-{margin:g}; 'not decidable at this sample size' "
        "if neither and the power to support the claim when every correlation is 0 is below 0.8"
        + (f"; capabilities without their metric: {skipped}" if skipped else "")
        + _undefined_rule(parts),
        method="noise-corrected correlations of the models' scores, participant cluster bootstrap "
        f"({n_resamples} resamples), percentile intervals",
        estimand=ESTIMAND, confidence_level=confidence_level, simulated=_data_simulated(data),
        parts=parts, seed=seed_record(rng), power=power, participants_needed=needed,
        details=details,
    )  # fmt: skip


def claim_g(
    data: Any,
    *,
    metrics: dict[str, str] | None = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (g): holistic understanding and turn-level performance are negatively related.

    One part: the noise-corrected correlation across models between the holistic pillar and the
    turn-level average (default :data:`CLAIM_G_METRICS`), two-sided test of 0 with its
    ``1 - alpha`` percentile interval (same bootstrap distribution); supported if shown < 0,
    contradicted if shown > 0.
    """
    metrics = dict(metrics or CLAIM_G_METRICS)
    alpha = 1.0 - confidence_level
    _, nc = _correlations(data, metrics, n_resamples=n_resamples,
                          confidence_level=confidence_level, rng=rng)  # fmt: skip
    pair = nc.pairs.iloc[0]
    d = nc.sample_distribution[:, 0]
    below, above = _tails(d, 0.0)
    p = float(min(1.0, 2.0 * min(below, above)))
    lo, hi = _bounds(d, alpha / 2.0)
    rows = [{
        "part": f"{pair['capability_a']} vs {pair['capability_b']}",
        "quantity": f"noise-corrected correlation across models, {pair['metric_a']} vs "
        f"{pair['metric_b']}", "claimed": "negative", "test": "difference",
        "estimate": _estimate(pair), "ci_low": lo, "ci_high": hi,
        "interval_level": confidence_level, "pvalue": p, "pvalue_unadjusted": p,
        "family": "single test", "n_units": _n_participants(data), "unit": "participants",
        **_flags(pair),
    }]  # fmt: skip
    parts = part_frame("g", rows)
    details = nc.pairs.rename(columns={"ci_low": "population_ci_low",
                                       "ci_high": "population_ci_high"})  # fmt: skip
    return ClaimResult(
        claim="g", statement=CLAIMS["g"], verdict=verdict_of(parts),
        rule="supported if the noise-corrected correlation is shown < 0 (its interval below 0, "
        "equivalently p < alpha with a negative estimate); contradicted if shown > 0"
        + _undefined_rule(parts),
        method="noise-corrected correlation of the models' scores, participant cluster bootstrap "
        f"({n_resamples} resamples), percentile interval; p from the same distribution",
        estimand=ESTIMAND, confidence_level=confidence_level, simulated=_data_simulated(data),
        parts=parts, seed=seed_record(rng), details=details,
    )  # fmt: skip


def _equivalence_power(sds: np.ndarray, margin: float, alpha: float,
                       n_part: int) -> tuple[float, float]:  # fmt: skip
    """Power of the intersection-union equivalence test when every correlation is 0, and the
    participants giving 0.8 (SDs scaled by ``sqrt(P_now / P)``; pairs taken as independent)."""

    def power_at(n: float) -> float:
        sd = sds * np.sqrt(n_part / n)
        z = margin / sd - stats.norm.ppf(1 - alpha)
        return float(np.prod(np.where(z > 0, 2 * stats.norm.cdf(z) - 1, 0.0)))

    if not n_part or not np.all(np.isfinite(sds)):
        return np.nan, np.nan
    now = power_at(float(n_part))
    needed = np.nan
    for n in range(n_part, 100_001):
        if power_at(float(n)) >= 0.8:
            needed = float(n)
            break
    return now, needed


def _n_participants(data: Any) -> int:
    design = getattr(data, "design", None)
    if design is not None and "participant_id" in design:
        return int(design["participant_id"].nunique())
    return 0


def _data_simulated(data: Any) -> bool:
    if hasattr(data, "release_info"):
        return _simulated(data)
    return bool(getattr(data, "simulated", False))
