"""Tests of the resampling engine against scipy.stats.bootstrap and analytic cluster-robust SEs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.errors import AttunestatsWarning
from attunestats.inference.bootstrap import (
    ResamplingPlan,
    cluster_bootstrap_mean,
    confidence_interval,
    mean_statistic,
    run_bootstrap,
)


def _quantile_mc_se(boot_sd: float, q: float, n_resamples: int) -> float:
    """Monte Carlo SE of a bootstrap quantile of a roughly normal distribution with sd boot_sd."""
    z = stats.norm.ppf(q)
    return boot_sd * np.sqrt(q * (1 - q) / n_resamples) / stats.norm.pdf(z)


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
def test_single_sample_mean_matches_scipy(method):
    # Skewed data, so that BCa, percentile and basic intervals differ by much more than MC error.
    rng = np.random.default_rng(20261202)
    x = rng.exponential(size=60) ** 2
    n_res = 20_000
    ours = cluster_bootstrap_mean(x, method=method, n_resamples=n_res, rng=1)
    ref = stats.bootstrap(
        (x,), np.mean, method=method, n_resamples=n_res, rng=np.random.default_rng(2)
    )
    sd = ref.standard_error
    # Two independent Monte Carlo runs: SE of the difference of endpoints, 5 sigma (BCa's z0 and
    # acceleration add a little more noise than the plain quantile SE accounts for).
    tol_low = 5 * np.sqrt(2) * _quantile_mc_se(sd, 0.025, n_res)
    tol_high = 5 * np.sqrt(2) * _quantile_mc_se(sd, 0.975, n_res)
    assert abs(ours.ci_low[0] - ref.confidence_interval.low) < tol_low
    assert abs(ours.ci_high[0] - ref.confidence_interval.high) < tol_high
    assert ours.estimate[0] == pytest.approx(x.mean(), rel=1e-12)
    assert ours.standard_error[0] == pytest.approx(sd, rel=4 / np.sqrt(n_res))


def test_bca_differs_from_percentile_on_skewed_data():
    # Guard that the comparison above can fail: BCa and percentile are far apart here.
    rng = np.random.default_rng(20261202)
    x = rng.exponential(size=60) ** 2
    bca = cluster_bootstrap_mean(x, method="bca", n_resamples=20_000, rng=1)
    pct = cluster_bootstrap_mean(x, method="percentile", n_resamples=20_000, rng=1)
    tol = 5 * np.sqrt(2) * _quantile_mc_se(bca.standard_error[0], 0.975, 20_000)
    assert abs(bca.ci_high[0] - pct.ci_high[0]) > 3 * tol


def test_cluster_bootstrap_se_matches_cluster_robust_se():
    import statsmodels.api as sm

    rng = np.random.default_rng(7)
    n_clusters = 200
    sizes = rng.integers(3, 13, size=n_clusters)
    clusters = np.repeat(np.arange(n_clusters), sizes)
    p = 1 / (
        1 + np.exp(-rng.normal(0.5, 1.0, size=n_clusters))
    )  # strong within-cluster correlation
    y = rng.binomial(1, p[clusters]).astype(float)
    fit = sm.OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False}
    )
    analytic = float(fit.bse[0])
    naive = float(y.std(ddof=1) / np.sqrt(y.size))
    n_res = 20_000
    res = cluster_bootstrap_mean(y, clusters, method="percentile", n_resamples=n_res, rng=3)
    # MC relative SE of a bootstrap SD is about 1/sqrt(2B) = 0.5%; the ratio estimator's
    # linearisation differs from the bootstrap variance by O(1/G) = 0.5%: allow 3%.
    assert res.standard_error[0] == pytest.approx(analytic, rel=0.03)
    # and clustering matters here: the naive SE is far off, so the test can fail
    assert abs(naive - analytic) / analytic > 0.15


def _design(n=40, n_participants=5, n_topics=4, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "conversation_id": [f"{i:03d}" for i in range(n)],
            "participant_id": [f"p{j}" for j in rng.integers(0, n_participants, n)],
            "topic": [f"t{j}" for j in rng.integers(0, n_topics, n)],
        }
    )


def test_conversation_weights_are_multinomial_counts():
    design = _design()
    w = ResamplingPlan().weights(design, 500, np.random.default_rng(0))
    assert w.shape == (500, 40)
    np.testing.assert_array_equal(w.sum(axis=1), 40)
    # each conversation is drawn 1 time per resample on average (Binomial(40, 1/40))
    assert abs(w.mean() - 1.0) < 4 * np.sqrt(39 / 40 / (500 * 40))


def test_stratified_weights_keep_stratum_sizes():
    design = _design()
    w = ResamplingPlan(strata="topic").weights(design, 300, np.random.default_rng(0))
    for _, members in design.groupby("topic").groups.items():
        np.testing.assert_array_equal(w[:, list(members)].sum(axis=1), len(members))


def test_participant_weights_two_stage():
    design = _design()
    plan = ResamplingPlan(unit="participant")
    w = plan.weights(design, 2000, np.random.default_rng(0))
    sizes = design.groupby("participant_id").size()
    codes = design["participant_id"].to_numpy()
    for pid, m in sizes.items():
        block = w[:, codes == pid].sum(axis=1)
        # each participant contributes m conversation draws per time it is drawn
        assert np.all(block % m == 0)
        times = block / m
        n_part = len(sizes)
        assert abs(times.mean() - 1.0) < 4 * np.sqrt((1 - 1 / n_part) / 2000)
    jk = plan.jackknife(design)
    assert jk.shape == (len(sizes), len(design))
    assert set(np.unique(jk)) == {0.0, 1.0}


def test_participant_weights_within_strata_keep_group_sizes():
    design = _design()
    groups = {f"p{j}": ("a" if j < 2 else "b") for j in range(5)}
    design["group"] = design["participant_id"].map(groups)
    plan = ResamplingPlan(unit="participant", strata="group")
    w = plan.weights(design, 500, np.random.default_rng(1))
    sizes = design.groupby("participant_id").size()
    codes = design["participant_id"].to_numpy()
    times = np.column_stack([w[:, codes == pid].sum(axis=1) / sizes[pid] for pid in sizes.index])
    names = list(sizes.index)
    in_a = [groups[p] == "a" for p in names]
    # participants are drawn within their group: 2 draws in group a, 3 in group b, every resample
    np.testing.assert_array_equal(times[:, in_a].sum(axis=1), 2)
    np.testing.assert_array_equal(times[:, ~np.array(in_a)].sum(axis=1), 3)
    assert "within strata of 'group'" in plan.describe()


def test_seeded_results_do_not_depend_on_row_order():
    rng = np.random.default_rng(5)
    values = rng.normal(size=(40, 3))
    design = _design()
    labels = pd.DataFrame({"metric": ["a", "b", "c"]})
    a = run_bootstrap(mean_statistic(values, labels), design, n_resamples=300, rng=11)
    b = run_bootstrap(mean_statistic(values, labels), design, n_resamples=300, rng=11)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    c = run_bootstrap(mean_statistic(values, labels), design, n_resamples=300, rng=12)
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)

    perm = rng.permutation(40)
    shuffled = cluster_bootstrap_mean(
        values[perm, 0], [f"{i:03d}" for i in perm], rng=4, n_resamples=300
    )
    ordered = cluster_bootstrap_mean(
        values[:, 0], [f"{i:03d}" for i in range(40)], rng=4, n_resamples=300
    )
    np.testing.assert_allclose(
        shuffled.bootstrap_distribution, ordered.bootstrap_distribution, rtol=1e-12
    )


def test_null_aware_means_and_paired_differences():
    rng = np.random.default_rng(9)
    values = rng.normal(size=(30, 2))
    values[[1, 5, 7], 0] = np.nan
    design = _design(n=30)
    res = run_bootstrap(
        mean_statistic(values, pd.DataFrame({"metric": ["a", "b"]})),
        design,
        n_resamples=500,
        rng=2,
        method="percentile",
    )
    assert res.estimate[0] == pytest.approx(np.nanmean(values[:, 0]))
    # recompute resample 17 by hand from its weights
    w = res.weights[17]
    ok = ~np.isnan(values[:, 0])
    manual = np.sum(w[ok] * values[ok, 0]) / np.sum(w[ok])
    assert res.bootstrap_distribution[17, 0] == pytest.approx(manual, rel=1e-12)


def test_bca_degenerate_falls_back_with_warning():
    with pytest.warns(
        AttunestatsWarning, match=r"BCa is degenerate for 1 of 1 statistics: mean \("
    ):
        res = cluster_bootstrap_mean(np.ones(20), n_resamples=200, rng=0)
    assert res.method_used[0] == "percentile"
    assert res.ci_low[0] == res.ci_high[0] == 1.0


def test_basic_interval_is_reflected_percentile():
    dist = np.random.default_rng(0).gamma(2.0, size=(4000, 1))
    est = np.array([1.5])
    lo_p, hi_p, _ = confidence_interval(dist, est, method="percentile", confidence_level=0.9)
    lo_b, hi_b, _ = confidence_interval(dist, est, method="basic", confidence_level=0.9)
    np.testing.assert_allclose([lo_b[0], hi_b[0]], [2 * 1.5 - hi_p[0], 2 * 1.5 - lo_p[0]])
    np.testing.assert_allclose([lo_p[0], hi_p[0]], np.quantile(dist[:, 0], [0.05, 0.95]))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "normal"}, ValueError, "method must be one of"),
        ({"n_resamples": 1}, ValueError, "n_resamples must be at least 2"),
        ({"n_resamples": 10.0}, TypeError, "n_resamples must be an int"),
        ({"confidence_level": 1.5}, ValueError, "confidence_level must be in"),
        ({"rng": "seed"}, TypeError, "rng must be None"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        cluster_bootstrap_mean([1.0, 2.0, 3.0], **kwargs)


def test_bad_plans():
    with pytest.raises(ValueError, match="unit must be one of"):
        ResamplingPlan(unit="turn")
    with pytest.raises(ValueError, match="not constant within participant"):
        ResamplingPlan(unit="participant", strata="topic").weights(
            _design(), 3, np.random.default_rng(0)
        )
    with pytest.raises(ValueError, match="has no column 'topic'"):
        ResamplingPlan(strata="topic").weights(
            pd.DataFrame({"conversation_id": ["1", "2"]}), 3, np.random.default_rng(0)
        )


@pytest.mark.parametrize("trial", range(6))
def test_column_quantiles_equal_numpy_per_column(trial):
    """The sorted-copy quantiles equal numpy's linear-interpolation quantile of each column, with
    per-column levels (as BCa makes them), NaN in some columns, ties, a non-finite level, and
    levels spread over the whole range or clustered."""
    from attunestats.inference.bootstrap import _column_quantiles

    rng = np.random.default_rng(trial)
    n, n_cols = (2000, 40) if trial < 3 else (int(rng.integers(1, 30)), 9)
    v = rng.normal(size=(n, n_cols))
    if trial % 2:
        v[rng.random(v.shape) < 0.2] = np.nan
    if trial in (2, 5):
        v = np.round(v, 1)
    spread = 0.02 if trial == 0 else 0.5
    q1 = np.clip(0.025 + rng.uniform(-spread, spread, n_cols), 0, 1)
    q2 = np.clip(0.975 + rng.uniform(-spread, spread, n_cols), 0, 1)
    q1[-1] = np.nan
    low, high = _column_quantiles(v, q1, q2)
    for k in range(n_cols):
        x = v[:, k][~np.isnan(v[:, k])]
        for q, got in ((q1[k], low[k]), (q2[k], high[k])):
            if x.size == 0 or not np.isfinite(q):
                assert np.isnan(got)
            else:
                assert got == pytest.approx(np.quantile(x, q), rel=1e-12, abs=1e-12)
