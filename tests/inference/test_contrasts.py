"""Contrast families: the effect sizes reported with a difference agree with its interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attunestats.inference.bootstrap import BootstrapResult, ResamplingPlan
from attunestats.inference.compare import compare_models


def _heavy_tailed_bootstrap(estimates: np.ndarray, n_conv: int = 40) -> BootstrapResult:
    """A conversation bootstrap whose resampled predictors move independently with t(3) tails
    (scale 0.5): the paired differences' 95% bootstrap critical value is about 1.92, not the
    normal 1.96."""
    draws = stats.t.rvs(3, size=(20_000, len(estimates)), random_state=np.random.default_rng(0))
    labels = pd.DataFrame({"predictor": [f"p{i}" for i in range(len(estimates))],
                           "mode": "default", "metric": "m"})  # fmt: skip
    nan = np.full(len(estimates), np.nan)
    return BootstrapResult(
        labels=labels, estimate=estimates, ci_low=nan, ci_high=nan, standard_error=nan,
        method_used=np.full(len(estimates), "percentile", dtype=object), method="percentile",
        confidence_level=0.95, n_resamples=len(draws), plan=ResamplingPlan("conversation"),
        seed=0, n_units=n_conv, conversation_ids=tuple(str(i) for i in range(n_conv)),
        bootstrap_distribution=estimates + 0.5 * draws,
    )  # fmt: skip


@pytest.mark.parametrize("correction", ["none", "maxt", "holm"])
def test_bootstrap_standardized_effect_interval_is_the_difference_interval_rescaled(correction):
    # for a conversation bootstrap the standardized effect is the difference over
    # (se sqrt(n)), and its interval must be the difference's interval on that scale (module
    # docstring of compare), so it excludes 0 exactly when the difference's interval does. It
    # used the normal quantile instead of the bootstrap critical value the difference used
    # (p1 - p0 has t = 1.94: shown by the difference's interval, not by the effect's).
    boot = _heavy_tailed_bootstrap(np.array([0.0, 2.335, 0.2, 6.0]))
    pairs = compare_models(boot, correction=correction).pairs
    scale = pairs["standard_error"] * np.sqrt(40)
    np.testing.assert_allclose(pairs["standardized_effect"], pairs["difference"] / scale)
    np.testing.assert_allclose(pairs["standardized_effect_low"], pairs["ci_low"] / scale)
    np.testing.assert_allclose(pairs["standardized_effect_high"], pairs["ci_high"] / scale)
    excludes = (pairs["ci_low"] > 0) | (pairs["ci_high"] < 0)
    d_excludes = (pairs["standardized_effect_low"] > 0) | (pairs["standardized_effect_high"] < 0)
    assert (excludes == d_excludes).all()
