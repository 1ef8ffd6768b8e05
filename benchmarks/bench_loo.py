"""Benchmark: PSIS-LOO of one fit, the package's vectorised form vs ``arviz.loo``.

The structure comparison of ``reproduce`` (``hierarchical.compare_structures``) computes PSIS-LOO
of every candidate fit over every observed cell. ArviZ (arviz-stats 1.x) loops over cells in
Python; ``hierarchical.checks.loo`` (:mod:`attunestats.hierarchical._psis`) runs the same
algorithm on all cells at once. This script fits the paper-sized behaviour model of the bundled
simulated release (issue-6 structure plus items, short chains: the draws only feed the
log-likelihood), then times both on the same log-likelihood (``arviz.loo`` is the baseline, same
process, best of 2), for 300 and 1,000 posterior draws (the fast and full builds' numbers), and
checks that they agree. Numbers are from simulated data.

    .venv/bin/python benchmarks/bench_loo.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np


def _best(fn, repeats: int = 2) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    warnings.filterwarnings("ignore")
    import arviz as az

    from attunestats import hierarchical as H
    from attunestats import score
    from attunestats.constants import SIMULATED_LABEL
    from attunestats.hierarchical import _psis, checks
    from attunestats.release.bundled import load_bundled_release

    print(f"[{SIMULATED_LABEL}]")
    scores = score(load_bundled_release())
    model = H.behaviour_model_from_scores(scores, task="om", predictors=scores.names("model"),
                                          structure="legacy + item")  # fmt: skip
    fit = H.fit(model, draws=250, tune=150, chains=4, rng=5, progress_bar=False)
    print(f"cells: {model.n_observations}")
    for n_draws in (300, 1000):
        dt = checks.log_likelihood(fit, n_draws=n_draws)
        t_ref, ref = _best(lambda dt=dt: az.loo(dt, var_name="y"))
        t_new, new = _best(lambda dt=dt: _psis.loo(dt, var_name="y"))
        same = abs(ref.elpd - new.elpd) < 1e-8 and np.allclose(
            ref.pareto_k.values, new.pareto_k.values, rtol=1e-10, equal_nan=True
        )
        print(f"{n_draws:5d} draws: arviz.loo {t_ref:6.2f} s, vectorised {t_new:6.2f} s, "
              f"ratio {t_ref / t_new:5.1f}x, same result: {same}")  # fmt: skip


if __name__ == "__main__":
    main()
