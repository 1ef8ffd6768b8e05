"""Agreement intervals for the population of participants (issue 16 item 1).

The default interval of :func:`rater_agreement` / :func:`rater_vs_participant` is the participant
bootstrap-t of Krippendorff's alpha (each resample studentized by its own delete-one-participant
jackknife SE); ``method="jackknife"`` gives the jackknife with a t interval on ``P - 1`` df.

Independent references:
* a hand loop over participants: drop the participant's conversations, build the reliability
  matrix here and call the ``krippendorff`` package; the replicates, the jackknife SE, the t
  interval (``scipy.stats.t``) and the paired difference's t test are recomputed from those;
* a hand loop over bootstrap resamples: each resample's ratings built here (a drawn participant's
  conversations once per copy), alpha and the within-resample jackknife SE from the
  ``krippendorff`` package, the interval from the order statistics of t*;
* a coverage study on synthetic ratings drawn here (not by the package's simulator): raters whose
  accuracy (nominal) or noise (interval) varies between participants, conversation effects,
  missing ratings; the true alpha is the population value, the mean over 8 independent draws of
  4,000 participants (``_true_alpha``).
  The bootstrap-t and the jackknife t are compared with the percentile participant cluster
  bootstrap. Monte Carlo SE of a coverage near 0.95 with R replications: sqrt(0.95 * 0.05 / R)."""

from __future__ import annotations

import functools
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats import baseline as bl
from attunestats.baseline.kernel import (
    _alpha_subsets,
    _AlphaKernel,
    _bootstrap_t,
    _cluster_weights,
    _jackknife_t,
    _participant_codes,
)
from attunestats.release.load import release_from_documents
from attunestats.release.simulate import SCENARIOS, simulate_documents

krippendorff = pytest.importorskip("krippendorff")
RATERS = ["sim-human-1", "sim-human-2", "sim-human-3"]


@pytest.fixture(scope="module")
def release():
    cfg = replace(SCENARIOS["paper"], n_conversations=50, n_models=2)
    docs = simulate_documents(cfg, rng=8)
    return release_from_documents(docs.conversations, docs.runs, docs.release_info)


def _matrix(long, unit_cols, raters, codes=None):
    """Reliability matrix (raters x units) built here: one column per unit, NaN where unrated."""
    values = long["value"] if codes is None else long["value"].map(codes)
    keyed = long[unit_cols].assign(rater=long["rater"].to_numpy(), value=values.to_numpy())
    wide = keyed.set_index([*unit_cols, "rater"])["value"].unstack("rater")
    return wide.reindex(columns=raters).to_numpy(dtype=float).T


CASES = {
    "pairwise": ("nominal", {"A": 0, "B": 1}),
    "panas_totals": ("interval", None),
    "q3_model_fit": ("ordinal", None),
    "binary_om": ("nominal", {"no": 0, "yes": 1}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_jackknife_replicates_equal_a_loop_over_participants(release, name):
    level, codes = CASES[name]
    spec = bl.ANNOTATION_TYPES[name]
    if name == "q3_model_fit":
        codes = {o: i for i, o in enumerate(spec.value_domain)}
    long = bl.annotation_ratings(release, annotations=[name])[name]
    unit_cols = list(spec.unit_columns)
    conv = release.conversations
    part_of = dict(zip(conv["conversation_id"], conv["participant_id"], strict=True))
    long = long.assign(participant=long["conversation_id"].map(part_of))
    ids = sorted(long["participant"].unique())
    by_hand = []
    for p in ids:
        sub = long.loc[long["participant"] != p]
        mat = _matrix(sub, unit_cols, RATERS, codes)
        by_hand.append(float(krippendorff.alpha(reliability_data=mat, level_of_measurement=level)))
    by_hand = np.array(by_hand)
    res = bl.rater_agreement(release, annotations=[name], method="jackknife")
    np.testing.assert_allclose(res.replicates[name], by_hand, rtol=0, atol=1e-10)
    full = float(krippendorff.alpha(reliability_data=_matrix(long, unit_cols, RATERS, codes),
                                    level_of_measurement=level))  # fmt: skip
    n = len(ids)
    se = np.sqrt((n - 1) / n * np.sum((by_hand - by_hand.mean()) ** 2))
    q = stats.t.ppf(0.975, n - 1)
    row = res.to_frame().iloc[0]
    assert row["alpha"] == pytest.approx(full, abs=1e-10)
    assert row["standard_error"] == pytest.approx(se, rel=1e-9)
    assert row["ci_low"] == pytest.approx(full - q * se, rel=1e-9)
    assert row["ci_high"] == pytest.approx(full + q * se, rel=1e-9)
    assert row["df"] == n - 1 and row["n_participants"] == n
    assert row["resample"] == "participant" and row["estimand"] == "participants"


def test_rater_vs_participant_difference_is_a_t_test_on_the_jackknife(release):
    name = "pairwise"
    spec = bl.ANNOTATION_TYPES[name]
    long = bl.annotation_ratings(release, annotations=[name], include_participant=True)[name]
    conv = release.conversations
    part_of = dict(zip(conv["conversation_id"], conv["participant_id"], strict=True))
    long = long.assign(participant=long["conversation_id"].map(part_of))
    ids = sorted(long["participant"].unique())
    pairs = [(a, b) for i, a in enumerate(RATERS) for b in RATERS[i + 1 :]]
    pairs += [(r, bl.PARTICIPANT) for r in RATERS]
    codes = {"A": 0, "B": 1}

    def contrast(frame):
        alphas = []
        for a, b in pairs:
            mat = _matrix(frame.loc[frame["rater"].isin([a, b])], list(spec.unit_columns),
                          [a, b], codes)  # fmt: skip
            alphas.append(float(krippendorff.alpha(reliability_data=mat,
                                                   level_of_measurement="nominal")))  # fmt: skip
        return np.mean(alphas[:3]) - np.mean(alphas[3:])

    full = contrast(long)
    reps = np.array([contrast(long.loc[long["participant"] != p]) for p in ids])
    n = len(ids)
    se = np.sqrt((n - 1) / n * np.sum((reps - reps.mean()) ** 2))
    res = bl.rater_vs_participant(release, annotations=[name], method="jackknife")
    row = res.by_annotation.iloc[0]
    assert row["difference"] == pytest.approx(full, abs=1e-10)
    assert row["standard_error"] == pytest.approx(se, rel=1e-8)
    assert row["pvalue"] == pytest.approx(2 * stats.t.sf(abs(full / se), n - 1), rel=1e-7)
    excludes = row["ci_low"] > 0 or row["ci_high"] < 0
    assert excludes == (row["pvalue"] < 0.05)
    pair_rows = res.pairs
    assert (pair_rows["df"] == n - 1).all() and (pair_rows["resample"] == "participant").all()


def test_conversation_and_unit_bootstraps_stay_available_by_name(release):
    kw = dict(annotations=["pairwise"], n_resamples=300, rng=3)
    conv = bl.rater_agreement(release, resample="conversation", **kw).to_frame().iloc[0]
    unit = bl.rater_agreement(release, resample="unit", **kw).to_frame().iloc[0]
    jack = bl.rater_agreement(release, annotations=["pairwise"], method="jackknife")
    jack = jack.to_frame().iloc[0]
    assert conv["estimand"] == "these-participants" and np.isnan(conv["df"])
    assert unit["estimand"].startswith("these-participants")
    assert conv["alpha"] == unit["alpha"] == jack["alpha"]
    assert jack["n_resamples"] is None and conv["n_resamples"] == 300


def _copies(long: pd.DataFrame, mult: dict[str, int]) -> pd.DataFrame:
    """The resampled ratings: participant p's rows ``mult[p]`` times, each copy its own units."""
    parts = [long.loc[long["participant"] == p].assign(copy=k)
             for p, m in mult.items() for k in range(m)]  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def test_bootstrap_t_equals_a_loop_over_resamples(release):
    """The default interval (participant bootstrap-t) recomputed by hand: each resample's data
    are built here (a drawn participant's ratings once per copy, as new units), alpha and the
    within-resample jackknife SE (one copy left out at a time) come from the ``krippendorff``
    package, and the interval and p-value from the order statistics of t* (the rule in
    ``attunestats.baseline.kernel._bootstrap_t``). Only the multiplicities are taken from the
    package (its random draws)."""
    from attunestats.baseline.kernel import _spawned

    name, level, n_boot, seed = "binary_om", 0.8, 30, 11
    spec = bl.ANNOTATION_TYPES[name]
    codes = {"no": 0, "yes": 1}
    long = bl.annotation_ratings(release, annotations=[name])[name]
    unit_cols = [*spec.unit_columns, "copy"]
    conv = release.conversations
    part_of = dict(zip(conv["conversation_id"], conv["participant_id"], strict=True))
    long = long.assign(participant=long["conversation_id"].map(part_of))
    ids = sorted(long["participant"].unique())
    n = len(ids)

    def alpha(mult):
        mat = _matrix(_copies(long, mult), unit_cols, RATERS, codes)
        return float(krippendorff.alpha(reliability_data=mat, level_of_measurement="nominal"))

    def alpha_and_se(mult):
        reps = {p: alpha({**mult, p: mult[p] - 1}) for p in ids if mult[p] > 0}
        mean = sum(mult[p] * r for p, r in reps.items()) / n
        var = (n - 1) / n * sum(mult[p] * (r - mean) ** 2 for p, r in reps.items())
        return alpha(mult), np.sqrt(var)

    est, se = alpha_and_se(dict.fromkeys(ids, 1))
    gen = _spawned(np.random.default_rng(seed))[name]
    weights = np.concatenate(_cluster_weights(gen, n, n_boot))
    t_star = []
    for w in weights:
        a, s = alpha_and_se({p: int(k) for p, k in zip(ids, w, strict=True)})
        t_star.append((a - est) / s)
    t_star = np.sort(t_star)
    m = int(np.ceil((1 - level) * (n_boot + 1) / 2)) - 1  # 3 with 30 resamples at 80%
    res = bl.rater_agreement(release, annotations=[name], n_resamples=n_boot,
                             confidence_level=level, rng=seed)  # fmt: skip
    row = res.to_frame().iloc[0]
    assert row["alpha"] == pytest.approx(est, abs=1e-10)
    assert row["standard_error"] == pytest.approx(se, rel=1e-8)
    assert row["ci_low"] == pytest.approx(est - t_star[n_boot - m] * se, abs=1e-9)
    assert row["ci_high"] == pytest.approx(est - t_star[m - 1] * se, abs=1e-9)
    assert row["method"].startswith("participant bootstrap-t") and np.isnan(row["df"])
    assert row["estimand"] == "participants" and row["n_resamples"] == n_boot


def test_bootstrap_t_is_the_same_in_small_chunks(release, monkeypatch):
    """Many participants make the within-resample jackknife large (resamples x P x P weights), so
    the resamples are evaluated in chunks; the chunk size must not change any number."""
    from attunestats.baseline import kernel

    kw = dict(annotations=["pairwise", "panas_totals"], n_resamples=40, rng=4)
    whole = bl.rater_vs_participant(release, **kw)
    monkeypatch.setattr(kernel, "_BT_ELEMENTS", 3 * 11 * 11)  # 3 resamples at a time
    chunked = bl.rater_vs_participant(release, **kw)
    pd.testing.assert_frame_equal(whole.pairs, chunked.pairs)
    pd.testing.assert_frame_equal(whole.by_annotation, chunked.by_annotation)


def test_bootstrap_t_difference_interval_and_test_agree(release):
    """rater_vs_participant's default: for every annotation type the interval of the difference
    excludes 0 exactly when p < 1 - level, at two levels; p is the two-sided bootstrap-t p-value,
    never below 2 / (B + 1)."""
    for level in (0.95, 0.8):
        res = bl.rater_vs_participant(release, n_resamples=199, confidence_level=level, rng=5)
        rows = res.by_annotation.dropna(subset=["pvalue"])
        assert len(rows) >= 8
        excludes = (rows["ci_low"] > 0) | (rows["ci_high"] < 0)
        assert (excludes == (rows["pvalue"] < 1 - level)).all(), rows
        assert (rows["pvalue"] >= 2 / 200 - 1e-12).all()
        assert (
            (rows["ci_low"] <= rows["difference"]) & (rows["difference"] <= rows["ci_high"])
        ).all()
    # the pair table reads back from its CSV as written (no kappa: a missing cell, not "")
    from attunestats.report.tables import read_back_differences

    pairs = res.to_frame()
    assert pairs["kappa_weights"].isna().any()
    assert read_back_differences(pairs, pairs.to_csv(index=False)) == []


@pytest.mark.parametrize("n_part", [2, 3])
def test_too_few_participants_for_the_bootstrap_t_fall_back_to_the_jackknife(n_part):
    """With 2 participants every resample that studentizes is the data itself, so the
    bootstrap-t interval had width 0 (a reviewer saw alpha 0.44 [0.44, 0.44]); with 3 it had few
    distinct resamples. Below MIN_PARTICIPANTS_BOOTSTRAP_T the functions say so and report the
    jackknife t interval (on P - 1 df, checked by hand here), never a zero-width one."""
    from scipy import stats

    from attunestats.baseline.kernel import MIN_PARTICIPANTS_BOOTSTRAP_T
    from attunestats.errors import AttunestatsWarning

    assert n_part < MIN_PARTICIPANTS_BOOTSTRAP_T
    cfg = replace(SCENARIOS["paper"], n_conversations=12, n_participants=n_part, n_models=2,
                  n_topics=4)  # fmt: skip
    docs = simulate_documents(cfg, rng=3)
    small = release_from_documents(docs.conversations, docs.runs, docs.release_info)
    opts = {"annotations": ["binary_om", "panas_items"], "n_resamples": 300, "rng": 1}
    with pytest.warns(AttunestatsWarning, match=f"only {n_part} participants"):
        res = bl.rater_agreement(small, **opts)
    assert res.method == "jackknife"
    table = res.to_frame()
    jack = bl.rater_agreement(small, method="jackknife", **opts).to_frame()
    pd.testing.assert_frame_equal(table, jack)
    finite = table.dropna(subset=["ci_low", "ci_high"])
    assert len(finite) and (finite["ci_high"] - finite["ci_low"] > 0).all()
    assert (finite["ci_high"] <= 1.0).all()
    # the jackknife t by hand: alpha without each participant, t on P - 1 df
    row = finite.iloc[0]
    conv = small.tables["conversations"]
    reps = []
    for p in sorted(conv["participant_id"].unique()):
        keep = set(conv.loc[conv["participant_id"] != p, "conversation_id"])
        tables = {k: (f.loc[f["conversation_id"].isin(keep)].reset_index(drop=True)
                      if "conversation_id" in f.columns else f)
                  for k, f in small.tables.items()}  # fmt: skip
        sub = replace(small, tables=MappingProxyType(tables))
        reps.append(
            bl.rater_agreement(sub, method="jackknife", annotations=[row["annotation"]]).to_frame()[
                "alpha"
            ][0]
        )
    reps = np.array(reps)
    se = np.sqrt((n_part - 1) / n_part * np.sum((reps - reps.mean()) ** 2))
    assert row["standard_error"] == pytest.approx(se, rel=1e-9)
    assert row["ci_low"] == pytest.approx(row["alpha"] - stats.t.ppf(0.975, n_part - 1) * se,
                                          rel=1e-9)  # fmt: skip
    with pytest.warns(AttunestatsWarning, match=f"only {n_part} participants"):
        pairs = bl.rater_vs_participant(small, **opts)
    assert pairs.method == "jackknife"


# ------------------------------------------------------------------------------------------
# coverage: bootstrap-t, jackknife t and percentile participant bootstrap, on data drawn here
# ------------------------------------------------------------------------------------------
_SKILL = np.array([1.2, 0.8, 0.4])


def _draw(kind: str, n_part: int, rng: np.random.Generator, *, n_conv: int = 18,
          n_units: int = 8, part_sd: float = 0.8, missing: float = 0.05) -> pd.DataFrame:  # fmt: skip
    """Ratings of 3 raters on n_part x n_conv x n_units units (long table)."""
    n_c = n_part * n_conv
    u = n_c * n_units
    conv_of_unit = np.repeat(np.arange(n_c), n_units)
    part_of_conv = np.repeat(np.arange(n_part), n_conv)
    b = rng.normal(0.0, part_sd, n_part)[part_of_conv][conv_of_unit]  # participant effect
    w = rng.normal(0.0, 0.3, n_c)[conv_of_unit]  # conversation effect
    if kind == "nominal":
        truth = (rng.random(u) < 0.4).astype(int)
        p = 1.0 / (1.0 + np.exp(-(_SKILL[:, None] + b + w)))
        correct = rng.random((3, u)) < p
        values = np.where(correct, truth, 1 - truth).astype(float)
    else:
        truth = rng.normal(0.0, 1.0, u) + w
        noise = 0.7 * np.exp(b / 2.0)
        values = truth + rng.normal(0.0, 1.0, (3, u)) * noise + np.array([0.0, 0.2, -0.2])[:, None]
        values = np.round(values * 2.0) / 2.0  # a rating scale in half points
    values[rng.random((3, u)) < missing] = np.nan
    frame = pd.DataFrame({
        "conversation_id": np.tile([f"c{k:05d}" for k in conv_of_unit], 3),
        "scale": np.tile(np.arange(u) % n_units, 3),
        "rater": np.repeat(["r1", "r2", "r3"], u),
        "value": values.ravel(),
        "participant": np.tile([f"p{k:04d}" for k in part_of_conv[conv_of_unit]], 3),
    })  # fmt: skip
    return frame.loc[frame["value"].notna()].reset_index(drop=True)


_SPECS = {
    "nominal": replace(
        bl.ANNOTATION_TYPES["panas_totals"], level="nominal", interval=False, nominal=True
    ),  # fmt: skip
    "interval": bl.ANNOTATION_TYPES["panas_totals"],
}


def _alpha_and_intervals(frame: pd.DataFrame, kind: str, rng: np.random.Generator,
                         n_boot: int) -> tuple[float, tuple[float, float], ...]:  # fmt: skip
    """Alpha and its 95% intervals: jackknife t, percentile participant bootstrap, bootstrap-t."""
    spec = _SPECS[kind]
    kernel = _AlphaKernel(frame[["conversation_id", "scale", "rater", "value"]], spec)
    part_of = dict(zip(frame["conversation_id"], frame["participant"], strict=False))
    est, reps, subs = _alpha_subsets(kernel, [["r1", "r2", "r3"]], resample="participant",
                                     n_resamples=0, rng=None, participant_of_conversation=part_of)  # fmt: skip
    _, lo, hi, _, _ = _jackknife_t(est, reps, 0.95)
    codes, ids = _participant_codes(kernel, part_of)
    sub = kernel.subset(kernel.rows(["r1", "r2", "r3"]), codes, len(ids))
    boot = np.concatenate([sub.resampled(w) for w in _cluster_weights(rng, len(ids), n_boot)])
    b_lo, b_hi = np.nanquantile(boot, [0.025, 0.975])
    bt = _bootstrap_t(subs, len(ids), contrasts=None, n_resamples=n_boot, rng=rng, level=0.95)
    return (float(est[0]), (float(lo[0]), float(hi[0])), (float(b_lo), float(b_hi)),
            (float(bt["ci_low"][0]), float(bt["ci_high"][0])))  # fmt: skip


#: Participants per draw of the population alpha (memory: about 0.6 million units x 3 raters).
_TRUTH_CHUNK = 4_000


@functools.cache
def _true_alpha(kind: str, part_sd: float = 0.8, n_part: int = 32_000) -> tuple[float, float]:
    """Population alpha and its Monte Carlo SE: the mean of alpha over independent draws of
    ``_TRUTH_CHUNK`` participants (one draw of ``n_part`` when smaller), SE from their spread.

    Alpha of one large draw is noisier than its size suggests when participants differ strongly
    (their noise levels enter both disagreements): measured over 8 draws of 4,000 participants, the
    SD of one draw is 0.0037 (interval ratings) and 0.0040 (nominal) at participant SD 0.8, 0.0012
    and 0.0021 at 0.3, below 0.001 at 0. So 8 draws (32,000 participants) give SEs of
    0.0007-0.0014 at 0.8 (0.0007 and 0.0010 with the study's seeds), under 1/35 of the bootstrap
    SE with 20 participants (0.049); a single draw of 2,000 (used here before 2026-12-07) was off by
    0.004-0.006 at 0.8, which moved coverage by up to 1 point.
    """
    size = min(n_part, _TRUTH_CHUNK)
    n_draws = max(1, n_part // size)
    seeds = np.random.SeedSequence(12345).spawn(n_draws)
    values = []
    for seed in seeds:
        frame = _draw(kind, size, np.random.default_rng(seed), part_sd=part_sd)
        kernel = _AlphaKernel(frame[["conversation_id", "scale", "rater", "value"]], _SPECS[kind])
        rows = kernel.rows(["r1", "r2", "r3"])
        sub = kernel.subset(rows, kernel.unit_conversation, len(kernel.conversations))
        values.append(sub.statistic())
    v = np.asarray(values)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else np.nan


def coverage_study(n_reps: int, participants=(6, 11, 20), kinds=("nominal", "interval"),
                   n_boot: int = 1000, seed: int = 2024, part_sd: float = 0.8,
                   n_truth: int = 32_000) -> pd.DataFrame:  # fmt: skip
    """Coverage of the true alpha by the jackknife t, the percentile participant bootstrap and the
    participant bootstrap-t intervals (and their median widths)."""
    rows = []
    root = np.random.SeedSequence(seed)
    names = ("jackknife_t", "participant_bootstrap", "bootstrap_t")
    for kind in kinds:
        truth, truth_se = _true_alpha(kind, part_sd, n_truth)
        for n_part in participants:
            gen = np.random.default_rng(root.spawn(1)[0])
            hits = dict.fromkeys(names, 0)
            widths: dict[str, list[float]] = {k: [] for k in names}
            for _ in range(n_reps):
                _, *intervals = _alpha_and_intervals(
                    _draw(kind, n_part, gen, part_sd=part_sd), kind, gen, n_boot
                )
                for k, (lo, hi) in zip(names, intervals, strict=True):
                    hits[k] += lo <= truth <= hi
                    widths[k].append(hi - lo)
            rows.append({"kind": kind, "participant_sd": part_sd, "participants": n_part,
                         "true_alpha": truth, "true_alpha_mc_se": truth_se,
                         **{k: hits[k] / n_reps for k in names},
                         **{f"median_width_{k}": np.median(widths[k]) for k in names},
                         "n_reps": n_reps, "mc_se": np.sqrt(0.95 * 0.05 / n_reps)})  # fmt: skip
    return pd.DataFrame(rows)


def test_participant_intervals_cover_in_a_small_study():
    """CI version: 11 participants who differ mildly, 150 replications per kind; the default
    bootstrap-t and the jackknife t must hold their level within Monte Carlo error
    (|cover - 0.95| < 4.5 MC SE) and cover at least as well as the percentile participant
    bootstrap (up to 2 MC SE)."""
    res = coverage_study(150, participants=(11,), n_boot=400, seed=7, part_sd=0.3, n_truth=2_000)
    for row in res.itertuples():
        for cover in (row.bootstrap_t, row.jackknife_t):
            assert abs(cover - 0.95) < 4.5 * row.mc_se, res
            assert cover >= row.participant_bootstrap - 2 * row.mc_se, res


@pytest.mark.slow
def test_participant_intervals_cover_in_the_full_study():
    """6 / 11 / 20 participants, 1,000 replications per cell; the table in the docstring of
    attunestats.baseline.agreement. No or mild participant differences: the bootstrap-t and the
    jackknife t in band in every cell; strong ones: the bootstrap-t at least as good as the
    jackknife t and the percentile bootstrap in every cell, in band for nominal ratings, and at
    least 0.90 for interval ratings (below the band there, documented)."""
    for part_sd in (0.0, 0.3, 0.8):
        res = coverage_study(1000, part_sd=part_sd)
        print(res.to_string())
        for row in res.itertuples():
            assert row.bootstrap_t >= row.jackknife_t - 2 * row.mc_se, res
            assert row.bootstrap_t >= row.participant_bootstrap - 2 * row.mc_se, res
            if part_sd < 0.5 or row.kind == "nominal":
                assert abs(row.bootstrap_t - 0.95) < 4.5 * row.mc_se, res
            else:  # the documented shortfall (0.91-0.93, 2026-12-07) must not grow
                assert row.bootstrap_t >= 0.90, res
            if part_sd < 0.5:
                assert abs(row.jackknife_t - 0.95) < 4.5 * row.mc_se, res
