"""One simulated conversation: its structure and the loop that writes its documents.

:func:`_draw_structure` draws who, what and how long for every conversation (stream
``(1, k)``); :func:`_simulate_conversation` draws the ground truth and every predictor's run of
conversation ``k`` (stream ``(2, k)``) and assembles the run documents (spec 1.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from attunestats import constants as K
from attunestats.release.simulate._common import _MASKED, _turn_position
from attunestats.release.simulate.config import (
    _BEH,
    _HOL,
    _TASK_FIELDS,
    CAPABILITIES,
    JUDGE_NAME,
    SimulationConfig,
)
from attunestats.release.simulate.effects import TrueEffects, conversation_ids
from attunestats.release.simulate.ground_truth import _conversation_document, _ground_truth
from attunestats.release.simulate.predictions import (
    _pred_behaviour,
    _pred_emotion,
    _pred_holistic,
    _pred_preference,
    _pred_response,
)

_JUDGE_KEYS = ("overall_score", "emotional_appropriateness", "helpfulness", "tone_match")


@dataclass(frozen=True)
class _Structure:
    ids: tuple[str, ...]
    participant: np.ndarray
    topic: np.ndarray
    n_turns: np.ndarray
    om: np.ndarray
    w: np.ndarray


def _draw_structure(cfg: SimulationConfig, eff: TrueEffects, seed: int) -> _Structure:
    """Participant, topic, length, original model and effect ``w`` of every conversation.

    Conversation ``k`` draws from its own stream ``SeedSequence(seed, spawn_key=(1, k))``, so the
    first ``n`` conversations do not depend on how many are simulated.
    """
    n = cfg.n_conversations
    lo, hi = cfg.n_turns_range
    cdf = np.cumsum(eff.participant_weights)
    cdf[-1] = 1.0
    participant = np.empty(n, dtype=int)
    topic = np.empty(n, dtype=int)
    n_turns = np.empty(n, dtype=int)
    om = np.empty(n, dtype=int)
    w = np.empty((n, len(CAPABILITIES)))
    sd = np.array(cfg.conversation_sd)
    for k in range(n):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, k)))
        participant[k] = int(np.searchsorted(cdf, rng.random(), side="right"))
        topic[k] = int(rng.integers(len(eff.topics)))
        n_turns[k] = int(rng.integers(lo, hi + 1))
        om[k] = int(rng.integers(len(eff.original_models)))
        w[k] = sd * rng.standard_normal(len(CAPABILITIES))
    return _Structure(conversation_ids(n), participant, topic, n_turns, om, w)


def _parsed_panas(items: np.ndarray) -> dict[str, Any]:
    """PANAS as the runner echoes it (pre_panas_shown): totals plus items."""
    return {
        "totalPositiveAffect": int(items[:10].sum()),
        "totalNegativeAffect": int(items[10:].sum()),
        "items": {name: int(v) for name, v in zip(K.PANAS_ITEMS, items)},
    }


@dataclass
class _Context:
    cfg: SimulationConfig
    eff: TrueEffects
    st: _Structure
    seed: int
    rates: dict[str, float]
    missing_run_turns: list[list[Any]]
    delta_runs: list[list[str]]
    #: conversation id -> the extensions' draws of that conversation, for truth.json:
    #: ``"wi"`` (P, C) predictor x conversation interactions, ``"binary_noise"`` (P, nt) the
    #: overdispersion noise of the behaviour logit (each only when planted)
    extension_draws: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)


def _simulate_conversation(ctx: _Context, k: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ground-truth document and the run documents of every predictor for conversation ``k``."""
    cfg, eff, st, R = ctx.cfg, ctx.eff, ctx.st, ctx.rates
    rng = np.random.default_rng(np.random.SeedSequence(ctx.seed, spawn_key=(2, k)))
    cid = st.ids[k]
    p, t, nt, om = int(st.participant[k]), int(st.topic[k]), int(st.n_turns[k]), int(st.om[k])
    g = int(eff.diagnosis_index[p])
    P = len(eff.predictors)
    topic = eff.topics[t]
    base = (
        eff.theta
        + eff.u[p]
        + eff.delta[g]
        + eff.gamma[:, g, :]
        + eff.v[t]
        + eff.topic_interaction[:, t, :]
        + st.w[k]
    )  # (P, C): conversation-level linear predictor
    if (
        eff.participant_interaction is not None
        or max(cfg.conversation_interaction_sd) > 0
        or (cfg.binary_overdispersion_sd > 0)
    ):  # extensions draw from their own stream: default releases are unchanged
        ext = np.random.default_rng(np.random.SeedSequence(ctx.seed, spawn_key=(4, k)))
        if eff.participant_interaction is not None:
            base = base + eff.participant_interaction[:, p, :]
        wi_sd = np.array(cfg.conversation_interaction_sd)
        if wi_sd.max() > 0:
            wi = wi_sd * ext.standard_normal(base.shape)
            ctx.extension_draws.setdefault(cid, {})["wi"] = wi
            base = base + wi
    else:
        ext = None
    x = _turn_position(nt)
    eta = base[:, None, :] + eff.beta[:, None, :] * x[None, :, None]  # (P, nt, C)
    eta_behaviour = eta
    if ext is not None and cfg.binary_overdispersion_sd > 0:  # shared by a turn's judgements
        eta_behaviour = eta.copy()
        noise = cfg.binary_overdispersion_sd * ext.standard_normal((P, nt))
        ctx.extension_draws.setdefault(cid, {})["binary_noise"] = noise
        eta_behaviour[:, :, _BEH] += noise
    om_quality = float(eff.original_model_quality[om]) + 0.7 * float(rng.standard_normal())

    gt = _ground_truth(rng, nt, topic, float(eff.participant_distress[p]), om_quality, R)
    conv_doc = _conversation_document(rng, cid, eff, p, om, topic, gt, R)

    binary, draft_binary = _pred_behaviour(
        rng, gt, eta_behaviour, eff.rho, np.array(cfg.binary_task_offset), R
    )
    selections = _pred_preference(rng, gt, eta, eff.rho, R)
    emotion_tags = _pred_emotion(rng, gt, eta, eff.rho, R)
    drafts, judge = _pred_response(rng, gt, eta)
    pred_post, conv_wide = _pred_holistic(
        rng, gt, base[:, _HOL], eff.rho, np.array(cfg.survey_offset), R
    )
    omit = rng.random((P, nt)) < R["run_turn_missing"]
    omit[omit.all(axis=1), 0] = False  # a run keeps at least one turn
    is_delta = rng.random(P) < cfg.panas_delta_share
    run_secs = rng.integers(0, 3600, size=P)
    run_us = rng.integers(0, 1_000_000, size=P)
    dur_u = rng.random(P)

    # the runner records the ground-truth labels as read from the file (spec 1.6, port runner)
    label = _MASKED if gt.blinded else {lab: lab for lab in _MASKED}
    assignments = [
        {str(i): {"A": label[a], "B": label[b]} for i, (_q, a, b, _w) in enumerate(gt.comps[j])}
        for j in range(nt)
    ]
    pre_shown = _parsed_panas(gt.pre)
    runs: list[dict[str, Any]] = []
    for m in range(P):
        turn_results = []
        for j in range(nt):
            if omit[m, j]:
                ctx.missing_run_turns.append([eff.predictors[m], cid, j + 1])
                continue
            js = judge[m][j]
            judge_scores = dict(zip(_JUDGE_KEYS, js))
            turn_results.append(
                {
                    "turnNumber": j + 1,
                    "em_emotion_tags": emotion_tags[m][j],
                    "em_drafted_response": drafts[m][j],
                    "response_reasoning": None,
                    "emotion_reasoning": None,
                    "pairwise_assignment": assignments[j],
                    **dict(zip(_TASK_FIELDS, binary[m][j])),
                    "em_pairwise_selections": selections[m][j],
                    "em_four_branch_scores": {},
                    "em_draft_judge_scores": judge_scores,
                    "em_draft_judge_scores_by_model": {JUDGE_NAME: dict(judge_scores)},
                    "em_draft_binary_assessment": draft_binary[m][j],
                    "em_draft_binary_assessment_by_model": {JUDGE_NAME: dict(draft_binary[m][j])},
                }
            )
        predicted_post = _parsed_panas(pred_post[m])
        delta_doc: dict[str, int] = {}
        if is_delta[m]:  # spec 1.6: absolute prediction = pre + change (consistent here)
            ctx.delta_runs.append([eff.predictors[m], cid])
            for key in ("totalPositiveAffect", "totalNegativeAffect"):
                delta_doc[f"{key}_change"] = predicted_post[key] - pre_shown[key]
        human = eff.kinds[m] == "human"
        start = datetime(2026, 3, 2, 9, 0, 0) + timedelta(
            days=m, seconds=95 * k + int(run_secs[m]), microseconds=int(run_us[m])
        )
        per_turn = (45.0 if human else 6.0) * (0.7 + 0.6 * float(dur_u[m]))
        cost = None if human else round(0.0021 * nt * (0.8 + 0.4 * float(dur_u[m])), 4)
        runs.append(
            {
                "conversationId": cid,
                "source_file": f"conversation_{cid}.json",
                "em_model": eff.predictors[m],
                "run_timestamp": start.isoformat(),
                "mode": "default",
                "turns": turn_results,
                "post_conversation": {
                    "panas_strategy": "delta" if is_delta[m] else "absolute",
                    "pre_panas_shown": pre_shown,
                    "predicted_post_panas": predicted_post,
                    "predicted_panas_delta": delta_doc,
                    "predicted_conversation_wide": conv_wide[m],
                },
                "api_cost": cost,
                "duration_seconds": round(per_turn * nt, 1),
            }
        )
    return conv_doc, runs
