"""Calibrate ``sv`` (the model x participant SD) so that the observed conversation-level ICC of
the paired difference C - A is 0, 0.1 and 0.5, per metric (mirrors gen.py's structure).

Run: .venv/bin/python benchmarks/independent_generator/calib.py
"""

from __future__ import annotations

import os
import sys

import numpy as np
from scipy.optimize import brentq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402


def conv_acc(rng, prob, items):
    """Turn-averaged accuracy of conversations with gen.py's random turn and item counts."""
    n = prob.shape[0]
    turns = rng.integers(3, 7, n)
    counts = rng.integers(items[0], items[1] + 1, (n, 6))
    correct = rng.binomial(counts, prob[:, None])
    mask = np.arange(6)[None, :] < turns[:, None]
    return (correct / counts * mask).sum(1) / turns


def icc_diff(metric, sv, su=0.5, sw=0.4, n_part=3000, m=18, seed=1):
    """One-way ANOVA ICC of the per-conversation difference C - A (m conversations each)."""
    rng = np.random.default_rng(seed)
    mu = gen.default_mu()[metric]
    items = (3, 6) if metric == "binary" else (1, 3)
    u = rng.normal(0, su, n_part)
    v = rng.normal(0, sv, (3, n_part))
    pid = np.repeat(np.arange(n_part), m)
    w = rng.normal(0, sw, n_part * m)
    accs = [conv_acc(rng, gen.expit(mu[i] + u[pid] + v[i][pid] + w), items) for i in (0, 2)]
    d = (accs[1] - accs[0]).reshape(n_part, m)
    msb = m * d.mean(1).var(ddof=1)
    msw = d.var(1, ddof=1).mean()
    s2b = max((msb - msw) / m, 0)
    return s2b / (s2b + msw)


def main() -> None:
    for metric in ("binary", "pairwise"):
        for target in (0.1, 0.5):
            sv = brentq(lambda s, k=metric, t=target: icc_diff(k, s) - t, 0.01, 5, xtol=1e-3)
            latent = sv**2 / (sv**2 + 0.4**2 + np.pi**2 / 3)
            print(metric, target, round(sv, 4), "check", round(icc_diff(metric, sv, seed=7), 3),
                  "latent ICC of the difference", round(latent, 3))  # fmt: skip
        print(metric, 0.0, "ICC at sv = 0:", round(icc_diff(metric, 0.0), 4))


if __name__ == "__main__":
    main()
