"""bootstrap_scores and compare_models on real Scores of a small simulated release."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import attunestats as at
from attunestats.inference.bootstrap import bootstrap_scores
from attunestats.metrics.registry import METRICS, pooled_statistic


@pytest.fixture(scope="module")
def scores(small_simulated_scores):
    """40 conversations, 3 models, 1 human rater, 10 topics, seed 8 (conftest.py; read-only)."""
    return small_simulated_scores


@pytest.fixture(scope="module")
def boot(scores):
    return bootstrap_scores(
        scores, unit="conversation", n_resamples=300, rng=5, method="percentile"
    )


def test_estimates_equal_the_predictor_summary(scores, boot):
    frame = boot.to_frame().set_index(["predictor", "mode", "metric"])["estimate"]
    summary = scores.predictor.set_index(["predictor", "mode", "metric"])["value"]
    common = frame.index.intersection(summary.index)
    assert len(common) == len(frame)  # every bootstrapped metric has a summary value
    np.testing.assert_allclose(frame.loc[common], summary.loc[common], rtol=1e-12, atol=1e-12)


def test_pooled_metric_recomputed_from_resampled_counts(scores, boot):
    pooled = [
        m for m, s in METRICS.items() if s.level == "conversation" and s.aggregation == "pooled"
    ]
    assert pooled, "the registry declares pooled metrics"
    metric = next(m for m in pooled if METRICS[m].pooled_stat == "mcc")
    spec = METRICS[metric]
    predictor = "sim-model-01"
    counts = scores.counts[
        (scores.counts["predictor"] == predictor) & (scores.counts["task"] == spec.pooled_task)
    ]
    counts = counts.set_index("conversation_id").reindex(list(boot.conversation_ids)).fillna(0)
    b = 123
    w = boot.weights[b]
    tp, tn, fp, fn = (
        float(np.sum(w * counts[c].to_numpy(dtype=float))) for c in ("tp", "tn", "fp", "fn")
    )
    mcc = (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert boot.distribution(predictor=predictor, metric=metric)[b] == pytest.approx(mcc, rel=1e-12)
    assert float(pooled_statistic("mcc", tp, tn, fp, fn)) == pytest.approx(mcc, rel=1e-12)


def test_composite_recomputed_inside_each_resample(scores, boot):
    # The composite of a resample is the weighted mean of the per-conversation composites,
    # which equals the weighted combination of the resampled pillar means (composite is linear).
    predictor = "sim-model-02"
    conv = scores.conversation[scores.conversation["predictor"] == predictor]
    wide = conv.pivot(index="conversation_id", columns="metric", values="value").reindex(
        list(boot.conversation_ids)
    )
    b = 7
    w = boot.weights[b]
    manual = np.sum(w * wide["composite_score"].to_numpy()) / w.sum()
    assert boot.distribution(predictor=predictor, metric="composite_score")[b] == pytest.approx(
        manual, rel=1e-12
    )
    pillars = {p: boot.distribution(predictor=predictor, metric=p)[b] for p in
               ("emotion_tracking", "evaluation_quality", "holistic_comprehension")}  # fmt: skip
    combined = 100 * (0.24 * pillars["emotion_tracking"] + 0.49 * pillars["evaluation_quality"]
                      + 0.27 * pillars["holistic_comprehension"])  # fmt: skip
    assert combined == pytest.approx(manual, rel=1e-9)


def test_all_predictors_share_resamples_and_settings_are_recorded(scores, boot):
    frame = boot.to_frame()
    assert set(frame["predictor"]) == {
        "sim-model-01",
        "sim-model-02",
        "sim-model-03",
        "sim-human-1",
    }
    assert set(frame["unit"]) == {"conversation"} and set(frame["n_resamples"]) == {300}
    assert set(frame["seed"]) == {5} and frame["simulated"].all()
    assert boot.weights.shape == (300, 40)
    assert list(boot.conversation_ids) == sorted(boot.conversation_ids)


def test_participant_and_stratified_plans_run(scores):
    part = bootstrap_scores(
        scores, metrics=["composite_score"], unit="participant", n_resamples=200, rng=1
    )
    strat = bootstrap_scores(
        scores,
        unit="conversation",
        metrics=["composite_score"],
        strata="topic",
        n_resamples=200,
        rng=1,
    )
    conv = bootstrap_scores(
        scores, unit="conversation", metrics=["composite_score"], n_resamples=200, rng=1
    )
    assert part.plan.unit == "participant" and strat.plan.strata == "topic"
    np.testing.assert_allclose(part.estimate, conv.estimate)
    assert part.n_units == scores.design["participant_id"].nunique()


def test_unknown_metric_and_predictor_are_named(scores):
    with pytest.raises(
        ValueError, match="not conversation-level metrics of the registry: \\['nope'\\]"
    ):
        bootstrap_scores(scores, unit="conversation", metrics=["nope"], n_resamples=10)
    with pytest.raises(ValueError, match="unknown predictors \\['ghost'\\]"):
        bootstrap_scores(scores, unit="conversation", predictors=["ghost"], n_resamples=10)


def test_compare_models_on_scores(scores):
    # Scores: the participant estimand by default (no resampling options)
    res = at.compare_models(scores, correction="bh", metrics=["composite_score", "avg_pairwise_accuracy"],
                            rng=2)  # fmt: skip
    assert len(res.pairs) == 2 * 6 and set(res.pairs["correction"]) == {"bh"}
    assert set(res.pairs["estimand"]) == {"participants"}
    with pytest.raises(TypeError, match="n_resamples"):
        at.compare_models(scores, correction="bh", n_resamples=300)
    # the conditional analysis is a bootstrap passed by name
    boot = bootstrap_scores(scores, unit="conversation", metrics=["composite_score"], n_resamples=300, rng=2,
                            method="percentile")  # fmt: skip
    cond = at.compare_models(boot, correction="bh")
    assert set(cond.pairs["estimand"]) == {"these-participants"}
    assert set(res.ranks["metric"]) == {"composite_score", "avg_pairwise_accuracy"}
    assert isinstance(res.discrimination, pd.DataFrame) and len(res.discrimination) == 2
