"""release_power reading a study file that already holds more simulated releases (an earlier,
longer run of the same study at the same ``out``): the result must describe the releases asked
for, as power_curve and independence_power_curve do, not every release in the file."""

from __future__ import annotations

from attunestats.design.power import release_power
from attunestats.release.simulate import SCENARIOS


def test_fewer_simulations_from_a_longer_study_file(tmp_path):
    out = tmp_path / "release_power.parquet"
    kw = {"metric": "avg_pairwise_accuracy", "n_conversations": [12], "n_participants": [3],
          "logit_differences": [0.0], "n_resamples": 49, "rng": 4, "out": out}  # fmt: skip
    release_power(SCENARIOS["null"], n_simulations=4, **kw)
    short = release_power(SCENARIOS["null"], n_simulations=2, **kw)
    fresh = release_power(SCENARIOS["null"], n_simulations=2,
                          **{**kw, "out": tmp_path / "fresh.parquet"})  # fmt: skip
    assert short.n_simulations == 2
    assert short.table["n_simulations"].tolist() == [2]
    assert short.table["power"].tolist() == fresh.table["power"].tolist()
    assert short.table["effect"].tolist() == fresh.table["effect"].tolist()
    assert len(short.simulations) == len(fresh.simulations) == 2
