"""Benchmark: `attunestats reproduce` on the bundled simulated release, full mode against fast mode.

Issue 8's target: the full build (10,000 bootstrap resamples, 4 chains x (1,000 + 2,000) MCMC
draws) finishes in under 15 minutes on this machine (2 cores); issue 20's, under 5 minutes.
Both builds run in this process, one after the other, into temporary directories
(``paper_figures/`` is not touched); the fast
build is the baseline of the ratio. Prints the wall time of each artefact of the registry in both
modes (an artefact that first needs a shared intermediate, e.g. the MCMC fits of
``fit-diagnostics``, carries its cost), the totals, the ratio and whether the target is met;
writes nothing else. Numbers in the tables built here are from simulated data.

    .venv/bin/python benchmarks/bench_reproduce.py [--skip-fast] [--only 05 06] [--notebooks] [--keep DIR]

Run after the PyTensor compile cache is warm (any earlier fit of the same models) for the steady
state; a cold cache adds roughly 20 s per model structure.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-fast", action="store_true", help="only the full build")
    ap.add_argument("--only", nargs="*", default=None,
                    help="artefact ids or notebook numbers (default: all)")  # fmt: skip
    ap.add_argument("--seed", type=int, default=20260521, help="root seed")
    ap.add_argument("--notebooks", action="store_true", help="also execute the notebooks")
    ap.add_argument("--keep", default=None, help="keep the full build in this directory")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")

    from attunestats.artifacts.reproduce import build
    from attunestats.constants import SIMULATED_LABEL
    from attunestats.release.bundled import bundled_release_path

    print(f"[{SIMULATED_LABEL}]")
    bundled_release_path()  # generate the bundled release once, outside the timings
    timings = {}
    for mode in ("fast", "full"):
        if mode == "fast" and args.skip_fast:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = args.keep if (mode == "full" and args.keep) else f"{tmp}/paper_figures"
            t = time.perf_counter()
            res = build(out=out, fast=(mode == "fast"), rng=args.seed, only=args.only,
                        notebooks=args.notebooks, progress=False)  # fmt: skip
            total = time.perf_counter() - t
        timings[mode] = (total, res.timings)
        print(f"{mode:5s} build: {total:7.1f} s")
        for name, sec in res.timings.items():
            print(f"    {name:36s} {sec:7.1f} s")
    full_total = timings["full"][0]
    if "fast" in timings:
        print(f"ratio full / fast: {full_total / timings['fast'][0]:.1f}x")
    print(
        f"full-mode targets: issue 8 (< 900 s) {'met' if full_total < 900 else 'NOT met'}; "
        f"issue 20 (< 300 s) {'met' if full_total < 300 else 'NOT met'}"
    )
    if args.keep:
        import pandas as pd

        for name in ("05_fit_diagnostics", "06_drift_fit_diagnostics"):
            path = f"{args.keep}/tables/{name}.csv"
            try:
                d = pd.read_csv(path)
            except FileNotFoundError:
                continue
            print(f"{name}: " + "; ".join(
                f"{r.outcome}: {'passed' if r.passed else 'FAILED'} (max r_hat {r.max_r_hat:.3f},"
                f" min bulk ESS {r.min_ess_bulk:.0f})"
                for r in d.itertuples()
            ))  # fmt: skip


if __name__ == "__main__":
    main()
