"""Display views of result objects: joins with predictor names and kinds, ordering, reshaping.

No statistic is computed here; these functions only arrange what the analysis modules return, so
notebooks stay thin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def predictor_info(scores: Any) -> pd.DataFrame:
    """predictor, kind, display_name (from ``scores.predictors``)."""
    info = scores.predictors[["predictor", "kind", "display_name"]].copy()
    return info.drop_duplicates("predictor")


def with_predictor_info(
    frame: pd.DataFrame, scores: Any, *, column: str = "predictor"
) -> pd.DataFrame:
    """Add ``kind`` and ``display_name`` of ``column`` to ``frame``."""
    info = predictor_info(scores).rename(columns={"predictor": column})
    if column != "predictor":
        info = info.rename(
            columns={"kind": f"kind_{column}", "display_name": f"display_name_{column}"}
        )
    return frame.merge(info, on=column, how="left")


def leaderboard(boot: Any, scores: Any, *, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Bootstrap table (estimate, interval, SE) of the chosen metrics with predictor info."""
    frame = boot.to_frame()
    if metrics is not None:
        order = {m: i for i, m in enumerate(metrics)}
        frame = frame[frame["metric"].isin(order)].copy()
        frame["_order"] = frame["metric"].map(order)
        frame = frame.sort_values(["_order", "estimate"], ascending=[True, False]).drop(
            columns="_order"
        )
    frame = with_predictor_info(frame, scores)
    front = [
        "metric",
        "predictor",
        "display_name",
        "kind",
        "mode",
        "estimate",
        "ci_low",
        "ci_high",
        "standard_error",
    ]
    return frame[front + [c for c in frame.columns if c not in front]].reset_index(drop=True)


def leaderboard_wide(board: pd.DataFrame, *, metrics: Sequence[str]) -> pd.DataFrame:
    """One row per predictor, one column per metric, ``estimate [low, high]`` as text (display)."""
    from attunestats.report.tables import round_half

    def cell(row: pd.Series) -> str:
        digits = 2 if abs(row["estimate"]) >= 10 else 3
        return (f"{round_half(row['estimate'], digits):.{digits}f} "
                f"[{round_half(row['ci_low'], digits):.{digits}f}, {round_half(row['ci_high'], digits):.{digits}f}]")  # fmt: skip

    sub = board[board["metric"].isin(list(metrics))].copy()
    sub["cell"] = sub.apply(cell, axis=1)
    wide = sub.pivot_table(
        index=["display_name", "kind", "mode"], columns="metric", values="cell", aggfunc="first"
    )
    wide = wide.reindex(columns=[m for m in metrics if m in wide.columns])
    first = metrics[0]
    order = sub[sub["metric"] == first].set_index(["display_name", "kind", "mode"])["estimate"]
    wide = wide.loc[order.sort_values(ascending=False).index]
    return wide.reset_index()


def difference_matrix(pairs: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Square matrices (row minus column) of paired differences and of significance flags."""
    sub = pairs[pairs["metric"] == metric]
    names = list(dict.fromkeys(list(sub["predictor_a"]) + list(sub["predictor_b"])))
    diff = pd.DataFrame(np.nan, index=names, columns=names)
    sig = pd.DataFrame(False, index=names, columns=names)
    for row in sub.itertuples(index=False):
        diff.loc[row.predictor_a, row.predictor_b] = row.difference
        diff.loc[row.predictor_b, row.predictor_a] = -row.difference
        sig.loc[row.predictor_a, row.predictor_b] = sig.loc[row.predictor_b, row.predictor_a] = (
            bool(row.significant)
        )
    return diff, sig
