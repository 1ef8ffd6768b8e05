"""Benchmark: one log density + gradient of the hierarchical model, numba kernel vs PyTensor.

Sampling time is (number of gradient evaluations) x (cost of one). This script measures the
second factor apart from any sampler: the paper-sized binary-behaviour model (``simulate_release``
with the default, paper-like configuration; 11 evaluated models, task ``om``), the numba kernel
of :mod:`attunestats.hierarchical.kernel` against PyMC's compiled ``logp_dlogp_function`` of the
same model (PyTensor's default C backend; the baseline, run in the same process), both at the
same 300 random points of the unconstrained space, best of 3 passes. It first checks that both
compute the same density (up to a constant) and gradient. Prints milliseconds per evaluation and
the ratio, for the default structure (beta-binomial cells) and for the default without
``overdispersion`` (binomial cells). Numbers are from simulated data.

    .venv/bin/python benchmarks/bench_gradient.py [--seed 1] [--points 300]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings

import numpy as np


def _time(fn, points: np.ndarray, repeats: int = 3) -> float:
    """Best-of-``repeats`` seconds per call of ``fn`` over ``points``."""
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        for q in points:
            fn(q)
        best = min(best, (time.perf_counter() - t) / len(points))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--points", type=int, default=300)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")

    from attunestats import hierarchical as H
    from attunestats import load_release, score
    from attunestats.constants import SIMULATED_LABEL
    from attunestats.hierarchical.kernel import logp_grad
    from attunestats.hierarchical.layout import kernel_args
    from attunestats.release.simulate import simulate_release

    print(f"[{SIMULATED_LABEL}]")
    with tempfile.TemporaryDirectory() as tmp:
        simulate_release(f"{tmp}/release", rng=args.seed)
        scores = score(load_release(f"{tmp}/release"))
    for structure in ("default", "default - overdispersion"):
        m = H.behaviour_model_from_scores(
            scores, task="om", predictors=scores.names("model"), structure=structure
        )
        kargs, ndim = kernel_args(m)
        f = m.build().logp_dlogp_function(ravel_inputs=True)
        f.set_extra_values({})
        pts = np.random.default_rng(3).normal(scale=0.3, size=(args.points, ndim))
        g = np.empty(ndim)
        diffs = []
        for q in pts[:5]:  # the same function, else the timing means nothing
            lp = logp_grad(q, g, *kargs)
            lp_ref, g_ref = f(q)
            np.testing.assert_allclose(g, g_ref, rtol=1e-8, atol=1e-8 * (1 + np.abs(g_ref).max()))
            diffs.append(lp - float(lp_ref))
        assert np.ptp(diffs) < 1e-6 * (1 + abs(diffs[0])), diffs
        t_k = _time(lambda q, g=g, kargs=kargs: logp_grad(q, g, *kargs), pts)
        t_p = _time(f, pts)
        print(
            f"{structure}: {m.n_observations} cells, {ndim} parameters; "
            f"PyTensor {1e3 * t_p:.3f} ms, kernel {1e3 * t_k:.3f} ms per log density + "
            f"gradient; ratio {t_p / t_k:.2f}x"
        )


if __name__ == "__main__":
    main()
