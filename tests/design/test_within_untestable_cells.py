"""A within-participant contrast cannot be tested where the conversations cannot vary within
participants (fewer than n_participants + 2 conversations: the fixed-effects slope has no
degrees of freedom). Such grid cells are left out with a warning naming them, like cells with
fewer conversations than participants, never reported as power 0 with a tight interval."""

from __future__ import annotations

import pytest

from attunestats.design.power import ContrastModel, power_curve
from attunestats.errors import AttunestatsWarning


def test_untestable_within_cells_are_left_out_and_named():
    model = ContrastModel("within", effect=0.5, sd=1.0, icc=0.3)
    with pytest.warns(AttunestatsWarning, match=r"left out 2 of 3 grid cells.*\(10 conversations, "
                      r"10 participants\), \(11 conversations, 10 participants\)"):  # fmt: skip
        res = power_curve(model, n_conversations=[10, 11, 40], n_participants=[10],
                          n_simulations=50, rng=1)  # fmt: skip
    assert res.table["n_conversations"].tolist() == [40]


def test_no_testable_within_cell_is_an_error():
    model = ContrastModel("within", effect=0.5, sd=1.0, icc=0.3)
    with pytest.raises(ValueError, match=r"no grid point has n_conversations >= n_participants "
                       r"\+ 2"):  # fmt: skip
        power_curve(model, n_conversations=[10], n_participants=[10], n_simulations=50)
