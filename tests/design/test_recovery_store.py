"""recovery.run_scenarios on a folder that already holds a longer run of the same scenario: the
summary must describe the replicates asked for and equal that of a fresh run of that many."""

from __future__ import annotations

import pandas as pd

from attunestats.design import recovery

TINY = {"n_participants": 3, "conversations_per_participant": 2, "n_models": 2, "n_topics": 2,
        "structures": ["default"], "draws": 20, "tune": 20, "chains": 1}  # fmt: skip


def test_fewer_replicates_from_a_longer_run(tmp_path):
    kw = {"scenarios": ["baseline"], "executor": "serial", "config": TINY, "progress": False}
    recovery.run_scenarios(str(tmp_path / "a"), n_replicates=3, **kw)
    short = recovery.run_scenarios(str(tmp_path / "a"), n_replicates=2, **kw)
    fresh = recovery.run_scenarios(str(tmp_path / "b"), n_replicates=2, **kw)
    assert set(short["n_replicates"]) == {2}
    pd.testing.assert_frame_equal(short, fresh)
