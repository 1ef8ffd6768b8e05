"""Turn-level metrics (spec 2.1-2.4), vectorised over every scored turn of every run.

Each kernel takes a :class:`~attunestats.metrics._index.ScoringIndex` and returns arrays indexed by
the scored-turn code ``k`` (NaN = null). The valence-arousal matching is solved per group of turns
with the same (number of ground-truth tags, number of predicted tags): by brute force over all
one-to-one assignments (vectorised) when that is small, else by
:func:`scipy.optimize.linear_sum_assignment` turn by turn; the greedy alternative follows the port
(candidates sorted by cost with a stable sort in row-major order, lowest cost first).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from attunestats.constants import (
    BINARY_HIDDEN_QUESTIONS,
    EMOTION_LABELS,
    PANAS_ITEM_MAX_ERROR,
    VA_INTENSITY_ALPHA,
    VALENCE_AROUSAL,
)
from attunestats.metrics._index import ScoringIndex, codes, expand
from attunestats.metrics.registry import BINARY_TASKS

_N_KNOWN = len(EMOTION_LABELS)
#: Largest number of one-to-one assignments enumerated by brute force before falling back to
#: scipy's linear_sum_assignment turn by turn.
_MAX_BRUTE_ASSIGNMENTS = 720
_BRUTE_CHUNK_ELEMENTS = 4_000_000


@functools.cache
def va_similarity_matrix() -> np.ndarray:
    """20 x 20 valence-arousal similarities (spec 1.5), in the order of ``EMOTION_LABELS``.

    ``sim(e1, e2) = 1 - ||(V1, A1) - (V2, A2)||_2 / sqrt(2)``, rounded to 4 decimals with Python's
    ``round``.
    """
    n = _N_KNOWN
    out = np.empty((n, n))
    for i, a in enumerate(EMOTION_LABELS):
        va = VALENCE_AROUSAL[a]
        for j, b in enumerate(EMOTION_LABELS):
            vb = VALENCE_AROUSAL[b]
            d = math.sqrt((va[0] - vb[0]) ** 2 + (va[1] - vb[1]) ** 2)
            out[i, j] = round(1.0 - d / math.sqrt(2.0), 4)
    out.flags.writeable = False
    return out


def va_similarity(e1: str, e2: str) -> float:
    """Valence-arousal similarity of two emotion labels (0 if either is not a PANAS item)."""
    idx = {lab: i for i, lab in enumerate(EMOTION_LABELS)}
    a, b = idx.get(e1.strip().lower()), idx.get(e2.strip().lower())
    if a is None or b is None:
        return 0.0
    return float(va_similarity_matrix()[a, b])


@dataclass
class TurnResults:
    """Turn-level metric arrays (length n_turns) plus the auxiliary long tables."""

    values: dict[str, np.ndarray] = field(default_factory=dict)
    #: metric -> bool mask of the scored turns for which the metric is reported
    emitted: dict[str, np.ndarray] = field(default_factory=dict)
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # task -> (n_turns, 4) tp tn fp fn
    n_gt_tags: np.ndarray | None = None  # effective ground-truth list length per scored turn
    comparisons: dict[str, np.ndarray] = field(default_factory=dict)
    #: ground-truth comparison rows (g, winner code, label a, label b, labels) for the drafts
    pairwise_gt: tuple = ()


# ------------------------------------------------------------------------------------------------
# emotion tags


def _emotion_codes(labels: pd.Series, unknown: pd.Index) -> np.ndarray:
    known = pd.Index(EMOTION_LABELS).get_indexer(labels.to_numpy(dtype=object))
    other = unknown.get_indexer(labels.to_numpy(dtype=object))
    return np.where(known >= 0, known, _N_KNOWN + other).astype(np.int64)


def _last_per_key(key: np.ndarray) -> np.ndarray:
    """Indices of the last occurrence of each distinct key (keys in any order), sorted by key."""
    rev = key[::-1]
    _, first_in_rev = np.unique(rev, return_index=True)
    return len(key) - 1 - first_in_rev


def _padded(group: np.ndarray, n_groups: int, *cols: np.ndarray):
    """Group sizes and (n_groups, max_size) padded copies of ``cols`` (rows sorted by group)."""
    counts = np.bincount(group, minlength=n_groups)
    width = max(int(counts.max(initial=0)), 1)
    starts = np.cumsum(counts) - counts
    rank = np.arange(len(group)) - starts[group]
    out = []
    for col in cols:
        fill = np.nan if col.dtype.kind == "f" else -1
        arr = np.full((n_groups, width), fill, dtype=col.dtype)
        arr[group, rank] = col
        out.append(arr)
    return counts, out


def emotion_metrics(ix: ScoringIndex, res: TurnResults) -> None:
    """Hit rate, precision, recall, F1, F1 x intensity, intensity MAE, VA and VA x intensity."""
    opts = ix.options
    t = ix.release.tables
    gt = t["emotion_tags"]
    labels = gt["emotion"].fillna("").astype(object)
    known = labels.isin(EMOTION_LABELS).to_numpy()
    if opts.unknown_gt_emotion == "drop":
        gt = gt.loc[known]
        labels = labels.loc[known]
    unknown = pd.Index(pd.unique(labels[~labels.isin(EMOTION_LABELS)].to_numpy()), dtype=object)
    n_labels = _N_KNOWN + len(unknown)
    g = ix.gt_turn_codes(gt)
    keep = g >= 0
    g_lab = _emotion_codes(labels, unknown)[keep]
    g_int = gt["intensity"].to_numpy(np.float64)[keep]
    g_pos = gt["position"].to_numpy(np.int64)[keep]
    g = g[keep]
    order = np.lexsort((g_pos, g))
    g, g_lab, g_int = g[order], g_lab[order], g_int[order]

    pt = t["pred_emotion_tags"]
    p_known = pt["emotion"].fillna("").isin(EMOTION_LABELS).to_numpy()
    pt = pt.loc[p_known]  # spec 4: unknown predicted labels are dropped
    k = ix.turn_codes(pt)
    keep = k >= 0
    p_lab = _emotion_codes(pt["emotion"].astype(object), pd.Index([], dtype=object))[keep]
    p_int = pt["intensity"].to_numpy(np.float64)[keep]
    p_pos = pt["position"].to_numpy(np.int64)[keep]
    k = k[keep]
    order = np.lexsort((p_pos, k))
    k, p_lab, p_int = k[order], p_lab[order], p_int[order]

    n_turns, n_gt = ix.n_turns, ix.n_gt_turns
    kg = ix.k_g

    # --- sets (last occurrence of a label gives its intensity, as a dict would) -----------------
    g_key = g * n_labels + g_lab
    gi = _last_per_key(g_key)
    gs_key, gs_int = g_key[gi], g_int[gi]  # sorted by key
    n_gset = np.bincount(g[gi], minlength=n_gt)[kg]
    p_key = k * n_labels + p_lab
    pi = _last_per_key(p_key)
    ps_k, ps_lab, ps_int = k[pi], p_lab[pi], p_int[pi]
    n_pset = np.bincount(ps_k, minlength=n_turns)
    # match predicted set members against the ground-truth set of the same turn
    want = kg[ps_k] * n_labels + ps_lab
    pos = np.searchsorted(gs_key, want) if len(gs_key) else np.zeros(len(want), np.int64)
    pos = np.minimum(pos, max(len(gs_key) - 1, 0))
    hit = (gs_key[pos] == want) if len(gs_key) else np.zeros(len(want), bool)
    tp = np.bincount(ps_k[hit], minlength=n_turns).astype(np.float64)
    gi_m, pi_m = gs_int[pos[hit]], ps_int[hit]
    both = ~np.isnan(gi_m) & ~np.isnan(pi_m)
    diff = np.abs(gi_m[both] - pi_m[both])
    kk = ps_k[hit][both]
    n_int = np.bincount(kk, minlength=n_turns)
    err_sum = np.bincount(kk, weights=diff, minlength=n_turns)
    sim_sum = np.bincount(kk, weights=1.0 - diff / PANAS_ITEM_MAX_ERROR, minlength=n_turns)

    g_empty, p_empty = n_gset == 0, n_pset == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        hit_rate = np.where(g_empty, np.where(p_empty, 1.0, 0.0), tp / np.maximum(n_gset, 1))
        precision = np.where(n_pset > 0, tp / np.maximum(n_pset, 1), 0.0)
        recall = np.where(n_gset > 0, tp / np.maximum(n_gset, 1), 0.0)
        s = precision + recall
        f1 = np.where(s > 0, 2.0 * precision * recall / np.where(s > 0, s, 1.0), 0.0)
        f1_int = np.where((tp > 0) & (n_int > 0), f1 * (sim_sum / np.maximum(n_int, 1)), 0.0)
        mae = np.where(n_int > 0, err_sum / np.maximum(n_int, 1), np.nan)
    both_empty = g_empty & p_empty
    only_p = g_empty & ~p_empty
    precision = np.where(both_empty, 1.0, np.where(only_p, 0.0, precision))
    recall = np.where(both_empty, 1.0, np.where(only_p, 0.0, recall))
    f1 = np.where(both_empty, 1.0, np.where(only_p, 0.0, f1))
    f1_int = np.where(both_empty, opts.f1_intensity_both_empty, np.where(only_p, 0.0, f1_int))

    # --- lists: valence-arousal with one-to-one matching -------------------------------------
    n_gl, (gl_lab, gl_int) = _padded(g, n_gt, g_lab, g_int)
    n_pl, (pl_lab, pl_int) = _padded(k, n_turns, p_lab, p_int)
    a_of_k = n_gl[kg]
    va, vai = _va_scores(
        a_of_k, n_pl, gl_lab[kg], gl_int[kg], pl_lab, pl_int, n_labels, opts.va_matching
    )

    res.values.update(
        emotion_hit_rate=hit_rate,
        emotion_precision=precision,
        emotion_recall=recall,
        emotion_f1=f1,
        emotion_f1_intensity=f1_int,
        emotion_intensity_mae=mae,
        emotion_va_score=va,
        emotion_va_intensity_score=vai,
    )
    res.n_gt_tags = a_of_k


def _va_scores(n_g, n_p, g_lab, g_int, p_lab, p_int, n_labels, matching):
    """VA and VA x intensity scores per scored turn."""
    va = np.where((n_g == 0) & (n_p == 0), 1.0, 0.0)
    vai = va.copy()
    sim_full = np.zeros((n_labels, _N_KNOWN))
    sim_full[:_N_KNOWN, :] = va_similarity_matrix()
    both = (n_g > 0) & (n_p > 0)
    if not both.any():
        return va, vai
    shapes = np.unique(np.stack([n_g[both], n_p[both]], axis=1), axis=0)
    for a, b in shapes.tolist():
        idx = np.flatnonzero(both & (n_g == a) & (n_p == b))
        gl, gi = g_lab[idx, :a], g_int[idx, :a]
        pl, pi = p_lab[idx, :b], p_int[idx, :b]
        sim = sim_full[gl[:, :, None], pl[:, None, :]]  # (n, a, b)
        has = ~np.isnan(gi)[:, :, None] & ~np.isnan(pi)[:, None, :]
        int_sim = np.where(has, 1.0 - np.abs(gi[:, :, None] - pi[:, None, :]) / 6.0, 0.0)
        comb = VA_INTENSITY_ALPHA * sim + (1.0 - VA_INTENSITY_ALPHA) * int_sim
        m = min(a, b)
        coverage = m / max(a, b)
        if matching == "greedy":
            tot_va = _greedy_total(1.0 - sim)
            tot_vai = _greedy_total(1.0 - comb)
        else:
            tot_va = _optimal_total(sim)
            tot_vai = _optimal_total(comb)
        va[idx] = tot_va / m * coverage
        vai[idx] = tot_vai / m * coverage
    return va, vai


@functools.cache
def _assignments(n_small: int, n_large: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(n_large), n_small)), dtype=np.int64)


def _optimal_total(score: np.ndarray) -> np.ndarray:
    """Largest total score of a one-to-one matching, for each (a, b) score matrix in the stack."""
    n, a, b = score.shape
    if a > b:
        score = score.transpose(0, 2, 1)
        a, b = b, a
    n_assign = math.perm(b, a)
    if n_assign > _MAX_BRUTE_ASSIGNMENTS:
        out = np.empty(n)
        for i in range(n):
            rows, cols = linear_sum_assignment(score[i], maximize=True)
            out[i] = score[i][rows, cols].sum()
        return out
    perms = _assignments(a, b)  # (m, a)
    rows = np.arange(a)
    out = np.empty(n)
    chunk = max(1, _BRUTE_CHUNK_ELEMENTS // max(1, n_assign * a))
    for s in range(0, n, chunk):
        block = score[s : s + chunk]
        out[s : s + chunk] = block[:, rows[None, :], perms].sum(axis=2).max(axis=1)
    return out


def _greedy_total(cost: np.ndarray) -> np.ndarray:
    """Total of (1 - cost) over the port's greedy matching (stable sort, lowest cost first)."""
    n, a, b = cost.shape
    flat = cost.reshape(n, a * b)
    order = np.argsort(flat, axis=1, kind="stable")
    used_r = np.zeros((n, a), bool)
    used_c = np.zeros((n, b), bool)
    count = np.zeros(n, np.int64)
    total = np.zeros(n)
    m = min(a, b)
    rows = np.arange(n)
    for j in range(a * b):
        cell = order[:, j]
        r, c = cell // b, cell % b
        take = ~used_r[rows, r] & ~used_c[rows, c] & (count < m)
        total += np.where(take, 1.0 - flat[rows, cell], 0.0)
        used_r[rows[take], r[take]] = True
        used_c[rows[take], c[take]] = True
        count += take
    return total


# ------------------------------------------------------------------------------------------------
# binary judgements


def binary_metrics(ix: ScoringIndex, res: TurnResults) -> None:
    """Confusion counts per task and the four binary accuracies; draft binary alignment."""
    opts = ix.options
    t = ix.release.tables
    bj = t["binary_judgements"]
    if BINARY_HIDDEN_QUESTIONS:
        bj = bj.loc[~bj["question_id"].isin(BINARY_HIDDEN_QUESTIONS)]
    g = ix.gt_turn_codes(bj)
    keep = g >= 0
    bj = bj.loc[keep]
    g = g[keep]
    order = np.argsort(g, kind="stable")
    g = g[order]
    bj = bj.iloc[order]
    questions = pd.Index(pd.unique(bj["question_id"].astype(object).to_numpy()), dtype=object)
    nq = max(len(questions), 1)
    q = questions.get_indexer(bj["question_id"].astype(object).to_numpy())
    # answers as codes (0 "yes", 1 "no", -1 anything else), int8: the answer tables have a row
    # per judgement (a million for one 10,000-turn conversation)
    values = pd.Index(["yes", "no"], dtype=object)

    def coded(col: str) -> np.ndarray:
        return codes(bj[col], values).astype(np.int8)

    observed = coded("observed")
    observed_missing = bj["observed"].isna().to_numpy()
    gt_values = {
        "om": np.where(observed_missing, coded("llm_value"), observed),
        "human": np.where(bj["preferred"].isna().to_numpy(), observed, coded("preferred")),
    }
    del observed, observed_missing
    gt_values["om_hp"] = gt_values["om"]
    gt_values["human_hp"] = gt_values["human"]

    n_turns, n_gt = ix.n_turns, ix.n_gt_turns
    n_judg = np.bincount(g, minlength=n_gt)[ix.k_g]
    kk, row = expand(g, n_gt, ix.k_g)
    cell = kk * nq + q[row]

    pb = t["pred_binary"]
    pcell = ix.turn_codes(pb)
    ok = pcell >= 0
    tasks = pd.Index([*BINARY_TASKS, "draft"], dtype=object)
    ptask = codes(pb["task"], tasks).astype(np.int8)
    draft_rows = ok & (ptask == tasks.get_loc("draft"))
    has_draft_answers = np.bincount(pcell[draft_rows], minlength=n_turns) > 0
    del draft_rows
    pq = codes(pb["question_id"], questions)
    ok &= pq >= 0
    pcell *= nq  # pk * nq + pq, in place
    pcell += pq
    del pq
    pval = codes(pb["value"], values).astype(np.int8)
    size = n_turns * nq

    def answers(task: str, value: str) -> np.ndarray:
        sel = ok & (ptask == tasks.get_loc(task)) & (pval == values.get_loc(value))
        if size <= 50_000_000:
            mask = np.zeros(size, bool)
            mask[pcell[sel]] = True
            return mask[cell]
        return np.isin(cell, pcell[sel])

    for task in BINARY_TASKS:
        gv = gt_values[task][row]
        yes, no = gv == 0, gv == 1
        pred_yes = answers(task, "yes")  # missing, "na" or unrecognised predictions count as "no"
        c = np.stack(
            [
                np.bincount(kk, weights=yes & pred_yes, minlength=n_turns),
                np.bincount(kk, weights=no & ~pred_yes, minlength=n_turns),
                np.bincount(kk, weights=no & pred_yes, minlength=n_turns),
                np.bincount(kk, weights=yes & ~pred_yes, minlength=n_turns),
            ],
            axis=1,
        ).astype(np.int64)
        res.counts[task] = c
        total = c.sum(axis=1)
        acc = np.where(total > 0, (c[:, 0] + c[:, 1]) / np.maximum(total, 1), 0.0)
        empty_value = 1.0 if task in ("om", "human") else opts.hp_accuracy_no_judgements
        res.values[
            {
                "om": "binary_om_accuracy",
                "human": "binary_human_accuracy",
                "om_hp": "binary_om_accuracy_hp",
                "human_hp": "binary_human_accuracy_hp",
            }[task]
        ] = np.where(n_judg == 0, empty_value, acc)

    # draft binary alignment: the judge's yes/no about the draft vs the HP's preference
    gv = gt_values["human"][row]
    yes, no = gv == 0, gv == 1
    correct = (yes & answers("draft", "yes")) | (no & answers("draft", "no"))
    n_den = np.bincount(kk, weights=yes | no, minlength=n_turns)
    n_ok = np.bincount(kk, weights=correct, minlength=n_turns)
    align = np.where(
        has_draft_answers & (n_judg > 0) & (n_den > 0), n_ok / np.maximum(n_den, 1), np.nan
    )
    res.values["draft_binary_alignment"] = align
    res.emitted["draft_binary_alignment"] = _group_any(ix, has_draft_answers)


def _group_any(ix: ScoringIndex, flag: np.ndarray) -> np.ndarray:
    """Per scored turn: does its predictor x mode have ``flag`` on any scored turn?"""
    pm_k = ix.run_pm[ix.k_run]
    any_pm = np.bincount(pm_k, weights=flag, minlength=len(ix.pm)) > 0
    return any_pm[pm_k]


# ------------------------------------------------------------------------------------------------
# pairwise comparisons


def pairwise_metrics(ix: ScoringIndex, res: TurnResults) -> None:
    """Pairwise accuracy, Kendall tau of win-count rankings, and the comparisons table."""
    opts = ix.options
    t = ix.release.tables
    pc = t["pairwise_comparisons"]
    g = ix.gt_turn_codes(pc)
    keep = g >= 0
    pc = pc.loc[keep]
    g = g[keep]
    order = np.lexsort((pc["comparison"].to_numpy(np.int64), g))
    pc = pc.iloc[order]
    g = g[order]
    n_turns, n_gt = ix.n_turns, ix.n_gt_turns
    comp = pc["comparison"].to_numpy(np.int64)
    win = _ab_code(pc["winner"])
    la_s = pc["response_a"].fillna("").astype(object)
    lb_s = pc["response_b"].fillna("").astype(object)
    labels = pd.Index(sorted(set(la_s.tolist()) | set(lb_s.tolist())), dtype=object)
    n_lab = max(len(labels), 1)
    la = labels.get_indexer(la_s.to_numpy())
    lb = labels.get_indexer(lb_s.to_numpy())

    pp = t["pred_pairwise"]
    pk = ix.turn_codes(pp)
    pcomp = pp["comparison"].to_numpy(np.int64)
    # only selections of comparisons the ground truth has are looked up: a selection keyed by a
    # larger index (a warning of the loader, up to 9 digits) must not size the lookup table
    n_comp_max = max(int(comp.max(initial=-1)) + 1, 1)
    ok = (pk >= 0) & (pcomp >= 0) & (pcomp < n_comp_max)
    sel_lookup = np.zeros(n_turns * n_comp_max, np.int8)
    sel_lookup[pk[ok] * n_comp_max + pcomp[ok]] = _ab_code(pp["selection"])[ok]

    kk, row = expand(g, n_gt, ix.k_g)
    w = win[row]
    sel = sel_lookup[kk * n_comp_max + comp[row]]
    correct = (sel != 0) & (sel == w)
    if opts.pairwise_none_vs_missing == "right":
        correct |= (sel == 0) & (w == 0)
    n = np.bincount(kk, minlength=n_turns)
    n_right = np.bincount(kk, weights=correct, minlength=n_turns)
    res.values["pairwise_accuracy"] = np.where(n == 0, 1.0, n_right / np.maximum(n, 1))

    a, b = la[row], lb[row]
    gt_lab = np.where(w == 1, a, b)
    em_lab = np.where(sel == 1, a, b)
    gt_wins = np.bincount((kk * n_lab + gt_lab)[w != 0], minlength=n_turns * n_lab).reshape(
        n_turns, n_lab
    )
    em_wins = np.bincount((kk * n_lab + em_lab)[sel != 0], minlength=n_turns * n_lab).reshape(
        n_turns, n_lab
    )
    present = (
        np.bincount(kk * n_lab + a, minlength=n_turns * n_lab)
        + np.bincount(kk * n_lab + b, minlength=n_turns * n_lab)
    ).reshape(n_turns, n_lab) > 0
    agree = np.zeros(n_turns)
    pairs = np.zeros(n_turns)
    for i in range(n_lab):
        for j in range(i + 1, n_lab):
            both = present[:, i] & present[:, j]
            s_gt = np.where(gt_wins[:, i] >= gt_wins[:, j], -1.0, 1.0)
            s_em = np.where(em_wins[:, i] >= em_wins[:, j], -1.0, 1.0)
            agree += np.where(both, s_gt * s_em, 0.0)
            pairs += both
    defined = (present.sum(axis=1) >= 2) & (em_wins.sum(axis=1) > 0)
    res.values["pairwise_kendall_tau"] = np.where(defined, agree / np.maximum(pairs, 1), np.nan)
    res.comparisons = {
        "k": kk,
        "comparison": comp[row],
        "question_id": pc["question_id"].to_numpy(dtype=object)[row],
        "has_winner": w != 0,
        "correct": correct,
    }
    res.pairwise_gt = (g, win, la, lb, labels)


def _ab_code(s: pd.Series) -> np.ndarray:
    v = s.to_numpy(dtype=object)
    return np.where(v == "A", 1, np.where(v == "B", 2, 0)).astype(np.int8)


# ------------------------------------------------------------------------------------------------
# draft responses


def _jaccard(n_a: np.ndarray, n_b: np.ndarray, inter: np.ndarray) -> np.ndarray:
    union = n_a + n_b - inter
    return np.where(
        (n_a == 0) & (n_b == 0),
        1.0,
        np.where((n_a == 0) | (n_b == 0), 0.0, inter / np.maximum(union, 1)),
    )


def draft_metrics(ix: ScoringIndex, res: TurnResults) -> None:
    """Response similarity (and components), preference alignment and draft judge score."""
    t = ix.release.tables
    n_turns, n_gt = ix.n_turns, ix.n_gt_turns
    pred = t["pred_turns"].iloc[ix.k_pred_row].reset_index(drop=True)
    draft = pred["drafted_response"]
    has_draft = (draft.notna() & (draft.fillna("").str.len() > 0)).to_numpy()

    judge_cols = [
        "judge_overall_score",
        "judge_emotional_appropriateness",
        "judge_helpfulness",
        "judge_tone_match",
    ]
    judge = pred[judge_cols].to_numpy(np.float64)
    n_j = (~np.isnan(judge)).sum(axis=1)
    with np.errstate(invalid="ignore"):
        mean_j = np.where(n_j > 0, np.nansum(judge, axis=1) / np.maximum(n_j, 1), np.nan)
    res.values["draft_judge_score"] = np.clip((mean_j - 1.0) / 6.0, 0.0, 1.0)
    res.emitted["draft_judge_score"] = _group_any(ix, n_j > 0)

    emit = _group_any(ix, has_draft)
    zeros = np.zeros(n_turns)
    names = (
        "response_similarity",
        "response_similarity_original",
        "response_similarity_llm_improved",
        "response_similarity_human_edited",
        "response_preference_alignment",
    )
    for name in names:
        res.emitted[name] = emit
        res.values[name] = zeros.copy()
    if not has_draft.any():
        return

    gt_turns = t["turns"]
    g_rows = ix.gt_turn_codes(gt_turns)
    ref = np.empty((n_gt, 3), dtype=object)
    ref[:] = ""
    for j, col in enumerate(("llm_response", "llm_improved", "human_edited")):
        ref[g_rows, j] = gt_turns[col].fillna("").astype(object).to_numpy()
    truthy = np.vectorize(len, otypes=[np.int64])(ref) > 0 if n_gt else np.zeros((0, 3), bool)

    k_d = np.flatnonzero(has_draft)
    g_d = ix.k_g[k_d]
    drafts = draft.to_numpy(dtype=object)[k_d]
    # token sets (distinct lower-cased whitespace tokens), one text at a time: the drafts in
    # ground-truth turn order, each turn's three references built once (a vectorised explode of
    # every token costs ~20x the texts' size in memory: 220 MB for a 10,000-turn conversation)
    n_d = np.zeros(len(k_d), dtype=np.int64)
    n_ref = np.zeros((len(k_d), 3), dtype=np.int64)
    inter = np.zeros((len(k_d), 3), dtype=np.int64)
    n_d_l, n_ref_l, inter_l = [], [], []
    order = np.argsort(g_d, kind="stable").tolist()
    current, ref_sets, sizes = -1, [], []
    for i in order:
        g = int(g_d[i])
        if g != current:
            current = g
            ref_sets = [set(text.lower().split()) for text in ref[g]]
            sizes = [len(r) for r in ref_sets]
        ds = set(drafts[i].lower().split())
        n_d_l.append(len(ds))
        n_ref_l.append(sizes)
        inter_l.append([len(ds & r) for r in ref_sets])
    if order:
        n_d[order] = n_d_l
        n_ref[order] = n_ref_l
        inter[order] = inter_l
    sims = np.zeros((len(k_d), 3))
    for j in range(3):
        sims[:, j] = _jaccard(n_d, n_ref[:, j], inter[:, j])
    # the model-improved and human-edited replies count only when present (non-empty)
    sims[:, 1:] = np.where(truthy[g_d, 1:], sims[:, 1:], 0.0)
    overall = sims.max(axis=1)

    # preference alignment: Jaccard with each reply weighted by its share of decided wins
    g_pc, win, la, lb, labels = res.pairwise_gt
    win_label = np.where(win == 1, la, lb)
    decided = win != 0
    label_names = pd.Index([str(x).strip().lower() for x in labels], dtype=object)
    ref_of_label = np.array(
        [{"original": 0, "alternate": 1, "human": 2}.get(x, -1) for x in label_names],
        dtype=np.int64,
    )
    wl = ref_of_label[win_label[decided]] if len(labels) else np.zeros(0, np.int64)
    gd = g_pc[decided]
    total = np.bincount(gd, minlength=n_gt).astype(np.float64)
    wins = np.zeros((n_gt, 3))
    for j in range(3):
        wins[:, j] = np.bincount(gd[wl == j], minlength=n_gt)
    tot_d = total[g_d]
    weight = np.where(tot_d[:, None] > 0, wins[g_d] / np.maximum(tot_d, 1)[:, None], 0.0)
    weight = np.where(truthy[g_d], weight, 0.0)
    wsum = weight.sum(axis=1)
    aligned = np.where(wsum > 0, (sims * weight).sum(axis=1) / np.where(wsum > 0, wsum, 1.0), 0.0)
    pref = np.where(tot_d == 0, overall, aligned)

    res.values["response_similarity"][k_d] = overall
    res.values["response_similarity_original"][k_d] = sims[:, 0]
    res.values["response_similarity_llm_improved"][k_d] = sims[:, 1]
    res.values["response_similarity_human_edited"][k_d] = sims[:, 2]
    res.values["response_preference_alignment"][k_d] = pref


def turn_metrics(ix: ScoringIndex) -> TurnResults:
    """Every built-in turn metric for every scored turn."""
    res = TurnResults()
    emotion_metrics(ix, res)
    binary_metrics(ix, res)
    pairwise_metrics(ix, res)
    draft_metrics(ix, res)
    return res
