"""A size listed twice in a power grid is one grid point: it gets the n_simulations asked for
(not twice as many) and the same numbers as the grid without the repeat."""

from __future__ import annotations

import pandas as pd

from attunestats.design.power import ContrastModel, independence_power_curve, power_curve


def test_repeated_sizes_are_one_grid_point():
    model = ContrastModel("paired", effect=0.3, sd=1.0, icc=0.1)
    once = power_curve(model, n_conversations=[40, 60], n_participants=[5], n_simulations=50,
                       rng=1)  # fmt: skip
    twice = power_curve(model, n_conversations=[40, 60, 40], n_participants=[5, 5],
                        n_simulations=50, rng=1)  # fmt: skip
    assert twice.table["n_simulations"].tolist() == [50, 50]
    pd.testing.assert_frame_equal(twice.table, once.table)


def test_repeated_conversation_counts_of_the_independence_curve_are_one_point():
    kw = {"skill_sd": [0.1] * 5, "noise_sd": [0.3] * 5, "correlations": [0.0],
          "n_simulations": 10, "n_permutations": 99, "rng": 1}  # fmt: skip
    once = independence_power_curve([30], **kw)
    twice = independence_power_curve([30, 30], **kw)
    assert twice.table["n_simulations"].tolist() == [10]
    pd.testing.assert_frame_equal(twice.table, once.table)
