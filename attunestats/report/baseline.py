"""Figures of the human-baseline analysis (:mod:`attunestats.baseline`, notebook 07).

Each function takes a result or table of :mod:`attunestats.baseline` and returns a matplotlib
``Figure`` drawn with :mod:`attunestats.report.figures` (package style, intervals shown, simulated
data marked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from attunestats.metrics.registry import METRICS
from attunestats.report.figures import PAGE_WIDTH, forest_plot, mark_simulated, style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attunestats.baseline import ClaimFResult

__all__ = [
    "plot_claim_f",
    "plot_humans_vs_models",
    "plot_rater_agreement",
    "plot_rater_vs_participant",
]


def plot_rater_agreement(frame: pd.DataFrame, *, simulated: bool, title: str = "") -> Figure:
    """Krippendorff's alpha among the raters per annotation type, with intervals.

    ``frame`` is :meth:`RaterAgreementResult.to_frame` (or the ``rater_agreement`` table).
    """
    data = frame.loc[frame["alpha"].notna()].iloc[::-1].reset_index(drop=True)
    return forest_plot(
        data, estimate="alpha", label="annotation", xlabel="Krippendorff's alpha among raters",
        title=title, simulated=simulated, reference=0.0, sort=False,
    )  # fmt: skip


def plot_rater_vs_participant(summary: pd.DataFrame, *, simulated: bool, title: str = "") -> Figure:
    """Rater-rater minus rater-participant alpha per annotation type (paired intervals).

    ``summary`` is :attr:`ParticipantAgreementResult.by_annotation` (the
    ``rater_vs_participant_summary`` table of :func:`~attunestats.baseline.baseline_tables`).
    Right of 0: the raters agree with each other more than with the participants.
    """
    data = summary.loc[summary["difference"].notna()].iloc[::-1].reset_index(drop=True)
    return forest_plot(
        data, estimate="difference", label="annotation",
        xlabel="alpha(rater-rater) - alpha(rater-participant)", title=title,
        simulated=simulated, reference=0.0, sort=False,
    )  # fmt: skip


def _unit_scale(metric: str) -> bool:
    spec = METRICS.get(metric)
    return spec is not None and max(abs(spec.range[0]), abs(spec.range[1])) <= 1.0


def plot_humans_vs_models(
    frame: pd.DataFrame,
    *,
    simulated: bool,
    metric: str | None = None,
    metrics: Sequence[str] | None = None,
    title: str = "",
) -> Figure:
    """Humans minus models with paired intervals.

    Without ``metric``: ``frame`` is :attr:`HumansVsModelsResult.by_metric` and each row is a
    metric (mean of humans minus mean of models; by default the metrics on a 0-1 or -1-1 scale,
    ``metrics`` to choose). With ``metric``: ``frame`` is
    :attr:`HumansVsModelsResult.comparisons` and each row is a model (mean of humans minus that
    model), plus the mean of the models.
    """
    if metric is None:
        data = frame
        if metrics is not None:
            data = data.loc[data["metric"].isin(list(metrics))]
        else:
            data = data.loc[[_unit_scale(m) for m in data["metric"]]]
        data = data.assign(group=data["pillar"].fillna("composite").astype(str))
        data = data.iloc[::-1].reset_index(drop=True)
        fig = forest_plot(
            data, estimate="difference", label="metric", group="group",
            xlabel="mean of humans - mean of models", title=title, simulated=simulated,
            reference=0.0, sort=False,
        )  # fmt: skip
        return _legend_outside(fig)
    sel = (frame["metric"] == metric) & frame["comparison"].isin(
        ["human_mean - model", "human_mean - model_mean"]
    )
    data = frame.loc[sel].copy()
    if data.empty:
        raise ValueError(f"metric {metric!r} has no human_mean comparisons in frame")
    data["outcome"] = np.select(
        [data["human_better"], data["human_worse"]],
        ["humans better", "humans worse"],
        default="not significant",
    )
    fig = forest_plot(
        data, estimate="difference", label="model", group="outcome",
        xlabel=f"{metric}: mean of humans - model", title=title, simulated=simulated,
        reference=0.0, sort=True,
    )  # fmt: skip
    return _legend_outside(fig)


def _legend_outside(fig: Figure) -> Figure:
    """Move the legend of a one-axes figure to the right of the axes (never over the points)."""
    ax = fig.axes[0]
    if ax.get_legend() is not None:
        with style():
            ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    return fig


def plot_claim_f(result: ClaimFResult, *, width: float | None = None) -> Figure:
    """Two panels: mean of humans minus each model on the preference and on the goal metric."""
    import matplotlib.pyplot as plt  # after report.figures chose the headless backend

    panels = [result.preference_metric, result.goal_metric]
    comp = result.comparisons
    with style():
        fig, axes = plt.subplots(
            1, 2, figsize=(width or PAGE_WIDTH, max(1.8, 0.2 * (result.n_models + 1) + 1.0)),
            squeeze=False, layout="constrained",
        )  # fmt: skip
        for ax, metric in zip(axes[0], panels, strict=True):
            sub = comp.loc[
                (comp["metric"] == metric)
                & comp["comparison"].isin(["human_mean - model", "human_mean - model_mean"])
            ].sort_values("difference", kind="stable")
            y = np.arange(len(sub))
            est = sub["difference"].to_numpy(dtype=float)
            err = np.vstack(
                [est - sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float) - est]
            )
            colour = np.where(sub["human_better"], "C0", np.where(sub["human_worse"], "C3", "0.5"))
            for k in range(len(sub)):
                ax.errorbar(est[k], y[k], xerr=err[:, k : k + 1], fmt="o", color=colour[k])
            ax.axvline(0.0, color="0.4", linewidth=0.6, linestyle="--")
            ax.set_yticks(y, sub["model"].astype(str).tolist())
            ax.set_xlabel(f"{metric}: humans - model")
            ax.grid(axis="y", visible=False)
        fig.suptitle(f"claim (f): {result.verdict} ({result.correction} correction)")
        mark_simulated(fig, result.simulated)
    return fig
