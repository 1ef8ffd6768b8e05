"""Figure of simulated power curves (:mod:`attunestats.design.power`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_power_curves"]


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
