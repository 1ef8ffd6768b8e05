"""Independence results name the resampling they used: a participant plan is not described as a
conversation bootstrap (the capability-independence report of ``reproduce`` uses
``unit="participant"``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attunestats.independence import (
    metric_matrix,
    noise_corrected_correlations,
    rank_correlations,
    reliability,
)


def _values(n_conv: int = 24, n_models: int = 6, n_metrics: int = 3) -> np.ndarray:
    gen = np.random.default_rng(5)
    skill = gen.normal(size=(1, n_models, n_metrics))
    return skill + gen.normal(scale=0.5, size=(n_conv, n_models, n_metrics))


@pytest.mark.parametrize("unit", ["conversation", "participant"])
def test_intervals_say_which_units_were_resampled(unit):
    n_conv = 24
    design = pd.DataFrame({"conversation_id": [f"c{i:02d}" for i in range(n_conv)],
                           "participant_id": [f"p{i % 6}" for i in range(n_conv)]})  # fmt: skip
    data = metric_matrix(_values(n_conv), design=design, unit=unit, n_resamples=200, rng=1)
    other = "conversation" if unit == "participant" else "participant"
    corr = rank_correlations(data, correction="holm", n_permutations=99, rng=2)
    assert corr.pairs["interval"].str.startswith(f"{unit} bootstrap").all()
    assert not corr.pairs["interval"].str.contains(other).any()
    nc = noise_corrected_correlations(data, rng=3)
    assert f"{unit} bootstrap" in nc.method and f"{other} bootstrap" not in nc.method
    assert f"{unit} bootstrap" in str(nc.summary())
    rel = reliability(data, n_splits=20, rng=4)
    words = {"conversation": "conversations random", "participant": "participants random"}
    assert words[unit] in rel.estimand and words[other] not in rel.estimand
