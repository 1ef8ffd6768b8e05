"""Participant-level inference (the population of participants) against closed forms, hand loops,
R's clubSandwich, Welch's test and an independent simulation.

The independent generator here is deliberately not the package's release simulator: clustered
binomial outcomes with logistic participant effects, unequal participants, and truths computed
from the generator's own closed-form expectation.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.inference.participants import (
    ParticipantDesign,
    anova_icc,
    cr2_variance,
    influence_values,
    participant_inference,
    working_df,
)
from attunestats.inference.sums import mean_statistic, ratio_statistic


def _design(sizes: list[int], **extra: list) -> pd.DataFrame:
    pid = np.repeat([f"p{i:02d}" for i in range(len(sizes))], sizes)
    frame = pd.DataFrame({"conversation_id": [f"c{i:03d}" for i in range(len(pid))],
                          "participant_id": pid})  # fmt: skip
    for key, per_participant in extra.items():
        frame[key] = np.repeat(per_participant, sizes)
    return frame


def _labels(*names: str) -> pd.DataFrame:
    return pd.DataFrame({"metric": list(names)})


# --------------------------------------------------------------------------------------------
# closed forms
# --------------------------------------------------------------------------------------------
def test_balanced_mean_is_the_t_interval_on_participant_means():
    rng = np.random.default_rng(1)
    sizes = [7] * 9
    y = rng.normal(size=sum(sizes)) + np.repeat(rng.normal(size=9), sizes)
    res = participant_inference(mean_statistic(y[:, None], _labels("y")), _design(sizes))
    means = y.reshape(9, 7).mean(axis=1)
    expected = stats.ttest_1samp(means, 0.0).confidence_interval(0.95)
    np.testing.assert_allclose(res.standard_error[0], means.std(ddof=1) / 3.0, rtol=1e-10)
    np.testing.assert_allclose(res.df[0], 8.0, rtol=1e-10)  # equal participants: P - 1
    np.testing.assert_allclose([res.ci_low[0], res.ci_high[0]], [expected.low, expected.high],
                               rtol=1e-10)  # fmt: skip
    assert "population of participants" in res.describe() and "jackknife" in res.describe()


def test_jackknife_of_a_pooled_ratio_matches_a_hand_loop_with_unequal_participants():
    rng = np.random.default_rng(2)
    sizes = [3, 9, 4, 12, 6, 2, 8]
    n = rng.integers(5, 40, size=sum(sizes)).astype(float)
    y = rng.binomial(n.astype(int), 0.6).astype(float)
    design = _design(sizes)
    res = participant_inference(ratio_statistic(y[:, None], n[:, None], _labels("acc")), design)
    pid = design["participant_id"].to_numpy()
    reps = np.array([y[pid != p].sum() / n[pid != p].sum() for p in np.unique(pid)])
    P = len(reps)
    v = (P - 1) / P * np.sum((reps - reps.mean()) ** 2)
    np.testing.assert_allclose(res.estimate[0], y.sum() / n.sum(), rtol=1e-12)
    np.testing.assert_allclose(res.standard_error[0] ** 2, v, rtol=1e-10)


def test_paired_difference_uses_the_same_replicates():
    rng = np.random.default_rng(3)
    sizes = [5, 8, 3, 6, 9, 4]
    a = rng.normal(size=sum(sizes))
    b = a + 0.3 + rng.normal(scale=0.5, size=sum(sizes))
    res = participant_inference(mean_statistic(np.column_stack([a, b]), _labels("a", "b")),
                                _design(sizes))  # fmt: skip
    diff = res.contrast(np.array([1.0, -1.0]))
    direct = participant_inference(mean_statistic((a - b)[:, None], _labels("d")), _design(sizes))
    np.testing.assert_allclose(diff["estimate"], direct.estimate, rtol=1e-12)
    np.testing.assert_allclose(diff["standard_error"], direct.standard_error, rtol=1e-10)
    np.testing.assert_allclose(diff["df"], direct.df, rtol=1e-10)
    t = direct.estimate / direct.standard_error
    np.testing.assert_allclose(diff["pvalue"], 2 * stats.t.sf(np.abs(t), direct.df), rtol=1e-10)


def test_stratified_group_contrast_is_welchs_test_on_participant_means():
    rng = np.random.default_rng(4)
    sizes = [6] * 10
    group = ["g1"] * 4 + ["g2"] * 6
    y = rng.normal(size=60) + np.repeat(rng.normal(scale=[0.5] * 4 + [1.5] * 6), sizes)
    in1 = np.repeat([g == "g1" for g in group], sizes).astype(float)
    values = np.column_stack([np.where(in1 == 1, y, np.nan), np.where(in1 == 0, y, np.nan)])
    res = participant_inference(mean_statistic(values, _labels("m1", "m2")),
                                _design(sizes, diagnosis_group=group), strata="diagnosis_group")  # fmt: skip
    con = res.contrast(np.array([1.0, -1.0]))
    means = y.reshape(10, 6).mean(axis=1)
    welch = stats.ttest_ind(means[:4], means[4:], equal_var=False)
    s1, s2 = means[:4].var(ddof=1) / 4, means[4:].var(ddof=1) / 6
    np.testing.assert_allclose(con["standard_error"][0], np.sqrt(s1 + s2), rtol=1e-10)
    np.testing.assert_allclose(con["df"][0], welch.df, rtol=1e-10)
    np.testing.assert_allclose(con["pvalue"][0], welch.pvalue, rtol=1e-10)
    # the labels say which df these are (Welch's over the strata, not the working model's)
    assert "Satterthwaite df over the strata" in res.describe()
    assert "working-model" not in res.describe() and "working-model" not in str(res.summary())


def test_influence_values_of_a_ratio_are_its_linearisation():
    rng = np.random.default_rng(5)
    n = rng.integers(3, 20, size=30).astype(float)
    y = rng.binomial(n.astype(int), 0.4).astype(float)
    infl = influence_values(ratio_statistic(y[:, None], n[:, None], _labels("r")))
    theta = y.sum() / n.sum()
    np.testing.assert_allclose(infl[:, 0], (y - theta * n) / n.sum(), rtol=1e-6, atol=1e-12)


def test_working_df_is_the_satterthwaite_df_of_the_full_quadratic_form():
    """The P x P reduction against the N x N computation: v_J = y' Q y, y ~ N(mu, Phi(rho)),
    df = tr(Q Phi)^2 / tr((Q Phi)^2); likewise for CR2."""
    sizes = np.array([9, 4, 13, 6, 3, 8])
    N, P = sizes.sum(), len(sizes)
    pid = np.repeat(np.arange(P), sizes)
    # jackknife replicate p is a_p' y with a_p the mean over the other participants
    A = np.array([(pid != p) / (N - sizes[p]) for p in range(P)])
    Abar = A - A.mean(axis=0)
    Q_j = (P - 1) / P * Abar.T @ Abar
    # CR2: sum_p (1_p' e)^2 / (1 - n_p / N) / N^2 with e = (I - J/N) y
    M = np.eye(N) - 1.0 / N
    Q_c = sum(M.T @ np.outer(pid == p, pid == p) @ M / (1 - sizes[p] / N) for p in range(P)) / N**2
    for rho in (0.0, 0.2, 0.7):
        phi = (1 - rho) * np.eye(N) + rho * (pid[:, None] == pid[None, :])
        for kind, Q in (("jackknife", Q_j), ("cr2", Q_c)):
            QP = Q @ phi
            expected = np.trace(QP) ** 2 / np.trace(QP @ QP)
            np.testing.assert_allclose(working_df(sizes, np.array([rho]), kind=kind)[0],
                                       expected, rtol=1e-9)  # fmt: skip


def test_working_df_is_p_minus_one_for_equal_participants_and_smaller_otherwise():
    eq = working_df(np.full(8, 10), np.array([0.0, 0.3, 0.9]), kind="jackknife")
    np.testing.assert_allclose(eq, 7.0, rtol=1e-12)
    uneq = working_df(np.array([30, 3, 3, 3, 3, 3, 3, 3]), np.array([0.5]), kind="jackknife")
    assert uneq[0] < 7.0


def test_anova_icc_matches_the_one_way_anova_formula_on_balanced_data():
    rng = np.random.default_rng(6)
    g, m = 12, 5
    y = np.repeat(rng.normal(size=g), m) + rng.normal(size=g * m)
    codes = np.repeat(np.arange(g), m)
    msb = m * np.var(y.reshape(g, m).mean(axis=1), ddof=1)
    msw = np.sum((y.reshape(g, m) - y.reshape(g, m).mean(axis=1, keepdims=True)) ** 2) / (
        g * (m - 1)
    )
    expected = max((msb - msw) / m, 0) / (max((msb - msw) / m, 0) + msw)
    np.testing.assert_allclose(anova_icc(y[:, None], codes, g)[0], expected, rtol=1e-10)


def test_design_errors_name_the_problem():
    d = _design([3, 3])
    with pytest.raises(ValueError, match="at least 2 participants"):
        participant_inference(mean_statistic(np.ones((3, 1)), _labels("y")), _design([3]))
    with pytest.raises(ValueError, match="strata column 'group' is not in the design"):
        ParticipantDesign.from_design(d, strata="group")
    d2 = _design([3, 3, 2], group=["a", "b", "b"])
    with pytest.raises(ValueError, match=r"fewer than 2 participants"):
        participant_inference(mean_statistic(np.arange(8.0)[:, None], _labels("y")), d2,
                              strata="group")  # fmt: skip
    d3 = d.copy()
    d3["group"] = ["a", "b", "a", "a", "a", "a"]
    with pytest.raises(ValueError, match="not constant within participant"):
        ParticipantDesign.from_design(d3, strata="group")
    with pytest.raises(ValueError, match="method must be one of"):
        participant_inference(mean_statistic(np.ones((6, 1)), _labels("y")), d, method="wild")


# --------------------------------------------------------------------------------------------
# independent implementation: R clubSandwich
# --------------------------------------------------------------------------------------------
def _r_has(package: str) -> bool:
    if shutil.which("Rscript") is None:
        return False
    code = f"quit(status = if (requireNamespace('{package}', quietly = TRUE)) 0 else 1)"
    return subprocess.run(["Rscript", "-e", code], capture_output=True).returncode == 0


@pytest.mark.skipif(not _r_has("clubSandwich"),
                    reason="R with clubSandwich is not installed (Debian: r-cran-clubsandwich)")  # fmt: skip
def test_cr2_se_and_satterthwaite_df_match_clubsandwich(tmp_path):
    rng = np.random.default_rng(7)
    sizes = [3, 5, 8, 2, 6, 4, 9]
    y = rng.normal(size=sum(sizes)) + np.repeat(rng.normal(size=7), sizes)
    design = _design(sizes)
    pd.DataFrame({"y": y, "g": design["participant_id"]}).to_csv(tmp_path / "d.csv", index=False)
    script = (
        f"library(clubSandwich); d <- read.csv('{tmp_path / 'd.csv'}'); m <- lm(y ~ 1, data = d);"
        "t <- coef_test(m, vcov = vcovCR(m, cluster = d$g, type = 'CR2'), test = 'Satterthwaite');"
        "cat(sprintf('%.12f %.12f', t$SE, t$df_Satt))"
    )
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True)
    se_r, df_r = map(float, out.stdout.split())
    infl = influence_values(mean_statistic(y[:, None], _labels("y")))
    codes = ParticipantDesign.from_design(design).participant
    variance, df = cr2_variance(infl, codes, 7)
    np.testing.assert_allclose(np.sqrt(variance[0]), se_r, rtol=1e-7)
    np.testing.assert_allclose(df[0], df_r, rtol=1e-7)
    # the working-model df at rho = 0 is the same Satterthwaite df
    np.testing.assert_allclose(working_df(np.array(sizes), np.array([0.0]), kind="cr2")[0], df_r,
                               rtol=1e-7)  # fmt: skip


# --------------------------------------------------------------------------------------------
# simulation with an independent generator: coverage, size, SE calibration
# --------------------------------------------------------------------------------------------
def _clustered(rng, n_part: int, icc: float, effect: float):
    """Binomial judgements per conversation; logistic participant effects (outcome and paired
    difference) at latent ICC ``icc``; participants with shares 1/sqrt(p)."""
    w = 1 / np.sqrt(np.arange(1, n_part + 1))
    sizes = np.maximum(2, rng.multinomial(18 * n_part, w / w.sum()))
    sd_c = 0.5
    sd_p = sd_c * np.sqrt(icc / (1 - icc))
    pid = np.repeat(np.arange(n_part), sizes)
    eta = 0.85 + (sd_p * rng.standard_normal(n_part))[pid] + sd_c * rng.standard_normal(len(pid))
    eta_b = (
        eta
        + effect
        + (sd_p * rng.standard_normal(n_part))[pid]
        + sd_c * rng.standard_normal(len(pid))
    )
    n = rng.integers(10, 40, size=len(pid))
    ya = rng.binomial(n, 1 / (1 + np.exp(-eta)))
    yb = rng.binomial(n, 1 / (1 + np.exp(-eta_b)))
    design = pd.DataFrame({"conversation_id": np.arange(len(pid)).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    return design, ya.astype(float), yb.astype(float), n.astype(float)


@pytest.mark.parametrize("n_part,icc", [(6, 0.5), (11, 0.1), (20, 0.5)])
def test_coverage_and_size_with_an_independent_generator(n_part, icc):
    """400 datasets per cell: 95% intervals of a pooled accuracy and of a null paired difference
    (two equally good models) cover at the nominal rate within Monte Carlo error (4 SE), and the
    null test rejects at about 5%."""
    rng = np.random.default_rng(100 + n_part)
    # truth: population accuracy E[p] of the generator, by quadrature over both effects
    sd_c = 0.5
    sd_p = sd_c * np.sqrt(icc / (1 - icc))
    z, wts = np.polynomial.hermite_e.hermegauss(80)
    sd_tot = np.sqrt(sd_p**2 + sd_c**2)
    truth = float(np.sum(wts / np.sqrt(2 * np.pi) / (1 + np.exp(-(0.85 + sd_tot * z)))))
    n_rep = 400
    covered = rejected = 0
    for _ in range(n_rep):
        design, ya, yb, n = _clustered(rng, n_part, icc, effect=0.0)
        stat = ratio_statistic(
            np.column_stack([ya, yb]), np.column_stack([n, n]), _labels("a", "b")
        )
        res = participant_inference(stat, design)
        covered += res.ci_low[0] <= truth <= res.ci_high[0]
        diff = res.contrast(np.array([1.0, -1.0]))
        rejected += diff["pvalue"][0] < 0.05
    mc = np.sqrt(0.95 * 0.05 / n_rep)
    assert abs(covered / n_rep - 0.95) < 4 * mc, covered / n_rep
    assert abs(rejected / n_rep - 0.05) < 4 * mc, rejected / n_rep


def test_infer_scores_names_the_metrics_no_conversation_defines():
    # runs without any predicted emotion tags: no predicted tag matches a ground-truth tag, so
    # the intensity error of matched tags (avg_emotion_intensity_mae) is undefined on every
    # conversation of every predictor; the rows stay (NaN) and one warning names the metric
    import copy

    import attunestats as at
    from attunestats.errors import AttunestatsWarning
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import SimulationConfig, simulate_documents

    docs = simulate_documents(SimulationConfig(n_conversations=24), rng=5)
    runs = copy.deepcopy(docs.runs)
    for files in runs.values():
        for run in files.values():
            for turn in run["turns"]:
                turn.pop("em_emotion_tags", None)
    release = release_from_documents(docs.conversations, runs, docs.release_info)
    scores = at.score(release)
    with pytest.warns(
        AttunestatsWarning, match=r"avg_emotion_intensity_mae \(all \d+ predictors\)"
    ):
        res = at.infer_scores(scores)
    frame = res.to_frame()
    mae = frame[frame["metric"] == "avg_emotion_intensity_mae"]
    assert len(mae) == frame["predictor"].nunique() and mae["estimate"].isna().all()
    assert frame.loc[frame["metric"] != "avg_emotion_intensity_mae", "estimate"].notna().all()
