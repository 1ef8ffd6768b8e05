"""Bad inputs of the analytic power functions are refused with a message naming the argument
and the value (never a silent number); numpy scalars are accepted like Python floats."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from attunestats.design.power import analytic_mde, analytic_power


@pytest.mark.parametrize("cv", [-0.5, math.nan, math.inf])
def test_cluster_cv_outside_its_range_is_refused(cv):
    with pytest.raises(ValueError, match=rf"cv must be a finite number >= 0; got {cv!r}"):
        analytic_power(0.3, sd=1.0, n_conversations=100, n_participants=10, icc=0.1, cv=cv)
    with pytest.raises(ValueError, match=r"cv must be a finite number >= 0"):
        analytic_mde(sd=1.0, n_conversations=100, n_participants=10, icc=0.1, cv=cv)


def test_sd_as_a_numpy_scalar_is_a_number_and_a_bool_is_not():
    # independent conversations: the one-sample t test on n values (statsmodels)
    expected = TTestPower().power(0.3 / 1.5, nobs=50, alpha=0.05)
    got = analytic_power(0.3, sd=np.float32(1.5), n_conversations=50, method="t")
    assert got == pytest.approx(expected, rel=1e-6)
    with pytest.raises(TypeError, match="sd must be a number; got True"):
        analytic_power(0.3, sd=True, n_conversations=50)
