"""Tests of paired comparisons, multiplicity corrections, rank intervals and discrimination."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from attunestats.errors import AttunestatsWarning
from attunestats.inference.bootstrap import mean_statistic, run_bootstrap
from attunestats.inference.compare import adjust_pvalues, bootstrap_pvalue, compare_models


def _boot(values: np.ndarray, metric_names=("m",), *, n_resamples=500, rng=0, method="percentile"):
    """Bootstrap of per-conversation values (C, P*K): predictors p0.. for each metric."""
    n_conv, n_cols = values.shape
    n_metrics = len(metric_names)
    n_pred = n_cols // n_metrics
    labels = pd.DataFrame(
        [(f"p{p}", "default", m) for p in range(n_pred) for m in metric_names],
        columns=["predictor", "mode", "metric"],
    )
    design = pd.DataFrame({"conversation_id": [f"{i:04d}" for i in range(n_conv)]})
    return run_bootstrap(
        mean_statistic(values, labels), design, n_resamples=n_resamples, rng=rng, method=method
    )


@pytest.mark.parametrize(("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjust_pvalues_matches_statsmodels(ours, theirs):
    from statsmodels.stats import multitest

    rng = np.random.default_rng(1)
    for size in (1, 2, 7, 55):
        p = rng.uniform(size=size) ** 2
        expected = multitest.multipletests(p, method=theirs)[1]
        np.testing.assert_allclose(adjust_pvalues(p, method=ours), expected, rtol=1e-12)


def test_adjust_pvalues_keeps_nan_out_of_family():
    p = np.array([0.01, np.nan, 0.02])
    out = adjust_pvalues(p, method="holm")
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], [0.02, 0.02])


def test_correction_is_required_and_checked():
    boot = _boot(np.random.default_rng(0).normal(size=(30, 3)))
    with pytest.raises(TypeError, match="correction"):
        compare_models(boot)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="correction must be one of"):
        compare_models(boot, correction="sidak")  # type: ignore[arg-type]
    res = compare_models(boot, correction="bh")
    assert set(res.pairs["correction"]) == {"bh"}


def _paired_null_data(rng, n_conv=80, n_pred=2, shift=0.0):
    conv_effect = rng.normal(size=(n_conv, 1))  # shared by predictors: paired design
    noise = rng.normal(scale=0.7, size=(n_conv, n_pred))
    values = conv_effect + noise
    values[:, 0] += shift
    return values


def test_paired_test_size_and_interval_coverage_under_null():
    # Under no true difference the bootstrap test rejects at about its nominal 5% and the 95%
    # interval of the difference covers 0 about 95% of the time. 400 replicates: MC SE of a 5%
    # rate is 1.1 percentage points; allow 3.5 SE.
    rng = np.random.default_rng(2026)
    reps, rejections, covered = 400, 0, 0
    for r in range(reps):
        boot = _boot(_paired_null_data(rng), n_resamples=400, rng=r)
        row = compare_models(boot, correction="none", n_draws=200).pairs.iloc[0]
        rejections += row["pvalue"] < 0.05
        covered += row["ci_low"] <= 0.0 <= row["ci_high"]
    se = np.sqrt(0.05 * 0.95 / reps)
    assert abs(rejections / reps - 0.05) < 3.5 * se
    assert abs(covered / reps - 0.95) < 3.5 * se


def test_pairing_gives_power_that_unpaired_would_not():
    # The shared conversation effect is large; a paired difference of 0.35 is clearly detected.
    rng = np.random.default_rng(5)
    values = _paired_null_data(rng, n_conv=120, shift=0.35) * np.array([1.0, 1.0])
    values += rng.normal(scale=3.0, size=(120, 1))  # huge shared noise
    res = compare_models(_boot(values, n_resamples=2000, rng=1), correction="none")
    row = res.pairs.iloc[0]
    assert row["pvalue"] < 0.01
    # an unpaired standard error would be dominated by the shared noise
    unpaired_se = np.sqrt(values[:, 0].var(ddof=1) / 120 + values[:, 1].var(ddof=1) / 120)
    assert row["standard_error"] < unpaired_se / 3


def test_bootstrap_pvalue_hand_example():
    dist = np.array([[0.5], [1.5], [-0.2], [2.5], [1.0]])
    est = np.array([1.0])
    # |d* - 1| >= 1 for 1.5? no (0.5); -0.2 yes (1.2); 2.5 yes (1.5); 0.5 no; 1.0 no -> 2
    assert bootstrap_pvalue(dist, est)[0] == pytest.approx((1 + 2) / (5 + 1))


def test_rank_sets_from_the_conditional_bootstrap():
    rng = np.random.default_rng(3)
    n_conv = 150
    means = np.array([0.0, 0.0, 0.0, 2.0])  # p3 clearly best, p0..p2 tied
    values = means + rng.normal(size=(n_conv, 4))
    res = compare_models(_boot(values, n_resamples=3000, rng=4), correction="holm")
    ranks = res.ranks.set_index("predictor")
    assert ranks.loc["p3", "rank"] == 1
    assert ranks.loc["p3", "rank_ci_low"] == ranks.loc["p3", "rank_ci_high"] == 1
    assert ranks.loc["p3", "rank_sim_low"] == ranks.loc["p3", "rank_sim_high"] == 1
    for p in ("p0", "p1", "p2"):
        assert 2 <= ranks.loc[p, "rank_ci_low"] <= ranks.loc[p, "rank_ci_high"] <= 4
        assert ranks.loc[p, "rank_sim_low"] <= ranks.loc[p, "rank_ci_low"]
    assert set(res.pairs["estimand"]) == {"these-participants"}
    # lower-is-better metrics would be ranked the other way round (registry); here higher wins
    assert res.discrimination.loc[0, "share_distinguishable"] == pytest.approx(3 / 6)


@pytest.mark.parametrize(
    "mu",
    [
        np.array([0.0, 0.1, 0.2, 0.3, 0.5, 0.05]),  # strong signal
        np.array([0.0, 0.02, 0.04, 0.06, 0.0, 0.01]),  # almost none: interval near the boundary
    ],
)
def test_discrimination_interval_covers_known_signal_to_noise(mu):
    # True predictor means with known between-model variance; the noise variance of a predictor
    # mean is sigma^2 / C (shared conversation effects cancel in paired differences), so
    # D_true = var(mu) / (sigma^2 / C). 300 replicates: MC SE of a 95% rate is 1.3 points.
    rng = np.random.default_rng(11)
    n_conv, sigma = 100, 1.0
    d_true = mu.var(ddof=1) / (sigma**2 / n_conv)
    reps, covered, estimates = 300, 0, []
    for r in range(reps):
        values = mu + rng.normal(size=(n_conv, 1)) + rng.normal(scale=sigma, size=(n_conv, mu.size))
        disc = compare_models(
            _boot(values, n_resamples=500, rng=r), correction="none", n_draws=200
        ).discrimination
        covered += disc.loc[0, "ci_low"] <= d_true <= disc.loc[0, "ci_high"]
        estimates.append(disc.loc[0, "discrimination"])
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(covered / reps - 0.95) < 3.5 * se
    # D = sni - 1 is (nearly) unbiased for D_true; sni itself would be off by +1
    est_se = np.std(estimates, ddof=1) / np.sqrt(reps)
    assert abs(np.mean(estimates) - d_true) < 4 * est_se + 0.05 * d_true


def test_discrimination_interval_against_noncentral_chi2_limit():
    # With a huge noise df the noncentral F interval tends to the noncentral chi-square one,
    # computed here independently with scipy.stats.ncx2.
    from scipy import optimize, stats

    from attunestats.inference.compare import discrimination_interval

    sni, m = 4.0, 6
    k = m - 1
    lo, hi = discrimination_interval(sni, m, 10**7, 0.9)
    lam_hi = optimize.brentq(lambda lam: stats.ncx2.cdf(k * sni, k, lam) - 0.05, 1e-9, 500)
    lam_lo = optimize.brentq(lambda lam: stats.ncx2.cdf(k * sni, k, lam) - 0.95, 1e-9, 500)
    np.testing.assert_allclose([lo, hi], [lam_lo / k, lam_hi / k], rtol=1e-3)
    # an observed index below its null median gives a lower bound of exactly 0
    assert discrimination_interval(0.5, m, 200, 0.95)[0] == 0.0


def test_discrimination_contrast_orders_metrics():
    rng = np.random.default_rng(12)
    n_conv = 150
    strong = np.array([0.0, 0.3, 0.6, 0.9]) + rng.normal(size=(n_conv, 4))
    weak = np.array([0.0, 0.02, 0.04, 0.06]) + rng.normal(size=(n_conv, 4))
    values = np.empty((n_conv, 8))
    values[:, 0::2] = strong
    values[:, 1::2] = weak
    res = compare_models(
        _boot(values, ("strong", "weak"), n_resamples=2000, rng=2), correction="holm"
    )
    contrast = res.discrimination_contrast("strong", "weak")
    assert contrast.difference > 0 and contrast.ci_low > 0 and contrast.pvalue < 0.05
    reverse = res.discrimination_contrast("weak", "strong")
    assert reverse.ci_high < 0 and reverse.pvalue == pytest.approx(contrast.pvalue)
    with pytest.raises(KeyError, match="not in this comparison"):
        res.discrimination_contrast("strong", "nope")


def test_discrimination_contrast_of_a_constant_metric_is_undefined_not_an_error():
    # A metric every predictor scores identically in every conversation (e.g. a release without
    # emotion predictions: F1 0 everywhere) has no spread and no noise: D is undefined, the
    # contrast says so with NaN interval and p-value instead of failing in the root finder.
    rng = np.random.default_rng(5)
    values = np.zeros((60, 6))
    values[:, 0::2] = np.array([0.0, 0.4, 0.8]) + rng.normal(size=(60, 3))
    res = compare_models(_boot(values, ("varied", "flat"), n_resamples=300, rng=3),
                         correction="none")  # fmt: skip
    disc = res.discrimination.set_index("metric")
    assert np.isnan(disc.loc["flat", "sni"]) and np.isfinite(disc.loc["varied", "sni"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = res.discrimination_contrast("varied", "flat")
    assert np.isnan(out.ci_low) and np.isnan(out.ci_high) and np.isnan(out.pvalue)
    assert "flat" in out.note and "varied" not in out.note
    assert res.discrimination_contrast("varied", "varied").note is None


def test_discrimination_contrast_size_under_equal_signal():
    # Two metrics with the same true D: the contrast rejects at most at its nominal rate
    # (it is conservative by construction). 200 replicates, one-sided MC allowance 3.5 SE.
    rng = np.random.default_rng(21)
    mu = np.array([0.0, 0.1, 0.2, 0.3])
    reps, rejections = 200, 0
    for r in range(reps):
        values = np.empty((100, 8))
        values[:, 0::2] = mu + rng.normal(size=(100, 4))
        values[:, 1::2] = mu + rng.normal(size=(100, 4))
        res = compare_models(_boot(values, ("a", "b"), n_resamples=300, rng=r), correction="none",
                             n_draws=200)  # fmt: skip
        rejections += res.discrimination_contrast("a", "b").pvalue < 0.05
    assert rejections / reps < 0.05 + 3.5 * np.sqrt(0.05 * 0.95 / reps)


def test_family_all_corrects_across_metrics():
    rng = np.random.default_rng(13)
    values = rng.normal(size=(60, 6))
    boot = _boot(values, ("a", "b"), n_resamples=300, rng=1)
    per_metric = compare_models(boot, correction="holm", family="metric").pairs
    overall = compare_models(boot, correction="holm", family="all").pairs
    np.testing.assert_allclose(overall["pvalue"], per_metric["pvalue"])
    np.testing.assert_allclose(
        overall["pvalue_adjusted"], adjust_pvalues(overall["pvalue"].to_numpy(), method="holm")
    )
    assert (overall["pvalue_adjusted"] >= per_metric["pvalue_adjusted"] - 1e-15).all()


# --------------------------------------------------------------------------------------------
# participant-level comparisons (the default estimand)
# --------------------------------------------------------------------------------------------
def _participant_inference(rng, n_part=9, m=12, shift=(0.0, 0.4, 0.1)):
    from attunestats.inference.participants import participant_inference

    pid = np.repeat(np.arange(n_part), m)
    k = len(shift)
    y = (np.asarray(shift) + rng.normal(size=n_part)[pid, None]
         + rng.normal(scale=0.4, size=(n_part, k))[pid] + rng.normal(size=(len(pid), k)))  # fmt: skip
    labels = pd.DataFrame({"predictor": [f"p{j}" for j in range(k)], "mode": "default",
                           "metric": "avg_pairwise_accuracy"})  # fmt: skip
    design = pd.DataFrame({"conversation_id": np.arange(len(pid)).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    return participant_inference(mean_statistic(y, labels), design), y, pid


def test_participant_pairs_carry_effect_sizes_that_agree_with_the_test():
    from scipy import optimize, stats

    from attunestats.metrics.composite import composite_points_per_unit

    res, y, pid = _participant_inference(np.random.default_rng(31))
    cmp = compare_models(res, correction="holm", rng=1)
    pairs = cmp.pairs
    assert set(pairs["estimand"]) == {"participants"} and set(pairs["unit"]) == {"participants"}
    # composite points: the metric's weight in the composite (24.5 points per unit here)
    np.testing.assert_allclose(pairs["composite_points"],
                               pairs["difference"] * composite_points_per_unit("avg_pairwise_accuracy"))  # fmt: skip
    # balanced participants: the standardized effect is Cohen's d_z of the participant means
    row = pairs.iloc[0]
    d_p = y[:, 0].reshape(9, 12).mean(axis=1) - y[:, 1].reshape(9, 12).mean(axis=1)
    np.testing.assert_allclose(row["standardized_effect"], d_p.mean() / d_p.std(ddof=1), rtol=1e-9)
    # its interval inverts the noncentral t at the row's level, independently by brentq
    t_obs, df, a = row["difference"] / row["standard_error"], row["df"], 1 - row["interval_level"]
    lo = optimize.brentq(
        lambda lam: stats.nct.cdf(t_obs, df, lam) - (1 - a / 2), t_obs - 10, t_obs + 10
    )
    np.testing.assert_allclose(row["standardized_effect_low"], lo / 3.0, atol=1e-6)
    # every interval excludes 0 exactly when the adjusted test rejects
    for lo_c, hi_c in (("ci_low", "ci_high"), ("composite_points_low", "composite_points_high"),
                       ("standardized_effect_low", "standardized_effect_high")):  # fmt: skip
        excludes = (pairs[lo_c] > 0) | (pairs[hi_c] < 0)
        np.testing.assert_array_equal(excludes.to_numpy(), pairs["significant"].to_numpy())


def test_pair_returns_a_minus_b_whichever_way_it_was_stored():
    res, _, _ = _participant_inference(np.random.default_rng(32))
    cmp = compare_models(res, correction="maxt", rng=2)
    ab = cmp.pair("p0", "p1").iloc[0]
    ba = cmp.pair("p1", "p0").iloc[0]
    assert ab["difference"] == pytest.approx(-ba["difference"])
    assert (ab["ci_low"], ab["ci_high"]) == pytest.approx((-ba["ci_high"], -ba["ci_low"]))
    assert ab["pvalue_adjusted"] == ba["pvalue_adjusted"]
    assert ab["difference"] == pytest.approx(res.estimate[0] - res.estimate[1])
    with pytest.raises(KeyError, match="predictor 'zz' is not in this comparison"):
        cmp.pair("p0", "zz")
    text = str(cmp.summary())
    assert "population of participants" in text and "simultaneous (max-|t|)" in text


def test_too_few_resamples_for_holm_over_many_pairs_warns_and_says_how_many():
    # 6 predictors -> 15 pairs; Holm's first step is at 0.05 / 15 = 0.00333, below the bootstrap
    # p-value's floor 1 / (B + 1) when B = 199 (0.005): the strongest pair cannot be rejected, and
    # its interval at that level is unbounded. Resampling at least 15 / 0.05 = 300 times can.
    rng = np.random.default_rng(8)
    values = rng.normal(size=(60, 6)) + np.array([0.0, 0.0, 0.0, 0.0, 0.0, 3.0])
    with pytest.warns(
        UserWarning, match=r"unbounded .* 199 bootstrap resamples .* at least 300"
    ) as caught:
        few = compare_models(_boot(values, n_resamples=199, rng=1), correction="holm")
    # the warning points at the line that called attunestats (here), not inside the package
    assert {w.filename for w in caught} == {__file__}
    assert not few.pairs["significant"].any()
    assert (~np.isfinite(few.pairs["ci_high"])).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enough = compare_models(_boot(values, n_resamples=400, rng=1), correction="holm")
        maxt = compare_models(_boot(values, n_resamples=199, rng=1), correction="maxt")
    assert enough.pairs["significant"].any() and np.isfinite(enough.pairs["ci_high"]).all()
    assert maxt.pairs["significant"].any()


def test_predictors_restrict_the_families_the_correction_and_the_ranks():
    # 5 predictors; comparing only p0, p1, p3: the same raw tests, Holm over those 3 pairs
    # (statsmodels), ranks among the 3
    from statsmodels.stats import multitest

    inf, _, _ = _participant_inference(np.random.default_rng(4), shift=(0.0, 0.4, 0.1, 0.3, -0.2))
    full = compare_models(inf, correction="holm")
    sub = compare_models(inf, correction="holm", predictors=["p0", "p1", "p3"])
    pairs = sub.pairs
    assert len(pairs) == 3 and set(pairs["predictor_a"]) | set(pairs["predictor_b"]) == {
        "p0", "p1", "p3"}  # fmt: skip
    key = ["predictor_a", "predictor_b"]
    same = pairs.merge(full.pairs, on=key, suffixes=("", "_full"))
    np.testing.assert_array_equal(same["pvalue"], same["pvalue_full"])
    expected = multitest.multipletests(pairs["pvalue"], method="holm")[1]
    np.testing.assert_allclose(pairs["pvalue_adjusted"], expected, rtol=1e-12)
    assert set(sub.ranks["predictor"]) == {"p0", "p1", "p3"}
    assert sub.discrimination["n_pairs"].iloc[0] == 3
    assert "among the 3 predictors compared" in str(sub.summary())
    assert "among the" not in str(full.summary())
    with pytest.raises(ValueError, match=r"predictors \['p9'\] are not in the inference"):
        compare_models(inf, correction="holm", predictors=["p0", "p9"])


@pytest.mark.parametrize("estimand", ["participants", "conversations"])
def test_a_metric_the_release_cannot_score_leaves_the_other_comparisons_intact(estimand):
    # A metric with NaN estimates (e.g. PANAS metrics of a release without PANAS) must not turn
    # the paired differences of other metrics into NaN (NaN * 0 = NaN in a plain matrix
    # product): every number of the scoreable metric equals that of a comparison without it.
    from attunestats.inference.participants import participant_inference

    rng = np.random.default_rng(44)
    n_part, m = 9, 10
    pid = np.repeat(np.arange(n_part), m)
    good = (
        np.array([0.0, 0.3, 0.6])
        + rng.normal(size=n_part)[pid, None]
        + rng.normal(size=(len(pid), 3))
    )
    both = np.empty((len(pid), 6))
    both[:, 0::2] = good  # metric "good": p0, p1, p2
    both[:, 1::2] = np.nan  # metric "unscored": NaN for every predictor
    both[:5, 3] = 1.0  # ... except a few values for p1 (its mean is 1.0)
    labels = pd.DataFrame([(f"p{p}", "default", k) for p in range(3) for k in ("good", "unscored")],
                          columns=["predictor", "mode", "metric"])  # fmt: skip
    only = labels[labels["metric"] == "good"].reset_index(drop=True)
    design = pd.DataFrame({"conversation_id": np.arange(len(pid)).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if estimand == "participants":
            full = participant_inference(mean_statistic(both, labels), design)
            clean = participant_inference(mean_statistic(good, only), design)
        else:
            full = run_bootstrap(mean_statistic(both, labels), design, n_resamples=300, rng=5)
            clean = run_bootstrap(mean_statistic(good, only), design, n_resamples=300, rng=5)
        assert np.isnan(np.asarray(full.estimate)[[1, 5]]).all()
        with_nan = compare_models(full, correction="holm", rng=1)
        without = compare_models(clean, correction="holm", rng=1)
    got = with_nan.pairs[with_nan.pairs["metric"] == "good"].reset_index(drop=True)
    cols = ["difference", "ci_low", "ci_high", "standard_error", "pvalue", "pvalue_adjusted"]
    assert np.isfinite(got[cols].to_numpy()).all()
    pd.testing.assert_frame_equal(got[cols], without.pairs[cols])
    assert with_nan.pairs.loc[with_nan.pairs["metric"] == "unscored", "difference"].isna().all()


def test_a_participant_bootstrap_is_labelled_and_scaled_by_participants():
    # compare_models on a bootstrap that resamples participants: the method names the
    # participant bootstrap, the unit is participants, and the standardized effect is in units
    # of the participant-level SD (difference / (se * sqrt(P))), not the per-conversation one.
    from attunestats.inference.bootstrap import ResamplingPlan

    rng = np.random.default_rng(8)
    sizes = [5, 9, 3, 12, 7, 6, 8, 4, 10]
    pid = np.repeat(np.arange(len(sizes)), sizes)
    n_conv = len(pid)
    values = np.array([0.0, 0.5]) + rng.normal(size=(len(sizes), 2))[pid]
    values += rng.normal(size=(n_conv, 2))
    labels = pd.DataFrame({"predictor": ["p0", "p1"], "mode": "default", "metric": "m"})
    design = pd.DataFrame({"conversation_id": [f"{i:04d}" for i in range(n_conv)],
                           "participant_id": [f"u{p}" for p in pid]})  # fmt: skip
    boot = run_bootstrap(mean_statistic(values, labels), design,
                         plan=ResamplingPlan("participant"), n_resamples=400, rng=1,
                         method="percentile")  # fmt: skip
    res = compare_models(boot, correction="none")
    row = res.pairs.iloc[0]
    assert res.method.startswith("participant bootstrap") and "participants drawn" in res.method
    assert row["unit"] == "participants" and row["n_units"] == len(sizes)
    expected = row["difference"] / (row["standard_error"] * np.sqrt(len(sizes)))
    assert row["standardized_effect"] == pytest.approx(expected, rel=1e-12)
    conv = compare_models(
        run_bootstrap(mean_statistic(values, labels), design, n_resamples=400, rng=1,
                      method="percentile"), correction="none")  # fmt: skip
    assert conv.method.startswith("conversation bootstrap")
    assert conv.pairs.iloc[0]["unit"] == "conversations"
    assert conv.pairs.iloc[0]["n_units"] == n_conv


def test_discrimination_interval_holds_its_level_for_the_population_of_participants():
    # The participant estimand with 11 unequal participants and predictor x participant
    # deviations whose SD differs 10-fold between predictors (noise not exchangeable). Truth by
    # construction: the estimate of predictor m is the conversation mean, so the variance of a
    # paired difference is (tau_i^2 + tau_j^2) sum_p (n_p / C)^2 + 2 sigma^2 / C, and
    # D_true = var(mu) / mean over pairs of half that. 300 replicates: the 95% interval must not
    # cover less than nominal beyond Monte Carlo error (it is conservative by design).
    from attunestats.inference.participants import participant_inference

    rng = np.random.default_rng(31)
    sizes = np.array([40, 30, 25, 20, 18, 15, 14, 12, 10, 8, 8])
    n_conv, n_part, n_pred = sizes.sum(), len(sizes), 4
    pid = np.repeat(np.arange(n_part), sizes)
    design = pd.DataFrame({"conversation_id": np.arange(n_conv).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    labels = pd.DataFrame({"predictor": [f"m{i}" for i in range(n_pred)], "mode": "default",
                           "metric": "y"})  # fmt: skip
    mu, tau, sigma = np.linspace(0.0, 0.6, n_pred), 0.3 * np.linspace(0.2, 2.0, n_pred), 1.0
    w2 = np.sum((sizes / n_conv) ** 2)
    pair_var = [(tau[i] ** 2 + tau[j] ** 2) * w2 + 2 * sigma**2 / n_conv
                for i in range(n_pred) for j in range(i + 1, n_pred)]  # fmt: skip
    d_true = mu.var(ddof=1) / (np.mean(pair_var) / 2.0)
    reps, covered = 300, 0
    for _ in range(reps):
        values = (mu + rng.normal(size=(n_conv, 1)) + (tau * rng.normal(size=(n_part, n_pred)))[pid]
                  + sigma * rng.normal(size=(n_conv, n_pred)))  # fmt: skip
        res = participant_inference(mean_statistic(values, labels), design)
        disc = compare_models(res, correction="none", n_draws=100).discrimination.iloc[0]
        assert disc["df_noise"] == n_part - 1
        covered += disc["ci_low"] <= d_true <= disc["ci_high"]
    assert covered / reps > 0.95 - 3.5 * np.sqrt(0.95 * 0.05 / reps), covered / reps


def test_undefined_pairs_do_not_raise_the_too_few_resamples_warning():
    # a metric no conversation scores gives NaN pair intervals, not (-inf, inf) ones: the
    # warning that too few resamples leave intervals unbounded must not fire (it advised
    # "resample at least 60 times" to a 1,000-resample bootstrap)
    rng = np.random.default_rng(9)
    values = np.column_stack([rng.normal(size=(60, 3)), np.full((60, 3), np.nan)])
    values = values[:, [0, 3, 1, 4, 2, 5]]  # p0 m, p0 u, p1 m, p1 u, p2 m, p2 u
    boot = _boot(values, ("m", "u"), n_resamples=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AttunestatsWarning)
        res = compare_models(boot, correction="holm")
    assert res.pairs.loc[res.pairs["metric"] == "u", "ci_low"].isna().all()
    assert np.isfinite(res.pairs.loc[res.pairs["metric"] == "m", ["ci_low", "ci_high"]]).all().all()


def test_confidence_level_must_be_a_number():
    # a string was converted by float() ('0.9' accepted, 'high' failed with float's message)
    boot = _boot(np.random.default_rng(0).normal(size=(30, 3)))
    for bad in ("0.9", "high", True):
        with pytest.raises(
            TypeError, match=f"confidence_level must be a number in \\(0, 1\\); got {bad!r}"
        ):
            compare_models(boot, correction="holm", confidence_level=bad)


def test_a_metric_no_conversation_scores_raises_no_numpy_warnings():
    # its pairs are NaN by design (the comparison says so); numpy's 'Degrees of freedom <= 0'
    # and 'invalid value encountered in cast' warnings leaked to the user
    rng = np.random.default_rng(9)
    values = np.column_stack([rng.normal(size=(60, 3)), np.full((60, 3), np.nan)])
    boot = _boot(values[:, [0, 3, 1, 4, 2, 5]], ("m", "u"), n_resamples=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for correction in ("holm", "maxt", "none"):
            compare_models(boot, correction=correction)
