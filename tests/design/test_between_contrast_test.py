"""The simulated test of a between-participant contrast (power_curve, design='between') with
unequal groups of participants, against exact t theory and an independent simulation.

With equal cluster sizes the participant means of the clustered normal model are i.i.d. normal
within a group with a common variance, so the two-sample t test on them (pooled variance,
``P - 2`` df) is exact: its size is alpha and its power the noncentral t of
:func:`analytic_power` at every allocation. The independent reference here draws participant
means directly and tests them with :func:`scipy.stats.ttest_ind`.

Groups are whole participants: with ``allocation * P`` not a whole number (0.3 x 12 = 3.6) the
simulation splits them ``round(allocation * P)`` (4 and 8), and the analytic column beside it
must describe that split.

Monte Carlo tolerances: 4 binomial standard errors of the simulated rate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from attunestats.design.power import ContrastModel, power_curve


def _se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-4) / n)


def _independent_rate(effect, sd, icc, g1, g0, m, n_sim, seed):
    # participant means: effect * x + u + mean of m errors; pooled two-sample t (scipy)
    rng = np.random.default_rng(seed)
    tau = sd * math.sqrt(icc + (1 - icc) / m)
    a = rng.normal(effect, tau, (n_sim, g1))
    b = rng.normal(0.0, tau, (n_sim, g0))
    return float(np.mean(stats.ttest_ind(a, b, axis=1).pvalue < 0.05))


@pytest.mark.parametrize(("p", "allocation"), [(10, 0.2), (12, 0.25), (12, 0.3)])
def test_between_test_holds_its_size_and_has_the_exact_power_with_unequal_groups(p, allocation):
    sd, icc, m, n_sim = 1.0, 0.3, 5, 4000
    model = ContrastModel("between", effect=0.0, sd=sd, icc=icc, allocation=allocation)
    res = power_curve(model, n_conversations=p * m, n_participants=p, n_simulations=n_sim,
                      effects=[0.0, 0.8], rng=1)  # fmt: skip
    g1 = round(allocation * p)
    for row in res.table.itertuples():
        # exact theory (noncentral t, P - 2 df) checked against an independent simulation
        ref = _independent_rate(row.effect, sd, icc, g1, p - g1, m, 40000, seed=7)
        assert abs(ref - row.analytic_t) < 4 * _se(row.analytic_t, 40000)
        assert abs(row.power - row.analytic_t) < 4 * _se(row.analytic_t, n_sim), row
