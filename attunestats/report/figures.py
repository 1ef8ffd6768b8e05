"""Figures: one function per figure, one style, intervals always shown, simulated data marked.

Every function takes tidy results (DataFrames from the analysis modules) and returns a matplotlib
``Figure``; :func:`save_figure` writes PNG and PDF with fixed metadata (so rebuilding gives the same
bytes where the renderer allows). Every figure built from a simulated release carries the
:data:`~attunestats.constants.SIMULATED_LABEL` in its lower left corner.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: figures are files

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from attunestats.constants import SIMULATED_LABEL
from attunestats.report.views import _with_mode


def _show_figures_in_notebooks() -> None:
    """Under Agg, notebooks (and the docs built from them) show a Figure only as text: give
    IPython a PNG formatter for figures when running in a kernel."""
    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import print_figure
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "display_formatter"):
        png = shell.display_formatter.formatters["image/png"]
        png.for_type(Figure, lambda fig: print_figure(fig, "png", bbox_inches="tight"))


_show_figures_in_notebooks()

STYLE = Path(__file__).with_name("attunestats.mplstyle")
#: Written beside an estimate whose interval is missing (NaN), and in a heatmap cell's place of it.
NO_INTERVAL = "no interval"
COLUMN_WIDTH = 3.35  # inches, single column
PAGE_WIDTH = 6.9  # inches, two columns


@contextmanager
def style() -> Iterator[None]:
    """Context in which figures use the package style."""
    with plt.style.context(str(STYLE)):
        yield


def mark_simulated(fig: Figure, simulated: bool) -> Figure:
    """Stamp the simulated label below everything drawn on a figure of a simulated release.

    Call it last, once the figure is complete: the label is placed under the figure's tight
    bounding box (tick labels, axis labels and legends included), so it never overlaps them, and
    the tight box used when saving grows to include it.
    """
    if simulated:
        renderer = fig.canvas.get_renderer()
        box = fig.get_tightbbox(renderer)  # inches
        width, height = fig.get_size_inches()
        # figure-fraction coordinates: saving with a tight box re-maps transFigure, not inches
        fig.text(box.x0 / width, (box.y0 - 0.03) / height, SIMULATED_LABEL, fontsize=5.5,
                 color="#B22222", ha="left", va="top")  # fmt: skip
    return fig


#: File metadata of saved figures: no software version, no time stamp (byte-identical reruns).
_METADATA = {"png": {"Software": None},
             "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}  # fmt: skip


#: The notes of :func:`attunestats.report.tables.display_table` that a figure repeats: what
#: its intervals are and what they are about (not the significance marks of the table cells).
_NOTE_PREFIXES = ("Method:", "Estimand:", "Correction:", "Family:", "Intervals", "Unit:",
                  "Resamples:")  # fmt: skip


def figure_note(frame: pd.DataFrame | None = None, *, text: str = "") -> str:
    """The line that says which estimand and method a figure shows: the settings of ``frame``
    (the table the figure draws: its ``method``, ``estimand``, ``correction``, ``interval``,
    ``confidence_level`` ... columns, stated as the table's LaTeX caption states them), then
    ``text``."""
    from attunestats.report.tables import display_table

    parts = []
    if frame is not None and len(frame):
        parts = [n for n in display_table(frame, marks=False).notes if n.startswith(_NOTE_PREFIXES)]
    if text.strip():
        parts.append(text.strip() if text.strip().endswith(".") else text.strip() + ".")
    return " ".join(parts)


def add_note(fig: Figure, note: str) -> Figure:
    """Write ``note`` (estimand, method, interval level) under everything drawn on ``fig``, the
    simulated label included; wrapped to the figure's width. Call it last."""
    if not note.strip():
        raise ValueError("a figure note must say which estimand and method the figure shows")
    renderer = fig.canvas.get_renderer()
    box = fig.get_tightbbox(renderer)  # inches
    width, height = fig.get_size_inches()
    text = textwrap.fill(note.strip(), width=max(40, int(box.width * 24)))
    fig.text(box.x0 / width, (box.y0 - 0.03) / height, text, fontsize=5, color="0.3",
             ha="left", va="top")  # fmt: skip
    return fig


def save_figure(fig: Figure, name: str, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write ``<out_dir>/figures/<name>.png`` and ``.pdf``; close the figure; return the paths.

    Both are rendered into temporary siblings first and renamed only when both are complete
    (:func:`attunestats._io.write_files`): a failure while drawing leaves the files that were
    there as they were, and no half-written file.
    """
    from attunestats._io import write_files

    if not name or any(ch in name for ch in "/\\"):
        raise ValueError(f"figure name must be a plain file stem; got {name!r}")
    folder = Path(out_dir) / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    options = {"dpi": 300, "bbox_inches": "tight", "pad_inches": 0.03}

    def writer(fmt: str) -> Any:
        return lambda tmp: fig.savefig(tmp, format=fmt, metadata=_METADATA[fmt], **options)

    try:
        return write_files({folder / f"{name}.{fmt}": writer(fmt) for fmt in ("png", "pdf")},
                           what="figure")  # fmt: skip
    finally:
        plt.close(fig)


def _label(frame: pd.DataFrame) -> pd.Series:
    """Predictor labels, with the mode appended when it is not the default."""
    base = frame["display_name"] if "display_name" in frame.columns else frame["predictor"]
    return _with_mode(base, frame["mode"] if "mode" in frame.columns else None)


def interval_points(ax: Any, estimate: Any, y: Any, low: Any, high: Any, *, color: str,
                    label: str | None = None, hollow: bool = False, linewidth: float = 1.0,
                    markersize: float | None = None) -> Any:  # fmt: skip
    """Horizontal intervals from ``low`` to ``high`` and the estimates as points, one per ``y``.

    Not ``errorbar``'s ``xerr`` (offsets from the estimate, which must be >= 0): an estimate
    outside its interval (a posterior mean beside an equal-tailed interval, a bootstrap-t
    interval, an interval truncated at a bound) is drawn where it is, next to its interval as
    the table has it, instead of failing (matplotlib refuses negative offsets) or being clipped.
    Returns the points' ``ErrorbarContainer``.
    """
    est, yy = np.asarray(estimate, dtype=float), np.asarray(y, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    ax.hlines(yy, lo, hi, color=color, linewidth=linewidth)
    # a point without its interval would read as a certain value: say so beside it
    for x_, y_ in zip(est[np.isfinite(est) & ~(np.isfinite(lo) & np.isfinite(hi))],
                      yy[np.isfinite(est) & ~(np.isfinite(lo) & np.isfinite(hi))], strict=True):  # fmt: skip
        ax.annotate(NO_INTERVAL, (x_, y_), xytext=(4, 0), textcoords="offset points",
                    fontsize=5, color="0.35", va="center", ha="left")  # fmt: skip
    options = {} if markersize is None else {"markersize": markersize}
    return ax.errorbar(np.asarray(estimate, dtype=float), y, fmt="o", color=color,
                       mfc="white" if hollow else color, linestyle="none", label=label,
                       **options)  # fmt: skip


def forest_plot(
    frame: pd.DataFrame,
    *,
    estimate: str = "estimate",
    low: str = "ci_low",
    high: str = "ci_high",
    label: str | None = None,
    group: str | None = None,
    xlabel: str,
    title: str = "",
    simulated: bool,
    reference: float | None = None,
    sort: bool = True,
    width: float = COLUMN_WIDTH,
) -> Figure:
    """Point estimates with intervals, one row per label (e.g. predictors on one metric).

    ``group`` (e.g. ``"kind"``: model / human) colours the rows.
    """
    data = frame.copy()
    data["_label"] = data[label].astype(str) if label else _label(data)
    if sort:
        data = data.sort_values(estimate, ascending=True, kind="stable")
    n = len(data)
    with style():
        fig, ax = plt.subplots(figsize=(width, max(1.4, 0.22 * n + 0.7)))
        y = np.arange(n)
        groups = data[group].astype(str) if group else pd.Series(["all"] * n, index=data.index)
        for k, g in enumerate(dict.fromkeys(groups)):
            sel = (groups == g).to_numpy()
            interval_points(ax, data[estimate].to_numpy()[sel], y[sel], data[low].to_numpy()[sel],
                            data[high].to_numpy()[sel], color=f"C{k}",
                            label=g if group else None)  # fmt: skip
        if reference is not None:
            ax.axvline(reference, color="0.4", linewidth=0.6, linestyle="--")
        ax.set_yticks(y, data["_label"])
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)
        if title:
            ax.set_title(title)
        if group:
            ax.legend(loc="best")
        mark_simulated(fig, simulated)
    return fig


def heatmap(
    matrix: pd.DataFrame,
    *,
    low: pd.DataFrame | None = None,
    high: pd.DataFrame | None = None,
    colorbar_label: str,
    title: str = "",
    simulated: bool,
    vmin: float = -1.0,
    vmax: float = 1.0,
    cmap: str = "RdBu_r",
    width: float = COLUMN_WIDTH,
) -> Figure:
    """A square heatmap; with ``low``/``high`` each cell also prints its interval."""
    labels_x = [str(c) for c in matrix.columns]
    labels_y = [str(i) for i in matrix.index]
    n = max(len(labels_x), len(labels_y))
    with style():
        fig, ax = plt.subplots(figsize=(width, width * 0.85))
        im = ax.imshow(matrix.to_numpy(dtype=float), vmin=vmin, vmax=vmax, cmap=cmap)
        ax.set_xticks(range(len(labels_x)), labels_x, rotation=45, ha="right")
        ax.set_yticks(range(len(labels_y)), labels_y)
        ax.grid(False)
        size = 6 if n <= 5 else 4.5
        for i in range(matrix.shape[0]):
            for j in range(matrix.shape[1]):
                value = matrix.iat[i, j]
                if not np.isfinite(value):
                    continue
                text = f"{value:.2f}"
                if low is not None and high is not None and i != j:
                    lo, hi = float(low.iat[i, j]), float(high.iat[i, j])
                    ok = np.isfinite(lo) and np.isfinite(hi)
                    text += f"\n[{lo:.2f}, {hi:.2f}]" if ok else f"\n({NO_INTERVAL})"
                ax.text(
                    j, i, text, ha="center", va="center", fontsize=size,
                    color="white" if abs(value) > 0.6 * max(abs(vmin), abs(vmax)) else "black",
                )  # fmt: skip
        cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cbar.set_label(colorbar_label)
        if title:
            ax.set_title(title)
        mark_simulated(fig, simulated)
    return fig


def distributions(
    frame: pd.DataFrame,
    *,
    value: str = "value",
    by: str = "predictor",
    xlabel: str,
    title: str = "",
    simulated: bool,
    width: float = PAGE_WIDTH,
) -> Figure:
    """Box plots of conversation-level values per predictor, means marked.

    With a ``mode`` column, each prediction mode of a predictor is its own box
    (``name [verbose]``), never pooled with the default mode's conversations.
    """
    keys = frame[by].astype(str)
    if "mode" in frame.columns:
        mode = frame["mode"].astype(str)
        keys = keys.where(mode == "default", keys + " [" + mode + "]")
    frame = frame.assign(_box=keys)
    order = frame.groupby("_box")[value].mean().sort_values().index.tolist()
    data = [frame.loc[frame["_box"] == k, value].dropna().to_numpy() for k in order]
    with style():
        fig, ax = plt.subplots(figsize=(width, max(1.6, 0.22 * len(order) + 0.8)))
        ax.boxplot(
            data,
            orientation="horizontal",
            widths=0.6,
            showfliers=False,
            medianprops={"color": "C1"},
        )
        ax.plot([d.mean() if d.size else np.nan for d in data], np.arange(1, len(order) + 1), "D",
                color="C0", markersize=2.5, label="mean")  # fmt: skip
        ax.set_yticks(np.arange(1, len(order) + 1), [str(k) for k in order])
        ax.set_xlabel(xlabel)
        ax.legend(loc="lower right")
        ax.grid(axis="y", visible=False)
        if title:
            ax.set_title(title)
        mark_simulated(fig, simulated)
    return fig


def line_panels(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    low: str | None,
    high: str | None,
    series: str,
    panel: str | None = None,
    xlabel: str,
    ylabel: str,
    title: str = "",
    simulated: bool,
    xticks: Sequence[Any] | None = None,
    width: float = PAGE_WIDTH,
) -> Figure:
    """Lines with interval bands: one line per ``series``, one panel per ``panel`` value."""
    panels = list(dict.fromkeys(frame[panel])) if panel else [None]
    with style():
        fig, axes = plt.subplots(1, len(panels), figsize=(width, 2.3), sharey=False, squeeze=False)
        for ax, p in zip(axes[0], panels, strict=True):
            sub = frame if p is None else frame[frame[panel] == p]
            for k, (name, g) in enumerate(sub.groupby(series, sort=True)):
                g = g.sort_values(x)
                ax.plot(g[x], g[y], marker="o", color=f"C{k % 8}", label=str(name))
                if low and high:
                    ax.fill_between(
                        g[x], g[low], g[high], color=f"C{k % 8}", alpha=0.15, linewidth=0
                    )
            ax.set_xlabel(xlabel)
            if xticks is not None:
                ax.set_xticks(
                    range(len(xticks))
                    if not np.issubdtype(np.asarray(xticks).dtype, np.number)
                    else xticks
                )
            if p is not None:
                ax.set_title(str(p))
        axes[0][0].set_ylabel(ylabel)
        handles, labels = axes[0][0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="upper center", ncol=min(6, len(labels)),
                       bbox_to_anchor=(0.5, 1.08))  # fmt: skip
        if title:
            fig.suptitle(title, y=1.15)
        mark_simulated(fig, simulated)
    return fig


def panas_trajectories(
    frame: pd.DataFrame, *, simulated: bool, width: float = COLUMN_WIDTH
) -> Figure:
    """Pre -> post PANAS totals per diagnosis group (from :func:`attunestats.release.describe.panas_trajectories`)."""
    scales = list(dict.fromkeys(frame["scale"]))
    with style():
        fig, axes = plt.subplots(1, len(scales), figsize=(width, 2.0), sharey=True, squeeze=False)
        for ax, scale in zip(axes[0], scales, strict=True):
            sub = frame[frame["scale"] == scale]
            for k, (group, g) in enumerate(sub.groupby("diagnosis_group", sort=True)):
                g = g.set_index("time").loc[["pre", "post"]]
                x = np.array([0.0, 1.0]) + (k - 1.5) * 0.03
                err = np.vstack([g["mean"] - g["ci_low"], g["ci_high"] - g["mean"]])
                ax.errorbar(x, g["mean"], yerr=err, marker="o", color=f"C{k % 8}",
                            label=str(group).replace("_", "/"))  # fmt: skip
            ax.set_xticks([0, 1], ["pre", "post"])
            ax.set_xlim(-0.3, 1.3)
            ax.set_title(scale)
        axes[0][0].set_ylabel("PANAS total (10-70)")
        axes[0][-1].legend(loc="best", fontsize=5.5)
        mark_simulated(fig, simulated)
    return fig


def forest_panels(
    frame: pd.DataFrame,
    *,
    metrics: Sequence[str],
    xlabels: Sequence[str] | None = None,
    simulated: bool,
    group: str | None = "kind",
    width: float = PAGE_WIDTH,
) -> Figure:
    """One forest panel per metric (rows: predictors ordered by the first metric's estimate)."""
    data = frame[frame["metric"].isin(list(metrics))].copy()
    data["_label"] = _label(data)
    first = data[data["metric"] == metrics[0]].sort_values("estimate")
    order = list(first["_label"])
    n = len(order)
    with style():
        fig, axes = plt.subplots(1, len(metrics), figsize=(width, max(1.6, 0.2 * n + 0.9)),
                                 sharey=True, squeeze=False)  # fmt: skip
        groups = list(dict.fromkeys(data[group])) if group else ["all"]
        for j, (ax, metric) in enumerate(zip(axes[0], metrics, strict=True)):
            sub = data[data["metric"] == metric].set_index("_label").reindex(order)
            y = np.arange(n)
            for k, g in enumerate(groups):
                sel = (sub[group] == g).to_numpy() if group else np.ones(n, dtype=bool)
                interval_points(ax, sub["estimate"].to_numpy()[sel], y[sel],
                                sub["ci_low"].to_numpy()[sel], sub["ci_high"].to_numpy()[sel],
                                color=f"C{k}", label=str(g) if j == 0 else None)  # fmt: skip
            # wrapped to the panel's width (8 pt: about 15 characters an inch), so that the
            # labels of neighbouring panels never run into each other
            per_inch = max(8, int(15 * width / len(metrics)))
            ax.set_xlabel(textwrap.fill(xlabels[j] if xlabels else metric, per_inch))
            ax.grid(axis="y", visible=False)
        axes[0][0].set_yticks(np.arange(n), order)
        if group and len(groups) > 1:
            axes[0][0].legend(loc="lower right")
        mark_simulated(fig, simulated)
    return fig


def rank_intervals(
    ranks: pd.DataFrame, *, metric: str, simulated: bool, width: float = COLUMN_WIDTH
) -> Figure:
    """Rank (1 = best) per predictor with its marginal rank confidence set (thick) and the
    simultaneous one (thin), when the table has them (Mogstad et al. 2024)."""
    sub = ranks[ranks["metric"] == metric].sort_values("rank", ascending=False).copy()
    sub["_label"] = _label(sub)
    n = len(sub)
    with style():
        fig, ax = plt.subplots(figsize=(width, max(1.5, 0.22 * n + 0.7)))
        y = np.arange(n)
        if {"rank_sim_low", "rank_sim_high"} <= set(sub.columns):
            ax.hlines(y, sub["rank_sim_low"], sub["rank_sim_high"], color="C1", lw=1,
                      label="simultaneous (all ranks jointly)")  # fmt: skip
        ax.hlines(y, sub["rank_ci_low"], sub["rank_ci_high"], color="C0", lw=3,
                  label="marginal (each rank)")  # fmt: skip
        ax.plot(sub["rank"], y, "o", color="C0", ms=4)
        ax.set_yticks(y, sub["_label"])
        ax.set_xlim(0.5, n + 0.5)
        level = sub["confidence_level"].iloc[0] if "confidence_level" in sub else 0.95
        ax.set_xlabel(f"rank on {metric} (1 = best); {level:.0%} rank confidence sets")
        ax.invert_xaxis()
        ax.grid(axis="y", visible=False)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=6, frameon=False)
        mark_simulated(fig, simulated)
    return fig


def discrimination_plot(
    disc: pd.DataFrame, *, simulated: bool, width: float = COLUMN_WIDTH
) -> Figure:
    """Discrimination D (true between-predictor variance / noise) per metric, with intervals.

    Each interval is drawn from ``ci_low`` to ``ci_high`` as in the table, also when the
    estimate lies outside it (a negative D with the interval truncated at 0).
    """
    sub = disc.dropna(subset=["discrimination"]).sort_values("discrimination")
    n = len(sub)
    with style():
        fig, ax = plt.subplots(figsize=(width, max(1.5, 0.2 * n + 0.8)))
        y = np.arange(n)
        est = sub["discrimination"].to_numpy()
        # not errorbar's xerr clipped at 0: that drew [estimate, high] for an estimate below
        interval_points(ax, est, y, sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy(), color="C0")
        ax.axvline(0, color="0.4", linewidth=0.6, linestyle="--")
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(left=-1.0)
        ax.set_yticks(y, sub["metric"])
        ax.set_xlabel("discrimination D (signal variance / noise variance)")
        ax.grid(axis="y", visible=False)
        mark_simulated(fig, simulated)
    return fig


def difference_heatmap(
    diff: pd.DataFrame,
    significant: pd.DataFrame,
    *,
    metric: str,
    simulated: bool,
    width: float = COLUMN_WIDTH,
) -> Figure:
    """Paired differences (row minus column); significant cells (after correction) get a star."""
    limit = float(np.nanmax(np.abs(diff.to_numpy()))) if diff.notna().any().any() else 1.0
    with style():
        fig, ax = plt.subplots(figsize=(width, width * 0.9))
        im = ax.imshow(diff.to_numpy(dtype=float), cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_xticks(
            range(diff.shape[1]),
            [str(c) for c in diff.columns],
            rotation=60,
            ha="right",
            fontsize=5.5,
        )
        ax.set_yticks(range(diff.shape[0]), [str(i) for i in diff.index], fontsize=5.5)
        ax.grid(False)
        for i in range(diff.shape[0]):
            for j in range(diff.shape[1]):
                if significant.iat[i, j]:
                    ax.text(j, i, "*", ha="center", va="center", fontsize=7)
        cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cbar.set_label(f"difference in {metric} (row - column)")
        mark_simulated(fig, simulated)
    return fig


def phase_lines(
    table: pd.DataFrame,
    *,
    metrics: Sequence[str],
    labels: Sequence[str] | None = None,
    simulated: bool,
    width: float = PAGE_WIDTH,
) -> Figure:
    """Early / mid / late means per predictor (lines) with interval bars, one panel per metric.

    ``table`` is the tidy table of :func:`attunestats.inference.dynamics.phase_bootstrap`.
    """
    phases = ["early", "mid", "late"]
    data = table[table["phase"].isin(phases) & table["metric"].isin(list(metrics))].copy()
    if "mode" in data.columns:  # one line per predictor and mode ("model [verbose]")
        mode = data["mode"].astype(str)
        data["predictor"] = (
            data["predictor"]
            .astype(str)
            .where(mode == "default", data["predictor"].astype(str) + " [" + mode + "]")
        )
    predictors = sorted(data["predictor"].unique())
    with style():
        fig, axes = plt.subplots(1, len(metrics), figsize=(width, 2.2), squeeze=False)
        for j, (ax, metric) in enumerate(zip(axes[0], metrics, strict=True)):
            sub = data[data["metric"] == metric]
            for k, pred in enumerate(predictors):
                g = sub[sub["predictor"] == pred].set_index("phase").reindex(phases)
                x = np.arange(3) + (k - len(predictors) / 2) * 0.015
                err = np.vstack([g["estimate"] - g["ci_low"], g["ci_high"] - g["estimate"]])
                ax.errorbar(x, g["estimate"], yerr=err, marker="o", markersize=2, linewidth=0.7,
                            elinewidth=0.5, color=f"C{k % 8}", label=pred if j == 0 else None)  # fmt: skip
            ax.set_xticks(range(3), phases)
            ax.set_xlabel("turn position")
            ax.set_title(labels[j] if labels else metric)
        axes[0][0].set_ylabel("mean over conversations (0-1)")
        fig.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), ncol=1, fontsize=5.5)
        mark_simulated(fig, simulated)
    return fig
