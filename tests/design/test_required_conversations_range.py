"""required_conversations when the target power is reachable, but only with very many
conversations per participant: it must give that number (or say it cannot), never call a
reachable target unreachable. Reference: statsmodels' TTestPower on the participant means,
whose sd with ``m`` conversations each is ``sd sqrt(icc + (1 - icc) / m)``."""

from __future__ import annotations

import math

from statsmodels.stats.power import TTestPower

from attunestats.design.power import required_conversations, sample_size


def _power(effect, sd, icc, p, m):
    return TTestPower().power(effect / (sd * math.sqrt(icc + (1 - icc) / m)), p, 0.05)


def test_a_target_just_below_the_cap_needs_many_conversations_not_none():
    sd, icc, p = 0.15, 0.1, 11
    # the effect whose power with exact participant means (m -> infinity) is just above 0.8
    es = TTestPower().solve_power(None, nobs=p, alpha=0.05, power=0.8)
    effect = es * sd * math.sqrt(icc) * (1 + 1e-5)
    assert _power(effect, sd, icc, p, 10**9) > 0.8  # reachable
    m = required_conversations(effect, sd=sd, n_participants=p, icc=icc)
    assert m is not None
    assert _power(effect, sd, icc, p, m) >= 0.8 - 1e-9
    assert _power(effect, sd, icc, p, m // 2) < 0.8  # not far beyond the smallest
    row = sample_size(effect=effect, sd=sd, icc=icc, n_participants=[p],
                      conversations_per_participant=[18]).to_frame()  # fmt: skip
    row = row.query("solve_for == 'conversations'").iloc[0]
    assert row["max_power"] >= 0.8 and bool(row["reachable"])
