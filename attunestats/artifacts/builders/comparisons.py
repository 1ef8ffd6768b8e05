"""Builders of notebook 03 (model comparisons): paired differences with simultaneous (max-|t|)
intervals within each metric, marginal and simultaneous rank confidence sets, and how well each
metric discriminates between predictors (claim (b) as a test). Population of participants
(participant jackknife, t).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.artifacts.builders.leaderboard import inference
from attunestats.artifacts.context import ArtefactContext, Built
from attunestats.report import figures, views


def comparison(ctx: ArtefactContext) -> Any:
    """``compare_models`` on the participant inference with this artefact's seed (for the
    max-|t| draws; once per build)."""
    from attunestats.inference.compare import compare_models

    inf = inference(ctx)
    key = ("compare_models", ctx.release.checksum, ctx.seed, "maxt")
    return ctx.memo(key, lambda: compare_models(inf, correction="maxt", family="metric",
                                                rng=ctx.seed))  # fmt: skip


def _main_discrimination(ctx: ArtefactContext) -> pd.DataFrame:
    from attunestats.metrics.registry import MAIN_METRICS

    disc = discrimination_table(ctx)
    return disc[disc["metric"].isin(MAIN_METRICS)]


def paired_differences(ctx: ArtefactContext) -> Built:
    caption = ("Paired differences (a - b): 95% simultaneous max-|t| intervals and adjusted "
               "p-values within each metric, effect sizes (composite points, standardized); "
               "population of participants")  # fmt: skip
    return ctx.built(ctx.table("03_paired_differences", comparison(ctx).pairs, caption))


def paired_differences_composite(ctx: ArtefactContext) -> Built:
    cmp = comparison(ctx)
    diff, sig = views.difference_matrix(cmp.pairs, "composite_score")
    fig = figures.difference_heatmap(diff, sig, metric="composite", simulated=ctx.simulated)
    shown = cmp.pairs[cmp.pairs["metric"] == "composite_score"]
    note = figures.figure_note(shown, text=f"*: adjusted p < {1 - cmp.confidence_level:g}")
    return ctx.built(ctx.figure("03_paired_differences_composite", fig, note=note))


def _with_settings(frame: pd.DataFrame, *, method: str, estimand: str) -> pd.DataFrame:
    """``frame`` with ``method`` and ``estimand`` columns (the LaTeX states them once in the
    caption), which the rank and discrimination tables of ``compare_models`` lack."""
    return frame.assign(method=method, estimand=estimand)


def ranks_table(ctx: ArtefactContext) -> pd.DataFrame:
    """The rank table with the method (pair differences, rank sets) and the estimand."""
    cmp = comparison(ctx)
    method = (f"{cmp.method}; rank confidence sets from max-|t| intervals of the pair "
              "differences (marginal: the pairs of each predictor; simultaneous: all pairs; "
              "Mogstad, Romano, Shaikh and Wilhelm 2024)")  # fmt: skip
    return _with_settings(cmp.ranks, method=method, estimand=cmp.estimand)


def discrimination_table(ctx: ArtefactContext) -> pd.DataFrame:
    """The discrimination table with the method (noncentral-F interval on the participant
    noise df) and the estimand."""
    cmp = comparison(ctx)
    method = (f"D = between-predictor variance / noise variance - 1 from {cmp.method}; "
              "noncentral-F interval (noise df: participants - 1); distinguishable pairs: "
              f"adjusted p < {1 - cmp.confidence_level:g} ({cmp.correction})")  # fmt: skip
    return _with_settings(cmp.discrimination, method=method, estimand=cmp.estimand)


def rank_intervals(ctx: ArtefactContext) -> Built:
    caption = "Ranks with 95% marginal and simultaneous rank confidence sets"
    return ctx.built(ctx.table("03_rank_intervals", ranks_table(ctx), caption))


def rank_intervals_composite(ctx: ArtefactContext) -> Built:
    ranks = ranks_table(ctx)
    fig = figures.rank_intervals(ranks, metric="composite_score", simulated=ctx.simulated)
    note = figures.figure_note(ranks[ranks["metric"] == "composite_score"])
    return ctx.built(ctx.figure("03_rank_intervals_composite", fig, note=note))


def discrimination(ctx: ArtefactContext) -> Built:
    disc = discrimination_table(ctx).sort_values("discrimination", ascending=False)
    caption = ("Discrimination per metric: D with noncentral-F interval, share of "
               "distinguishable pairs")  # fmt: skip
    main = _main_discrimination(ctx)
    fig = figures.discrimination_plot(main, simulated=ctx.simulated)
    return ctx.built(ctx.table("03_discrimination", disc, caption),
                     ctx.figure("03_discrimination", fig, note=figures.figure_note(main)))  # fmt: skip


def discrimination_contrasts(ctx: ArtefactContext) -> Built:
    cmp = comparison(ctx)
    contrasts = pd.concat([
        cmp.discrimination_contrast(a, b).to_frame()
        for a in ("avg_pairwise_accuracy", "avg_pairwise_kendall_tau")
        for b in ("avg_emotion_f1",)
    ], ignore_index=True)  # fmt: skip
    caption = ("Do preference metrics discriminate more than emotion F1? (D difference, "
               "conservative interval)")  # fmt: skip
    return ctx.built(ctx.table("03_discrimination_contrasts", contrasts, caption))
