"""Conversation-level metrics (spec 2.5, 2.6 and 3), vectorised over every run.

A run is one (predictor, mode, conversation). Turn metrics are averaged over the run's scored turns
(null-aware for nullable metrics, 0 for a run without scored turns as in the port); binary
confusion counts are summed over turns for the pooled metrics; the post-conversation predictions
(PANAS, survey, four branches) are scored against the ground truth; the pillars and composites
follow from those.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attunestats.constants import (
    FOUR_BRANCHES,
    PANAS_ITEM_MAX_ERROR,
    PANAS_ITEMS,
    PANAS_TOTAL_MAX_ERROR,
    PANAS_TOTAL_MIDPOINT,
    Q3_FOLLOW_UP_THRESHOLD,
    Q3_OPTIONS,
)
from attunestats.metrics._index import ScoringIndex
from attunestats.metrics.composite import composite_components
from attunestats.metrics.registry import BINARY_TASKS, METRICS, POOLED_STATS, pooled_statistic
from attunestats.metrics.turn import TurnResults


def turn_averages(ix: ScoringIndex, tr: TurnResults) -> tuple[dict[str, np.ndarray], dict]:
    """``avg_<metric>`` per run for every turn metric, and the emission mask per run."""
    n_runs = ix.n_runs
    k_run = ix.k_run
    out: dict[str, np.ndarray] = {}
    emitted: dict[str, np.ndarray] = {}
    n_scored = np.bincount(k_run, minlength=n_runs)
    for name, values in tr.values.items():
        spec = METRICS[name]
        ok = ~np.isnan(values)
        s = np.bincount(k_run[ok], weights=values[ok], minlength=n_runs)
        n = np.bincount(k_run[ok], minlength=n_runs)
        if spec.nullable:
            out[f"avg_{name}"] = np.where(n > 0, s / np.maximum(n, 1), np.nan)
        else:
            out[f"avg_{name}"] = np.where(n_scored > 0, s / np.maximum(n_scored, 1), 0.0)
        if name in tr.emitted:
            pm_emit = np.zeros(len(ix.pm), bool)
            pm_emit[ix.run_pm[k_run[tr.emitted[name]]]] = True
            emitted[f"avg_{name}"] = pm_emit[ix.run_pm]
    # mean hit rate over turns with at least one ground-truth tag
    tagged = tr.n_gt_tags > 0
    hr = tr.values["emotion_hit_rate"]
    s = np.bincount(k_run[tagged], weights=hr[tagged], minlength=n_runs)
    n = np.bincount(k_run[tagged], minlength=n_runs)
    out["avg_emotion_hit_rate_tagged_only"] = np.where(n > 0, s / np.maximum(n, 1), np.nan)
    return out, emitted


def run_counts(ix: ScoringIndex, tr: TurnResults) -> dict[str, np.ndarray]:
    """Per run and task, the (tp, tn, fp, fn) counts summed over the run's scored turns."""
    out = {}
    for task in BINARY_TASKS:
        c = tr.counts[task]
        out[task] = np.stack(
            [np.bincount(ix.k_run, weights=c[:, j], minlength=ix.n_runs) for j in range(4)],
            axis=1,
        ).astype(np.int64)
    return out


def pooled_metrics(counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``pooled_binary_<task>_<stat>`` per run from the run's summed counts."""
    out = {}
    for task in BINARY_TASKS:
        c = counts[task]
        for stat in POOLED_STATS:
            out[f"pooled_binary_{task}_{stat}"] = pooled_statistic(
                stat, c[:, 0], c[:, 1], c[:, 2], c[:, 3]
            )
    return out


# ------------------------------------------------------------------------------------------------
# post-conversation


def _baseline_adjusted(post, pred, pre, max_error):
    """Skill relative to 'no change' (spec 2.5), clamped to [-1, 1]; NaN if post == pre or missing."""
    with np.errstate(invalid="ignore", divide="ignore"):
        naive = np.maximum(0.0, 1.0 - np.abs(post - pre) / max_error)
        raw = np.maximum(0.0, 1.0 - np.abs(post - pred) / max_error)
        denom = 1.0 - naive
        adj = np.clip((raw - naive) / np.where(denom == 0, 1.0, denom), -1.0, 1.0)
    bad = np.isnan(post) | np.isnan(pred) | np.isnan(pre) | (post == pre) | (denom == 0)
    return np.where(bad, np.nan, adj)


def _nanmean_rows(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    n = ok.sum(axis=1)
    return np.where(n > 0, np.where(ok, x, 0.0).sum(axis=1) / np.maximum(n, 1), np.nan)


def _item_matrix(df: pd.DataFrame, rows: np.ndarray, n_rows: int) -> np.ndarray:
    item_ix = pd.Index(PANAS_ITEMS).get_indexer(df["item"].to_numpy(dtype=object))
    ok = (rows >= 0) & (item_ix >= 0)
    out = np.full((n_rows, len(PANAS_ITEMS)), np.nan)
    out[rows[ok], item_ix[ok]] = df["value"].to_numpy(np.float64)[ok]
    return out


def panas_metrics(ix: ScoringIndex) -> dict[str, np.ndarray]:
    """PANAS aggregate, baseline-adjusted and item-level metrics per run."""
    t = ix.release.tables
    conv = t["conversations"]
    runs = t["runs"]
    c = ix.run_c
    # runs in index order
    r_rows = ix.run_codes(runs)
    pred_pa = np.full(ix.n_runs, np.nan)
    pred_na = np.full(ix.n_runs, np.nan)
    pred_pa[r_rows] = runs["pred_post_pa"].to_numpy(np.float64)
    pred_na[r_rows] = runs["pred_post_na"].to_numpy(np.float64)
    post_pa = conv["post_pa"].to_numpy(np.float64)[c]
    post_na = conv["post_na"].to_numpy(np.float64)[c]
    pre_pa = conv["pre_pa"].to_numpy(np.float64)[c]
    pre_na = conv["pre_na"].to_numpy(np.float64)[c]
    mid, max_err = float(PANAS_TOTAL_MIDPOINT), float(PANAS_TOTAL_MAX_ERROR)

    def err(actual, pred):
        any_side = ~np.isnan(actual) | ~np.isnan(pred)
        e = np.abs(np.where(np.isnan(actual), mid, actual) - np.where(np.isnan(pred), mid, pred))
        return np.where(any_side, e, np.nan)

    pa_err, na_err = err(post_pa, pred_pa), err(post_na, pred_na)
    n_err = (~np.isnan(pa_err)).astype(int) + (~np.isnan(na_err)).astype(int)
    mae = np.where(n_err > 0, (np.nan_to_num(pa_err) + np.nan_to_num(na_err)) / np.maximum(n_err, 1),
                   0.0)  # fmt: skip
    pa_mae, na_mae = np.nan_to_num(pa_err), np.nan_to_num(na_err)
    out = {
        "panas_mae": mae,
        "panas_normalized": np.maximum(0.0, 1.0 - mae / max_err),
        "panas_pa_mae": pa_mae,
        "panas_na_mae": na_mae,
        "panas_pa_normalized": np.maximum(0.0, 1.0 - pa_mae / max_err),
        "panas_na_normalized": np.maximum(0.0, 1.0 - na_mae / max_err),
    }
    pa_adj = _baseline_adjusted(post_pa, pred_pa, pre_pa, max_err)
    na_adj = _baseline_adjusted(post_na, pred_na, pre_na, max_err)
    out["panas_pa_baseline_adjusted"] = pa_adj
    out["panas_na_baseline_adjusted"] = na_adj
    out["panas_baseline_adjusted"] = _nanmean_rows(np.stack([pa_adj, na_adj], axis=1))

    # item level
    items = t["panas_items"]
    n_conv = len(ix.conv_ids)
    post_items = items.loc[items["time"] == "post"]
    pre_items = items.loc[items["time"] == "pre"]
    post_m = _item_matrix(post_items, ix.conv_codes(post_items), n_conv)[c]
    pre_m = _item_matrix(pre_items, ix.conv_codes(pre_items), n_conv)[c]
    pp = t["pred_panas_items"]
    pred_m = _item_matrix(pp, ix.run_codes(pp), ix.n_runs)
    with np.errstate(invalid="ignore"):
        item_err = np.abs(post_m - pred_m)
    item_mae = _nanmean_rows(item_err)
    out["panas_item_mae"] = item_mae
    out["panas_item_normalized"] = 1.0 - item_mae / PANAS_ITEM_MAX_ERROR
    out["panas_item_baseline_adjusted"] = _nanmean_rows(
        _baseline_adjusted(post_m, pred_m, pre_m, float(PANAS_ITEM_MAX_ERROR))
    )
    return out


def _norm(s: pd.Series) -> pd.Series:
    return s.fillna("").astype(object).str.strip().str.lower()


def _tokens(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())


def token_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the lower-cased whitespace token sets (1 if both empty)."""
    ta, tb = _tokens(a), _tokens(b)
    if not ta and not tb:
        return 1.0
    if not ta or not tb:
        return 0.0
    inter = len(ta & tb)
    return inter / (len(ta) + len(tb) - inter)


def _survey_lists(ix: ScoringIndex, question: str):
    t = ix.release.tables
    gt = t["survey_choices"]
    gt = gt.loc[gt["question"] == question]
    gc = ix.conv_codes(gt)
    gt = pd.DataFrame(
        {"c": gc, "pos": gt["position"].to_numpy(), "v": _norm(gt["value"]).to_numpy()}
    )
    gt = gt.loc[gt["c"] >= 0].sort_values(["c", "pos"], kind="stable")
    pr = t["pred_survey_choices"]
    pr = pr.loc[pr["question"] == question]
    rc = ix.run_codes(pr)
    pr = pd.DataFrame(
        {"r": rc, "pos": pr["position"].to_numpy(), "v": _norm(pr["value"]).to_numpy()}
    )
    pr = pr.loc[pr["r"] >= 0].sort_values(["r", "pos"], kind="stable")
    pr["c"] = ix.run_c[pr["r"].to_numpy()]
    n_g = np.bincount(gt["c"].to_numpy(np.int64), minlength=len(ix.conv_ids))[ix.run_c]
    n_p = np.bincount(pr["r"].to_numpy(np.int64), minlength=ix.n_runs)
    return gt, pr, n_g, n_p


def q1_score(ix: ScoringIndex) -> np.ndarray:
    """Set F1 of goals (case-insensitive exact options); both empty 1, one empty 0."""
    gt, pr, n_g, n_p = _survey_lists(ix, "q1_looking_for")
    gs = gt.drop_duplicates(["c", "v"])
    ps = pr.drop_duplicates(["r", "v"])
    tp_rows = ps.merge(gs[["c", "v"]], on=["c", "v"], how="inner")
    tp = np.bincount(tp_rows["r"].to_numpy(np.int64), minlength=ix.n_runs).astype(float)
    size_g = np.bincount(gs["c"].to_numpy(np.int64), minlength=len(ix.conv_ids))[ix.run_c]
    size_p = np.bincount(ps["r"].to_numpy(np.int64), minlength=ix.n_runs)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tp / np.maximum(size_p, 1)
        r = tp / np.maximum(size_g, 1)
        f1 = np.where(p + r > 0, 2.0 * p * r / np.where(p + r > 0, p + r, 1.0), 0.0)
    return np.where((n_g == 0) & (n_p == 0), 1.0, np.where((n_g == 0) | (n_p == 0), 0.0, f1))


def q3_follow_up_score(ix: ScoringIndex) -> np.ndarray:
    """Fuzzy set F1 of 'what felt off' items (exact 1, else best token Jaccard if >= 0.3)."""
    gt, pr, n_g, n_p = _survey_lists(ix, "q3_follow_up")
    gt = gt.assign(gi=np.arange(len(gt)))
    pr = pr.assign(pi=np.arange(len(pr)))
    pairs = pr.merge(gt, on="c", how="inner", suffixes=("_p", "_g"))
    uniq = pairs[["v_g", "v_p"]].drop_duplicates()
    jac = {
        (a, b): token_jaccard(a, b)
        for a, b in zip(uniq["v_g"].tolist(), uniq["v_p"].tolist(), strict=True)
    }
    vg, vp = pairs["v_g"].tolist(), pairs["v_p"].tolist()
    pairs["exact"] = np.array([a == b for a, b in zip(vg, vp, strict=True)], dtype=bool)
    pairs["jac"] = np.array([jac[(a, b)] for a, b in zip(vg, vp, strict=True)], dtype=float)
    thr = Q3_FOLLOW_UP_THRESHOLD

    def credit(by: str) -> pd.DataFrame:
        agg = pairs.groupby(["r", by], sort=False).agg(exact=("exact", "max"), best=("jac", "max"))
        agg["credit"] = np.where(agg["exact"], 1.0, np.where(agg["best"] >= thr, agg["best"], 0.0))
        return agg.reset_index()

    rec = credit("gi")
    prec = credit("pi")
    rec_sum = np.bincount(rec["r"].to_numpy(np.int64), weights=rec["credit"], minlength=ix.n_runs)
    prec_sum = np.bincount(prec["r"].to_numpy(np.int64), weights=prec["credit"],
                           minlength=ix.n_runs)  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = rec_sum / np.maximum(n_g, 1)
        precision = prec_sum / np.maximum(n_p, 1)
        s = precision + recall
        f1 = np.where(s > 0, 2.0 * precision * recall / np.where(s > 0, s, 1.0), 0.0)
    return np.where((n_g == 0) & (n_p == 0), 1.0, np.where((n_g == 0) | (n_p == 0), 0.0, f1))


def survey_metrics(ix: ScoringIndex) -> dict[str, np.ndarray]:
    """Q1 goals F1, Q2/Q3 exact match, Q3 ordinal distance, Q3 follow-up fuzzy F1."""
    t = ix.release.tables
    conv = t["conversations"]
    runs = t["runs"]
    r_rows = ix.run_codes(runs)
    order = np.empty(ix.n_runs, np.int64)
    order[r_rows] = np.arange(len(runs))
    out = {"q1_looking_for_score": q1_score(ix)}
    for q in ("q2_emotion_clarity", "q3_model_fit"):
        g = _norm(conv[q]).to_numpy()[ix.run_c]
        p = _norm(runs[q]).to_numpy()[order]
        out[f"{q}_match"] = (g == p).astype(np.float64)
    options = pd.Index([o.strip().lower() for o in Q3_OPTIONS])
    gi = options.get_indexer(_norm(conv["q3_model_fit"]).to_numpy())[ix.run_c]
    pi = options.get_indexer(_norm(runs["q3_model_fit"]).to_numpy())[order]
    out["q3_model_fit_ordinal_distance"] = np.where(
        (gi < 0) & (pi < 0),
        0.0,
        np.where((gi < 0) | (pi < 0), float(len(Q3_OPTIONS) - 1), np.abs(gi - pi).astype(float)),
    )
    out["q3_follow_up_score"] = q3_follow_up_score(ix)
    return out


def four_branch_metrics(ix: ScoringIndex) -> dict[str, np.ndarray]:
    """Four-branch MAE over rated branches (missing prediction -> 4) and its normalisation."""
    t = ix.release.tables
    cols = [f"fb_{b}" for b in FOUR_BRANCHES]
    gt = t["conversations"][cols].to_numpy(np.float64)[ix.run_c]
    runs = t["runs"]
    pred = np.full((ix.n_runs, len(cols)), np.nan)
    pred[ix.run_codes(runs)] = runs[cols].to_numpy(np.float64)
    err = np.abs(gt - np.where(np.isnan(pred), 4.0, pred))  # NaN where unrated
    rated = ~np.isnan(gt)
    n = rated.sum(axis=1)
    mae = np.where(n > 0, np.where(rated, err, 0.0).sum(axis=1) / np.maximum(n, 1), 0.0)
    out = {
        "four_branch_mae": mae,
        "four_branch_normalized": np.where(n > 0, np.maximum(0.0, 1.0 - mae / 6.0), 1.0),
    }
    for j, b in enumerate(FOUR_BRANCHES):
        out[f"four_branch_error_{b}"] = err[:, j]
    return out


def conversation_metrics(
    ix: ScoringIndex, tr: TurnResults
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every built-in conversation metric per run, the emission masks and the run counts."""
    values, emitted = turn_averages(ix, tr)
    counts = run_counts(ix, tr)
    values.update(pooled_metrics(counts))
    human = values["avg_binary_human_accuracy"]
    human_hp = values["avg_binary_human_accuracy_hp"]
    values["hp_perspective_gap"] = human - human_hp
    values["hp_perspective_alignment"] = np.where(
        human > 0, human_hp / np.where(human > 0, human, 1), 0.0
    )
    mcc, mcc_hp = values["pooled_binary_human_mcc"], values["pooled_binary_human_hp_mcc"]
    values["hp_perspective_gap_mcc"] = mcc - mcc_hp
    if ix.options.perspective_alignment_mcc == "positive_only":
        ok = mcc > 0
    else:
        ok = mcc != 0
    values["hp_perspective_alignment_mcc"] = np.where(ok, mcc_hp / np.where(ok, mcc, 1.0), 0.0)
    values.update(panas_metrics(ix))
    values.update(survey_metrics(ix))
    values.update(four_branch_metrics(ix))
    values.update(
        composite_components(
            emotion_f1=values["avg_emotion_f1"],
            emotion_va=values["avg_emotion_va_score"],
            binary_om_accuracy=values["avg_binary_om_accuracy"],
            binary_human_accuracy=values["avg_binary_human_accuracy"],
            pairwise_accuracy=values["avg_pairwise_accuracy"],
            panas_baseline_adjusted=values["panas_baseline_adjusted"],
            q1=values["q1_looking_for_score"],
            q2=values["q2_emotion_clarity_match"],
            q3=values["q3_model_fit_match"],
            q3_follow_up=values["q3_follow_up_score"],
            four_branch_normalized=values["four_branch_normalized"],
        )
    )
    return values, emitted, counts
