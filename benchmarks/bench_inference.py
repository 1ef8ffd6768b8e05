"""Benchmark: the default participant-level inference against the conversation bootstrap it replaced.

Issue 16 target: the new default (delete-one-participant jackknife with t intervals and
working-model df, every predictor x every registry metric of the bundled release) runs within 3x of
today's conversation bootstrap (``bootstrap_scores``, 10,000 resamples, BCa), fully vectorised.
Also timed: the paired comparisons of every pair of predictors on every metric with max-|t|
simultaneous intervals and rank confidence sets (``compare_models``), which the bootstrap path
computed from its resamples.

Both are timed in the same process, each as the median of ``N_REPEATS`` passes after a warm-up
pass; the ratio is printed.

Run: .venv/bin/python benchmarks/bench_inference.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np

import attunestats as at
from attunestats.inference.bootstrap import bootstrap_scores
from attunestats.inference.compare import compare_models
from attunestats.inference.participants import infer_scores
from attunestats.metrics.registry import METRICS

N_REPEATS = 5


def _median_time(fn) -> tuple[float, object]:
    times, out = [], None
    for _ in range(1 + N_REPEATS):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times[1:])), out


def main() -> None:
    scores = at.score(at.load_bundled_release())
    metrics = [m for m, s in METRICS.items()
               if s.level == "conversation" and m in set(scores.conversation["metric"])]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot_t, boot = _median_time(
            lambda: bootstrap_scores(
                scores,
                unit="conversation",
                metrics=metrics,
                method="bca",
                n_resamples=10_000,
                rng=1,
            )  # fmt: skip
        )
        inf_t, inf = _median_time(lambda: infer_scores(scores, metrics=metrics))
        cmp_boot_t, _ = _median_time(lambda: compare_models(boot, correction="holm", rng=1))
        cmp_inf_t, _ = _median_time(lambda: compare_models(inf, correction="holm", rng=1))
    n_stats = len(inf.labels)
    print(f"statistics: {n_stats} (predictors x metrics), participants {inf.n_participants}, "
          f"conversations {inf.n_conversations}")  # fmt: skip
    print(f"conversation bootstrap (10,000 BCa resamples): {boot_t:.3f} s")
    print(f"participant jackknife (default):               {inf_t:.3f} s  "
          f"ratio {inf_t / boot_t:.2f}x of the bootstrap (target <= 3x)")  # fmt: skip
    print(f"compare_models on the bootstrap:               {cmp_boot_t:.3f} s")
    print(f"compare_models on the participant inference:   {cmp_inf_t:.3f} s  "
          f"ratio {cmp_inf_t / cmp_boot_t:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
