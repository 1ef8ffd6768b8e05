"""The result protocol of attunestats/_results.py: every public result explains itself.

Checked: every ResultMixin subclass is a frozen dataclass with repr=False and its own
to_frame(); summary() merges intervals into [lo, hi] exactly as to_frame() has them, shows one
comparison as a vertical test report (difference, interval, p-values, effect sizes with their
intervals, method, estimand, SIMULATED), filters rows by column values, and a short repr.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pandas as pd
import pytest

import attunestats
from attunestats._results import ResultMixin, format_interval, format_number, merge_intervals


def _all_result_classes() -> list[type]:
    for info in pkgutil.walk_packages(attunestats.__path__, "attunestats."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    seen, stack = [], list(ResultMixin.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls not in seen:
            seen.append(cls)
            stack.extend(cls.__subclasses__())
    return seen


def test_every_result_class_follows_the_protocol():
    classes = _all_result_classes()
    assert len(classes) >= 20  # the package's results, not an empty walk
    for cls in classes:
        assert dataclasses.is_dataclass(cls), cls
        params = cls.__dataclass_params__
        assert params.frozen, f"{cls.__name__} is not frozen"
        assert not params.repr, f"{cls.__name__} must declare repr=False (the short repr)"
        assert cls.to_frame is not ResultMixin.to_frame, f"{cls.__name__} lacks to_frame()"


def test_merge_intervals_keeps_the_numbers():
    frame = pd.DataFrame(
        {
            "estimate": [0.5, 1.25],
            "ci_low": [0.41, -0.00001],
            "ci_high": [0.6, 2.0],
            "effect": [1.0, 2.0],
            "effect_low": [0.5, float("nan")],
            "effect_high": [1.5, float("nan")],
        }
    )
    shown = merge_intervals(frame, confidence_level=0.9)
    assert shown.columns.tolist() == ["estimate", "90% CI", "effect", "effect CI"]
    assert shown["90% CI"].tolist() == ["[0.4100, 0.6000]", "[-1.00e-05, 2.0000]"]
    assert shown["effect CI"].tolist() == ["[0.5000, 1.5000]", "-"]
    assert frame.shape == (2, 6)  # the input is untouched
    assert format_interval(0.1, 0.2, digits=2) == "[0.10, 0.20]"
    assert format_number(3e-7) == "3.00e-07"


@pytest.fixture(scope="module")
def comparison(small_simulated_scores):
    res = attunestats.infer_scores(small_simulated_scores)
    return attunestats.compare_models(res, correction="holm")


def test_summary_of_one_comparison_reads_like_a_test_report(comparison):
    row = comparison.to_frame().iloc[0]
    a, b, metric = row["predictor_a"], row["predictor_b"], row["metric"]
    text = str(comparison.summary(pair=(a, b), metric=metric))
    one = comparison.pair(a, b, metric=metric).iloc[0]
    assert f"{a} - {b} on {metric}" in text
    lines = {ln.split("  ")[0].strip(): ln for ln in text.splitlines()}
    assert format_interval(one["ci_low"], one["ci_high"]) in lines["95% CI"]
    assert format_number(one["pvalue_adjusted"]) in lines["pvalue_adjusted"]
    assert format_number(one["difference"]) in lines["difference"]
    for field in ("composite_points", "standardized_effect CI", "standard_error", "df"):
        assert field in lines, field
    flat = " ".join(text.split())
    for word in ("Estimand:", "population of participants", "Method:", "participant jackknife",
                 "Correction: holm", "SIMULATED DATA"):  # fmt: skip
        assert word in flat, word
    # the reverse order flips the sign, as pair() does
    back = str(comparison.summary(pair=(b, a), metric=metric))
    assert format_number(-one["difference"]) in back


def test_summary_filters_and_repr(comparison):
    metric = comparison.to_frame()["metric"].iloc[0]
    text = str(comparison.summary(metric=metric))
    others = set(comparison.to_frame()["metric"]) - {metric}
    body = text.split("-" * 96)[1]
    assert metric in body and not any(f" {m} " in body for m in others)
    with pytest.raises(KeyError, match="not a column"):
        comparison.summary(nonsense=1)
    # a misspelled value: the error lists the values the column has
    with pytest.raises(KeyError, match=rf"metric='no_such_metric' matches no row; .*'{metric}'"):
        comparison.summary(metric="no_such_metric")
    with pytest.raises(TypeError, match="has no pair"):
        comparison.source.summary(pair=("a", "b"))
    short = repr(comparison)
    assert short.startswith("<ComparisonResult:") and "\n" not in short and len(short) < 300
    assert "SIMULATED" in short
    assert comparison._repr_html_().startswith("<pre>")


def test_every_builtin_metric_has_a_display_name():
    from attunestats.metrics.registry import METRICS, display_name

    shown = {}
    for name, spec in METRICS.items():
        if not spec.builtin:
            continue
        assert spec.display_name, f"{name} has no display name"
        assert "_" not in spec.display_name, f"{name}: {spec.display_name!r} looks like a key"
        if spec.level != "turn":  # avg_ metrics share their turn metric's name
            assert spec.display_name not in shown, (name, shown.get(spec.display_name))
            shown[spec.display_name] = name
    assert display_name("avg_emotion_f1") == "Emotion F1"
    assert display_name("avg_pairwise_accuracy") == "Pairwise accuracy"
    assert display_name("unregistered_metric") == "Unregistered metric"


def test_discrimination_contrast_is_a_result(comparison):
    # claim (b) as a test: one row whose numbers are those of the comparison's discrimination
    # table (D_a - D_b), with the interval and p-value in the summary and a short repr
    disc = comparison.discrimination.set_index("metric")
    a, b = "avg_pairwise_accuracy", "avg_emotion_f1"
    res = comparison.discrimination_contrast(a, b)
    row = res.to_frame()
    assert row.shape[0] == 1
    assert row["difference"].iloc[0] == pytest.approx(
        disc.loc[a, "discrimination"] - disc.loc[b, "discrimination"]
    )
    assert row["estimand"].iloc[0] == comparison.estimand
    flat = " ".join(str(res.summary()).split())
    for word in ("Discrimination contrast", format_interval(res.ci_low, res.ci_high),
                 format_number(res.pvalue), "SIMULATED DATA", "Bonferroni"):  # fmt: skip
        assert word in flat, word
    short = repr(res)
    assert short.startswith("<DiscriminationContrast:") and "\n" not in short


def test_scores_follow_the_result_contract(small_simulated_scores):
    # at.score's result: to_frame() the tidy predictor-level table, summary() a short table
    # (composite and pillars per predictor) naming the release, its counts and the conventions
    scores = small_simulated_scores
    assert isinstance(scores, ResultMixin)
    frame = scores.to_frame()
    assert frame.columns.tolist() == [
        "predictor", "mode", "metric", "value", "standard_error", "n", "simulated"]  # fmt: skip
    assert len(frame) == len(scores.predictor) and frame["simulated"].all()
    assert not frame.duplicated(["predictor", "mode", "metric"]).any()
    pd.testing.assert_series_equal(frame["value"], scores.predictor["value"])
    text = str(scores.summary())
    flat = " ".join(text.split())
    n_pred = scores.predictors["predictor"].nunique()
    n_conv = scores.design["conversation_id"].nunique()
    n_part = scores.design["participant_id"].nunique()
    for word in ("SIMULATED DATA", scores.release_info["name"], f"{n_pred} predictors",
                 f"{n_conv} conversations", f"{n_part} participants", "Conventions: spec defaults",
                 "composite_score", "emotion_tracking"):  # fmt: skip
        assert word in flat, word
    body = text.split("-" * 96)[1].split("=" * 96)[0]
    assert len(body.strip().splitlines()) == n_pred + 1  # short: one line per predictor
    composite = frame[frame["metric"] == "composite_score"].iloc[0]
    assert format_number(composite["value"]) in body
    # filters, the repr kept, notebooks show the summary
    one = str(scores.summary(metric="avg_emotion_f1"))
    one = one.split("-" * 96)[1].split("=" * 96)[0]
    assert "avg_emotion_f1" in one and "composite_score" not in one
    assert repr(scores).startswith("<Scores: ") and "\n" not in repr(scores)
    assert "SIMULATED" in repr(scores)
    assert scores._repr_html_().startswith("<pre>")
    # a real release says nothing about simulation; changed conventions are named
    real = dataclasses.replace(scores, release_info={**scores.release_info, "simulated": False},
                               options=dataclasses.replace(scores.options, composite_rounding="half_up"))  # fmt: skip
    assert not real.to_frame()["simulated"].any()
    shown = " ".join(str(real.summary()).split())
    assert "SIMULATED" not in shown and "non-default: composite_rounding=half_up" in shown


def test_contrast_model_follows_the_result_contract(bundled_scores):
    from attunestats.design.power import ContrastModel, fit_contrast

    model = fit_contrast(bundled_scores, metric="avg_emotion_f1",
                         predictors=("sim-model-02", "sim-model-01"))  # fmt: skip
    frame = model.to_frame()
    assert frame["parameter"].tolist() == ["effect", "sd", "standardized_effect", "icc",
                                           "cluster_cv"]  # fmt: skip
    got = dict(zip(frame["parameter"], frame["value"], strict=True))
    assert got["effect"] == model.effect and got["sd"] == model.sd and got["icc"] == model.icc
    assert got["standardized_effect"] == pytest.approx(model.effect / model.sd)
    assert frame["simulated"].all() and (frame["n_participants"] == 11).all()
    assert (frame["n_conversations"] == model.source["n_conversations"]).all()
    short = repr(model)
    assert short.startswith("<ContrastModel: paired 'sim-model-02 - sim-model-01'")
    assert "\n" not in short and len(short) < 300 and "SIMULATED" in short
    assert "source=" not in short  # not the dataclass dump
    flat = " ".join(str(model.summary()).split())
    for word in ("Clustered normal model", "SIMULATED DATA", "Estimand:", "sim-model-02 - "
                 "sim-model-01 on avg_emotion_f1", "Method:", "11 participants",
                 format_number(model.effect), format_number(model.icc), "cluster_cv"):  # fmt: skip
        assert word in flat, word
    # specified, not fitted: between groups, with the allocation; not simulated
    spec = ContrastModel("between", effect=0.1, sd=0.5, icc=0.2, allocation=0.25)
    assert spec.to_frame()["parameter"].iloc[-1] == "allocation"
    assert (spec.to_frame()["n_conversations"] == -1).all()
    assert "specified" in repr(spec) and "SIMULATED" not in repr(spec)
    flat = " ".join(str(spec.summary()).split())
    assert "specified (not fitted)" in flat and "share of participants in focal group" in flat
    assert "SIMULATED" not in flat
    # the round trip of the study runner still holds
    assert ContrastModel.from_dict(model.to_dict()) == model
