"""Benchmark: scoring the paper-sized release (11 models + 3 human raters, 200 conversations).

``attunestats.score`` (vectorised over every turn of every run) against the natural baseline, run
in the same process on the same release: a straightforward per-turn Python loop
(``attunestats.metrics.reference.score_reference``, which the tests also use as the independent
reference). The two results are compared to 1e-12 on every metric before the times are printed.
Target (issue 3): ``score`` under 10 s on this machine.

Run: .venv/bin/python benchmarks/bench_score.py  (prints times and the ratio)
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import attunestats as at
from attunestats.metrics.reference import score_reference


def _max_difference(vec, ref, keys):
    a = vec.set_index(keys)["value"]
    b = ref.set_index(keys)["value"].reindex(a.index)
    if len(a) != len(ref):
        raise AssertionError(f"row counts differ: {len(a)} vs {len(ref)}")
    x, y = a.to_numpy(float), b.to_numpy(float)
    both_nan = np.isnan(x) & np.isnan(y)
    if (np.isnan(x) != np.isnan(y)).any():
        raise AssertionError("null patterns differ")
    return float(np.max(np.abs(x - y)[~both_nan], initial=0.0))


def main() -> None:
    release = at.load_bundled_release()
    t = release.tables
    print(
        f"release: {len(t['predictors'])} predictors, {len(t['conversations'])} conversations, "
        f"{len(t['pred_turns'])} scored run turns, {len(t['pred_binary'])} binary answers "
        f"({'SIMULATED' if release.simulated else 'real'})"
    )
    at.score(release)  # warm-up (imports, caches)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        scores = at.score(release)
        times.append(time.perf_counter() - start)
    ours = statistics.median(times)

    start = time.perf_counter()
    ref = score_reference(release)
    baseline = time.perf_counter() - start

    d_turn = _max_difference(
        scores.turn, ref["turn"], ["predictor", "mode", "conversation_id", "turn", "metric"]
    )
    d_conv = _max_difference(
        scores.conversation, ref["conversation"], ["predictor", "mode", "conversation_id", "metric"]
    )
    d_pred = _max_difference(scores.predictor, ref["predictor"], ["predictor", "mode", "metric"])
    worst = max(d_turn, d_conv, d_pred)
    if worst > 1e-12:
        raise AssertionError(f"vectorised and per-turn results differ by {worst:.3g}")

    print(f"rows: turn {len(scores.turn):,}, conversation {len(scores.conversation):,}, "
          f"predictor {len(scores.predictor):,}")  # fmt: skip
    print(f"max |vectorised - per-turn loop| over every metric: {worst:.2e}")
    print(f"attunestats.score (median of 3):   {ours:8.2f} s   (target < 10 s)")
    print(f"per-turn Python loop (baseline):   {baseline:8.2f} s")
    print(f"ratio baseline / score:            {baseline / ours:8.1f}x")


if __name__ == "__main__":
    main()
