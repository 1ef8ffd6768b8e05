"""Study: does studentizing Krippendorff's alpha on another scale fix the participant
bootstrap-t's shortfall when participants differ strongly? (Answer, 2026-12-07: no; the numbers
are in the docstring of :mod:`attunestats.baseline.agreement`.)

The participant bootstrap-t of :func:`attunestats.baseline.rater_agreement` covers 0.91-0.94
of the time (nominal 0.95) for interval ratings when rating noise varies strongly across
participants (the coverage study of ``tests/baseline/test_agreement_participants.py``, whose
data-generating process, drawn there and not by the package's simulator, this script reuses).
Here the same resamples give three bootstrap-t intervals: on the alpha scale (the package's),
on the ``log(1 - alpha)`` scale and on the ``atanh(alpha)`` scale (delta-method SEs from the
within-resample jackknife SE, limits transformed back), and the script prints their coverage of
the population alpha, the share of intervals lying above it and their median widths.

    .venv/bin/python benchmarks/study_agreement_scale.py interval 11 2000 0.8 101
    (kind, participants, replications, participant SD, seed; about 0.05-0.1 s per replication)
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "baseline"))

import test_agreement_participants as T  # the study's data-generating process

from attunestats.baseline.kernel import (
    _alpha_subsets,
    _AlphaKernel,
    _cluster_weights,
    _jackknife_se,
)


def _pivot_interval(t: np.ndarray, est: float, se: float, level: float) -> tuple[float, float]:
    """Percentile-t interval from the studentized draws ``t`` (as the package's kernel)."""
    t = np.sort(t[np.isfinite(t)])
    b = t.size
    m = int(np.ceil((1 - level) * (b + 1) / 2 - 1e-9)) - 1
    return est - t[b - m] * se, est - t[m - 1] * se


def intervals(frame, kind: str, rng: np.random.Generator, n_boot: int, level: float = 0.95):
    """Alpha of one drawn study and its bootstrap-t intervals on three scales."""
    kernel = _AlphaKernel(frame[["conversation_id", "scale", "rater", "value"]], T._SPECS[kind])
    part_of = dict(zip(frame["conversation_id"], frame["participant"], strict=False))
    _, _, subs = _alpha_subsets(kernel, [["r1", "r2", "r3"]], resample="participant",
                                n_resamples=0, rng=None, participant_of_conversation=part_of)  # fmt: skip
    n_part, sub, eye = len(set(part_of.values())), subs[0], np.eye(len(set(part_of.values())))

    def evaluate(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        drop = np.repeat(weights, n_part, axis=0) - np.tile(eye, (weights.shape[0], 1))
        ok = drop.min(axis=1) >= 0
        a = sub.resampled(weights)[:, None]
        r = np.full((drop.shape[0], 1), np.nan)
        r[ok, 0] = sub.resampled(drop[ok])
        se = _jackknife_se(a, r.reshape(weights.shape[0], n_part, 1), weights)
        return a[:, 0], se[:, 0]

    a0, se0 = (float(v[0]) for v in evaluate(np.ones((1, n_part))))
    draws = [evaluate(block) for block in _cluster_weights(rng, n_part, n_boot)]
    a, s = np.concatenate([d[0] for d in draws]), np.concatenate([d[1] for d in draws])
    with np.errstate(all="ignore"):
        lo, hi = _pivot_interval((a - a0) / s, a0, se0, level)
        out = {"alpha": (lo, min(1.0, hi))}
        g_lo, g_hi = _pivot_interval((np.log1p(-a) - np.log1p(-a0)) / (s / (1 - a)),
                                     np.log1p(-a0), se0 / (1 - a0), level)  # fmt: skip
        out["log(1 - alpha)"] = (1 - np.exp(g_hi), 1 - np.exp(g_lo))
        z_lo, z_hi = _pivot_interval((np.arctanh(a) - np.arctanh(a0)) / (s / (1 - a**2)),
                                     np.arctanh(a0), se0 / (1 - a0**2), level)  # fmt: skip
        out["atanh(alpha)"] = (np.tanh(z_lo), np.tanh(z_hi))
    return a0, out


def main(kind: str, n_part: int, reps: int, part_sd: float, seed: int) -> None:
    truth, truth_se = T._true_alpha(kind, part_sd, 32_000)
    gen = np.random.default_rng(seed)
    hits: dict[str, int] = {}
    above: dict[str, int] = {}
    widths: dict[str, list[float]] = {}
    start = time.perf_counter()
    for _ in range(reps):
        _, out = intervals(T._draw(kind, n_part, gen, part_sd=part_sd), kind, gen, 999)
        for name, (lo, hi) in out.items():
            hits[name] = hits.get(name, 0) + int(lo <= truth <= hi)
            above[name] = above.get(name, 0) + int(lo > truth)
            widths.setdefault(name, []).append(hi - lo)
    print(f"SIMULATED ratings: {kind}, {n_part} participants, participant SD {part_sd}, "
          f"{reps} replications (Monte Carlo SE of a coverage {np.sqrt(0.0475 / reps):.4f}), "
          f"true alpha {truth:.4f} (MC SE {truth_se:.4f}), {time.perf_counter() - start:.0f} s")  # fmt: skip
    for name in hits:
        print(f"  {name:15s} coverage {hits[name] / reps:.3f}  above the truth "
              f"{above[name] / reps:.3f}  median width {np.median(widths[name]):.4f}")  # fmt: skip


if __name__ == "__main__":
    warnings.simplefilter("ignore", RuntimeWarning)
    kind, n_part, reps, part_sd, seed = sys.argv[1:6]
    main(kind, int(n_part), int(reps), float(part_sd), int(seed))
