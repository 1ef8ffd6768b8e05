"""Figures of the hierarchical models' results (notebooks 05 and 06): stamped when a fit failed.

Every function takes the tidy tables of :mod:`attunestats.hierarchical` (which carry a
``diagnostics`` column, ``"passed"`` or ``"diagnostics failed"``, on every row) and returns a
matplotlib ``Figure``. Rows from a fit that failed the diagnostics gate are drawn hollow and
labelled ``[diagnostics failed]``, and the figure carries a red ``DIAGNOSTICS FAILED`` line naming
the outcomes above everything drawn (:func:`stamp_failed`); simulated data are marked as in
:mod:`attunestats.report.figures`. No statistic is computed here.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from attunestats.report.figures import (
    COLUMN_WIDTH,
    PAGE_WIDTH,
    interval_points,
    mark_simulated,
    style,
)

#: Value of the ``diagnostics`` column of rows built from a failed fit (as in
#: :data:`attunestats.hierarchical.summaries.FAILED`, not imported: report does not import the
#: statistics modules).
FAILED = "diagnostics failed"
STAMP = "DIAGNOSTICS FAILED"


def failed_outcomes(frame: pd.DataFrame) -> list[str]:
    """Outcomes whose rows in ``frame`` come from a fit that failed the gate."""
    if "diagnostics" not in frame.columns:
        return []
    bad = frame["diagnostics"].astype(str) == FAILED
    if not bad.any():
        return []
    if "outcome" in frame.columns:
        return sorted(set(frame.loc[bad, "outcome"].astype(str)))
    return ["(unnamed)"]


def stamp_failed(fig: Figure, outcomes: Sequence[str]) -> Figure:
    """Write ``DIAGNOSTICS FAILED: <outcomes>`` in red above everything drawn on ``fig``.

    Call it once the figure is complete (before or after :func:`mark_simulated`): the line is
    placed above the figure's tight bounding box, so it never hides data.
    """
    if not outcomes:
        return fig
    renderer = fig.canvas.get_renderer()
    box = fig.get_tightbbox(renderer)
    width, height = fig.get_size_inches()
    text = f"{STAMP}: " + "; ".join(outcomes) + " (MCMC did not pass the gate; see fit diagnostics)"
    fig.text(box.x0 / width, (box.y1 + 0.04) / height, text, fontsize=6, color="#B22222",
             fontweight="bold", ha="left", va="bottom", wrap=True)  # fmt: skip
    return fig


def forest(
    frame: pd.DataFrame,
    *,
    estimate: str,
    low: str,
    high: str,
    label: str,
    xlabel: str,
    simulated: bool,
    group: str | None = None,
    reference: float | None = None,
    sort: bool = True,
    title: str = "",
    width: float = COLUMN_WIDTH,
) -> Figure:
    """Estimates with intervals, one row per ``label``; rows of failed fits hollow and labelled,
    the figure stamped (:func:`stamp_failed`). ``group`` colours the rows."""
    data = frame.copy()
    failed = (
        data["diagnostics"].astype(str) == FAILED
        if "diagnostics" in data.columns
        else pd.Series(False, index=data.index)
    )
    data["_label"] = (
        data[label].astype(str).where(~failed, data[label].astype(str) + f" [{FAILED}]")
    )
    data["_failed"] = failed.to_numpy()
    if sort:
        data = data.sort_values(estimate, ascending=True, kind="stable")
    n = len(data)
    with style():
        fig, ax = plt.subplots(figsize=(width, max(1.4, 0.22 * n + 0.7)))
        y = np.arange(n)
        groups = data[group].astype(str) if group else pd.Series(["all"] * n, index=data.index)
        for k, g in enumerate(dict.fromkeys(groups)):
            labelled = False  # one legend entry per group, hollow (failed) markers or not
            for bad in (False, True):
                sel = ((groups == g) & (data["_failed"] == bad)).to_numpy()
                if not sel.any():
                    continue
                interval_points(ax, data[estimate].to_numpy()[sel], y[sel],
                                data[low].to_numpy()[sel], data[high].to_numpy()[sel],
                                color=f"C{k}", hollow=bad,
                                label=g if (group and not labelled) else None)  # fmt: skip
                labelled = True
        if reference is not None:
            ax.axvline(reference, color="0.4", linewidth=0.6, linestyle="--")
        ax.set_yticks(y, data["_label"])
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)
        if title:
            ax.set_title(title)
        if group:
            ax.legend(loc="best")
        stamp_failed(fig, failed_outcomes(frame))
        mark_simulated(fig, simulated)
    return fig


def ppc_plot(ppc: pd.DataFrame, *, simulated: bool, names: dict[str, str] | None = None) -> Figure:
    """Posterior predictive checks: the observed statistic against its replicated distribution,
    standardised (``(observed - replicated mean) / replicated sd``), with the 94% replicated
    range; one panel per outcome. Statistics outside the range are drawn red."""
    names = names or {}
    outcomes = list(dict.fromkeys(ppc["outcome"].astype(str)))
    rows = ppc.groupby("outcome", sort=False).size().max()
    with style():
        fig, axes = plt.subplots(1, len(outcomes), figsize=(PAGE_WIDTH, max(1.6, 0.2 * rows + 0.8)),
                                 squeeze=False)  # fmt: skip
        for ax, out in zip(axes[0], outcomes):
            sub = ppc[ppc["outcome"].astype(str) == out]
            sd = sub["replicated_sd"].to_numpy()
            sd = np.where(sd > 0, sd, np.nan)
            z = (sub["observed"].to_numpy() - sub["replicated_mean"].to_numpy()) / sd
            lo = (sub["ci_low"].to_numpy() - sub["replicated_mean"].to_numpy()) / sd
            hi = (sub["ci_high"].to_numpy() - sub["replicated_mean"].to_numpy()) / sd
            y = np.arange(len(sub))
            outside = (z < lo) | (z > hi)
            ax.hlines(y, lo, hi, color="0.6", linewidth=2.5)
            ax.plot(z[~outside], y[~outside], "o", color="C0", markersize=3)
            ax.plot(z[outside], y[outside], "o", color="#B22222", markersize=3)
            labels = (sub["statistic"].astype(str) + " (" + sub["group"].astype(str) + ")").tolist()
            ax.set_yticks(y, labels, fontsize=5)
            ax.axvline(0, color="0.4", linewidth=0.6, linestyle="--")
            ax.set_title(names.get(out, out), fontsize=7)
            level = (f"{float(sub['ci_prob'].iloc[0]):.0%}" if "ci_prob" in sub.columns
                     and sub["ci_prob"].nunique() == 1 else "the table's")  # fmt: skip
            ax.set_xlabel(f"observed, in replicated sd\n(grey: {level} replicated range)",
                          fontsize=6)  # fmt: skip
            ax.grid(axis="y", visible=False)
        fig.tight_layout()
        stamp_failed(fig, failed_outcomes(ppc))
        mark_simulated(fig, simulated)
    return fig


def loo_plot(
    compare: pd.DataFrame, *, simulated: bool, names: dict[str, str] | None = None
) -> Figure:
    """PSIS-LOO comparison of model structures: ``elpd_diff`` (elpd minus the best structure's,
    0 or negative) of each outcome with its standard error (``dse``), one panel per outcome."""
    names = names or {}
    outcomes = list(dict.fromkeys(compare["outcome"].astype(str)))
    with style():
        fig, axes = plt.subplots(1, len(outcomes), figsize=(PAGE_WIDTH, 1.8), squeeze=False)
        for ax, out in zip(axes[0], outcomes):
            sub = compare[compare["outcome"].astype(str) == out]
            y = np.arange(len(sub))
            d = sub["elpd_diff"].to_numpy()  # elpd - elpd of the best: 0 or negative
            se = sub["dse"].fillna(0).to_numpy()
            ax.errorbar(d, y, xerr=se, fmt="o", color="C0", elinewidth=1.0)
            ax.set_yticks(y, sub["structure"].astype(str).tolist(), fontsize=5)
            ax.axvline(0, color="0.4", linewidth=0.6, linestyle="--")
            ax.set_title(names.get(out, out), fontsize=7)
            ax.set_xlabel("elpd difference from best (LOO)\nbars: +-1 SE of the difference",
                          fontsize=6)  # fmt: skip
            ax.grid(axis="y", visible=False)
        fig.tight_layout()
        stamp_failed(fig, failed_outcomes(compare))
        mark_simulated(fig, simulated)
    return fig


def coverage_plot(summary: pd.DataFrame, *, band: tuple[float, float], nominal: float) -> Figure:
    """Recovery study: coverage of each family of quantities per scenario and structure, with
    Monte Carlo intervals and the target band shaded. Always simulated."""
    families = list(dict.fromkeys(summary["family"].astype(str)))
    structures = list(dict.fromkeys(summary["structure"].astype(str)))
    scenarios = list(dict.fromkeys(summary["scenario"].astype(str)))
    with style():
        fig, axes = plt.subplots(1, len(families), figsize=(PAGE_WIDTH, 0.25 * len(scenarios) + 1.2),
                                 sharey=True, squeeze=False)  # fmt: skip
        for ax, fam in zip(axes[0], families):
            ax.axvspan(*band, color="0.9")
            ax.axvline(nominal, color="0.4", linewidth=0.6, linestyle="--")
            for k, st in enumerate(structures):
                sub = summary[(summary["family"] == fam) & (summary["structure"] == st)]
                sub = sub.set_index("scenario").reindex(scenarios)
                y = np.arange(len(scenarios)) + (k - (len(structures) - 1) / 2) * 0.2
                c = sub["coverage"].to_numpy()
                err = np.vstack([c - sub["mc_low"].to_numpy(), sub["mc_high"].to_numpy() - c])
                ax.errorbar(c, y, xerr=err, fmt="o", color=f"C{k}", markersize=3, elinewidth=0.8,
                            label=st)  # fmt: skip
            ax.set_yticks(np.arange(len(scenarios)), scenarios, fontsize=6)
            ax.set_title(fam, fontsize=7)
            ax.set_xlabel("coverage", fontsize=6)
            ax.set_xlim(min(0.0, float(np.nanmin(summary["mc_low"])) - 0.02), 1.01)
            ax.grid(axis="y", visible=False)
        axes[0][0].legend(fontsize=5, loc="lower left")
        fig.tight_layout()
        mark_simulated(fig, True)
    return fig
