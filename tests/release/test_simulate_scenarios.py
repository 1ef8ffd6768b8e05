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
import warnings
from collections import defaultdict

import numpy as np
from scipy import stats

from attunestats.release.simulate import (
    SimulationConfig,
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
    if v is None:
        return None
    s = str(v).strip().lower()
    return {"true": "yes", "y": "yes", "1": "yes", "false": "no", "n": "no", "0": "no"}.get(
        s, s if s in ("yes", "no") else None
    )


def _eta(truth, pred, cid, turn, cap, *, turn_level=True, behaviour=False):
    """The linear predictor from truth.json: its documented formula with the planted terms."""
    t = truth
    c = t["conversations"][cid]
    pid, g, top = c["participant"], c["diagnosis_group"], c["topic"]
    n = c["n_turns"]
    val = (
        t["theta"][pred][cap]
        + t["u"][pid][cap]
        + t["delta"][g][cap]
        + t["gamma"][pred][g][cap]
        + t["v"][top][cap]
        + t["topic_interaction"][pred][top][cap]
        + c["w"][cap]
    )
    if "participant_interaction" in t:
        val += t["participant_interaction"][pred][pid][cap]
    if "wi" in c:
        val += c["wi"][pred][cap]
    if turn_level:
        val += t["beta"][pred][cap] * (0.5 if n == 1 else (turn - 1) / (n - 1))
    if behaviour and "binary_noise" in c:
        val += c["binary_noise"][pred][turn - 1]
    return val


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
        p = logistic(_eta(truth, pred, cid, tn, "behaviour", behaviour=True) + 0.0)
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
