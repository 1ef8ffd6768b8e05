"""Coverage of the cluster-bootstrap intervals against population values of simulated releases.

The population value of each predictor-level metric comes from one very large release drawn from
the same population (same skills, participants, topics); each replicate is a fresh release from
that population. Tolerances are derived from the Monte Carlo error of the replicates and from the
(known) error of the population values themselves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.design.coverage import coverage_replicate, population_values
from attunestats.metrics.registry import MAIN_METRICS, PILLAR_METRICS
from attunestats.release.simulate import SimulationConfig, draw_effects

METRICS = sorted(set(MAIN_METRICS) | set(PILLAR_METRICS) - {"composite_z"})


def _expected_coverage(level: float, n_release: int, n_population: int) -> float:
    """Coverage of an exact interval when the 'truth' itself has sampling error.

    The population value is a mean over n_population conversations, so it deviates from the
    infinite-population value with variance (n_release / n_population) times that of the estimate.
    """
    z = stats.norm.ppf(0.5 + level / 2)
    return float(2 * stats.norm.cdf(z / np.sqrt(1 + n_release / n_population)) - 1)


def _check(frame: pd.DataFrame, kind: str, expected: float) -> tuple[float, float]:
    sub = frame[frame["kind"] == kind]
    per_rep = sub.groupby("seed")["covered"].mean()
    mean = float(per_rep.mean())
    se = float(per_rep.std(ddof=1) / np.sqrt(per_rep.size))
    assert abs(mean - expected) < 4 * se, (
        f"{kind}: coverage {mean:.3f} vs {expected:.3f} (SE {se:.4f})"
    )
    return mean, se


def test_conversation_bootstrap_coverage_small():
    # CI version: 3 simulated models, releases of 80 conversations, 24 replicates.
    config = SimulationConfig(n_conversations=80, n_models=3, n_human_raters=0, n_topics=20)
    effects = draw_effects(config, rng=5)
    n_pop = 1500
    population = population_values(
        effects, n_conversations=n_pop, chunk_size=500, rng=99, metrics=METRICS
    )
    reps = [
        coverage_replicate(effects, population, rng=1000 + s, n_resamples=500, metrics=METRICS)
        for s in range(24)
    ]
    frame = pd.concat(reps, ignore_index=True)
    expected = _expected_coverage(0.95, 80, n_pop)
    _check(frame, "mean", expected)
    _check(frame, "difference", expected)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_conversation_bootstrap_coverage_full(method):
    # The study: >= 400 paper-sized releases; 95% intervals of model means and paired
    # differences must cover the population values in 93-97% of releases.
    config = SimulationConfig(n_conversations=200, n_models=5, n_human_raters=1)
    effects = draw_effects(config, rng=17)
    n_pop = 40_000
    population = population_values(
        effects, n_conversations=n_pop, chunk_size=1000, rng=7, metrics=METRICS
    )
    reps = [
        coverage_replicate(
            effects, population, rng=5000 + s, n_resamples=1000, method=method, metrics=METRICS
        )
        for s in range(400)
    ]
    frame = pd.concat(reps, ignore_index=True)
    for kind in ("mean", "difference"):
        coverage = frame.loc[frame["kind"] == kind, "covered"].mean()
        print(f"conversation plan, {method}, {kind}: coverage {coverage:.4f}")  # for the README
        assert 0.93 <= coverage <= 0.97, f"{method} {kind}: {coverage:.4f}"


@pytest.mark.slow
def test_participant_plan_coverage_is_measured():
    # Two-stage participant bootstrap with 11 participants: measured, not assumed. Against
    # fixed-participant population values it should not undercover; the value is printed for the
    # README table (run with -s).
    config = SimulationConfig(n_conversations=200, n_models=5, n_human_raters=1)
    effects = draw_effects(config, rng=17)
    population = population_values(
        effects, n_conversations=20_000, chunk_size=1000, rng=7, metrics=METRICS
    )
    reps = [
        coverage_replicate(
            effects,
            population,
            rng=9000 + s,
            n_resamples=1000,
            unit="participant",
            metrics=METRICS,
        )
        for s in range(400)
    ]
    frame = pd.concat(reps, ignore_index=True)
    summary = frame.groupby("kind")["covered"].mean()
    print("participant-plan coverage against fixed-participant population values:\n", summary)
    assert (summary > 0.90).all()
