"""Round trip simulate -> write -> load keeps every count, counted independently from the JSON."""

from __future__ import annotations

import pandas as pd
import pytest

from attunestats.constants import PANAS_ITEMS
from attunestats.release.load import load_release, release_from_documents
from attunestats.release.simulate import SimulationConfig, simulate_documents

BINARY_TASK_KEYS = {
    "om": "em_binary_om_assessment",
    "human": "em_binary_human_prediction",
    "om_hp": "em_binary_om_assessment_hp",
    "human_hp": "em_binary_human_prediction_hp",
    "draft": "em_draft_binary_assessment",
}


def _panas_item_count(block) -> int:
    """PANAS items present in a ground-truth block (top level, items, or responses)."""
    if not isinstance(block, dict):
        return 0
    found = set()
    for source in (block, block.get("items") or {}, block.get("responses") or {}):
        if isinstance(source, dict):
            found |= {k for k in source if k in PANAS_ITEMS and source[k] is not None}
    return len(found)


def _counts_from_documents(docs) -> dict[str, int]:
    c = dict.fromkeys(
        ["conversations", "turns", "tags", "judgements", "comparisons", "panas_items", "q1",
         "runs", "pred_turns", "pred_tags", "pred_binary", "pred_pairwise"], 0
    )  # fmt: skip
    for doc in docs.conversations.values():
        c["conversations"] += 1
        for turn in doc["turns"]:
            c["turns"] += 1
            c["tags"] += len(turn.get("moodShiftTags") or [])
            ann = turn.get("annotations") or {}
            c["judgements"] += len({j["questionId"] for j in ann.get("binaryJudgements") or []})
            c["comparisons"] += len(ann.get("pairwiseComparisons") or [])
        c["panas_items"] += _panas_item_count(doc.get("prePanas")) + _panas_item_count(
            doc.get("postPanas")
        )
        cw = doc.get("conversationWideQuestions") or {}
        c["q1"] += len(cw.get("q1_lookingFor", cw.get("Q1")) or [])
    for files in docs.runs.values():
        for run in files.values():
            c["runs"] += 1
            for turn in run["turns"]:
                c["pred_turns"] += 1
                c["pred_tags"] += len(turn.get("em_emotion_tags") or [])
                for key in BINARY_TASK_KEYS.values():
                    c["pred_binary"] += len(turn.get(key) or {})
                c["pred_pairwise"] += len(turn.get("em_pairwise_selections") or {})
    return c


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    config = SimulationConfig(
        n_conversations=24, n_participants=5, n_topics=8, n_models=3, n_human_raters=2
    )
    docs = simulate_documents(config, rng=31)
    root = docs.write(tmp_path_factory.mktemp("rt") / "release")
    return docs, load_release(root)


def test_round_trip_keeps_every_count(simulated):
    docs, rel = simulated
    c = _counts_from_documents(docs)
    report = rel.report.events
    dropped_pred_tags = int((report["rule"] == "unknown_emotion_dropped").sum())
    assert len(rel.conversations) == c["conversations"] == 24
    assert len(rel.turns) == c["turns"]
    assert int(rel.conversations["n_turns"].sum()) == c["turns"]
    assert len(rel.emotion_tags) == c["tags"]
    assert len(rel.binary_judgements) == c["judgements"]
    assert len(rel.pairwise_comparisons) == c["comparisons"]
    assert len(rel.panas_items) == c["panas_items"]
    q1 = rel.survey_choices[rel.survey_choices["question"] == "q1_looking_for"]
    assert len(q1) == c["q1"]
    assert len(rel.runs) == c["runs"] == 24 * (3 + 2)
    assert len(rel.pred_turns) == c["pred_turns"]
    assert len(rel.pred_emotion_tags) + dropped_pred_tags == c["pred_tags"]
    assert len(rel.pred_binary) == c["pred_binary"]
    assert len(rel.pred_pairwise) == c["pred_pairwise"]
    assert sorted(rel.predictors["kind"]) == ["human", "human", "model", "model", "model"]
    assert rel.simulated
    # participants and diagnosis groups as written by the simulator's truth
    truth = docs.truth
    assert len(rel.participants) == len(
        {d["participant_profile"]["participant_id"] for d in docs.conversations.values()}
    )
    assert set(rel.participants["diagnosis_group"]) <= {"none", "anxiety_depression", "asd_adhd"}
    assert truth  # truth.json content travels with the documents


def test_files_and_in_memory_documents_give_the_same_tables(simulated):
    docs, rel = simulated
    mem = release_from_documents(docs.conversations, docs.runs, docs.release_info)
    for name, table in rel.tables.items():
        other = mem.tables[name]
        if "file" in table.columns:  # file paths are relative to a root in one case only
            table, other = table.drop(columns="file"), other.drop(columns="file")
        pd.testing.assert_frame_equal(table, other, check_exact=True, obj=name)
