"""Multiplicity: adjusted p-values against statsmodels, max-|t| critical values against R's
mvtnorm, and intervals that agree with the adjusted tests (property-based)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from attunestats.inference.contrasts import (
    ContrastFamily,
    adjust_family,
    joint_abs_t,
    noncentral_t_interval,
)
from attunestats.inference.multiplicity import CORRECTIONS, adjust_pvalues, maxt_adjust


@pytest.mark.parametrize("ours,theirs", [("holm", "holm"), ("bonferroni", "bonferroni"),
                                         ("bh", "fdr_bh")])  # fmt: skip
def test_adjusted_pvalues_match_statsmodels(ours, theirs):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.random.default_rng(1).uniform(0, 0.2, size=25)
    np.testing.assert_allclose(adjust_pvalues(p, method=ours),
                               multitest.multipletests(p, method=theirs)[1], rtol=1e-12)  # fmt: skip


def _family(corr: np.ndarray, df: float, t: np.ndarray | None = None) -> ContrastFamily:
    """A participant family whose joint law is the multivariate t(df) with correlation ``corr``."""
    k = corr.shape[0]
    dev = np.linalg.cholesky(corr).T  # dev' dev = corr
    est = np.zeros(k) if t is None else np.asarray(t, dtype=float)
    return ContrastFamily(
        estimate=est, standard_error=np.ones(k), df=np.full(k, df),
        pvalue=2 * stats.t.sf(np.abs(est), df), source="participants", n_units=int(df) + 1,
        unit="participants", deviations=dev, scale=np.ones(k),
    )  # fmt: skip


def test_single_contrast_maxt_is_the_t_quantile():
    draws = joint_abs_t(_family(np.eye(1), 7.0), n_draws=200_000, rng=1).max(axis=1)
    _, crit = maxt_adjust(np.array([0.0]), draws, 0.05)
    assert crit == pytest.approx(stats.t.ppf(0.975, 7), abs=0.03)


def _r_mvtnorm() -> bool:
    if shutil.which("Rscript") is None:
        return False
    code = "quit(status = if (requireNamespace('mvtnorm', quietly = TRUE)) 0 else 1)"
    return subprocess.run(["Rscript", "-e", code], capture_output=True).returncode == 0


@pytest.mark.skipif(
    not _r_mvtnorm(), reason="R with mvtnorm is not installed (Debian: r-cran-mvtnorm)"
)
@pytest.mark.parametrize("rho,k,df", [(0.5, 4, 10), (0.0, 3, 5), (0.8, 6, 20)])
def test_maxt_critical_value_matches_mvtnorm(rho, k, df):
    corr = np.full((k, k), rho)
    np.fill_diagonal(corr, 1.0)
    script = (f"library(mvtnorm); set.seed(1); R <- matrix({rho}, {k}, {k}); diag(R) <- 1;"
              f"cat(sprintf('%.6f', qmvt(0.95, tail = 'both.tails', corr = R, df = {df})$quantile))")  # fmt: skip
    q_r = float(subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                               check=True).stdout)  # fmt: skip
    draws = joint_abs_t(_family(corr, float(df)), n_draws=300_000, rng=2).max(axis=1)
    _, crit = maxt_adjust(np.zeros(k), draws, 0.05)
    assert crit == pytest.approx(q_r, abs=0.03)


def test_bonferroni_intervals_are_t_intervals_at_alpha_over_m():
    fam = _family(np.eye(5), 9.0, t=np.array([0.5, 3.1, -2.2, 4.0, 1.0]))
    adj = adjust_family(fam, correction="bonferroni", confidence_level=0.95)
    q = stats.t.ppf(1 - 0.05 / 5 / 2, 9)
    np.testing.assert_allclose(adj.ci_low, fam.estimate - q, rtol=1e-9)
    np.testing.assert_allclose(adj.ci_high, fam.estimate + q, rtol=1e-9)


def test_bh_compatible_intervals_are_the_fcr_intervals_of_benjamini_yekutieli():
    t = np.array([0.2, 3.5, -2.9, 4.2, 1.1, -0.4, 2.6])
    fam = _family(np.eye(7), 12.0, t=t)
    adj = adjust_family(fam, correction="bh", confidence_level=0.95)
    rejected = adj.pvalue_adjusted < 0.05
    r = rejected.sum()
    assert r >= 2
    q = stats.t.ppf(1 - r * 0.05 / 7 / 2, 12)  # level 1 - R q / m for the selected
    np.testing.assert_allclose(adj.ci_low[rejected], t[rejected] - q, rtol=1e-8)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(1, 12),
    n_part=st.integers(4, 25),
    correction=st.sampled_from(CORRECTIONS),
    shift=st.floats(0.0, 2.0),
)
def test_interval_excludes_zero_exactly_when_the_adjusted_test_rejects(
    seed, k, n_part, correction, shift
):
    rng = np.random.default_rng(seed)
    reps = rng.normal(size=(n_part, k)) + shift * rng.normal(size=k) * 0.3
    dev = reps - reps.mean(axis=0)
    scale = np.full(n_part, np.sqrt((n_part - 1) / n_part))
    se = np.sqrt(((dev * scale[:, None]) ** 2).sum(axis=0))
    est = rng.normal(size=k) * shift * se * 2
    df = np.full(k, n_part - 1.0)
    fam = ContrastFamily(estimate=est, standard_error=se, df=df,
                         pvalue=2 * stats.t.sf(np.abs(est / se), df), source="participants",
                         n_units=n_part, unit="participants", deviations=dev, scale=scale)  # fmt: skip
    adj = adjust_family(fam, correction=correction, confidence_level=0.95, n_draws=2000, rng=seed)
    excludes = (adj.ci_low > 0) | (adj.ci_high < 0)
    np.testing.assert_array_equal(excludes, adj.pvalue_adjusted < 0.05)


def test_noncentral_t_interval_matches_root_finding_by_brentq():
    from scipy.optimize import brentq

    def root(t_obs, df, target):
        return brentq(lambda lam: stats.nct.cdf(t_obs, df, lam) - target, t_obs - 10, t_obs + 10)

    for t_obs, df, alpha in [(2.5, 10, 0.05), (-1.2, 5, 0.05), (6.0, 19, 0.01)]:
        low, high = noncentral_t_interval(np.array([t_obs]), np.array([df]), np.array([alpha]))
        lo, hi = root(t_obs, df, 1 - alpha / 2), root(t_obs, df, alpha / 2)
        np.testing.assert_allclose([low[0], high[0]], [lo, hi], atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8), correction=st.sampled_from(CORRECTIONS),
       shift=st.floats(0.0, 0.5))  # fmt: skip
def test_bootstrap_family_intervals_agree_with_bootstrap_pvalues(seed, k, correction, shift):
    from attunestats.inference.contrasts import bootstrap_family

    class _Boot:  # the two attributes bootstrap_family reads
        pass

    rng = np.random.default_rng(seed)
    boot = _Boot()
    boot.estimate = rng.normal(size=k) * shift
    boot.bootstrap_distribution = boot.estimate + rng.normal(scale=0.1, size=(300, k))
    boot.conversation_ids = tuple(str(i) for i in range(50))
    fam = bootstrap_family(boot, np.eye(k))
    adj = adjust_family(fam, correction=correction, confidence_level=0.95)
    excludes = (adj.ci_low > 0) | (adj.ci_high < 0)
    np.testing.assert_array_equal(excludes, adj.pvalue_adjusted < 0.05)


def test_adjust_pvalues_errors_name_the_argument_and_the_value():
    with pytest.raises(ValueError, match=r"method must be one of .*; got 'Holm'"):
        adjust_pvalues([0.2, 0.3], method="Holm")
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\]; got \[1\.3\]"):
        adjust_pvalues([0.2, 1.3], method="holm")


@pytest.mark.parametrize("dev", [np.eye(1), np.array([[1.0, -1.0, 1.0]])])
def test_maxt_never_adjusts_below_the_unadjusted_test(dev):
    # max_k |T_k| >= |T_j| for every j, so a max-|t| adjusted p-value is at least the
    # unadjusted one and a simultaneous interval contains the marginal t interval. With one
    # contrast (two predictors) or perfectly correlated ones (two participants) the Monte Carlo
    # draws put the adjusted p-value below the raw one about half the time (0.0296 < 0.0300).
    t = np.array([2.4, -2.4, 1.0])[: dev.shape[1]]
    fam = replace(_family(np.eye(dev.shape[1]), 7.0, t=t), deviations=dev, scale=np.ones(1))
    q = stats.t.ppf(0.975, 7.0)
    for seed in range(20):
        adj = adjust_family(fam, correction="maxt", confidence_level=0.95, n_draws=2000, rng=seed)
        assert (adj.pvalue_adjusted >= fam.pvalue).all(), (seed, adj.pvalue_adjusted, fam.pvalue)
        assert (adj.ci_low <= t - q).all() and (adj.ci_high >= t + q).all(), seed
        excludes = (adj.ci_low > 0) | (adj.ci_high < 0)
        assert (excludes == (adj.pvalue_adjusted < 0.05)).all(), seed
