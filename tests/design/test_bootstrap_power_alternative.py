"""Simulated power of the cluster bootstrap (power_curve, test='bootstrap') for one-sided
alternatives, against the normal-theory power of the one-sided test.

With 100 clusters of 2 the cluster bootstrap is the z test with the cluster-robust SE, so its
power for ``alternative='greater'`` is ``Phi(ncp - z_{1 - alpha})`` (computed by hand here from
the design effect 1 + (m - 1) ICC), clearly above the two-sided ``Phi(ncp - z_{1 - alpha/2})``.
Tolerance: 4 binomial Monte Carlo standard errors.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats

from attunestats.design.power import ContrastModel, power_curve


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_bootstrap_power_is_the_one_sided_power(alternative):
    sd, icc, n, p, n_sim = 1.0, 0.3, 200, 100, 800
    se = sd * math.sqrt((1 + (n / p - 1) * icc) / n)
    effect = 1.8 * se if alternative == "greater" else -1.8 * se
    one_sided = float(stats.norm.cdf(1.8 - stats.norm.ppf(0.95)))  # 0.58
    two_sided = float(stats.norm.cdf(1.8 - stats.norm.ppf(0.975)))  # 0.44
    model = ContrastModel("paired", effect=effect, sd=sd, icc=icc)
    res = power_curve(model, n_conversations=n, n_participants=p, n_simulations=n_sim,
                      test="bootstrap", n_resamples=499, rng=5, alternative=alternative)  # fmt: skip
    row = res.table.iloc[0]
    mc = math.sqrt(one_sided * (1 - one_sided) / n_sim)
    assert abs(row["power"] - one_sided) < 4 * mc, (row["power"], one_sided, two_sided)
    assert row["analytic_z"] == pytest.approx(one_sided, rel=1e-9)
