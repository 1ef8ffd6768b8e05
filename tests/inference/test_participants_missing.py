"""Participant-level inference for a statistic that some participants have no value for (a
metric missing for whole participants, a predictor that did not answer them): those
participants are not in its sample, so its interval is the one of the participants that have
data, checked against the t interval on their means and by simulation with an independent
generator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.inference.compare import compare_models
from attunestats.inference.contrasts import _scaled_deviations, participant_family
from attunestats.inference.participants import participant_inference
from attunestats.inference.sums import mean_statistic


def _design(sizes) -> pd.DataFrame:
    pid = np.repeat([f"p{i:02d}" for i in range(len(sizes))], sizes)
    return pd.DataFrame({"conversation_id": [f"c{i:03d}" for i in range(len(pid))],
                         "participant_id": pid})  # fmt: skip


def test_equal_participants_with_data_give_the_t_interval_on_their_means():
    # 11 participants x 6 conversations; metric x only for the first 4 participants:
    # its interval is the one-sample t interval on those 4 participant means (3 df), not a
    # t interval with the 10 df of all 11 participants
    rng = np.random.default_rng(11)
    sizes = [6] * 11
    pid = np.repeat(np.arange(11), 6)
    y = rng.normal(size=(66, 2)) + rng.normal(size=(11, 2))[pid]
    y[pid >= 4, 0] = np.nan
    labels = pd.DataFrame({"metric": ["x", "y"]})
    means = y[pid < 4, 0].reshape(4, 6).mean(axis=1)
    ref = stats.ttest_1samp(means, 0.0)
    ci = ref.confidence_interval(0.95)
    # CR2 reads finite-difference influence values: exact to about 1e-9 (as against clubSandwich)
    for method, rtol in (("jackknife", 1e-12), ("cr2", 1e-7)):
        res = participant_inference(mean_statistic(y, labels), _design(sizes), method=method)
        np.testing.assert_allclose(res.df[0], 3.0, rtol=rtol)
        np.testing.assert_allclose(res.standard_error[0], means.std(ddof=1) / 2.0, rtol=rtol)
        np.testing.assert_allclose([res.ci_low[0], res.ci_high[0]], [ci.low, ci.high], rtol=rtol)
        np.testing.assert_allclose(res.df[1], 10.0, rtol=rtol)  # y: every participant


@pytest.mark.parametrize("method", ["jackknife", "cr2"])
def test_participants_without_data_do_not_change_a_statistic_or_its_contrasts(method):
    # unequal participants: adding 5 participants that have no value for predictors a and b
    # (another predictor answered them) leaves a, b and a - b exactly as on the 6 alone,
    # including the joint law of the contrast family (unit-variance draws)
    rng = np.random.default_rng(12)
    sizes = [3, 9, 5, 14, 7, 4, 8, 6, 10, 5, 12]
    pid = np.repeat(np.arange(11), sizes)
    y = rng.normal(size=(len(pid), 3)) + 2.0 * rng.normal(size=(11, 3))[pid]
    y[pid >= 6, :2] = np.nan
    labels = pd.DataFrame({"predictor": ["a", "b", "c"], "metric": "m"})
    full = participant_inference(mean_statistic(y, labels), _design(sizes), method=method)
    few = participant_inference(mean_statistic(y[pid < 6, :2], labels.iloc[:2]),
                                _design(sizes[:6]), method=method)  # fmt: skip
    for key in ("estimate", "standard_error", "df", "ci_low", "ci_high"):
        np.testing.assert_allclose(getattr(full, key)[:2], getattr(few, key), rtol=1e-9)
    w = np.array([1.0, -1.0, 0.0])
    got, ref = full.contrast(w), few.contrast(w[:2])
    for key in ("estimate", "standard_error", "df", "ci_low", "ci_high", "pvalue"):
        np.testing.assert_allclose(got[key], ref[key], rtol=1e-9)
    fam = participant_family(full, np.column_stack([w, [1.0, 0.0, -1.0], [0.0, 1.0, -1.0]]))
    np.testing.assert_allclose((_scaled_deviations(fam) ** 2).sum(axis=0), 1.0, rtol=1e-9)
    pair = compare_models(full, correction="holm", predictors=["a", "b"]).pairs
    pair_few = compare_models(few, correction="holm").pairs
    for key in ("difference", "ci_low", "ci_high", "df", "pvalue"):
        np.testing.assert_allclose(pair[key], pair_few[key], rtol=1e-9)


def test_coverage_when_only_some_participants_have_the_metric():
    # independent generator: 11 participants x 10 conversations, participant SD 1, conversation
    # SD 0.5, the metric only for 4 participants; true mean 0. It covered 0.91 (jackknife) and
    # 0.86 (CR2) with the 10 df of all participants.
    rng = np.random.default_rng(13)
    pid = np.repeat(np.arange(11), 10)
    design = _design([10] * 11)
    labels = pd.DataFrame({"metric": ["x"]})
    n_rep = 1000
    covered = {"jackknife": 0, "cr2": 0}
    for _ in range(n_rep):
        y = (rng.normal(size=11)[pid] + 0.5 * rng.normal(size=110))[:, None]
        y[pid >= 4] = np.nan
        for method in covered:
            res = participant_inference(mean_statistic(y, labels), design, method=method)
            covered[method] += res.ci_low[0] <= 0.0 <= res.ci_high[0]
    mc = np.sqrt(0.95 * 0.05 / n_rep)
    for method, n in covered.items():
        assert n / n_rep >= 0.95 - 3 * mc, (method, n / n_rep)
