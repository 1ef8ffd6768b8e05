"""Krippendorff's alpha: published values, the krippendorff package, invariances, errors.

References are independent of the code under test: values printed in ../shared/oracles.md
(sections 1-3), ``krippendorff.alpha`` (a separate implementation), and textbook loops written
here (``_reference_coincidences``).
"""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from attunestats.agreement import (
    jaccard_distance,
    krippendorff_alpha,
    masi_distance,
    valence_arousal_distance,
)
from attunestats.agreement.alpha import _resample_pattern_counts
from attunestats.constants import VALENCE_AROUSAL
from attunestats.errors import AttunestatsWarning

nan = np.nan
LEVELS = ["nominal", "ordinal", "interval", "ratio"]

# Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", examples C/D (coders x units)
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]
# Wikipedia computational example (3 coders x 15 units)
WIKI = [
    [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
]
# Hayes & Krippendorff (2007) Table 1: 40 news articles x 5 observers (units x observers here)
_HK_ROWS = """1 1 2 . 2|1 1 0 1 .|2 3 3 3 .|. 0 0 . 0|0 0 0 . 0|0 0 0 . 0|1 0 2 . 1|1 . 2 0 .|
2 2 2 . 2|2 1 1 1 .|. 1 0 0 .|0 0 0 0 .|1 2 2 2 .|3 3 2 2 3|1 1 1 . 1|1 1 1 . 1|2 1 2 . 2|
1 2 3 3 .|1 1 0 1 .|0 0 0 . 0|0 0 1 1 .|0 0 . 0 0|2 3 3 3 .|0 0 0 0 .|1 2 . 2 2|0 1 1 1 .|
0 0 0 1 0|1 2 1 2 .|1 1 2 2 .|1 1 2 . 2|1 1 0 . 0|2 1 2 1 .|2 2 . 2 2|3 2 2 2 .|2 2 2 . 2|
2 2 3 . 2|2 2 2 . 2|2 2 . 1 2|2 2 2 2 .|1 1 1 . 1"""
HK2007 = np.array(
    [
        [nan if v == "." else float(v) for v in row.split()]
        for row in _HK_ROWS.replace("\n", "").split("|")
    ]
).T  # observers x units


def _reference_coincidences(data, value_domain):
    """Textbook coincidence matrix: every ordered pair of values within a unit, 1/(m_u - 1)."""
    data = np.asarray(data, dtype=object)
    index = {v: i for i, v in enumerate(value_domain)}
    o = np.zeros((len(value_domain), len(value_domain)))
    for u in range(data.shape[1]):
        vals = [v for v in data[:, u] if not (v is None or (isinstance(v, float) and np.isnan(v)))]
        m = len(vals)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[index[vals[i]], index[vals[j]]] += 1.0 / (m - 1)
    return o


def _random_data(rng, level, *, numeric_kind="int"):
    """Random raters x units data with missing values, at least one pairable unit, 2+ values."""
    while True:
        raters = int(rng.integers(2, 7))
        units = int(rng.integers(2, 60))
        k = int(rng.integers(2, 9))
        if numeric_kind == "int":
            x = rng.integers(1 if level == "ratio" else -3, k + 1, size=(raters, units)).astype(
                float
            )
        else:
            x = np.round(rng.gamma(2.0, 2.0, size=(raters, units)), 1)
        x[rng.random(x.shape) < rng.uniform(0.0, 0.6)] = nan
        m = (~np.isnan(x)).sum(axis=0)
        pairable = x[:, m >= 2]
        if pairable.size and np.unique(pairable[~np.isnan(pairable)]).size >= 2:
            return x


# --- published values (oracles.md sections 1-3) ------------------------------------------------


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_four_levels(level, published):
    # Krippendorff (2011), 4 coders x 12 units with missing values; published to 3 d.p.
    res = krippendorff_alpha(K2011, level=level)
    assert_allclose(res.statistic, published, atol=5e-4)


def test_krippendorff_2011_counts():
    # the paper: 11 pairable units, n.. = 40 pairable values
    res = krippendorff_alpha(K2011)
    assert res.n_units == 11
    assert res.n_pairable_values == 40


def test_ordinal_is_krippendorffs_rank_metric_not_irrcac_ordinal_weights():
    # oracles.md gotchas: irrCAC "ordinal" weights give 0.834 and fast-krippendorff once 0.789
    res = krippendorff_alpha(K2011, level="ordinal")
    assert abs(res.statistic - 0.834) > 0.01
    assert abs(res.statistic - 0.789) > 0.01


def test_krippendorff_2011_binary_and_nominal_two_coders():
    a = krippendorff_alpha([[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]])
    assert_allclose(a.statistic, 0.095, atol=5e-4)
    b = krippendorff_alpha([list("aabbdcccedda"), list("babbbccceddd")])
    assert_allclose(b.statistic, 0.692, atol=5e-4)


def test_wikipedia_example():
    assert_allclose(krippendorff_alpha(WIKI).statistic, 0.691, atol=5e-4)
    assert_allclose(krippendorff_alpha(WIKI).statistic, 0.691358, atol=5e-7)
    assert_allclose(krippendorff_alpha(WIKI, level="interval").statistic, 0.810845, atol=5e-7)
    # oracles.md [computed only] values (krippendorff 0.9)
    assert_allclose(krippendorff_alpha(WIKI, level="ordinal").statistic, 0.806721, atol=5e-7)
    assert_allclose(krippendorff_alpha(WIKI, level="ratio").statistic, 0.808944, atol=5e-7)


def test_hayes_krippendorff_2007_example():
    res = krippendorff_alpha(HK2007, level="ordinal")
    assert_allclose(res.statistic, 0.7598, atol=5e-5)  # published to 4 d.p.
    assert res.n_pairs == 239  # "a random sample of 239 pairs of judgments"
    assert res.n_units == 40
    # a third-party implementation quoted in oracles.md (not authoritative): 0.477 and 0.757
    assert_allclose(krippendorff_alpha(HK2007).statistic, 0.477, atol=5e-4)
    assert_allclose(krippendorff_alpha(HK2007, level="interval").statistic, 0.757, atol=5e-4)


@pytest.mark.parametrize(
    ("data", "published"),
    [
        # irrCAC test values (Gwet 2014 datasets), 3 d.p.
        (
            [
                [1, 1, 2, None, 0, 0, 1, 1, 2, 2, None, 0, 1, 3, 1],
                [1, 1, 3, 0, 0, 0, 0, None, 2, 1, 1, 0, 2, 3, 1],
                [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
                [None, 1, 3, None, None, None, None, 0, None, 1, 0, 0, 2, 2, None],
                [2, None, None, 0, 0, 0, 1, None, 2, None, None, None, None, 3, 1],
            ],
            0.481,
        ),
        (
            [
                [*"abccbadab", None, None, None, "b", "b"],
                [*"abccbbdab", "e", None, None, "b", "a"],
                [None, *"cccbcdbbeacc", "c"],
                [*"abccbdd", "a", "b", "e", "a", None, "b", "b"],
            ],
            0.632,
        ),
        (
            [
                list("aaaaabbbcaaaaab"),
                list("aaaababccaaaaba"),
                list("abbcaabbcabbcaa"),
                list("ccccaabbcccccaa"),
            ],
            0.143,
        ),
        ([list("aabbdcccedda"), [*"abbbbccce", None, "d", "d"]], 0.665),
    ],
    ids=["raw_5observers", "raw_g1g2", "raw_gender", "raw_ben_gerry"],
)
def test_irrcac_datasets(data, published):
    assert_allclose(krippendorff_alpha(data).statistic, published, atol=5e-4)


def test_coincidences_and_disagreements_match_textbook_computation():
    res = krippendorff_alpha(K2011, level="interval")
    domain = [1.0, 2.0, 3.0, 4.0, 5.0]
    o = _reference_coincidences(K2011, domain)
    assert_allclose(res.coincidences.toarray(), o, atol=1e-12)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    x = np.array(domain)
    delta = (x[:, None] - x[None, :]) ** 2
    d_o = (o * delta).sum() / n
    d_e = (np.outer(n_c, n_c) - np.diag(n_c)).ravel() @ delta.ravel() / (n * (n - 1))
    assert_allclose(res.observed_disagreement, d_o, rtol=1e-12)
    assert_allclose(res.expected_disagreement, d_e, rtol=1e-12)


# --- the krippendorff package on random data, every level --------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("numeric_kind", ["int", "real"])
def test_matches_krippendorff_package_on_random_data(level, numeric_kind):
    rng = np.random.default_rng([11, LEVELS.index(level), numeric_kind == "real"])
    for _ in range(40):
        x = _random_data(rng, level, numeric_kind=numeric_kind)
        ours = krippendorff_alpha(x, level=level).statistic
        ref = krippendorff.alpha(x, level_of_measurement=level)
        assert_allclose(ours, ref, rtol=0, atol=1e-12)


def test_matches_krippendorff_package_on_strings_and_ordered_labels():
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = _random_data(rng, "nominal")
        values = np.unique(x[~np.isnan(x)])
        labels = [f"grade {i:02d}" for i in rng.permutation(values.size)]  # not sorted by value
        to_label = dict(zip(values.tolist(), labels, strict=True))
        strings = np.array([[to_label.get(v, "nan") for v in row] for row in x])
        objects = np.where(strings == "nan", None, strings).astype(object)
        ref = krippendorff.alpha(strings, level_of_measurement="nominal")
        assert_allclose(krippendorff_alpha(objects).statistic, ref, atol=1e-12)
        ref_ord = krippendorff.alpha(strings, level_of_measurement="ordinal", value_domain=labels)
        ours = krippendorff_alpha(objects, level="ordinal", value_domain=labels).statistic
        assert_allclose(ours, ref_ord, atol=1e-12)
        # the label order given is the order used: same as the numeric data
        numeric = krippendorff.alpha(x, level_of_measurement="ordinal")
        by_value = [to_label[v] for v in values.tolist()]
        assert_allclose(
            krippendorff_alpha(objects, level="ordinal", value_domain=by_value).statistic,
            numeric,
            atol=1e-12,
        )


def _pattern_expansion(x):
    """Pairable units of ``x``, the kernel's unit patterns (sorted) and one unit per pattern."""
    xp = x[:, (~np.isnan(x)).sum(axis=0) >= 2]
    domain = np.unique(xp[~np.isnan(xp)])
    counts = np.stack([(xp == v).sum(axis=0) for v in domain], axis=1)
    patterns, inverse, freq = np.unique(counts, axis=0, return_inverse=True, return_counts=True)
    representative = np.array([np.flatnonzero(inverse == p)[0] for p in range(len(patterns))])
    return xp, freq.astype(float), representative


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n_units", [300, 40])  # multinomial-on-patterns and per-unit paths
def test_bootstrap_equals_krippendorff_package_on_the_same_resamples(level, n_units):
    # every resample (ordinal metric recomputed from resampled marginals) equals
    # krippendorff.alpha on the resampled units
    rng = np.random.default_rng([3, n_units])
    if n_units == 300:
        x = rng.integers(1, 6, size=(3, n_units)).astype(float)
    else:
        x = np.round(rng.gamma(3.0, 1.0, size=(3, n_units)), 2)
    x[rng.random(x.shape) < 0.2] = nan
    res = krippendorff_alpha(x, level=level, n_resamples=60, rng=8)
    xp, freq, representative = _pattern_expansion(x)
    reference = []
    for block in _resample_pattern_counts(np.random.default_rng(8), freq, 60):
        for row in block:
            cols = np.repeat(representative, row.astype(int))
            reference.append(krippendorff.alpha(xp[:, cols], level_of_measurement=level))
    assert_allclose(res.bootstrap_distribution, reference, rtol=0, atol=1e-12)


# --- set-valued and emotion-label distances -----------------------------------------------------


def test_masi_and_jaccard_hand_values():
    assert masi_distance({"a", "b"}, {"a", "b"}) == 0.0
    assert_allclose(masi_distance({"a", "b"}, {"a", "b", "c"}), 1 - (2 / 3) * (2 / 3))
    assert_allclose(masi_distance({"a", "b"}, {"b", "c"}), 1 - (1 / 3) * (1 / 3))
    assert masi_distance({"a"}, {"b"}) == 1.0
    assert masi_distance(set(), set()) == 0.0
    assert masi_distance(set(), {"a"}) == 1.0
    assert jaccard_distance({"a", "b"}, {"a"}) == 0.5
    assert jaccard_distance([], []) == 0.0
    assert jaccard_distance({"a"}, {"b"}) == 1.0


@pytest.mark.parametrize(
    ("a", "b", "sim"),
    [
        ("afraid", "scared", 0.9842),
        ("upset", "excited", 0.5306),
        ("nervous", "interested", 0.6625),
        ("afraid", "inspired", 0.4069),
    ],
)
def test_valence_arousal_distance_spec_values(a, b, sim):
    # spec section 1.5 test values of sim; distance = 1 - sim
    assert_allclose(valence_arousal_distance(a, b), 1 - sim, atol=1e-12)
    assert_allclose(valence_arousal_distance(f"  {a.upper()} ", b), 1 - sim, atol=1e-12)


def test_valence_arousal_distance_all_pairs_from_constants():
    for a, (va, aa) in VALENCE_AROUSAL.items():
        for b, (vb, ab) in VALENCE_AROUSAL.items():
            sim = round(1 - math.sqrt((va - vb) ** 2 + (aa - ab) ** 2) / math.sqrt(2), 4)
            assert_allclose(valence_arousal_distance(a, b), 1 - sim, atol=1e-12)
    assert valence_arousal_distance("upset", "upset") == 0.0


def _krippendorff_callable(func):
    """A metric in the signature of the krippendorff package from a two-value function."""

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        v1, v2 = np.broadcast_arrays(v1, v2)
        out = np.empty(v1.shape, dtype=dtype)
        for idx in np.ndindex(v1.shape):
            out[idx] = func(v1[idx], v2[idx])
        return out

    return metric


def _value_counts(data, domain):
    out = np.zeros((len(data[0]), len(domain)), dtype=int)
    for row in data:
        for u, v in enumerate(row):
            if v is not None:
                out[u, domain.index(v)] += 1
    return out


@pytest.mark.parametrize("name", ["masi", "jaccard"])
def test_set_distance_alpha_matches_krippendorff_package(name):
    rng = np.random.default_rng(21)
    tags = ["upset", "nervous", "afraid", "proud", "alert"]
    func = {"masi": masi_distance, "jaccard": jaccard_distance}[name]
    for _ in range(10):
        units = 25
        data = [
            [
                None
                if rng.random() < 0.2
                else frozenset(t for t in tags if rng.random() < 0.3 + 0.4 * (u % 2))
                for u in range(units)
            ]
            for _ in range(3)
        ]
        domain = list(dict.fromkeys(v for row in data for v in row if v is not None))
        ref = krippendorff.alpha(
            value_counts=_value_counts(data, domain),
            value_domain=np.array(domain + [None], dtype=object)[:-1],
            level_of_measurement=_krippendorff_callable(func),
        )
        ours = krippendorff_alpha(np.array(data, dtype=object), distance=name).statistic
        assert_allclose(ours, ref, atol=1e-12)


def test_set_valued_long_table_with_lists_equals_frozenset_array():
    rows = [
        ("t1", "r1", ["upset", "nervous"]),
        ("t1", "r2", ["upset"]),
        ("t1", "r3", []),
        ("t2", "r1", ["proud"]),
        ("t2", "r2", ["proud"]),
        ("t3", "r1", []),
        ("t3", "r2", []),
        ("t3", "r3", ["alert"]),
        ("t4", "r2", ["afraid", "upset"]),
        ("t4", "r3", ["upset", "afraid"]),
    ]
    df = pd.DataFrame(rows, columns=["turn", "annotator", "tags"])
    long = krippendorff_alpha(df, distance="masi", columns=("turn", "annotator", "tags"))
    arr = np.full((3, 4), None, dtype=object)
    for unit, rater, tags in rows:
        arr[int(rater[1]) - 1, int(unit[1]) - 1] = frozenset(tags)
    assert_allclose(long.statistic, krippendorff_alpha(arr, distance="masi").statistic)
    domain = list(dict.fromkeys(v for v in arr.ravel() if v is not None))
    ref = krippendorff.alpha(
        value_counts=_value_counts(arr.tolist(), domain),
        value_domain=np.array(domain + [None], dtype=object)[:-1],
        level_of_measurement=_krippendorff_callable(masi_distance),
    )
    assert_allclose(long.statistic, ref, atol=1e-12)


def test_valence_arousal_alpha_matches_krippendorff_package():
    rng = np.random.default_rng(4)
    labels = list(VALENCE_AROUSAL)
    data = np.array(rng.choice(labels, size=(3, 40)), dtype=object)
    data[:, ::2] = data[0, ::2]  # some agreement
    data[rng.random(data.shape) < 0.15] = None
    domain = list(dict.fromkeys(v for v in data.ravel() if v is not None))
    ref = krippendorff.alpha(
        value_counts=_value_counts(data.tolist(), domain),
        value_domain=np.array(domain, dtype=object),
        level_of_measurement=_krippendorff_callable(valence_arousal_distance),
    )
    res = krippendorff_alpha(data, distance="valence_arousal")
    assert_allclose(res.statistic, ref, atol=1e-12)
    assert res.level == "valence_arousal"
    # a user callable gives the same
    same = krippendorff_alpha(data, distance=lambda a, b: valence_arousal_distance(a, b))
    assert_allclose(same.statistic, res.statistic, atol=1e-15)
    assert same.level == "custom"


def test_distance_matrix_with_value_domain_equals_level():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    mat = (x[:, None] - x[None, :]) ** 2
    data = [[1, 2, 4, 7, 2, nan], [1, 4, 4, 7, 1, 2], [2, 2, nan, 7, 1, 2]]
    res = krippendorff_alpha(data, distance=mat, value_domain=x)
    assert_allclose(res.statistic, krippendorff.alpha(data, level_of_measurement="interval"))


# --- Hayes & Krippendorff bootstrap ---------------------------------------------------------------


def test_hayes_krippendorff_bootstrap_moments():
    # alpha* = 1 - mean(delta of M iid cells) / D_e, so E[alpha*] = alpha and
    # SD[alpha*] = sqrt(Var(delta) / M) / D_e with cell probabilities o_ck / n (before the
    # corrections, which are negligible here: (max o_cc / n)^239 < 1e-100 and alpha* > -1).
    b = 20_000
    res = krippendorff_alpha(
        HK2007, level="ordinal", n_resamples=b, method="hayes-krippendorff", rng=2024
    )
    domain = [0.0, 1.0, 2.0, 3.0]
    o = _reference_coincidences(HK2007, domain)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    rank = np.cumsum(n_c) - n_c / 2
    delta = (rank[:, None] - rank[None, :]) ** 2
    p = o / n
    d_o = (p * delta).sum()
    d_e = (np.outer(n_c, n_c) - np.diag(n_c)).ravel() @ delta.ravel() / (n * (n - 1))
    sd_theory = math.sqrt(((p * delta**2).sum() - d_o**2) / 239) / d_e
    boot = res.bootstrap_distribution
    assert boot.min() > -1
    # Monte Carlo tolerances: 4 standard errors of the mean and of the SD
    assert abs(boot.mean() - (1 - d_o / d_e)) < 4 * sd_theory / math.sqrt(b)
    assert abs(boot.std(ddof=1) / sd_theory - 1) < 4 / math.sqrt(2 * b)
    # the interval takes KALPHA's order statistics
    s = np.sort(boot)
    assert res.confidence_interval == (s[500 - 1], s[19_500 + 1 - 1])


def test_hayes_krippendorff_single_diagonal_cell_correction():
    # units (1,1) and (1,2): cells (1,1) and {1,2} each with probability 1/2, M = 2 pairs,
    # D_e = 1/2, so alpha* = 1, 0, -1 with probabilities 1/4, 1/2, 1/4; with one non-empty
    # diagonal cell a resample without variation (alpha* = 1) is set to 0.
    b = 40_000
    res = krippendorff_alpha([[1, 1], [1, 2]], n_resamples=b, method="hayes-krippendorff", rng=7)
    boot = res.bootstrap_distribution
    assert not (boot == 1).any()
    assert set(np.unique(boot)) <= {-1.0, 0.0}
    assert abs((boot == -1).mean() - 0.25) < 4 * math.sqrt(0.25 * 0.75 / b)


def test_hayes_krippendorff_several_diagonal_cells_correction():
    # units (1,1), (2,2), (1,2): three cells of probability 1/3, M = 3; all three draws on one
    # diagonal cell has probability 2/27, and exactly round(B * 2/27) alpha* = 1 become 0
    b = 27_000
    res = krippendorff_alpha(
        [[1, 2, 1], [1, 2, 2]], n_resamples=b, method="hayes-krippendorff", rng=9
    )
    boot = res.bootstrap_distribution
    assert (boot == 0).sum() == round(b * 2 / 27)
    expected_ones = (4 / 6) ** 3 - 2 / 27
    assert abs((boot == 1).mean() - expected_ones) < 4 * math.sqrt(expected_ones / b)


# --- invariances (property tests) ---------------------------------------------------------------


@st.composite
def _ratings(draw, integer=True):
    raters = draw(st.integers(2, 5))
    units = draw(st.integers(3, 25))
    values = st.integers(1, 6) if integer else st.floats(0.5, 20, allow_nan=False)
    cells = draw(
        st.lists(st.one_of(st.none(), values), min_size=raters * units, max_size=raters * units)
    )
    x = np.array([nan if c is None else float(c) for c in cells]).reshape(raters, units)
    m = (~np.isnan(x)).sum(axis=0)
    pairable = x[:, m >= 2]
    assume(pairable.size > 0 and np.unique(pairable[~np.isnan(pairable)]).size >= 2)
    return x


_settings = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@pytest.mark.filterwarnings("ignore:alpha is undefined in:attunestats.errors.AttunestatsWarning")
@_settings
@given(x=_ratings(), seed=st.integers(0, 2**32 - 1), level=st.sampled_from(LEVELS))
def test_invariant_to_permuting_units_and_raters(x, seed, level):
    rng = np.random.default_rng(seed)
    base = krippendorff_alpha(x, level=level, n_resamples=30, rng=1)
    perm_units = x[:, rng.permutation(x.shape[1])]
    assert_allclose(
        krippendorff_alpha(perm_units, level=level).statistic, base.statistic, atol=1e-12
    )
    perm_raters = x[rng.permutation(x.shape[0])]
    again = krippendorff_alpha(perm_raters, level=level, n_resamples=30, rng=1)
    assert_allclose(again.statistic, base.statistic, atol=1e-12)
    # the bootstrap works on unit patterns, which do not depend on the rater order
    assert_allclose(again.bootstrap_distribution, base.bootstrap_distribution, atol=1e-12)


@_settings
@given(x=_ratings(), seed=st.integers(0, 2**32 - 1))
def test_nominal_invariant_to_relabelling_categories(x, seed):
    rng = np.random.default_rng(seed)
    values = np.unique(x[~np.isnan(x)])
    names = rng.permutation([f"label {i}" for i in range(values.size)])
    relabel = dict(zip(values.tolist(), names.tolist(), strict=True))
    s = np.array([[None if np.isnan(v) else relabel[v] for v in row] for row in x], dtype=object)
    assert_allclose(krippendorff_alpha(s).statistic, krippendorff_alpha(x).statistic, atol=1e-12)


@_settings
@given(x=_ratings(integer=False), scale=st.floats(0.1, 50), shift=st.floats(-100, 100))
def test_interval_affine_and_ratio_scale_invariance(x, scale, shift):
    base = krippendorff_alpha(x, level="interval").statistic
    assert_allclose(
        krippendorff_alpha(x * scale + shift, level="interval").statistic, base, atol=1e-9
    )
    ratio = krippendorff_alpha(x, level="ratio").statistic
    assert_allclose(krippendorff_alpha(x * scale, level="ratio").statistic, ratio, atol=1e-9)


@pytest.mark.parametrize("level", LEVELS)
def test_perfect_agreement_gives_one(level):
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 6, size=50).astype(float)
    x = np.tile(truth, (4, 1))
    x[rng.random(x.shape) < 0.3] = nan
    res = krippendorff_alpha(x, level=level, n_resamples=200, rng=0)
    assert res.statistic == 1.0
    assert res.confidence_interval == (1.0, 1.0)
    hk = krippendorff_alpha(x, level=level, n_resamples=200, rng=0, method="hayes-krippendorff")
    assert hk.statistic == 1.0


# --- input layouts, seeds, result objects --------------------------------------------------------


def _long(x, rng=None):
    rows = [
        {"unit": f"u{u:03d}", "rater": f"r{r}", "value": x[r, u]}
        for r in range(x.shape[0])
        for u in range(x.shape[1])
        if not np.isnan(x[r, u])
    ]
    df = pd.DataFrame(rows)
    if rng is not None:
        df = df.sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)
    return df


def test_long_table_equals_array_and_row_order_does_not_matter():
    rng = np.random.default_rng(12)
    x = _random_data(rng, "interval")
    arr = krippendorff_alpha(x, level="interval", n_resamples=100, rng=5)
    df = _long(x)
    a = krippendorff_alpha(df, level="interval", n_resamples=100, rng=5)
    b = krippendorff_alpha(_long(x, rng), level="interval", n_resamples=100, rng=5)
    assert_allclose(a.statistic, arr.statistic, atol=1e-12)
    assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, atol=0)
    renamed = df.rename(columns={"unit": "item", "rater": "coder", "value": "score"})
    c = krippendorff_alpha(renamed, level="interval", columns=("item", "coder", "score"))
    assert_allclose(c.statistic, arr.statistic, atol=1e-12)


def test_compound_unit_key():
    df = pd.DataFrame(
        {
            "conversation_id": ["c1", "c1", "c1", "c1", "c2", "c2", "c2", "c2"],
            "turn": [1, 1, 2, 2, 1, 1, 2, 2],
            "rater": ["a", "b", "a", "b", "a", "b", "a", "b"],
            "value": ["yes", "yes", "no", "yes", "no", "no", "yes", "yes"],
        }
    )
    res = krippendorff_alpha(df, columns=(["conversation_id", "turn"], "rater", "value"))
    ref = krippendorff_alpha([["yes", "no", "no", "yes"], ["yes", "yes", "no", "yes"]])
    assert_allclose(res.statistic, ref.statistic)


def test_seeds_reproduce_and_differ():
    a = krippendorff_alpha(K2011, n_resamples=300, rng=42)
    b = krippendorff_alpha(K2011, n_resamples=300, rng=42)
    c = krippendorff_alpha(K2011, n_resamples=300, rng=43)
    d = krippendorff_alpha(K2011, n_resamples=300, rng=np.random.default_rng(42))
    assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)
    assert np.array_equal(a.bootstrap_distribution, d.bootstrap_distribution)
    assert a.seed == 42 and d.seed is None
    assert krippendorff_alpha(K2011, n_resamples=50, rng=np.random.SeedSequence(42)).seed == 42


def test_result_object_and_frame():
    res = krippendorff_alpha(K2011, level="ordinal", n_resamples=400, rng=3)
    frame = res.to_frame()
    assert len(frame) == 1
    row = frame.iloc[0]
    assert row["coefficient"] == "krippendorff_alpha" and row["level"] == "ordinal"
    assert row["statistic"] == res.statistic
    assert (row["ci_low"], row["ci_high"]) == tuple(res.confidence_interval)
    assert row["method"] == "units" and row["n_resamples"] == 400 and row["seed"] == 3
    assert "bootstrap_distribution" not in repr(res)
    # the interval is the percentile interval of the bootstrap distribution
    assert_allclose(
        res.confidence_interval, np.quantile(res.bootstrap_distribution, [0.025, 0.975])
    )
    assert_allclose(res.standard_error, np.std(res.bootstrap_distribution, ddof=1))
    assert res.probability_below(2.0) == 1.0 and res.probability_below(-2.0) == 0.0
    with pytest.raises(AttributeError):
        res.statistic = 0.0  # frozen
    plain = krippendorff_alpha(K2011)
    assert plain.method is None and np.isnan(plain.confidence_interval.low)


def test_degenerate_resamples_warn_and_are_left_out():
    # three units; resamples made of unit 1 only have no variation (alpha undefined)
    with pytest.warns(AttunestatsWarning, match="undefined in"):
        res = krippendorff_alpha([[1, 2, 1], [1, 2, 2]], n_resamples=300, rng=1)
    assert res.n_degenerate_resamples == np.isnan(res.bootstrap_distribution).sum() > 0
    assert np.isfinite(res.confidence_interval.low)


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"data": [[1, 1, 1], [1, 1, nan]]}, "single value in its domain"),
        ({"data": [[1, 1], [1, 1]], "value_domain": [1]}, "single value in its domain"),
        ({"data": [[1, nan, 3], [nan, 2, nan]]}, "no unit has ratings from two or more raters"),
        ({"data": [[1, 1, 2], [1, 1, nan]]}, "all pairable ratings have the same value"),
        ({"data": [[1, 2, 3], [1, 2]]}, "rectangular raters x units"),
        ({"data": [1, 2, 3]}, "must be 2-dimensional"),
        ({"data": np.ones((2, 3, 2))}, "must be 2-dimensional"),
        (
            {"data": [[1, 2, 3], [1, 2, 2]], "distance": np.zeros((2, 2))},
            "distance matrix must be 3 x 3",
        ),
        ({"data": [[1, 2, 9], [1, 2, 2]], "value_domain": [1, 2, 3]}, "outside value_domain"),
        ({"data": [[1, 2], [1, 2]], "level": "interval", "distance": "masi"}, "either level"),
        ({"data": [[1, 2], [1, 2]], "level": "cardinal"}, "level must be one of"),
        ({"data": [[1, 2], [1, 2]], "distance": "cosine"}, "distance must be a callable"),
        ({"data": [[1, 2], [1, 2]], "method": "jackknife"}, "method must be one of"),
        ({"data": [[1, 2], [1, 2]], "n_resamples": -1}, "n_resamples must be >= 0"),
        (
            {"data": [[1, 2], [1, 2]], "confidence_level": 1.5},
            r"confidence_level must be in \(0, 1\)",
        ),
        ({"data": [["a", "b"], ["a", "b"]], "level": "interval"}, "needs numeric values"),
        ({"data": [["a", "b"], ["a", "b"]], "level": "ordinal"}, "ordered value_domain"),
        ({"data": [[1, -2], [1, -2]], "level": "ratio"}, "non-negative"),
        (
            {"data": [["x", "y"], ["x", "y"]], "distance": lambda a, b: float(a < b)},
            "not symmetric",
        ),
        (
            {"data": [["x", "y"], ["x", "y"]], "distance": lambda a, b: 1.0},
            r"distance\(a, a\) must be 0",
        ),
        ({"data": [["upset", "calm"], ["upset", "calm"]], "distance": "valence_arousal"}, "calm"),
    ],
)
def test_errors(kwargs, match):
    data = kwargs.pop("data")
    with pytest.raises(ValueError, match=match):
        krippendorff_alpha(data, **kwargs)


def test_type_errors():
    with pytest.raises(TypeError, match="n_resamples must be an integer"):
        krippendorff_alpha(K2011, n_resamples=10.5)
    with pytest.raises(TypeError, match="rng must be None, an int"):
        krippendorff_alpha(K2011, n_resamples=10, rng="seed")
    sets = np.empty((2, 2), dtype=object)
    sets[:] = [[{1}, {2}], [{1}, {1}]]  # sets are unhashable: frozensets are needed
    with pytest.raises(TypeError, match="unhashable"):
        krippendorff_alpha(sets, distance="jaccard")
    with pytest.raises(TypeError, match="set of labels"):
        masi_distance("upset", {"upset"})


def test_long_table_errors():
    df = pd.DataFrame({"unit": [1, 1, 2], "rater": ["a", "a", "b"], "value": [1, 2, 1]})
    with pytest.raises(ValueError, match="at most once"):
        krippendorff_alpha(df)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['score'\]"):
        krippendorff_alpha(df, columns=("unit", "rater", "score"))
    with pytest.raises(ValueError, match="columns must be a"):
        krippendorff_alpha(df, columns=("unit", "rater"))
