"""Releases that load (perhaps with warnings) but are awkward for the scorer.

Expected values are worked out by hand from spec sections 2-4 in the comments; none is taken from
the code under test.
"""

from __future__ import annotations

import warnings

import pytest

from attunestats.metrics import score
from attunestats.release.load import release_from_documents


def _documents(n_turns: int, selections: dict[str, str]):
    """One conversation of ``n_turns`` turns, each with one comparison (original vs human, won by
    B = human), and one run selecting "B" for every turn; ``selections`` are added to turn 1."""
    turns, run_turns = [], []
    for n in range(1, n_turns + 1):
        comparison = {"questionId": "general", "responseA": "original", "responseB": "human",
                      "winner": "B"}  # fmt: skip
        turns.append({"turnNumber": n, "annotations": {"pairwiseComparisons": [comparison]}})
        chosen = {"0": "B", **(selections if n == 1 else {})}
        run_turns.append({"turnNumber": n, "em_pairwise_selections": chosen})
    gt = {"conversationId": "5", "turns": turns}
    run = {"conversationId": "5", "em_model": "m", "turns": run_turns}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return release_from_documents({"conversation_5.json": gt}, {"m": {"m/run_5.json": run}})


def test_a_selection_for_a_far_comparison_index_is_ignored_not_a_crash():
    # A selection keyed "999999999" (9 digits: a valid comparison key) for a comparison the turn
    # lacks loads with a warning and is not scored (spec 1.6: selections are keyed by the
    # comparison index within the turn). Every turn: 1 comparison, predicted right -> pairwise
    # accuracy 1; GT and EM rank human (1 win) before original (0) -> tau 1.
    release = _documents(200, {"999999999": "A"})
    rules = {w.rule for w in release.report.warnings}
    assert "unknown_comparison" in rules
    s = score(release)
    turn = s.turn
    acc = turn.loc[turn["metric"] == "pairwise_accuracy", "value"]
    tau = turn.loc[turn["metric"] == "pairwise_kendall_tau", "value"]
    assert len(acc) == 200 and (acc == 1.0).all()
    assert len(tau) == 200 and (tau == 1.0).all()
    assert s.comparisons["correct"].all() and len(s.comparisons) == 200


@pytest.mark.parametrize("key", ["1", "7", "123456"])
def test_selections_for_missing_comparisons_change_nothing(key):
    # the same release without the stray selection scores the same (hand value 1 everywhere)
    s = score(_documents(3, {key: "A"}))
    values = s.conversation.set_index("metric")["value"]
    assert values["avg_pairwise_accuracy"] == 1.0
    assert values["avg_pairwise_kendall_tau"] == 1.0


def test_a_selection_key_with_a_leading_zero_is_not_the_selection_of_that_comparison():
    # Spec 2.3: comparison i is right when EM selection[str(i)] equals the GT winner. str(0) is
    # "0", so a selection keyed "00" is no selection of comparison 0: comparison 0 has no
    # selection -> wrong (accuracy 0) and the EM made no selection -> tau null. The key is
    # reported (a warning naming the file and the key), not read as comparison 0.
    docs_run = {"conversationId": "5", "em_model": "m",
                "turns": [{"turnNumber": 1, "em_pairwise_selections": {"00": "B"}}]}  # fmt: skip
    gt = {"conversationId": "5", "turns": [{"turnNumber": 1, "annotations": {
        "pairwiseComparisons": [{"questionId": "general", "responseA": "original",
                                 "responseB": "human", "winner": "B"}]}}]}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = release_from_documents({"conversation_5.json": gt},
                                         {"m": {"m/run_5.json": docs_run}})  # fmt: skip
    warned = [w for w in release.report.warnings if w.path.endswith('em_pairwise_selections["00"]')]
    assert len(warned) == 1 and warned[0].file == "m/run_5.json"
    turn = score(release).turn.set_index("metric")["value"]
    assert turn["pairwise_accuracy"] == 0.0
    assert turn["pairwise_kendall_tau"] != turn["pairwise_kendall_tau"]  # NaN


def test_keys_seven_and_zero_seven_do_not_both_select_comparison_seven():
    # "7" is comparison 7's selection; "07" is none (spec 2.3: selection[str(i)])
    comps = [{"questionId": "general", "responseA": "original", "responseB": "human",
              "winner": "A"}] * 8  # fmt: skip
    gt = {"conversationId": "5", "turns": [{"turnNumber": 1,
                                            "annotations": {"pairwiseComparisons": comps}}]}  # fmt: skip
    selections = {str(i): "A" for i in range(7)} | {"7": "A", "07": "B"}
    run = {"conversationId": "5", "em_model": "m",
           "turns": [{"turnNumber": 1, "em_pairwise_selections": selections}]}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = release_from_documents({"conversation_5.json": gt}, {"m": {"m/r.json": run}})
    assert release.pred_pairwise["comparison"].tolist() == list(range(8))
    assert score(release).turn.set_index("metric")["value"]["pairwise_accuracy"] == 1.0
