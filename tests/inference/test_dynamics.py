"""Turn phases and their bootstrap: hand computation and planted drift."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import attunestats as at
from attunestats.inference.dynamics import phase_bootstrap, turn_phases
from attunestats.release.load import release_from_documents
from attunestats.release.simulate import SCENARIOS, simulate_documents

CONFIG = replace(SCENARIOS["paper"], n_conversations=120, n_models=3, n_human_raters=0, n_topics=10,
                 drift_mean=(0.0, -1.5, 0.0, 0.0, 0.0), drift_sd=0.0)  # fmt: skip


@pytest.fixture(scope="module")
def scores():
    docs = simulate_documents(CONFIG, rng=44)
    return at.score(release_from_documents(docs.conversations, docs.runs, docs.release_info))


def test_phase_of_each_turn_by_hand(scores):
    phases = turn_phases(scores, metrics=["binary_om_accuracy"])
    turn = scores.turn[(scores.turn["metric"] == "binary_om_accuracy")]
    cid = phases["conversation_id"].iloc[0]
    pred = phases["predictor"].iloc[0]
    rows = turn[(turn["conversation_id"] == cid) & (turn["predictor"] == pred)].sort_values("turn")
    all_turns = sorted(turn.loc[turn["conversation_id"] == cid, "turn"].unique())
    first, last = all_turns[0], all_turns[-1]
    expected = {}
    for t, v in zip(rows["turn"], rows["value"], strict=True):
        x = (t - first) / (last - first)
        ph = "early" if x <= 1 / 3 else ("late" if x >= 2 / 3 else "mid")
        expected.setdefault(ph, []).append(v)
    got = phases[(phases["conversation_id"] == cid) & (phases["predictor"] == pred)].set_index(
        "phase"
    )["value"]
    for ph, vals in expected.items():
        assert got[ph] == pytest.approx(np.mean(vals), rel=1e-12)


def test_late_minus_early_is_the_mean_of_conversation_differences(scores):
    boot, table = phase_bootstrap(
        scores, metrics=["binary_om_accuracy", "emotion_f1"], n_resamples=300, rng=1
    )
    phases = turn_phases(scores, metrics=["binary_om_accuracy", "emotion_f1"])
    for pred in ("sim-model-01", "sim-model-02"):
        sub = phases[(phases["predictor"] == pred) & (phases["metric"] == "binary_om_accuracy")]
        per_conv = sub.pivot(index="conversation_id", columns="phase", values="value")
        manual = float((per_conv["late"] - per_conv["early"]).mean())
        row = table[(table["predictor"] == pred) & (table["metric"] == "binary_om_accuracy")
                    & (table["phase"] == "late-early")]  # fmt: skip
        assert row["estimate"].iloc[0] == pytest.approx(manual, rel=1e-12)


def test_planted_behaviour_drift_is_found_and_emotion_is_flat(scores):
    _, table = phase_bootstrap(
        scores, metrics=["binary_om_accuracy", "emotion_f1"], n_resamples=1000, rng=2
    )
    diff = table[table["phase"] == "late-early"].set_index(["predictor", "metric"])
    for pred in ("sim-model-01", "sim-model-02", "sim-model-03"):
        assert diff.loc[(pred, "binary_om_accuracy"), "ci_high"] < 0
    # emotion has no planted drift: its intervals cover 0 for most models (3 tests at 95%)
    covers = [diff.loc[(p, "emotion_f1"), "ci_low"] <= 0 <= diff.loc[(p, "emotion_f1"), "ci_high"]
              for p in ("sim-model-01", "sim-model-02", "sim-model-03")]  # fmt: skip
    assert sum(covers) >= 2
    assert table["simulated"].all()


def test_unknown_turn_metric_is_named(scores):
    with pytest.raises(ValueError, match=r"turn metrics \['nope'\]"):
        turn_phases(scores, metrics=["nope"])


def test_phases_of_a_release_without_long_enough_conversations_are_not_applicable(release_small):
    # tests/data/release_small has conversations of fewer than 3 turns: there are no phases,
    # which is a reason to skip the turn-phase analysis (NotApplicable, so reproduce records a
    # skip), not numpy's "need at least one array to concatenate"
    from attunestats.errors import NotApplicable
    from attunestats.inference.dynamics import phase_inference

    scores = at.score(release_small)
    longest = scores.turn.groupby("conversation_id")["turn"].nunique().max()
    assert longest < 3
    for run in (phase_inference, phase_bootstrap):
        with pytest.raises(NotApplicable, match="at least 3 turns"):
            run(scores, metrics=["binary_om_accuracy"])
