"""Tests of the release simulator (attunestats.release.simulate).

Everything planted is checked from the raw JSON documents with code written here from the spec
(normalisation rules of spec 1.4, scorer rules of spec 2.2/2.3), not with the package's loader or
metrics. Monte Carlo tolerances: a sum of independent Bernoulli(p_i) indicators has variance
sum p_i (1 - p_i); we accept |z| < 4.5 per statistic (two-sided p ~ 7e-6, so the chance that one of
the ~60 statistics of a test fails by accident is below 5e-4) and check the sum of z^2 against a
chi-square quantile at 1e-4.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from _truth import eta_from_truth
from scipy import stats

from attunestats import constants as K
from attunestats.release import simulate as sim
from attunestats.release.simulate import (
    CAPABILITIES,
    SCENARIOS,
    SimulationConfig,
    draw_effects,
    simulate_documents,
    simulate_release,
    truth_from_file,
)
from attunestats.release.simulate import config as sim_config
from attunestats.release.simulate import documents as sim_documents

Z_MAX = 4.5

# ------------------------------------------------------------------------------------------
# independent re-implementation of the spec's normalisation rules (spec 1.4)
# ------------------------------------------------------------------------------------------
_YES = {"true", "yes", "y", "1"}
_NO = {"false", "no", "n", "0"}
_NA = {"na", "n/a", "not_applicable"}


def norm_binary(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "yes" if v else "no"
    s = str(v).strip().lower()
    if s in _YES:
        return "yes"
    if s in _NO:
        return "no"
    if s in _NA:
        return "na"
    return None


def norm_winner(v):
    if v is None:
        return None
    s = str(v).strip()
    if s in ("A", "B"):
        return s
    s = s.lower()
    if s in ("a", "response_1"):
        return "A"
    if s in ("b", "response_2"):
        return "B"
    return None


def first_present(d, keys):
    for k in keys:
        if d.get(k) is not None:
            return d[k]
    return None


def logistic(a):
    return 1.0 / (1.0 + math.exp(-a))


def gt_references(bj):
    """(om reference, human reference) of a binary judgement, scorer rule of spec 2.2."""
    obs = norm_binary(
        first_present(bj, ("observedBehavior", "did_occur", "humanValue", "actualValue"))
    )
    pref = norm_binary(first_present(bj, ("preferredBehavior", "should_occur", "humanPreference")))
    llm = norm_binary(bj.get("llmValue"))
    return (obs if obs is not None else llm), (pref if pref is not None else obs)


class Eta:
    """Linear predictor computed from truth.json alone (its documented formula)."""

    def __init__(self, truth):
        self.t = truth

    def __call__(self, pred, cid, turn, cap, *, turn_level=True):
        return eta_from_truth(self.t, pred, cid, turn, cap, turn_level=turn_level)


def run_turns(run):
    return {rt["turnNumber"]: rt for rt in run["turns"]}


# ------------------------------------------------------------------------------------------
# fixtures
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def big_paper():
    """A large in-memory paper-scenario release (truth checks need many units)."""
    return simulate_documents(SimulationConfig(n_conversations=450), rng=20260521)


@pytest.fixture(scope="module")
def messy_docs():
    """A small release with doubled messiness, to exercise every writing path."""
    return simulate_documents(SimulationConfig(n_conversations=40, messiness=2.0), rng=7)


def _read_tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# ------------------------------------------------------------------------------------------
# reproducibility and writing
# ------------------------------------------------------------------------------------------
def test_same_seed_byte_identical_and_different_seed_differs(tmp_path):
    a = simulate_release(tmp_path / "a", rng=5, n_conversations=6)
    b = simulate_release(tmp_path / "b", rng=5, n_conversations=6)
    c = simulate_release(tmp_path / "c", rng=6, n_conversations=6)
    ta, tb, tc = _read_tree(a), _read_tree(b), _read_tree(c)
    n_runs = 6 * 14
    assert len(ta) == 1 + 6 + n_runs + 1
    assert ta == tb
    assert set(ta) == set(tc)
    differing = [k for k in ta if ta[k] != tc[k]]
    assert "truth.json" in differing
    assert sum(k.startswith("conversations/") for k in differing) == 6
    # the files are exactly the in-memory documents
    docs = simulate_documents(SimulationConfig(n_conversations=6), rng=5)
    assert (
        json.loads(ta["conversations/conversation_5.json"])
        == docs.conversations["conversation_5.json"]
    )
    assert (
        json.loads(ta["runs/sim-human-2/conversation_7.json"])
        == docs.runs["sim-human-2"]["conversation_7.json"]
    )


def test_output_does_not_depend_on_python_hash_seed():
    """No iteration over sets of strings leaks into the files (PYTHONHASHSEED varies)."""
    code = (
        "import hashlib\n"
        "from attunestats.release.simulate import SimulationConfig, simulate_documents\n"
        "d = simulate_documents(SimulationConfig(n_conversations=8, messiness=2.0), rng=3)\n"
        "h = hashlib.sha256()\n"
        "for k, v in d.files().items():\n"
        "    h.update(k.encode()); h.update(v)\n"
        "print(h.hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_first_conversations_do_not_depend_on_release_size():
    small = simulate_documents(SimulationConfig(n_conversations=3), rng=9)
    large = simulate_documents(SimulationConfig(n_conversations=7), rng=9)
    for name, doc in small.conversations.items():
        assert large.conversations[name] == doc
        assert large.runs["sim-model-04"][name] == small.runs["sim-model-04"][name]


def test_conversation_ids_follow_sample200():
    ids = sim.conversation_ids(203)
    assert list(ids[:200]) == [str(i) for i in K.SUBSETS["Sample200"]]
    assert list(ids[200:]) == ["249", "250", "251"]
    docs = simulate_documents(SimulationConfig(n_conversations=4), rng=1)
    assert list(docs.conversations) == [f"conversation_{i}.json" for i in (5, 6, 7, 8)]


def test_write_is_atomic_on_failure(tmp_path, monkeypatch):
    docs = simulate_documents(SimulationConfig(n_conversations=3), rng=2)
    real = sim_documents._write_bytes
    calls = {"n": 0}

    def failing(path, data):
        calls["n"] += 1
        if calls["n"] > 10:
            raise OSError("disk full (simulated)")
        real(path, data)

    monkeypatch.setattr(sim_documents, "_write_bytes", failing)
    with pytest.raises(OSError, match="disk full"):
        docs.write(tmp_path / "rel")
    assert calls["n"] == 11
    assert list(tmp_path.iterdir()) == []  # no release, no temporary directory

    # a failed overwrite keeps the previous release intact
    monkeypatch.setattr(sim_documents, "_write_bytes", real)
    out = docs.write(tmp_path / "rel")
    before = _read_tree(out)
    other = simulate_documents(SimulationConfig(n_conversations=3), rng=3)
    calls["n"] = 0
    monkeypatch.setattr(sim_documents, "_write_bytes", failing)
    with pytest.raises(OSError, match="disk full"):
        other.write(out, overwrite=True)
    assert _read_tree(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["rel"]


def test_overwrite_refused_then_allowed(tmp_path):
    out = simulate_release(tmp_path / "rel", rng=1, n_conversations=2)
    first = _read_tree(out)
    with pytest.raises(FileExistsError, match="not empty; pass overwrite=True"):
        simulate_release(out, rng=2, n_conversations=2)
    assert _read_tree(out) == first
    simulate_release(out, rng=2, n_conversations=2, overwrite=True)
    assert _read_tree(out) != first
    assert [p.name for p in tmp_path.iterdir()] == ["rel"]
    # an existing empty directory is fine
    (tmp_path / "empty").mkdir()
    simulate_release(tmp_path / "empty", rng=1, n_conversations=1)
    assert (tmp_path / "empty" / "truth.json").is_file()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(FileExistsError, match="not a directory"):
        simulate_release(tmp_path / "afile", rng=1, n_conversations=1)


# ------------------------------------------------------------------------------------------
# file format (spec 1.4 and 1.6), checked by hand
# ------------------------------------------------------------------------------------------
_RUN_KEYS = {
    "conversationId", "source_file", "em_model", "run_timestamp", "mode", "turns",
    "post_conversation", "api_cost", "duration_seconds",
}  # fmt: skip
_RUN_TURN_KEYS = {
    "turnNumber", "em_emotion_tags", "em_drafted_response", "response_reasoning",
    "emotion_reasoning", "pairwise_assignment", "em_binary_om_assessment",
    "em_binary_human_prediction", "em_binary_om_assessment_hp", "em_binary_human_prediction_hp",
    "em_pairwise_selections", "em_four_branch_scores", "em_draft_judge_scores",
    "em_draft_judge_scores_by_model", "em_draft_binary_assessment",
    "em_draft_binary_assessment_by_model",
}  # fmt: skip
_JUDGE_KEYS = {"overall_score", "emotional_appropriateness", "helpfulness", "tone_match"}
_CW_KEYS = [("q1_lookingFor", "Q1"), ("q2_emotionClarity", "Q2"), ("q3_modelFit", "Q3")]
_REAL_NAMES = (
    "claude", "opus", "sonnet", "haiku", "gpt", "gemini", "mistral", "qwen", "grok", "mimo",
    "xiaomi", "anthropic", "openai", "deepmind", "alibaba", "llama", "deepseek",
)  # fmt: skip


def _panas_items(block):
    """Items of a ground-truth PANAS block in whichever accepted layout; exactly one layout."""
    layouts = []
    if isinstance(block.get("items"), dict):
        layouts.append(block["items"])
    if isinstance(block.get("responses"), dict):
        layouts.append(block["responses"])
    top = {k: v for k, v in block.items() if k in K.PANAS_ITEMS}
    if top:
        layouts.append(top)
    assert len(layouts) == 1, block
    items = layouts[0]
    assert set(items) == set(K.PANAS_ITEMS)
    assert all(isinstance(v, int) and 1 <= v <= 7 for v in items.values())
    return items


def _check_conversation(doc, fname):
    cid = doc["conversationId"]
    assert isinstance(cid, str) and fname == f"conversation_{cid}.json"
    md = doc["metadata"]
    assert md["conversationId"] == cid and md["turnCount"] == len(doc["turns"])
    for key in ("model", "provider", "category", "subtopic", "timestamp"):
        assert isinstance(md[key], str)
    assert not any(n in (md["model"] + md["provider"]).lower() for n in _REAL_NAMES)
    prof = doc["participant_profile"]
    assert isinstance(prof["participant_id"], str) and isinstance(prof["responses"], dict)
    assert isinstance(prof["traits"], list) and all(isinstance(s, str) for s in prof["traits"])
    for key in ("prePanas", "postPanas"):
        block = doc[key]
        items = _panas_items(block)
        has = ["totalPositiveAffect" in block, "totalNegativeAffect" in block]
        assert has[0] == has[1]  # both totals or none (then derived)
        if has[0]:
            for total, names in (
                (block["totalPositiveAffect"], K.PANAS_POSITIVE),
                (block["totalNegativeAffect"], K.PANAS_NEGATIVE),
            ):
                assert isinstance(total, int)
                # clamped to 10..70 the total equals the item sum
                assert min(70, max(10, total)) == sum(items[n] for n in names)
    cw = doc["conversationWideQuestions"]
    q1 = first_present(cw, _CW_KEYS[0])
    assert q1 and all(o in K.Q1_OPTIONS for o in q1) and len(set(q1)) == len(q1)
    assert first_present(cw, _CW_KEYS[1]) in K.Q2_OPTIONS
    assert first_present(cw, _CW_KEYS[2]) in K.Q3_OPTIONS
    assert all(isinstance(s, str) and s for s in cw["q3_followUp_whatFeltOff"])
    assert set(cw["fourBranchScores"]) <= set(K.FOUR_BRANCHES)
    for v in cw["fourBranchScores"].values():
        assert v is None or (isinstance(v, int) and 1 <= v <= 7)
    numbers = [t["turnNumber"] for t in doc["turns"]]
    assert numbers == list(range(1, len(numbers) + 1))
    for turn in doc["turns"]:
        assert isinstance(turn["userMessage"], str) and isinstance(turn["llmResponse"], str)
        for tag in turn["moodShiftTags"]:
            assert isinstance(tag["emotion"], str) and tag["emotion"].strip()
            it = tag["intensity"]
            assert (
                it is None or it in K.MOOD_INTENSITY_WORDS or (isinstance(it, int) and 1 <= it <= 7)
            )
        ann = turn["annotations"]
        qids = [bj["questionId"] for bj in ann["binaryJudgements"]]
        assert len(set(qids)) == len(qids) and set(qids) <= set(K.BINARY_QUESTION_IDS)
        for bj in ann["binaryJudgements"]:
            for key, val in bj.items():
                if key != "questionId":
                    assert val is None or norm_binary(val) is not None, (key, val)
        alt = ann["alternateResponses"]
        assert alt is None or set(alt) in (
            {"llmImproved", "humanEdited"},
            {"alternate1", "alternate2"},
        )
        labels = {"original", "alternate", "human", "alternate1", "alternate2"}
        for pw in ann["pairwiseComparisons"]:
            assert pw["questionId"] in K.PAIRWISE_QUESTIONS
            a = first_present(pw, ("responseA", "response_1"))
            b = first_present(pw, ("responseB", "response_2"))
            assert a in labels and b in labels and a != b
            assert pw["winner"] is None or norm_winner(pw["winner"]) is not None
        assert alt is not None or not ann["pairwiseComparisons"]
        assert all(q in K.PAIRWISE_QUESTIONS for q in ann["selectedPairwiseQuestions"])


def _check_run(run, conv, pred, fname):
    assert set(run) == _RUN_KEYS
    assert run["conversationId"] == conv["conversationId"] and run["source_file"] == fname
    assert run["em_model"] == pred and run["mode"] == "default"
    assert isinstance(run["run_timestamp"], str)
    gt_turns = {t["turnNumber"]: t for t in conv["turns"]}
    numbers = [t["turnNumber"] for t in run["turns"]]
    assert len(set(numbers)) == len(numbers) and set(numbers) <= set(
        gt_turns
    )  # spec: no extra turns
    for rt in run["turns"]:
        assert set(rt) == _RUN_TURN_KEYS
        gt = gt_turns[rt["turnNumber"]]
        qids = {bj["questionId"] for bj in gt["annotations"]["binaryJudgements"]}
        for field in sim_config._TASK_FIELDS + ("em_draft_binary_assessment",):
            assert set(rt[field]) <= qids
            assert all(v in ("yes", "no", "na") for v in rt[field].values())
        comps = gt["annotations"]["pairwiseComparisons"]
        assert rt["pairwise_assignment"] == {  # the labels of the file, as the runner keeps them
            str(i): {
                "A": first_present(pw, ("responseA", "response_1")),
                "B": first_present(pw, ("responseB", "response_2")),
            }
            for i, pw in enumerate(comps)
        }
        assert set(rt["em_pairwise_selections"]) <= {str(i) for i in range(len(comps))}
        assert all(v in ("A", "B") for v in rt["em_pairwise_selections"].values())
        for tag in rt["em_emotion_tags"]:
            assert isinstance(tag["emotion"], str)
            assert tag["intensity"] is None or 1 <= tag["intensity"] <= 7
        assert set(rt["em_draft_judge_scores"]) == _JUDGE_KEYS
        assert all(1 <= v <= 7 for v in rt["em_draft_judge_scores"].values())
        assert isinstance(rt["em_drafted_response"], str)
    post = run["post_conversation"]
    assert set(post) == {
        "panas_strategy", "pre_panas_shown", "predicted_post_panas", "predicted_panas_delta",
        "predicted_conversation_wide",
    }  # fmt: skip
    assert post["panas_strategy"] in K.PANAS_STRATEGIES
    pp = post["predicted_post_panas"]
    assert set(pp["items"]) == set(K.PANAS_ITEMS)
    assert pp["totalPositiveAffect"] == sum(pp["items"][n] for n in K.PANAS_POSITIVE)
    assert pp["totalNegativeAffect"] == sum(pp["items"][n] for n in K.PANAS_NEGATIVE)
    if post["panas_strategy"] == "delta":  # spec 1.6: rebuilt = clamp(pre + change)
        pre = post["pre_panas_shown"]
        d = post["predicted_panas_delta"]
        assert (
            pre["totalPositiveAffect"] + d["totalPositiveAffect_change"]
            == pp["totalPositiveAffect"]
        )
        assert (
            pre["totalNegativeAffect"] + d["totalNegativeAffect_change"]
            == pp["totalNegativeAffect"]
        )
    cw = post["predicted_conversation_wide"]
    assert all(o in K.Q1_OPTIONS for o in cw["q1_lookingFor"])
    assert cw["q2_emotionClarity"] in K.Q2_OPTIONS + ("",)
    assert cw["q3_modelFit"] in K.Q3_OPTIONS + ("",)
    assert set(cw["fourBranchScores"]) <= set(K.FOUR_BRANCHES)


def test_documents_follow_the_spec(messy_docs):
    info = messy_docs.release_info
    assert info["format"] == "attunestats-release/1" and info["simulated"] is True
    assert info["seed"] == 7 and info["generator"].startswith("attunestats ")
    assert set(info["predictors"]) == set(messy_docs.runs)
    kinds = {p: v["kind"] for p, v in info["predictors"].items()}
    assert sorted(kinds.values()).count("human") == 3 and len(kinds) == 14
    for pred, v in info["predictors"].items():
        assert not any(n in (pred + v["display_name"]).lower() for n in _REAL_NAMES)
        assert v["mode"] == "default"
    assert [p for p in info["predictors"] if kinds[p] == "model"] == [
        f"sim-model-{i:02d}" for i in range(1, 12)
    ]
    for fname, conv in messy_docs.conversations.items():
        _check_conversation(conv, fname)
        for pred, files in messy_docs.runs.items():
            _check_run(files[fname], conv, pred, fname)

    # every document is JSON (no NaN) and round-trips
    def no_constants(c):
        raise AssertionError(f"non-JSON constant {c}")

    for data in messy_docs.files().values():
        json.loads(data.decode("utf-8"), parse_constant=no_constants)


def _loader_exercise_counts(docs):
    """Counts of the spellings a loader must normalise, from the raw documents."""
    c = defaultdict(int)
    for conv in docs.conversations.values():
        for key in ("prePanas", "postPanas"):
            block = conv[key]
            c["panas_nested"] += "responses" in block
            c["panas_top_level"] += any(k in K.PANAS_ITEMS for k in block)
            c["panas_totals_absent"] += "totalPositiveAffect" not in block
            tot = [block.get("totalPositiveAffect"), block.get("totalNegativeAffect")]
            c["panas_out_of_range"] += any(t is not None and not 10 <= t <= 70 for t in tot)
        cw = conv["conversationWideQuestions"]
        c["survey_alias"] += "Q1" in cw
        c["four_branch_unrated"] += 4 - sum(v is not None for v in cw["fourBranchScores"].values())
        for turn in conv["turns"]:
            for tag in turn["moodShiftTags"]:
                c["intensity_word"] += isinstance(tag["intensity"], str)
                c["label_not_canonical"] += tag["emotion"] not in K.PANAS_ITEMS
            ann = turn["annotations"]
            c["blinded"] += (
                ann["alternateResponses"] is not None and "alternate1" in ann["alternateResponses"]
            )
            for bj in ann["binaryJudgements"]:
                c["binary_key_alias"] += "observedBehavior" not in bj
                c["binary_value_alias"] += any(
                    v is not None and v not in ("yes", "no", "na")
                    for k, v in bj.items()
                    if k != "questionId"
                )
            for pw in ann["pairwiseComparisons"]:
                c["pairwise_key_alias"] += "response_1" in pw
                c["winner_alias"] += pw["winner"] not in ("A", "B", None)
        for files in docs.runs.values():
            run = files[f"conversation_{conv['conversationId']}.json"]
            c["run_turn_missing"] += len(conv["turns"]) - len(run["turns"])
            c["delta_runs"] += run["post_conversation"]["panas_strategy"] == "delta"
            for rt in run["turns"]:
                c["pred_unknown_label"] += any(
                    t["emotion"].strip().lower() not in K.EMOTION_LABELS
                    for t in rt["em_emotion_tags"]
                )
    return c


def test_messiness_exercises_loader_and_zero_is_clean(big_paper):
    messy = _loader_exercise_counts(big_paper)
    for key in (
        "panas_nested", "panas_top_level", "panas_totals_absent", "panas_out_of_range",
        "survey_alias",
        "four_branch_unrated", "intensity_word", "label_not_canonical", "blinded",
        "binary_key_alias", "binary_value_alias", "pairwise_key_alias", "winner_alias",
        "run_turn_missing", "delta_runs", "pred_unknown_label",
    ):  # fmt: skip
        assert messy[key] > 0, key
    # missing run turns are recorded in truth.json exactly
    assert len(big_paper.truth["missing_run_turns"]) == messy["run_turn_missing"]
    clean = simulate_documents(SimulationConfig(n_conversations=60, messiness=0.0), rng=3)
    counts = _loader_exercise_counts(clean)
    for key, n in counts.items():
        if key != "delta_runs":  # the PANAS strategy is a design choice, not messiness
            assert n == 0, key


# ------------------------------------------------------------------------------------------
# planted truth, computed from the raw JSON
# ------------------------------------------------------------------------------------------
def _z(obs, mean, var):
    return (obs - mean) / math.sqrt(var)


def _check_calibration(acc):
    """acc: key -> [observed count, sum p, sum p(1-p)]; per-key |z| and the chi-square sum."""
    zs = {k: _z(*v) for k, v in acc.items()}
    worst = max(zs, key=lambda k: abs(zs[k]))
    assert abs(zs[worst]) < Z_MAX, (worst, zs[worst])
    chi2 = sum(z * z for z in zs.values())
    assert chi2 < stats.chi2.ppf(1 - 1e-4, len(zs)), chi2
    return zs


def _behaviour_units(docs):
    """Yield (pred, task, cid, turn, qid, correct) for every scored binary unit."""
    preds = list(docs.runs)
    for fname, conv in docs.conversations.items():
        cid = conv["conversationId"]
        rts = {p: run_turns(docs.runs[p][fname]) for p in preds}
        for turn in conv["turns"]:
            tn = turn["turnNumber"]
            for bj in turn["annotations"]["binaryJudgements"]:
                ref_om, ref_h = gt_references(bj)
                for ti, (task, field) in enumerate(zip(sim.BINARY_TASKS, sim_config._TASK_FIELDS)):
                    ref = (ref_om, ref_h)[ti % 2]
                    if ref not in ("yes", "no"):
                        continue
                    for p in preds:
                        rt = rts[p].get(tn)
                        if rt is None:
                            continue
                        pv = rt[field].get(bj["questionId"])
                        pv = "no" if pv in (None, "na") else pv
                        yield p, task, cid, tn, bj["questionId"], pv == ref


def test_behaviour_accuracy_is_exactly_logistic_eta(big_paper):
    truth = big_paper.truth
    eta = Eta(truth)
    offsets = truth["probability_models"]["behaviour"]["task_offset"]
    acc = defaultdict(lambda: [0, 0.0, 0.0])
    cache = {}
    for p, task, cid, tn, _q, ok in _behaviour_units(big_paper):
        key = (p, cid, tn)
        if key not in cache:
            cache[key] = eta(p, cid, tn, "behaviour")
        pr = logistic(cache[key] + offsets[task])
        a = acc[(p, task)]
        a[0] += ok
        a[1] += pr
        a[2] += pr * (1 - pr)
    assert len(acc) == 14 * 4 and min(a[1] for a in acc.values()) > 5000
    _check_calibration(acc)
    # higher behaviour skill -> higher accuracy (om task, the 11 models)
    models = [p for p in truth["predictors"] if truth["predictors"][p]["kind"] == "model"]
    theta = [truth["theta"][p]["behaviour"] for p in models]
    units = defaultdict(int)
    for p, task, *_rest in _behaviour_units(big_paper):
        if task == "om":
            units[p] += 1
    rate = [acc[(p, "om")][0] / units[p] for p in models]
    assert stats.spearmanr(theta, rate).statistic > 0.8


def test_behaviour_drift_and_hardest_topic_visible(big_paper):
    """Paper scenario: behaviour degrades from early to late turns (e) and romantic relationships
    is harder than the other topics (d), in raw accuracies of the models."""
    early, late, romantic, other = [0, 0], [0, 0], [0, 0], [0, 0]
    truth = big_paper.truth
    kind = {p: v["kind"] for p, v in truth["predictors"].items()}
    for p, task, cid, tn, _q, ok in _behaviour_units(big_paper):
        if task != "om" or kind[p] != "model":
            continue
        c = truth["conversations"][cid]
        x = 0.5 if c["n_turns"] == 1 else (tn - 1) / (c["n_turns"] - 1)
        for cell, cond in ((early, x <= 0.25), (late, x >= 0.75)):
            if cond:
                cell[0] += ok
                cell[1] += 1
        cell = romantic if c["topic"] == sim.HARDEST_TOPIC else other
        cell[0] += ok
        cell[1] += 1
    assert romantic[1] > 500
    assert early[0] / early[1] - late[0] / late[1] > 0.05
    assert other[0] / other[1] - romantic[0] / romantic[1] > 0.05


def test_pairwise_accuracy_is_exactly_logistic_eta(big_paper):
    truth = big_paper.truth
    eta = Eta(truth)
    acc = defaultdict(lambda: [0, 0.0, 0.0])
    for fname, conv in big_paper.conversations.items():
        cid = conv["conversationId"]
        for p, files in big_paper.runs.items():
            rts = run_turns(files[fname])
            for turn in conv["turns"]:
                rt = rts.get(turn["turnNumber"])
                if rt is None:
                    continue
                pr = logistic(eta(p, cid, turn["turnNumber"], "preference"))
                for i, pw in enumerate(turn["annotations"]["pairwiseComparisons"]):
                    win = norm_winner(pw["winner"])
                    if win is None:
                        continue
                    a = acc[p]
                    a[0] += rt["em_pairwise_selections"].get(str(i)) == win
                    a[1] += pr
                    a[2] += pr * (1 - pr)
    assert len(acc) == 14 and min(a[1] for a in acc.values()) > 3000
    _check_calibration(acc)
    models = [p for p in truth["predictors"] if truth["predictors"][p]["kind"] == "model"]
    theta = [truth["theta"][p]["preference"] for p in models]
    rate = [acc[p][0] for p in models]  # same units for every model up to rare missing turns
    assert stats.spearmanr(theta, rate).statistic > 0.8


def test_emotion_tag_recovery_is_exactly_logistic_eta(big_paper):
    eta = Eta(big_paper.truth)
    acc = defaultdict(lambda: [0, 0.0, 0.0])
    for fname, conv in big_paper.conversations.items():
        cid = conv["conversationId"]
        for p, files in big_paper.runs.items():
            rts = run_turns(files[fname])
            for turn in conv["turns"]:
                rt = rts.get(turn["turnNumber"])
                if rt is None:
                    continue
                pr = logistic(eta(p, cid, turn["turnNumber"], "emotion"))
                gt = {t["emotion"].strip().lower() for t in turn["moodShiftTags"]}
                gt &= set(K.EMOTION_LABELS)
                pred = {t["emotion"].strip().lower() for t in rt["em_emotion_tags"]}
                pred &= set(K.EMOTION_LABELS)
                units = [(lab in pred) for lab in gt] if gt else [not pred]
                for ok in units:
                    a = acc[(p, bool(gt))]
                    a[0] += ok
                    a[1] += pr
                    a[2] += pr * (1 - pr)
    assert len(acc) == 28
    _check_calibration(acc)


def test_human_raters_agree_as_implied_by_rho(big_paper):
    truth = big_paper.truth
    eta = Eta(truth)
    rho = truth["human_raters"]["rho"]
    raters = truth["human_raters"]["raters"]
    offsets = truth["probability_models"]["behaviour"]["task_offset"]
    assert rho == 0.5 and len(raters) == 3
    correct = defaultdict(dict)  # unit -> rater -> correct
    for p, task, cid, tn, q, ok in _behaviour_units(big_paper):
        if p in raters:
            correct[(task, cid, tn, q)][p] = ok
    for i, r in enumerate(raters):
        for s in raters[i + 1 :]:
            obs = mean_rho = var_rho = mean_ind = var_ind = 0.0
            for (task, cid, tn, _q), d in correct.items():
                if r not in d or s not in d:
                    continue
                pr = logistic(eta(r, cid, tn, "behaviour") + offsets[task])
                ps = logistic(eta(s, cid, tn, "behaviour") + offsets[task])
                ind = pr * ps + (1 - pr) * (1 - ps)
                agree = rho**2 * (1 - abs(pr - ps)) + (1 - rho**2) * ind
                obs += d[r] == d[s]
                mean_rho += agree
                var_rho += agree * (1 - agree)
                mean_ind += ind
                var_ind += ind * (1 - ind)
            assert abs(_z(obs, mean_rho, var_rho)) < Z_MAX, (r, s)
            assert _z(obs, mean_ind, var_ind) > 10, (r, s)  # far more than independent raters


def test_models_do_not_share_answers_beyond_eta(big_paper):
    """Models have rho = 0: their agreement matches independence given eta."""
    truth = big_paper.truth
    eta = Eta(truth)
    offsets = truth["probability_models"]["behaviour"]["task_offset"]
    r, s = "sim-model-01", "sim-model-02"
    correct = defaultdict(dict)
    for p, task, cid, tn, q, ok in _behaviour_units(big_paper):
        if p in (r, s):
            correct[(task, cid, tn, q)][p] = ok
    obs = mean = var = 0.0
    for (task, cid, tn, _q), d in correct.items():
        if len(d) == 2:
            pr = logistic(eta(r, cid, tn, "behaviour") + offsets[task])
            ps = logistic(eta(s, cid, tn, "behaviour") + offsets[task])
            a = pr * ps + (1 - pr) * (1 - ps)
            obs += d[r] == d[s]
            mean += a
            var += a * (1 - a)
    assert abs(_z(obs, mean, var)) < Z_MAX


def test_response_overlap_and_holistic_rise_with_skill(big_paper):
    """Draft token overlap with the human-edited reply and Q2 accuracy increase with skill."""
    truth = big_paper.truth
    models = [p for p in truth["predictors"] if truth["predictors"][p]["kind"] == "model"]
    jac, q2 = {}, {}
    for p in models:
        vals, hits = [], []
        for fname, conv in big_paper.conversations.items():
            run = big_paper.runs[p][fname]
            rts = run_turns(run)
            for turn in conv["turns"]:
                alt = turn["annotations"]["alternateResponses"]
                rt = rts.get(turn["turnNumber"])
                if alt is None or rt is None:
                    continue
                ref = alt.get("humanEdited", alt.get("alternate2"))
                a = set(rt["em_drafted_response"].lower().split())
                b = set(ref.lower().split())
                vals.append(len(a & b) / len(a | b))
            cw = conv["conversationWideQuestions"]
            gt = cw.get("q2_emotionClarity", cw.get("Q2"))
            hits.append(
                run["post_conversation"]["predicted_conversation_wide"]["q2_emotionClarity"] == gt
            )
        jac[p], q2[p] = np.mean(vals), np.mean(hits)
    th_r = [truth["theta"][p]["response"] for p in models]
    th_h = [truth["theta"][p]["holistic"] for p in models]
    assert stats.spearmanr(th_r, [jac[p] for p in models]).statistic > 0.8
    assert stats.spearmanr(th_h, [q2[p] for p in models]).statistic > 0.6


# ------------------------------------------------------------------------------------------
# effects: correlation in distribution, reuse, round trip
# ------------------------------------------------------------------------------------------
def test_realised_skill_correlation_matches_config_in_distribution():
    cfg = SimulationConfig()
    R = np.array(cfg.skill_correlation)
    n_seeds, n = 400, cfg.n_models
    mu, sd = np.array(cfg.skill_mean), np.array(cfg.skill_sd)
    zs, fisher = [], []
    for seed in range(n_seeds):
        eff = draw_effects(cfg, rng=seed)
        theta = eff.theta[:n]
        zs.append((theta - mu) / sd)
        realised = np.corrcoef(theta, rowvar=False)
        np.testing.assert_allclose(eff.realised_correlation("model"), realised)
        fisher.append(np.arctanh(realised[np.triu_indices(5, 1)]))
    # pooled standardised skills have correlation R (SE (1 - r^2) / sqrt(N))
    pooled = np.corrcoef(np.concatenate(zs), rowvar=False)
    N = n_seeds * n
    se = (1 - R**2) / math.sqrt(N)
    off = ~np.eye(5, dtype=bool)
    assert np.all(np.abs(pooled - R)[off] < Z_MAX * se[off])
    # per-release realised correlations: mean Fisher z ~ atanh(r) + r / (2 (n - 1)), sd 1/sqrt(n-3)
    r = R[np.triu_indices(5, 1)]
    expected = np.arctanh(r) + r / (2 * (n - 1))
    mean_z = np.mean(fisher, axis=0)
    assert np.all(np.abs(mean_z - expected) < Z_MAX / math.sqrt((n - 3) * n_seeds))
    # the planted structure is visible: holistic vs others negative, others near zero
    assert np.all(r[r < 0] == -0.4) and np.sum(r < 0) == 4


def test_effects_reuse_keeps_population_and_draws_new_conversations(tmp_path):
    cfg = SimulationConfig(n_conversations=8)
    first = simulate_documents(cfg, rng=11)
    second = simulate_documents(replace(cfg, n_conversations=12), rng=12, effects=first.effects)
    t1, t2 = first.truth, second.truth
    for key in ("theta", "beta", "u", "v", "delta", "gamma", "topic_interaction", "participants"):
        assert t1[key] == t2[key], key
    assert t2["effects_seed"] == 11 and t2["seed"] == 12
    shared = set(t1["conversations"]) & set(t2["conversations"])
    assert shared and all(
        t1["conversations"][c]["w"] != t2["conversations"][c]["w"] for c in shared
    )
    assert first.conversations["conversation_5.json"] != second.conversations["conversation_5.json"]
    # without effects the second seed would also draw a new population
    third = simulate_documents(cfg, rng=12)
    assert third.truth["theta"] != t1["theta"]
    # truth.json round trip: the effects read back reproduce the release exactly
    out = first.write(tmp_path / "rel")
    eff = truth_from_file(out)
    for name in ("theta", "beta", "rho", "u", "delta", "gamma", "v", "topic_interaction",
                 "participant_weights", "participant_distress",
                 "original_model_quality"):  # fmt: skip
        np.testing.assert_array_equal(
            getattr(eff, name), getattr(first.effects, name), err_msg=name
        )
    assert eff.config == first.effects.config
    again = simulate_documents(cfg, rng=11, effects=eff)
    assert again.files() == first.files()
    with pytest.raises(ValueError, match="n_topics = 10 does not match the effects"):
        simulate_documents(replace(cfg, n_topics=10), rng=1, effects=eff)


def test_truth_contents(big_paper):
    truth = big_paper.truth
    cfg = SimulationConfig(n_conversations=450)
    assert truth["config"] == cfg.to_dict()
    assert SimulationConfig.from_dict(truth["config"]) == cfg
    assert truth["capabilities"] == list(CAPABILITIES)
    assert len(truth["conversations"]) == 450
    # diagnosis groups are derivable from the traits written in the files
    groups = {}
    for conv in big_paper.conversations.values():
        prof = conv["participant_profile"]
        traits = " ".join(prof["traits"]).lower()
        derived = (
            "anxiety_depression" if ("anxiety" in traits or "depression" in traits)
            else "asd_adhd" if ("adhd" in traits or "autism" in traits) else "none"
        )  # fmt: skip
        groups[prof["participant_id"]] = derived
        assert (
            truth["conversations"][conv["conversationId"]]["participant"] == prof["participant_id"]
        )
    assert groups == {
        p: v["diagnosis_group"] for p, v in truth["participants"].items() if p in groups
    }
    assert sorted(v["diagnosis_group"] for v in truth["participants"].values()).count("none") == 4
    # topic and original model recorded as written
    for conv in big_paper.conversations.values():
        c = truth["conversations"][conv["conversationId"]]
        assert c["topic"] == conv["metadata"]["category"]
        assert c["original_model"] == conv["metadata"]["model"]
        assert c["n_turns"] == len(conv["turns"])
    np.testing.assert_allclose(
        np.array(truth["skill_correlation"]["population"]), np.array(cfg.skill_correlation)
    )
    delta_runs = sorted(
        [pred, run["conversationId"]]
        for pred, files in big_paper.runs.items()
        for run in files.values()
        if run["post_conversation"]["panas_strategy"] == "delta"
    )
    assert delta_runs == sorted(truth["delta_strategy_runs"]) and delta_runs


# ------------------------------------------------------------------------------------------
# scenarios
# ------------------------------------------------------------------------------------------
def test_scenarios_differ_where_documented():
    paper, null = SCENARIOS["paper"], SCENARIOS["null"]
    assert paper == SimulationConfig()
    Rp, Rn = np.array(paper.skill_correlation), np.array(null.skill_correlation)
    np.testing.assert_array_equal(Rn, np.eye(5))
    hol = CAPABILITIES.index("holistic")
    assert np.all(np.delete(Rp[hol], hol) < 0)  # (g)
    turn_level = [CAPABILITIES.index(c) for c in ("emotion", "behaviour", "preference", "response")]
    assert np.all(Rp[np.ix_(turn_level, turn_level)] == np.eye(4))  # (a)
    sd = dict(zip(CAPABILITIES, paper.skill_sd))
    assert min(sd["preference"], sd["response"]) > 3 * sd["emotion"]  # (b)
    assert len(set(null.skill_sd)) == 1
    ad = dict(zip(CAPABILITIES, paper.diagnosis_effect[0]))
    assert ad["emotion"] < 0 < ad["behaviour"]  # (c)
    assert all(v < 0 for v in paper.hardest_topic_effect)  # (d)
    drift = dict(zip(CAPABILITIES, paper.drift_mean))
    assert drift["behaviour"] < 0 and drift["emotion"] == 0  # (e)
    hm, mm = (
        dict(zip(CAPABILITIES, paper.human_skill_mean)),
        dict(zip(CAPABILITIES, paper.skill_mean)),
    )
    assert hm["preference"] > mm["preference"] + 1.2 * sd["preference"]  # (f)
    assert hm["holistic"] < mm["holistic"] - sd["holistic"]
    assert null.human_skill_mean == null.skill_mean and null.human_skill_sd == null.skill_sd
    assert null.rater_rho == 0.0
    # in drawn effects: null has no topic, diagnosis or drift effects at all
    eff = draw_effects(null, rng=4)
    assert not eff.v.any() and not eff.topic_interaction.any()
    assert not eff.delta.any() and not eff.gamma.any() and not eff.beta.any()
    assert not eff.rho.any()
    effp = draw_effects(paper, rng=4)
    rom = effp.topics.index(sim.HARDEST_TOPIC)
    assert rom == 0 and np.all(effp.v[0] == effp.v.min(axis=0))
    hard = effp.hardest_topics()
    share = np.mean([t == sim.HARDEST_TOPIC for c in hard.values() for t in c.values()])
    assert share > 0.9
    assert set(SCENARIOS) >= {"paper", "null"}


# ------------------------------------------------------------------------------------------
# argument checking
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_conversations": 0}, "n_conversations must be an integer >= 1; got 0"),
        ({"n_models": 2.5}, "n_models must be an integer"),
        ({"n_turns_range": (5, 2)}, "n_turns_range must be two integers"),
        ({"skill_sd": (0.1, 0.2)}, "skill_sd must have 5 values"),
        ({"skill_sd": -0.1}, "skill_sd must be >= 0"),
        ({"skill_mean": {"emotion": 1.0}}, "skill_mean must have the keys"),
        ({"skill_correlation": 0.99 * np.ones((5, 5))}, "unit diagonal"),
        ({"skill_correlation": -0.5}, "positive semi-definite"),
        ({"rater_rho": 1.0}, "rater_rho must be a number in"),
        ({"messiness": -1}, "messiness must be a number in"),
        ({"diagnosis_counts": (0, 0, 0)}, "diagnosis_counts must be three"),
        ({"participant_weights": (1.0,)}, "participant_weights must be 11 positive numbers"),
        ({"diagnosis_effect": {"bipolar": 0.1}}, "unknown groups"),
    ],
)
def test_config_rejects_bad_values(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        SimulationConfig(**kwargs)


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="rng must be a non-negative integer seed; got -1"):
        simulate_documents(rng=-1)
    with pytest.raises(
        TypeError, match="rng must be None, an int, a numpy SeedSequence or Generator; got float"
    ):
        draw_effects(rng=1.5)
    with pytest.raises(TypeError, match="config must be a SimulationConfig"):
        simulate_documents({"n_models": 2}, rng=1)
    with pytest.raises(TypeError, match=r"unknown simulate_release arguments \['n_modelz'\]"):
        simulate_release(tmp_path / "x", rng=1, n_modelz=3)
    with pytest.raises(ValueError, match="format must be"):
        (tmp_path / "t.json").write_text('{"format": "other"}')
        truth_from_file(tmp_path / "t.json")
    assert not (tmp_path / "x").exists()


def test_sizes_scale_and_diagnosis_counts_rescale():
    cfg = SimulationConfig(
        n_conversations=5, n_participants=22, n_models=3, n_human_raters=0, n_topics=60
    )
    docs = simulate_documents(cfg, rng=8)
    assert list(docs.runs) == ["sim-model-01", "sim-model-02", "sim-model-03"]
    groups = [v["diagnosis_group"] for v in docs.truth["participants"].values()]
    assert [groups.count(g) for g in sim.DIAGNOSIS_CODES] == [8, 8, 6]
    assert len(docs.truth["topics"]) == 60 and len(set(docs.truth["topics"])) == 60
    assert docs.truth["human_raters"]["raters"] == []
