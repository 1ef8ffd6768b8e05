"""Scoring conventions (spec 4), display rounding, sensitivity table, writing the score tables."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from metrics_support import random_release, tiny_release

from attunestats.constants import SIMULATED_LABEL
from attunestats.metrics import (
    CONVENTIONS,
    ScoringOptions,
    convention_sensitivity,
    round_display,
    score,
    write_scores,
)

# spec section 4: convention -> (default, alternative)
SPEC_TABLE = {
    "unknown_gt_emotion": ("keep", "drop"),
    "f1_intensity_both_empty": (1.0, 0.0),
    "hp_accuracy_no_judgements": (0.0, 1.0),
    "pairwise_none_vs_missing": ("wrong", "right"),
    "va_matching": ("optimal", "greedy"),
    "composite_rounding": ("half_even", "half_up"),
    "perspective_alignment_mcc": ("positive_only", "nonzero_denominator"),
}


def test_defaults_and_alternatives_are_the_spec_table():
    opts = ScoringOptions()
    assert opts.to_dict() == {k: v[0] for k, v in SPEC_TABLE.items()}
    assert set(CONVENTIONS) == set(SPEC_TABLE)
    assert sorted(opts.alternatives()) == sorted((k, v[1]) for k, v in SPEC_TABLE.items())
    d = opts.describe()
    assert list(d["convention"]) == list(SPEC_TABLE)
    assert d["is_default"].all()
    assert not ScoringOptions(va_matching="greedy").describe()["is_default"].all()
    assert opts.is_default()


def test_options_round_trip_and_validation():
    opts = ScoringOptions(va_matching="greedy", f1_intensity_both_empty=0)
    assert opts.f1_intensity_both_empty == 0.0
    assert ScoringOptions.from_dict(json.loads(json.dumps(opts.to_dict()))) == opts
    with pytest.raises(ValueError, match="va_matching must be one of"):
        ScoringOptions(va_matching="hungarian")
    with pytest.raises(ValueError, match="f1_intensity_both_empty must be one of"):
        ScoringOptions(f1_intensity_both_empty=0.5)
    with pytest.raises(TypeError, match="hp_accuracy_no_judgements must be a number"):
        ScoringOptions(hp_accuracy_no_judgements="1")
    with pytest.raises(ValueError, match="unknown scoring conventions"):
        ScoringOptions.from_dict({"rounding": "half_up"})
    with pytest.raises(TypeError, match="options must be a ScoringOptions"):
        score(tiny_release([{}]), options={"va_matching": "greedy"})


def test_round_display_python_vs_port():
    # 62.675 is stored as 62.67499999...: Python's round gives 62.67; the port's
    # Math.round(62.675 * 100) / 100 gives 62.68 because 62.675 * 100 == 6267.5 in floating point
    assert round_display(62.675) == 62.67
    assert round_display(62.675, method="half_up") == 62.68
    # an exact binary tie: half to even vs half up
    assert round_display(0.125) == 0.12
    assert round_display(0.125, method="half_up") == 0.13
    out = round_display(np.array([0.375, np.nan, 1.0]), method="half_even")
    assert out[0] == 0.38 and math.isnan(out[1]) and out[2] == 1.0
    with pytest.raises(ValueError, match="method must be"):
        round_display(1.0, method="bankers")


def test_sensitivity_table_by_hand():
    # one turn where greedy VA matching loses 0.1753 / 2 against the optimal assignment
    turns = [{"gt_tags": [("inspired", 4.0), ("interested", 4.0)],
              "pred_tags": [("strong", 4.0), ("guilty", 4.0)]}]  # fmt: skip
    rel = tiny_release(turns)
    t = convention_sensitivity(rel).table
    assert list(t.columns) == ["predictor", "mode", "convention", "alternative",
                               "composite_default", "composite_alternative", "difference"]  # fmt: skip
    assert len(t) == len(SPEC_TABLE)  # one predictor x mode
    row = t.set_index("convention").loc["va_matching"]
    assert row["alternative"] == "greedy"
    # greedy total 0.9 + 0.465, optimal 0.8939 + 0.6464 (spec similarities); VA = total / 2;
    # composite moves by 100 * 0.24 * 0.5 * delta VA
    delta_va = ((0.9 + 0.465) - (0.8939 + 0.6464)) / 2
    assert row["difference"] == pytest.approx(100 * 0.24 * 0.5 * delta_va, abs=1e-9)
    row = t.set_index("convention").loc["perspective_alignment_mcc"]
    assert row["difference"] == 0.0  # not a composite input
    row = t.set_index("convention").loc["composite_rounding"]
    c = score(rel).predictor.set_index("metric").loc["composite_score", "value"]
    assert row["composite_default"] == round(c, 2)
    assert row["composite_alternative"] == math.floor(c * 100 + 0.5) / 100


def test_sensitivity_on_an_edge_case_release_matches_rescoring():
    rel = random_release(4)
    t = convention_sensitivity(rel).table
    base = score(rel).predictor
    base = base[base["metric"] == "composite_score"].set_index(["predictor", "mode"])["value"]
    alt = score(rel, options=ScoringOptions(pairwise_none_vs_missing="right")).predictor
    alt = alt[alt["metric"] == "composite_score"].set_index(["predictor", "mode"])["value"]
    sub = t[t["convention"] == "pairwise_none_vs_missing"].set_index(["predictor", "mode"])
    np.testing.assert_allclose(sub["difference"], (alt - base).loc[sub.index], atol=1e-12)
    assert (sub["difference"] >= 0).all()  # counting more comparisons right never lowers it
    assert len(t) == base.size * len(SPEC_TABLE)


def test_sensitivity_is_a_result_with_frame_summary_and_repr():
    rel = random_release(4)
    sens = convention_sensitivity(rel)
    frame = sens.to_frame()
    assert list(frame.columns) == [*sens.table.columns, "simulated"] and len(frame) == len(
        sens.table
    )
    # largest(): per alternative, the max |difference| over predictors, recomputed by hand
    worst = sens.largest()
    for _, row in worst.iterrows():
        sub = sens.table[(sens.table["convention"] == row["convention"])
                         & (sens.table["alternative"] == row["alternative"])]  # fmt: skip
        assert row["max_abs_difference"] == pytest.approx(sub["difference"].abs().max())
        if row["max_abs_difference"] == 0:
            assert row["predictor"] == ""  # nothing moved: no predictor to name
            continue
        hit = sub[(sub["predictor"] == row["predictor"]) & (sub["mode"] == row["mode"])]
        assert abs(hit["difference"].iloc[0]) == pytest.approx(row["max_abs_difference"])
    assert len(worst) == len(SPEC_TABLE)
    text = str(sens.summary())
    assert "scoring conventions" in text and "Estimand" in text and "composite" in text
    assert repr(sens).startswith("<ConventionSensitivity:") and "\n" not in repr(sens)


# --------------------------------------------------------------------------------------------
# writing


@pytest.fixture(scope="module")
def scores():
    return score(random_release(1))


@pytest.mark.parametrize("ext", [".csv", ".parquet"])
def test_write_scores_round_trip(tmp_path, scores, ext):
    files = write_scores(scores, tmp_path / f"scores{ext}")
    names = [f.name for f in files]
    assert names[0] == f"scores{ext}" and names[-1] == "scores_summary.json"
    assert f"scores_turn{ext}" in names and f"scores_predictor{ext}" in names
    assert f"scores_counts{ext}" in names and f"scores_comparisons{ext}" in names
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)  # no temporary left
    read = pd.read_csv if ext == ".csv" else pd.read_parquet
    back = read(
        tmp_path / f"scores{ext}", **({"dtype": {"conversation_id": str}} if ext == ".csv" else {})
    )
    assert back["simulated"].all()  # a simulated release's table says so in its own rows
    pd.testing.assert_frame_equal(
        back.drop(columns="simulated").reset_index(drop=True),
        scores.conversation.reset_index(drop=True), check_dtype=False, rtol=0, atol=0,
    )  # fmt: skip
    summary = json.loads((tmp_path / "scores_summary.json").read_text())
    assert summary["label"] == SIMULATED_LABEL and summary["simulated"] is True
    assert summary["scoring_options"] == ScoringOptions().to_dict()
    first = summary["predictors"][0]
    comp = first["metrics"]["composite_score"]["value"]
    assert first["composite_score_display"] == round(comp, 2)
    p = scores.predictor
    expected = p[(p["predictor"] == first["predictor"]) & (p["metric"] == "composite_score")]
    assert comp == pytest.approx(float(expected["value"].iloc[0]), abs=0)


def test_write_scores_errors_leave_nothing(tmp_path, scores, monkeypatch):
    with pytest.raises(ValueError, match=r"out must end in \.csv or \.parquet"):
        write_scores(scores, tmp_path / "scores.xlsx")
    with pytest.raises(ValueError, match="out's directory does not exist"):
        write_scores(scores, tmp_path / "missing" / "scores.csv")
    with pytest.raises(TypeError, match="scores must be a Scores"):
        write_scores({"turn": None}, tmp_path / "scores.csv")
    calls = {"n": 0}
    original = pd.DataFrame.to_csv

    def failing(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", failing)
    with pytest.raises(OSError, match="disk full"):
        write_scores(scores, tmp_path / "scores.csv")
    assert list(tmp_path.iterdir()) == []
