"""The metric registry: names of spec section 5, structure, queries, pooled statistics, custom metrics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics_support import conv_value, tiny_release, turn_value

from attunestats.metrics import (
    MAIN_METRICS,
    METRICS,
    PILLAR_METRICS,
    MetricSpec,
    metric_names,
    metrics_frame,
    pooled_statistic,
    register_metric,
    score,
    unregister_metric,
)

# spec section 5, copied verbatim
SPEC_NAMES = """avg_emotion_hit_rate, avg_emotion_f1, avg_emotion_f1_intensity, avg_emotion_intensity_mae,
avg_emotion_va_score, avg_emotion_va_intensity_score, avg_binary_om_accuracy, avg_binary_human_accuracy,
avg_binary_om_accuracy_hp, avg_binary_human_accuracy_hp, avg_pairwise_accuracy, avg_pairwise_kendall_tau,
panas_mae, panas_normalized, panas_baseline_adjusted, panas_item_mae,
q1_looking_for_score, q2_emotion_clarity_match, q3_model_fit_match, q3_model_fit_ordinal_distance,
q3_follow_up_score, four_branch_mae, four_branch_normalized, emotion_tracking, evaluation_quality,
holistic_comprehension, composite_score, equal_weight_composite"""


def test_main_metrics_are_the_spec_names():
    names = [n.strip() for n in SPEC_NAMES.replace("\n", " ").split(",")]
    assert list(MAIN_METRICS) == names
    for n in names:
        assert METRICS[n].level == "conversation", n
    assert PILLAR_METRICS == ("emotion_tracking", "evaluation_quality", "holistic_comprehension")
    for p in PILLAR_METRICS:
        assert METRICS[p].pillar == p


def test_every_turn_metric_has_an_average():
    turn = metric_names(level="turn")
    assert "emotion_f1" in turn and "pairwise_kendall_tau" in turn
    for name in turn:
        avg = METRICS[f"avg_{name}"]
        assert avg.level == "conversation" and avg.source == name
        assert avg.nullable == METRICS[name].nullable
        assert avg.aggregation == "mean"
        assert not name.startswith("avg_")


def test_pooled_metrics_and_composite_inputs():
    pooled = metric_names(aggregation="pooled")
    assert len(pooled) == 20
    for name in pooled:
        spec = METRICS[name]
        assert name == f"pooled_binary_{spec.pooled_task}_{spec.pooled_stat}"
        assert spec.level == "conversation"
    assert set(metric_names(level="conversation", in_composite=True)) == {
        "avg_emotion_f1", "avg_emotion_va_score", "avg_binary_om_accuracy",
        "avg_binary_human_accuracy", "avg_pairwise_accuracy", "panas_baseline_adjusted",
        "q1_looking_for_score", "q2_emotion_clarity_match", "q3_model_fit_match",
        "q3_follow_up_score", "four_branch_normalized",
    }  # fmt: skip
    assert metric_names(level="predictor") == ["composite_z"]
    assert set(metric_names(capability="preference", level="turn")) == {
        "pairwise_accuracy", "pairwise_kendall_tau",
    }  # fmt: skip


def test_registry_fields_are_consistent():
    frame = metrics_frame()
    assert frame["name"].is_unique
    assert len(frame) == len(METRICS)
    for spec in METRICS.values():
        lo, hi = spec.range
        assert lo <= hi
        assert spec.capability in ("emotion", "behaviour", "preference", "holistic", "response",
                                   "composite")  # fmt: skip
        assert spec.description and "\n" not in spec.description
        assert spec.builtin
        if spec.name.endswith("_mae") or spec.name.endswith("_distance"):
            assert spec.higher_is_better is False, spec.name


def test_metric_names_rejects_bad_filters():
    with pytest.raises(ValueError, match="level must be one of"):
        metric_names(level="turns")
    with pytest.raises(ValueError, match="capability must be one of"):
        metric_names(capability="emotions")


def _hand(stat, tp, tn, fp, fn):
    n = tp + tn + fp + fn
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "accuracy": (tp + tn) / n if n else 0.0,
        "precision": p,
        "recall": r,
        "f1": 2 * p * r / (p + r) if p + r else 0.0,
        "mcc": ((tp * tn - fp * fn) / ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)) ** 0.5
                if (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn) else 0.0),
    }[stat]  # fmt: skip


counts = st.integers(min_value=0, max_value=50)


@settings(max_examples=200, deadline=None)
@given(tp=counts, tn=counts, fp=counts, fn=counts)
def test_pooled_statistic_matches_hand_formula(tp, tn, fp, fn):
    for stat in ("accuracy", "precision", "recall", "f1", "mcc"):
        assert float(pooled_statistic(stat, tp, tn, fp, fn)) == pytest.approx(
            _hand(stat, tp, tn, fp, fn), abs=1e-12
        )


def test_pooled_statistic_broadcasts_and_validates():
    rng = np.random.default_rng(0)
    c = rng.integers(0, 20, size=(4, 50, 3))  # (tp, tn, fp, fn) x resamples x predictors
    out = pooled_statistic("mcc", *c)
    assert out.shape == (50, 3)
    assert out[7, 2] == pytest.approx(_hand("mcc", *(int(x) for x in c[:, 7, 2])))
    with pytest.raises(ValueError, match="stat must be one of"):
        pooled_statistic("kappa", 1, 1, 1, 1)


def test_custom_turn_and_conversation_metrics_flow_into_every_table():
    def exact_match(ctx):
        return (ctx.values["emotion_f1"] == 1.0).astype(float).to_numpy()

    def n_gt_tags(ctx):  # uses the raw ground-truth table through the context
        gt = ctx.gt("emotion_tags")
        return np.bincount(gt["row"].to_numpy(), minlength=len(ctx.keys)).astype(float)

    def reweighted(ctx):
        v = ctx.values
        return (100 * (v["emotion_tracking"] + v["evaluation_quality"]
                       + v["holistic_comprehension"]) / 3).to_numpy()  # fmt: skip

    specs = [
        MetricSpec("emotion_exact_match", "turn", (0.0, 1.0), True, "emotion_tracking", "emotion",
                   "1 if predicted tag set equals the ground truth", compute=exact_match),
        MetricSpec("n_gt_tags", "turn", (0.0, np.inf), None, None, "emotion",
                   "number of ground-truth tags", compute=n_gt_tags),
        MetricSpec("equal_pillar_composite", "conversation", (0.0, 100.0), True, None,
                   "composite", "mean of the three pillars x 100", compute=reweighted),
    ]  # fmt: skip
    try:
        for spec in specs:
            register_metric(spec)
        assert "avg_emotion_exact_match" in METRICS
        turns = [
            {"gt_tags": [("afraid", 3.0)], "pred_tags": [("afraid", 3.0)]},
            {"gt_tags": [("afraid", 3.0), ("upset", 2.0)], "pred_tags": [("afraid", 3.0)]},
            {"gt_tags": [], "pred_tags": []},
        ]
        s = score(tiny_release(turns))
        assert [turn_value(s, "emotion_exact_match", t) for t in (1, 2, 3)] == [1.0, 0.0, 1.0]
        assert [turn_value(s, "n_gt_tags", t) for t in (1, 2, 3)] == [1.0, 2.0, 0.0]
        assert conv_value(s, "avg_emotion_exact_match") == pytest.approx(2 / 3)
        assert conv_value(s, "avg_n_gt_tags") == 1.0
        pillars = [conv_value(s, p) for p in PILLAR_METRICS]
        assert conv_value(s, "equal_pillar_composite") == pytest.approx(100 * sum(pillars) / 3)
        pred = s.predictor.set_index("metric")["value"]
        assert pred["avg_emotion_exact_match"] == pytest.approx(2 / 3)
        assert "emotion_exact_match" in s.wide("turn").columns
    finally:
        for spec in specs:
            unregister_metric(spec.name)
    assert "avg_emotion_exact_match" not in METRICS
    assert "equal_pillar_composite" not in METRICS


def test_register_metric_errors():
    ok = dict(level="turn", range=(0.0, 1.0), higher_is_better=True, pillar=None,
              capability="emotion", description="x", compute=lambda ctx: 0)  # fmt: skip
    with pytest.raises(ValueError, match="built-in metric"):
        register_metric(MetricSpec(name="emotion_f1", **ok))
    with pytest.raises(ValueError, match="needs a compute function"):
        register_metric(MetricSpec(name="x1", **{**ok, "compute": None}))
    with pytest.raises(ValueError, match="level must be"):
        register_metric(MetricSpec(name="x2", **{**ok, "level": "predictor"}))
    with pytest.raises(ValueError, match="capability must be"):
        register_metric(MetricSpec(name="x3", **{**ok, "capability": "speed"}))
    with pytest.raises(TypeError, match="must be a MetricSpec"):
        register_metric({"name": "x4"})
    register_metric(MetricSpec(name="x5", **ok))
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_metric(MetricSpec(name="x5", **ok))
    finally:
        unregister_metric("x5")
    with pytest.raises(ValueError, match="not a registered metric"):
        unregister_metric("x5")
    with pytest.raises(ValueError, match="built-in"):
        unregister_metric("composite_score")


def test_custom_metric_with_wrong_shape_is_reported():
    spec = MetricSpec("bad_shape", "turn", (0.0, 1.0), True, None, "emotion", "x",
                      compute=lambda ctx: np.zeros(1))  # fmt: skip
    register_metric(spec)
    try:
        with pytest.raises(ValueError, match="compute of metric 'bad_shape' returned shape"):
            score(tiny_release([{}, {}]))
    finally:
        unregister_metric("bad_shape")
