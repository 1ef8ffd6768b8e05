"""Descriptive tables of a release: participants, topics, diagnosis groups, PANAS trajectories.

These are counts and means for orientation (notebook 01); inferential statements live in the
bootstrap, comparison and hierarchical modules.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from attunestats.release.model import Release


def participants_table(release: Release) -> pd.DataFrame:
    """One row per participant: diagnosis group, conversations, turns, topics."""
    conv = release.conversations
    agg = conv.groupby("participant_id", sort=True).agg(
        n_conversations=("conversation_id", "size"),
        n_turns=("n_turns", "sum"),
        mean_turns=("n_turns", "mean"),
        n_topics=("topic", "nunique"),
    )
    part = release.participants.set_index("participant_id")[["diagnosis_group", "age"]]
    return part.join(agg, how="left").reset_index()


def topics_table(release: Release) -> pd.DataFrame:
    """One row per topic: conversations, participants, turns; most frequent first."""
    conv = release.conversations
    out = conv.groupby("topic", sort=True, dropna=False).agg(
        n_conversations=("conversation_id", "size"),
        n_participants=("participant_id", "nunique"),
        n_turns=("n_turns", "sum"),
    )
    return out.sort_values(
        ["n_conversations", "n_turns"], ascending=False, kind="stable"
    ).reset_index()


def diagnosis_table(release: Release) -> pd.DataFrame:
    """One row per diagnosis group: participants, conversations, turns."""
    conv = release.conversations
    out = conv.groupby("diagnosis_group", sort=True).agg(
        n_participants=("participant_id", "nunique"),
        n_conversations=("conversation_id", "size"),
        n_turns=("n_turns", "sum"),
    )
    return out.reset_index()


def turn_length_table(release: Release) -> pd.DataFrame:
    """Distribution of the number of turns per conversation."""
    counts = release.conversations["n_turns"].value_counts().sort_index()
    return pd.DataFrame({"n_turns": counts.index.astype(int), "n_conversations": counts.to_numpy()})


def panas_trajectories(release: Release, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """Mean pre- and post-conversation PANAS totals per diagnosis group, with t intervals.

    Intervals treat conversations as independent (descriptive only: conversations of one
    participant are correlated, so they are too narrow when participants differ).

    Raises
    ------
    TypeError, ValueError
        If ``confidence_level`` is not a number strictly between 0 and 1.
    """
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, int | float):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    conv = release.conversations
    rows = []
    groups = [("all", conv)] + [(g, sub) for g, sub in conv.groupby("diagnosis_group", sort=True)]
    for group, sub in groups:
        for scale, (pre, post) in {"positive affect": ("pre_pa", "post_pa"),
                                   "negative affect": ("pre_na", "post_na")}.items():  # fmt: skip
            for time, col in (("pre", pre), ("post", post)):
                x = sub[col].dropna().to_numpy(dtype=float)
                n = x.size
                mean = float(x.mean()) if n else np.nan
                if n > 1:
                    half = (
                        stats.t.ppf(0.5 + confidence_level / 2, n - 1) * x.std(ddof=1) / np.sqrt(n)
                    )
                else:
                    half = np.nan
                rows.append((group, scale, time, n, mean, mean - half, mean + half))
    return pd.DataFrame(
        rows, columns=["diagnosis_group", "scale", "time", "n", "mean", "ci_low", "ci_high"]
    )
