"""Configuration of the release simulator: serialisation round trips and argument checking.

Complements tests/release/test_simulate.py (which checks the planted truth from the files).
"""

from __future__ import annotations

from attunestats.release.simulate import (
    SimulationConfig,
    simulate_documents,
    truth_from_file,
)


def test_participant_weights_round_trip_when_there_are_five_participants(tmp_path):
    """Five participants: the weights are not per-capability values and must stay a list."""
    cfg = SimulationConfig(
        n_conversations=6,
        n_participants=5,
        n_models=2,
        n_human_raters=0,
        n_topics=4,
        diagnosis_counts=(2, 2, 1),
        participant_weights=(1.0, 2.0, 3.0, 4.0, 5.0),
    )
    assert cfg.to_dict()["participant_weights"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert SimulationConfig.from_dict(cfg.to_dict()) == cfg
    docs = simulate_documents(cfg, rng=2)
    eff = truth_from_file(docs.write(tmp_path / "rel"))
    assert eff.config == cfg
    assert simulate_documents(cfg, rng=2, effects=eff).files() == docs.files()
