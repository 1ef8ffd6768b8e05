"""Cohen's, Fleiss' and Gwet's coefficients against published values and statsmodels.

Published values: ../shared/oracles.md sections 4-6 (SAS PROC FREQ printout, R irr, Fleiss
1971, Wikipedia, irrCAC / Gwet 2014 handbook datasets). Cross-checks: statsmodels.stats.
inter_rater on random tables. Standard-error definitions are also checked by simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from attunestats.agreement import agreement_weights, cohen_kappa, fleiss_kappa, gwet_ac1

nan = np.nan
N = None

# Krippendorff (2011) / Gwet (2014) raw_4raters, raters x units
RAW_4RATERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]
RAW_5OBSERVERS = [
    [1, 1, 2, N, 0, 0, 1, 1, 2, 2, N, 0, 1, 3, 1],
    [1, 1, 3, 0, 0, 0, 0, N, 2, 1, 1, 0, 2, 3, 1],
    [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
    [N, 1, 3, N, N, N, N, 0, N, 1, 0, 0, 2, 2, N],
    [2, N, N, 0, 0, 0, 1, N, 2, N, N, N, N, 3, 1],
]
RAW_G1G2 = [
    [*"abccbadab", N, N, N, "b", "b"],
    [*"abccbbdab", "e", N, N, "b", "a"],
    [N, *"cccbcdbbeacc", "c"],
    [*"abccbdd", "a", "b", "e", "a", N, "b", "b"],
]
RAW_GENDER = [list("aaaaabbbcaaaaab"), list("aaaababccaaaaba"), list("abbcaabbcabbcaa"),
              list("ccccaabbcccccaa")]  # fmt: skip
RAW_BEN_GERRY = [list("aabbdcccedda"), [*"abbbbccce", N, "d", "d"]]
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
DIAGNOSIS_4X4 = [[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]]
WIKI_FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
               [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
               [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]  # fmt: skip
# Fleiss (1971) psychiatric diagnoses, 30 subjects x 6 raters (R irr::diagnoses)
DIAGNOSES = np.array(
    [[4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
     [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
     [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
     [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
     [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
     [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
     [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
     [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]]
)  # fmt: skip
# R irr::anxiety, 20 subjects x 3 raters
ANXIETY = np.array(
    [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3,
     3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4,
     2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]
).reshape(20, 3, order="F")  # fmt: skip


def close(value, published, decimals):
    """Equal to the published value at its printed precision (half a unit in the last place)."""
    assert abs(value - published) <= 0.5 * 10.0**-decimals + 1e-12, (value, published)


# --- Cohen's kappa ---------------------------------------------------------------------------


def test_cohen_sas_unweighted():
    # SAS PROC FREQ printout (statsmodels TestUnweightedCohens), 4 d.p.
    res = cohen_kappa(table=[[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    close(res.statistic, 0.4842, 4)
    close(res.standard_error, 0.1380, 4)
    close(res.confidence_interval.low, 0.2137, 4)
    close(res.confidence_interval.high, 0.7547, 4)
    close(res.standard_error_h0, 0.1484, 4)
    close(res.zstatistic, 3.2626, 4)
    close(res.pvalue, 0.0011, 4)
    greater = cohen_kappa(table=[[0, 4, 1], [0, 8, 0], [0, 1, 5]], alternative="greater")
    close(greater.pvalue, 0.0006, 4)


def test_cohen_sas_weighted():
    # SAS weights [0, 1, 2] (statsmodels TestWeightedCohens) = Cicchetti-Allison linear weights
    res = cohen_kappa(table=[[0, 4, 1], [0, 8, 0], [0, 1, 5]], weights="linear")
    close(res.statistic, 0.4701, 4)
    close(res.standard_error, 0.1457, 4)
    close(res.confidence_interval.low, 0.1845, 4)
    close(res.confidence_interval.high, 0.7558, 4)
    close(res.standard_error_h0, 0.1426, 4)
    close(res.zstatistic, 3.2971, 4)
    close(res.pvalue, 0.0010, 4)
    close(cohen_kappa(table=res.table, weights="linear", alternative="greater").pvalue, 0.0005, 4)


@pytest.mark.parametrize(
    ("weights", "kappa", "z", "p"),
    [
        (None, "-0.006289308", "-0.0604067", "0.9518317"),
        ("linear", "0.1459075", "1.282472", "0.1996772"),
        ("quadratic", "0.2520325", "1.437451", "0.1505898"),
    ],
)
def test_cohen_r_irr_anxiety(weights, kappa, z, p):
    # R irr::kappa2(anxiety[, 2:3]) with "unweighted", "equal", "squared"; irr drops the unused
    # level 5 and weights by level position, i.e. a table over the used levels. Printed values
    # (7 significant digits) are compared at their printed precision.
    table = np.histogramdd(ANXIETY[:, 1:], ([1, 2, 3, 4, 6, 7], [1, 2, 3, 4, 6, 7]))[0]
    res = cohen_kappa(table=table, weights=weights)
    for value, printed in [(res.statistic, kappa), (res.zstatistic, z), (res.pvalue, p)]:
        close(value, float(printed), len(printed.split(".")[1]))


def test_cohen_custom_weight_matrix_r_irr():
    # kappa2(anxiety[, 2:3], c(0, 0, 1, 1, 2)): disagreement 0,0,1,1,2 by level distance
    table = np.histogramdd(ANXIETY[:, 1:], ([1, 2, 3, 4, 6, 7], [1, 2, 3, 4, 6, 7]))[0]
    d = np.array([0, 0, 1, 1, 2.0])
    i = np.arange(5)
    w = 1 - d[np.abs(i[:, None] - i[None, :])] / d.max()
    res = cohen_kappa(table=table, weights=w)
    close(res.statistic, 0.2391304, 7)
    close(res.zstatistic, 1.223734, 6)
    assert res.weights == "custom"


def test_cohen_gwet_abstractors():
    # irrCAC vignette: 0.7964094, SE 0.05891072, CI (0.68, 0.913); irrCAC's interval uses
    # t(n - 1) quantiles, so it is rebuilt here from our SE under that convention
    res = cohen_kappa(table=ABSTRACTORS)
    close(res.statistic, 0.7964094, 7)
    close(res.standard_error, 0.05891072, 8)
    t = stats.t.ppf(0.975, 99)
    close(res.statistic - t * res.standard_error, 0.68, 2)
    close(res.statistic + t * res.standard_error, 0.913, 3)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_matches_statsmodels_on_random_tables(weights):
    rng = np.random.default_rng(31)
    for _ in range(30):
        q = int(rng.integers(2, 7))
        table = rng.integers(0, 15, size=(q, q)) + np.diag(rng.integers(0, 20, size=q))
        ref = cohens_kappa(table, wt=weights)
        res = cohen_kappa(table=table, weights=weights)
        assert_allclose(res.statistic, ref.kappa, atol=1e-12)
        assert_allclose(res.standard_error, ref.std_kappa, rtol=1e-10)
        assert_allclose(res.standard_error_h0, ref.std_kappa0, rtol=1e-10)
        assert_allclose(res.pvalue, ref.pvalue_two_sided, atol=1e-12)


def test_cohen_raw_data_equals_table_and_drops_incomplete_units():
    a = [1, 2, 3, 3, 2, 1, 1, nan, 2]
    b = [1, 2, 3, 2, 2, 1, 3, 3, nan]
    res = cohen_kappa([a, b], weights="quadratic")
    table = np.zeros((3, 3))
    for x, y in zip(a, b, strict=True):
        if not (np.isnan(x) or np.isnan(y)):
            table[int(x) - 1, int(y) - 1] += 1
    ref = cohen_kappa(table=table, weights="quadratic")
    assert_allclose(res.statistic, ref.statistic, atol=1e-14)
    assert_allclose(res.standard_error, ref.standard_error, atol=1e-14)
    assert res.n_units == 7
    long = pd.DataFrame(
        [{"unit": u, "rater": r, "value": v} for r, row in enumerate([a, b])
         for u, v in enumerate(row) if not np.isnan(v)]
    )  # fmt: skip
    assert_allclose(cohen_kappa(long, weights="quadratic").statistic, ref.statistic)
    frame = res.to_frame()
    assert frame.loc[0, "coefficient"] == "weighted_cohen_kappa"
    assert frame.loc[0, "ci_low"] == res.confidence_interval.low


def test_cohen_relabelling_invariance():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 4, size=(2, 60))
    names = np.array(["joy", "anger", "fear", "calm"], dtype=object)
    assert_allclose(cohen_kappa(names[x]).statistic, cohen_kappa(x).statistic, atol=1e-14)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"data": [[1, 2], [1, 2], [2, 2]]}, ValueError, "exactly 2 raters; data has 3"),
        ({"table": [[1, 2, 3], [1, 2, 3]]}, ValueError, "square contingency table"),
        ({"table": [[1, -2], [1, 2]]}, ValueError, "non-negative"),
        ({}, ValueError, "exactly one of data or table"),
        ({"data": [[1, 2], [1, 2]], "table": [[1, 0], [0, 1]]}, ValueError, "exactly one"),
        ({"table": [[1, 2], [3, 4]], "weights": np.eye(3)}, ValueError, "must be 2 x 2"),
        ({"table": [[1, 2], [3, 4]], "weights": [[0.5, 0], [0, 1]]}, ValueError, "diagonal"),
        ({"table": [[1, 2], [3, 4]], "weights": "cubic"}, ValueError, "weights must be one of"),
        ({"table": [[1, 2], [3, 4]], "alternative": "bigger"}, ValueError, "alternative"),
        ({"table": [[5, 0], [0, 0]]}, ValueError, "chance agreement is 1"),
        ({"data": [[1, nan], [nan, 2]]}, ValueError, "no unit is rated by both raters"),
    ],
)
def test_cohen_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        cohen_kappa(**kwargs)


# --- Fleiss' kappa ---------------------------------------------------------------------------


def test_fleiss_wikipedia_and_statsmodels():
    res = fleiss_kappa(counts=WIKI_FLEISS)
    close(res.statistic, 0.210, 3)  # published
    assert_allclose(res.statistic, sm_fleiss_kappa(np.array(WIKI_FLEISS)), atol=1e-12)
    randolph = fleiss_kappa(counts=WIKI_FLEISS, method="randolph")
    assert_allclose(
        randolph.statistic, sm_fleiss_kappa(np.array(WIKI_FLEISS), method="randolph"), atol=1e-12
    )
    assert np.isnan(randolph.standard_error_h0)


def test_fleiss_1971_diagnoses_r_irr():
    # R irr::kappam.fleiss(diagnoses): kappa 0.4302445, z 17.65183 (Fleiss-Nee-Landis SE)
    res = fleiss_kappa(DIAGNOSES.T)
    close(res.statistic, 0.4302445, 7)
    close(res.zstatistic_h0, 17.65183, 5)
    assert res.pvalue_h0 < 1e-60
    counts = aggregate_raters(DIAGNOSES)[0]
    assert_allclose(fleiss_kappa(counts=counts).statistic, res.statistic, atol=1e-14)


def test_fleiss_missing_ratings_irrcac():
    # irrCAC fleiss() on raw_4raters: 0.761, pa 0.818, pe 0.239, SE 0.15302 (docstring, 5 d.p.),
    # CI (0.424, 1), p 0.00042
    res = fleiss_kappa(RAW_4RATERS)
    close(res.statistic, 0.761, 3)
    close(res.p_observed, 0.818, 3)
    close(res.p_expected, 0.239, 3)
    close(res.standard_error, 0.15302, 5)
    close(res.confidence_interval.low, 0.424, 3)
    assert res.confidence_interval.high == 1.0
    close(res.pvalue, 0.00042, 5)
    assert np.isnan(res.standard_error_h0)  # raters per unit vary


@pytest.mark.parametrize("method", ["fleiss", "randolph"])
def test_fleiss_matches_statsmodels_on_random_complete_data(method):
    rng = np.random.default_rng(8)
    for _ in range(30):
        raters, units, q = (
            int(rng.integers(2, 8)),
            int(rng.integers(3, 40)),
            int(rng.integers(2, 6)),
        )
        x = rng.integers(0, q, size=(raters, units))
        counts = np.stack([(x == c).sum(axis=0) for c in range(q)], axis=1)
        ref = sm_fleiss_kappa(counts, method=method)
        assert_allclose(fleiss_kappa(counts=counts, method=method).statistic, ref, atol=1e-12)
        raw = fleiss_kappa(x, method=method, value_domain=range(q))
        assert_allclose(raw.statistic, ref, atol=1e-12)


def test_fleiss_standard_errors_by_simulation():
    # Fleiss-Nee-Landis SE0 is the SD of kappa under H0 (raters independent, fixed category
    # probabilities); Gwet's SE is the SD under the alternative, conditional on the raters.
    # Tolerance: 4 Monte Carlo SEs of an SD estimated from R replicates, 1/sqrt(2(R-1)) relative,
    # plus the O(1/n) bias of both asymptotic formulas (n = 60 units).
    rng = np.random.default_rng(77)
    reps, units, raters = 1500, 60, 5
    p = np.array([0.5, 0.3, 0.2])
    kappas, se0 = [], []
    for _ in range(reps):
        x = rng.choice(3, size=(raters, units), p=p)
        res = fleiss_kappa(x, value_domain=[0, 1, 2])
        kappas.append(res.statistic)
        se0.append(res.standard_error_h0)
    tol = 4 / math.sqrt(2 * (reps - 1)) + 2 / units
    assert abs(np.mean(se0) / np.std(kappas, ddof=1) - 1) < tol
    kappas, se = [], []
    for _ in range(reps):
        truth = rng.choice(3, size=units, p=p)
        keep = rng.random((raters, units)) < 0.7
        x = np.where(keep, truth, rng.choice(3, size=(raters, units), p=p)).astype(float)
        x[rng.random(x.shape) < 0.1] = nan  # missing ratings
        res = fleiss_kappa(x, value_domain=[0, 1, 2])
        kappas.append(res.statistic)
        se.append(res.standard_error)
    assert abs(np.mean(se) / np.std(kappas, ddof=1) - 1) < tol


def test_fleiss_errors():
    with pytest.raises(ValueError, match="exactly one of data or counts"):
        fleiss_kappa()
    with pytest.raises(ValueError, match="non-negative integer counts"):
        fleiss_kappa(counts=[[1.5, 2], [1, 2]])
    with pytest.raises(ValueError, match="single category"):
        fleiss_kappa([[1, 1, 1], [1, 1, 1]])
    with pytest.raises(ValueError, match="no unit has ratings from two or more raters"):
        fleiss_kappa([[1, nan], [nan, 2]])
    with pytest.raises(ValueError, match="method must be one of"):
        fleiss_kappa(RAW_4RATERS, method="scott")
    with pytest.raises(ValueError, match="value_domain has 2 values but counts has 5 columns"):
        fleiss_kappa(counts=WIKI_FLEISS, value_domain=["a", "b"])


# --- Gwet's AC1 / AC2 -------------------------------------------------------------------------

# irrCAC test_gwet.py (raw): weights -> (pa, pe, coefficient, se, ci_low, ci_high, p, p digits)
GWET_RAW_4RATERS = {
    None: (0.818, 0.190, 0.775, 0.143, 0.461, 1, 0.00021, 5),
    "bipolar": (0.968, 0.682, 0.900, 0.106, 0.667, 1, 4e-6, 6),
    "circular": (0.902, 0.426, 0.830, 0.133, 0.538, 1, 6e-5, 5),
    "linear": (0.939, 0.571, 0.859, 0.117, 0.600, 1, 2e-5, 5),
    "ordinal": (0.968, 0.685, 0.899, 0.107, 0.664, 1, 4e-6, 6),
    "quadratic": (0.975, 0.714, 0.914, 0.104, 0.685, 1, 3e-6, 6),
    "radical": (0.897, 0.430, 0.820, 0.128, 0.537, 1, 5e-5, 5),
    "ratio": (0.954, 0.678, 0.857, 0.122, 0.589, 1, 2e-5, 5),
}


@pytest.mark.parametrize("weights", list(GWET_RAW_4RATERS))
def test_gwet_raw_4raters_all_weights(weights):
    pa, pe, coef, se, lo, hi, p, digits = GWET_RAW_4RATERS[weights]
    res = gwet_ac1(RAW_4RATERS, weights=weights)
    close(res.p_observed, pa, 3)
    close(res.p_expected, pe, 3)
    close(res.statistic, coef, 3)
    close(res.standard_error, se, 3)
    close(res.confidence_interval.low, lo, 3)
    assert res.confidence_interval.high == hi
    close(res.pvalue, p, digits)
    assert res.coefficient == ("AC1" if weights is None else "AC2")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (RAW_5OBSERVERS, (0.616, 0.236, 0.497, 0.122, 0.235, 0.758, 0.00114)),
        (RAW_G1G2, (0.744, 0.187, 0.685, 0.134, 0.396, 0.973, 0.00019)),
        (RAW_GENDER, (0.456, 0.312, 0.208, 0.091, 0.014, 0.403, 0.03776)),
        (RAW_BEN_GERRY, (0.727, 0.194, 0.661, 0.184, 0.257, 1, 0.00420)),
    ],
    ids=["raw_5observers", "raw_g1g2", "raw_gender", "raw_ben_gerry"],
)
def test_gwet_raw_datasets(data, expected):
    pa, pe, coef, se, lo, hi, p = expected
    res = gwet_ac1(data)
    close(res.p_observed, pa, 3)
    close(res.p_expected, pe, 3)
    close(res.statistic, coef, 3)
    close(res.standard_error, se, 3)
    close(res.confidence_interval.low, lo, 3)
    close(res.confidence_interval.high, hi, 3)
    close(res.pvalue, p, 5)


def test_gwet_table_abstractors_5dp():
    # irrCAC table docstring: AC1 0.84933, SE 0.04322, CI (0.76358, 0.93508), pa 0.89,
    # pe 0.26992; quadratic AC2 0.94024, SE 0.01792, CI (0.90468, 0.97579), pe 0.53985
    res = gwet_ac1(table=ABSTRACTORS)
    close(res.statistic, 0.84933, 5)
    close(res.standard_error, 0.04322, 5)
    close(res.confidence_interval.low, 0.76358, 5)
    close(res.confidence_interval.high, 0.93508, 5)
    close(res.p_observed, 0.89, 5)
    close(res.p_expected, 0.26992, 5)
    quad = gwet_ac1(table=ABSTRACTORS, weights="quadratic")
    close(quad.statistic, 0.94024, 5)
    close(quad.standard_error, 0.01792, 5)
    close(quad.confidence_interval.low, 0.90468, 5)
    close(quad.confidence_interval.high, 0.97579, 5)
    close(quad.p_expected, 0.53985, 5)


# irrCAC table/test_gwet.py: weights -> (coefficient, ci_low, ci_high) [, se for 4x4]
GWET_TABLE = {
    "abstractors": {
        None: (0.849, 0.764, 0.935), "bipolar": (0.925, 0.881, 0.969),
        "circular": (0.849, 0.764, 0.935), "linear": (0.900, 0.842, 0.958),
        "ordinal": (0.925, 0.881, 0.969), "quadratic": (0.940, 0.905, 0.976),
        "radical": (0.875, 0.804, 0.947), "ratio": (0.963, 0.942, 0.985),
    },
    "diagnosis": {
        None: (0.456, 0.371, 0.542, 0.043), "bipolar": (0.315, 0.181, 0.450, 0.068),
        "circular": (0.488, 0.399, 0.578, 0.045), "linear": (0.377, 0.267, 0.488, 0.056),
        "ordinal": (0.324, 0.189, 0.459, 0.069), "quadratic": (0.299, 0.150, 0.447, 0.075),
        "radical": (0.418, 0.323, 0.513, 0.048), "ratio": (0.359, 0.221, 0.496, 0.070),
    },
}  # fmt: skip


@pytest.mark.parametrize(
    ("dataset", "weights"),
    [(d, w) for d in GWET_TABLE for w in GWET_TABLE[d]],
)
def test_gwet_table_all_weights(dataset, weights):
    table = ABSTRACTORS if dataset == "abstractors" else DIAGNOSIS_4X4
    expected = GWET_TABLE[dataset][weights]
    res = gwet_ac1(table=table, weights=weights)
    close(res.statistic, expected[0], 3)
    close(res.confidence_interval.low, expected[1], 3)
    close(res.confidence_interval.high, expected[2], 3)
    if len(expected) == 4:
        close(res.standard_error, expected[3], 3)


def test_gwet_raw_two_raters_matches_table_point_estimate():
    # same coefficient from raw ratings and from their contingency table
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=(2, 80))
    x[1, :50] = x[0, :50]
    table = np.zeros((3, 3))
    np.add.at(table, (x[0], x[1]), 1)
    for w in [None, "linear", "quadratic"]:
        raw = gwet_ac1(x, weights=w)
        tab = gwet_ac1(table=table, weights=w)
        assert_allclose(raw.statistic, tab.statistic, atol=1e-13)
        assert_allclose(raw.p_expected, tab.p_expected, atol=1e-13)


def test_agreement_weights_irrcac_bipolar_and_linear():
    # irrCAC raw.py docstring: bipolar weights for categories 1..5
    expected = [
        [1.0, 0.85714286, 0.66666667, 0.4, 0.0],
        [0.85714286, 1.0, 0.93333333, 0.75, 0.4],
        [0.66666667, 0.93333333, 1.0, 0.93333333, 0.66666667],
        [0.4, 0.75, 0.93333333, 1.0, 0.85714286],
        [0.0, 0.4, 0.66666667, 0.85714286, 1.0],
    ]
    assert_allclose(agreement_weights("bipolar", [1, 2, 3, 4, 5]), expected, atol=5e-9)
    assert_allclose(
        agreement_weights("quadratic", [1, 2, 3]), [[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]]
    )
    assert_allclose(agreement_weights(None, [1, 2]), np.eye(2))


def test_gwet_to_frame_and_errors():
    frame = gwet_ac1(RAW_4RATERS, weights="linear").to_frame()
    assert frame.loc[0, "coefficient"] == "gwet_ac2" and frame.loc[0, "weights"] == "linear"
    with pytest.raises(ValueError, match="positive category scores"):
        gwet_ac1([[0, 1, 2], [0, 1, 1]], weights="ratio")
    with pytest.raises(ValueError, match="value_domain has 2 values but table has 3"):
        gwet_ac1(table=ABSTRACTORS, value_domain=[1, 2])
    with pytest.raises(ValueError, match=r"confidence_level must be in \(0, 1\)"):
        gwet_ac1(RAW_4RATERS, confidence_level=0)


@pytest.mark.parametrize("func", ["cohen_kappa", "gwet_ac1"])
def test_weights_on_text_labels_need_an_ordered_value_domain(func):
    # text labels have no order of their own: with linear weights the result depended on the
    # alphabetical order (0.067 for Cohen, 0.020 for AC1 here, against 0.429 and 0.440 in the
    # labels' real order); now refused, as krippendorff_alpha(level="ordinal") refuses them.
    # With value_domain the result equals that of the integer codes of the ordered labels.
    import attunestats.agreement as ag

    f = getattr(ag, func)
    a = ["low", "low", "medium", "high", "high", "medium", "low", "high"]
    b = ["medium", "low", "high", "high", "medium", "medium", "low", "medium"]
    with pytest.raises(ValueError, match="needs an ordered value_domain"):
        f([a, b], weights="linear")
    order = ["low", "medium", "high"]
    code = {v: i for i, v in enumerate(order)}
    ordered = f([a, b], weights="linear", value_domain=order).statistic
    coded = f([[code[v] for v in a], [code[v] for v in b]], weights="linear").statistic
    assert ordered == pytest.approx(coded, rel=1e-12)
    # identity weights need no order
    assert np.isfinite(f([a, b]).statistic)


def test_one_unit_gives_no_interval_not_half_of_one():
    # one unit: no standard error, so no interval; the upper limit was min(1, nan) = 1.0
    fk = fleiss_kappa(counts=np.array([[2, 1]]))
    ac = gwet_ac1([[1], [2]])
    for res in (fk, ac):
        assert math.isnan(res.standard_error)
        assert math.isnan(res.confidence_interval.low)
        assert math.isnan(res.confidence_interval.high)
