"""A target power at or below the test's size (the power at effect 0) has no minimum
detectable effect: the MDE functions say so, naming power and alpha (not a root finder's
message). Reference for the valid case: statsmodels' TTestPower.solve_power."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.power import TTestPower

from attunestats.design.power import analytic_mde, minimum_detectable_effect, sample_size


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_power_not_above_alpha_is_refused_naming_both(alternative):
    msg = r"power must exceed alpha.*got power 0.04, alpha 0.05"
    with pytest.raises(ValueError, match=msg):
        analytic_mde(sd=1.0, n_conversations=50, n_participants=10, power=0.04,
                     alternative=alternative)  # fmt: skip
    with pytest.raises(ValueError, match=msg):
        minimum_detectable_effect(sd=1.0, n_participants=10, conversations_per_participant=5,
                                  power=0.04, alternative=alternative)  # fmt: skip
    with pytest.raises(ValueError, match=msg):
        sample_size(effect=0.1, sd=1.0, power=0.04, n_participants=[10],
                    conversations_per_participant=[5], alternative=alternative)  # fmt: skip


def test_power_just_above_alpha_is_solved():
    # participants' means with icc 0: sd / sqrt(m); one-sample t on 10 of them
    got = minimum_detectable_effect(sd=1.0, n_participants=10, conversations_per_participant=4,
                                    power=0.2)  # fmt: skip
    es = TTestPower().solve_power(None, nobs=10, alpha=0.05, power=0.2)
    assert got == pytest.approx(es / math.sqrt(4), rel=1e-6)
