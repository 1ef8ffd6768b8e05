"""The ``overdispersion`` term (beta-binomial cells) against independent references.

- the pointwise log-likelihood (input of PSIS-LOO) against scipy's ``betabinom.logpmf``;
- posterior predictive draws against the beta-binomial mean and variance in closed form;
- PSIS-LOO prefers the term on a panel with logit-normal cell noise (extra-binomial variation
  that is *not* drawn from the beta-binomial), and its posterior is near 0 without noise.
(The kernel's density and gradient equal PyMC's ``BetaBinomial`` in ``test_kernel.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from attunestats import hierarchical as H
from attunestats.hierarchical.layout import constrained, kernel_args
from attunestats.hierarchical.synthetic import simulate_panel

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]
SMALL = dict(n_predictors=3, n_conversations=40, n_participants=8, n_topics=5, trials=12)


def _model(**kw):
    pan = simulate_panel(rng=11, **SMALL, **kw)
    return pan, H.behaviour_model(pan.data, pan.design, structure="default + overdispersion")


def _params(model, n=4, seed=0):
    _, ndim = kernel_args(model)
    Q = np.random.default_rng(seed).normal(scale=0.5, size=(n, ndim))
    return constrained(model, Q)


def test_log_likelihood_is_scipy_betabinom():
    _, m = _model()
    params = _params(m)
    cells = m.cells()
    eta = m.linear_predictor(params)[:, cells["m"], cells["r"]]
    phi = 1.0 / params["overdispersion"][:, None] ** 2
    mu = special.expit(eta)
    want = stats.betabinom.logpmf(cells["successes"], cells["trials"], mu * phi, (1 - mu) * phi)
    np.testing.assert_allclose(m.log_likelihood(params), want, rtol=1e-9, atol=1e-9)


def test_predictive_draws_have_the_beta_binomial_moments():
    _, m = _model()
    params = _params(m, n=1, seed=3)
    params["overdispersion"] = np.array([0.6])  # phi = 2.78: strong overdispersion
    rep_params = {k: np.repeat(v, 4000, axis=0) for k, v in params.items()}
    rep = m.simulate_outcomes(rep_params, np.random.default_rng(1))  # (4000, M, rows)
    cells = m.cells()
    y = rep[:, cells["m"], cells["r"]][:, :60].astype(float)
    n = cells["trials"][:60]
    mu = special.expit(m.linear_predictor(params)[0, cells["m"], cells["r"]][:60])
    phi = 1 / 0.6**2
    mean = n * mu
    var = n * mu * (1 - mu) * (n + phi) / (1 + phi)
    # standardised by the closed-form moments, pooled over 60 cells x 4,000 draws: mean 0 and
    # variance 1 (standard errors about 0.002 and 0.01); the binomial's variance would give a
    # pooled variance of (n + phi) / (1 + phi), about 3.9
    z = (y - mean) / np.sqrt(var)
    assert abs(z.mean()) < 0.01
    assert abs((z**2).mean() - 1.0) < 0.04
    assert np.all(np.abs(y.mean(0) - mean) < 5 * np.sqrt(var / 4000))


def test_loo_prefers_the_term_on_logit_normal_cell_noise():
    fits = {}
    pan, _ = _model(cell_noise_sd=1.0)
    for label, structure in (("overdispersion", "default"),
                             ("binomial", "default - overdispersion")):  # fmt: skip
        model = H.behaviour_model(pan.data, pan.design, structure=structure)
        fits[label] = H.fit(model, draws=300, tune=300, chains=2, rng=5)
    table = H.compare_structures(fits, n_draws=300).set_index("structure")
    assert table["rank"].idxmin() == "overdispersion"
    assert -table.loc["binomial", "elpd_diff"] > 2 * table.loc["binomial", "dse"]
    # logit-normal sd 1 at these means is an intra-cell correlation of about 0.15, i.e. an
    # overdispersion sqrt(rho / (1 - rho)) of about 0.4: the posterior median is well above 0
    od = np.median(fits["overdispersion"].idata["posterior"]["overdispersion"].values)
    assert 0.3 < od < 0.55


def test_term_shrinks_towards_the_binomial_without_noise():
    _, m = _model()
    f = H.fit(m, draws=300, tune=300, chains=2, rng=6)
    od = f.idata["posterior"]["overdispersion"].values.ravel()
    # binomial data: the posterior piles up near 0 (its prior median is 0.34)
    assert np.median(od) < 0.15
    assert np.quantile(od, 0.9) < 0.3


def test_term_left_out_with_one_trial_per_cell():
    pan = simulate_panel(rng=2, **{**SMALL, "trials": 1})
    m = H.behaviour_model(pan.data, pan.design, structure="default + overdispersion")
    assert m.spec.has("overdispersion") and not m.has_overdispersion
    from attunestats.hierarchical.layout import blocks

    assert "overdispersion" not in [b.name for b in blocks(m)]


def _decimal_loglik(eta: float, phi: float, s: int, n: int) -> float:
    """Beta-binomial log-likelihood (no binomial coefficient) in 60-digit decimal arithmetic:
    ``sum_{j<s} log(a + j) + sum_{j<n-s} log(b + j) - sum_{j<n} log(phi + j)``."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        e, p = Decimal(eta), Decimal(phi)
        mu = 1 / (1 + (-e).exp())
        a, b = p * mu, p * (1 - mu)
        out = sum((a + j).ln() for j in range(s)) + sum((b + j).ln() for j in range(n - s))
        out -= sum((p + j).ln() for j in range(n))
        return float(out)


@pytest.mark.parametrize("eta", [-60.0, -38.0, -25.0, -3.0, 0.0, 2.5, 25.0, 38.0, 60.0])
@pytest.mark.parametrize("s,n", [(9, 9), (0, 9), (4, 9), (1, 1), (0, 0)])
def test_log_likelihood_keeps_its_tails(eta, s, n):
    """Far in the tails (a cell answered right every time, eta large) the log-likelihood is a
    tiny negative number that still depends on eta: computed as R(a, n) - R(phi, n) it is
    exactly 0 for every draw once ``a`` rounds to ``phi``, and PSIS-LOO then stops ("All tail
    values are the same"). Reference: 60-digit decimal arithmetic."""
    from attunestats.hierarchical.model import _betabinom_kernel

    phi = 20.0
    got = float(_betabinom_kernel(np.array([[eta]]), np.array([[phi]]), np.array([s]),
                                  np.array([n]))[0, 0])  # fmt: skip
    want = _decimal_loglik(eta, phi, s, n)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-300)
