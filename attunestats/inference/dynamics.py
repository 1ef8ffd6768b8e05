"""Turn dynamics: early, mid and late turns of each conversation, with bootstrap intervals.

A turn's position in its conversation is ``x = (turn - first) / (last - first)`` over the
conversation's scored turns (the covariate of the simulator and of the hierarchical models);
*early* is ``x <= 1/3``, *late* ``x >= 2/3``, *mid* in between. Conversations with fewer than three
scored turns have no mid phase and are left out of phase comparisons (so every conversation used
contributes an early and a late turn). Per predictor, a phase value is the mean over conversations
of the conversation's mean over its turns in that phase; intervals come from the conversation
bootstrap of :mod:`attunestats.inference.bootstrap`, shared by all predictors, phases and metrics (so
late-minus-early differences are paired).

:func:`phase_inference` (the default) targets the population of participants (participant
jackknife, :mod:`attunestats.inference.participants`); :func:`phase_bootstrap` is the
conditional analysis (these participants, conversations resampled).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike
from attunestats.inference.bootstrap import BootstrapResult, mean_statistic, run_bootstrap

PHASES = ("early", "mid", "late")
DEFAULT_TURN_METRICS = (
    "binary_om_accuracy",
    "binary_human_accuracy",
    "emotion_f1",
    "emotion_va_score",
    "pairwise_accuracy",
)


def turn_phases(
    scores: Any,
    *,
    metrics: Sequence[str] = DEFAULT_TURN_METRICS,
    predictors: Sequence[str] | None = None,
    min_turns: int = 3,
) -> pd.DataFrame:
    """Conversation x phase means of turn metrics: predictor, mode, conversation_id, phase, metric, value."""
    turn = scores.turn
    unknown = sorted(set(metrics) - set(turn["metric"].unique()))
    if unknown:
        raise ValueError(f"turn metrics {unknown} are not in the scores")
    sub = turn[turn["metric"].isin(list(metrics))]
    if predictors is not None:
        sub = sub[sub["predictor"].isin(list(predictors))]
    turns = sub[["conversation_id", "turn"]].drop_duplicates()
    bounds = turns.groupby("conversation_id")["turn"].agg(first="min", last="max", n="nunique")
    sub = sub.join(bounds, on="conversation_id")
    sub = sub[sub["n"] >= min_turns]
    x = (sub["turn"] - sub["first"]) / (sub["last"] - sub["first"])
    phase = np.where(x <= 1 / 3, "early", np.where(x >= 2 / 3, "late", "mid"))
    sub = sub.assign(phase=phase)
    out = sub.groupby(["predictor", "mode", "conversation_id", "phase", "metric"], sort=True)[
        "value"
    ].mean()
    return out.reset_index()


def _phase_statistic(
    scores: Any, metrics: Sequence[str], predictors: Sequence[str] | None
) -> tuple[Any, pd.DataFrame, int]:
    """Per conversation: each phase's mean and late - early, as a mean statistic + design."""
    phases = turn_phases(scores, metrics=metrics, predictors=predictors)
    if phases.empty:
        from attunestats.errors import NotApplicable

        raise NotApplicable(
            f"no conversation has at least 3 turns scored on {list(metrics)}: turn phases "
            "(early, mid, late) need them"
        )
    wide = phases.pivot_table(index="conversation_id", columns=["predictor", "mode", "metric", "phase"],
                              values="value", aggfunc="first")  # fmt: skip
    keys = sorted({k[:3] for k in wide.columns})
    cols = []
    labels = []
    for key in keys:
        for ph in PHASES:
            cols.append(
                wide.get((*key, ph), pd.Series(np.nan, index=wide.index)).to_numpy(dtype=float)
            )
            labels.append((*key, ph))
        early = wide.get((*key, "early"), pd.Series(np.nan, index=wide.index)).to_numpy(dtype=float)
        late = wide.get((*key, "late"), pd.Series(np.nan, index=wide.index)).to_numpy(dtype=float)
        cols.append(late - early)
        labels.append((*key, "late-early"))
    values = np.column_stack(cols)
    label_frame = pd.DataFrame(labels, columns=["predictor", "mode", "metric", "phase"])
    design = scores.design.set_index("conversation_id").loc[wide.index].reset_index()
    return mean_statistic(values, label_frame), design, len(wide)


def phase_inference(
    scores: Any,
    *,
    metrics: Sequence[str] = DEFAULT_TURN_METRICS,
    predictors: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    method: str = "jackknife",
) -> tuple[Any, pd.DataFrame]:
    """Phase means and late-minus-early differences with participant-level intervals.

    The estimand is the population of participants; ``method`` is ``"jackknife"`` or ``"cr2"``
    (:func:`attunestats.inference.participants.participant_inference`). Returns the
    :class:`~attunestats.inference.participants.ScoreInference` (labels predictor, mode, metric,
    phase; phase ``late-early`` is the paired difference) and a tidy table of it.
    """
    from attunestats.inference.participants import participant_inference

    stat, design, n_conv = _phase_statistic(scores, metrics, predictors)
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    res = participant_inference(stat, design, method=method, confidence_level=confidence_level,
                                simulated=simulated)  # fmt: skip
    table = res.to_frame()
    table["n_conversations"] = n_conv
    return res, table


def phase_bootstrap(
    scores: Any,
    *,
    metrics: Sequence[str] = DEFAULT_TURN_METRICS,
    predictors: Sequence[str] | None = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    rng: RNGLike = None,
) -> tuple[BootstrapResult, pd.DataFrame]:
    """Phase means and late-minus-early differences per predictor and metric, with intervals.

    Returns the bootstrap (labels predictor, mode, metric, phase; phase ``late-early`` is the
    paired difference) and a tidy table of it.
    """
    stat, design, n_conv = _phase_statistic(scores, metrics, predictors)
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    boot = run_bootstrap(
        stat, design, method=method, n_resamples=n_resamples,
        confidence_level=confidence_level, rng=rng, simulated=simulated,
    )  # fmt: skip
    table = boot.to_frame()
    table["n_conversations"] = n_conv
    return boot, table
