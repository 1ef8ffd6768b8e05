"""Benchmark: the diagnostics gate of one fit, the package's vectorised R-hat / ESS vs ArviZ's.

``hierarchical.fit`` checks every scalar parameter (rank-normalised split R-hat, bulk and tail
ESS). ArviZ (arviz-stats 1.x) computes them element by element in Python;
``hierarchical._diagnostics.rhat_ess`` does the same arithmetic on blocks of elements. This
script times both on draws of the shape of the paper-sized default behaviour model (3,187
scalar parameters) for the fast build (2 chains x 150 draws) and the full build (4 chains x
2,000 draws), ArviZ (``arviz.rhat``, ``arviz.ess`` bulk and tail) the baseline in the same
process, and checks they agree. The draws are autoregressive series with autocorrelations
spread over [0, 0.99) (synthetic: only their shape matters for the timing).

    .venv/bin/python benchmarks/bench_diagnostics.py [--parameters 3187]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _draws(n_chain: int, n_draw: int, p: int, rng: np.random.Generator) -> np.ndarray:
    ar = rng.uniform(0, 0.99, p)
    x = np.empty((n_chain, n_draw, p))
    x[:, 0] = rng.normal(size=(n_chain, p))
    for t in range(1, n_draw):
        x[:, t] = ar * x[:, t - 1] + rng.normal(size=(n_chain, p))
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parameters", type=int, default=3187)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import arviz as az
    import xarray as xr

    from attunestats.hierarchical._diagnostics import rhat_ess

    rng = np.random.default_rng(1)
    for label, (c, d) in {"fast": (2, 150), "full": (4, 2000)}.items():
        x = _draws(c, d, args.parameters, rng)
        ds = xr.Dataset({"a": (("chain", "draw", "k"), x)})
        t = time.perf_counter()
        ref = (az.rhat(ds)["a"].values, az.ess(ds, method="bulk")["a"].values,
               az.ess(ds, method="tail")["a"].values)  # fmt: skip
        t_ref = time.perf_counter() - t
        t = time.perf_counter()
        got = rhat_ess(x)
        t_new = time.perf_counter() - t
        same = all(np.allclose(g, r, rtol=1e-12, equal_nan=True) for g, r in zip(got, ref))
        print(f"{label} ({c} x {d} draws, {args.parameters} parameters): ArviZ {t_ref:6.2f} s, "
              f"vectorised {t_new:6.2f} s, ratio {t_ref / t_new:5.1f}x, same values: {same}")  # fmt: skip


if __name__ == "__main__":
    main()
