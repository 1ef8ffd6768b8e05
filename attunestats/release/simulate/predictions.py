"""Predictions of every predictor for one simulated conversation (the ``_pred_*`` draws).

Each draw returns, per predictor ``m`` and turn ``j``, what the run file holds; the probability
models are those of the package docstring (:mod:`attunestats.release.simulate`). Human raters
share a consensus draw per unit with probability ``rho`` (:func:`_consensus_uniforms`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from attunestats import constants as K
from attunestats.release.simulate import _text as text
from attunestats.release.simulate._common import (
    _BIN_STR,
    _LABELS,
    _NA,
    _NEG,
    _NO,
    _NULL,
    _OMIT,
    _POS,
    _QIDS,
    _TITLE,
    _VALENCE,
    _YES,
    _clamp_int,
    _logistic,
)
from attunestats.release.simulate.config import _BEH, _EMO, _PREF, _RESP
from attunestats.release.simulate.ground_truth import _GroundTruth


def _consensus_uniforms(
    rng: np.random.Generator, rho: np.ndarray, shape: tuple[int, ...], k: int = 2
) -> list[np.ndarray]:
    """``k`` arrays (P, *shape) of U(0, 1); predictor m uses the unit's shared draws w.p. rho[m]."""
    P = rho.shape[0]
    copy = rng.random((P, *shape)) < rho.reshape((P,) + (1,) * len(shape))
    out = []
    for _ in range(k):
        shared = rng.random(shape)
        own = rng.random((P, *shape))
        out.append(np.where(copy, shared[None], own))
    return out


def _consensus_normals(
    rng: np.random.Generator, rho: np.ndarray, shape: tuple[int, ...]
) -> np.ndarray:
    P = rho.shape[0]
    r = rho.reshape((P,) + (1,) * len(shape))
    return np.sqrt(r) * rng.standard_normal(shape)[None] + np.sqrt(1.0 - r) * rng.standard_normal(
        (P, *shape)
    )


def _pred_behaviour(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta: np.ndarray,
    rho: np.ndarray,
    task_offset: np.ndarray,
    R: Mapping[str, float],
) -> tuple[list[list[list[dict[str, str]]]], list[list[dict[str, str]]]]:
    """Binary answers [m][j][task] and the draft judge's binary answers [m][j] (see module doc)."""
    nt, Q = gt.nt, len(_QIDS)
    ref = np.stack([gt.ref_om, gt.ref_hp, gt.ref_om, gt.ref_hp], axis=-1)[None]  # (1, nt, Q, 4)
    p_correct = _logistic(eta[:, :, _BEH][:, :, None, None] + task_offset[None, None, None, :])
    u1, u2 = _consensus_uniforms(rng, rho, (nt, Q, 4))
    correct = u1 < p_correct
    r_na, r_om = R["pred_no_as_na"], R["pred_no_omitted"]
    w_na, w_om = R["pred_wrong_na"], R["pred_wrong_omitted"]
    ans = np.where(u2 < 0.6, _NA, np.where(u2 < 0.8, _YES, _NO))  # unscored references
    correct_no = np.where(u2 < r_na, _NA, np.where(u2 < r_na + r_om, _OMIT, _NO))
    wrong_yes = np.where(u2 < w_na, _NA, np.where(u2 < w_na + w_om, _OMIT, _NO))
    ans = np.where(ref == _YES, np.where(correct, _YES, wrong_yes), ans)
    ans = np.where(ref == _NO, np.where(correct, correct_no, _YES), ans)
    ans_list = ans.transpose(0, 1, 3, 2).tolist()  # [m][j][task][q]
    p_resp = _logistic(eta[:, :, _RESP])
    d_ok = rng.random((eta.shape[0], nt, Q)) < p_resp[:, :, None]
    scored = (gt.ref_hp == _YES) | (gt.ref_hp == _NO)
    d_list = np.where(scored, np.where(d_ok, gt.ref_hp[None], 1 - gt.ref_hp[None]), _NO).tolist()
    asked = [np.flatnonzero(gt.answered[j]).tolist() for j in range(nt)]
    answers = [
        [
            [{_QIDS[q]: _BIN_STR[row[q]] for q in asked[j] if row[q] != _OMIT} for row in per_j]
            for j, per_j in enumerate(per_m)
        ]
        for per_m in ans_list
    ]
    drafts = [
        [{_QIDS[q]: _BIN_STR[per_m[j][q]] for q in asked[j]} for j in range(nt)] for per_m in d_list
    ]
    return answers, drafts


def _pred_preference(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta: np.ndarray,
    rho: np.ndarray,
    R: Mapping[str, float],
) -> list[list[dict[str, str]]]:
    """``em_pairwise_selections`` [m][j]."""
    P = eta.shape[0]
    flat = [(j, win) for j in range(gt.nt) for (_q, _a, _b, win) in gt.comps[j]]
    if not flat:
        return [[{} for _ in range(gt.nt)] for _ in range(P)]
    c_turn = np.array([f[0] for f in flat])
    c_win = np.array([f[1] for f in flat])
    p_correct = _logistic(eta[:, c_turn, _PREF])  # (P, n_comparisons)
    v1, v2 = _consensus_uniforms(rng, rho, (len(flat),))
    wrong = np.where(v2 < R["pred_pairwise_missing"], _NULL, 1 - c_win[None])
    sel = np.where(v1 < p_correct, c_win[None], wrong)
    undecided = np.where(v2 < 0.1, _NULL, np.where(v2 < 0.55, 0, 1))
    sel = np.where(c_win[None] == _NULL, undecided, sel).tolist()
    out = []
    for m in range(P):
        per_m, pos = [], 0
        for j in range(gt.nt):
            n = len(gt.comps[j])
            row = sel[m][pos : pos + n]
            pos += n
            per_m.append({str(i): "AB"[s] for i, s in enumerate(row) if s != _NULL})
        out.append(per_m)
    return out


def _pred_emotion(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta: np.ndarray,
    rho: np.ndarray,
    R: Mapping[str, float],
) -> list[list[list[dict[str, Any]]]]:
    """``em_emotion_tags`` [m][j] (see module doc for the exact recovery model)."""
    P, nt = eta.shape[0], gt.nt
    units = [(j, lab, inten) for j in range(nt) for lab, inten, kn in gt.tags[j] if kn]
    abstain = [j for j in range(nt) if not any(kn for _l, _i, kn in gt.tags[j])]
    p_emo = _logistic(eta[:, :, _EMO])  # (P, nt)
    if units:
        tu_turn = np.array([u[0] for u in units])
        e1, e2 = _consensus_uniforms(rng, rho, (len(units),))
        rec = (e1 < p_emo[:, tu_turn]).tolist()
        replace_u = e2.tolist()
        repl_pick = rng.random((P, len(units))).tolist()
        noise = rng.standard_normal((P, len(units))).tolist()
    if abstain:
        a1, a2 = _consensus_uniforms(rng, rho, (len(abstain),))
        abst_ok = (a1 < p_emo[:, abstain]).tolist()
        abst_pick = a2.tolist()
    spur_u, spur_pick, spur_int, unk_u, unk_pick, case_u = rng.random((6, P, nt))
    spurious = (spur_u < 0.4 * (1.0 - p_emo)).tolist()
    spur_pick_l, spur_int_l = spur_pick.tolist(), spur_int.tolist()
    unknown = (unk_u < R["pred_unknown_label"]).tolist()
    unk_pick_l = unk_pick.tolist()
    lower = (case_u < R["pred_label_case"]).tolist()
    int_null = (rng.random((P, nt, 6)) < R["pred_intensity_null"]).tolist()
    sd_int = (0.5 + 1.5 * (1.0 - p_emo)).tolist()

    start = np.cumsum([0] + [sum(1 for *_r, kn in gt.tags[j] if kn) for j in range(nt)]).tolist()
    abst_pos = {j: i for i, j in enumerate(abstain)}
    out = []
    for m in range(P):
        per_m = []
        for j in range(nt):
            gt_labels = [lab for lab, _i, _k in gt.tags[j]]
            chosen: list[tuple[str, int]] = []
            taken: list[str] = []
            if j in abst_pos:
                ai = abst_pos[j]
                if not abst_ok[m][ai]:
                    lab = _LABELS[int(abst_pick[m][ai] * 20)]
                    chosen.append((lab, 1 + int(spur_int_l[m][j] * 7)))
            else:
                for ui in range(start[j], start[j + 1]):
                    _tj, lab, inten = units[ui]
                    if rec[m][ui]:
                        centre = 4.0 if inten is None else float(inten)
                        sd = 1.5 if inten is None else sd_int[m][j]
                        chosen.append((lab, _clamp_int(centre + sd * noise[m][ui], 1, 7)))
                    elif replace_u[m][ui] < 0.6:
                        pool = _POS if _VALENCE[lab] == 0 else _NEG
                        taken = [c for c, _i in chosen]
                        cands = [c for c in pool if c not in gt_labels and c not in taken]
                        if cands:
                            lab2 = cands[int(repl_pick[m][ui] * len(cands))]
                            chosen.append((lab2, _clamp_int(4 + 1.5 * noise[m][ui], 1, 7)))
                if spurious[m][j]:
                    taken = [c for c, _i in chosen]
                    cands = [c for c in _LABELS if c not in gt_labels and c not in taken]
                    if cands:
                        lab3 = cands[int(spur_pick_l[m][j] * len(cands))]
                        chosen.append((lab3, 1 + int(spur_int_l[m][j] * 7)))
            tags = [
                {
                    "emotion": lab if lower[m][j] else _TITLE[lab],
                    "intensity": None if int_null[m][j][min(ti, 5)] else inten,
                }
                for ti, (lab, inten) in enumerate(chosen)
            ]
            if unknown[m][j]:
                n_unk = len(text.UNKNOWN_PRED_LABELS)
                lab = text.UNKNOWN_PRED_LABELS[int(unk_pick_l[m][j] * n_unk)]
                tags.append({"emotion": lab, "intensity": None})
            per_m.append(tags)
        out.append(per_m)
    return out


def _pred_response(
    rng: np.random.Generator, gt: _GroundTruth, eta: np.ndarray
) -> tuple[list[list[str]], list[list[list[float]]]]:
    """Drafted replies [m][j] and the four judge scores [m][j] (see module doc)."""
    P, nt = eta.shape[0], gt.nt
    refs = [(gt.texts[j][3] if gt.has_alt[j] else gt.texts[j][1]) for j in range(nt)]
    keep_p = 0.15 + 0.7 * _logistic(eta[:, :, _RESP])  # (P, nt)
    drafts: list[list[str]] = [[""] * nt for _ in range(P)]
    for j in range(nt):
        n_tok = len(refs[j].split())
        keep = rng.random((P, n_tok)) < keep_p[:, j : j + 1]
        fill = rng.integers(len(text.FILLER_TOKENS), size=(P, n_tok))
        for m in range(P):
            drafts[m][j] = text.draft_from_reference(refs[j], keep[m], fill[m])
    noisy = eta[:, :, _RESP][:, :, None] + 0.7 * rng.standard_normal((P, nt, 4))
    judge = np.clip(np.rint(1.0 + 6.0 * _logistic(noisy)), 1, 7).tolist()
    return drafts, judge


def _pred_holistic(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta_h: np.ndarray,
    rho: np.ndarray,
    survey_offset: np.ndarray,
    R: Mapping[str, float],
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Predicted post-PANAS items (P, 20) and ``predicted_conversation_wide`` per predictor."""
    P = eta_h.shape[0]
    p_h = _logistic(eta_h)
    p_sv = _logistic(eta_h[:, None] + survey_offset[None, :])  # (P, 3): q1, q2, q3
    h1, h2 = _consensus_uniforms(rng, rho, (4,))
    h_extra = rng.random((P, 3))
    panas_noise = _consensus_normals(rng, rho, (20,))
    sd_panas = 0.4 + 1.8 * (1.0 - p_h)
    pred_post = np.clip(np.rint(gt.post[None, :] + sd_panas[:, None] * panas_noise), 1, 7)
    fb_noise = _consensus_normals(rng, rho, (4,))
    sd_fb = 0.6 + 2.0 * (1.0 - p_h)
    fb_ref = np.where(gt.fb_rated, gt.fb_true, 5.0)
    pred_fb = np.clip(np.rint(fb_ref[None, :] + sd_fb[:, None] * fb_noise), 1, 7)
    fb_missing = rng.random((P, 4)) < R["pred_four_branch_missing"]
    q2, q3 = gt.q2_idx, gt.q3_idx
    out = []
    for m in range(P):
        q1_pred = _predict_q1(gt.q1_idx, h1[m, 0] < p_sv[m, 0], h2[m, 0], h_extra[m, 0])
        if h1[m, 1] < p_sv[m, 1]:
            q2_pred = K.Q2_OPTIONS[q2]
        elif h2[m, 1] < R["pred_survey_missing"]:
            q2_pred = ""
        else:
            others = [i for i in range(4) if i != q2]
            q2_pred = K.Q2_OPTIONS[others[int(h_extra[m, 1] * 3)]]
        if h1[m, 2] < p_sv[m, 2]:
            q3_pred = K.Q3_OPTIONS[q3]
        elif h2[m, 2] < R["pred_survey_missing"]:
            q3_pred = ""
        else:  # mostly an adjacent option (ordinal error), else any other
            adjacent = [i for i in (q3 - 1, q3 + 1) if 0 <= i <= 3]
            others = [i for i in range(4) if i != q3]
            u = h_extra[m, 2]
            pool, frac = (adjacent, u / 0.7) if u < 0.7 else (others, (u - 0.7) / 0.3)
            q3_pred = K.Q3_OPTIONS[pool[min(int(frac * len(pool)), len(pool) - 1)]]
        if h1[m, 3] < p_h[m]:
            fu_pred = [text.paraphrase(s) for s in gt.follow_up]
        else:
            cands = [s for s in text.FOLLOW_UP_PHRASES if s not in gt.follow_up]
            fu_pred = [cands[int(h2[m, 3] * len(cands))]]
        out.append(
            {
                "q1_lookingFor": q1_pred,
                "q2_emotionClarity": q2_pred,
                "q3_modelFit": q3_pred,
                "q3_followUp_whatFeltOff": fu_pred,
                "fourBranchScores": {
                    branch: int(pred_fb[m, b])
                    for b, branch in enumerate(K.FOUR_BRANCHES)
                    if not fb_missing[m, b]
                },
            }
        )
    return pred_post, out


def _predict_q1(truth_idx: list[int], correct: bool, u: float, u2: float) -> list[str]:
    """Q1 prediction: the true set when ``correct``; otherwise a different set."""
    if correct:
        return [K.Q1_OPTIONS[i] for i in truth_idx]
    absent = [i for i in range(len(K.Q1_OPTIONS)) if i not in truth_idx]
    chosen = list(truth_idx)
    if len(chosen) > 1 and u < 0.35:
        chosen.pop(int(u2 * len(chosen)))
    elif u < 0.7:
        chosen[int(u2 * len(chosen))] = absent[int(u2 * len(absent))]
    else:
        chosen.append(absent[int(u2 * len(absent))])
    return [K.Q1_OPTIONS[i] for i in sorted(set(chosen))]
