"""Bad sizes and settings of the simulated power functions are refused before any study runs,
with a message naming the argument and the value (not a ZeroDivisionError, not a misleading
message about another argument, not a failure inside the first replicate)."""

from __future__ import annotations

import math

import pytest

from attunestats.design.power import (
    ContrastModel,
    independence_power_curve,
    power_curve,
    release_power,
    reliability_at,
    sample_size,
)

SD = {"skill_sd": [0.1] * 5, "noise_sd": [0.3] * 5}


@pytest.mark.parametrize(("name", "value"), [("n_simulations", 0), ("batch_size", 0),
                                             ("n_simulations", 2.5)])  # fmt: skip
def test_independence_power_curve_sizes(tmp_path, name, value):
    with pytest.raises(ValueError, match=rf"{name} must be an integer >= 1; got {value!r}"):
        independence_power_curve([50], **SD, out=tmp_path / "x.parquet", **{name: value})
    assert not (tmp_path / "x.parquet.parts").exists()


@pytest.mark.parametrize("deff", [math.nan, math.inf, 0.5])
def test_design_effect_must_be_a_finite_number_at_least_1(deff):
    with pytest.raises(
        ValueError, match=rf"design_effect must be a finite number >= 1; got {deff!r}"
    ):
        reliability_at([50], skill_sd=[0.1], noise_sd=[0.3], design_effect=deff)
    with pytest.raises(
        ValueError, match=rf"design_effect must be a finite number >= 1; got {deff!r}"
    ):
        independence_power_curve([50], **SD, design_effect=deff)


def test_n_resamples_is_checked_before_the_study(tmp_path):
    model = ContrastModel("paired", effect=0.2, sd=1.0, icc=0.1)
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 2; got 0"):
        power_curve(model, n_conversations=[20], n_participants=[5], n_simulations=4,
                    test="bootstrap", n_resamples=0, out=tmp_path / "p.parquet")  # fmt: skip
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 2; got 0"):
        release_power(metric="avg_pairwise_accuracy", n_conversations=[12], n_participants=[3],
                      n_simulations=2, n_resamples=0, out=tmp_path / "r.parquet")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["n_participants", "conversations_per_participant"])
def test_sample_size_needs_nonempty_grids(name):
    with pytest.raises(ValueError, match=rf"{name} must list at least one size; got \[\]"):
        sample_size(effect=0.1, sd=1.0, **{name: []})
