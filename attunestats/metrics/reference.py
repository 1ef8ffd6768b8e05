"""A straightforward per-turn reference scorer (slow; for cross-checks and benchmarks only).

It follows spec sections 2-4 literally, one conversation and one turn at a time, on plain Python
lists, sets and dicts rebuilt from the release tables, in the structure of the official scorer
(as described by the public port). It shares nothing with the vectorised kernels of
:mod:`attunestats.metrics` except the constants, so the two can check each other: the tests require
``score()`` to equal :func:`score_reference` to 1e-12 on every metric, and
``benchmarks/bench_score.py`` reports the speed ratio.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from attunestats.constants import (
    BINARY_HIDDEN_QUESTIONS,
    COMPOSITE_WEIGHTS,
    EMOTION_LABELS,
    FOUR_BRANCHES,
    PANAS_ITEMS,
    Q3_OPTIONS,
    VALENCE_AROUSAL,
)
from attunestats.metrics.conventions import ScoringOptions

_NAN = float("nan")


def _isnull(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _sim(e1: str, e2: str) -> float:
    if e1 not in VALENCE_AROUSAL or e2 not in VALENCE_AROUSAL:
        return 0.0
    (v1, a1), (v2, a2) = VALENCE_AROUSAL[e1], VALENCE_AROUSAL[e2]
    return round(1.0 - math.hypot(v1 - v2, a1 - a2) / math.sqrt(2.0), 4)


def _jaccard(a: str, b: str) -> float:
    ta, tb = set(a.lower().split()), set(b.lower().split())
    if not ta and not tb:
        return 1.0
    if not ta or not tb:
        return 0.0
    inter = len(ta & tb)
    return inter / (len(ta) + len(tb) - inter)


def _binary_stats(tp: int, tn: int, fp: int, fn: int) -> dict[str, float]:
    total = tp + tn + fp + fn
    acc = (tp + tn) / total if total > 0 else 0.0
    prec = tp / (tp + fp) if tp + fp > 0 else 0.0
    rec = tp / (tp + fn) if tp + fn > 0 else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    mcc = (tp * tn - fp * fn) / den if den > 0 else 0.0
    return {"accuracy": acc, "precision": prec, "recall": rec, "f1": f1, "mcc": mcc}


# ------------------------------------------------------------------------------------------------
# rebuild nested documents from the tables


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    cols = list(df.columns)
    return [dict(zip(cols, row, strict=True)) for row in df.itertuples(index=False, name=None)]


def _nest(release: Any) -> tuple[dict, dict]:
    t = release.tables
    convs: dict[str, dict] = {}
    for row in _records(t["conversations"]):
        row["turns"] = {}
        row["post_items"], row["pre_items"] = {}, {}
        row["q1"], row["q3f"] = [], []
        convs[row["conversation_id"]] = row
    for row in _records(t["turns"]):
        row.update(tags=[], judgements={}, comparisons=[])
        convs[row["conversation_id"]]["turns"][row["turn"]] = row
    for row in _records(t["emotion_tags"].sort_values(["conversation_id", "turn", "position"])):
        convs[row["conversation_id"]]["turns"][row["turn"]]["tags"].append(row)
    for row in _records(t["binary_judgements"]):
        if row["question_id"] in BINARY_HIDDEN_QUESTIONS:
            continue
        convs[row["conversation_id"]]["turns"][row["turn"]]["judgements"][row["question_id"]] = row
    for row in _records(
        t["pairwise_comparisons"].sort_values(["conversation_id", "turn", "comparison"])
    ):
        convs[row["conversation_id"]]["turns"][row["turn"]]["comparisons"].append(row)
    for row in _records(t["panas_items"]):
        if not _isnull(row["value"]):
            convs[row["conversation_id"]][f"{row['time']}_items"][row["item"]] = row["value"]
    for row in _records(
        t["survey_choices"].sort_values(["conversation_id", "question", "position"])
    ):
        key = "q1" if row["question"] == "q1_looking_for" else "q3f"
        convs[row["conversation_id"]][key].append(row["value"])

    runs: dict[tuple, dict] = {}
    for row in _records(t["runs"]):
        row.update(turns={}, items={}, q1=[], q3f=[])
        runs[(row["predictor"], row["mode"], row["conversation_id"])] = row
    rk = ("predictor", "mode", "conversation_id")

    def run_of(row: dict) -> dict:
        return runs[tuple(row[c] for c in rk)]

    for row in _records(t["pred_turns"]):
        row.update(tags=[], binary=defaultdict(dict), selections={})
        run_of(row)["turns"][row["turn"]] = row
    for row in _records(t["pred_emotion_tags"].sort_values([*rk, "turn", "position"])):
        turn = run_of(row)["turns"].get(row["turn"])
        if turn is not None:
            turn["tags"].append(row)
    for row in _records(t["pred_binary"]):
        turn = run_of(row)["turns"].get(row["turn"])
        if turn is not None:
            turn["binary"][row["task"]][row["question_id"]] = row["value"]
    for row in _records(t["pred_pairwise"]):
        turn = run_of(row)["turns"].get(row["turn"])
        if turn is not None and not _isnull(row["selection"]):
            turn["selections"][str(row["comparison"])] = row["selection"]
    for row in _records(t["pred_panas_items"]):
        if not _isnull(row["value"]):
            run_of(row)["items"][row["item"]] = row["value"]
    for row in _records(t["pred_survey_choices"].sort_values([*rk, "question", "position"])):
        key = "q1" if row["question"] == "q1_looking_for" else "q3f"
        run_of(row)[key].append(row["value"])
    return convs, runs


# ------------------------------------------------------------------------------------------------
# per-turn metrics


def _assign_total(matrix: list[list[float]], method: str) -> float:
    """Total similarity over a one-to-one matching (``matrix`` holds costs 1 - similarity)."""
    if method == "greedy":
        cands = sorted(
            ((matrix[r][c], r, c) for r in range(len(matrix)) for c in range(len(matrix[0]))),
            key=lambda x: x[0],
        )
        used_r, used_c, total, n = set(), set(), 0.0, 0
        m = min(len(matrix), len(matrix[0]))
        for cost, r, c in cands:
            if r in used_r or c in used_c:
                continue
            used_r.add(r)
            used_c.add(c)
            total += 1.0 - cost
            n += 1
            if n == m:
                break
        return total
    cost = np.asarray(matrix)
    rows, cols = linear_sum_assignment(cost)
    return float(sum(1.0 - cost[r, c] for r, c in zip(rows, cols, strict=True)))


def _turn_scores(gt: dict, em: dict, opts: ScoringOptions) -> tuple[dict, dict]:
    s: dict[str, float] = {}
    known = set(EMOTION_LABELS)
    gt_tags = [
        (("" if _isnull(x["emotion"]) else x["emotion"]), x["intensity"]) for x in gt["tags"]
    ]
    if opts.unknown_gt_emotion == "drop":
        gt_tags = [x for x in gt_tags if x[0] in known]
    p_tags = [(x["emotion"], x["intensity"]) for x in em["tags"] if x["emotion"] in known]
    g_set = {e for e, _ in gt_tags}
    p_set = {e for e, _ in p_tags}
    g_int = {e: i for e, i in gt_tags}
    p_int = {e: i for e, i in p_tags}

    # hit rate
    if not g_set:
        s["emotion_hit_rate"] = 1.0 if not p_set else 0.0
    else:
        s["emotion_hit_rate"] = len([e for e in p_set if e in g_set]) / len(g_set)
    # F1 family
    if not g_set and not p_set:
        prec = rec = f1 = 1.0
        f1i = opts.f1_intensity_both_empty
    elif not g_set:
        prec = rec = f1 = f1i = 0.0
    else:
        tp = len(g_set & p_set)
        prec = tp / len(p_set) if p_set else 0.0
        rec = tp / len(g_set)
        f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
        f1i = 0.0
        if tp > 0:
            sc = [
                1.0 - abs(g_int[e] - p_int[e]) / 6.0
                for e in g_set & p_set
                if not _isnull(g_int[e]) and not _isnull(p_int[e])
            ]
            f1i = f1 * _mean(sc) if sc else 0.0
    s.update(emotion_precision=prec, emotion_recall=rec, emotion_f1=f1, emotion_f1_intensity=f1i)
    errs = [
        abs(g_int[e] - p_int[e])
        for e in g_set & p_set
        if not _isnull(g_int[e]) and not _isnull(p_int[e])
    ]
    s["emotion_intensity_mae"] = _mean(errs) if errs else _NAN
    # valence-arousal
    if not gt_tags and not p_tags:
        va = vai = 1.0
    elif not gt_tags or not p_tags:
        va = vai = 0.0
    else:
        c_va, c_vai = [], []
        for ge, gi in gt_tags:
            r1, r2 = [], []
            for pe, pi in p_tags:
                sim = _sim(ge, pe)
                isim = 0.0 if _isnull(gi) or _isnull(pi) else 1.0 - abs(gi - pi) / 6.0
                r1.append(1.0 - sim)
                r2.append(1.0 - (0.7 * sim + (1.0 - 0.7) * isim))
            c_va.append(r1)
            c_vai.append(r2)
        m = min(len(gt_tags), len(p_tags))
        cov = m / max(len(gt_tags), len(p_tags))
        va = _assign_total(c_va, opts.va_matching) / m * cov
        vai = _assign_total(c_vai, opts.va_matching) / m * cov
    s["emotion_va_score"], s["emotion_va_intensity_score"] = va, vai

    # binary
    judg = gt["judgements"]
    counts: dict[str, tuple[int, int, int, int]] = {}
    for task in ("om", "human", "om_hp", "human_hp"):
        preds = em["binary"].get(task, {})
        tp = tn = fp = fn = 0
        for qid, j in judg.items():
            if task in ("om", "om_hp"):
                g = j["observed"] if not _isnull(j["observed"]) else j["llm_value"]
            else:
                g = j["preferred"] if not _isnull(j["preferred"]) else j["observed"]
            if g not in ("yes", "no"):
                continue
            p = preds.get(qid)
            p = "yes" if p == "yes" else "no"
            if g == "yes" and p == "yes":
                tp += 1
            elif g == "no" and p == "no":
                tn += 1
            elif g == "no":
                fp += 1
            else:
                fn += 1
        counts[task] = (tp, tn, fp, fn)
        acc = _binary_stats(tp, tn, fp, fn)["accuracy"]
        if not judg:
            acc = 1.0 if task in ("om", "human") else opts.hp_accuracy_no_judgements
        name = {"om": "binary_om_accuracy", "human": "binary_human_accuracy",
                "om_hp": "binary_om_accuracy_hp", "human_hp": "binary_human_accuracy_hp"}[task]  # fmt: skip
        s[name] = acc

    # pairwise
    comps = gt["comparisons"]
    sel = em["selections"]
    if not comps:
        s["pairwise_accuracy"] = 1.0
    else:
        right = 0
        for i, c in enumerate(comps):
            w = None if _isnull(c["winner"]) else c["winner"]
            e = sel.get(str(i))
            both_none = e is None and w is None
            if (e is not None and e == w) or (
                both_none and opts.pairwise_none_vs_missing == "right"
            ):
                right += 1
        s["pairwise_accuracy"] = right / len(comps)
    gw: dict[str, int] = {}
    ew: dict[str, int] = {}
    labels_seen = set()
    for i, c in enumerate(comps):
        a = "" if _isnull(c["response_a"]) else c["response_a"]
        b = "" if _isnull(c["response_b"]) else c["response_b"]
        labels_seen.update((a, b))
        if c["winner"] in ("A", "B"):
            lab = a if c["winner"] == "A" else b
            gw[lab] = gw.get(lab, 0) + 1
        e = sel.get(str(i))
        if e is not None:
            lab = a if e == "A" else b
            ew[lab] = ew.get(lab, 0) + 1
    if len(labels_seen) < 2 or not ew:
        s["pairwise_kendall_tau"] = _NAN
    else:
        labels = sorted(labels_seen)
        g_rank = sorted(labels, key=lambda x: -gw.get(x, 0))
        e_rank = sorted(labels, key=lambda x: -ew.get(x, 0))
        conc = disc = 0
        for i in range(len(labels)):
            for j in range(i + 1, len(labels)):
                go = g_rank.index(labels[i]) - g_rank.index(labels[j])
                eo = e_rank.index(labels[i]) - e_rank.index(labels[j])
                if go * eo > 0:
                    conc += 1
                elif go * eo < 0:
                    disc += 1
        s["pairwise_kendall_tau"] = (conc - disc) / (conc + disc) if conc + disc else 0.0

    # drafts
    draft = em["drafted_response"]
    draft = "" if _isnull(draft) else draft
    texts = {
        "original": "" if _isnull(gt["llm_response"]) else gt["llm_response"],
        "alternate": "" if _isnull(gt["llm_improved"]) else gt["llm_improved"],
        "human": "" if _isnull(gt["human_edited"]) else gt["human_edited"],
    }
    if not draft:
        comp4 = [0.0, 0.0, 0.0, 0.0]
        pref = 0.0
    else:
        so = _jaccard(draft, texts["original"])
        sa = _jaccard(draft, texts["alternate"]) if texts["alternate"] else 0.0
        sh = _jaccard(draft, texts["human"]) if texts["human"] else 0.0
        comp4 = [max(so, sa, sh), so, sa, sh]
        wins: dict[str, int] = {}
        total = 0
        for c in comps:
            if c["winner"] not in ("A", "B"):
                continue
            lab = c["response_a"] if c["winner"] == "A" else c["response_b"]
            lab = ("" if _isnull(lab) else lab).strip().lower()
            wins[lab] = wins.get(lab, 0) + 1
            total += 1
        if total == 0:
            pref = comp4[0]
        else:
            ws = wsum = 0.0
            for lab, n in wins.items():
                text = texts.get(lab, "")
                if text:
                    w = n / total
                    ws += _jaccard(draft, text) * w
                    wsum += w
            pref = ws / wsum if wsum > 0 else 0.0
    s["response_similarity"] = comp4[0]
    s["response_similarity_original"] = comp4[1]
    s["response_similarity_llm_improved"] = comp4[2]
    s["response_similarity_human_edited"] = comp4[3]
    s["response_preference_alignment"] = pref
    js = [
        em[c]
        for c in (
            "judge_overall_score",
            "judge_emotional_appropriateness",
            "judge_helpfulness",
            "judge_tone_match",
        )  # fmt: skip
        if not _isnull(em[c])
    ]
    s["draft_judge_score"] = max(0.0, min(1.0, (_mean(js) - 1) / 6)) if js else _NAN
    dba = em["binary"].get("draft")
    if not dba or not judg:
        s["draft_binary_alignment"] = _NAN
    else:
        ok = tot = 0
        for qid, j in judg.items():
            g = j["preferred"] if not _isnull(j["preferred"]) else j["observed"]
            if g not in ("yes", "no"):
                continue
            tot += 1
            if dba.get(qid) == g:
                ok += 1
        s["draft_binary_alignment"] = ok / tot if tot else _NAN
    flags = {
        "has_draft": bool(draft),
        "has_judge": bool(js),
        "has_draft_binary": bool(dba),
        "n_gt_tags": len(gt_tags),
    }
    return s, {"counts": counts, **flags}


# ------------------------------------------------------------------------------------------------
# post-conversation


def _baseline(post: float, pred: float, pre: float, max_err: float) -> float:
    if post == pre:
        return _NAN
    naive = max(0.0, 1.0 - abs(post - pre) / max_err)
    raw = max(0.0, 1.0 - abs(post - pred) / max_err)
    if 1.0 - naive == 0.0:
        return _NAN
    return max(-1.0, min(1.0, (raw - naive) / (1.0 - naive)))


def _set_f1(g: list[str], p: list[str]) -> float:
    if not g and not p:
        return 1.0
    if not g or not p:
        return 0.0
    gs = {x.strip().lower() for x in g}
    ps = {x.strip().lower() for x in p}
    tp = len(gs & ps)
    pr, rc = tp / len(ps), tp / len(gs)
    return 2 * pr * rc / (pr + rc) if pr + rc > 0 else 0.0


def _fuzzy_f1(g: list[str], p: list[str], thr: float = 0.3) -> float:
    if not g and not p:
        return 1.0
    if not g or not p:
        return 0.0
    gn = [x.strip().lower() for x in g]
    pn = [x.strip().lower() for x in p]
    gs, ps = set(gn), set(pn)
    rc = 0.0
    for x in gn:
        if x in ps:
            rc += 1.0
            continue
        best = max(_jaccard(x, y) for y in pn)
        if best >= thr:
            rc += best
    pr = 0.0
    for y in pn:
        if y in gs:
            pr += 1.0
            continue
        best = max(_jaccard(y, x) for x in gn)
        if best >= thr:
            pr += best
    rc /= len(gn)
    pr /= len(pn)
    return 2 * pr * rc / (pr + rc) if pr + rc > 0 else 0.0


def _post_scores(conv: dict, run: dict, opts: ScoringOptions) -> dict[str, float]:
    s: dict[str, float] = {}
    errs = []
    pa_mae = na_mae = 0.0
    for side in ("pa", "na"):
        a, p = conv[f"post_{side}"], run[f"pred_post_{side}"]
        if not _isnull(a) or not _isnull(p):
            e = abs((40.0 if _isnull(a) else a) - (40.0 if _isnull(p) else p))
            errs.append(e)
            if side == "pa":
                pa_mae = e
            else:
                na_mae = e
    mae = _mean(errs)
    s["panas_mae"] = mae
    s["panas_normalized"] = max(0.0, 1.0 - mae / 60.0)
    s["panas_pa_mae"], s["panas_na_mae"] = pa_mae, na_mae
    s["panas_pa_normalized"] = max(0.0, 1.0 - pa_mae / 60.0)
    s["panas_na_normalized"] = max(0.0, 1.0 - na_mae / 60.0)
    adj = {}
    for side in ("pa", "na"):
        a, p, pre = conv[f"post_{side}"], run[f"pred_post_{side}"], conv[f"pre_{side}"]
        adj[side] = _NAN if _isnull(a) or _isnull(p) or _isnull(pre) else _baseline(a, p, pre, 60.0)
    s["panas_pa_baseline_adjusted"], s["panas_na_baseline_adjusted"] = adj["pa"], adj["na"]
    vals = [v for v in adj.values() if not math.isnan(v)]
    s["panas_baseline_adjusted"] = _mean(vals) if vals else _NAN
    post_i, pred_i, pre_i = conv["post_items"], run["items"], conv["pre_items"]
    item_errs = [abs(post_i[k] - pred_i[k]) for k in PANAS_ITEMS if k in post_i and k in pred_i]
    s["panas_item_mae"] = _mean(item_errs) if item_errs else _NAN
    s["panas_item_normalized"] = 1.0 - s["panas_item_mae"] / 6.0
    adjs = [
        _baseline(post_i[k], pred_i[k], pre_i[k], 6.0)
        for k in PANAS_ITEMS
        if k in post_i and k in pred_i and k in pre_i
    ]
    adjs = [a for a in adjs if not math.isnan(a)]
    s["panas_item_baseline_adjusted"] = _mean(adjs) if adjs else _NAN

    s["q1_looking_for_score"] = _set_f1(conv["q1"], run["q1"])

    def text(x: Any) -> str:
        return "" if _isnull(x) else str(x).strip().lower()

    s["q2_emotion_clarity_match"] = float(
        text(conv["q2_emotion_clarity"]) == text(run["q2_emotion_clarity"])
    )
    s["q3_model_fit_match"] = float(text(conv["q3_model_fit"]) == text(run["q3_model_fit"]))
    opts_l = [o.strip().lower() for o in Q3_OPTIONS]
    gi = opts_l.index(text(conv["q3_model_fit"])) if text(conv["q3_model_fit"]) in opts_l else None
    pi = opts_l.index(text(run["q3_model_fit"])) if text(run["q3_model_fit"]) in opts_l else None
    if gi is None and pi is None:
        s["q3_model_fit_ordinal_distance"] = 0.0
    elif gi is None or pi is None:
        s["q3_model_fit_ordinal_distance"] = float(len(Q3_OPTIONS) - 1)
    else:
        s["q3_model_fit_ordinal_distance"] = float(abs(gi - pi))
    s["q3_follow_up_score"] = _fuzzy_f1(conv["q3f"], run["q3f"])
    per = {}
    for b in FOUR_BRANCHES:
        g = conv[f"fb_{b}"]
        p = run[f"fb_{b}"]
        s[f"four_branch_error_{b}"] = _NAN
        if _isnull(g):
            continue
        per[b] = abs(g - (4.0 if _isnull(p) else p))
        s[f"four_branch_error_{b}"] = per[b]
    if per:
        fb_mae = _mean(list(per.values()))
        s["four_branch_mae"], s["four_branch_normalized"] = fb_mae, max(0.0, 1.0 - fb_mae / 6.0)
    else:
        s["four_branch_mae"], s["four_branch_normalized"] = 0.0, 1.0
    return s


def _composite(s: dict[str, float]) -> None:
    adj = s["panas_baseline_adjusted"]
    ps = 0.5 if math.isnan(adj) else (adj + 1.0) / 2.0
    cwq = (s["q1_looking_for_score"] + s["q2_emotion_clarity_match"] + s["q3_model_fit_match"]
           + s["q3_follow_up_score"]) / 4  # fmt: skip
    et = 0.5 * s["avg_emotion_f1"] + 0.5 * s["avg_emotion_va_score"]
    binary = (s["avg_binary_om_accuracy"] + s["avg_binary_human_accuracy"]) / 2
    eq = 0.5 * binary + 0.5 * s["avg_pairwise_accuracy"]
    hc = 0.4 * ps + 0.3 * cwq + 0.3 * s["four_branch_normalized"]
    s["panas_score"], s["conversation_wide_questions_score"] = ps, cwq
    s["emotion_tracking"], s["evaluation_quality"], s["holistic_comprehension"] = et, eq, hc
    w = COMPOSITE_WEIGHTS
    s["composite_score"] = 100 * (
        w["emotion_tracking"] * et + w["evaluation_quality"] * eq + w["holistic_comprehension"] * hc
    )
    tla = _mean([et, binary, s["avg_pairwise_accuracy"]])
    cwa = _mean([ps, cwq, s["four_branch_normalized"]])
    s["turn_level_average"], s["conversation_wide_average"] = tla, cwa
    s["equal_weight_composite"] = 100 * (tla + cwa) / 2


_NULLABLE_TURN = {"emotion_intensity_mae", "pairwise_kendall_tau", "draft_judge_score",
                  "draft_binary_alignment"}  # fmt: skip
_DRAFT = ("response_similarity", "response_similarity_original", "response_similarity_llm_improved",
          "response_similarity_human_edited", "response_preference_alignment")  # fmt: skip


def score_reference(
    release: Any, *, options: ScoringOptions | None = None
) -> dict[str, pd.DataFrame]:
    """Score a release with plain Python loops (slow reference; see the module docstring).

    Returns
    -------
    dict of pandas.DataFrame
        ``turn`` (predictor, mode, conversation_id, turn, metric, value), ``conversation``
        (predictor, mode, conversation_id, metric, value), ``counts`` (predictor, mode,
        conversation_id, task, tp, tn, fp, fn) and ``predictor`` (predictor, mode, metric,
        value, standard_error, n).
    """
    opts = options or ScoringOptions()
    convs, runs = _nest(release)
    turn_rows, conv_rows, count_rows = [], [], []
    per_run: dict[tuple, dict] = {}
    flags_pm: dict[tuple, dict[str, bool]] = defaultdict(
        lambda: {"has_draft": False, "has_judge": False, "has_draft_binary": False}
    )
    turn_cache = []
    for key in sorted(runs):
        run = runs[key]
        conv = convs[run["conversation_id"]]
        scores, flags_list = [], []
        for tnum in sorted(conv["turns"]):
            em = run["turns"].get(tnum)
            if em is None:
                continue
            s, f = _turn_scores(conv["turns"][tnum], em, opts)
            scores.append((tnum, s))
            flags_list.append(f)
            for flag in ("has_draft", "has_judge", "has_draft_binary"):
                flags_pm[key[:2]][flag] |= f[flag]
        turn_cache.append((key, conv, run, scores, flags_list))

    for key, conv, run, scores, flags_list in turn_cache:
        pm_flags = flags_pm[key[:2]]
        for tnum, s in scores:
            for name, v in s.items():
                if name in _DRAFT and not pm_flags["has_draft"]:
                    continue
                if name == "draft_judge_score" and not pm_flags["has_judge"]:
                    continue
                if name == "draft_binary_alignment" and not pm_flags["has_draft_binary"]:
                    continue
                turn_rows.append((*key, tnum, name, v))
        cs: dict[str, float] = {}
        names = scores[0][1].keys() if scores else _turn_scores_names()
        for name in names:
            vals = [s[name] for _, s in scores]
            if name in _NULLABLE_TURN:
                vals = [v for v in vals if not math.isnan(v)]
                cs[f"avg_{name}"] = _mean(vals) if vals else _NAN
            else:
                cs[f"avg_{name}"] = _mean(vals)
        tagged = [s["emotion_hit_rate"] for (_, s), f in zip(scores, flags_list, strict=True)
                  if f["n_gt_tags"] > 0]  # fmt: skip
        cs["avg_emotion_hit_rate_tagged_only"] = _mean(tagged) if tagged else _NAN
        sums = {}
        for task in ("om", "human", "om_hp", "human_hp"):
            tot = [0, 0, 0, 0]
            for f in flags_list:
                for j in range(4):
                    tot[j] += f["counts"][task][j]
            sums[task] = tot
            count_rows.append((*key, task, *tot))
            for stat, v in _binary_stats(*tot).items():
                cs[f"pooled_binary_{task}_{stat}"] = v
        h, hh = cs["avg_binary_human_accuracy"], cs["avg_binary_human_accuracy_hp"]
        cs["hp_perspective_gap"] = h - hh
        cs["hp_perspective_alignment"] = hh / h if h > 0 else 0.0
        m, mh = cs["pooled_binary_human_mcc"], cs["pooled_binary_human_hp_mcc"]
        cs["hp_perspective_gap_mcc"] = m - mh
        ok = m > 0 if opts.perspective_alignment_mcc == "positive_only" else m != 0
        cs["hp_perspective_alignment_mcc"] = mh / m if ok else 0.0
        cs.update(_post_scores(conv, run, opts))
        _composite(cs)
        pm_flags = flags_pm[key[:2]]
        for name, v in cs.items():
            src = name[4:] if name.startswith("avg_") else None
            if src in _DRAFT and not pm_flags["has_draft"]:
                continue
            if src == "draft_judge_score" and not pm_flags["has_judge"]:
                continue
            if src == "draft_binary_alignment" and not pm_flags["has_draft_binary"]:
                continue
            conv_rows.append((*key, name, v))
        per_run[key] = (cs, sums)

    turn = pd.DataFrame(turn_rows, columns=["predictor", "mode", "conversation_id", "turn",
                                            "metric", "value"])  # fmt: skip
    conversation = pd.DataFrame(conv_rows, columns=["predictor", "mode", "conversation_id",
                                                    "metric", "value"])  # fmt: skip
    counts = pd.DataFrame(count_rows, columns=["predictor", "mode", "conversation_id", "task",
                                               "tp", "tn", "fp", "fn"])  # fmt: skip
    # predictor level
    pred_rows = []
    by_pm: dict[tuple, list] = defaultdict(list)
    for key, (cs, sums) in per_run.items():
        by_pm[key[:2]].append((cs, sums))
    comp_means = {}
    emitted_names = set(conversation["metric"])
    for pm in sorted(by_pm):
        items = by_pm[pm]
        names = [n for n in items[0][0] if n in set(conversation.loc[
            (conversation["predictor"] == pm[0]) & (conversation["mode"] == pm[1]), "metric"])]  # fmt: skip
        for name in names:
            if name.startswith("pooled_binary_"):
                rest = name[len("pooled_binary_") :]
                task, stat = rest.rsplit("_", 1)
                tot = [sum(s[task][j] for _, s in items) for j in range(4)]
                pred_rows.append((*pm, name, _binary_stats(*tot)[stat], _NAN, len(items)))
                continue
            vals = [cs[name] for cs, _ in items if not math.isnan(cs[name])]
            n = len(vals)
            mu = sum(vals) / n if n else _NAN
            se = (math.sqrt(sum((v - mu) ** 2 for v in vals) / (n - 1)) / math.sqrt(n)
                  if n > 1 else _NAN)  # fmt: skip
            pred_rows.append((*pm, name, mu, se, n))
            if name == "composite_score":
                comp_means[pm] = (mu, n)
    del emitted_names
    cvals = [v for v, _ in comp_means.values()]
    if len(cvals) >= 2:
        mu = sum(cvals) / len(cvals)
        sd = math.sqrt(sum((v - mu) ** 2 for v in cvals) / (len(cvals) - 1))
    else:
        mu, sd = 0.0, 0.0
    for pm, (v, n) in comp_means.items():
        pred_rows.append((*pm, "composite_z", (v - mu) / sd if sd > 0 else 0.0, _NAN, n))
    predictor = pd.DataFrame(pred_rows, columns=["predictor", "mode", "metric", "value",
                                                 "standard_error", "n"])  # fmt: skip
    return {"turn": turn, "conversation": conversation, "counts": counts, "predictor": predictor}


def _turn_scores_names() -> list[str]:
    return [
        "emotion_hit_rate", "emotion_precision", "emotion_recall", "emotion_f1",
        "emotion_f1_intensity", "emotion_intensity_mae", "emotion_va_score",
        "emotion_va_intensity_score", "binary_om_accuracy", "binary_human_accuracy",
        "binary_om_accuracy_hp", "binary_human_accuracy_hp", "pairwise_accuracy",
        "pairwise_kendall_tau", *_DRAFT, "draft_judge_score", "draft_binary_alignment",
    ]  # fmt: skip
