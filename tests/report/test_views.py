"""Display views: the matrix of paired differences behind the composite heatmap."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attunestats.report.views import difference_matrix


def test_a_predictor_in_two_modes_gets_a_row_per_mode():
    """Hand-built pairs of a release with verbose runs: m1 (default), m1 (verbose), m2. Before,
    both m1 rows were written into one cell 'm1' (the last pair won, silently)."""
    pairs = pd.DataFrame({
        "metric": "composite_score",
        "predictor_a": ["m1", "m1", "m1"], "mode_a": ["default", "default", "verbose"],
        "predictor_b": ["m1", "m2", "m2"], "mode_b": ["verbose", "default", "default"],
        "difference": [1.0, 2.0, 3.0], "significant": [False, True, False],
    })  # fmt: skip
    diff, sig = difference_matrix(pairs, "composite_score")
    assert list(diff.index) == ["m1", "m1 [verbose]", "m2"] == list(diff.columns)
    assert diff.loc["m1", "m2"] == 2.0 and diff.loc["m1 [verbose]", "m2"] == 3.0
    assert diff.loc["m2", "m1 [verbose]"] == -3.0 and diff.loc["m1", "m1 [verbose]"] == 1.0
    assert sig.loc["m2", "m1"] and not sig.loc["m2", "m1 [verbose]"]
    assert np.isnan(diff.loc["m2", "m2"])
