"""Power and minimum detectable effects: analytic formulas against published values and
statsmodels, simulated power against the exact analytic power within Monte Carlo error, fitted
variance components against statsmodels' mixed model.

Monte Carlo tolerances: a simulated power from ``N`` independent datasets has binomial standard
error ``sqrt(p (1 - p) / N)``; tests allow 4 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.cli.power import power_command
from attunestats.design.power import (
    ContrastModel,
    analytic_mde,
    analytic_power,
    design_effect,
    fit_contrast,
    fit_contrast_values,
    power_curve,
    reliability_at,
)
from attunestats.report.power import plot_power_curves


def _mc_se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-4) / n)


# --------------------------------------------------------------------------------------------
# analytic
# --------------------------------------------------------------------------------------------
def test_design_effect_oracle():
    # oracles.md section 9: ICC 0.20 with 10-item clusters -> deff 2.8
    assert design_effect(10, 0.20) == pytest.approx(2.8, abs=1e-12)
    assert design_effect(1, 0.5) == 1.0
    # Eldridge et al. (2006): unequal sizes add cv^2 * m * icc
    assert design_effect(10, 0.2, cv=0.5) == pytest.approx(1 + (1.25 * 10 - 1) * 0.2)
    np.testing.assert_allclose(design_effect([2, 5], [0.1, 0.3]), [1.1, 2.2])
    with pytest.raises(ValueError, match="icc must lie in"):
        design_effect(10, 1.5)
    with pytest.raises(ValueError, match="cluster_size must be finite numbers >= 1"):
        design_effect(0.5, 0.1)


def test_z_power_is_the_normal_formula_with_n_over_deff():
    # by hand: se = sd * sqrt(deff / n); power = Phi(d/se - z) + Phi(-d/se - z)
    d, sd, n, p, icc = 0.25, 1.3, 240, 24, 0.15
    deff = 1 + (n / p - 1) * icc
    ncp = d / (sd * math.sqrt(deff / n))
    z = stats.norm.ppf(0.975)
    expected = stats.norm.cdf(ncp - z) + stats.norm.cdf(-ncp - z)
    got = analytic_power(d, sd=sd, n_conversations=n, n_participants=p, icc=icc, method="z")
    assert got == pytest.approx(expected, rel=1e-12)
    one_sided = analytic_power(d, sd=sd, n_conversations=n, n_participants=p, icc=icc,
                               alternative="greater")  # fmt: skip
    assert one_sided == pytest.approx(stats.norm.cdf(ncp - stats.norm.ppf(0.95)), rel=1e-12)


@pytest.mark.parametrize(
    ("d", "sd", "p", "m", "icc", "alpha"),
    [(0.3, 1.0, 10, 5, 0.2, 0.05), (0.1, 0.4, 30, 8, 0.05, 0.01), (0.5, 2.0, 6, 20, 0.4, 0.05)],
)
def test_t_power_matches_statsmodels(d, sd, p, m, icc, alpha):
    from statsmodels.stats.power import TTestIndPower, TTestPower

    # paired: t test on the p participant means, each with sd tau
    tau = sd * math.sqrt(icc + (1 - icc) / m)
    expected = TTestPower().power(effect_size=d / tau, nobs=p, alpha=alpha)
    got = analytic_power(d, sd=sd, n_conversations=p * m, n_participants=p, icc=icc,
                         alpha=alpha, method="t")  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-6)
    # between participants, two equal groups of p participants: two-sample t on their means
    expected = TTestIndPower().power(effect_size=d / tau, nobs1=p, ratio=1.0, alpha=alpha)
    got = analytic_power(d, sd=sd, n_conversations=2 * p * m, n_participants=2 * p, icc=icc,
                         design="between", alpha=alpha, method="t")  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-6)
    # independent conversations: the paired t test on n differences
    expected = TTestPower().power(effect_size=d / sd, nobs=p * m, alpha=alpha)
    got = analytic_power(d, sd=sd, n_conversations=p * m, alpha=alpha, method="t")
    assert got == pytest.approx(expected, rel=1e-6)


def test_t_power_survives_far_tails():
    # scipy's noncentral t returns NaN deep in a tail; power must still be a number
    got = analytic_power([0.05, 1.0, 5.0], sd=0.2, n_conversations=400, n_participants=40,
                         method="t")  # fmt: skip
    assert np.all(np.isfinite(got)) and got[-1] == pytest.approx(1.0)


def test_analytic_mde_closed_form():
    # z test: MDE = (z_{1-alpha/2} + z_{power}) * se, up to the opposite tail (< 1e-6 here)
    sd, n, p, icc = 1.0, 200, 20, 0.2
    se = sd * math.sqrt(design_effect(n / p, icc) / n)
    expected = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * se
    assert analytic_mde(sd=sd, n_conversations=n, n_participants=p, icc=icc) == pytest.approx(
        expected, rel=1e-4
    )
    mde_t = analytic_mde(sd=sd, n_conversations=n, n_participants=p, icc=icc, method="t")
    assert mde_t > expected  # fewer degrees of freedom, larger MDE
    with pytest.raises(ValueError, match="power must lie in"):
        analytic_mde(sd=1.0, n_conversations=10, power=1.0)


def test_analytic_input_errors():
    with pytest.raises(ValueError, match="design must be one of"):
        analytic_power(0.1, sd=1, n_conversations=10, design="crossed")
    with pytest.raises(ValueError, match="sd must be a positive number"):
        analytic_power(0.1, sd=0, n_conversations=10)
    with pytest.raises(ValueError, match="n_conversations must be >= n_participants"):
        analytic_power(0.1, sd=1, n_conversations=10, n_participants=20)
    with pytest.raises(ValueError, match="give n_participants"):
        analytic_power(0.1, sd=1, n_conversations=10, design="between")
    with pytest.raises(ValueError, match="alpha must lie in"):
        analytic_power(0.1, sd=1, n_conversations=10, alpha=1.2)
    with pytest.raises(ValueError, match="n_conversations must be integers >= 2"):
        analytic_power(0.1, sd=1, n_conversations=1.5)


# --------------------------------------------------------------------------------------------
# simulated against analytic
# --------------------------------------------------------------------------------------------
def test_simulated_power_agrees_with_exact_analytic_power():
    # Normal data, equal cluster sizes: the cluster t test is exact, so simulated power must
    # match the noncentral t power within Monte Carlo error, at every grid point.
    model = ContrastModel("paired", effect=0.25, sd=1.0, icc=0.2)
    res = power_curve(model, n_conversations=[60, 200], n_participants=[6, 20],
                      n_simulations=3000, rng=12, effects=[0.0, 0.25])  # fmt: skip
    table = res.table
    assert len(table) == 8 and (table["n_simulations"] == 3000).all()
    for row in table.itertuples():
        se = _mc_se(row.analytic_t, row.n_simulations)
        assert abs(row.power - row.analytic_t) < 4 * se, row
        if row.effect == 0.0:
            assert row.analytic_t == pytest.approx(0.05)  # size
    assert table.attrs["label"].startswith("SIMULATED")


def test_simulated_power_agrees_with_design_effect_formula_for_many_clusters():
    # With 150 participants the z approximation with n / deff is nearly exact (its gap to the
    # exact t power is checked to be below one Monte Carlo SE); simulated power must agree with
    # it within Monte Carlo error for a simple mean difference.
    model = ContrastModel("paired", effect=0.12, sd=1.0, icc=0.25)
    n, p, n_sim = 750, 150, 4000
    z = model.analytic_power(n, p, method="z")
    t = model.analytic_power(n, p, method="t")
    assert abs(z - t) < _mc_se(z, n_sim)
    res = power_curve(model, n_conversations=n, n_participants=p, n_simulations=n_sim, rng=3)
    row = res.table.iloc[0]
    assert row["analytic_z"] == pytest.approx(z)
    assert row["design_effect"] == pytest.approx(1 + 4 * 0.25)
    assert abs(row["power"] - z) < 4 * _mc_se(z, n_sim)


@pytest.mark.parametrize(
    ("design", "n", "p", "allocation"), [("between", 120, 12, 0.5), ("within", 160, 16, 0.5)]
)
def test_simulated_power_of_contrasts_agrees_with_analytic(design, n, p, allocation):
    # between: equal groups of participants with equal sizes -> exact two-sample t on cluster
    # means; within: participant fixed-effects t (exact given the design; the analytic variance
    # uses the expected within-participant spread of the contrast).
    model = ContrastModel(design, effect=0.35, sd=1.0, icc=0.3, allocation=allocation)
    n_sim = 3000
    res = power_curve(model, n_conversations=n, n_participants=p, n_simulations=n_sim,
                      rng=21, effects=[0.0, 0.35])  # fmt: skip
    for row in res.table.itertuples():
        assert abs(row.power - row.analytic_t) < 4 * _mc_se(row.analytic_t, n_sim), row


def test_cluster_bootstrap_power_agrees_with_normal_theory():
    # The package's cluster bootstrap (percentile p-value) is asymptotically the z test with
    # the cluster-robust SE; with 100 clusters of 2 the z formula with n / deff applies.
    model = ContrastModel("paired", effect=0.2, sd=1.0, icc=0.3)
    n, p, n_sim = 200, 100, 300
    res = power_curve(model, n_conversations=n, n_participants=p, n_simulations=n_sim,
                      test="bootstrap", n_resamples=499, rng=5, effects=[0.2])  # fmt: skip
    row = res.table.iloc[0]
    z = model.analytic_power(n, p, method="z")
    # Monte Carlo error of the datasets plus that of 499 resamples in each p-value (small)
    assert abs(row["power"] - z) < 4 * _mc_se(z, n_sim)


def test_simulated_mde_agrees_with_analytic_mde():
    model = ContrastModel("paired", effect=0.2, sd=1.0, icc=0.1)
    n, p, n_sim = 120, 12, 3000
    res = power_curve(model, n_conversations=n, n_participants=p, n_simulations=n_sim, rng=8)
    mde = res.minimum_detectable_effect(0.8).iloc[0]
    exact = analytic_mde(sd=1.0, n_conversations=n, n_participants=p, icc=0.1, method="t")
    assert mde["analytic_t"] == pytest.approx(exact)
    # error of the simulated MDE = error of the simulated power / slope of the power curve
    h = 1e-4
    slope = (model.analytic_power(n, p, effect=exact + h, method="t")
             - model.analytic_power(n, p, effect=exact - h, method="t")) / (2 * h)  # fmt: skip
    assert abs(mde["mde"] - exact) < 4 * _mc_se(0.8, n_sim) / slope
    # power at other effects comes from the same datasets
    again = res.power_at([exact])
    assert abs(again["power"].iloc[0] - 0.8) < 4 * _mc_se(0.8, n_sim)


def test_power_curve_is_reproducible_and_executor_independent():
    model = ContrastModel("between", effect=0.4, sd=1.0, icc=0.2, cluster_cv=0.4)
    kw = {"n_conversations": [40, 80], "n_participants": [8], "n_simulations": 150, "rng": 2,
          "batch_size": 40}  # fmt: skip
    a = power_curve(model, **kw)
    b = power_curve(model, executor="processes", n_workers=2, **kw)
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.simulations, b.simulations)
    assert (a.table["n_simulations"] == 150).all()


def test_power_curve_names_the_grid_cells_it_leaves_out():
    # n_conversations is the total: a cell with fewer conversations than participants cannot be
    # simulated; it is left out with a warning naming it, not silently
    from attunestats.errors import AttunestatsWarning

    model = ContrastModel("paired", effect=0.2, sd=1.0, icc=0.1)
    with pytest.warns(AttunestatsWarning, match=r"left out 1 of 4 grid cells.*\(6 conversations, "
                      r"11 participants\)"):  # fmt: skip
        res = power_curve(model, n_conversations=[6, 30], n_participants=[5, 11],
                          n_simulations=20, rng=1)  # fmt: skip
    cells = set(map(tuple, res.table[["n_conversations", "n_participants"]].to_numpy().tolist()))
    assert cells == {(6, 5), (30, 5), (30, 11)}


def test_power_curve_input_errors():
    model = ContrastModel("paired", effect=0.2, sd=1.0, icc=0.1)
    with pytest.raises(ValueError, match="no grid point"):
        power_curve(model, n_conversations=[5], n_participants=[10], n_simulations=10)
    with pytest.raises(ValueError, match="test must be one of"):
        power_curve(model, n_conversations=[50], n_simulations=10, test="wald")
    between = ContrastModel("between", effect=0.2, sd=1.0, icc=0.1)
    with pytest.raises(ValueError, match="give n_participants"):
        power_curve(between, n_conversations=[50], n_simulations=10)
    with pytest.raises(ValueError, match="at least 2 participants in each group"):
        power_curve(between, n_conversations=[30], n_participants=[3], n_simulations=10)
    with pytest.raises(ValueError, match="bootstrap' is implemented for design='paired' only"):
        power_curve(between, n_conversations=[50], n_participants=[5], test="bootstrap")
    with pytest.raises(ValueError, match="icc must lie in"):
        ContrastModel("paired", effect=0.1, sd=1.0, icc=1.0)
    with pytest.raises(TypeError, match="model must be a ContrastModel"):
        power_curve({"effect": 1}, n_conversations=[50])


# --------------------------------------------------------------------------------------------
# fitting
# --------------------------------------------------------------------------------------------
def _clustered(rng, g, m, sb, sw, mean=0.0):
    codes = np.repeat(np.arange(g), m)
    y = mean + rng.normal(0, sb, g)[codes] + rng.normal(0, sw, g * m)
    return y, codes


def test_fitted_variance_components_match_statsmodels_reml():
    # balanced one-way random effects: ANOVA estimates equal REML estimates (when positive)
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(1)
    y, codes = _clustered(rng, 40, 6, 0.5, 1.0, mean=0.3)
    model = fit_contrast_values(y, codes)
    fit = smf.mixedlm("y ~ 1", pd.DataFrame({"y": y, "g": codes}), groups="g").fit(reml=True)
    sb2, sw2 = float(fit.cov_re.iloc[0, 0]), float(fit.scale)
    assert model.effect == pytest.approx(y.mean(), rel=1e-12)
    assert model.sd**2 == pytest.approx(sb2 + sw2, rel=1e-4)
    assert model.icc == pytest.approx(sb2 / (sb2 + sw2), rel=1e-3)
    assert model.cluster_cv == 0.0

    # between: two groups of participants; REML with the group as a fixed effect
    x = codes < 20
    yb = y + 0.4 * x
    between = fit_contrast_values(yb, codes, design="between", x=x)
    fit = smf.mixedlm("y ~ x", pd.DataFrame({"y": yb, "x": x.astype(float), "g": codes}),
                      groups="g").fit(reml=True)  # fmt: skip
    sb2, sw2 = float(fit.cov_re.iloc[0, 0]), float(fit.scale)
    assert between.effect == pytest.approx(yb[x].mean() - yb[~x].mean(), rel=1e-12)
    assert between.effect == pytest.approx(float(fit.fe_params["x"]), rel=1e-6)
    assert between.sd**2 == pytest.approx(sb2 + sw2, rel=1e-4)
    assert between.allocation == 0.5


def test_within_effect_is_the_fixed_effects_slope():
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(4)
    y, codes = _clustered(rng, 15, 10, 0.7, 1.0)
    x = rng.random(y.size) < 0.3
    y = y + 0.5 * x
    model = fit_contrast_values(y, codes, design="within", x=x)
    ols = smf.ols("y ~ x + C(g)", pd.DataFrame({"y": y, "x": x.astype(float), "g": codes})).fit()
    assert model.effect == pytest.approx(float(ols.params["x"]), rel=1e-10)
    assert model.allocation == pytest.approx(x.mean())


def test_fit_contrast_on_a_scored_release(bundled_scores):
    scores = bundled_scores
    a, b = "sim-model-01", "sim-model-02"
    metric = "avg_emotion_f1"
    model = fit_contrast(scores, metric=metric, predictors=(a, b))
    pred = scores.predictor.set_index(["predictor", "metric"])["value"]
    # the package's predictor-level means (score module) give the same difference
    assert model.effect == pytest.approx(pred[(a, metric)] - pred[(b, metric)], rel=1e-10)
    assert model.design == "paired" and model.simulated and model.source["n_participants"] == 11
    assert 0 <= model.icc < 1 and model.sd > 0
    diag = fit_contrast(scores, metric=metric, diagnosis="anxiety_depression")
    assert diag.design == "between" and 0 < diag.allocation < 1
    topic = fit_contrast(scores, metric="avg_binary_om_accuracy", topic="romantic relationships")
    assert topic.design == "within"
    with pytest.raises(ValueError, match="pooled metrics: use release_power"):
        fit_contrast(scores, metric="pooled_binary_om_mcc", predictors=(a, b))
    with pytest.raises(ValueError, match="exactly one of"):
        fit_contrast(scores, metric=metric, predictors=(a, b), topic="x")
    with pytest.raises(ValueError, match="unknown predictors"):
        fit_contrast(scores, metric=metric, predictors=(a, "nobody"))


# --------------------------------------------------------------------------------------------
# independence
# --------------------------------------------------------------------------------------------
def test_reliability_at_inverts_the_independence_simulator():
    from attunestats.independence import simulation as sim

    for rel, n in ((0.5, 50), (0.8, 200), (0.95, 400)):
        values = sim.simulate_metric_values(n_conversations=n, reliability=rel, skill_sd=0.7,
                                            rng=1)  # fmt: skip
        got = reliability_at(n, skill_sd=0.7, noise_sd=values.noise_sd)
        np.testing.assert_allclose(got[0], rel, rtol=1e-12)


def test_fitted_independence_noise_recovers_the_simulated_noise():
    from attunestats import independence as ind
    from attunestats.design.power import fit_independence_noise

    values = ind.simulate_metric_values(n_models=11, n_conversations=400, n_metrics=3,
                                        reliability=0.8, skill_sd=1.0, rng=3)  # fmt: skip
    matrix = ind.metric_matrix(values.values, n_resamples=400, rng=4)
    fitted = fit_independence_noise(matrix)
    # relative SE of an averaged bootstrap variance: about sqrt(4 / 400) / sqrt(11) = 0.03;
    # 4 SE on the variance is 12%, 6% on the sd
    np.testing.assert_allclose(fitted["noise_sd"], values.noise_sd, rtol=0.06)


def test_independence_power_curve_size_and_growth():
    from attunestats.design.power import independence_power_curve

    res = independence_power_curve([20, 400], skill_sd=1.0, noise_sd=8.0, correlations=(0.0, 0.7),
                                   n_simulations=200, n_permutations=199, rng=3)  # fmt: skip
    t = res.table.set_index(["n_conversations", "true_correlation"])
    # the permutation test is exact: size alpha within Monte Carlo error
    for n in (20, 400):
        assert t.loc[(n, 0.0), "power"] < 0.05 + 4 * _mc_se(0.05, 200)
    # more conversations, more reliable means, more power
    assert t.loc[(20, 0.7), "reliability"] < t.loc[(400, 0.7), "reliability"]
    assert t.loc[(400, 0.7), "power"] > t.loc[(20, 0.7), "power"]


# --------------------------------------------------------------------------------------------
# release simulator
# --------------------------------------------------------------------------------------------
def test_release_power_runs_the_full_pipeline_identically_on_two_executors():
    from dataclasses import replace

    from attunestats.design.power import release_power
    from attunestats.release.simulate import SCENARIOS

    kw = {"metric": "avg_pairwise_accuracy", "n_conversations": [16], "n_participants": [4],
          "logit_differences": [0.0, 2.0], "n_simulations": 3, "n_resamples": 99, "rng": 4}  # fmt: skip
    a = release_power(SCENARIOS["null"], **kw)
    b = release_power(SCENARIOS["null"], executor="processes", n_workers=2, **kw)
    pd.testing.assert_frame_equal(a.table, b.table)
    t = a.table.set_index("logit_difference")
    # a skill difference of 2 logits on preference moves pairwise accuracy up in every release
    sims = a.simulations
    assert (sims.loc[sims["logit_difference"] == 2.0, "estimate"]
            > sims.loc[sims["logit_difference"] == 0.0, "estimate"].to_numpy()).all()  # fmt: skip
    assert t.loc[2.0, "effect"] > 0.1
    # None: the skills of the given population as they are (its planted difference)
    from attunestats.release.simulate import draw_effects

    eff = draw_effects(replace(SCENARIOS["null"], n_models=3, n_human_raters=0), rng=8)
    planted = release_power(effects=eff, predictors=("sim-model-03", "sim-model-01"),
                            metric="avg_pairwise_accuracy", n_conversations=[12],
                            n_participants=[3], n_simulations=2, n_resamples=49)  # fmt: skip
    expected = eff.theta[2, 2] - eff.theta[0, 2]  # preference is capability 2
    assert planted.table["logit_difference"].iloc[0] == pytest.approx(expected, rel=1e-12)
    assert planted.table["contrast"].iloc[0] == "sim-model-03 - sim-model-01"
    with pytest.raises(ValueError, match="conversation-level registry metric"):
        release_power(SCENARIOS["null"], metric="emotion_f1", n_conversations=[10],
                      n_participants=[2])  # fmt: skip


@pytest.mark.slow
def test_release_power_size_under_the_null():
    # Equal skills, no predictor x participant/topic interactions: the paired bootstrap test of a
    # pooled metric (MCC) must reject at about 5% (percentile bootstrap, 40 conversations: a
    # little liberal is expected; the Monte Carlo SE of 300 releases is 0.0126).
    from dataclasses import replace

    from attunestats.design.power import release_power
    from attunestats.release.simulate import SCENARIOS

    null = replace(SCENARIOS["null"], diagnosis_interaction_sd=0.0, topic_interaction_sd=0.0,
                   skill_sd=0.0)  # fmt: skip
    res = release_power(null, metric="pooled_binary_om_mcc", n_conversations=[40],
                        n_participants=[8], logit_differences=[0.0], unit="conversation",
                        n_simulations=300, n_resamples=499, rng=1)  # fmt: skip
    power = float(res.table["power"].iloc[0])
    print(f"size of the paired bootstrap test of pooled MCC: {power:.4f} (300 releases)")
    assert abs(power - 0.05) < 4 * _mc_se(0.05, 300)


@pytest.mark.slow
def test_release_power_agrees_with_normal_theory():
    # Full pipeline (simulate, load, score, conversation bootstrap) without participant effects
    # or interactions: paired differences are independent across conversations, so the
    # bootstrap test is asymptotically the z test of the mean difference. Its rejection rate must
    # match normal-theory power computed from the sampling distribution of the estimates
    # (mean mu and sd s of the 200 estimated differences), within a band that covers the
    # uncertainty of mu and s (2 SE each) and the percentile bootstrap's SE factor
    # sqrt((n - 1) / n), plus 4 Monte Carlo SE of the rejection rate.
    from dataclasses import replace

    from attunestats.design.power import release_power
    from attunestats.release.simulate import SCENARIOS

    # equal base skills (skill_sd 0), so the predictors differ by exactly 0.25 logits
    cfg = replace(SCENARIOS["null"], participant_sd=0.0, diagnosis_interaction_sd=0.0,
                  topic_interaction_sd=0.0, skill_sd=0.0)  # fmt: skip
    n, n_sim = 60, 200
    res = release_power(cfg, metric="avg_pairwise_accuracy", n_conversations=[n],
                        n_participants=[12], logit_differences=[0.25], unit="conversation",
                        n_simulations=n_sim, n_resamples=499, rng=5)  # fmt: skip
    est = res.simulations["estimate"].to_numpy()
    mu, sd = abs(est.mean()), est.std(ddof=1)
    assert mu > 3 * sd / math.sqrt(n_sim), "the planted difference must show"
    se_mu, se_sd = sd / math.sqrt(n_sim), sd / math.sqrt(2 * (n_sim - 1))
    z = stats.norm.ppf(0.975)
    band = [
        stats.norm.cdf(m / (f * v) - z) + stats.norm.cdf(-m / (f * v) - z)
        for m in (mu - 2 * se_mu, mu + 2 * se_mu)
        for v in (sd - 2 * se_sd, sd + 2 * se_sd)
        for f in (1.0, math.sqrt((n - 1) / n))
    ]
    power = float(res.table["power"].iloc[0])
    mc = 4 * _mc_se(power, n_sim)
    print(f"release-simulator power {power:.3f}; normal theory {min(band):.3f}-{max(band):.3f}")
    assert min(band) - mc < power < max(band) + mc


# --------------------------------------------------------------------------------------------
# figure and CLI
# --------------------------------------------------------------------------------------------
def test_plot_power_curves_two_panels_with_label(tmp_path):
    model = ContrastModel("paired", effect=0.3, sd=1.0, icc=0.2)
    res = power_curve(model, n_conversations=[40, 80, 160], n_participants=[8, 16],
                      n_simulations=50, rng=1)  # fmt: skip
    fig = plot_power_curves(res.to_frame(), simulated=True)
    axes = fig.get_axes()
    assert len(axes) == 2
    assert axes[0].get_xlabel() == "number of conversations"
    assert axes[1].get_xlabel() == "number of participants"
    # one error-bar line and one dashed analytic line per participant count
    assert sum(1 for ln in axes[0].get_lines() if ln.get_linestyle() == "--") == 2
    assert any("SIMULATED" in t.get_text() for t in fig.texts)
    from attunestats.report.figures import save_figure

    paths = save_figure(fig, "power_curves", tmp_path)
    assert all(p.stat().st_size > 0 for p in paths)
    with pytest.raises(ValueError, match="frame lacks columns"):
        plot_power_curves(pd.DataFrame({"power": [0.5]}), simulated=True)


def test_power_result_protocol_and_rng():
    model = ContrastModel("paired", effect=0.3, sd=1.0, icc=0.2)
    kw = {"n_conversations": [40], "n_participants": [8], "n_simulations": 20}
    res = power_curve(model, rng=3, **kw)
    assert res.seed == 3
    text = str(res.summary())
    assert "Simulated power" in text and "SIMULATED DATA" in text and "Seed:" in text
    assert repr(res).startswith("<PowerResult: 1 row;") and "SIMULATED" in repr(res)
    # a SeedSequence or Generator seeds the study through root_seed; the seed is recorded
    a = power_curve(model, rng=np.random.SeedSequence(11), **kw)
    b = power_curve(model, rng=np.random.SeedSequence(11), **kw)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    again = power_curve(model, rng=a.seed, **kw)
    pd.testing.assert_frame_equal(again.to_frame(), a.to_frame())
    with pytest.raises(TypeError, match="rng must be"):
        power_curve(model, rng="seven", **kw)


def test_design_imports_no_report_or_cli_and_studies_no_power():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import attunestats.design.studies\n"
        "assert not [m for m in sys.modules if m.startswith('attunestats.design.power')]\n"
        "import attunestats.design.power, attunestats.design.coverage\n"
        "bad = [m for m in sys.modules if m.startswith(('attunestats.report', 'attunestats.cli',\n"
        "       'attunestats.artifacts'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_power_command(tmp_path, capsys):
    code = power_command(["analytic", "--effect", "0.3", "--sd", "1", "--icc", "0.2",
                          "--conversations", "100", "--participants", "10"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    expected = analytic_power(0.3, sd=1.0, n_conversations=100, n_participants=10, icc=0.2)
    assert f"{expected:.4g}" in out and "2.8" in out  # power_z and the design effect
    code = power_command(["curve", "--effect", "0.3", "--sd", "1", "--icc", "0.2",
                          "--conversations", "40", "80", "--participants", "8", "16",
                          "--simulations", "40", "--figure", str(tmp_path), "--no-progress"])  # fmt: skip
    assert code == 0
    assert (tmp_path / "figures" / "power_curves.png").exists()
    assert "minimum detectable effect" in capsys.readouterr().out
    code = power_command(["analytic", "--effect", "0.3", "--sd", "-1", "--conversations", "10"])
    assert code == 2
    assert "sd must be a positive number" in capsys.readouterr().err
