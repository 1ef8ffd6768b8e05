"""Independent AttuneBench release generator (no attunestats code used).

Model of correctness (per metric k in {binary, pairwise}, independent draws per metric):
    logit P(correct | model m, participant p, conversation c)
        = mu[k, m] + u[k, p] + v[k, m, p] + w[k, c]
    u ~ N(0, su^2)       participant effect shared by all models (cancels in paired differences)
    v ~ N(0, sv^2)       model x participant interaction (drives the paired-difference ICC)
    w ~ N(0, sw^2)       conversation difficulty shared by all models
Every judgement / comparison of that (m, c) is correct independently with that probability.
Ground truth observedBehavior is yes/no with prob 0.5; the prediction equals it when correct,
otherwise the opposite. Pairwise: winner A/B with prob 0.5, selection equals winner when correct.

Conditional expectation of a conversation's turn-averaged accuracy given (m, p, c) is exactly
expit(mu + u + v + w) whatever the number of turns or judgements per turn (each turn has >= 1).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

QIDS = [
    "B1",
    "B2",
    "B3",
    "B4",
    "B5",
    "B6",
    "B7",
    "B8",
    "B9",
    "B10",
    "B11",
    "B12",
    "B13",
    "B14",
    "B15",
    "B16",
    "B17",
    "B18",
    "B19",
    "B20",
]
PW_QIDS = ["general", "PW1", "PW2", "PW3", "PW4", "PW5"]
LABEL_PAIRS = [("original", "alternate"), ("original", "human"), ("alternate", "human")]
MODELS = ["model-A", "model-B", "model-C"]
METRICS = ["binary", "pairwise"]


@dataclass(frozen=True)
class Params:
    mu: dict  # metric -> array of 3 model intercepts
    su: float = 0.5
    sv: dict = None  # metric -> SD of the model x participant interaction
    sw: float = 0.4

    def svk(self, k):
        return 0.0 if self.sv is None else float(self.sv[k])


def expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def default_mu():
    # A and B equal, C better
    return {"binary": np.array([0.8, 0.8, 1.2]), "pairwise": np.array([0.3, 0.3, 0.7])}


def generate_release(
    path, seed, params: Params, conv_counts, turns_range=(3, 6), judg_range=(3, 6), pw_range=(1, 3)
):
    """Write a release folder; return dict with the latent per-participant quantities."""
    rng = np.random.default_rng(seed)
    n_part = len(conv_counts)
    os.makedirs(os.path.join(path, "conversations"), exist_ok=True)
    for m in MODELS:
        os.makedirs(os.path.join(path, "runs", m), exist_ok=True)
    # latent effects per metric
    u = {k: rng.normal(0, params.su, n_part) for k in METRICS}
    v = {k: rng.normal(0, params.svk(k), (3, n_part)) for k in METRICS}
    n_conv = int(np.sum(conv_counts))
    w = {k: rng.normal(0, params.sw, n_conv) for k in METRICS}
    part_of_conv = np.repeat(np.arange(n_part), conv_counts)
    # shuffle conversation numbering so participants are not contiguous
    conv_numbers = rng.permutation(n_conv) + 1
    for c in range(n_conv):
        p = part_of_conv[c]
        cid = str(conv_numbers[c])  # the loader requires the bare N of conversation_<N>.json
        prob = {k: expit(params.mu[k] + u[k][p] + v[k][:, p] + w[k][c]) for k in METRICS}
        n_turns = rng.integers(turns_range[0], turns_range[1] + 1)
        gt_turns = []
        em_turns = {m: [] for m in MODELS}
        for t in range(1, n_turns + 1):
            nj = rng.integers(judg_range[0], judg_range[1] + 1)
            qs = rng.choice(QIDS, size=nj, replace=False)
            obs = rng.random(nj) < 0.5
            npw = rng.integers(pw_range[0], pw_range[1] + 1)
            pqs = rng.choice(PW_QIDS, size=npw, replace=False)
            pairs = [LABEL_PAIRS[i] for i in rng.integers(0, 3, npw)]
            winA = rng.random(npw) < 0.5
            gt_turns.append(
                {
                    "turnNumber": t,
                    "userMessage": f"user message {t}",
                    "llmResponse": f"original reply {t}",
                    "moodShiftTags": [],
                    "annotations": {
                        "binaryJudgements": [
                            {
                                "questionId": str(q),
                                "llmValue": None,
                                "observedBehavior": "yes" if o else "no",
                                "preferredBehavior": "yes" if o else "no",
                            }
                            for q, o in zip(qs, obs)
                        ],
                        "alternateResponses": {
                            "llmImproved": f"improved {t}",
                            "humanEdited": f"edited {t}",
                        },
                        "pairwiseComparisons": [
                            {
                                "questionId": str(q),
                                "responseA": a,
                                "responseB": b,
                                "winner": "A" if wa else "B",
                            }
                            for q, (a, b), wa in zip(pqs, pairs, winA)
                        ],
                        "selectedPairwiseQuestions": [str(q) for q in pqs],
                    },
                }
            )
            for mi, m in enumerate(MODELS):
                corr_b = rng.random(nj) < prob["binary"][mi]
                corr_p = rng.random(npw) < prob["pairwise"][mi]
                pred = obs == corr_b  # correct -> same as obs
                sel = winA == corr_p
                em_turns[m].append(
                    {
                        "turnNumber": t,
                        "em_binary_om_assessment": {
                            str(q): ("yes" if pv else "no") for q, pv in zip(qs, pred)
                        },
                        "pairwise_assignment": {
                            str(i): {"A": a, "B": b} for i, (a, b) in enumerate(pairs)
                        },
                        "em_pairwise_selections": {
                            str(i): ("A" if s else "B") for i, s in enumerate(sel)
                        },
                    }
                )
        gt = {
            "conversationId": cid,
            "metadata": {"category": "general", "subtopic": "general", "turnCount": int(n_turns)},
            "participant_profile": {"participant_id": f"P{p + 1:02d}", "traits": []},
            "turns": gt_turns,
        }
        with open(os.path.join(path, "conversations", f"conversation_{cid}.json"), "w") as f:
            json.dump(gt, f)
        for m in MODELS:
            run = {
                "conversationId": cid,
                "em_model": m,
                "mode": "default",
                "turns": em_turns[m],
                "post_conversation": {},
            }
            with open(os.path.join(path, "runs", m, f"conversation_{cid}.json"), "w") as f:
                json.dump(run, f)
    rel = {
        "format": "attunestats-release/1",
        "name": f"indep-{seed}",
        "simulated": True,
        "seed": int(seed),
        "predictors": {m: {"kind": "model", "display_name": m, "mode": "default"} for m in MODELS},
    }
    with open(os.path.join(path, "release.json"), "w") as f:
        json.dump(rel, f)
    return {"u": u, "v": v, "conv_counts": np.asarray(conv_counts), "part_of_conv": part_of_conv}


# --------------------------------------------------------------------------------------------
# truths
# --------------------------------------------------------------------------------------------
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(80)
_GH_W = _GH_W / _GH_W.sum()


def _e_expit(mean, sd):
    """E expit(mean + sd Z), Z ~ N(0,1), by Gauss-Hermite (broadcasts over mean)."""
    mean = np.asarray(mean, dtype=float)
    return np.sum(expit(mean[..., None] + sd * _GH_X) * _GH_W, axis=-1)


def population_truth_mc(params: Params, count_sampler, n_part=2_000_000, seed=12345, chunk=200_000):
    """Monte Carlo over fresh participants: estimand = E[sum_c y_c] / E[n_p] per model,
    i.e. E[n_p * mu_p] / E[n_p] with mu_p = E[y_c | p] = E_w expit(mu + u + v + w).
    Returns {metric: {"means": array(3), "C-A": float, "A-B": float, "mcse": ...}}."""
    rng = np.random.default_rng(seed)
    out = {}
    for k in METRICS:
        num = np.zeros(3)
        num2 = np.zeros(3)  # for MC se of each mean (approx, ratio)
        numd, numd2 = 0.0, 0.0
        den = 0.0
        done = 0
        while done < n_part:
            n = min(chunk, n_part - done)
            cnt = count_sampler(rng, n).astype(float)
            u = rng.normal(0, params.su, n)
            v = rng.normal(0, params.svk(k), (3, n))
            mp = _e_expit(params.mu[k][:, None] + u[None, :] + v, params.sw)  # (3, n)
            num += (cnt * mp).sum(axis=1)
            num2 += ((cnt * mp) ** 2).sum(axis=1)
            d = cnt * (mp[2] - mp[0])
            numd += d.sum()
            numd2 += (d**2).sum()
            den += cnt.sum()
            done += n
        means = num / den
        out[k] = {
            "means": means,
            "C-A": numd / den,
            "A-B": 0.0,
            "mcse_C-A": float(
                np.sqrt(numd2 / n_part - (numd / n_part) ** 2) / np.sqrt(n_part) / (den / n_part)
            ),
        }
    return out


def population_truth_exact(params: Params):
    """With counts independent of effects, the estimand is E expit(mu + N(0, su2+sv2+sw2))."""
    return {
        k: _e_expit(params.mu[k], np.sqrt(params.su**2 + params.svk(k) ** 2 + params.sw**2))
        for k in METRICS
    }


def conditional_truth(params: Params, latent):
    """These participants: sum_p n_p E_w expit(mu + u_p + v_mp + w) / sum_p n_p."""
    out = {}
    n = latent["conv_counts"].astype(float)
    for k in METRICS:
        mp = _e_expit(params.mu[k][:, None] + latent["u"][k][None, :] + latent["v"][k], params.sw)
        out[k] = (mp * n).sum(axis=1) / n.sum()
    return out
