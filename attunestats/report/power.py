"""Figures of :mod:`attunestats.design.power`: simulated power curves, required sample sizes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attunestats.design.power import SampleSizeResult

__all__ = ["plot_power_curves", "plot_sample_size"]


def plot_power_curves(
    frame: pd.DataFrame,
    *,
    simulated: bool,
    effect: float | None = None,
    target: float = 0.8,
) -> Figure:
    """Power against the number of conversations and against the number of participants.

    ``frame`` is :meth:`PowerResult.to_frame` (columns ``n_conversations, n_participants,
    power, ci_low, ci_high``, optionally ``analytic_z`` and ``effect``). Left: power against
    conversations, one line per participant count; right (when several participant counts):
    power against participants, one line per conversation count. Simulated power is drawn as
    points with their Monte Carlo intervals, the design-effect approximation (``analytic_z``)
    as dashed lines; a dotted line marks ``target``. With several effects in ``frame``, the
    figure shows ``effect`` (default: the smallest).
    """
    import matplotlib.pyplot as plt

    from attunestats.report.figures import PAGE_WIDTH, mark_simulated, style

    needed = {"n_conversations", "n_participants", "power", "ci_low", "ci_high"}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass PowerResult.to_frame()")
    data = frame
    label = ""
    if "effect" in data.columns and data["effect"].nunique() > 1:
        chosen = float(data["effect"].min()) if effect is None else float(effect)
        data = data[np.isclose(data["effect"], chosen)]
        if data.empty:
            raise ValueError(f"effect {effect!r} is not in frame")
        label = f"effect {chosen:g}"
    elif "effect" in data.columns and data["effect"].notna().any():
        label = f"effect {float(data['effect'].iloc[0]):.3g}"
    parts = sorted(data["n_participants"].unique())
    convs = sorted(data["n_conversations"].unique())
    two = len(parts) > 1
    with style():
        fig, axes = plt.subplots(1, 2 if two else 1, figsize=(PAGE_WIDTH, 2.6) if two
                                 else (PAGE_WIDTH / 2, 2.6), squeeze=False)  # fmt: skip
        panels = [("n_conversations", "n_participants", "conversations", "participants")]
        if two:
            panels.append(("n_participants", "n_conversations", "participants", "conversations"))
        cmap = plt.get_cmap("viridis")
        for ax, (xcol, hue, xname, huename) in zip(axes[0], panels, strict=True):
            levels = sorted(data[hue].unique())
            for i, level in enumerate(levels):
                sub = data[data[hue] == level].sort_values(xcol)
                colour = cmap(i / max(1, len(levels) - 1) * 0.85)
                name = "independent" if level < 0 else f"{level:g} {huename}"
                x = sub[xcol].to_numpy(float)
                y = sub["power"].to_numpy(float)
                err = np.vstack([y - sub["ci_low"].to_numpy(float),
                                 sub["ci_high"].to_numpy(float) - y])  # fmt: skip
                ax.errorbar(x, y, yerr=err, fmt="o-", ms=3, lw=1, color=colour, capsize=2,
                            label=name)  # fmt: skip
                if "analytic_z" in sub.columns and sub["analytic_z"].notna().any():
                    ax.plot(x, sub["analytic_z"].to_numpy(float), "--", lw=0.9, color=colour)
            ax.axhline(target, ls=":", lw=0.8, color="0.4")
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(f"number of {xname}")
            ax.set_ylabel("power")
            ax.legend(fontsize=6, frameon=False, loc="lower right")
            if len(convs if xcol == "n_conversations" else parts) > 1:
                ax.set_xscale("log")
        title = "simulated power (points, Monte Carlo 95% CI); design-effect approximation dashed"
        fig.suptitle(title + (f"; {label}" if label else ""), fontsize=7)
        fig.tight_layout()
    return mark_simulated(fig, simulated)


def plot_sample_size(
    result: SampleSizeResult,
    *,
    n_participants: Sequence[int] | None = None,
    conversations_per_participant: Sequence[int] | None = None,
) -> Figure:
    """Power against the number of participants and against conversations per participant.

    ``result`` is a :class:`~attunestats.design.power.SampleSizeResult`
    (:func:`~attunestats.design.power.sample_size`). Left: power against participants, one line
    per number of conversations each; right: power against conversations per participant, one
    line per number of participants, with the cap of infinitely many conversations dashed. A
    dotted line marks the target power; the participants needed are marked on the left panel.
    Grids default to 2-60 participants and 1-60 conversations each; the lines are the
    noncentral ``t`` power of :meth:`SampleSizeResult.power_grid`.
    """
    import matplotlib.pyplot as plt

    from attunestats.report.figures import PAGE_WIDTH, mark_simulated, style

    frame = result.to_frame()
    ms = sorted({int(m) for m in frame.loc[frame["solve_for"] == "participants",
                                            "conversations_per_participant"]})  # fmt: skip
    ps = sorted({int(p) for p in frame.loc[frame["solve_for"] == "conversations",
                                            "n_participants"]})  # fmt: skip
    low = 3 if result.design == "between" else 2
    p_grid = list(n_participants) if n_participants is not None else list(range(low, 61))
    m_grid = (list(conversations_per_participant) if conversations_per_participant is not None
              else list(range(1, 61)))  # fmt: skip
    needed = frame[frame["solve_for"] == "participants"].set_index("conversations_per_participant")
    p_grid = sorted(set(p_grid) | {int(p) for p in needed["n_participants"] if p <= max(p_grid)})
    left = result.power_grid(p_grid, ms or [18])
    right = result.power_grid(ps or [11], m_grid)
    caps = frame[frame["solve_for"] == "conversations"].set_index("n_participants")["max_power"]
    with style():
        fig, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 2.6))
        cmap = plt.get_cmap("viridis")
        for i, m in enumerate(ms or [18]):
            sub = left[left["conversations_per_participant"] == m]
            colour = cmap(i / max(1, len(ms) - 1) * 0.85)
            axes[0].plot(sub["n_participants"], sub["power"], "-", lw=1, color=colour,
                         label=f"{m} conversations each")  # fmt: skip
            if m in needed.index:
                p_need = int(needed.loc[m, "n_participants"])
                if p_need <= max(p_grid):
                    axes[0].plot([p_need], [float(sub.loc[sub["n_participants"] == p_need,
                                                          "power"].iloc[0])],
                                 "o", ms=3, color=colour)  # fmt: skip
        for i, p in enumerate(ps or [11]):
            sub = right[right["n_participants"] == p]
            colour = cmap(i / max(1, len(ps) - 1) * 0.85)
            axes[1].plot(sub["conversations_per_participant"], sub["power"], "-", lw=1,
                         color=colour, label=f"{p} participants")  # fmt: skip
            if p in caps.index and result.icc > 0:
                axes[1].axhline(float(caps.loc[p]), ls="--", lw=0.7, color=colour)
        for ax, xname in zip(axes, ("number of participants", "conversations per participant"),
                             strict=True):  # fmt: skip
            ax.axhline(result.target_power, ls=":", lw=0.8, color="0.4")
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(xname)
            ax.set_ylabel("power")
        axes[0].legend(fontsize=6, frameon=False, loc="lower right")
        axes[1].legend(fontsize=6, frameon=False, loc="center right")
        what = result.label or result.design
        fig.suptitle(
            f"power of the participant-level t test: {what}, effect {result.effect:.3g}, "
            f"sd {result.sd:.3g}, ICC {result.icc:.2g}; dots: participants needed; dashed: cap "
            "with unlimited conversations",
            fontsize=6.5,
        )
        fig.tight_layout()
    return mark_simulated(fig, result.simulated)
