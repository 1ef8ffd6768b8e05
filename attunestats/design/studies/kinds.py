"""The built-in study kinds and their replicate functions, registered with the runner.

``mean_coverage`` (coverage of the cluster-t interval of a clustered normal mean: a cheap, exactly
calibrated study), ``coverage`` (bootstrap interval coverage against population values,
:mod:`attunestats.design.coverage`), ``power_curve`` and ``release_power`` (simulated power,
:mod:`attunestats.design.power`), ``recovery`` (hierarchical model recovery against the
simulator's truth, :mod:`attunestats.hierarchical`); and :func:`summarise_coverage`.

Replicate and setup functions are registered by reference (``"package.module:function"``) and
imported only when a study runs, so registering costs nothing and the runner never imports the
statistics it runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from attunestats._rng import RNGLike, check_rng, root_seed
from attunestats.constants import SIMULATED_LABEL
from attunestats.design.studies.runner import register_study_kind

__all__ = [
    "CoverageContext",
    "coverage_setup",
    "coverage_study_replicate",
    "mean_coverage_replicate",
    "recovery_replicate",
    "summarise_coverage",
]


# --------------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------------
def summarise_coverage(
    frame: pd.DataFrame, *, by: Sequence[str] = ("kind",), confidence_level: float = 0.95
) -> pd.DataFrame:
    """Coverage per group with its Monte Carlo standard error.

    Intervals of one replicate share a release, so the Monte Carlo error is computed from the
    per-replicate coverages (between-replicate spread), not from the binomial formula over all
    intervals. ``mc_low``/``mc_high`` are Wilson score intervals at ``confidence_level`` for the
    expected coverage, on the effective number of intervals ``n_eff = c (1 - c) / mc_se^2``
    (Kish: the binomial count deflated by the clustering within replicates), so they stay inside
    [0, 1]; when ``c`` is 0 or 1 (no spread to estimate the clustering from) ``n_eff`` is the
    number of replicates, as if the intervals of a replicate were one.
    """
    from scipy import stats

    ok = not isinstance(confidence_level, bool) and isinstance(confidence_level, int | float)
    if not (ok and 0 < confidence_level < 1):
        raise ValueError(f"confidence_level must lie in (0, 1); got {confidence_level!r}")
    needed = {"replicate", "covered", *by}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValueError(f"frame lacks columns {missing} (is it a coverage study?)")
    z = float(stats.norm.ppf(0.5 + confidence_level / 2))
    rows = []
    keys = list(by)
    groups = frame.groupby(keys, sort=True) if keys else [((), frame)]
    for key, sub in groups:
        per_rep = sub.groupby("replicate")["covered"].mean()
        k = per_rep.size
        mean = float(per_rep.mean())
        se = float(per_rep.std(ddof=1) / math.sqrt(k)) if k > 1 else math.nan
        key = key if isinstance(key, tuple) else (key,)
        low, high = _wilson(mean, se, k, z)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "coverage": mean,
                "mc_se": se,
                "mc_low": low,
                "mc_high": high,
                "n_intervals": int(sub.shape[0]),
                "n_replicates": int(k),
                "simulated": True,
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["label"] = SIMULATED_LABEL
    return out


def _wilson(rate: float, se: float, n_replicates: int, z: float) -> tuple[float, float]:
    """Wilson score interval of a clustered proportion on its effective sample size."""
    if n_replicates < 2 or not math.isfinite(se):
        return math.nan, math.nan
    from attunestats.design._intervals import wilson_interval

    var = rate * (1.0 - rate)
    n_eff = var / se**2 if var > 0 and se > 0 else float(n_replicates)
    return wilson_interval(rate, n_eff, z)


# --------------------------------------------------------------------------------------------
# built-in study kinds
# --------------------------------------------------------------------------------------------
def mean_coverage_replicate(config: Mapping[str, Any], rng: RNGLike) -> pd.DataFrame:
    """One clustered normal sample; coverage of the cluster-level t and the naive t intervals.

    ``y[j, i] = mean + u[j] + e[j, i]`` for ``n_participants`` clusters of ``cluster_size``
    conversations, ``Var(u) = icc * sd^2``, ``Var(e) = (1 - icc) * sd^2``. The cluster-level t
    interval (t on the cluster means, ``n_participants - 1`` degrees of freedom) is exact, so its
    coverage equals ``confidence_level``; the naive t interval over all conversations ignores the
    clustering and undercovers when ``icc > 0`` (by about ``sqrt(design effect)`` in its width).
    """
    from scipy import stats

    g = int(config["n_participants"])
    m = int(config["cluster_size"])
    icc = float(config["icc"])
    sd = float(config["sd"])
    mu = float(config["mean"])
    level = float(config["confidence_level"])
    gen = check_rng(rng)
    u = gen.normal(0.0, sd * math.sqrt(icc), size=(g, 1))
    e = gen.normal(0.0, sd * math.sqrt(1.0 - icc), size=(g, m))
    y = mu + u + e
    rows = []
    cm = y.mean(axis=1)
    for name, values in (("cluster_t", cm), ("naive_t", y.ravel())):
        n = values.size
        est = float(values.mean())
        se = float(values.std(ddof=1) / math.sqrt(n))
        half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * se
        rows.append(
            {
                "kind": name,
                "estimate": est,
                "ci_low": est - half,
                "ci_high": est + half,
                "truth": mu,
                "covered": bool(est - half <= mu <= est + half),
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class CoverageContext:
    """Shared state of the coverage study: the population, its values and the study config."""

    effects: Any
    population: pd.DataFrame
    config: Mapping[str, Any]


def coverage_setup(config: Mapping[str, Any]) -> CoverageContext:
    """Population of the coverage study: effects and population values (deterministic)."""
    from dataclasses import replace

    from attunestats.design.coverage import population_values
    from attunestats.release.simulate import SCENARIOS, draw_effects

    scenario = config["scenario"]
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {sorted(SCENARIOS)}; got {scenario!r}")
    sim = SCENARIOS[scenario]
    overrides = dict(config.get("simulation") or {})
    if overrides:
        sim = replace(sim, **overrides)
    effects = draw_effects(sim, rng=int(config["effects_seed"]))
    population = population_values(
        effects,
        n_conversations=int(config["population_conversations"]),
        chunk_size=int(config["population_chunk_size"]),
        rng=int(config["population_seed"]),
        metrics=_coverage_metrics(config),
    )
    return CoverageContext(effects, population, dict(config))


def _coverage_metrics(config: Mapping[str, Any]) -> list[str]:
    if config.get("metrics"):
        return list(config["metrics"])
    from attunestats.metrics.registry import MAIN_METRICS, PILLAR_METRICS

    return sorted((set(MAIN_METRICS) | set(PILLAR_METRICS)) - {"composite_z"})


def coverage_study_replicate(context: CoverageContext, rng: RNGLike) -> pd.DataFrame:
    """One replicate of the coverage study (:func:`attunestats.design.coverage.coverage_replicate`)."""
    from attunestats.design.coverage import coverage_replicate

    config = context.config
    n_conv = config.get("n_conversations")
    return coverage_replicate(
        context.effects,
        context.population,
        rng,
        n_conversations=None if n_conv is None else int(n_conv),
        n_resamples=int(config["n_resamples"]),
        method=config["method"],
        unit=config["unit"],
        confidence_level=float(config["confidence_level"]),
        metrics=_coverage_metrics(config),
    )


register_study_kind(
    "mean_coverage",
    "attunestats.design.studies.kinds:mean_coverage_replicate",
    defaults={
        "n_participants": 10,
        "cluster_size": 5,
        "icc": 0.2,
        "sd": 1.0,
        "mean": 0.0,
        "confidence_level": 0.95,
    },
    description="coverage of the cluster-level and naive t intervals of a clustered normal mean",
)
register_study_kind(
    "coverage",
    "attunestats.design.studies.kinds:coverage_study_replicate",
    setup="attunestats.design.studies.kinds:coverage_setup",
    defaults={
        "scenario": "paper",
        "simulation": {"n_conversations": 200, "n_models": 5, "n_human_raters": 1},
        "effects_seed": 17,
        "population_conversations": 20_000,
        "population_chunk_size": 1000,
        "population_seed": 7,
        "n_conversations": None,
        "n_resamples": 1000,
        "method": "bca",
        "unit": "conversation",
        "confidence_level": 0.95,
        "metrics": None,
    },
    description="bootstrap interval coverage of model means and paired differences "
    "against population values (attunestats.design.coverage)",
)
register_study_kind(
    "power_curve",
    "attunestats.design.power.curve:power_curve_replicate",
    defaults=None,
    description="simulated power of a clustered contrast over a grid of sizes "
    "(attunestats.design.power.power_curve builds the config)",
)
register_study_kind(
    "release_power",
    "attunestats.design.power.release:release_power_replicate",
    setup="attunestats.design.power.release:release_power_setup",
    defaults=None,
    description="size and power of the paired bootstrap comparison of two predictors on full "
    "simulated releases (attunestats.design.power.release_power builds the config)",
)
_RECOVERY_MODELS = {
    "behaviour": "behaviour_model_from_scores",
    "preference": "preference_model_from_scores",
    "emotion": "emotion_model_from_scores",
    "holistic": "holistic_model_from_scores",
}


def recovery_replicate(config: Mapping[str, Any], rng: RNGLike) -> pd.DataFrame:
    """One hierarchical-recovery replicate: simulate a release, fit, compare with the truth.

    Draws a release (scenario ``config["scenario"]`` with ``config["simulation"]`` overrides,
    population and conversations from ``seed = root_seed(rng)``), scores it, builds the hierarchical model of
    ``config["capability"]`` (:mod:`attunestats.hierarchical`, ``*_model_from_scores`` with
    ``config["model_options"]``), samples it (``draws``, ``tune``, ``chains``; chains run one
    after the other, seeded by ``seed``) and returns
    :func:`attunestats.hierarchical.recovery.recovery_table` (posterior mean and interval of every
    identifiable quantity next to its true value, ``covered``, ``passed``) with the sampler's
    divergences.
    """
    from dataclasses import replace

    from attunestats import hierarchical as hier
    from attunestats.hierarchical.recovery import recovery_table, truth_from_simulation
    from attunestats.metrics.score import score
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import SCENARIOS, simulate_documents

    capability = config["capability"]
    if capability not in _RECOVERY_MODELS:
        raise ValueError(
            f"capability must be one of {sorted(_RECOVERY_MODELS)}; got {capability!r}"
        )
    sim = SCENARIOS[config["scenario"]]
    if config.get("simulation"):
        sim = replace(sim, **config["simulation"])
    seed = root_seed(rng)
    docs = simulate_documents(sim, rng=seed)
    scores = score(release_from_documents(docs.conversations, docs.runs, docs.release_info))
    build = getattr(hier, _RECOVERY_MODELS[capability])
    model = build(scores, **dict(config.get("model_options") or {}))
    result = hier.fit(
        model,
        draws=int(config["draws"]),
        tune=int(config["tune"]),
        chains=int(config["chains"]),
        cores=1,
        sampler=config.get("sampler", "auto"),
        rng=seed % (2**31),
        progress_bar=False,
    )
    truth = truth_from_simulation(json.loads(docs.files()["truth.json"]), capability)
    table = recovery_table(result, truth, ci_prob=float(config["ci_prob"]))
    return table.reset_index(drop=True)


register_study_kind(
    "recovery",
    "attunestats.design.studies.kinds:recovery_replicate",
    defaults={
        "capability": "behaviour",
        "scenario": "paper",
        "simulation": {"n_conversations": 60, "n_models": 4, "n_human_raters": 0, "n_topics": 10},
        "model_options": {},
        "draws": 300,
        "tune": 300,
        "chains": 2,
        "sampler": "auto",
        "ci_prob": 0.94,
    },
    description="hierarchical model parameter recovery against the simulator's truth "
    "(attunestats.hierarchical)",
)


def _participant_coverage_defaults() -> dict[str, Any]:
    from attunestats.design.participant_coverage import study_config

    return study_config()


register_study_kind(
    "participant_coverage",
    "attunestats.design.participant_coverage:replicate",
    setup="attunestats.design.participant_coverage:setup",
    defaults=_participant_coverage_defaults(),
    description="coverage, size and SE calibration of the participant-level intervals (jackknife, "
    "CR2, participant and conversation bootstrap) with new participants in every replicate "
    "(attunestats.design.participant_coverage)",
)


register_study_kind(
    "hierarchical_recovery",
    "attunestats.design.recovery:replicate",
    defaults={
        "misspecification": "baseline",
        "n_participants": 11,
        "conversations_per_participant": 8,
        "n_models": 4,
        "n_topics": 12,
        "structures": ["default", "legacy"],
        "ci_prob": 0.9,
        "draws": 500,
        "tune": 300,
        "chains": 4,
        "target_accept": 0.9,
    },
    description="coverage of the hierarchical models' 90% intervals (predictor contrasts, "
    "diagnosis effect, topic effects, turn slopes) under misspecification scenarios "
    "(attunestats.design.recovery)",
)
