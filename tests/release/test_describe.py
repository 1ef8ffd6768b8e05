"""Descriptive tables of a release (attunestats.release.describe) on hand-made releases.

Expected values are computed by hand (or with scipy.stats.t) from the documents below.
"""

from __future__ import annotations

import math
import warnings

import pytest
from scipy import stats

from attunestats.release.describe import panas_trajectories
from attunestats.release.load import release_from_documents


def _release():
    docs = {}
    for cid, (pre, post) in {"5": (20, 30), "6": (30, 34), "7": (40, 41)}.items():
        docs[f"conversation_{cid}.json"] = {
            "participant_profile": {"participant_id": f"p{cid}", "traits": []},
            "prePanas": {"totalPositiveAffect": pre, "totalNegativeAffect": 15},
            "postPanas": {"totalPositiveAffect": post, "totalNegativeAffect": 15},
            "turns": [{"turnNumber": 1}],
        }
    runs = {"m": {"m/r.json": {"conversationId": "5", "em_model": "m", "turns": []}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return release_from_documents(docs, runs)


def test_panas_trajectory_interval_by_hand():
    t = panas_trajectories(_release(), confidence_level=0.9)
    row = t[(t["diagnosis_group"] == "all") & (t["scale"] == "positive affect")
            & (t["time"] == "pre")].iloc[0]  # fmt: skip
    # pre PA 20, 30, 40: mean 30, SD 10, n 3 -> 30 +- t(0.95, 2) * 10 / sqrt(3)
    half = stats.t.ppf(0.95, 2) * 10 / math.sqrt(3)
    assert row["n"] == 3 and row["mean"] == 30
    assert row["ci_low"] == pytest.approx(30 - half) and row["ci_high"] == pytest.approx(30 + half)


@pytest.mark.parametrize("bad", [95, 0, 1, -0.5, float("nan")])
def test_panas_trajectories_rejects_a_confidence_level_outside_0_1(bad):
    with pytest.raises(ValueError, match="confidence_level must be in"):
        panas_trajectories(_release(), confidence_level=bad)


@pytest.mark.parametrize("bad", ["0.95", True, None])
def test_panas_trajectories_rejects_a_confidence_level_that_is_no_number(bad):
    with pytest.raises(TypeError, match="confidence_level must be a number"):
        panas_trajectories(_release(), confidence_level=bad)
