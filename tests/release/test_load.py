"""Loader (attunestats.release.load) against hand-written official-format files.

Every expected table and count below is written out by hand from the JSON files (the fixture in
tests/data/release_small/ or the dict literals of each test) and the rules of spec 1.4 and
section 4; none is produced by the code under test.
"""

from __future__ import annotations

import json
import math
import re
import shutil

import pandas as pd
import pytest

from attunestats.constants import PANAS_ITEMS
from attunestats.errors import ReleaseError
from attunestats.release.load import (
    diagnosis_group,
    load_release,
    release_from_documents,
    validate_release,
)
from attunestats.release.model import TABLE_SCHEMAS, coerce_table

NAN = math.nan
GT5 = "conversations/conversation_5.json"
GT17 = "conversations/conversation_17.json"
GT23 = "conversations/conversation_23.json"
A5 = ("em_alpha", "default", "5")
A17 = ("em_alpha", "default", "17")
R5 = ("rater_1", "verbose", "5")


def expected(name: str, rows: list[tuple]) -> pd.DataFrame:
    return coerce_table(name, pd.DataFrame(rows, columns=list(TABLE_SCHEMAS[name])))


def _plain(df: pd.DataFrame) -> pd.DataFrame:
    # categorical columns (pred_binary) hold the values seen: compare them as strings
    cats = [c for c in df.columns if isinstance(df[c].dtype, pd.CategoricalDtype)]
    return df.astype(dict.fromkeys(cats, "str")) if cats else df


def assert_table(release, name: str, rows: list[tuple]) -> None:
    got = release.tables[name]
    assert [str(d) for d in got.dtypes] == list(TABLE_SCHEMAS[name].values())
    pd.testing.assert_frame_equal(_plain(got), _plain(expected(name, rows)))


# --- the hand-written fixture, table by table ----------------------------------------------------


def test_every_table_has_the_schema_dtypes(release_small):
    assert set(release_small.tables) == set(TABLE_SCHEMAS)
    for name, schema in TABLE_SCHEMAS.items():
        table = release_small.tables[name]
        assert list(table.columns) == list(schema), name
        assert {c: str(t) for c, t in table.dtypes.items()} == dict(schema), name


def test_participants(release_small):
    assert_table(release_small, "participants", [
        ("P01", "anxiety_depression", "25-34", "Generalized anxiety; night owl", 1),
        ("P02", "multiple", "41", "ADHD; Depression", 1),
        ("anon-23", "unknown", None, None, 1),
    ])  # fmt: skip


def test_conversations(release_small):
    assert_table(release_small, "conversations", [
        ("5", GT5, "P01", "anxiety_depression", "Money", "Debt", "om-3", "anon", 2,
         30, 25, 34, 20, "Implied or indirect", "Mostly well-matched", 5, 4, 6, 3),
        # pre from items under "responses" (Interested 3.6 -> 4): PA 2+3+1+4+3+2+1+2+1+4 = 23,
        # NA 5+4+6+5+6+4+7+3+4+2 = 46; post 75.4 -> 70 and "9" -> 10; four-branch 9 -> 7,
        # 0.5 -> 1, 4.5 kept, null -> NaN
        ("17", GT17, "P02", "multiple", "Romantic relationships", "Breakup", "om-1", "anon", 2,
         23, 46, 70, 10, "Mixed or conflicted", "Mostly off-target or intrusive", 7, 1, 4.5, NAN),
        ("23", GT23, "anon-23", "unknown", None, None, None, None, 1,
         NAN, NAN, NAN, NAN, None, None, NAN, NAN, NAN, NAN),
    ])  # fmt: skip


def test_panas_items(release_small):
    pre5 = [3] * 10 + [3, 2, 4, 3, 3, 2, 3, 2, 2, 1]
    pre17 = [2, 3, 1, 4, 3, 2, 1, 2, 1, 4] + [5, 4, 6, 5, 6, 4, 7, 3, 4, 2]
    rows = [("5", "pre", item, v) for item, v in zip(PANAS_ITEMS, pre5)]
    rows += [("17", "pre", item, v) for item, v in zip(PANAS_ITEMS, pre17)]
    assert_table(release_small, "panas_items", rows)


def test_survey_choices(release_small):
    assert_table(release_small, "survey_choices", [
        ("5", "q1_looking_for", 0, "To just listen or let me vent"),
        ("5", "q1_looking_for", 1, "Other"),
        ("5", "q3_follow_up", 0, "too long"),
        ("17", "q1_looking_for", 0, "To get specific information or advice"),
    ])  # fmt: skip


def test_turns(release_small):
    assert_table(release_small, "turns", [
        ("5", 1, "I owe a lot of money and I can't sleep.", "That sounds stressful.",
         "Improved reply.", "Human reply.", "PW4"),
        ("5", 2, "Thanks, that helps a bit.", "Glad to hear it.", None, None, ""),
        ("17", 1, "We broke up yesterday.", "I'm sorry. Breakups are hard.", "Alt one.",
         "Alt two.", "PW1; PW2"),
        ("17", 2, "Whatever.", "I'm here if you want to talk.", None, None, None),
        ("23", 1, "hi", "hello", None, None, None),
    ])  # fmt: skip


def test_emotion_tags(release_small):
    assert_table(release_small, "emotion_tags", [
        ("5", 1, 0, "nervous", 5, True),
        ("5", 1, 1, "upset", 3, True),
        ("17", 1, 0, "nervous", 6, True),   # "  Nervous ", "intense"
        ("17", 1, 1, "neutral", 2, False),  # unknown label kept, "mild"
        ("17", 1, 2, "hostile", 7, True),   # "Hostile", 9 clamped
        ("17", 2, 0, "upset", NAN, True),
    ])  # fmt: skip


def test_binary_judgements(release_small):
    assert_table(release_small, "binary_judgements", [
        ("5", 1, "B1", "yes", "yes", "yes"),
        ("5", 1, "B13", "no", "no", "yes"),
        ("5", 1, "B14", "na", "na", None),
        ("5", 2, "B1", "no", "yes", "yes"),
        ("17", 1, "B2", "yes", "na", "no"),   # true; humanValue "n/a"; humanPreference 0
        ("17", 1, "B3", None, "no", "no"),    # "maybe" unrecognised; actualValue
        ("17", 1, "B1", "no", "no", "no"),    # repeated B1: the last one is kept
    ])  # fmt: skip


def test_pairwise_comparisons(release_small):
    assert_table(release_small, "pairwise_comparisons", [
        ("5", 1, 0, "general", "original", "human", "B"),
        ("5", 1, 1, "PW4", "alternate", "original", "A"),
        ("17", 1, 0, "general", "original", "human", "B"),      # response_1/2, alternate2
        ("17", 1, 1, "PW1", "alternate", "original", "A"),      # alternate1, winner "a"
        ("17", 1, 2, "custom:was it kind?", "human", "alternate", None),
        ("17", 1, 3, "PW2", "original", "human", None),          # winner "C"
    ])  # fmt: skip


def test_predictors(release_small):
    assert_table(release_small, "predictors", [
        ("em_alpha", "model", "EM Alpha", 2),
        ("rater_1", "human", "Rater 1", 1),
    ])  # fmt: skip


def test_runs(release_small):
    assert_table(release_small, "runs", [
        (*A5, "runs/em_alpha/conversation_5.json", "alpha-1", "2026-01-01T00:00:00Z", "absolute",
         33, 22, "Clear and explicitly stated", "Mostly well-matched", 5, 5, 5, 5, 0.0123, 12.5),
        # linked by source_file; mode from release.json; rebuilt from deltas: 23+5, 46-10
        (*A17, "runs/em_alpha/conversation_17.json", "alpha-1", "2026-01-01T00:05:00Z", "delta",
         28, 36, "Implied or indirect", None, 7, NAN, NAN, NAN, NAN, NAN),
        (*R5, "runs/rater_1/conversation_5.json", "rater-1", None, None,
         NAN, NAN, None, None, NAN, NAN, NAN, NAN, NAN, NAN),
    ])  # fmt: skip


def test_pred_panas_items(release_small):
    values = [4, 3, 3, 4, 3, 3, 3, 3, 3, 4]
    assert_table(
        release_small, "pred_panas_items", [(*A5, i, v) for i, v in zip(PANAS_ITEMS, values)]
    )


def test_pred_survey_choices(release_small):
    assert_table(release_small, "pred_survey_choices", [
        (*A5, "q1_looking_for", 0, "To just listen or let me vent"),
    ])  # fmt: skip


def test_pred_turns(release_small):
    assert_table(release_small, "pred_turns", [
        (*A5, 1, "I hear you.", 5, 6, 4, 5),
        (*A5, 2, None, NAN, NAN, NAN, NAN),
        (*A17, 1, "That must hurt.", 3, NAN, NAN, NAN),
        (*R5, 1, None, NAN, NAN, NAN, NAN),
    ])  # fmt: skip


def test_pred_emotion_tags(release_small):
    assert_table(release_small, "pred_emotion_tags", [
        (*A5, 1, 0, "nervous", 4),
        (*A5, 1, 2, "afraid", NAN),    # position 1 ("Calm") dropped
        (*A17, 1, 0, "upset", 6),
        (*A17, 1, 1, "nervous", 2),    # 2.5 rounds half to even
        (*R5, 1, 0, "upset", 4),       # "Upset", "moderate"
    ])  # fmt: skip


def test_pred_binary(release_small):
    rows = []
    for task, values in [
        ("om", ["yes", "no", "na"]),
        ("human", ["yes", "yes", "no"]),
        ("om_hp", ["no", "no", "na"]),
        ("human_hp", ["yes", "yes", "na"]),
    ]:
        rows += [(*A5, 1, task, q, v) for q, v in zip(["B1", "B13", "B14"], values)]
    rows += [(*A5, 1, "draft", "B1", "yes"), (*A5, 1, "draft", "B13", "no")]
    rows += [(*A5, 2, "om", "B1", "yes"), (*A5, 2, "human", "B1", "no")]
    rows += [(*A17, 1, "om", "B1", "yes"), (*A17, 1, "om", "B2", None), (*A17, 1, "om", "B3", "na")]
    rows += [(*A17, 1, "human", q, "no") for q in ["B1", "B2", "B3"]]
    rows += [(*R5, 1, "om", "B1", "no")]
    assert_table(release_small, "pred_binary", rows)  # fmt: skip


def test_pred_pairwise(release_small):
    assert_table(release_small, "pred_pairwise", [
        (*A5, 1, 0, "B", "original", "human"),
        (*A5, 1, 1, "A", "alternate", "original"),
        (*A17, 1, 0, "B", "original", "human"),   # "response_2"
        (*A17, 1, 1, "A", None, None),            # "a", no assignment
        (*A17, 1, 2, None, None, None),           # "X"
        (*R5, 1, 0, "A", None, None),
    ])  # fmt: skip


def test_report_counts_every_rule(release_small):
    counts = dict(
        zip(release_small.report.counts()["rule"], release_small.report.counts()["count"])
    )
    assert counts == {
        "panas_items_nested": 20,
        # Q1 Q2 Q3, did_occur should_occur humanValue humanPreference actualValue,
        # alternate1 alternate2, response_1 response_2 (conversation 17) + Q2 (run 17)
        "alias_field": 13,
        # Yes TRUE n, true n/a 0 (GT 17); YES (run 5); true (run 17)
        "binary_value_normalised": 8,
        "emotion_label_normalised": 5,  # "  Nervous " Hostile Upset (GT 17); Calm; Upset
        "label_normalised": 5,
        # by_model judge, response_reasoning, pre_panas_shown (run 5); pre_panas_shown (run 17)
        "ignored_field": 4,
        "winner_normalised": 4,
        "four_branch_clamped": 3,
        "intensity_word": 3,
        "panas_total_derived": 3,
        "binary_value_unrecognised": 2,
        "ground_truth_turn_not_in_run": 2,
        "panas_rebuilt_from_delta": 2,
        "panas_total_clamped": 2,
        "winner_unrecognised": 2,
        "duplicate_question": 1,
        "intensity_clamped": 1,
        "intensity_rounded": 1,
        "number_from_string": 1,
        "panas_item_rounded": 1,
        "panas_items_missing": 1,  # run 5 predicts the positive items only
        "participant_anonymous": 1,
        "run_id_from_source_file": 1,  # run 17 has source_file and no conversationId
        "unknown_emotion_dropped": 1,
        "unknown_emotion_kept": 1,
    }


def test_report_events_name_file_path_and_values(release_small):
    ev = release_small.report.events
    row = ev[ev["rule"] == "unknown_emotion_dropped"].iloc[0]
    assert (row["file"], row["path"], row["original"], row["result"]) == (
        "runs/em_alpha/conversation_5.json", "$.turns[0].em_emotion_tags[1].emotion", "'Calm'", ""
    )  # fmt: skip
    row = ev[ev["rule"] == "duplicate_question"].iloc[0]
    assert (row["file"], row["path"]) == (
        GT17, "$.turns[1].annotations.binaryJudgements[3].questionId"
    )  # fmt: skip
    missing = ev[ev["rule"] == "ground_truth_turn_not_in_run"]
    assert sorted(zip(missing["file"], missing["original"])) == [
        ("runs/em_alpha/conversation_17.json", "2"), ("runs/rater_1/conversation_5.json", "2")
    ]  # fmt: skip


def test_summary_counts(release_small):
    summary = dict(zip(release_small.summary()["item"], release_small.summary()["value"]))
    assert summary["conversations"] == 3
    assert summary["turns"] == 5
    assert summary["unknown ground-truth emotion labels"] == 1
    assert summary["predictor kinds"] == "human: 1, model: 1"
    assert summary["load report events"] == 88  # sum of the counts above
    assert summary["simulated"] is False


def test_repr_is_one_line_of_the_fixture_counts(release_small, release_small_path):
    # the hand-written fixture: conversations 5, 17, 23 with 5 turns, participants P01, P02 and
    # an anonymous one (conversation 23 counts as its own), em_alpha (model), rater_1 (human)
    text = repr(release_small)
    assert "\n" not in text
    assert text == (
        "<Release: 3 conversations, 5 turns, 3 participants, 2 predictors (1 models, 1 human "
        f"raters); {len(release_small.report.warnings)} load warning(s); not marked simulated; "
        f"{release_small_path}>"
    )


def test_info_and_root(release_small, release_small_path):
    assert release_small.info["predictors"]["rater_1"]["kind"] == "human"
    assert release_small.root == release_small_path
    assert not release_small.simulated


# --- in-memory path and checksum -----------------------------------------------------------------


def _read_fixture_docs(root):
    conv = {
        f"conversations/{p.name}": json.loads(p.read_text())
        for p in (root / "conversations").iterdir()
    }
    runs = {
        d.name: {f"runs/{d.name}/{p.name}": json.loads(p.read_text()) for p in d.iterdir()}
        for d in (root / "runs").iterdir()
    }
    info = json.loads((root / "release.json").read_text())
    return conv, runs, info  # fmt: skip


def test_release_from_documents_gives_the_same_tables(release_small, release_small_path):
    conv, runs, info = _read_fixture_docs(release_small_path)
    mem = release_from_documents(conv, runs, info)
    for name in TABLE_SCHEMAS:
        pd.testing.assert_frame_equal(mem.tables[name], release_small.tables[name])
    pd.testing.assert_frame_equal(mem.report.counts(), release_small.report.counts())
    assert mem.root is None


def test_checksum_tracks_the_files_read(tmp_path, release_small, release_small_path):
    copy = tmp_path / "copy"
    shutil.copytree(release_small_path, copy)
    assert load_release(copy).checksum == release_small.checksum
    (copy / "truth.json").write_text('{"changed": true}')  # ignored file: not read
    assert load_release(copy).checksum == release_small.checksum
    p = copy / "runs" / "rater_1" / "conversation_5.json"
    p.write_text(p.read_text() + "\n")  # one more byte in a file that is read
    assert load_release(copy).checksum != release_small.checksum
    assert len(release_small.checksum) == 64


# --- one small hand-written release per rule ------------------------------------------------------


def turn(n=1, tags=(), judgements=(), comparisons=(), alternates=None, **extra):
    return {
        "turnNumber": n, "userMessage": f"user {n}", "llmResponse": f"reply {n}",
        "moodShiftTags": list(tags),
        "annotations": {
            "binaryJudgements": list(judgements), "alternateResponses": alternates,
            "pairwiseComparisons": list(comparisons), "selectedPairwiseQuestions": [],
        },
        **extra,
    }  # fmt: skip


def conversation(cid="1", turns=None, **extra):
    return {"conversationId": cid, "turns": [turn()] if turns is None else turns, **extra}


def run_turn(n=1, **fields):
    return {"turnNumber": n, **fields}


def run(cid="1", turns=None, **extra):
    return {"conversationId": cid, "em_model": "m", "mode": "default",
            "turns": [run_turn()] if turns is None else turns, **extra}  # fmt: skip


def load_one(write_release, tmp_path, conv_doc, run_doc=None, info=None):
    runs = None if run_doc is None else {"m": {"conversation_1.json": run_doc}}
    return load_release(write_release(tmp_path, {"conversation_1.json": conv_doc}, runs, info))


def rules(release) -> dict[str, int]:
    c = release.report.counts()
    return dict(zip(c["rule"], c["count"]))


@pytest.mark.parametrize(
    ("alias", "column"),
    [("did_occur", "observed"), ("humanValue", "observed"), ("actualValue", "observed"),
     ("should_occur", "preferred"), ("humanPreference", "preferred")],
)  # fmt: skip
def test_binary_judgement_aliases(tmp_path, alias, column, write_release):
    doc = conversation(
        turns=[turn(judgements=[{"questionId": "B7", "llmValue": "no", alias: "yes"}])]
    )
    rel = load_one(write_release, tmp_path, doc)
    assert rel.binary_judgements[column].tolist() == ["yes"]
    assert rules(rel) == {"alias_field": 1, "participant_anonymous": 1}
    ev = rel.report.events
    assert ev.loc[ev["rule"] == "alias_field", "path"].tolist() == [
        f"$.turns[0].annotations.binaryJudgements[0].{alias}"
    ]


def test_canonical_field_wins_over_alias(tmp_path, write_release):
    bj = {"questionId": "B7", "observedBehavior": "no", "did_occur": "yes", "preferredBehavior": None,
          "should_occur": "yes"}  # fmt: skip
    rel = load_one(write_release, tmp_path, conversation(turns=[turn(judgements=[bj])]))
    # observed: canonical "no" wins; preferred: canonical null is skipped, alias used (a ?? b)
    assert rel.binary_judgements[["observed", "preferred"]].values.tolist() == [["no", "yes"]]
    assert rules(rel)["alias_field"] == 1


def test_alternate_response_aliases(tmp_path, write_release):
    doc = conversation(turns=[turn(alternates={"alternate1": "improved", "alternate2": "edited"})])
    rel = load_one(write_release, tmp_path, doc)
    assert rel.turns[["llm_improved", "human_edited"]].values.tolist() == [["improved", "edited"]]
    assert rules(rel)["alias_field"] == 2


def test_pairwise_response_aliases_and_blinded_labels(tmp_path, write_release):
    pw = {
        "questionId": "general",
        "response_1": "alternate1",
        "response_2": "alternate2",
        "winner": "A",
    }
    rel = load_one(write_release, tmp_path, conversation(turns=[turn(comparisons=[pw])]))
    assert rel.pairwise_comparisons[["response_a", "response_b"]].values.tolist() == [
        ["alternate", "human"]
    ]
    assert rules(rel) == {"alias_field": 2, "label_normalised": 2, "participant_anonymous": 1}


@pytest.mark.parametrize(
    ("raw", "expected", "rule"),
    [("A", "A", None), ("b", "B", "winner_normalised"), ("response_1", "A", "winner_normalised"),
     ("response_2", "B", "winner_normalised"), (None, None, None), ("tie", None, "winner_unrecognised")],
)  # fmt: skip
def test_pairwise_winner_spellings(tmp_path, raw, expected, rule, write_release):
    pw = {"questionId": "PW3", "responseA": "original", "responseB": "human", "winner": raw}
    rel = load_one(write_release, tmp_path, conversation(turns=[turn(comparisons=[pw])]))
    got = rel.pairwise_comparisons["winner"].iloc[0]
    assert (None if pd.isna(got) else got) == expected
    assert rules(rel).get(rule, 0) == (0 if rule is None else 1)


@pytest.mark.parametrize(
    ("raw", "expected", "rule"),
    [("Y", "yes", "binary_value_normalised"), (True, "yes", "binary_value_normalised"),
     ("False", "no", "binary_value_normalised"), ("0", "no", "binary_value_normalised"),
     ("N/A", "na", "binary_value_normalised"), ("not_applicable", "na", "binary_value_normalised"),
     ("perhaps", None, "binary_value_unrecognised")],
)  # fmt: skip
def test_binary_value_spellings(tmp_path, raw, expected, rule, write_release):
    bj = {"questionId": "B1", "llmValue": raw, "observedBehavior": "yes", "preferredBehavior": "no"}
    rel = load_one(write_release, tmp_path, conversation(turns=[turn(judgements=[bj])]), run(turns=[
        run_turn(em_binary_om_assessment={"B1": raw})]))  # fmt: skip
    got_gt = rel.binary_judgements["llm_value"].iloc[0]
    got_pred = rel.pred_binary["value"].iloc[0]
    assert [None if pd.isna(g) else g for g in (got_gt, got_pred)] == [expected, expected]
    assert rules(rel)[rule] == 2


@pytest.mark.parametrize(
    ("raw", "expected", "rule_list"),
    [("mild", 2, ["intensity_word"]), ("moderate", 4, ["intensity_word"]),
     ("intense", 6, ["intensity_word"]), (3.4, 3, ["intensity_rounded"]),
     (0, 1, ["intensity_clamped"]), (8.7, 7, ["intensity_rounded", "intensity_clamped"]),
     (None, NAN, [])],
)  # fmt: skip
def test_mood_intensity_rules(tmp_path, raw, expected, rule_list, write_release):
    doc = conversation(turns=[turn(tags=[{"emotion": "proud", "intensity": raw}])])
    rel = load_one(write_release, tmp_path, doc)
    got = rel.emotion_tags["intensity"].iloc[0]
    assert (math.isnan(got) and math.isnan(expected)) or got == expected
    assert {k: v for k, v in rules(rel).items() if k != "participant_anonymous"} == dict.fromkeys(
        rule_list, 1
    )


def test_panas_items_nested_under_responses_and_totals_derived(tmp_path, write_release):
    items = {"Proud": 5, "Alert": 4, "Upset": 6, "Scared": 2}
    rel = load_one(write_release, tmp_path, conversation(prePanas={"responses": items}))
    # derived partial sums: PA 5+4 = 9 -> clamped to 10; NA 6+2 = 8 -> 10
    assert rel.conversations[["pre_pa", "pre_na"]].values.tolist() == [[10.0, 10.0]]
    assert rel.panas_items[["time", "item", "value"]].values.tolist() == [
        ["pre", "Proud", 5.0], ["pre", "Alert", 4.0], ["pre", "Upset", 6.0], ["pre", "Scared", 2.0]
    ]  # fmt: skip
    r = rules(rel)
    assert (r["panas_items_nested"], r["panas_total_derived"], r["panas_total_clamped"]) == (
        4,
        2,
        2,
    )


def test_panas_totals_derived_from_full_items(tmp_path, write_release):
    items = dict.fromkeys(PANAS_ITEMS[:10], 4) | dict.fromkeys(PANAS_ITEMS[10:], 2)
    rel = load_one(write_release, tmp_path, conversation(postPanas={"items": items}))
    assert rel.conversations[["post_pa", "post_na"]].values.tolist() == [[40.0, 20.0]]
    assert rules(rel)["panas_total_derived"] == 2
    assert "panas_items_nested" not in rules(rel)


def test_panas_total_clamped_and_item_rounded_not_clamped(tmp_path, write_release):
    block = {
        "totalPositiveAffect": 80,
        "totalNegativeAffect": 9.6,
        "items": {"Proud": 7, "Upset": 2.4},
    }
    rel = load_one(write_release, tmp_path, conversation(postPanas=block))
    assert rel.conversations[["post_pa", "post_na"]].values.tolist() == [[70.0, 10.0]]
    assert rel.panas_items["value"].tolist() == [7.0, 2.0]
    assert rules(rel)["panas_total_clamped"] == 2
    assert rules(rel)["panas_item_rounded"] == 1
    # the clamped total is a warning naming the field and the value (9.6 is only rounded)
    clamped = [(w.path, w.value) for w in rel.report.warnings if w.rule == "clamped"]
    assert clamped == [("$.postPanas.totalPositiveAffect", "80")]


def test_panas_item_out_of_range_is_an_error(tmp_path, write_release):
    # items have no clamping rule (spec 4: rounded, not clamped): a 9 on the 1..7 scale is refused
    block = {"items": {"Proud": 9, "Upset": 2.4}}
    with pytest.raises(ReleaseError, match=r"\$\.postPanas\.items\.Proud: PANAS item out of "
                       r"range: expected 1\.\.7 \(got 9\)"):  # fmt: skip
        load_one(write_release, tmp_path, conversation(postPanas=block))


def test_four_branch_clamped_not_rounded(tmp_path, write_release):
    cw = {"fourBranchScores": {"perceiving": 7.5, "facilitating": 2.5, "understanding": -1}}
    rel = load_one(write_release, tmp_path, conversation(conversationWideQuestions=cw))
    got = rel.conversations[["fb_perceiving", "fb_facilitating", "fb_understanding", "fb_managing"]]
    assert got.values.tolist()[0][:3] == [7.0, 2.5, 1.0] and math.isnan(got.values[0][3])
    assert rules(rel)["four_branch_clamped"] == 2


def test_survey_aliases(tmp_path, write_release):
    cw = {
        "Q1": ["Other", "To just listen or let me vent"],
        "Q2": "Implied or indirect",
        "Q3": "Mostly well-matched",
    }
    rel = load_one(write_release, tmp_path, conversation(conversationWideQuestions=cw))
    assert rel.conversations[["q2_emotion_clarity", "q3_model_fit"]].values.tolist() == [
        ["Implied or indirect", "Mostly well-matched"]
    ]  # fmt: skip
    assert rel.survey_choices["value"].tolist() == ["Other", "To just listen or let me vent"]
    assert rules(rel)["alias_field"] == 3


def test_emotion_labels_ground_truth_vs_prediction(tmp_path, write_release):
    tags = [{"emotion": " Afraid", "intensity": 3}, {"emotion": "Neutral", "intensity": None}]
    pred = [{"emotion": " Afraid", "intensity": 3}, {"emotion": "Neutral", "intensity": 1},
            {"emotion": "guilty", "intensity": 2}]  # fmt: skip
    rel = load_one(
        write_release,
        tmp_path,
        conversation(turns=[turn(tags=tags)]),
        run(turns=[run_turn(em_emotion_tags=pred)]),
    )
    assert rel.emotion_tags[["position", "emotion", "known"]].values.tolist() == [
        [0, "afraid", True], [1, "neutral", False]
    ]  # fmt: skip
    assert rel.pred_emotion_tags[["position", "emotion"]].values.tolist() == [
        [0, "afraid"],
        [2, "guilty"],
    ]
    r = rules(rel)
    assert (
        r["emotion_label_normalised"],
        r["unknown_emotion_kept"],
        r["unknown_emotion_dropped"],
    ) == (4, 1, 1)


def test_duplicate_question_last_kept(tmp_path, write_release):
    bjs = [{"questionId": "B2", "observedBehavior": "yes"}, {"questionId": "B3", "observedBehavior": "no"},
           {"questionId": "B2", "observedBehavior": "no"}]  # fmt: skip
    rel = load_one(write_release, tmp_path, conversation(turns=[turn(judgements=bjs)]))
    assert rel.binary_judgements[["question_id", "observed"]].values.tolist() == [
        ["B3", "no"],
        ["B2", "no"],
    ]
    assert rules(rel)["duplicate_question"] == 1


def test_ground_truth_turn_missing_from_run_is_skipped_and_counted(tmp_path, write_release):
    doc = conversation(turns=[turn(1), turn(2), turn(3)])
    rel = load_one(write_release, tmp_path, doc, run(turns=[run_turn(2)]))
    assert rel.pred_turns["turn"].tolist() == [2]
    ev = rel.report.events
    assert ev.loc[ev["rule"] == "ground_truth_turn_not_in_run", "original"].tolist() == ["1", "3"]


def test_participant_anonymous_and_shared(tmp_path, write_release):
    prof = {"participant_id": "P9", "traits": ["autism"], "age": "30"}
    convs = {"conversation_1.json": conversation("1", participant_profile=prof),
             "conversation_2.json": conversation("2", participant_profile=prof),
             "conversation_3.json": conversation("3", participant_profile=None)}  # fmt: skip
    rel = load_release(write_release(tmp_path, convs))
    assert_table(rel, "participants", [
        ("P9", "asd_adhd", "30", "autism", 2),
        ("anon-3", "unknown", None, None, 1),
    ])  # fmt: skip
    assert rel.conversations["participant_id"].tolist() == ["P9", "P9", "anon-3"]
    assert rules(rel) == {"participant_anonymous": 1}


def test_participant_conflicting_profiles_first_kept(tmp_path, write_release):
    convs = {"conversation_1.json": conversation("1", participant_profile={"participant_id": "P", "traits": ["ADHD"]}),
             "conversation_2.json": conversation("2", participant_profile={"participant_id": "P", "traits": []})}  # fmt: skip
    rel = load_release(write_release(tmp_path, convs))
    assert_table(rel, "participants", [("P", "asd_adhd", None, "ADHD", 2)])
    assert rel.conversations["diagnosis_group"].tolist() == ["asd_adhd", "asd_adhd"]
    ev = rel.report.events
    assert ev.loc[ev["rule"] == "participant_conflict", ["file", "original", "result"]].values.tolist() == [
        ["conversations/conversation_2.json", "(None, '')",
         "(None, 'ADHD', 'conversations/conversation_1.json')"]
    ]  # fmt: skip


def test_delta_strategy_rebuilt_from_ground_truth_pre(tmp_path, write_release):
    post = {"panas_strategy": "blind_delta", "predicted_post_panas": None,
            "predicted_panas_delta": {"totalPositiveAffect_change": -3, "totalNegativeAffect_change": 40}}  # fmt: skip
    rel = load_one(
        write_release,
        tmp_path,
        conversation(prePanas={"totalPositiveAffect": 31, "totalNegativeAffect": 33}),
        run(post_conversation=post),
    )
    # 31 - 3 = 28; 33 + 40 = 73 -> 70
    assert rel.runs[["pred_post_pa", "pred_post_na"]].values.tolist() == [[28.0, 70.0]]
    assert rules(rel)["panas_rebuilt_from_delta"] == 2


def test_mode_defaults(tmp_path, write_release):
    r1 = run("1")
    del r1["mode"]
    convs = {"conversation_1.json": conversation("1")}
    runs = {"a": {"x.json": r1}, "b": {"x.json": dict(r1)}}
    info = {"predictors": {"a": {"mode": "omniscient"}}}
    rel = load_release(write_release(tmp_path, convs, runs, info))
    assert rel.runs[["predictor", "mode"]].values.tolist() == [
        ["a", "omniscient"],
        ["b", "default"],
    ]
    assert rel.predictors[["kind", "display_name"]].values.tolist() == [
        ["model", "a"],
        ["model", "b"],
    ]


def test_several_modes_per_predictor(tmp_path, write_release):
    convs = {"conversation_1.json": conversation("1")}
    runs = {"a": {"d.json": run("1", mode="default"), "v.json": run("1", mode="verbose")}}
    rel = load_release(write_release(tmp_path, convs, runs))
    assert rel.runs["mode"].tolist() == ["default", "verbose"]
    assert rel.predictors["n_runs"].tolist() == [2]


def test_run_linked_by_source_file(tmp_path, write_release):
    r = run()
    del r["conversationId"]
    r["source_file"] = "conversation_1.json"
    rel = load_one(write_release, tmp_path, conversation(), r)
    assert rel.runs["conversation_id"].tolist() == ["1"]
    ev = rel.report.events
    [row] = ev[ev["rule"] == "run_id_from_source_file"].itertuples()
    assert (row.file, row.path) == ("runs/m/conversation_1.json", "$.source_file")
    # a run that has its conversationId records no such event
    rel = load_one(write_release, tmp_path / "b", conversation(), run())
    assert "run_id_from_source_file" not in set(rel.report.events["rule"])


def test_conversation_id_from_file_name(tmp_path, write_release):
    doc = conversation()
    del doc["conversationId"]
    rel = load_release(write_release(tmp_path, {"conversation_42.json": doc}))
    assert rel.conversations["conversation_id"].tolist() == ["42"]


def test_ignored_fields_are_counted(tmp_path, write_release):
    t = run_turn(em_draft_judge_scores_by_model={"j": {"overall_score": 5}}, emotion_reasoning="x",
                 em_four_branch_scores={"perceiving": 3})  # fmt: skip
    rel = load_one(write_release, tmp_path, conversation(), run(turns=[t]))
    ev = rel.report.events
    assert sorted(ev.loc[ev["rule"] == "ignored_field", "path"]) == [
        "$.turns[*].em_draft_judge_scores_by_model", "$.turns[*].em_four_branch_scores",
        "$.turns[*].emotion_reasoning",
    ]  # fmt: skip


def test_natural_conversation_order(tmp_path, write_release):
    convs = {f"conversation_{i}.json": conversation(str(i)) for i in (100, 9, 23)}
    rel = load_release(write_release(tmp_path, convs))
    assert rel.conversations["conversation_id"].tolist() == ["9", "23", "100"]


# --- subsets and layouts ---------------------------------------------------------------------------


def test_subset_filters_conversations_and_runs(tmp_path, write_release):
    # Subsample20 lists 13, 36, 41, ...: 13 and 36 are kept, 5 is outside
    convs = {f"conversation_{i}.json": conversation(str(i)) for i in (5, 13, 36)}
    runs = {"m": {f"r{i}.json": run(str(i)) for i in (5, 13)}}
    rel = load_release(write_release(tmp_path, convs, runs), subset="Subsample20")
    assert rel.conversations["conversation_id"].tolist() == ["13", "36"]
    assert rel.runs["conversation_id"].tolist() == ["13"]
    r = rules(rel)
    assert r["subset_id_missing"] == 18  # 20 listed ids, 2 with a file
    assert r["run_outside_subset"] == 1
    with pytest.raises(ValueError, match="subset='Sample7'"):
        load_release(tmp_path, subset="Sample7")


def test_test_samples_layout(tmp_path):
    for subset, ids in (("Sample200", (5, 6)), ("Subsample25", (10,))):
        d = tmp_path / "Test Samples" / subset
        d.mkdir(parents=True)
        for i in ids:
            (d / f"conversation_{i}.json").write_text(json.dumps(conversation(str(i))))
    assert load_release(tmp_path).conversations["conversation_id"].tolist() == ["5", "6"]
    rel = load_release(tmp_path, subset="Subsample25")
    assert rel.conversations["file"].tolist() == ["Test Samples/Subsample25/conversation_10.json"]
    assert rules(rel)["subset_id_missing"] == 24
    with pytest.raises(ValueError, match="Subsample50"):
        load_release(tmp_path, subset="Subsample50")


# --- diagnosis groups ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("traits", "group"),
    [(None, "unknown"), ([], "none"), (["left-handed", "student"], "none"),
     (["Generalized Anxiety Disorder"], "anxiety_depression"), (["depressed"], "anxiety_depression"),
     (["GAD"], "anxiety_depression"), (["panic attacks"], "anxiety_depression"),
     (["Autism spectrum"], "asd_adhd"), (["ADHD"], "asd_adhd"), (["ASD"], "asd_adhd"),
     (["Asperger's"], "asd_adhd"), (["adhd", "anxiety"], "multiple"),
     (["No diagnosis"], "none"), (["non-anxious"], "none"), (["none"], "none"),
     (["grad student"], "none"), (["mad about football"], "none"), (["ADD"], "asd_adhd"),
     (["likes to add spice"], "none")],
)  # fmt: skip
def test_diagnosis_group(traits, group):
    assert diagnosis_group(traits) == group


def test_diagnosis_group_rejects_a_bare_string():
    with pytest.raises(TypeError, match="traits must be a sequence of strings"):
        diagnosis_group("anxiety")


# --- errors: one per kind, each naming the file and the field --------------------------------------


def problems_of(excinfo) -> list[str]:
    return [str(p) for p in excinfo.value.problems]


def test_unreadable_json(tmp_path, write_release):
    root = write_release(tmp_path, {"conversation_1.json": conversation()})
    (root / "conversations" / "conversation_2.json").write_text(
        '{"conversationId": "2", "turns": ['
    )
    with pytest.raises(ReleaseError, match=r"conversations/conversation_2\.json: unreadable JSON"):
        load_release(root)


@pytest.mark.parametrize(
    ("doc", "where"),
    [({"conversationId": "1"}, r"\$\.turns: missing required field turns"),
     (conversation(turns=[{"userMessage": "x"}]), r"\$\.turns\[0\]\.turnNumber: missing required field turnNumber"),
     (conversation(turns=[turn(judgements=[{"observedBehavior": "yes"}])]),
      r"\$\.turns\[0\]\.annotations\.binaryJudgements\[0\]\.questionId: missing required field questionId"),
     (conversation(turns=[turn(tags=[{"intensity": 3}])]),
      r"\$\.turns\[0\]\.moodShiftTags\[0\]\.emotion: missing required field emotion"),
     (conversation(turns=[turn(comparisons=[{"questionId": "general", "responseA": "original", "winner": "A"}])]),
      r"\$\.turns\[0\]\.annotations\.pairwiseComparisons\[0\]\.responseB: missing required field responseB")],
)  # fmt: skip
def test_missing_required_fields(tmp_path, doc, where, write_release):
    root = write_release(tmp_path, {"conversation_1.json": doc})
    with pytest.raises(ReleaseError, match=r"conversations/conversation_1\.json: " + where):
        load_release(root)


@pytest.mark.parametrize(
    ("doc", "where"),
    [(conversation(turns=[{"turnNumbr": 1, "userMessage": "x"}]),
      r"turnNumber: missing required field turnNumber; the object has 'turnNumbr': a misspelling\?"),
     (conversation(turns=[turn(tags=[{"emotin": "Proud", "intensity": 3}])]),
      r"emotion: missing required field emotion; the object has 'emotin'"),
     (conversation(turns=[turn(comparisons=[{"questionId": "general", "responseA": "original",
                                             "respnseB": "draft", "winner": "A"}])]),
      r"responseB: missing required field responseB; the object has 'respnseB'")],
)  # fmt: skip
def test_a_missing_field_names_the_misspelt_key_beside_it(tmp_path, doc, where, write_release):
    root = write_release(tmp_path, {"conversation_1.json": doc})
    with pytest.raises(ReleaseError, match=where):
        load_release(root)


def test_run_without_link_to_ground_truth(tmp_path, write_release):
    r = run()
    del r["conversationId"]
    with pytest.raises(
        ReleaseError,
        match=r"runs/m/conversation_1\.json: \$\.conversationId: missing required field",
    ):
        load_one(write_release, tmp_path, conversation(), r)


@pytest.mark.parametrize(
    ("doc", "where"),
    [(conversation(turns={"1": turn()}), r"\$\.turns: must be an array or null, not object \(got \{"),
     (conversation(turns=[turn(userMessage=42)]), r"\$\.turns\[0\]\.userMessage: must be a string or null, not number \(got 42\)"),
     (conversation(turns=[turn(n="1")]), r"\$\.turns\[0\]\.turnNumber: turnNumber must be an integer, not string \(got '1'\)"),
     (conversation(turns=[turn(tags=[{"emotion": "afraid", "intensity": "very"}])]),
      r"\$\.turns\[0\]\.moodShiftTags\[0\]\.intensity: mood intensity must be a number \(got 'very'\)"),
     (conversation(prePanas={"items": {"Proud": "high"}}), r"\$\.prePanas\.items\.Proud: PANAS item must be a number \(got 'high'\)"),
     (conversation(postPanas={"totalPositiveAffect": [30]}), r"\$\.postPanas\.totalPositiveAffect: PANAS total must be a number, not array"),
     (conversation(conversationWideQuestions={"fourBranchScores": {"managing": "good"}}),
      r"\$\.conversationWideQuestions\.fourBranchScores\.managing: four-branch score must be a number \(got 'good'\)"),
     (conversation(conversationWideQuestions={"q1_lookingFor": ["Other", 3]}),
      r"\$\.conversationWideQuestions\.q1_lookingFor\[1\]: must be a string, not number \(got 3\)"),
     (conversation(turns=[turn(judgements=[{"questionId": "B1", "observedBehavior": ["yes"]}])]),
      r"\$\.turns\[0\]\.annotations\.binaryJudgements\[0\]\.observedBehavior: binary value must be"),
     (conversation(metadata={"category": 7}), r"\$\.metadata\.category: must be a string or null, not number"),
     (conversation(conversationId=17), r"\$\.conversationId: conversationId must be a non-empty string \(got 17\)"),
     ([1, 2], r"\$: conversation file must hold a JSON object, not array")],
)  # fmt: skip
def test_wrong_types(tmp_path, doc, where, write_release):
    root = write_release(tmp_path, {"conversation_1.json": doc})
    with pytest.raises(ReleaseError, match=r"conversations/conversation_1\.json: " + where):
        load_release(root)


def test_wrong_types_in_runs(tmp_path, write_release):
    t = run_turn(em_binary_om_assessment=["B1"], em_pairwise_selections={"first": "A"},
                 em_draft_judge_scores={"helpfulness": "high"})  # fmt: skip
    with pytest.raises(ReleaseError) as info:
        load_one(write_release, tmp_path, conversation(), run(turns=[t], api_cost="cheap"))
    assert problems_of(info) == [
        "runs/m/conversation_1.json: $.api_cost: must be a number or null, not string (got 'cheap')",
        "runs/m/conversation_1.json: $.turns[0].em_binary_om_assessment: must be an object or null, not array (got ['B1'])",
        "runs/m/conversation_1.json: $.turns[0].em_pairwise_selections.first: comparison key must be a non-negative integer string (got 'first')",
        "runs/m/conversation_1.json: $.turns[0].em_draft_judge_scores.helpfulness: judge score must be a number (got 'high')",
    ]  # fmt: skip


def test_duplicate_turn_numbers(tmp_path, write_release):
    with pytest.raises(ReleaseError, match=re.escape(
        "conversations/conversation_1.json: $.turns[1].turnNumber: duplicate turn number (also at $.turns[0]) (got 1)"
    )):  # fmt: skip
        load_one(write_release, tmp_path, conversation(turns=[turn(1), turn(1)]))


def test_duplicate_turn_numbers_in_run(tmp_path, write_release):
    with pytest.raises(ReleaseError, match=re.escape(
        "runs/m/conversation_1.json: $.turns[1].turnNumber: duplicate turn number (also at $.turns[0]) (got 1)"
    )):  # fmt: skip
        load_one(write_release, tmp_path, conversation(), run(turns=[run_turn(1), run_turn(1)]))


def test_prediction_for_conversation_ground_truth_lacks(tmp_path, write_release):
    with pytest.raises(ReleaseError, match=re.escape(
        "runs/m/conversation_1.json: $.conversationId: prediction for a conversation the ground truth lacks (got '99')"
    )):  # fmt: skip
        load_one(write_release, tmp_path, conversation(), run("99"))


def test_prediction_for_turn_ground_truth_lacks(tmp_path, write_release):
    with pytest.raises(ReleaseError, match=re.escape(
        "runs/m/conversation_1.json: $.turns[1].turnNumber: prediction for turn 5, which conversation '1' of the ground truth lacks (got 5)"
    )):  # fmt: skip
        load_one(write_release, tmp_path, conversation(), run(turns=[run_turn(1), run_turn(5)]))


def test_predictor_with_no_files(tmp_path, write_release):
    root = write_release(tmp_path, {"conversation_1.json": conversation()},
                         info={"predictors": {"ghost": {"kind": "human"}}})  # fmt: skip
    (root / "runs" / "empty").mkdir(parents=True)
    with pytest.raises(ReleaseError) as info:
        load_release(root)
    # release.json (like the ground truth) before the run outputs
    assert problems_of(info) == [
        "release.json: $.predictors.ghost: predictor listed in release.json has no run files (got 'ghost')",
        "runs/empty: predictor has no run files",
    ]


@pytest.mark.parametrize("make_dir", [True, False])
def test_empty_release(tmp_path, make_dir):
    if make_dir:
        (tmp_path / "conversations").mkdir()
        match = r"conversations/: empty release: no ground-truth conversation files"
    else:
        match = r"\.: no ground truth: neither conversations/ nor 'Test Samples/<Subset>/' exists"
    with pytest.raises(ReleaseError, match=match):
        load_release(tmp_path)


def test_missing_directory(tmp_path):
    with pytest.raises(ReleaseError, match="release directory not found"):
        load_release(tmp_path / "nope")


def test_duplicate_run_key(tmp_path, write_release):
    convs = {"conversation_1.json": conversation()}
    runs = {"m": {"a.json": run(), "b.json": run()}}
    with pytest.raises(ReleaseError, match=re.escape(
        "runs/m/b.json: $: duplicate run for predictor 'm', mode 'default', conversation '1' (also in runs/m/a.json)"
    )):  # fmt: skip
        load_release(write_release(tmp_path, convs, runs))


def test_duplicate_conversation_id(tmp_path, write_release):
    convs = {"conversation_1.json": conversation("1"), "conversation_2.json": conversation("1")}
    with pytest.raises(ReleaseError, match=re.escape(
        "conversations/conversation_2.json: $.conversationId: duplicate conversation id (also in conversations/conversation_1.json) (got '1')"
    )):  # fmt: skip
        load_release(write_release(tmp_path, convs))


def test_bad_release_json(tmp_path, write_release):
    info = {"format": "other/2", "simulated": "yes", "predictors": {"m": {"kind": "robot"}}}
    with pytest.raises(ReleaseError) as info_err:
        load_one(write_release, tmp_path, conversation(), run(), info)
    assert problems_of(info_err) == [
        "release.json: $.simulated: must be true or false (got 'yes')",
        "release.json: $.format: unknown format (expected 'attunestats-release/1') (got 'other/2')",
        "release.json: $.predictors.m.kind: kind must be 'model' or 'human' (got 'robot')",
    ]


def test_unpaired_surrogate_is_a_release_error(tmp_path, write_release):
    root = write_release(tmp_path, {"conversation_1.json": conversation()})
    (root / "conversations" / "conversation_1.json").write_text(
        '{"conversationId": "1", "turns": [{"turnNumber": 1, "userMessage": "bad \\ud800 text"}]}'
    )
    with pytest.raises(ReleaseError, match=re.escape(
        "conversations/conversation_1.json: $.turns[0].userMessage: text holds an unpaired UTF-16 surrogate"
    )):  # fmt: skip
        load_release(root)
    docs = {
        "conversation_1.json": {
            "conversationId": "1",
            "turns": [{"turnNumber": 1, "userMessage": "\ud800"}],
        }
    }
    with pytest.raises(ReleaseError, match=r"\$\.turns\[0\]\.userMessage: text holds an unpaired"):
        release_from_documents(docs)


def test_every_problem_reported_at_once(tmp_path, write_release):
    convs = {
        "conversation_1.json": conversation(
            turns=[turn(1), turn(1), turn(2, tags=[{"emotion": 3}])]
        ),
        "conversation_2.json": conversation("2", prePanas={"items": {"Upset": "x"}}),
    }
    runs = {"m": {"r.json": run("7")}}
    root = write_release(tmp_path, convs, runs)
    (root / "conversations" / "conversation_3.json").write_text("not json")
    with pytest.raises(ReleaseError) as info:
        load_release(root)
    got = problems_of(info)
    assert len(got) == 5
    assert [g.split(":")[0] for g in got] == [  # file by file, in conversation id order
        "conversations/conversation_1.json", "conversations/conversation_1.json",
        "conversations/conversation_2.json", "conversations/conversation_3.json", "runs/m/r.json",
    ]  # fmt: skip
    assert str(info.value).startswith("5 problems in release:")


def test_validate_release_lists_problems(tmp_path, release_small_path, write_release):
    assert validate_release(release_small_path) == []
    root = write_release(tmp_path, {"conversation_1.json": conversation(turns=[turn(1), turn(1)])})
    problems = validate_release(root)
    assert [(p.file, p.path, p.value) for p in problems] == [
        ("conversations/conversation_1.json", "$.turns[1].turnNumber", "1")
    ]
    bad = validate_release(root, subset="Nope")
    assert len(bad) == 1 and "subset='Nope'" in bad[0].message


def test_cli_validate_exit_codes(tmp_path, capsys, release_small_path, write_release):
    from attunestats import cli

    assert cli.main(["validate", str(release_small_path)]) == 0
    root = write_release(tmp_path, {"conversation_1.json": conversation(turns=[turn(1), turn(1)])})
    assert cli.main(["validate", str(root)]) == 1
    err = capsys.readouterr().err  # the load report goes to stderr
    assert "conversations/conversation_1.json: $.turns[1].turnNumber: duplicate turn number" in err


def test_input_files_never_modified(tmp_path, release_small_path):
    copy = tmp_path / "copy"
    shutil.copytree(release_small_path, copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    mtimes = {p: p.stat().st_mtime_ns for p in before}
    load_release(copy)
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before
    assert {p: p.stat().st_mtime_ns for p in before} == mtimes


def test_runs_and_conversations_come_in_key_order_whatever_the_file_order(tmp_path, write_release):
    # files are read one at a time in name order ("conversation_10" before "conversation_2",
    # "a.json" before "c.json"); the tables are in natural id and (predictor, mode, id) order,
    # each run's rows with its own file's values
    convs = {
        f"conversation_{c}.json": conversation(c, turns=[turn(1), turn(2)]) for c in ("2", "10")
    }

    def one(cid, mode, answer, draft):
        turns = [run_turn(n, em_binary_om_assessment={"B1": answer, "B2": "no"},
                          em_drafted_response=f"{draft} {n}",
                          em_emotion_tags=[{"emotion": "Upset", "intensity": n}])
                 for n in (2, 1)]  # fmt: skip
        return run(cid, turns=turns, mode=mode)

    runs = {"m": {"a.json": one("10", "z", "yes", "A"), "b.json": one("2", "z", "no", "B"),
                  "c.json": one("2", "a", "na", "C")}}  # fmt: skip
    release = load_release(write_release(tmp_path, convs, runs))
    assert release.tables["conversations"]["conversation_id"].tolist() == ["2", "10"]
    assert release.tables["turns"]["conversation_id"].tolist() == ["2", "2", "10", "10"]
    keys = [("m", "a", "2", "na", "C"), ("m", "z", "2", "no", "B"), ("m", "z", "10", "yes", "A")]
    assert_table(release, "pred_binary", [
        (p, m, c, n, "om", q, v if q == "B1" else "no")
        for p, m, c, v, _ in keys for n in (1, 2) for q in ("B1", "B2")
    ])  # fmt: skip
    turns = release.tables["pred_turns"]
    assert list(zip(turns["mode"], turns["conversation_id"], turns["turn"], turns["drafted_response"])) == [
        (m, c, n, f"{d} {n}") for _, m, c, _, d in keys for n in (1, 2)
    ]  # fmt: skip
    runs_t = release.tables["runs"]
    assert list(zip(runs_t["mode"], runs_t["conversation_id"], runs_t["file"])) == [
        ("a", "2", "runs/m/c.json"),
        ("z", "2", "runs/m/b.json"),
        ("z", "10", "runs/m/a.json"),
    ]
    tags = release.tables["pred_emotion_tags"]
    assert list(zip(tags["mode"], tags["conversation_id"], tags["turn"])) == [
        (m, c, n) for _, m, c, _, _ in keys for n in (1, 2)
    ]
    from_docs = release_from_documents(
        {f"conversations/{k}": v for k, v in convs.items()},
        {"m": {f"runs/m/{k}": v for k, v in runs["m"].items()}},
    )
    for name in ("pred_binary", "pred_turns", "runs", "conversations", "turns"):
        pd.testing.assert_frame_equal(from_docs.tables[name], release.tables[name])
