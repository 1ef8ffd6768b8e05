"""ICC (six Shrout-Fleiss forms) and Kendall's W against published values, scipy, statsmodels.

Published values: ../shared/oracles.md sections 7-8 (Shrout & Fleiss 1979 to 2 d.p.; pingouin
values computed to 6 d.p.; Kendall's W example with sum of squared deviations 1048). Mean
squares and F tests are cross-checked with statsmodels' ANOVA and scipy's one-way ANOVA, W with
scipy's Friedman test, and the exact F intervals by simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.anova import anova_lm

from attunestats.agreement import ICC_FORMS, icc, kendall_w
from attunestats.errors import AttunestatsWarning

# Shrout & Fleiss (1979): 6 targets x 4 judges, given here as judges x targets
SHROUT_FLEISS = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
).T


def close(value, published, decimals):
    assert abs(value - published) <= 0.5 * 10.0**-decimals + 1e-12, (value, published)


# form -> (Shrout & Fleiss 2 d.p., pingouin 6 d.p., CI low, CI high at 2 d.p.)
ICC_ORACLE = {
    "ICC(1,1)": (0.17, 0.165742, -0.13, 0.72),
    "ICC(A,1)": (0.29, 0.289764, 0.02, 0.76),
    "ICC(C,1)": (0.71, 0.714841, 0.34, 0.95),
    "ICC(1,k)": (0.44, 0.442797, -0.88, 0.91),
    "ICC(A,k)": (0.62, 0.620051, 0.07, 0.93),
    "ICC(C,k)": (0.91, 0.909316, 0.68, 0.99),
}


@pytest.mark.parametrize("form", ICC_FORMS)
def test_shrout_fleiss_published_values(form):
    res = icc(SHROUT_FLEISS)
    paper, computed, lo, hi = ICC_ORACLE[form]
    i = res.forms.index(form)
    close(res.statistic[i], paper, 2)
    close(res.statistic[i], computed, 6)
    close(res.confidence_interval.low[i], lo, 2)
    close(res.confidence_interval.high[i], hi, 2)


def test_mean_squares_and_f_tests_match_statsmodels_and_scipy():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(5, 30)) + rng.normal(size=30)[None, :] + np.arange(5)[:, None] * 0.3
    res = icc(x)
    long = pd.DataFrame(
        {
            "y": x.ravel(),
            "rater": np.repeat(np.arange(5), 30).astype(str),
            "unit": np.tile(np.arange(30), 5).astype(str),
        }
    )
    table = anova_lm(smf.ols("y ~ C(unit) + C(rater)", data=long).fit())
    ms = table["mean_sq"]
    assert_allclose(res.mean_squares["MSR"], ms["C(unit)"], rtol=1e-10)
    assert_allclose(res.mean_squares["MSC"], ms["C(rater)"], rtol=1e-10)
    assert_allclose(res.mean_squares["MSE"], ms["Residual"], rtol=1e-10)
    consistency = ICC_FORMS.index("ICC(C,1)")
    assert_allclose(res.fstatistic[consistency], table.loc["C(unit)", "F"], rtol=1e-10)
    assert_allclose(res.pvalue[consistency], table.loc["C(unit)", "PR(>F)"], rtol=1e-8)
    one_way = stats.f_oneway(*x.T)  # units as groups
    assert_allclose(res.fstatistic[0], one_way.statistic, rtol=1e-10)
    assert_allclose(res.pvalue[0], one_way.pvalue, rtol=1e-8)


def test_exact_f_intervals_cover_by_simulation():
    # ICC(1,.) intervals are exact under the one-way random model, ICC(C,.) under the two-way
    # model; coverage of 1000 replicates must be within 4 Monte Carlo SEs of 0.95.
    rng = np.random.default_rng(2026)
    reps, n, k = 1000, 20, 4
    s_t, s_c, s_e = 1.0, 0.5, 1.0
    cover_one, cover_c = np.zeros(2), np.zeros(2)
    one_truth = np.array([s_t / (s_t + s_e), k * s_t / (k * s_t + s_e)])
    c_truth = np.array([s_t / (s_t + s_e), k * s_t / (k * s_t + s_e)])
    one, single_c, avg_c = 0, 2, 5
    for _ in range(reps):
        targets = rng.normal(0, math.sqrt(s_t), n)
        x1 = targets[None, :] + rng.normal(0, math.sqrt(s_e), (k, n))  # one-way
        r1 = icc(x1)
        lo, hi = r1.confidence_interval
        cover_one += (lo[[one, 3]] <= one_truth) & (one_truth <= hi[[one, 3]])
        x2 = x1 + rng.normal(0, math.sqrt(s_c), k)[:, None]  # add rater effects
        r2 = icc(x2)
        lo, hi = r2.confidence_interval
        cover_c += (lo[[single_c, avg_c]] <= c_truth) & (c_truth <= hi[[single_c, avg_c]])
    tol = 4 * math.sqrt(0.95 * 0.05 / reps)
    assert np.all(np.abs(cover_one / reps - 0.95) < tol), cover_one / reps
    assert np.all(np.abs(cover_c / reps - 0.95) < tol), cover_c / reps


def test_icc_missing_units_dropped_with_warning_and_lookup():
    x = SHROUT_FLEISS.astype(float)
    x_missing = np.column_stack([x, [1.0, np.nan, 3.0, 4.0]])
    with pytest.warns(AttunestatsWarning, match="1 of 7 units"):
        res = icc(x_missing)
    assert res.n_units_dropped == 1 and res.n_units == 6
    assert_allclose(res.statistic, icc(x).statistic)
    assert res["ICC2"] == res["ICC(A,1)"]
    frame = res.to_frame()
    assert list(frame["coefficient"]) == list(ICC_FORMS) and len(frame) == 6
    with pytest.raises(KeyError, match="unknown ICC form"):
        res["ICC(4,1)"]


def test_icc_long_table_and_errors():
    long = pd.DataFrame(
        [
            {"unit": f"t{u}", "rater": f"j{r}", "value": SHROUT_FLEISS[r, u]}
            for r in range(4)
            for u in range(6)
        ]
    )
    assert_allclose(icc(long).statistic, icc(SHROUT_FLEISS).statistic)
    with pytest.raises(ValueError, match="at least 2 raters"):
        icc([[1, 2, 3]])
    with pytest.raises(ValueError, match="numeric ratings"):
        icc([["a", "b"], ["b", "a"]])
    with pytest.raises(ValueError, match="no within-unit variation"):
        icc([[1, 2, 3], [1, 2, 3]])


# --- Kendall's W ------------------------------------------------------------------------------

# 10 projects ranked by 4 judges (judges x projects); published sum of squared deviations 1048
KENDALL_PROJECTS = [
    [1, 3, 4, 5, 2, 8, 6, 7, 10, 9],
    [2, 1, 4, 5, 6, 3, 8, 7, 10, 9],
    [3, 2, 1, 5, 7, 4, 6, 8, 9, 10],
    [4, 2, 3, 1, 6, 7, 5, 9, 8, 10],
]


def test_kendall_w_published_example():
    res = kendall_w(KENDALL_PROJECTS)
    rank_sums = np.sum(KENDALL_PROJECTS, axis=0)
    assert ((rank_sums - rank_sums.mean()) ** 2).sum() == 1048  # the published sum
    close(res.statistic, 0.7939, 4)  # 12 * 1048 / (4^2 (10^3 - 10))
    close(res.chi2, 28.58, 2)
    assert res.df == 9


def test_kendall_w_strawberries_example():
    # https://influentialpoints.com/Training/coefficient_of_concordance.htm: 4 raters x 8
    # farms, W = 0.744, k(N - 1)W = 20.83, P = 0.004
    farms = [
        [8, 4, 2, 3, 5, 1, 6, 7],
        [7, 3, 1, 4, 5, 2, 6, 8],
        [8, 2, 5, 6, 7, 1, 4, 3],
        [8, 3, 4, 2, 5, 1, 6, 7],
    ]
    res = kendall_w(farms)
    close(res.statistic, 0.744, 3)
    close(res.chi2, 20.83, 2)
    close(res.pvalue, 0.004, 3)


def test_kendall_w_matches_friedman_with_ties_and_is_rank_invariant():
    rng = np.random.default_rng(9)
    for _ in range(30):
        m, n = int(rng.integers(2, 7)), int(rng.integers(3, 15))
        scores = rng.integers(0, 5, size=(m, n)).astype(float)  # many ties
        if np.any(np.ptp(scores, axis=1) == 0):
            continue
        res = kendall_w(scores)
        friedman = stats.friedmanchisquare(*scores.T)
        assert_allclose(res.chi2, friedman.statistic, rtol=1e-10)
        assert_allclose(res.pvalue, friedman.pvalue, rtol=1e-8)
        # a strictly increasing transform of one rater's scores changes nothing
        transformed = scores.copy()
        transformed[0] = np.exp(transformed[0]) * 3 - 1
        assert_allclose(kendall_w(transformed).statistic, res.statistic, atol=1e-14)


def test_kendall_w_perfect_concordance_missing_and_errors():
    assert_allclose(kendall_w([[1, 2, 3, 4], [10, 20, 30, 40], [0, 1, 2, 3]]).statistic, 1.0)
    with pytest.warns(AttunestatsWarning, match="1 of 5 units"):
        res = kendall_w([[1, 2, 3, 4, 5], [1, 3, 2, 4, np.nan]])
    assert res.n_units == 4 and res.n_units_dropped == 1
    assert res.to_frame().loc[0, "coefficient"] == "kendall_w"
    with pytest.raises(ValueError, match="at least 2 raters"):
        kendall_w([[1, 2, 3]])
    with pytest.raises(ValueError, match="W is undefined"):
        kendall_w([[1, 1, 1], [2, 2, 2]])


def test_forms_with_a_nonpositive_denominator_are_undefined_not_impossible():
    # 3 raters x 4 units that differ less than the raters' noise: ICC(A,k)'s ANOVA denominator
    # MSR + (MSC - MSE) / n is negative (MSR 0.083, MSC 1, MSE 3.33) and the formula gave 6.5,
    # an impossible value; it is NaN with a warning, and the other forms keep their formulas
    from attunestats.errors import AttunestatsWarning

    data = [[4, 2, 4, 5], [4, 5, 1, 1], [2, 3, 4, 4]]
    with pytest.warns(AttunestatsWarning, match=r"ICC\(A,k\) undefined"):
        res = icc(data)
    ms = res.mean_squares
    n, k = 4, 3
    assert ms["MSR"] + (ms["MSC"] - ms["MSE"]) / n < 0
    forms = dict(zip(res.forms, res.statistic, strict=True))
    assert np.isnan(forms["ICC(A,k)"])
    assert np.isnan(res.confidence_interval.low[4]) and np.isnan(res.confidence_interval.high[4])
    msr, msc, mse, msw = ms["MSR"], ms["MSC"], ms["MSE"], ms["MSW"]
    assert forms["ICC(1,1)"] == pytest.approx((msr - msw) / (msr + (k - 1) * msw))
    assert forms["ICC(A,1)"] == pytest.approx(
        (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    )
    assert forms["ICC(C,k)"] == pytest.approx((msr - mse) / msr)
    # units with identical means: MSR = 0, the average-measure forms divide by 0
    with pytest.warns(AttunestatsWarning, match="undefined"):
        flat = icc([[1, 2], [2, 1]])
    assert np.isnan(dict(zip(flat.forms, flat.statistic, strict=True))["ICC(1,k)"])
    assert not np.isinf(flat.statistic).any()
