"""Configuration of the release simulator: serialisation round trips and argument checking.

Complements tests/release/test_simulate.py (which checks the planted truth from the files).
"""

from __future__ import annotations

import math

import pytest

from attunestats.release.simulate import (
    SimulationConfig,
    icc_sd,
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


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (1.0, r"participant_weights must be 11 positive numbers; got 1\.0"),
        (("a",) * 11, r"participant_weights must be 11 positive numbers; got \('a'"),
        ((1.0,) * 10 + (-1.0,), r"participant_weights must be 11 positive numbers"),
        ((1.0,) * 10 + (math.nan,), r"participant_weights must be 11 positive numbers"),
    ],
)
def test_bad_participant_weights_name_the_parameter(value, match):
    with pytest.raises((ValueError, TypeError), match=match):
        SimulationConfig(participant_weights=value)


@pytest.mark.parametrize(
    ("icc", "residual_sd", "match"),
    [
        (-0.1, 0.3, r"icc must be a number in \[0, 1\); got -0\.1"),
        (1.0, 0.3, r"icc must be a number in \[0, 1\); got 1\.0"),
        (math.nan, 0.3, r"icc must be a number in \[0, 1\); got nan"),
        ("0.5", 0.3, r"icc must be a number in \[0, 1\); got '0\.5'"),
        (True, 0.3, r"icc must be a number in \[0, 1\); got True"),
        (0.5, 0.0, r"residual_sd must be a finite number > 0; got 0\.0"),
        (0.5, -0.3, r"residual_sd must be a finite number > 0; got -0\.3"),
        (0.5, math.inf, r"residual_sd must be a finite number > 0; got inf"),
        (0.5, "0.3", r"residual_sd must be a finite number > 0; got '0\.3'"),
    ],
)
def test_icc_sd_rejects_bad_values_naming_them(icc, residual_sd, match):
    with pytest.raises((ValueError, TypeError), match=match):
        icc_sd(icc, residual_sd)


def test_icc_sd_gives_the_latent_icc():
    for icc in (0.0, 0.1, 0.5, 0.9):
        sd = icc_sd(icc, 0.3)
        assert sd**2 / (sd**2 + 0.3**2) == pytest.approx(icc, abs=1e-12)


def test_redraw_participants_checks_its_arguments():
    import numpy as np

    from attunestats.release.simulate import draw_effects, redraw_participants

    eff = draw_effects(SimulationConfig(), rng=1)
    # a numpy integer is an integer, as everywhere else in the simulator
    new = redraw_participants(eff, rng=2, n_participants=np.int64(40))
    assert len(new.participants) == 40 and new.config.n_participants == 40
    assert new.u.shape == (40, 5)
    for bad in (0, -3, 2.5, True, "40"):
        with pytest.raises(
            ValueError, match=f"n_participants must be a positive integer; got {bad!r}"
        ):
            redraw_participants(eff, rng=2, n_participants=bad)
    with pytest.raises(TypeError, match="effects must be a TrueEffects; got str"):
        redraw_participants("truth.json", rng=2)
