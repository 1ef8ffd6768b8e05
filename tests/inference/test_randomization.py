"""The participant swap (sign-flip) randomization test, checked against scipy's paired
permutation test, a hand loop over every swap on long tables, and its exact level in simulation
(data from a numpy generator, not the package simulator)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.inference.randomization import sign_flip_from_sums, sign_flip_test
from attunestats.metrics.registry import pooled_statistic


def _mean(t):
    return t[:, 0] / t[:, 1]


@pytest.mark.parametrize("studentize", [False, True])
def test_equal_participants_match_scipy_paired_permutation_test(studentize):
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.3, 1.0, 9), rng.normal(0.0, 1.0, 9)
    ones = np.ones(9)
    out = sign_flip_from_sums(np.c_[a, ones], np.c_[b, ones], _mean, studentize=studentize)

    def statistic(x, y):
        d = x - y
        return d.mean() / (d.std(ddof=1) / np.sqrt(len(d))) if studentize else d.mean()

    ref = stats.permutation_test((a, b), statistic, permutation_type="samples",
                                 n_resamples=np.inf, vectorized=False)  # fmt: skip
    assert out["exact"] and out["n_swaps"] == 2**9
    assert out["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert out["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)


def _long_tables(rng, n_part=5):
    """Two predictors' conversation values (with nulls) and confusion counts, unequal participants."""
    rows, counts, design = [], [], []
    cid = 0
    for p in range(n_part):
        for _ in range(rng.integers(1, 5)):
            design.append((str(cid), f"p{p}"))
            for pred, shift in (("A", 0.1), ("B", 0.0)):
                value = np.nan if rng.random() < 0.15 else rng.normal(0.5 + shift + 0.2 * p, 0.2)
                rows.append((pred, "default", str(cid), "composite_score", value))
                tp, tn, fp, fn = rng.integers(0, 9, 4)
                counts.append((pred, "default", str(cid), "om", tp, tn, fp, fn))
            cid += 1
    conv = pd.DataFrame(rows, columns=["predictor", "mode", "conversation_id", "metric", "value"])
    cnt = pd.DataFrame(counts, columns=["predictor", "mode", "conversation_id", "task",
                                        "tp", "tn", "fp", "fn"])  # fmt: skip
    des = pd.DataFrame(design, columns=["conversation_id", "participant_id"])
    return SimpleNamespace(conversation=conv, counts=cnt, design=des, release_info={})


def _hand_stat(values: pd.DataFrame, participants: list[str], studentize: bool, agg) -> float:
    """Difference of aggregates, optionally over its delete-one-participant jackknife SE."""

    def diff(frame):
        return agg(frame[frame["predictor"] == "A"]) - agg(frame[frame["predictor"] == "B"])

    d = diff(values)
    if not studentize:
        return d
    reps = np.array([diff(values[values["participant_id"] != q]) for q in participants])
    se = np.sqrt((len(reps) - 1) / len(reps) * ((reps - reps.mean()) ** 2).sum())
    return d / se


@pytest.mark.parametrize("metric", ["composite_score", "pooled_binary_om_f1"])
@pytest.mark.parametrize("studentize", [False, True])
def test_unequal_participants_with_nulls_match_a_hand_loop_over_every_swap(metric, studentize):
    scores = _long_tables(np.random.default_rng(3))
    if metric == "composite_score":
        long = scores.conversation.merge(scores.design, on="conversation_id")

        def agg(frame):
            return frame["value"].mean()  # pandas skips nulls: the null-aware mean
    else:
        long = scores.counts.merge(scores.design, on="conversation_id")

        def agg(frame):
            t = frame[["tp", "tn", "fp", "fn"]].sum()
            return float(pooled_statistic("f1", t["tp"], t["tn"], t["fp"], t["fn"]))

    participants = sorted(long["participant_id"].unique())
    observed = _hand_stat(long, participants, studentize, agg)
    null = []
    for swap in itertools.product([False, True], repeat=len(participants)):
        flipped = long.copy()
        swapped = flipped["participant_id"].isin([p for p, s in zip(participants, swap) if s])
        flipped.loc[swapped, "predictor"] = flipped.loc[swapped, "predictor"].map(
            {"A": "B", "B": "A"}
        )
        null.append(_hand_stat(flipped, participants, studentize, agg))
    null = np.array(null)
    expected_p = np.mean(np.abs(null) >= abs(observed) - 1e-12 * max(1, abs(observed)))

    res = sign_flip_test(scores, metric=metric, predictors=("A", "B"), studentize=studentize)
    assert res.exact and res.n_swaps == 2 ** len(participants)
    assert res.statistic == pytest.approx(observed, rel=1e-10)
    assert res.pvalue == pytest.approx(expected_p, abs=1e-12)
    frame = res.to_frame()
    assert frame.loc[0, "estimand"] == "participants" and "sign-flip" in res.method
    assert "5 participants" in res.describe()


def test_level_is_exact_under_interchangeable_predictors_with_strong_participant_effects():
    """Numpy generator: 8 participants with 2-30 conversations, participant effects with ICC
    about 0.5 and heavy-tailed (t3) noise; the two predictors are interchangeable within
    participants. The exact test rejects at most 5% (256 swaps: attainable levels k/256)."""
    rng = np.random.default_rng(20261204)
    n_sim, n_part, rejections = 400, 8, {False: 0, True: 0}
    for _ in range(n_sim):
        sizes = rng.integers(2, 31, n_part)
        sa, sb = np.zeros((n_part, 2)), np.zeros((n_part, 2))
        for p, m in enumerate(sizes):
            u = rng.normal(0.0, 1.0)  # participant effect, shared by both predictors
            conv = rng.normal(0.0, 0.5, m)  # conversation effect, shared
            ya = u + conv + rng.standard_t(3, m) * 0.5 * (1 + p % 3)
            yb = u + conv + rng.standard_t(3, m) * 0.5 * (1 + p % 3)
            sa[p], sb[p] = (ya.sum(), m), (yb.sum(), m)
        for studentize in (False, True):
            out = sign_flip_from_sums(sa, sb, _mean, studentize=studentize)
            rejections[studentize] += out["pvalue"] <= 0.05
    for studentize, count in rejections.items():
        rate = count / n_sim
        # exact test: size <= 0.05; 400 replicates -> MC SE about 0.011
        assert 0.015 <= rate <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / n_sim), (studentize, rate)


def test_monte_carlo_swaps_are_seeded_and_close_to_exact():
    rng = np.random.default_rng(11)
    sa = np.c_[rng.normal(0.2, 1, 12), np.ones(12)]
    sb = np.c_[rng.normal(0.0, 1, 12), np.ones(12)]
    exact = sign_flip_from_sums(sa, sb, _mean)
    mc1 = sign_flip_from_sums(sa, sb, _mean, max_exact=1, n_resamples=4000, rng=5)
    mc2 = sign_flip_from_sums(sa, sb, _mean, max_exact=1, n_resamples=4000, rng=5)
    assert not mc1["exact"] and mc1 == mc2
    assert abs(mc1["pvalue"] - exact["pvalue"]) < 4 * np.sqrt(0.25 / 4000) + 1 / 4001


def test_few_participants_say_the_sample_cannot_decide():
    scores = _long_tables(np.random.default_rng(3), n_part=4)
    res = sign_flip_test(scores, metric="composite_score", predictors=("A", "B"))
    assert res.min_pvalue == pytest.approx(2 / 16)
    assert "cannot show a difference at 5%" in " ".join(str(res.summary()).split())


def test_bad_input_is_named():
    scores = _long_tables(np.random.default_rng(3))
    with pytest.raises(ValueError, match="conversation-level registry metric"):
        sign_flip_test(scores, metric="emotion_f1", predictors=("A", "B"))
    with pytest.raises(ValueError, match="unknown predictor 'C'"):
        sign_flip_test(scores, metric="composite_score", predictors=("A", "C"))
    with pytest.raises(ValueError, match="not a mode of both"):
        sign_flip_test(scores, metric="composite_score", predictors=("A", "B"), mode="x")
    with pytest.raises(ValueError, match="alternative"):
        sign_flip_test(scores, metric="composite_score", predictors=("A", "B"), alternative="both")


@pytest.mark.parametrize("metric", ["composite_score", "avg_emotion_f1", "pooled_binary_human_f1"])
def test_observed_statistic_is_the_jackknife_t_of_compare_models(small_simulated_scores, metric):
    """Two implementations of one number: the swap test's observed statistic (participant sums)
    and compare_models' difference over its jackknife SE (conversation-weight replicates)."""
    import attunestats as at

    preds = sorted(small_simulated_scores.conversation["predictor"].unique())[:2]
    cmp = at.compare_models(at.infer_scores(small_simulated_scores, predictors=preds, metrics=[metric]),
                            correction="none")  # fmt: skip
    row = cmp.pair(preds[0], preds[1], metric=metric).iloc[0]
    res = sign_flip_test(small_simulated_scores, metric=metric, predictors=tuple(preds))
    assert res.estimate == pytest.approx(row["difference"], rel=1e-9, abs=1e-12)
    assert res.statistic == pytest.approx(row["difference"] / row["standard_error"], rel=1e-7)
    assert res.n_participants == row["n_units"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [({"n_resamples": 0}, ValueError, "n_resamples must be a positive integer; got 0"),
     ({"n_resamples": -5}, ValueError, "n_resamples must be a positive integer; got -5"),
     ({"n_resamples": 2.5}, TypeError, "n_resamples must be an integer; got 2.5"),
     ({"n_resamples": True}, TypeError, "n_resamples must be an integer; got True"),
     ({"max_exact": 0.5}, TypeError, "max_exact must be an integer; got 0.5")],
)  # fmt: skip
def test_bad_resampling_options_of_the_sums_kernel_are_named(kwargs, error, match):
    # n_resamples=0 gave p = 1 from no swap at all; -5 and 2.5 failed inside numpy
    a = np.c_[np.arange(12.0), np.ones(12)]
    with pytest.raises(error, match=match):
        sign_flip_from_sums(a, 0.5 * a, _mean, **{"max_exact": 0, **kwargs})


def test_an_undefined_difference_has_no_pvalue():
    # predictor a has no value anywhere: the difference is undefined; its p-value was 0
    a = np.zeros((5, 2))
    b = np.c_[np.arange(5.0), np.ones(5)]
    for studentize in (False, True):
        for max_exact in (2**16, 4):  # exact, and random swaps
            with np.errstate(invalid="ignore", divide="ignore"):
                out = sign_flip_from_sums(a, b, _mean, studentize=studentize,
                                          max_exact=max_exact, n_resamples=99, rng=1)  # fmt: skip
            assert np.isnan(out["estimate"]) and np.isnan(out["pvalue"]), out


def test_swaps_that_leave_a_predictor_without_values_are_not_counted():
    # a has values for participants 0 and 1 only, b for the others: the swap of exactly 0 and
    # 1 leaves a without any value, that of exactly 2, 3, 4 leaves b without (undefined). Under the null the observed arrangement is uniform over
    # the swaps, so given that it is defined it is uniform over the defined ones: the exact
    # p-value is the share among those (a hand loop); undefined swaps counted as 'not extreme'
    # made it smaller than that.
    rng = np.random.default_rng(21)
    n = np.array([[3, 4, 0, 0, 0], [0, 0, 3, 4, 6]], dtype=float).T  # (P, predictor)
    s = np.round(rng.normal(1.0, 0.3, size=(5, 2)) * n, 6)
    sa, sb = np.c_[s[:, 0], n[:, 0]], np.c_[s[:, 1], n[:, 1]]
    out = sign_flip_from_sums(sa, sb, _mean, studentize=False)
    stats_ = []
    for flips in itertools.product([0, 1], repeat=5):
        f = np.array(flips, dtype=bool)
        ta = np.where(f[:, None], sb, sa).sum(axis=0)
        tb = np.where(f[:, None], sa, sb).sum(axis=0)
        stats_.append(ta[0] / ta[1] - tb[0] / tb[1] if ta[1] > 0 and tb[1] > 0 else np.nan)
    stats_ = np.array(stats_)
    defined = stats_[~np.isnan(stats_)]
    expected = np.mean(np.abs(defined) >= abs(stats_[0]) - 1e-12)
    assert len(defined) == 30
    assert out["pvalue"] == pytest.approx(expected, rel=1e-12)
    assert out["min_pvalue"] == pytest.approx(2 / 30)
