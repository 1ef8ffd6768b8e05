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
    if not len(tables.get("runs", [])):
        keys = out["pred_turns"][["predictor", "mode", "conversation_id"]].drop_duplicates()
        out["runs"] = table("runs", keys.reset_index(drop=True))
    if not len(tables.get("predictors", [])):
        names = sorted(out["runs"]["predictor"].unique())
        out["predictors"] = table(
            "predictors",
            [{"predictor": p, "kind": "model", "display_name": p, "n_runs": 1} for p in names],
        )
    if not len(tables.get("conversations", [])):
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


def tiny_release(turns, *, conversation=None, run=None, cid="1", predictor="m", mode="default",
                 more_runs=()):  # fmt: skip
    """A one-conversation release described turn by turn (for hand-computed tests).

    Each turn is a dict with optional keys ``gt_tags`` / ``pred_tags`` (lists of (emotion,
    intensity)), ``judgements`` ({qid: (llm_value, observed, preferred)}), ``pred_binary``
    ({task: {qid: value}}), ``comparisons`` ([(response_a, response_b, winner)]), ``selections``
    ({index: "A" | "B"}), ``texts`` ((llm_response, llm_improved, human_edited)), ``draft``,
    ``judge`` ({column: value}) and ``in_run`` (False: the run lacks this turn).
    ``conversation`` / ``run`` give columns of the conversations / runs tables plus ``items``
    ({"pre": {...}, "post": {...}} / {...}), ``q1`` and ``q3f`` lists. ``more_runs`` lists
    (predictor, mode, turns, run) of further runs on the same conversation.
    """
    conversation = dict(conversation or {})
    gt_items = conversation.pop("items", {})
    gt_q1 = conversation.pop("q1", [])
    gt_q3f = conversation.pop("q3f", [])
    t = {name: [] for name in GROUND_TRUTH_TABLES + PREDICTION_TABLES}
    t["conversations"].append({"conversation_id": cid, "n_turns": len(turns), **conversation})
    for time, values in gt_items.items():
        for item, v in values.items():
            t["panas_items"].append(
                {"conversation_id": cid, "time": time, "item": item, "value": v}
            )
    for q, values in (("q1_looking_for", gt_q1), ("q3_follow_up", gt_q3f)):
        for pos, v in enumerate(values):
            t["survey_choices"].append({"conversation_id": cid, "question": q, "position": pos,
                                        "value": v})  # fmt: skip
    for n, spec in enumerate(turns, start=1):
        texts = spec.get("texts", ("", np.nan, np.nan))
        t["turns"].append({"conversation_id": cid, "turn": n, "llm_response": texts[0],
                           "llm_improved": texts[1], "human_edited": texts[2]})  # fmt: skip
        for pos, (e, i) in enumerate(spec.get("gt_tags", [])):
            t["emotion_tags"].append({"conversation_id": cid, "turn": n, "position": pos,
                                      "emotion": e, "intensity": i})  # fmt: skip
        for q, (llm, obs, pref) in spec.get("judgements", {}).items():
            t["binary_judgements"].append({"conversation_id": cid, "turn": n, "question_id": q,
                                           "llm_value": llm, "observed": obs,
                                           "preferred": pref})  # fmt: skip
        for i, (a, b, w) in enumerate(spec.get("comparisons", [])):
            t["pairwise_comparisons"].append({"conversation_id": cid, "turn": n, "comparison": i,
                                              "question_id": f"PW{i}", "response_a": a,
                                              "response_b": b, "winner": w})  # fmt: skip
    all_runs = [(predictor, mode, turns, run or {})] + list(more_runs)
    for pred, md, run_turns, run_spec in all_runs:
        run_spec = dict(run_spec)
        key = {"predictor": pred, "mode": md, "conversation_id": cid}
        p_items = run_spec.pop("items", {})
        p_q1 = run_spec.pop("q1", [])
        p_q3f = run_spec.pop("q3f", [])
        t["runs"].append({**key, **run_spec})
        for item, v in p_items.items():
            t["pred_panas_items"].append({**key, "item": item, "value": v})
        for q, values in (("q1_looking_for", p_q1), ("q3_follow_up", p_q3f)):
            for pos, v in enumerate(values):
                t["pred_survey_choices"].append({**key, "question": q, "position": pos,
                                                 "value": v})  # fmt: skip
        for n, spec in enumerate(run_turns, start=1):
            if not spec.get("in_run", True):
                continue
            t["pred_turns"].append({**key, "turn": n, "drafted_response": spec.get("draft", np.nan),
                                    **spec.get("judge", {})})  # fmt: skip
            for pos, (e, i) in enumerate(spec.get("pred_tags", [])):
                t["pred_emotion_tags"].append({**key, "turn": n, "position": pos, "emotion": e,
                                               "intensity": i})  # fmt: skip
            for task, answers in spec.get("pred_binary", {}).items():
                for q, v in answers.items():
                    t["pred_binary"].append({**key, "turn": n, "task": task, "question_id": q,
                                             "value": v})  # fmt: skip
            for i, sel in spec.get("selections", {}).items():
                t["pred_pairwise"].append({**key, "turn": n, "comparison": i, "selection": sel})
    return make_release(**t)


def turn_value(scores, metric, turn=1, predictor="m", mode="default"):
    df = scores.turn
    sel = df[(df["metric"] == metric) & (df["turn"] == turn) & (df["predictor"] == predictor)
             & (df["mode"] == mode)]  # fmt: skip
    assert len(sel) == 1, (metric, turn, len(sel))
    return float(sel["value"].iloc[0])


def conv_value(scores, metric, predictor="m", mode="default"):
    df = scores.conversation
    sel = df[(df["metric"] == metric) & (df["predictor"] == predictor) & (df["mode"] == mode)]
    assert len(sel) == 1, (metric, len(sel))
    return float(sel["value"].iloc[0])
