"""Study: coverage of the behaviour model on releases written by a generator outside the package.

The recovery study (:mod:`attunestats.design.recovery`) draws its releases with the package's own
simulator, which was written alongside the model. This script does not use it: it writes each
release file by file from the format description (``docs/release-format.md``) with numpy and
json only, reads it back with :func:`attunestats.load_release`, scores it, builds the behaviour
model (task ``om``) with the default structure and fits it, then checks the 90% posterior
intervals against the generator's truth. SIMULATED data throughout.

The generator's world (logit scale; none of it is the model's likelihood):

- 11 participants (5 without a diagnosis, 3 anxiety/depression, 3 ASD/ADHD, read by the loader
  from the profile's ``traits``), 6 to 14 conversations each (unequal), 6 topics, 3 to 8 turns,
  6 behaviour questions per turn (about 10% of the ground truth ``na``, which the metric skips);
- participant effects ``u ~ 0.4 t(3)`` (heavy tails), diagnosis shifts ``-0.5`` and ``+0.4``,
  topic effects ``N(0, 0.35)``, conversation effects ``N(0, 0.3)``;
- predictor effects ``theta ~ N(0.9, 0.5)``, predictor x participant ``N(0, 0.35)`` (the models'
  differences vary across people), predictor x conversation ``N(0, 0.15)``, turn slopes
  ``beta ~ N(-0.3, 0.3)`` on the position ``(turn - 1) / (n_turns - 1)``;
- each question of a cell is answered correctly with probability ``mu + mu (1 - mu) s``, ``mu =
  logistic(eta)`` and ``s ~ Uniform(-0.6, 0.6)`` per question and cell: heterogeneity inside a
  cell that keeps the cell's mean at ``mu`` but is neither beta-binomial nor logit-normal. A
  correct answer repeats the participant's ``observedBehavior``, a wrong one flips it.

Truth of the quantities the model reports (its identifiable, population quantities): predictor
contrasts ``theta[m] - theta[m']`` (all pairs), turn slopes ``beta[m]``, diagnosis effects
``delta[g] - delta[none]`` and topic effects ``v[t] - mean(v)`` over the topics present.

    .venv/bin/python benchmarks/study_recovery_independent.py --replicates 30 [--seed 1] [--out FILE]

Prints the coverage of each family with its Monte Carlo SE (between replicates) and the gate's
verdicts; ``--out`` writes one row per replicate and quantity (CSV).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

GROUPS = {"none": ["no diagnosis"], "anxiety_depression": ["Generalized anxiety disorder"],
          "asd_adhd": ["ADHD"]}  # fmt: skip
GROUP_OF_PARTICIPANT = ["none"] * 5 + ["anxiety_depression"] * 3 + ["asd_adhd"] * 3
DELTA = {"none": 0.0, "anxiety_depression": -0.5, "asd_adhd": 0.4}
TOPICS = ["work", "family", "health", "friends", "study", "money"]
N_PREDICTORS = 4
QUESTIONS = [f"q{i}" for i in range(1, 7)]
PAIRWISE = ["p1", "p2", "p3"]  # pairwise questions, each with its own difficulty
PAIRS = [("original", "alternate"), ("original", "human"), ("alternate", "human")]


def _logistic(x: np.ndarray | float) -> np.ndarray | float:
    return 1.0 / (1.0 + np.exp(-x))


def write_release(root: Path, rng: np.random.Generator) -> dict:
    """Write one release under ``root``; return the truth."""
    P = len(GROUP_OF_PARTICIPANT)
    preds = [f"model-{chr(97 + i)}" for i in range(N_PREDICTORS)]
    theta = rng.normal(0.9, 0.5, N_PREDICTORS)
    beta = rng.normal(-0.3, 0.3, N_PREDICTORS)
    u = 0.4 * rng.standard_t(3, P)
    v = rng.normal(0.0, 0.35, len(TOPICS))
    pi = rng.normal(0.0, 0.35, (N_PREDICTORS, P))
    q_pref = rng.normal(0.0, 0.4, len(PAIRWISE))
    (root / "conversations").mkdir(parents=True)
    runs = {m: [] for m in preds}
    conv_id = 100
    used_topics: set[int] = set()
    for p in range(P):
        group = GROUP_OF_PARTICIPANT[p]
        for _ in range(int(rng.integers(6, 15))):
            conv_id += int(rng.integers(1, 4))  # ids not contiguous, as in the official files
            t_i = int(rng.integers(len(TOPICS)))
            used_topics.add(t_i)
            w = rng.normal(0.0, 0.3)
            wi = rng.normal(0.0, 0.15, N_PREDICTORS)
            n_turns = int(rng.integers(3, 9))
            turns, run_turns = [], {m: [] for m in preds}
            for t in range(1, n_turns + 1):
                x = (t - 1) / (n_turns - 1)
                observed = rng.choice(["yes", "no", "na"], size=len(QUESTIONS), p=[0.45, 0.45, 0.1])
                winners = rng.choice(["A", "B", None], size=len(PAIRWISE), p=[0.45, 0.45, 0.1])
                turns.append({
                    "turnNumber": t,
                    "userMessage": f"message {t}",
                    "llmResponse": f"reply {t}",
                    "moodShiftTags": [{"emotion": "Alert", "intensity": 4}],
                    "annotations": {
                        "binaryJudgements": [
                            {"questionId": q, "observedBehavior": str(o), "preferredBehavior": str(o)}
                            for q, o in zip(QUESTIONS, observed)
                        ],
                        "pairwiseComparisons": [
                            {"questionId": q, "responseA": a, "responseB": b, "winner": w}
                            for q, (a, b), w in zip(PAIRWISE, PAIRS, winners)
                        ],
                    },
                })  # fmt: skip
                for i, m in enumerate(preds):
                    eta = (
                        theta[i] + u[p] + DELTA[group] + v[t_i] + w + pi[i, p] + wi[i] + beta[i] * x
                    )
                    mu = _logistic(eta)
                    prob = mu + mu * (1 - mu) * rng.uniform(-0.6, 0.6, len(QUESTIONS))
                    correct = rng.random(len(QUESTIONS)) < prob
                    answer = {}
                    for q, o, c in zip(QUESTIONS, observed, correct):
                        truth_yes = o == "yes" if o != "na" else bool(rng.random() < 0.5)
                        answer[q] = "yes" if (truth_yes == bool(c)) else "no"
                    prob = _logistic(eta + q_pref)
                    prob = prob + prob * (1 - prob) * rng.uniform(-0.6, 0.6, len(PAIRWISE))
                    correct = rng.random(len(PAIRWISE)) < prob
                    picks = {}
                    for c_i, (win, c) in enumerate(zip(winners, correct)):
                        win = win if win is not None else str(rng.choice(["A", "B"]))
                        picks[str(c_i)] = win if c else ("B" if win == "A" else "A")
                    run_turns[m].append({"turnNumber": t, "em_binary_om_assessment": answer,
                                         "em_pairwise_selections": picks})  # fmt: skip
            conv = {
                "conversationId": str(conv_id),
                "metadata": {"category": TOPICS[t_i], "subtopic": "general"},
                "participant_profile": {"participant_id": f"hp{p + 1:02d}", "traits": GROUPS[group]},
                "turns": turns,
            }  # fmt: skip
            (root / "conversations" / f"conversation_{conv_id}.json").write_text(json.dumps(conv))
            for m in preds:
                runs[m].append({"conversationId": str(conv_id), "em_model": m, "mode": "default",
                                "turns": run_turns[m], "post_conversation": {}})  # fmt: skip
    for m in preds:
        d = root / "runs" / m
        d.mkdir(parents=True)
        for r in runs[m]:
            (d / f"conversation_{r['conversationId']}.json").write_text(json.dumps(r))
    release = {"format": "attunestats-release/1", "name": "independent generator", "simulated": True,
               "predictors": {m: {"kind": "model", "display_name": m, "mode": "default"} for m in preds}}  # fmt: skip
    (root / "release.json").write_text(json.dumps(release))
    present = sorted(used_topics)
    return {
        "predictors": preds,
        "theta": dict(zip(preds, theta)),
        "beta": dict(zip(preds, beta)),
        "topic": {TOPICS[t]: v[t] - v[present].mean() for t in present},
    }


def replicate(seed: int, *, outcomes: list[str], draws: int, tune: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        truth = write_release(Path(tmp) / "release", rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import attunestats as at

            scores = at.score(at.load_release(Path(tmp) / "release"))
    frames = [_check(outcome, scores, truth, seed, draws=draws, tune=tune) for outcome in outcomes]
    return pd.concat(frames, ignore_index=True)


def _check(outcome: str, scores, truth: dict, seed: int, *, draws: int, tune: int) -> pd.DataFrame:
    from attunestats.hierarchical import (
        behaviour_model_from_scores,
        fit,
        preference_model_from_scores,
    )
    from attunestats.hierarchical.summaries import posterior_quantities

    if outcome == "behaviour":
        model = behaviour_model_from_scores(scores, task="om")
    else:
        model = preference_model_from_scores(scores)
    res = fit(model, draws=draws, tune=tune, chains=4, rng=seed, progress_bar=False)
    q = posterior_quantities(res)
    rows = []

    def add(family: str, label: str, d: np.ndarray, true: float) -> None:
        lo, hi = np.quantile(d, [0.05, 0.95])
        rows.append({"seed": seed, "outcome": outcome, "family": family, "quantity": label, "truth": true,
                     "mean": float(d.mean()), "lo": lo, "hi": hi, "covered": lo <= true <= hi,
                     "gate": res.passed})  # fmt: skip

    eff, labels = q["predictor_effect"]
    names = [lv[0] for lv in labels]
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = names[i], names[j]
            add("predictor contrast", f"{a} - {b}", eff[:, i] - eff[:, j],
                truth["theta"][a] - truth["theta"][b])  # fmt: skip
    sl, labels = q["turn_slope"]
    for i, (m,) in enumerate(labels):
        add("turn slope", m, sl[:, i], truth["beta"][m])
    de, labels = q["diagnosis_effect"]
    ref = model.diagnosis_groups[0]
    for i, (g,) in enumerate(labels):
        add("diagnosis effect", f"{g} - {ref}", de[:, i], DELTA[g] - DELTA[ref])
    te, labels = q["topic_effect"]
    for i, (t,) in enumerate(labels):
        add("topic effect", t, te[:, i], truth["topic"][t])
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1, help="first replicate's seed")
    ap.add_argument("--draws", type=int, default=500)
    ap.add_argument("--tune", type=int, default=300)
    ap.add_argument("--outcome", nargs="+", default=["behaviour", "preference"],
                    choices=["behaviour", "preference"])  # fmt: skip
    ap.add_argument("--out", default=None, help="CSV of every replicate and quantity")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    print("[SIMULATED: releases from a generator outside the package]")
    frames = []
    for r in range(args.replicates):
        t = time.perf_counter()
        frames.append(
            replicate(args.seed + r, outcomes=args.outcome, draws=args.draws, tune=args.tune)
        )
        df = pd.concat(frames, ignore_index=True)
        if args.out:
            df.to_csv(args.out, index=False)
        print(f"replicate {r + 1}/{args.replicates} ({time.perf_counter() - t:.0f} s)", flush=True)
    # coverage per family; Monte Carlo SE between replicates (quantities of one release are
    # not independent)
    keys = ["outcome", "family"]
    per = df.groupby([*keys, "seed"])["covered"].mean()
    out = pd.DataFrame({
        "replicates": per.groupby(keys).count(),
        "quantities": df.groupby(keys).size(),
        "coverage": df.groupby(keys)["covered"].mean(),
        "mc_se": per.groupby(keys).std(ddof=1) / np.sqrt(per.groupby(keys).count()),
    })  # fmt: skip
    print(out.round(3).to_string())
    gates = df.groupby(["outcome", "seed"])["gate"].first().groupby("outcome").agg(["sum", "count"])
    print("fits passing the diagnostics gate (sum of count):")
    print(gates.to_string())


if __name__ == "__main__":
    main()
