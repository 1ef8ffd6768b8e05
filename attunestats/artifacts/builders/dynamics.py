"""Builders of notebook 06 (turn dynamics): early, mid and late turns of each conversation.

Phase means per predictor with participant-level intervals (population of participants:
delete-one-participant jackknife, t) and paired late-minus-early differences; then turn-drift slopes from the hierarchical models of notebook 05 (the same fits),
adjusted for participant, topic and conversation.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.artifacts.builders.hierarchical import failed, fit, overview, posterior_note
from attunestats.artifacts.context import ArtefactContext, Built
from attunestats.report import figures
from attunestats.report import hierarchical as report

METRICS = ["binary_om_accuracy", "binary_human_accuracy", "emotion_f1", "emotion_va_score",
           "pairwise_accuracy"]  # fmt: skip
DRIFT_MODELS = ("behaviour", "emotion")
DRIFT_NAMES = {"behaviour": "OM accuracy", "emotion": "emotion F1"}


def phases(ctx: ArtefactContext) -> Any:
    """Phase means and late-minus-early differences (participant jackknife, once per build)."""
    from attunestats.inference import dynamics

    key = ("phase_inference", ctx.release.checksum, *METRICS)
    return ctx.memo(key, lambda: dynamics.phase_inference(ctx.scores, metrics=METRICS)[1])


def turn_phases(ctx: ArtefactContext) -> Built:
    table = phases(ctx)
    fig = figures.phase_lines(
        table, metrics=["binary_om_accuracy", "emotion_f1", "pairwise_accuracy"],
        labels=["binary OM accuracy", "emotion F1", "pairwise accuracy"], simulated=ctx.simulated,
    )  # fmt: skip
    caption = ("Early / mid / late turn means and late-minus-early differences (95% t intervals, "
               "population of participants)")  # fmt: skip
    return ctx.built(ctx.table("06_turn_phases", table, caption),
                     ctx.figure("06_turn_phases", fig, note=figures.figure_note(table)))  # fmt: skip


def drift_fit_diagnostics(ctx: ArtefactContext) -> Built:
    fitted = {name: fit(ctx, name) for name in DRIFT_MODELS}
    caption = "MCMC fits of the drift models: diagnostics gate"
    return ctx.built(ctx.table("06_drift_fit_diagnostics", overview(fitted), caption),
                     failed_fits=failed(fitted))  # fmt: skip


def drift_slopes(ctx: ArtefactContext) -> Built:
    """Turn-drift slopes of every drift model; rows and figure of a fit that failed the
    diagnostics gate are stamped (:mod:`attunestats.report.hierarchical`)."""
    from attunestats import hierarchical as H

    ctx.setting("accept_failed_fits")
    fitted = {name: fit(ctx, name) for name in DRIFT_MODELS}
    drift = pd.concat([H.turn_drift(f, accept_failed_diagnostics=True) for f in fitted.values()],
                      ignore_index=True)  # fmt: skip
    names = {fitted[name].model.outcome: label for name, label in DRIFT_NAMES.items()}
    fig = report.forest(
        drift.assign(label=drift["outcome"].map(names) + ": " + drift["predictor"],
                     outcome_name=drift["outcome"].map(names)),
        estimate="change", low="change_ci_low", high="change_ci_high", label="label",
        group="outcome_name", reference=0.0, sort=False,
        xlabel="change from first to last turn (accuracy or F1)", simulated=ctx.simulated,
    )  # fmt: skip
    caption = ("Turn-drift slopes per predictor (logit, first to last turn) and the change they "
               "imply")  # fmt: skip
    return ctx.built(ctx.table("06_drift_slopes", drift, caption),
                     ctx.figure("06_drift_slopes", fig, note=posterior_note(drift)),
                     failed_fits=failed(fitted))  # fmt: skip
