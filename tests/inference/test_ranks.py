"""Rank confidence sets (Mogstad, Romano, Shaikh and Wilhelm 2024): simultaneous sets cover all
ranks jointly, marginal sets each rank, checked by simulation with an independent generator."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attunestats.inference.contrasts import participant_family
from attunestats.inference.participants import participant_inference
from attunestats.inference.ranks import pair_weights, rank_sets
from attunestats.inference.sums import mean_statistic


def _sets(res, idx, rng, higher_is_better=True):
    w, pairs = pair_weights(len(res.estimate), idx)
    fam = participant_family(res, w)
    return rank_sets(fam, pairs, len(idx), higher_is_better=higher_is_better,
                     confidence_level=0.95, rng=rng, n_draws=4000)  # fmt: skip


def _panel(rng, true_means, n_part=11, m=18, icc=0.3):
    """Conversation-level scores of M predictors: participant effects shared and per predictor."""
    k = len(true_means)
    pid = np.repeat(np.arange(n_part), m)
    shared = rng.normal(scale=0.6, size=n_part)[pid]
    own = rng.normal(scale=np.sqrt(icc), size=(n_part, k))[pid]
    y = np.asarray(true_means) + shared[:, None] + own + rng.normal(size=(len(pid), k))
    design = pd.DataFrame({"conversation_id": np.arange(len(pid)).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    labels = pd.DataFrame({"predictor": [f"m{j}" for j in range(k)], "metric": "score"})
    return participant_inference(mean_statistic(y, labels), design)


def test_well_separated_predictors_get_singleton_rank_sets():
    rng = np.random.default_rng(1)
    res = _panel(rng, [0.0, 5.0, 10.0, 15.0], icc=0.01)
    sets = _sets(res, np.arange(4), rng)
    np.testing.assert_array_equal(sets["rank"], [4, 3, 2, 1])
    for key in ("rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high"):
        np.testing.assert_array_equal(sets[key], [4, 3, 2, 1])
    low = _sets(res, np.arange(4), rng, higher_is_better=False)  # lower is better: reversed
    np.testing.assert_array_equal(low["rank_sim_low"], [1, 2, 3, 4])


def test_simultaneous_sets_cover_all_ranks_jointly_and_marginal_sets_each_rank():
    rng = np.random.default_rng(2)
    true = np.array([0.0, 0.15, 0.3, 0.45, 0.6, 0.75])  # distinct: ranks well defined
    true_rank = 1 + np.array([(true > t).sum() for t in true])
    n_rep = 300
    joint_sim = joint_marg = 0
    each_marg = np.zeros(len(true))
    for _ in range(n_rep):
        res = _panel(rng, true)
        sets = _sets(res, np.arange(len(true)), rng)
        in_sim = (sets["rank_sim_low"] <= true_rank) & (true_rank <= sets["rank_sim_high"])
        in_marg = (sets["rank_ci_low"] <= true_rank) & (true_rank <= sets["rank_ci_high"])
        joint_sim += in_sim.all()
        joint_marg += in_marg.all()
        each_marg += in_marg
    mc = np.sqrt(0.95 * 0.05 / n_rep)
    assert joint_sim / n_rep >= 0.95 - 3 * mc, joint_sim / n_rep
    assert (each_marg / n_rep >= 0.95 - 3 * mc).all(), each_marg / n_rep
    # the marginal sets are not meant to cover jointly: they are never wider than the
    # simultaneous ones, so their joint coverage is at most the simultaneous one's
    assert joint_marg <= joint_sim


def test_predictor_without_estimate_has_no_rank_and_does_not_count_in_the_others():
    # b's metric is undefined on every conversation: it has no rank, and a and c (far apart)
    # are ranked among the two predictors that have a value: c first, a second, both certain
    from attunestats.inference.compare import compare_models

    rng = np.random.default_rng(3)
    pid = np.repeat(np.arange(6), 5)
    y = np.column_stack([rng.normal(size=30), np.full(30, np.nan), 10 + rng.normal(size=30)])
    design = pd.DataFrame({"conversation_id": np.arange(30).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    labels = pd.DataFrame({"predictor": ["a", "b", "c"], "metric": "score"})
    res = participant_inference(mean_statistic(y, labels), design)
    ranks = compare_models(res, correction="holm").ranks.set_index("predictor")
    for key in ("rank", "rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high"):
        assert np.isnan(ranks.loc["b", key]), key
        assert ranks.loc["c", key] == 1, key
        assert ranks.loc["a", key] == 2, key


def test_one_predictor_has_rank_one():
    from attunestats.inference.compare import compare_models

    rng = np.random.default_rng(4)
    res = _panel(rng, [0.0, 1.0])
    ranks = compare_models(res, correction="holm", predictors=["m0"]).ranks
    assert len(ranks) == 1
    for key in ("rank", "rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high"):
        assert ranks[key].iloc[0] == 1, key


def test_discrimination_is_over_the_predictors_with_an_estimate():
    # b has no value for the metric: D (between-predictor variance over the noise of paired
    # differences) is that of a, c and d, as if b were not compared; it was NaN
    from attunestats.inference.compare import compare_models

    rng = np.random.default_rng(5)
    pid = np.repeat(np.arange(8), 6)
    y = rng.normal(size=(48, 4)) + np.array([0.0, 0.0, 1.0, 2.0]) + rng.normal(size=(8, 4))[pid]
    y[:, 1] = np.nan
    design = pd.DataFrame({"conversation_id": np.arange(48).astype(str),
                           "participant_id": pid.astype(str)})  # fmt: skip
    labels = pd.DataFrame({"predictor": ["a", "b", "c", "d"], "metric": "score"})
    full = participant_inference(mean_statistic(y, labels), design)
    keep = [0, 2, 3]
    few = participant_inference(mean_statistic(y[:, keep], labels.iloc[keep]), design)
    got = compare_models(full, correction="holm").discrimination
    ref = compare_models(few, correction="holm").discrimination
    cols = ["n_predictors", "n_pairs", "between_variance", "noise_variance", "sni",
            "discrimination", "ci_low", "ci_high", "n_distinguishable", "share_distinguishable"]  # fmt: skip
    assert np.isfinite(got["discrimination"]).all()
    pd.testing.assert_frame_equal(got[cols], ref[cols])
