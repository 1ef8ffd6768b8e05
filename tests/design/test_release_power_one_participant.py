"""release_power with the participant as the resampling unit needs at least 2 participants: with
one, every participant resample is the same release, the bootstrap p-value is 1/(B + 1) and the
'power' is 1 even with equal skills (simulated: 40 of 40 null releases rejected). It is refused,
naming the argument; the conversation bootstrap (conditional on the participants) still runs."""

from __future__ import annotations

import pytest

from attunestats.design.power import release_power
from attunestats.release.simulate import SCENARIOS


def test_one_participant_is_refused_for_the_participant_bootstrap(tmp_path):
    with pytest.raises(ValueError, match=r"n_participants must be integers >= 2 with "
                       r"unit='participant'; got \[1, 3\]"):  # fmt: skip
        release_power(SCENARIOS["null"], metric="avg_pairwise_accuracy", n_conversations=[12],
                      n_participants=[1, 3], n_simulations=2, out=tmp_path / "r.parquet")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_one_participant_with_the_conversation_bootstrap_runs():
    res = release_power(SCENARIOS["null"], metric="avg_pairwise_accuracy", n_conversations=[12],
                        n_participants=[1], unit="conversation", n_simulations=2,
                        n_resamples=49)  # fmt: skip
    assert res.table["n_participants"].tolist() == [1]
