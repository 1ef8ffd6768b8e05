"""The composite score, its three pillars and the equal-weight composite (spec section 3).

Pure, vectorised functions of conversation-level inputs; nothing is rounded (rounding is for display
only, see :func:`attunestats.metrics.conventions.round_display`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attunestats.constants import (
    COMPOSITE_WEIGHTS,
    EMOTION_TRACKING_WEIGHTS,
    EVAL_QUALITY_WEIGHTS,
    HOLISTIC_WEIGHTS,
)


def _f(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def panas_score(panas_baseline_adjusted: Any) -> np.ndarray:
    """PANAS input of the composite: (adj + 1) / 2, and 0.5 where adj is null (NaN)."""
    adj = _f(panas_baseline_adjusted)
    return np.where(np.isnan(adj), 0.5, (adj + 1.0) / 2.0)


def conversation_wide_questions_score(q1: Any, q2: Any, q3: Any, q3_follow_up: Any) -> np.ndarray:
    """(Q1 + Q2 match + Q3 match + Q3 follow-up) / 4."""
    return (_f(q1) + _f(q2) + _f(q3) + _f(q3_follow_up)) / 4.0


def composite_components(
    *,
    emotion_f1: Any,
    emotion_va: Any,
    binary_om_accuracy: Any,
    binary_human_accuracy: Any,
    pairwise_accuracy: Any,
    panas_baseline_adjusted: Any,
    q1: Any,
    q2: Any,
    q3: Any,
    q3_follow_up: Any,
    four_branch_normalized: Any,
) -> dict[str, np.ndarray]:
    """Pillars, composite and equal-weight composite from their conversation-level inputs.

    Parameters
    ----------
    emotion_f1, emotion_va : array_like
        ``avg_emotion_f1`` and ``avg_emotion_va_score``.
    binary_om_accuracy, binary_human_accuracy, pairwise_accuracy : array_like
        ``avg_binary_om_accuracy``, ``avg_binary_human_accuracy``, ``avg_pairwise_accuracy``.
    panas_baseline_adjusted : array_like
        NaN where null (the PANAS input then counts as 0.5).
    q1, q2, q3, q3_follow_up, four_branch_normalized : array_like
        ``q1_looking_for_score``, ``q2_emotion_clarity_match``, ``q3_model_fit_match``,
        ``q3_follow_up_score``, ``four_branch_normalized``.

    Returns
    -------
    dict
        ``panas_score``, ``conversation_wide_questions_score``, ``emotion_tracking``,
        ``evaluation_quality``, ``holistic_comprehension``, ``turn_level_average``,
        ``conversation_wide_average``, ``composite_score`` (0-100) and
        ``equal_weight_composite`` (0-100), all unrounded.

    Examples
    --------
    The worked example of spec section 3:

    >>> out = composite_components(emotion_f1=.5, emotion_va=.6, binary_om_accuracy=.8,
    ...     binary_human_accuracy=.7, pairwise_accuracy=.6, panas_baseline_adjusted=.2, q1=.5,
    ...     q2=1, q3=0, q3_follow_up=.4, four_branch_normalized=.75)
    >>> round(float(out["composite_score"]), 2), round(float(out["equal_weight_composite"]), 2)
    (62.68, 62.08)
    """
    f1, va = _f(emotion_f1), _f(emotion_va)
    om, hp, pw = _f(binary_om_accuracy), _f(binary_human_accuracy), _f(pairwise_accuracy)
    fb = _f(four_branch_normalized)
    ps = panas_score(panas_baseline_adjusted)
    cwq = conversation_wide_questions_score(q1, q2, q3, q3_follow_up)
    et = EMOTION_TRACKING_WEIGHTS["emotion_f1"] * f1 + EMOTION_TRACKING_WEIGHTS["emotion_va"] * va
    binary = (om + hp) / 2.0
    eq = (
        EVAL_QUALITY_WEIGHTS["binary_accuracy"] * binary
        + EVAL_QUALITY_WEIGHTS["pairwise_accuracy"] * pw
    )
    hc = (
        HOLISTIC_WEIGHTS["panas_prediction"] * ps
        + HOLISTIC_WEIGHTS["conv_wide_questions"] * cwq
        + HOLISTIC_WEIGHTS["four_branch"] * fb
    )
    composite = 100.0 * (
        COMPOSITE_WEIGHTS["emotion_tracking"] * et
        + COMPOSITE_WEIGHTS["evaluation_quality"] * eq
        + COMPOSITE_WEIGHTS["holistic_comprehension"] * hc
    )
    turn_level = (et + binary + pw) / 3.0
    conv_wide = (ps + cwq + fb) / 3.0
    return {
        "panas_score": ps,
        "conversation_wide_questions_score": cwq,
        "emotion_tracking": et,
        "evaluation_quality": eq,
        "holistic_comprehension": hc,
        "turn_level_average": turn_level,
        "conversation_wide_average": conv_wide,
        "composite_score": composite,
        "equal_weight_composite": 100.0 * (turn_level + conv_wide) / 2.0,
    }


def composite_z(composite: Any) -> np.ndarray:
    """z-scores of predictor composites: (c - mean) / sample SD; all 0 if < 2 values or SD 0.

    Unrounded (the port rounds to 4 decimals; round for display only).
    """
    c = _f(composite)
    if c.size < 2:
        return np.zeros_like(c)
    sd = float(np.std(c, ddof=1))
    if not sd > 0:
        return np.zeros_like(c)
    return (c - c.mean()) / sd


def composite_points_per_unit(metric: str) -> float:
    """Composite points (0-100 scale) that one unit of ``metric`` is worth, NaN if not an input.

    The composite is ``100 (0.24 emotion_tracking + 0.49 evaluation_quality + 0.27
    holistic_comprehension)`` with emotion tracking ``(F1 + VA) / 2``, evaluation quality
    ``((OM + HP binary accuracy) / 2 + pairwise accuracy) / 2`` and holistic comprehension
    ``0.4 PANAS + 0.3 survey + 0.3 four-branch`` (spec section 3). A paired difference ``d`` in
    ``metric`` moves the composite by ``d * composite_points_per_unit(metric)`` when nothing
    else changes.

    Examples
    --------
    >>> composite_points_per_unit("avg_pairwise_accuracy")
    24.5
    >>> composite_points_per_unit("composite_score")
    1.0
    """
    et = COMPOSITE_WEIGHTS["emotion_tracking"]
    eq = COMPOSITE_WEIGHTS["evaluation_quality"]
    hc = COMPOSITE_WEIGHTS["holistic_comprehension"]
    weights = {
        "composite_score": 0.01,
        "emotion_tracking": et,
        "evaluation_quality": eq,
        "holistic_comprehension": hc,
        "avg_emotion_f1": et * EMOTION_TRACKING_WEIGHTS["emotion_f1"],
        "avg_emotion_va_score": et * EMOTION_TRACKING_WEIGHTS["emotion_va"],
        "avg_binary_om_accuracy": eq * EVAL_QUALITY_WEIGHTS["binary_accuracy"] / 2.0,
        "avg_binary_human_accuracy": eq * EVAL_QUALITY_WEIGHTS["binary_accuracy"] / 2.0,
        "avg_pairwise_accuracy": eq * EVAL_QUALITY_WEIGHTS["pairwise_accuracy"],
        "panas_score": hc * HOLISTIC_WEIGHTS["panas_prediction"],
        "conversation_wide_questions_score": hc * HOLISTIC_WEIGHTS["conv_wide_questions"],
        "four_branch_normalized": hc * HOLISTIC_WEIGHTS["four_branch"],
    }
    w = weights.get(metric)
    return float("nan") if w is None else round(100.0 * w, 12)
