"""sample_size given a ContrastModel and a different design= must say so (the model's effect, sd
and ICC describe its own design), not silently solve the model's design instead."""

from __future__ import annotations

import pytest
from statsmodels.stats.power import TTestPower

from attunestats.design.power import ContrastModel, sample_size


def test_a_design_other_than_the_models_is_refused():
    model = ContrastModel("paired", effect=0.05, sd=0.15, icc=0.1)
    with pytest.raises(ValueError, match=r"design='between' differs from the model's design "
                       r"'paired'"):  # fmt: skip
        sample_size(model, design="between", conversations_per_participant=[18],
                    n_participants=[11])  # fmt: skip


def test_the_models_own_design_is_accepted():
    model = ContrastModel("paired", effect=0.05, sd=0.15, icc=0.1)
    res = sample_size(model, design="paired", conversations_per_participant=[18],
                      n_participants=[11])  # fmt: skip
    p = res.to_frame().query("solve_for == 'participants'")["n_participants"].iloc[0]
    es = 0.05 / (0.15 * (0.1 + 0.9 / 18) ** 0.5)
    assert TTestPower().power(es, p, 0.05) >= 0.8 > TTestPower().power(es, p - 1, 0.05)
