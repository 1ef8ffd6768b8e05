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
    """One row per predictor; per metric three numeric columns, ``<metric>``, ``<metric>_ci_low``
    and ``<metric>_ci_high`` (full precision: the LaTeX table shows them as ``estimate [low,
    high]``); rows in decreasing order of the first metric.

    Examples
    --------
    >>> board = pd.DataFrame({"display_name": ["A", "B", "A", "B"], "kind": "model",
    ...     "mode": "default", "metric": ["m1", "m1", "m2", "m2"],
    ...     "estimate": [0.2, 0.5, 10.0, 20.0], "ci_low": [0.1, 0.4, 9.0, 18.0],
    ...     "ci_high": [0.3, 0.6, 11.0, 22.0]})
    >>> wide = leaderboard_wide(board, metrics=["m1", "m2"])
    >>> list(wide.columns[3:])
    ['m1', 'm1_ci_low', 'm1_ci_high', 'm2', 'm2_ci_low', 'm2_ci_high']
    >>> wide[["display_name", "m1", "m2", "m2_ci_high"]]
      display_name   m1    m2  m2_ci_high
    0            B  0.5  20.0        22.0
    1            A  0.2  10.0        11.0
    """
    keys = ["display_name", "kind", "mode"]
    sub = board[board["metric"].isin(list(metrics))]
    present = [m for m in metrics if m in set(sub["metric"])]
    wide = sub.pivot_table(index=keys, columns="metric", values=["estimate", "ci_low", "ci_high"],
                           aggfunc="first", dropna=False)  # fmt: skip
    out = pd.DataFrame(index=wide.index)
    for m in present:
        out[m] = wide[("estimate", m)]
        out[f"{m}_ci_low"] = wide[("ci_low", m)]
        out[f"{m}_ci_high"] = wide[("ci_high", m)]
    if present:  # rows in decreasing order of the first metric
        out = out.sort_values(present[0], ascending=False, kind="stable")
    return out.reset_index()


def _with_mode(predictor: pd.Series, mode: pd.Series | None) -> pd.Series:
    """``predictor``, with `` [mode]`` appended when the mode is not the default."""
    names = predictor.astype(str)
    if mode is None:
        return names
    mode = mode.astype(str)
    return names.where(mode == "default", names + " [" + mode + "]")


def difference_matrix(pairs: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Square matrices (row minus column) of paired differences and of significance flags.

    A predictor in several prediction modes (``mode_a``/``mode_b`` not ``"default"``) has one
    row and column per mode, labelled ``predictor [mode]``.
    """
    sub = pairs[pairs["metric"] == metric]
    a = _with_mode(sub["predictor_a"], sub["mode_a"] if "mode_a" in sub.columns else None)
    b = _with_mode(sub["predictor_b"], sub["mode_b"] if "mode_b" in sub.columns else None)
    names = list(dict.fromkeys(list(a) + list(b)))
    diff = pd.DataFrame(np.nan, index=names, columns=names)
    sig = pd.DataFrame(False, index=names, columns=names)
    for x, y, d, s in zip(a, b, sub["difference"], sub["significant"], strict=True):
        diff.loc[x, y] = d
        diff.loc[y, x] = -d
        sig.loc[x, y] = sig.loc[y, x] = bool(s)
    return diff, sig
