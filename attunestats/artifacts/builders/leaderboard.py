"""Builders of notebook 02 (leaderboard): every metric with participant-level intervals (the
population of participants: delete-one-participant jackknife, t intervals), the composite and its
pillars, distributions, the sensitivity to disputed scoring conventions, and the conditional
analysis by name (these participants: conversation bootstrap).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.artifacts.context import ArtefactContext, Built
from attunestats.report import figures, views

PILLARS = ["composite_score", "emotion_tracking", "evaluation_quality", "holistic_comprehension"]
PILLAR_LABELS = ["composite (0-100)", "emotion tracking (0-1)", "evaluation quality (0-1)",
                 "holistic comprehension (0-1)"]  # fmt: skip


def inference(ctx: ArtefactContext) -> Any:
    """Participant-level inference of every metric (once per build; no randomness)."""
    from attunestats.inference.participants import infer_scores

    key = ("infer_scores", ctx.release.checksum)
    return ctx.memo(key, lambda: infer_scores(ctx.scores))


def bootstrap(ctx: ArtefactContext) -> Any:
    """The conversation bootstrap of every metric with this artefact's seed (once per build):
    the conditional analysis (these participants), reported by name only."""
    from attunestats.inference.bootstrap import bootstrap_scores

    n_resamples = ctx.setting("n_resamples")
    key = ("bootstrap_scores", ctx.release.checksum, ctx.seed, n_resamples)
    return ctx.memo(key, lambda: bootstrap_scores(ctx.scores, unit="conversation", n_resamples=n_resamples,
                                                  rng=ctx.seed))  # fmt: skip


def _board(ctx: ArtefactContext) -> pd.DataFrame:
    inf = inference(ctx)
    key = ("leaderboard", ctx.release.checksum)
    return ctx.memo(key, lambda: views.leaderboard(inf, ctx.scores))


ESTIMAND_NOTE = ("95% t intervals for the population of participants (delete-one-participant "
                 "jackknife, {n} participants)")  # fmt: skip


def all_metrics(ctx: ArtefactContext) -> Built:
    caption = ("Every metric per predictor: estimate, "
               + ESTIMAND_NOTE.format(n=inference(ctx).n_participants) + ", SE")  # fmt: skip
    return ctx.built(ctx.table("02_leaderboard_all_metrics", _board(ctx), caption))


def conditional(ctx: ArtefactContext) -> Built:
    boot = bootstrap(ctx)
    board = views.leaderboard(boot, ctx.scores)
    caption = ("Conditional analysis (these participants, conversations resampled, 95% BCa "
               "bootstrap): narrower than the default intervals, and not about new participants")  # fmt: skip
    return ctx.built(ctx.table("02_leaderboard_conditional", board, caption))


def metric_registry(ctx: ArtefactContext) -> Built:
    from attunestats.metrics.registry import metrics_frame

    # the registry is not data: never labelled simulated
    return ctx.built(ctx.table("02_metric_registry", metrics_frame(), "The metric registry",
                               simulated=False))  # fmt: skip


def pillars(ctx: ArtefactContext) -> Built:
    board = _board(ctx)
    wide = views.leaderboard_wide(board, metrics=PILLARS + ["equal_weight_composite"])
    fig = figures.forest_panels(board, metrics=PILLARS, xlabels=PILLAR_LABELS,
                                simulated=ctx.simulated)  # fmt: skip
    return ctx.built(
        ctx.table(
            "02_leaderboard_pillars",
            wide,
            "Composite and pillars, " + ESTIMAND_NOTE.format(n=inference(ctx).n_participants),
            digits=_wide_digits(wide),
        ),
        ctx.figure(
            "02_leaderboard_pillars",
            fig,
            note=figures.figure_note(
                board, text=ESTIMAND_NOTE.format(n=inference(ctx).n_participants)
            ),
        ),  # fmt: skip
    )


def main_metrics(ctx: ArtefactContext) -> Built:
    from attunestats.metrics.registry import MAIN_METRICS

    board = _board(ctx)
    present = set(board["metric"])
    main = views.leaderboard_wide(board, metrics=[m for m in MAIN_METRICS if m in present])
    caption = ("Main metrics (official names), "
               + ESTIMAND_NOTE.format(n=inference(ctx).n_participants))  # fmt: skip
    return ctx.built(ctx.table("02_leaderboard_main_metrics", main, caption,
                               digits=_wide_digits(main)))  # fmt: skip


def _wide_digits(wide: pd.DataFrame) -> dict[str, int]:
    """LaTeX digits of a wide leaderboard: 2 for 0-100 scores (composites), else 3."""
    numeric = wide.select_dtypes("number")
    return {c: 2 if numeric[c].abs().max() >= 10 else 3 for c in numeric.columns}


def predictor_summary_official(ctx: ArtefactContext) -> Built:
    caption = "Predictor-level values as the official scorer aggregates them (means, SE)"
    # its SE is not the leaderboard's (population of participants): say which it is
    table = ctx.scores.predictor.assign(
        method="the official scorer's aggregation: mean over conversations, SE = SD / sqrt(n) "
        "(NaN for pooled metrics and composite_z)",
        estimand="these conversations, treated as independent (no participant clustering; "
        "the leaderboard's intervals are for the population of participants)",
    )
    return ctx.built(ctx.table("02_predictor_summary_official", table, caption))


def composite_distributions(ctx: ArtefactContext) -> Built:
    scores = ctx.scores
    conv = scores.conversation[scores.conversation["metric"] == "composite_score"]
    conv = views.with_predictor_info(conv, scores)
    fig = figures.distributions(conv, by="display_name", xlabel="conversation composite (0-100)",
                                simulated=ctx.simulated)  # fmt: skip
    note = ("Descriptive: each predictor's conversation composites (box: quartiles; whiskers: "
            "1.5 IQR, outliers not drawn; diamond: mean); no inference")  # fmt: skip
    return ctx.built(ctx.figure("02_composite_distributions", fig,
                                note=figures.figure_note(text=note)))  # fmt: skip


def convention_sensitivity(ctx: ArtefactContext) -> Built:
    from attunestats.metrics.sensitivity import convention_sensitivity as sensitivity

    sens = ctx.memo(("convention_sensitivity", ctx.release.checksum),
                    lambda: sensitivity(ctx.release))  # fmt: skip
    caption = "Change in each composite when one scoring convention is switched"
    return ctx.built(ctx.table("02_convention_sensitivity", sens.table, caption))
