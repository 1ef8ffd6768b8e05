"""Speed of the independence kernels against their natural baselines, in one process.

Run: ``.venv/bin/python benchmarks/bench_independence.py``. Prints wall times and ratios; nothing
is asserted (tests never depend on speed).

1. Permutation null of all Kendall tau-b pairs (11 models x 5 metrics, 10,000 permutations):
   vectorised sign-matrix kernel vs a loop over ``scipy.stats.kendalltau``.
2. Kendall tau-b of every metric pair in each of 10,000 conversation resamples: vectorised vs
   a loop over ``scipy.stats.kendalltau``.
3. The latent model: first fit (compiles) vs a second fit of new data (compiled model reused).
"""

from __future__ import annotations

import time
from itertools import combinations

import numpy as np
from scipy import stats

from attunestats.independence import metric_matrix, simulate_metric_values
from attunestats.independence._kernels import kendall_matrix, pair_indices, permuted_stack


def _time(fn, repeat: int = 1) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bench_permutations(n_perm: int = 10_000) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(11, 5))
    ia, ib = pair_indices(5)

    def vectorised() -> np.ndarray:
        return kendall_matrix(permuted_stack(X, n_perm, np.random.default_rng(2)))[:, ia, ib]

    def loop() -> np.ndarray:
        g = np.random.default_rng(2)
        out = np.empty((n_perm, len(ia)))
        for p in range(n_perm):
            Y = X.copy()
            for k in range(1, 5):
                Y[:, k] = X[g.permutation(11), k]
            for j, (a, b) in enumerate(combinations(range(5), 2)):
                out[p, j] = stats.kendalltau(Y[:, a], Y[:, b]).statistic
        return out

    t_vec = _time(vectorised, repeat=3)
    t_loop = _time(loop)
    print(f"permutation null, {n_perm} perms x 10 pairs: vectorised {t_vec:.3f} s, "
          f"scipy loop {t_loop:.2f} s, ratio {t_loop / t_vec:.0f}x")  # fmt: skip


def bench_bootstrap_taus(n_resamples: int = 10_000) -> None:
    sim = simulate_metric_values(n_models=11, n_conversations=200, n_metrics=5, rng=3)
    mm = metric_matrix(sim.values, n_resamples=n_resamples, rng=4)
    dist = mm.bootstrap_distribution

    def vectorised() -> np.ndarray:
        return kendall_matrix(dist)

    def loop() -> np.ndarray:
        out = np.empty((dist.shape[0], 10))
        for b in range(dist.shape[0]):
            for j, (a, c) in enumerate(combinations(range(5), 2)):
                out[b, j] = stats.kendalltau(dist[b, :, a], dist[b, :, c]).statistic
        return out

    t_vec = _time(vectorised, repeat=3)
    t_loop = _time(loop)
    print(f"bootstrap taus, {n_resamples} resamples x 10 pairs: vectorised {t_vec:.3f} s, "
          f"scipy loop {t_loop:.2f} s, ratio {t_loop / t_vec:.0f}x")  # fmt: skip


def bench_latent() -> None:
    from attunestats.independence import latent_correlations
    from attunestats.independence.latent import _COMPILED

    _COMPILED.clear()
    fits = []
    for seed in (5, 6):
        sim = simulate_metric_values(n_models=11, n_conversations=200, n_metrics=5,
                                     correlation=0.5, rng=seed)  # fmt: skip
        mm = metric_matrix(sim.values, n_resamples=2000, rng=seed)
        fits.append(_time(lambda mm=mm: latent_correlations(mm, rng=1, on_failure="flag")))
    print(f"latent model (11 x 5, 4 chains x 1000 + 1000): first fit {fits[0]:.1f} s "
          f"(compiles), second fit {fits[1]:.1f} s, ratio {fits[0] / fits[1]:.1f}x")  # fmt: skip


if __name__ == "__main__":
    bench_permutations()
    bench_bootstrap_taus()
    bench_latent()
