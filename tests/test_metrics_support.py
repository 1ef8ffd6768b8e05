"""Builders of small releases from hand-made tables, for the metrics tests.

``make_release(**tables)`` fills every column the caller leaves out with a missing value and casts
to the schemas of ``attunestats.release.model``; ``random_release(seed)`` draws a release full of
edge cases (empty tag lists, unknown labels, duplicated tags, missing predictions, "na" values,
undecided comparisons, missing run turns, missing PANAS totals/items, unrated branches, unknown Q3
options) for cross-checks against the per-turn reference scorer.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attunestats.constants import (
    BINARY_QUESTION_IDS,
    EMOTION_LABELS,
    FOUR_BRANCHES,
    PANAS_ITEMS,
    Q1_OPTIONS,
    Q2_OPTIONS,
    Q3_OPTIONS,
)
from attunestats.release.model import (
    GROUND_TRUTH_TABLES,
    PREDICTION_TABLES,
    TABLE_SCHEMAS,
    LoadReport,
    Release,
    coerce_table,
)

_FILL = {"str": np.nan, "float64": np.nan, "int64": 0, "bool": False}


def table(name: str, rows) -> pd.DataFrame:
    """A table of ``rows`` (list of dicts or DataFrame) with the schema of ``name``."""
    df = pd.DataFrame(rows) if not isinstance(rows, pd.DataFrame) else rows.copy()
    for col, dtype in TABLE_SCHEMAS[name].items():
        if col not in df.columns:
            df[col] = _FILL[dtype]
    if name == "emotion_tags" and len(df):
        df["known"] = df["emotion"].isin(EMOTION_LABELS)
    return coerce_table(name, df)


def make_release(*, info=None, **tables) -> Release:
    """A Release from hand-made tables; missing tables are empty, runs/predictors derived."""
    out = {}
    for name in GROUND_TRUTH_TABLES + PREDICTION_TABLES:
        out[name] = table(name, tables.get(name, []))
    if "runs" not in tables:
        keys = out["pred_turns"][["predictor", "mode", "conversation_id"]].drop_duplicates()
        out["runs"] = table("runs", keys.reset_index(drop=True))
    if "predictors" not in tables:
        names = sorted(out["runs"]["predictor"].unique())
        out["predictors"] = table(
            "predictors",
            [{"predictor": p, "kind": "model", "display_name": p, "n_runs": 1} for p in names],
        )
    if "conversations" not in tables:
        ids = sorted(set(out["turns"]["conversation_id"]), key=lambda x: int(x))
        out["conversations"] = table("conversations", [{"conversation_id": i} for i in ids])
    events = pd.DataFrame({c: pd.Series(dtype="str") for c in ("file", "path", "rule", "original",
                                                                "result")})  # fmt: skip
    return Release(root=None, tables=out, report=LoadReport(events), info=info or {})


_WORDS = tuple(
    [
        "i",
        "feel",
        "so",
        "tired",
        "today",
        "and",
        "the",
        "work",
        "is",
        "too",
        "much",
        "maybe",
        "you",
        "can",
        "help",
        "me",
        "think",
        "about",
        "it",
        "sorry",
        "that",
        "sounds",
        "hard",
        "lets",
        "try",
        "one",
        "small",
        "step",
    ]
)
_LABELS = ("original", "alternate", "human")


def _text(rng, lo=0, hi=12):
    n = int(rng.integers(lo, hi))
    return " ".join(rng.choice(_WORDS, n)) if n else ""


def _pick(rng, values, p=None):
    """One element of ``values`` (keeps NaN a float, unlike ``rng.choice`` on a list)."""
    return values[int(rng.choice(len(values), p=p))]


def _maybe(rng, p, value):
    return value if rng.random() >= p else np.nan


def random_release(seed: int, *, n_predictors: int = 3, n_conversations: int = 12) -> Release:
    """A small release full of edge cases (see the module docstring)."""
    rng = np.random.default_rng(seed)
    conv_rows, items, survey, turns, tags, judg, comps = [], [], [], [], [], [], []
    runs, p_items, p_survey, p_turns, p_tags, p_bin, p_pw = [], [], [], [], [], [], []
    q_pool = list(BINARY_QUESTION_IDS[:10])
    binv = ["yes", "no", "na", np.nan]
    emo_pool = [*EMOTION_LABELS[:8], "neutral", "calm"]
    for ci in range(n_conversations):
        cid = str(5 + ci * 3)
        n_turns = int(rng.integers(0, 6))
        pre_pa, post_pa = rng.integers(10, 71, 2).astype(float)
        pre_na, post_na = rng.integers(10, 71, 2).astype(float)
        if rng.random() < 0.25:
            post_pa = pre_pa  # post == pre: baseline-adjusted score undefined
        row = {
            "conversation_id": cid, "participant_id": f"p{ci % 4}",
            "diagnosis_group": ["none", "anxiety_depression", "asd_adhd"][ci % 3],
            "topic": ["money", "relationships"][ci % 2], "n_turns": n_turns,
            "pre_pa": _maybe(rng, 0.1, pre_pa), "pre_na": _maybe(rng, 0.1, pre_na),
            "post_pa": _maybe(rng, 0.15, post_pa), "post_na": _maybe(rng, 0.15, post_na),
            "q2_emotion_clarity": rng.choice([*Q2_OPTIONS, "", "something else"]) if rng.random() > 0.1 else np.nan,
            "q3_model_fit": rng.choice([*Q3_OPTIONS, " mostly WELL-matched ", "??"]) if rng.random() > 0.1 else np.nan,
        }  # fmt: skip
        for b in FOUR_BRANCHES:
            row[f"fb_{b}"] = _maybe(rng, 0.25, float(rng.integers(1, 8)))
        conv_rows.append(row)
        for time in ("pre", "post"):
            if rng.random() < 0.15:
                continue
            for it in PANAS_ITEMS:
                if rng.random() < 0.85:
                    items.append({"conversation_id": cid, "time": time, "item": it,
                                  "value": float(rng.integers(1, 8))})  # fmt: skip
        for pos, v in enumerate(rng.choice(Q1_OPTIONS, int(rng.integers(0, 4)))):
            survey.append({"conversation_id": cid, "question": "q1_looking_for", "position": pos,
                           "value": v if rng.random() > 0.2 else v.upper() + " "})  # fmt: skip
        for pos in range(int(rng.integers(0, 3))):
            survey.append({"conversation_id": cid, "question": "q3_follow_up", "position": pos,
                           "value": _text(rng, 1, 5)})  # fmt: skip
        for t in range(1, n_turns + 1):
            turns.append({"conversation_id": cid, "turn": t, "user_message": _text(rng),
                          "llm_response": _text(rng, 0, 15),
                          "llm_improved": _maybe(rng, 0.2, _text(rng, 0, 15)),
                          "human_edited": _maybe(rng, 0.2, _text(rng, 0, 15))})  # fmt: skip
            for pos in range(int(rng.choice([0, 0, 1, 1, 2, 3, 4]))):
                tags.append({"conversation_id": cid, "turn": t, "position": pos,
                             "emotion": rng.choice(emo_pool),
                             "intensity": _maybe(rng, 0.2, float(rng.integers(1, 8)))})  # fmt: skip
            if rng.random() > 0.15:
                for q in rng.choice(q_pool, int(rng.integers(0, 7)), replace=False):
                    judg.append({"conversation_id": cid, "turn": t, "question_id": q,
                                 "llm_value": _pick(rng, binv), "observed": _pick(rng, binv),
                                 "preferred": _pick(rng, binv)})  # fmt: skip
            for i in range(int(rng.choice([0, 1, 2, 3, 4]))):
                a, b = rng.choice(_LABELS, 2, replace=False)
                comps.append({"conversation_id": cid, "turn": t, "comparison": i,
                              "question_id": "general" if i == 0 else f"PW{i}",
                              "response_a": a, "response_b": b,
                              "winner": _pick(rng, ["A", "B", np.nan], p=[0.45, 0.4, 0.15])})  # fmt: skip
    modes_of = {
        f"m{p}": (["default", "verbose"] if p == 0 else ["default"]) for p in range(n_predictors)
    }
    for p in range(n_predictors):
        pred = f"m{p}"
        for mode in modes_of[pred]:
            for crow in conv_rows:
                cid = crow["conversation_id"]
                if rng.random() < 0.1:
                    continue  # no run for this conversation
                r = {"predictor": pred, "mode": mode, "conversation_id": cid,
                     "pred_post_pa": _maybe(rng, 0.1, float(rng.integers(10, 71))),
                     "pred_post_na": _maybe(rng, 0.1, float(rng.integers(10, 71))),
                     "q2_emotion_clarity": rng.choice([*Q2_OPTIONS, ""]) if rng.random() > 0.1 else np.nan,
                     "q3_model_fit": rng.choice([*Q3_OPTIONS, "nope"]) if rng.random() > 0.1 else np.nan}  # fmt: skip
                for b in FOUR_BRANCHES:
                    r[f"fb_{b}"] = _maybe(rng, 0.2, float(rng.integers(1, 8)))
                runs.append(r)
                key = {"predictor": pred, "mode": mode, "conversation_id": cid}
                if rng.random() > 0.1:
                    for it in PANAS_ITEMS:
                        if rng.random() < 0.9:
                            p_items.append({**key, "item": it, "value": float(rng.integers(1, 8))})
                for pos, v in enumerate(rng.choice(Q1_OPTIONS, int(rng.integers(0, 4)))):
                    p_survey.append({**key, "question": "q1_looking_for", "position": pos,
                                     "value": v})  # fmt: skip
                for pos in range(int(rng.integers(0, 3))):
                    p_survey.append({**key, "question": "q3_follow_up", "position": pos,
                                     "value": _text(rng, 1, 5)})  # fmt: skip
                gt_turns = [t for t in turns if t["conversation_id"] == cid]
                for gt in gt_turns:
                    t = gt["turn"]
                    if rng.random() < 0.12:
                        continue  # ground-truth turn the run lacks: skipped
                    judge = rng.random() < 0.5 and p == 0
                    p_turns.append({**key, "turn": t,
                                    "drafted_response": (_text(rng, 0, 15) if rng.random() > 0.15 else np.nan) if p == 0 else np.nan,
                                    "judge_overall_score": float(rng.integers(1, 8)) if judge else np.nan,
                                    "judge_emotional_appropriateness": _maybe(rng, 0.3, float(rng.integers(1, 8))) if judge else np.nan,
                                    "judge_helpfulness": np.nan,
                                    "judge_tone_match": float(rng.integers(1, 8)) if judge else np.nan})  # fmt: skip
                    for pos in range(int(rng.choice([0, 0, 1, 1, 2, 3]))):
                        p_tags.append({**key, "turn": t, "position": pos,
                                       "emotion": rng.choice(EMOTION_LABELS[:8]),
                                       "intensity": _maybe(rng, 0.2, float(rng.integers(1, 8)))})  # fmt: skip
                    tasks = ["om", "human", "om_hp", "human_hp"] + (
                        ["draft"] if p == 0 and rng.random() < 0.5 else []
                    )
                    for task in tasks:
                        for q in q_pool:
                            if rng.random() < 0.8:
                                p_bin.append({**key, "turn": t, "task": task, "question_id": q,
                                              "value": _pick(rng, ["yes", "no", "yes", "no", "na", np.nan])})  # fmt: skip
                    n_c = sum(1 for c in comps if c["conversation_id"] == cid and c["turn"] == t)
                    for i in range(n_c + int(rng.random() < 0.1)):
                        if rng.random() < 0.15:
                            continue
                        p_pw.append({**key, "turn": t, "comparison": i,
                                     "selection": _pick(rng, ["A", "B", "A", "B", np.nan])})  # fmt: skip
    return make_release(
        conversations=conv_rows, panas_items=items, survey_choices=survey, turns=turns,
        emotion_tags=tags, binary_judgements=judg, pairwise_comparisons=comps, runs=runs,
        pred_panas_items=p_items, pred_survey_choices=p_survey, pred_turns=p_turns,
        pred_emotion_tags=p_tags, pred_binary=p_bin, pred_pairwise=p_pw,
        info={"simulated": True, "name": f"random-{seed}"},
    )  # fmt: skip


def test_random_release_matches_schemas():
    rel = random_release(0)
    for name, schema in TABLE_SCHEMAS.items():
        assert list(rel.tables[name].columns) == list(schema), name
    assert len(rel.tables["pred_turns"]) > 0
