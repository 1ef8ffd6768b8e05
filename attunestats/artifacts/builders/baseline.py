"""Builders of notebook 07 (human baseline and agreement).

Agreement among the human baseline raters on every annotation type, raters against the
participants, humans against models on the units each rater rated (common ground), claim (f);
all from one call of :func:`attunestats.baseline.baseline_tables`. Intervals are for the
population of participants: the participant bootstrap-t for the agreement tables (rater
agreement, raters vs participants), the delete-one-participant jackknife with t intervals for
humans vs models and claim (f). A release with fewer than two human raters has none of these
outputs (``NotApplicable``: skipped, with the reason, in the manifest).
"""

from __future__ import annotations

import pandas as pd

from attunestats import baseline as B
from attunestats.artifacts.context import ArtefactContext, Built, Table
from attunestats.report import baseline as plots
from attunestats.report.figures import figure_note

CAPTIONS = {
    "rater_agreement": "Krippendorff's alpha among the human raters per annotation type "
    "(participant bootstrap-t interval)",
    "rater_vs_participant": "Each rater against each other rater and against the participants",
    "rater_vs_participant_summary": "Rater-rater minus rater-participant alpha (paired intervals)",
    "humans_vs_models": "Humans minus models per metric on each rater's common ground "
    "(participant jackknife, Holm over models; intervals agree with the adjusted tests)",
    "humans_vs_models_summary": "Mean of humans minus mean of models; models beaten after "
    "correction",
    "claim_f": "Claim (f): human baseline beats models on preferences, weak on goals",
}


def tables(ctx: ArtefactContext) -> dict[str, pd.DataFrame]:
    """Every table of the human-baseline analysis with this artefact's seed (once per build)."""
    agreement, n_resamples = ctx.setting("agreement_resamples"), ctx.setting("n_resamples")
    key = ("baseline_tables", ctx.release.checksum, ctx.seed, agreement, n_resamples, "holm")
    return ctx.memo(key, lambda: B.baseline_tables(
        ctx.release, ctx.scores, correction="holm", agreement_resamples=agreement,
        n_resamples=n_resamples, rng=ctx.seed))  # fmt: skip


def _table(ctx: ArtefactContext, name: str) -> Table:
    return ctx.table(f"07_{name}", tables(ctx)[name], CAPTIONS[name])


def rater_agreement(ctx: ArtefactContext) -> Built:
    table = tables(ctx)["rater_agreement"]
    fig = plots.plot_rater_agreement(table, simulated=ctx.simulated)
    return ctx.built(_table(ctx, "rater_agreement"),
                     ctx.figure("07_rater_agreement", fig, note=figure_note(table)))  # fmt: skip


def rater_vs_participant(ctx: ArtefactContext) -> Built:
    summary = tables(ctx)["rater_vs_participant_summary"]
    fig = plots.plot_rater_vs_participant(summary, simulated=ctx.simulated)
    return ctx.built(_table(ctx, "rater_vs_participant"),
                     _table(ctx, "rater_vs_participant_summary"),
                     ctx.figure("07_rater_vs_participant", fig, note=figure_note(summary)))  # fmt: skip


def humans_vs_models(ctx: ArtefactContext) -> Built:
    summary = tables(ctx)["humans_vs_models_summary"]
    fig = plots.plot_humans_vs_models(summary, simulated=ctx.simulated)
    return ctx.built(_table(ctx, "humans_vs_models"), _table(ctx, "humans_vs_models_summary"),
                     ctx.figure("07_humans_vs_models", fig, note=figure_note(summary)))  # fmt: skip


def claim_f(ctx: ArtefactContext) -> Built:
    return ctx.built(_table(ctx, "claim_f"))
