"""The Monte Carlo summaries refuse a confidence level (or alpha) outside (0, 1), naming it,
instead of returning NaN or [0, 1] intervals; valid levels give the Wilson interval (by hand)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.design.power import summarise_power
from attunestats.design.studies import summarise_coverage


def _coverage_frame():
    return pd.DataFrame({"replicate": np.arange(40), "kind": "mean",
                         "covered": np.arange(40) % 5 > 0})  # fmt: skip


def _power_frame():
    return pd.DataFrame({"n_conversations": 10, "n_participants": 5,
                         "reject": np.arange(20) % 4 == 0})  # fmt: skip


@pytest.mark.parametrize("level", [95, 0.0, 1.0, -0.5, math.nan])
def test_bad_confidence_level_is_refused(level):
    with pytest.raises(ValueError, match=rf"confidence_level must lie in \(0, 1\); got {level!r}"):
        summarise_coverage(_coverage_frame(), confidence_level=level)
    with pytest.raises(ValueError, match=rf"confidence_level must lie in \(0, 1\); got {level!r}"):
        summarise_power(_power_frame(), confidence_level=level)


def test_bad_alpha_is_refused():
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\); got 5"):
        summarise_power(_power_frame(), alpha=5)


def test_valid_level_gives_the_wilson_interval():
    # 5 of 20 rejections, 90%: Wilson score interval by hand
    z = stats.norm.ppf(0.95)
    p, n = 0.25, 20
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    row = summarise_power(_power_frame(), confidence_level=0.9).iloc[0]
    assert row["ci_low"] == pytest.approx(centre - half, rel=1e-12)
    assert row["ci_high"] == pytest.approx(centre + half, rel=1e-12)


def test_unknown_alternative_is_refused():
    # cluster-t rows: a misspelt alternative was silently read as 'less'
    frame = pd.DataFrame({"n_conversations": 10, "n_participants": 5, "dataset": range(4),
                          "estimate0": [0.5, -0.2, 0.1, 0.3], "standard_error": 0.1,
                          "df": 4.0, "effect": np.nan, "pvalue": np.nan})  # fmt: skip
    with pytest.raises(ValueError, match=r"alternative must be one of .*got 'two_sided'"):
        summarise_power(frame, effects=[0.0], alternative="two_sided")
    # the two-sided t test by hand: |t| = 5, 2, 1, 3 on 4 df against t_{0.975, 4} = 2.776
    got = summarise_power(frame, effects=[0.0], alternative="two-sided")
    assert got["n_reject"].tolist() == [2]
