"""run_grid on a folder that already holds a longer run of the same cells (an earlier call with
more replicates): the summary must describe the replicates asked for, and equal the summary
of a fresh run of that many (each cell's replicate i is the same release either way)."""

from __future__ import annotations

import pandas as pd

from attunestats.design import participant_coverage as pc

TINY = {"truth_participants": 40, "truth_conversations_per_participant": 2,
        "conversations_per_participant": 3, "methods": ["jackknife"],
        "metrics": ["avg_binary_om_accuracy"]}  # fmt: skip


def test_fewer_replicates_from_a_longer_run(tmp_path):
    kw = {"participants": [4], "iccs": [0.1], "executor": "serial", **TINY}
    pc.run_grid(str(tmp_path / "grid"), n_replicates=3, **kw)
    short = pc.run_grid(str(tmp_path / "grid"), n_replicates=2, **kw)
    fresh = pc.run_grid(str(tmp_path / "fresh"), n_replicates=2, **kw)
    assert set(short["n_replicates"]) == {2}
    pd.testing.assert_frame_equal(short, fresh)
