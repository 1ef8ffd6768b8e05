"""Defects that used to change scores silently (an independent fault-injection check found them):
each is now a warning of the load report naming the file and the JSON path, and the value the
scorer reads is the one the format documents.

Releases are hand-written dict literals (not the simulator), one defect each.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from attunestats.constants import PANAS_ITEMS, PANAS_NEGATIVE
from attunestats.errors import ReleaseError
from attunestats.release.load import load_release


def _turn(n=1, tags=(), judgements=(), comparisons=(), selected=()):
    return {"turnNumber": n, "userMessage": "u", "llmResponse": "r", "moodShiftTags": list(tags),
            "annotations": {"binaryJudgements": list(judgements),
                            "pairwiseComparisons": list(comparisons),
                            "selectedPairwiseQuestions": list(selected)}}  # fmt: skip


def _conv(cid="1", turns=None, **extra):
    return {"conversationId": cid, "turns": [_turn()] if turns is None else turns, **extra}


def _run(cid="1", turns=None, **extra):
    return {"conversationId": cid, "em_model": "m", "mode": "default",
            "turns": [{"turnNumber": 1}] if turns is None else turns, **extra}  # fmt: skip


def _load(root: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_release(root)


def _warned(rel, rule: str) -> list[tuple[str, str, str]]:
    return [(w.file, w.path, w.message) for w in rel.report.warnings if w.rule == rule]


GT1 = "conversations/conversation_1.json"
RUN1 = "runs/m/conversation_1.json"


def test_partial_panas_block_warns_and_the_total_sums_the_items_given(tmp_path, write_release):
    items = {item: 3 for item in PANAS_ITEMS if item != "Hostile"}
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv(postPanas={"items": items})}))
    assert _warned(rel, "panas_items_missing") == [
        (GT1, "$.postPanas", "PANAS block without item(s) Hostile: they count as not rated "
         "(the item-level scores leave them out)")]  # fmt: skip
    [(file, path, message)] = _warned(rel, "panas_total_partial")
    assert (file, path) == (GT1, "$.postPanas.totalNegativeAffect") and "9 of 10" in message
    # the reference code's rule: the sum of the 9 negative items given (3 each), no rescaling
    assert len(PANAS_NEGATIVE) == 10
    assert rel.conversations["post_na"].iloc[0] == 27.0
    assert rel.conversations["post_pa"].iloc[0] == 30.0
    # a complete block and a totals-only block say nothing
    full = {item: 3 for item in PANAS_ITEMS}
    totals = {"totalPositiveAffect": 30, "totalNegativeAffect": 20}
    quiet = _load(write_release(tmp_path / "b", {"conversation_1.json": _conv(postPanas=full),
                                          "conversation_2.json": _conv("2", prePanas=totals)}))  # fmt: skip
    assert not _warned(quiet, "panas_items_missing") and not _warned(quiet, "panas_total_partial")


def test_partial_predicted_panas_warns_in_the_run_file(tmp_path, write_release):
    items = {item: 4 for item in PANAS_ITEMS[:19]}
    post = {"panas_strategy": "blind", "predicted_post_panas": {"items": items}}
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv()},
                       {"m": {"conversation_1.json": _run(post_conversation=post)}}))  # fmt: skip
    [(file, path, message)] = _warned(rel, "panas_items_missing")
    assert (file, path) == (RUN1, "$.post_conversation.predicted_post_panas")
    assert PANAS_ITEMS[19] in message


def test_unknown_ground_truth_question_ids_warn_with_a_suggestion(tmp_path, write_release):
    judgements = [{"questionId": "b1", "observedBehavior": "yes"},
                  {"questionId": "B1", "observedBehavior": "no"}]  # fmt: skip
    turns = [_turn(judgements=judgements, selected=["PW99"])]
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv(turns=turns)}))
    found = {path: message for _, path, message in _warned(rel, "unknown_question")}
    path = "$.turns[0].annotations.binaryJudgements[0].questionId"
    assert "did you mean 'B1'?" in found[path]
    assert "$.turns[0].annotations.selectedPairwiseQuestions[0]" in found
    assert "$.turns[0].annotations.binaryJudgements[1].questionId" not in found


def test_an_emotion_tagged_twice_in_a_turn_warns(tmp_path, write_release):
    tag = {"emotion": "Upset", "intensity": 4}
    turns = [_turn(tags=[tag, {"emotion": "upset ", "intensity": 5}])]
    pred = [{"turnNumber": 1, "em_emotion_tags": [tag, {"emotion": "Nervous"}, tag]}]
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv(turns=turns)},
                       {"m": {"conversation_1.json": _run(turns=pred)}}))  # fmt: skip
    assert [(f, p) for f, p, _ in _warned(rel, "duplicate_emotion")] == [
        (GT1, "$.turns[0].moodShiftTags[1].emotion"), (RUN1, "$.turns[0].em_emotion_tags[2].emotion")
    ]  # fmt: skip


def test_judge_scores_written_as_strings_are_read_as_numbers(tmp_path, write_release):
    # the format doc: "the numbers of this table may also be written as strings"
    pred = [{"turnNumber": 1, "em_draft_judge_scores": {"overall_score": "3", "helpfulness": 5.5,
                                                        "tone_match": " 6.0 "}}]  # fmt: skip
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv()},
                       {"m": {"conversation_1.json": _run(turns=pred)}}))  # fmt: skip
    row = rel.pred_turns.iloc[0]
    assert (row["judge_overall_score"], row["judge_helpfulness"], row["judge_tone_match"]) == (
        3.0, 5.5, 6.0)  # fmt: skip
    bad = [{"turnNumber": 1, "em_draft_judge_scores": {"overall_score": "high"}}]
    with pytest.raises(ReleaseError, match=r"overall_score: judge score must be a number"):
        load_release(write_release(tmp_path / "b", {"conversation_1.json": _conv()},
                            {"m": {"conversation_1.json": _run(turns=bad)}}))  # fmt: skip


def test_a_profile_conflict_names_the_file_whose_profile_is_kept(tmp_path, write_release):
    convs = {"conversation_1.json": _conv(participant_profile={"participant_id": "P", "traits": []}),
             "conversation_2.json": _conv("2", participant_profile={"participant_id": "P",
                                                                   "traits": ["ADHD"]})}  # fmt: skip
    rel = _load(write_release(tmp_path, convs))
    [(file, path, message)] = _warned(rel, "participant_conflict")
    assert file == "conversations/conversation_2.json" and path == "$.participant_profile"
    assert GT1 in message and "which are kept" in message


def test_a_missing_conversation_id_says_it_comes_from_the_file_name(tmp_path, write_release):
    doc = _conv("7")
    del doc["conversationId"]
    rel = _load(write_release(tmp_path, {"conversation_7.json": doc}))
    [(file, path, message)] = [w for w in _warned(rel, "missing_expected") if w[1].endswith("Id")]
    assert (file, path) == ("conversations/conversation_7.json", "$.conversationId")
    assert "taken from the file name" in message
    assert rel.conversations["conversation_id"].tolist() == ["7"]


def test_release_json_defaults_that_change_results_are_warned(tmp_path, write_release):
    runs = {"m": {"conversation_1.json": _run()}, "h": {"conversation_1.json": _run()}}
    convs = {"conversation_1.json": _conv()}
    info = {"format": "attunestats-release/1", "predictors": {"h": {"display_name": "H"}}}
    rel = _load(write_release(tmp_path, convs, runs, info))
    found = {path: message for _, path, message in _warned(rel, "info_default")}
    assert "not labelled SIMULATED" in found["$.simulated"]
    assert "no kind" in found["$.predictors.h"] and "not listed" in found["$.predictors.m"]
    assert set(rel.predictors["kind"]) == {"model"}
    # complete: no warning
    info = {"simulated": False, "predictors": {"h": {"kind": "human"}, "m": {"kind": "model"}}}
    assert not _warned(_load(write_release(tmp_path / "b", convs, runs, info)), "info_default")
    # a simulator's truth file without release.json
    root = write_release(tmp_path / "c", convs, runs)
    (root / "truth.json").write_text("{}")
    assert [f for f, _, _ in _warned(_load(root), "info_default")] == ["truth.json"]
    # an official release (no release.json, no truth.json): nothing to warn about
    assert not _warned(_load(write_release(tmp_path / "d", convs, runs)), "info_default")


def test_selections_for_comparisons_the_turn_lacks_are_warned(tmp_path, write_release):
    pw = {"questionId": "PW3", "responseA": "original", "responseB": "human", "winner": "A"}
    turns = [_turn(comparisons=[pw])]
    pred = [{"turnNumber": 1, "em_pairwise_selections": {"0": "A", "9": "B"},
             "pairwise_assignment": {"0": {"A": "original", "B": "human"},
                                     "7": {"A": "original", "B": "human"}}}]  # fmt: skip
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv(turns=turns)},
                       {"m": {"conversation_1.json": _run(turns=pred)}}))  # fmt: skip
    found = _warned(rel, "unknown_comparison")
    assert all(f"the ground truth ({GT1}) has comparisons 0-0 only" in m for _, _, m in found)
    assert sorted(p for _, p, _ in found) == [
        '$.turns[0].em_pairwise_selections["9"]', '$.turns[0].pairwise_assignment["7"]']  # fmt: skip


def test_a_model_without_a_run_for_a_conversation_is_warned_a_human_rater_is_not(
    tmp_path, write_release
):
    convs = {"conversation_1.json": _conv(), "conversation_2.json": _conv("2")}
    runs = {"m": {"conversation_1.json": _run()}, "h": {"conversation_2.json": _run("2")},
            "full": {"conversation_1.json": _run(), "conversation_2.json": _run("2")}}  # fmt: skip
    info = {"simulated": False, "predictors": {"m": {"kind": "model"}, "h": {"kind": "human"},
                                               "full": {"kind": "model"}}}  # fmt: skip
    rel = _load(write_release(tmp_path, convs, runs, info))
    [(file, path, message)] = _warned(rel, "run_missing")
    assert file == "runs/m" and "no run for 1 of 2" in message and "(2)" in message


def test_a_run_for_a_skipped_ground_truth_file_names_the_skipped_file(tmp_path, write_release):
    root = write_release(tmp_path, {"conversation_1.json": _conv(), "conversation_2.json": _conv("2")},
                  {"m": {"conversation_1.json": _run(), "conversation_2.json": _run("2")}})  # fmt: skip
    (root / "conversations" / "conversation_2.json").rename(
        root / "conversations" / "conversation_2.JSON"
    )
    with pytest.raises(ReleaseError) as info:
        load_release(root)
    text = str(info.value)
    assert (
        "runs/m/conversation_2.json: $.conversationId: prediction for a conversation the "
        "ground truth lacks (conversations/conversation_2.JSON was skipped" in text
    )


def test_one_message_per_defect_but_every_field_named(tmp_path, write_release):
    # the loader and the schema both see a run without conversationId (at $.conversationId and
    # at $): reported once; the same message about two different fields: both kept
    doc = _run(turns=[{"turnNumber": 1, "em_draft_judge_scores": {"overall_score": "high"}},
                      {"turnNumber": 2, "em_draft_judge_scores": {"overall_score": "low"}}])  # fmt: skip
    del doc["conversationId"]
    convs = {"conversation_1.json": _conv(turns=[_turn(1), _turn(2)])}
    with pytest.raises(ReleaseError) as info:
        load_release(write_release(tmp_path, convs, {"m": {"conversation_1.json": doc}}))
    text = str(info.value)
    assert text.count("missing required field conversationId") == 1
    doc["conversationId"] = "1"
    with pytest.raises(ReleaseError) as info:
        load_release(write_release(tmp_path / "b", convs, {"m": {"conversation_1.json": doc}}))
    lines = [p for p in info.value.problems if "judge score must be a number" in p.message]
    assert sorted(p.path for p in lines) == [
        "$.turns[0].em_draft_judge_scores.overall_score",
        "$.turns[1].em_draft_judge_scores.overall_score",
    ]


def test_selections_for_a_turn_without_comparisons_name_the_ground_truth_field(
    tmp_path, write_release
):
    pred = [{"turnNumber": 1, "em_pairwise_selections": {"0": "A"}}]
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv(turns=[_turn()])},
                       {"m": {"conversation_1.json": _run(turns=pred)}}))  # fmt: skip
    [(file, path, message)] = _warned(rel, "unknown_comparison")
    assert (file, path) == (RUN1, '$.turns[0].em_pairwise_selections["0"]')
    assert f"the ground truth ({GT1}) has no pairwise comparisons in this turn" in message
    assert "pairwiseComparisons" in message


def test_a_null_or_blank_judge_score_warns_and_the_turn_averages_the_others(
    tmp_path, write_release
):
    # the turn's draft judge score is the mean of the four judge scores given (metrics page);
    # a null one silently moved it before: now each null or blank score is a warning at its path
    scores = {"overall_score": None, "emotional_appropriateness": 7, "helpfulness": " ",
              "tone_match": 1}  # fmt: skip
    pred = [{"turnNumber": 1, "em_draft_judge_scores": scores}]
    rel = _load(write_release(tmp_path, {"conversation_1.json": _conv()},
                              {"m": {"conversation_1.json": _run(turns=pred)}}))  # fmt: skip
    base = "$.turns[0].em_draft_judge_scores"
    assert [(f, p) for f, p, _ in _warned(rel, "judge_score_null")] == [
        (RUN1, f"{base}.overall_score"), (RUN1, f"{base}.helpfulness")]  # fmt: skip
    # one event per value: the blank string is not also a "blank_value" event at the same path
    events = rel.report.events
    at_blank = events[(events["file"] == RUN1) & (events["path"] == f"{base}.helpfulness")]
    assert at_blank["rule"].tolist() == ["judge_score_null"]
    import attunestats as at

    turn = at.score(rel).turn
    [value] = turn.loc[turn["metric"] == "draft_judge_score", "value"]
    assert value == pytest.approx(((7 + 1) / 2 - 1) / 6)  # mean of the two given, on 0..1
    # a block that leaves a score out (rather than giving it as null) is not this warning
    rel = _load(
        write_release(
            tmp_path / "b",
            {"conversation_1.json": _conv()},
            {
                "m": {
                    "conversation_1.json": _run(
                        turns=[{"turnNumber": 1, "em_draft_judge_scores": {"tone_match": 4}}]
                    )
                }
            },
        )
    )
    assert _warned(rel, "judge_score_null") == []


@pytest.mark.parametrize("defect", ["deleted", "null"])
def test_a_ground_truth_defect_comes_before_the_run_errors_that_follow_from_it(
    tmp_path, write_release, capsys, defect
):
    # conversation 1 lost its turns: every predicted turn of its runs refers to a turn the ground
    # truth lacks. The cause is listed first, the run errors after it as its follow-on errors;
    # a run error of its own (a run for conversation 3, which has no file) is not one of them
    from attunestats.cli import main
    from attunestats.release.check import FOLLOW_ON_TITLE
    from attunestats.release.load import check_release

    broken = _conv(turns=[_turn(1), _turn(2)])
    if defect == "deleted":
        del broken["turns"]
    else:
        broken["turns"] = None
    convs = {"conversation_1.json": broken, "conversation_2.json": _conv("2")}
    turns = [{"turnNumber": 1}, {"turnNumber": 2}]
    runs = {p: {"conversation_1.json": _run(turns=turns), "conversation_2.json": _run("2")}
            for p in ("m", "n")}  # fmt: skip
    runs["m"]["conversation_3.json"] = _run("3")
    root = write_release(tmp_path, convs, runs)
    report = check_release(root)
    first = report.errors[0]
    assert (first.file, first.path, first.message) == (
        GT1,
        "$.turns",
        "missing required field turns",
    )
    follow = [
        e for e in report.errors if "which conversation '1' of the ground truth lacks" in e.message
    ]
    assert len(follow) == 4 and all(e.cause == GT1 for e in follow)
    assert list(report.errors[-4:]) == follow  # the follow-on errors last
    [own] = [e for e in report.errors if e.file == "runs/m/conversation_3.json"]
    assert own.cause == "" and report.errors.index(own) < report.errors.index(follow[0])
    # the printed report: the cause first, the follow-on errors grouped under it
    text = report.text()
    assert text.index("missing required field turns") < text.index("prediction for turn")
    assert f"{FOLLOW_ON_TITLE}: 4" in text and f"4 follow from {GT1} (in 2 run files):" in text
    assert report.findings_frame().query("cause != ''")["file"].nunique() == 2
    assert "4 follow-on errors of run outputs" in report.summary_line()
    # the exception raised by load_release lists the cause first too
    with pytest.raises(ReleaseError) as info:
        load_release(root)
    assert str(info.value).splitlines()[1].strip().startswith(f"{GT1}: $.turns: missing required")
    # attunestats validate: the first error shown is the cause
    assert main(["validate", str(root)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "errors (6):" and err[2] == f"    {GT1}: $.turns: missing required field turns"


def test_runs_of_an_unreadable_ground_truth_file_are_its_follow_on_errors(tmp_path, write_release):
    from attunestats.release.load import check_release

    convs = {"conversation_1.json": _conv(), "conversation_2.json": _conv("2")}
    runs = {p: {"conversation_1.json": _run(), "conversation_2.json": _run("2")} for p in "mn"}
    root = write_release(tmp_path, convs, runs)
    (root / GT1).write_text("{not json")
    report = check_release(root)
    assert report.errors[0].file == GT1 and report.errors[0].rule == "unreadable"
    assert [(e.file, e.cause) for e in report.errors[1:]] == [
        ("runs/m/conversation_1.json", GT1), ("runs/n/conversation_1.json", GT1)]  # fmt: skip


@pytest.mark.parametrize(("value", "severity", "message"), [
    ("yes", "error", "must be true or false"), (1, "error", "must be true or false"),
    (None, "warning", "null: the release is read as real data"),
])  # fmt: skip
def test_a_bad_simulated_flag_gives_one_message(tmp_path, write_release, value, severity, message):
    # "simulated": "yes" is an error; it must not also be warned about as "missing"
    from attunestats.release.load import check_release

    info = {"simulated": value, "predictors": {"m": {"kind": "model"}}}
    root = write_release(tmp_path, {"conversation_1.json": _conv()},
                         {"m": {"conversation_1.json": _run()}}, info)  # fmt: skip
    report = check_release(root)
    found = [f for f in (*report.errors, *report.warnings)
             if (f.file, f.path) == ("release.json", "$.simulated")]  # fmt: skip
    assert len(found) == 1, found
    assert found[0].severity == severity and found[0].message.startswith(message)
    if severity == "error":
        assert found[0].rule == "wrong_type"
