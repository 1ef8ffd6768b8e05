"""The misspecification scenarios of the release simulator generate what they claim.

Predictor x participant interactions at a latent ICC of the paired difference, Student t(3)
participant effects, outlying participants, overdispersed binary judgements and unequal
conversations per participant (:class:`~attunestats.release.simulate.SimulationConfig`, the
scenarios of :mod:`attunestats.design.recovery`). Everything is checked against the configured
values with exact or Monte Carlo reference distributions, from the raw documents and truth.json,
without the package's loader or statistics. Every test accepts at a per-statistic level of 1e-4
or stricter (two-sided), so that a correct simulator fails by accident with probability < 1e-3.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from collections import defaultdict

import numpy as np
import pytest
from _truth import eta_from_truth
from scipy import stats

from attunestats.release.simulate import (
    CAPABILITIES,
    SimulationConfig,
    draw_effects,
    icc_sd,
    redraw_participants,
    simulate_documents,
)

ALPHA = 1e-4
_SKILL = (0.4, 1.0, 0.5, 0.0, 0.0)


def _simulate(cfg, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # participants without conversations
        return simulate_documents(cfg, rng=rng)


def logistic(a):
    return 1.0 / (1.0 + math.exp(-a))


def _norm_binary(v):
    """Spec 1.4 normalisation of a binary value: yes, no, na or None (null or unknown)."""
    if v is None:
        return None
    s = str(v).strip().lower()
    for out, spellings in (
        ("yes", ("true", "yes", "y", "1")),
        ("no", ("false", "no", "n", "0")),
        ("na", ("na", "n/a", "not_applicable")),
    ):
        if s in spellings:
            return out
    return None


def _om_units(docs):
    """(pred, cid, turn, correct) of every scored OM-assessment unit (spec 2.2 scorer rule)."""
    for fname, conv in docs.conversations.items():
        cid = conv["conversationId"]
        for pred, files in docs.runs.items():
            rts = {rt["turnNumber"]: rt for rt in files[fname]["turns"]}
            for turn in conv["turns"]:
                rt = rts.get(turn["turnNumber"])
                if rt is None:
                    continue
                for bj in turn["annotations"]["binaryJudgements"]:
                    obs = _norm_binary(bj.get("observedBehavior"))
                    ref = obs if obs is not None else _norm_binary(bj.get("llmValue"))
                    if ref not in ("yes", "no"):
                        continue
                    pv = rt["em_binary_om_assessment"].get(bj["questionId"])
                    pv = "no" if pv in (None, "na") else pv
                    yield pred, cid, turn["turnNumber"], pv == ref


def _extension_config(**kw):
    base = dict(
        n_models=3,
        n_human_raters=0,
        messiness=0.0,
        model_skills=(_SKILL, _SKILL, _SKILL),
        diagnosis_interaction_sd=0.0,
        topic_interaction_sd=0.0,
        drift_sd=0.0,
    )
    base.update(kw)
    return SimulationConfig(**base)


# ------------------------------------------------------------------------------------------
# truth.json holds every draw the data were generated with
# ------------------------------------------------------------------------------------------
def test_behaviour_follows_the_linear_predictor_of_truth_with_every_extension():
    """With predictor x participant and x conversation interactions and overdispersion planted,
    the OM accuracy of every (predictor, conversation) cell is L(eta) with eta from truth.json."""
    cfg = _extension_config(
        n_conversations=60,
        participant_interaction_sd=0.5,
        conversation_interaction_sd=0.8,
        binary_overdispersion_sd=0.8,
    )
    docs = _simulate(cfg, 31)
    truth = docs.truth
    acc = defaultdict(lambda: [0, 0.0, 0.0])
    for pred, cid, tn, ok in _om_units(docs):
        p = logistic(eta_from_truth(truth, pred, cid, tn, "behaviour", behaviour=True) + 0.0)
        a = acc[(pred, cid)]
        a[0] += ok
        a[1] += p
        a[2] += p * (1 - p)
    z = np.array([(o - m) / math.sqrt(v) for o, m, v in acc.values()])
    assert len(z) == 3 * 60
    assert np.abs(z).max() < stats.norm.isf(ALPHA / 2 / len(z))
    assert (z**2).sum() < stats.chi2.isf(ALPHA, len(z))
    assert "participant_interaction" in truth["linear_predictor"]
    assert "wi[m, k, c]" in truth["linear_predictor"]
    assert "binary_noise" in truth["linear_predictor"]


# ------------------------------------------------------------------------------------------
# predictor x participant interactions at a latent ICC of the paired difference
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("icc", [0.1, 0.5])
def test_paired_difference_has_the_configured_participant_icc(icc):
    """Two equally good models: the conversation-level behaviour logit difference d_k is
    a_p(k) + e_k with a ~ N(0, 2 s_pi^2) and e ~ N(0, 2 s_wi^2), s_pi = icc_sd(icc, s_wi).
    Exact chi-square tests of both variance components (the true mean is 0): together they say
    the realised ICC 2 s_pi^2 / (2 s_pi^2 + 2 s_wi^2) is the configured one."""
    s_wi = 0.3
    n_part = 150
    cfg = _extension_config(
        n_models=2,
        model_skills=(_SKILL, _SKILL),
        n_conversations=1200,
        n_participants=n_part,
        participant_weights=(1.0,) * n_part,
        n_turns_range=(1, 1),
        participant_interaction_sd=icc_sd(icc, s_wi),
        conversation_interaction_sd=s_wi,
    )
    truth = _simulate(cfg, 40 + int(10 * icc)).truth
    groups = defaultdict(list)
    for cid, c in truth["conversations"].items():
        d = eta_from_truth(
            truth, "sim-model-01", cid, 1, "behaviour", turn_level=False
        ) - eta_from_truth(truth, "sim-model-02", cid, 1, "behaviour", turn_level=False)
        groups[c["participant"]].append(d)
    var_b = 2 * icc_sd(icc, s_wi) ** 2  # configured, not read from truth
    var_w = 2 * s_wi**2
    ss_w = sum(((np.array(g) - np.mean(g)) ** 2).sum() for g in groups.values())
    df_w = sum(len(g) - 1 for g in groups.values())
    q_w = ss_w / var_w
    assert stats.chi2.ppf(ALPHA / 2, df_w) < q_w < stats.chi2.isf(ALPHA / 2, df_w)
    q_b = sum(np.mean(g) ** 2 / (var_b + var_w / len(g)) for g in groups.values())
    assert stats.chi2.ppf(ALPHA / 2, len(groups)) < q_b < stats.chi2.isf(ALPHA / 2, len(groups))


# ------------------------------------------------------------------------------------------
# participant laws: t(3), outliers
# ------------------------------------------------------------------------------------------
def test_t3_participant_effects_are_student_t3_with_the_configured_sd():
    sd = np.array([0.3, 0.5, 0.7, 0.2, 0.4])
    cfg = SimulationConfig(participant_distribution="t3", participant_sd=tuple(sd))
    z = np.concatenate([draw_effects(cfg, rng=s).u / sd for s in range(300)])  # 3300 x 5
    t = z.ravel() * math.sqrt(3.0)  # t(3) has variance 3: u = sd * T / sqrt(3)
    assert stats.kstest(t, stats.t(3).cdf).pvalue > ALPHA
    assert stats.kstest(z.ravel(), "norm").pvalue < 1e-6  # heavier tails than the normal
    # heavy tails in numbers: P(|T| > 3 sqrt(3)... ) compare the share beyond 3 sd
    share = np.mean(np.abs(z.ravel()) > 3.0)
    p3 = 2 * stats.t(3).sf(3.0 * math.sqrt(3.0))
    assert abs(share - p3) < 4.5 * math.sqrt(p3 * (1 - p3) / z.size)
    assert p3 > 5 * 2 * stats.norm.sf(3.0)


def test_outlying_participants_are_shifted_by_the_configured_amount():
    sd = 0.3
    cfg = SimulationConfig(
        participant_distribution="outliers",
        n_outlier_participants=2,
        outlier_shift=4.0,
        participant_sd=sd,
    )
    rest = []
    for s in range(150):
        z = draw_effects(cfg, rng=s).u / sd  # (11, 5)
        low = z.mean(axis=1) < -2.0  # outliers: mean -4 +- 0.45; others 0 +- 0.45
        assert low.sum() == 2
        z[low] += 4.0
        rest.append(z)
    assert stats.kstest(np.concatenate(rest).ravel(), "norm").pvalue > ALPHA
    # a new population of participants keeps the outliers' share
    big = redraw_participants(draw_effects(cfg, rng=1), rng=2, n_participants=1100)
    assert ((big.u / sd).mean(axis=1) < -2.0).sum() == 200


# ------------------------------------------------------------------------------------------
# overdispersed binary judgements
# ------------------------------------------------------------------------------------------
def _dispersion_z(docs):
    """z-score of the Pearson statistic of the turn-level OM counts of correct answers around
    L(eta) from truth.json without the overdispersion noise.

    For a binomial (n, p) count the standardised square (y - n p)^2 / (n p q) has mean 1 and
    variance 2 + 1 / (n p q) - 6 / n (from its fourth central moment n p q (1 + 3 (n - 2) p q));
    cells (predictor, conversation, turn) are independent given eta for models.
    """
    truth = docs.truth
    cells = defaultdict(lambda: [0, 0, None])
    for pred, cid, tn, ok in _om_units(docs):
        c = cells[(pred, cid, tn)]
        c[0] += ok
        c[1] += 1
        if c[2] is None:
            c[2] = logistic(eta_from_truth(truth, pred, cid, tn, "behaviour"))
    x2 = var = 0.0
    for y, n, p in cells.values():
        npq = n * p * (1 - p)
        x2 += (y - n * p) ** 2 / npq
        var += 2 + 1 / npq - 6 / n
    return (x2 - len(cells)) / math.sqrt(var)


@pytest.mark.parametrize("sd", [0.0, 1.0])
def test_binary_overdispersion_within_a_turn(sd):
    """Given eta, a turn's counts of correct judgements are binomial without the noise and
    overdispersed with it (Pearson statistic far above its binomial mean)."""
    cfg = _extension_config(n_conversations=80, binary_overdispersion_sd=sd)
    z = _dispersion_z(_simulate(cfg, 50))
    if sd == 0:
        assert abs(z) < stats.norm.isf(ALPHA / 2)
    else:
        assert z > 3 * stats.norm.isf(ALPHA / 2)


# ------------------------------------------------------------------------------------------
# unequal conversations per participant
# ------------------------------------------------------------------------------------------
def test_conversations_per_participant_follow_the_configured_weights():
    weights = np.array([1.0 / (p + 1.0) for p in range(11)])
    cfg = _extension_config(
        n_conversations=600, n_turns_range=(1, 1), participant_weights=tuple(weights)
    )
    docs = _simulate(cfg, 60)
    ids = [c["participant_profile"]["participant_id"] for c in docs.conversations.values()]
    counts = np.array([ids.count(f"sim-p{i:02d}") for i in range(1, 12)])
    assert counts.sum() == 600
    expected = 600 * weights / weights.sum()
    assert stats.chisquare(counts, expected).pvalue > ALPHA
    assert counts[0] > 5 * counts[-1]


# ------------------------------------------------------------------------------------------
# reproducibility of the misspecification scenarios
# ------------------------------------------------------------------------------------------
def test_scenario_output_depends_on_the_seed_only():
    code = (
        "import hashlib, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "from attunestats.release.simulate import SimulationConfig, simulate_documents\n"
        "cfg = SimulationConfig(n_conversations=6, participant_distribution='outliers',\n"
        "    n_outlier_participants=2, participant_interaction_sd=0.3,\n"
        "    conversation_interaction_sd=0.3, binary_overdispersion_sd=0.5,\n"
        "    diagnosis_assignment='random', participant_weights=(1.0,) * 11)\n"
        "for seed in (3, 3, 4):\n"
        "    h = hashlib.sha256()\n"
        "    for k, v in simulate_documents(cfg, rng=seed).files().items():\n"
        "        h.update(k.encode()); h.update(v)\n"
        "    print(h.hexdigest())\n"
    )
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(res.stdout.split())
    assert outs[0] == outs[1]
    a, b, c = outs[0]
    assert a == b != c


# ------------------------------------------------------------------------------------------
# every scenario writes a release the loader reads without a single warning
# ------------------------------------------------------------------------------------------
_SCENARIO_OVERRIDES = {
    "participant x predictor": dict(
        participant_interaction_sd=icc_sd(0.5, 0.3), conversation_interaction_sd=0.3
    ),
    "t3 participants": dict(participant_distribution="t3"),
    "outlying participants": dict(participant_distribution="outliers", n_outlier_participants=2),
    "overdispersed binary": dict(binary_overdispersion_sd=0.5),
    "unequal conversations": dict(participant_weights=tuple(1.0 / (p + 1.0) for p in range(11))),
    "random diagnosis": dict(diagnosis_assignment="random"),
}


@pytest.mark.parametrize("scenario", sorted(_SCENARIO_OVERRIDES))
def test_scenario_releases_load_strictly(scenario, tmp_path):
    import json

    from attunestats.release.load import load_release

    cfg = SimulationConfig(n_conversations=12, messiness=0.0, **_SCENARIO_OVERRIDES[scenario])
    docs = _simulate(cfg, 70)
    out = docs.write(tmp_path / "rel")
    release = load_release(out, strict=True)
    assert not release.report.warnings
    assert len(list((out / "conversations").glob("conversation_*.json"))) == 12
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(docs.runs)
    conv = json.loads((out / "conversations" / "conversation_5.json").read_text("utf-8"))
    assert conv["conversationId"] == "5" and conv["metadata"]["turnCount"] == len(conv["turns"])
    run = json.loads((out / "runs" / "sim-model-01" / "conversation_5.json").read_text("utf-8"))
    assert run["source_file"] == "conversation_5.json" and run["em_model"] == "sim-model-01"
    assert all(
        v in ("yes", "no", "na")
        for rt in run["turns"]
        for v in rt["em_binary_om_assessment"].values()
    )
    truth = json.loads((out / "truth.json").read_text("utf-8"))
    assert SimulationConfig.from_dict(truth["config"]) == cfg


# ------------------------------------------------------------------------------------------
# planted population effects follow their configured laws
# ------------------------------------------------------------------------------------------
def _normal_law_ok(x, mean, sd, *, n_tests):
    """x: independent draws said to be N(mean, sd^2): z of the mean and chi-square of the
    sum of squares around the known mean, each at level ALPHA / n_tests."""
    x = np.asarray(x, dtype=float).ravel()
    if sd == 0:
        return bool(np.all(x == mean))
    z = (x.mean() - mean) / (sd / math.sqrt(x.size))
    q = (((x - mean) / sd) ** 2).sum()
    a = ALPHA / n_tests
    return abs(z) < stats.norm.isf(a / 2) and (
        stats.chi2.ppf(a / 2, x.size) < q < stats.chi2.isf(a / 2, x.size)
    )


def test_population_effects_follow_the_configured_laws():
    """Skills, drift, participant, diagnosis, topic (with the hardest topic) and interaction
    effects over 200 draws of the paper scenario, against the configured means and sds."""
    cfg = SimulationConfig()
    draws = [draw_effects(cfg, rng=s) for s in range(200)]
    nm = cfg.n_models
    checks = []
    for c in range(5):
        theta_m = [e.theta[:nm, c] for e in draws]
        theta_h = [e.theta[nm:, c] for e in draws]
        checks += [
            ("theta models", c, theta_m, cfg.skill_mean[c], cfg.skill_sd[c]),
            ("theta humans", c, theta_h, cfg.human_skill_mean[c], cfg.human_skill_sd[c]),
            ("u", c, [e.u[:, c] for e in draws], 0.0, cfg.participant_sd[c]),
            ("v others", c, [e.v[1:, c] for e in draws], 0.0, cfg.topic_sd[c]),
            ("v hardest", c, [e.v[0, c] for e in draws], cfg.hardest_topic_effect[c],
             cfg.topic_sd[c]),
            ("gamma", c, [e.gamma[:, 1:, c] for e in draws], 0.0, cfg.diagnosis_interaction_sd[c]),
            ("topic x predictor", c, [e.topic_interaction[:, :, c] for e in draws], 0.0,
             cfg.topic_interaction_sd[c]),
        ]  # fmt: skip
        if CAPABILITIES[c] != "holistic":
            checks.append(("beta", c, [e.beta[:, c] for e in draws], cfg.drift_mean[c],
                           cfg.drift_sd[c]))  # fmt: skip
    bad = [
        (name, CAPABILITIES[c])
        for name, c, x, mean, sd in checks
        if not _normal_law_ok(
            np.concatenate([np.ravel(v) for v in x]), mean, sd, n_tests=len(checks)
        )  # fmt: skip
    ]
    assert not bad
    hol = CAPABILITIES.index("holistic")
    for e in draws:
        assert not e.beta[:, hol].any() and not e.gamma[:, 0].any()
        np.testing.assert_array_equal(e.delta[1:], np.array(cfg.diagnosis_effect))
        assert not e.delta[0].any()
