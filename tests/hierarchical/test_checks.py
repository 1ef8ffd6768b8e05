"""Model checks: PSIS-LOO of structures, ArviZ-format predictive data, the PPC statistics of the
interaction terms, and the stamping of failed fits in tables and figures.

Independent references: ArviZ's ``loo`` (against the package's vectorised PSIS-LOO) on
synthetic log-likelihoods, a hand-built log-likelihood (scipy's beta-binomial
log-pmf at the posterior draws), and synthetic panels drawn with and without planted predictor x
participant interactions (the structure LOO must prefer is the one the data were drawn from).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import special, stats

from attunestats import hierarchical as H
from attunestats.hierarchical import summaries as S
from attunestats.hierarchical.synthetic import simulate_panel
from attunestats.report import hierarchical as RH

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]
SMALL = dict(n_predictors=4, n_conversations=48, n_participants=10, n_topics=6, trials=12)


@pytest.fixture(scope="module")
def interaction_fits():
    """A panel with strong predictor x participant interactions, fitted with the default and
    the issue-6 structures."""
    pan = simulate_panel(rng=31, participant_interaction_sd=0.6, **SMALL)
    out = {}
    for label, structure in (("default", "default"), ("legacy", "legacy")):
        m = H.behaviour_model(pan.data, pan.design, structure=structure)
        out[label] = H.fit(m, draws=400, tune=300, chains=2, rng=5)
    return pan, out


def test_log_likelihood_matches_scipy(interaction_fits):
    _, fits = interaction_fits
    f = fits["default"]
    dt = H.log_likelihood(f, n_draws=40)
    ll = dt["log_likelihood"]["y"].values
    n_chain, n_draw = ll.shape[:2]
    assert n_chain == 2 and ll.shape[2] == f.model.n_observations
    m = f.model
    cells = m.cells()
    params = {k: np.asarray(v.values).reshape((n_chain * n_draw,) + v.shape[2:])
              for k, v in dt["posterior"].to_dataset().data_vars.items()}  # fmt: skip
    eta = m.linear_predictor(params)[:, cells["m"], cells["r"]]
    assert m.has_overdispersion  # the default structure: beta-binomial cells
    phi = 1.0 / params["overdispersion"][:, None] ** 2
    mu = special.expit(eta)
    a, b = mu * phi, (1 - mu) * phi
    s, n = cells["successes"], cells["trials"]
    got = ll.reshape(n_chain * n_draw, -1)
    # scipy's log-pmf is a difference of log-beta functions, which grow like phi as the
    # overdispersion goes to 0 and lose digits to cancellation (3e-8 here): agreement to 1e-6
    np.testing.assert_allclose(got, stats.betabinom.logpmf(s, n, a, b), rtol=0, atol=1e-6)
    # and to 1e-11 with the exact form for whole counts: log C(n, s) + sum_{j<s} log(a + j) +
    # sum_{j<n-s} log(b + j) - sum_{j<n} log(a + b + j)
    exact = special.gammaln(n + 1) - special.gammaln(s + 1) - special.gammaln(n - s + 1)
    exact = np.broadcast_to(exact, got.shape).copy()
    for j in range(int(n.max())):
        exact += np.where(j < s, np.log(a + j), 0) + np.where(j < n - s, np.log(b + j), 0)
        exact -= np.where(j < n, np.log(phi + j), 0)
    np.testing.assert_allclose(got, exact, rtol=1e-11, atol=1e-11)


def test_loo_prefers_the_structure_the_data_have(interaction_fits):
    _, fits = interaction_fits
    table = H.compare_structures(fits, n_draws=400)
    assert list(table["structure"])[0] == "default"
    legacy = table.set_index("structure").loc["legacy"]
    # elpd_diff = elpd - elpd of the best (<= 0): clearly worse, beyond twice its standard error
    assert -legacy["elpd_diff"] > 2 * legacy["dse"]
    assert set(table.columns) >= {"elpd", "se", "dse", "weight", "n_high_pareto_k", "diagnostics"}
    with pytest.raises(ValueError, match="at least two"):
        H.compare_structures({"default": fits["default"]})


def test_loo_table_reads_back_from_csv_as_written(interaction_fits):
    """No "" cells (arviz's empty diagnostic notes, empty LOO notes): pandas.read_csv reads
    back every cell of the table as written (report.tables.read_back_differences)."""
    from attunestats.report.tables import read_back_differences

    _, fits = interaction_fits
    table = H.compare_structures(fits, n_draws=400)
    assert read_back_differences(table, table.to_csv(index=False)) == []


def test_a_structure_whose_loo_cannot_run_is_reported_not_fatal(interaction_fits, monkeypatch):
    """PSIS stops on draws a stuck sampler repeated ("All tail values are the same", seen on a
    fast-mode fit with 298 divergences in 300 draws): that structure gets a row saying why, the
    others are compared, a warning names it; with fewer than two left, a clear error."""
    from attunestats.errors import AttunestatsWarning
    from attunestats.hierarchical import checks

    _, fits = interaction_fits
    real = checks.loo
    stuck = {"legacy again"}
    calls, allowed = [], [1]  # the legacy fit's LOO runs once, then fails

    def fake_loo(fit, **kw):
        calls.append(fit)
        if fit is fits["legacy"] and sum(c is fit for c in calls) > allowed[0]:
            raise ValueError("All tail values are the same")
        return real(fit, **kw)

    monkeypatch.setattr(checks, "loo", fake_loo)
    three = {"default": fits["default"], "legacy": fits["legacy"], "legacy again": fits["legacy"]}
    with pytest.warns(AttunestatsWarning, match="'legacy again'.*left out of the comparison"):
        table = H.compare_structures(three, n_draws=200)
    by = table.set_index("structure")
    assert "All tail values are the same" in by.loc["legacy again", "loo_note"]
    assert np.isnan(by.loc["legacy again", "elpd"]) and table["structure"].iloc[-1] in stuck
    assert by.loc[["default", "legacy"], "loo_note"].isna().all()
    assert by.loc["default", "elpd_diff"] == 0 and np.isfinite(by.loc["legacy", "elpd"])
    calls.clear()
    allowed[0] = 0  # now every legacy call fails: one structure left
    with pytest.raises(ValueError, match="fewer than two"):
        H.compare_structures(three, n_draws=200)


def _loo_tree(ll, rng):
    import xarray as xr

    n_chain, n_draw = ll.shape[:2]
    post = xr.Dataset({"a": (("chain", "draw"), rng.normal(size=(n_chain, n_draw))),
                       "b": (("chain", "draw", "k"), rng.normal(size=(n_chain, n_draw, 3)))})  # fmt: skip
    lik = xr.Dataset({"y": (("chain", "draw", "cell"), ll)})
    return xr.DataTree.from_dict({"posterior": post, "log_likelihood": lik})


@pytest.mark.parametrize("n_chain, n_draw", [(1, 100), (2, 150), (4, 250)])
def test_vectorised_psis_loo_is_arvizs(n_chain, n_draw):
    """``checks.loo`` computes PSIS-LOO on all cells at once; ``arviz.loo`` (the reference) loops
    over cells. Same weights, Pareto k, pointwise and total elpd, p_loo, standard error, and the
    same NaN where ArviZ's Pareto fit degenerates, on cells from near-flat to very heavy-tailed
    log-likelihoods (both tail-length rules: draws x r_eff above and below 225)."""
    import arviz as az

    from attunestats.hierarchical import _psis

    rng = np.random.default_rng(n_draw)
    n = 300
    scale = rng.uniform(0.05, 3.0, n)
    ll = -0.5 * (rng.standard_t(3, size=(n_chain, n_draw, n)) * scale) ** 2 - 1.0
    ll[..., :5] = rng.normal(size=(n_chain, n_draw, 5)) * 1e-3
    ll[..., 5:10] = np.log(special.expit(rng.normal(2.0, 0.3, size=(n_chain, n_draw, 5))))
    dt = _loo_tree(ll, rng)
    ref, got = az.loo(dt, var_name="y"), _psis.loo(dt, var_name="y")
    k_ref, k_got = ref.pareto_k.values, got.pareto_k.values
    np.testing.assert_array_equal(np.isnan(k_ref), np.isnan(k_got))
    np.testing.assert_allclose(k_got, k_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.elpd_i.values, ref.elpd_i.values, rtol=1e-10, atol=1e-10)
    lw_ref = ref.log_weights.transpose("chain", "draw", "cell").values
    np.testing.assert_allclose(got.log_weights.values, lw_ref, rtol=1e-10, atol=1e-10)
    fine = np.isfinite(ref.elpd_i.values)
    assert fine.sum() >= n - 40  # the comparison is mostly of finite values
    sub = dt.copy()
    sub["log_likelihood"] = dt["log_likelihood"].to_dataset().isel(cell=np.flatnonzero(fine))
    ref, got = az.loo(sub, var_name="y"), _psis.loo(sub, var_name="y")
    for attr in ("elpd", "se", "p", "good_k", "n_samples", "n_data_points", "warning"):
        np.testing.assert_allclose(getattr(got, attr), getattr(ref, attr), rtol=1e-10)
    table = az.compare({"arviz": ref, "vectorised": got}, round_to="none")
    assert abs(table["elpd_diff"]).max() < 1e-8
    # ArviZ's high-k warning, with the fit named and the observations counted as ArviZ flags them
    assert ref.warning  # these heavy-tailed cells have some
    n_high = int(np.sum(ref.pareto_k.values > ref.good_k))
    with pytest.warns(UserWarning, match=rf"^fit X: PSIS-LOO: .* for {n_high} of {fine.sum()} obs"):
        _psis.loo(sub, var_name="y", label="fit X")
    # a cell whose largest ratios are all equal (draws repeated by a stuck sampler)
    ll[..., 20] = -1.0
    with pytest.raises(ValueError, match="All tail values are the same"):
        az.loo(_loo_tree(ll, rng), var_name="y")
    with pytest.raises(ValueError, match="All tail values are the same"):
        _psis.loo(_loo_tree(ll, rng), var_name="y")


def test_ppc_interaction_statistic_flags_the_missing_term(interaction_fits):
    """The double-centred predictor x participant spread: the legacy model cannot reproduce it,
    the default one can."""
    _, fits = interaction_fits
    stat = "sd of predictor x participant accuracy"
    ppp = {k: S.posterior_predictive_check(f, n_draws=300, rng=1, accept_failed_diagnostics=True)
           .set_index("statistic").loc[stat, "ppp"] for k, f in fits.items()}  # fmt: skip
    assert ppp["legacy"] < 0.01
    assert 0.02 < ppp["default"] < 0.98


def test_predictive_data_is_arviz_shaped(interaction_fits):
    _, fits = interaction_fits
    dt = H.predictive_data(fits["default"], n_draws=20, rng=3)
    rep = dt["posterior_predictive"]["y"]
    obs = dt["observed_data"]["y"].values
    assert rep.dims == ("chain", "draw", "cell") and rep.shape[2] == obs.size
    trials = dt["constant_data"]["trials"].values
    assert (rep.values <= trials).all() and (obs <= trials).all()


def test_failed_fit_is_stamped_in_tables_and_figures():
    import matplotlib.pyplot as plt

    pan = simulate_panel(rng=2, **SMALL)
    short = H.fit(H.behaviour_model(pan.data, pan.design), draws=20, tune=20, chains=2, rng=1)
    assert not short.passed
    drift = S.turn_drift(short, accept_failed_diagnostics=True)
    assert drift.attrs["diagnostics_failed"]
    assert (drift["diagnostics"] == "diagnostics failed").all()
    assert drift["warning"].str.startswith("diagnostics failed").all()
    fig = RH.forest(drift, estimate="slope", low="ci_low", high="ci_high", label="predictor",
                    xlabel="slope", simulated=True)  # fmt: skip
    texts = [t.get_text() for t in fig.texts]
    assert any(t.startswith(RH.STAMP) and short.model.outcome in t for t in texts)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert all(lab.endswith("[diagnostics failed]") for lab in labels)
    plt.close(fig)
    # grouped rows keep their legend when every row comes from a failed fit (hollow markers)
    grouped = drift.assign(kind=["x" if i % 2 == 0 else "y" for i in range(len(drift))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # matplotlib: "No artists with labels"
        fig = RH.forest(grouped, estimate="slope", low="ci_low", high="ci_high",
                        label="predictor", xlabel="slope", simulated=True, group="kind")  # fmt: skip
    legend = fig.axes[0].get_legend()
    assert legend is not None and sorted(t.get_text() for t in legend.get_texts()) == ["x", "y"]
    plt.close(fig)
    good = drift.assign(diagnostics="passed")
    fig = RH.forest(good, estimate="slope", low="ci_low", high="ci_high", label="predictor",
                    xlabel="slope", simulated=False)  # fmt: skip
    assert not any(RH.STAMP in t.get_text() for t in fig.texts)
    plt.close(fig)


def test_ppc_and_loo_figures_draw_the_tables(interaction_fits):
    """The figures draw what the tables say: one PPC point per statistic (red when outside its
    replicated interval), one LOO point per structure at its elpd difference; stamped when the
    fit failed the gate."""
    import matplotlib.pyplot as plt

    _, fits = interaction_fits
    f = fits["legacy"]
    ppc = S.posterior_predictive_check(f, n_draws=200, rng=2, accept_failed_diagnostics=True)
    assert (ppc["replicated_sd"] > 0).all()
    fig = RH.ppc_plot(ppc, simulated=True)
    ax = fig.axes[0]
    inside, outside = (line.get_xdata() for line in ax.lines[:2])
    n_out = int(((ppc["observed"] < ppc["ci_low"]) | (ppc["observed"] > ppc["ci_high"])).sum())
    assert len(inside) + len(outside) == len(ppc) and len(outside) == n_out >= 1
    stamped = any(t.get_text().startswith(RH.STAMP) for t in fig.texts)
    assert stamped == (not f.passed)
    plt.close(fig)
    table = H.compare_structures(fits, n_draws=200)
    fig = RH.loo_plot(table, simulated=True)
    x = fig.axes[0].lines[0].get_xdata()
    np.testing.assert_allclose(x, table["elpd_diff"].to_numpy())
    assert x[0] == 0 and x[1] < 0
    plt.close(fig)
