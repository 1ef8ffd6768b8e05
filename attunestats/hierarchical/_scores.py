"""Reading :class:`attunestats.metrics.score.Scores` for the ``*_from_scores`` model constructors.

The tables of one kind (turn counts, comparisons, turn or conversation metrics) in one mode, the
design with a topic for every conversation, and the simulated flag.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.errors import AttunestatsWarning, warn

#: The topic of conversations whose ``metadata.category`` is missing.
NO_TOPIC = "(no topic)"


def scores_table(scores: Any, name: str, mode: str | None) -> pd.DataFrame:
    """``scores.<name>`` in one mode (``mode=None``: the only one there is)."""
    table = getattr(scores, name, None)
    if not isinstance(table, pd.DataFrame) or not hasattr(scores, "design"):
        raise TypeError(
            f"scores must be an attunestats Scores object (with .{name} and .design); "
            f"got {type(scores).__name__}"
        )
    if "mode" not in table.columns:
        return table
    modes = sorted(table["mode"].dropna().astype("str").unique())
    if mode is None:
        if len(modes) > 1:
            raise ValueError(f"scores.{name} has several modes {modes}: pass mode= to choose one")
        return table
    if mode not in modes:
        raise ValueError(f"mode {mode!r} not in scores.{name}; available: {modes}")
    return table[table["mode"] == mode]


def scores_design(scores: Any) -> pd.DataFrame:
    """``scores.design``; conversations without a topic are modelled as one topic,
    :data:`NO_TOPIC`, with a warning that counts them."""
    design = scores.design
    missing = design["topic"].isna()
    if missing.any():
        warn(
            f"{int(missing.sum())} of {len(design)} conversations have no topic "
            f"(metadata.category); the model treats them as one topic {NO_TOPIC!r}",
            AttunestatsWarning,
        )
        design = design.assign(topic=design["topic"].astype(object).where(~missing, NO_TOPIC))
    return design


def simulated(scores: Any) -> bool:
    info = getattr(scores, "release_info", None) or {}
    return bool(info.get("simulated", False))
