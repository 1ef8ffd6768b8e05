"""Required sample sizes (attunestats.design.power.required) against statsmodels' power
solvers, the normal-approximation closed form, a simulation of the participant-level t test with
an independent generator, and the command line.

Monte Carlo tolerances: a simulated power from ``N`` datasets has standard error
``sqrt(p (1 - p) / N)``; the tests allow 4 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

from attunestats.cli.power import power_command
from attunestats.design.power import (
    ContrastModel,
    independence_sample_size,
    minimum_detectable_effect,
    required_conversations,
    required_participants,
    sample_size,
    sample_size_power,
)
from attunestats.report.power import plot_sample_size

CASES = [  # effect, sd, icc, conversations per participant
    (0.03, 0.15, 0.1, 18),
    (0.05, 0.10, 0.0, 1),
    (0.3, 1.0, 0.2, 5),
    (0.1, 0.25, 0.5, 40),
    (0.02, 0.08, 0.05, 12),
]


def _cluster_sd(sd: float, icc: float, m: int) -> float:
    """SD of one participant mean of m conversations: sd sqrt(icc + (1 - icc) / m)."""
    return sd * math.sqrt(icc + (1 - icc) / m)


@pytest.mark.parametrize(("effect", "sd", "icc", "m"), CASES)
@pytest.mark.parametrize("power", [0.8, 0.9])
def test_paired_participants_match_statsmodels(effect, sd, icc, m, power):
    es = effect / _cluster_sd(sd, icc, m)
    nobs = TTestPower().solve_power(es, nobs=None, alpha=0.05, power=power)
    got = required_participants(effect, sd=sd, conversations_per_participant=m, icc=icc,
                                power=power)  # fmt: skip
    assert got == max(2, math.ceil(nobs - 1e-9))
    # the solution brackets the target: P reaches it, P - 1 does not
    assert TTestPower().power(es, got, 0.05) >= power - 1e-12
    if got > 2:
        assert TTestPower().power(es, got - 1, 0.05) < power


@pytest.mark.parametrize("allocation", [0.5, 0.3])
@pytest.mark.parametrize(("effect", "sd", "icc", "m"), CASES[:3])
def test_between_participants_match_statsmodels(effect, sd, icc, m, allocation):
    es = effect / _cluster_sd(sd, icc, m)
    got = required_participants(effect, sd=sd, conversations_per_participant=m, icc=icc,
                                design="between", allocation=allocation)  # fmt: skip
    ratio = (1 - allocation) / allocation

    def sm_power(p: int) -> float:
        return TTestIndPower().power(es, nobs1=p * allocation, alpha=0.05, ratio=ratio)

    assert sm_power(got) >= 0.8 - 1e-12
    if got > 3:
        assert sm_power(got - 1) < 0.8


@pytest.mark.parametrize(("effect", "sd", "icc", "m"), CASES)
def test_participants_close_to_the_normal_closed_form(effect, sd, icc, m):
    # z approximation: P = (z_{1-a/2} + z_{power})^2 sd^2 deff / (m effect^2); the t test needs a
    # little more (heavier tails), never less, and by at most a few participants
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    p_z = z**2 * sd**2 * (1 + (m - 1) * icc) / (m * effect**2)
    got = required_participants(effect, sd=sd, conversations_per_participant=m, icc=icc)
    assert math.ceil(p_z) <= got <= math.ceil(p_z) + 3


def test_simulated_power_of_the_participant_t_test_at_the_solution():
    # an independent generator: clustered normal data, the t test on participant means (scipy)
    effect, sd, icc, m = 0.3, 1.0, 0.2, 5
    p = required_participants(effect, sd=sd, conversations_per_participant=m, icc=icc)
    rng = np.random.default_rng(20260521)
    n_sim = 6000
    for size in (p, p - 3):
        u = rng.normal(0, math.sqrt(icc) * sd, (n_sim, size, 1))
        e = rng.normal(0, math.sqrt(1 - icc) * sd, (n_sim, size, m))
        means = (effect + u + e).mean(axis=2)
        pv = stats.ttest_1samp(means, 0.0, axis=1).pvalue
        simulated = float(np.mean(pv < 0.05))
        exact = sample_size_power(effect, sd=sd, n_participants=size,
                                  conversations_per_participant=m, icc=icc)  # fmt: skip
        assert abs(simulated - exact) < 4 * math.sqrt(exact * (1 - exact) / n_sim)
        if size == p:
            assert exact >= 0.8
        else:
            assert exact < 0.8


@pytest.mark.parametrize(("effect", "sd", "icc", "m"), CASES)
def test_required_conversations_brackets_the_target(effect, sd, icc, m):
    p = required_participants(effect, sd=sd, conversations_per_participant=m, icc=icc)
    got = required_conversations(effect, sd=sd, n_participants=p, icc=icc)
    assert got is not None and got <= m  # m conversations each are enough with p participants
    pw = sample_size_power(effect, sd=sd, n_participants=p, conversations_per_participant=got,
                           icc=icc)  # fmt: skip
    assert pw >= 0.8
    if got > 1:
        below = sample_size_power(effect, sd=sd, n_participants=p,
                                  conversations_per_participant=got - 1, icc=icc)  # fmt: skip
        assert below < 0.8


def test_unreachable_with_few_participants_and_the_cap():
    # ICC 0.1 and 11 participants: the power of 11 exact participant means is the cap
    res = sample_size(effect=0.03, sd=0.15, icc=0.1, conversations_per_participant=[18],
                      n_participants=[11, 40])  # fmt: skip
    row = res.to_frame().query("solve_for == 'conversations' and n_participants == 11").iloc[0]
    assert not row["reachable"]
    cap = TTestPower().power(0.03 / (0.15 * math.sqrt(0.1)), 11, 0.05)
    assert row["max_power"] == pytest.approx(cap, rel=1e-9)
    # a million conversations each approach the cap from below
    big = sample_size_power(0.03, sd=0.15, n_participants=11,
                            conversations_per_participant=10**6, icc=0.1)  # fmt: skip
    assert big < cap and big == pytest.approx(cap, abs=1e-4)
    assert required_conversations(0.03, sd=0.15, n_participants=11, icc=0.1) is None


@pytest.mark.parametrize(("effect", "sd", "icc", "m"), CASES)
def test_mde_has_the_target_power(effect, sd, icc, m):
    mde = minimum_detectable_effect(sd=sd, n_participants=11, conversations_per_participant=m,
                                    icc=icc)  # fmt: skip
    es = mde / _cluster_sd(sd, icc, m)
    assert TTestPower().power(es, 11, 0.05) == pytest.approx(0.8, abs=1e-8)
    # statsmodels solves the same effect size
    assert es == pytest.approx(
        TTestPower().solve_power(None, nobs=11, alpha=0.05, power=0.8), rel=1e-6
    )


def test_sample_size_table_and_summary_from_a_contrast_model():
    model = ContrastModel(design="paired", effect=-0.04, sd=0.12, icc=0.15, metric="m",
                          label="a - b", simulated=True, source={"release": "x"})  # fmt: skip
    res = sample_size(model, conversations_per_participant=[18], n_participants=[11])
    frame = res.to_frame()
    assert set(frame["solve_for"]) == {"participants", "conversations", "mde"}
    p_row = frame.query("solve_for == 'participants'").iloc[0]
    assert p_row["n_participants"] == required_participants(
        0.04, sd=0.12, conversations_per_participant=18, icc=0.15
    )
    text = " ".join(str(res.summary()).split())
    for word in ("SIMULATED", "population of participants", "P - 1 df", "a - b", "ICC 0.15"):
        assert word in text
    assert "SampleSizeResult" in repr(res) and "SIMULATED" in repr(res)
    fig = plot_sample_size(res)
    assert len(fig.axes) == 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="effect must be a positive"):
        required_participants(0.0, sd=1.0, conversations_per_participant=5)
    with pytest.raises(ValueError, match="conversations_per_participant must be an integer >= 1"):
        required_participants(0.1, sd=1.0, conversations_per_participant=0)
    with pytest.raises(ValueError, match="design must be one of"):
        required_participants(0.1, sd=1.0, conversations_per_participant=5, design="within")
    with pytest.raises(ValueError, match="alternative='less'"):
        required_participants(0.1, sd=1.0, conversations_per_participant=5, alternative="less")
    with pytest.raises(ValueError, match="give a ContrastModel, or effect= and sd="):
        sample_size(effect=0.1)


def test_independence_sample_size_size_and_monotone():
    # at correlation 0 the "power" is the size of the permutation test
    null = independence_sample_size(0.0, n_models=[11], n_simulations=200, rng=3)
    p0 = float(null.to_frame()["power"].iloc[0])
    assert abs(p0 - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 200)
    res = independence_sample_size(0.7, reliability=0.95, n_models=[6, 30], n_simulations=100,
                                   rng=1)  # fmt: skip
    frame = res.to_frame()
    assert frame["power"].iloc[1] > frame["power"].iloc[0]
    assert res.needed in (6, 30)
    assert "SIMULATED" in str(res.summary())


def test_cli_target_power_without_subcommand(capsys, tmp_path):
    out = tmp_path / "n.csv"
    code = power_command(["--target-power", "0.8", "--effect", "0.03", "--sd", "0.15", "--icc",
                          "0.1", "--per-participant", "18", "--participants", "11",
                          "--out-csv", str(out), "--figure", str(tmp_path / "fig")])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "Required sample size" in text
    import pandas as pd

    frame = pd.read_csv(out)
    assert frame.query("solve_for == 'participants'")["n_participants"].tolist() == [32]
    assert (tmp_path / "fig" / "figures" / "sample_size.png").exists()
    assert power_command(["sample-size", "--effect", "0.03"]) == 2
    assert "give both --effect and --sd" in capsys.readouterr().err
