"""Benchmark: the binary-behaviour model on a paper-sized simulated release, kernel+nutpie vs PyMC.

One run, same data, same posterior (the default structure, :class:`attunestats.hierarchical.ModelSpec`):
``attunestats.hierarchical.fit`` (nutpie sampling the numba kernel of
:mod:`attunestats.hierarchical.kernel`) and PyMC's default NUTS sampler (``pm.sample`` with
PyMC's defaults: PyTensor's default backend, jitter+adapt_diag initialisation; the target
acceptance of ``fit`` for both) on the PyMC model of the same structure, both 4 chains x (1,000
tuning + 1,000 draws) on 2 cores. Compile time is included in the totals: with ``--cold`` (the
default) numba's on-disk cache is redirected to an empty temporary directory, so the kernel is
compiled from scratch in this run; PyTensor's C cache is whatever this machine holds (warm after
the first run, which favours PyMC). Prints compile and sampling wall times, the ratios, and the
minimum bulk / tail ESS, maximum R-hat and divergences of each fit, and the total seconds per 100
units of minimum bulk ESS (the speed-up at the same effective sample size).

    .venv/bin/python benchmarks/bench_hierarchical.py [--seed 1] [--draws 1000] [--tune 1000]
        [--chains 4] [--conversations 200] [--structure default] [--adaptation low_rank]
        [--warm] [--skip-pymc]

Data: ``simulate_release(seed)`` with the default (paper-like) configuration: 200
conversations, 11 participants, 50 topics, 11 models + 3 human raters; behaviour task ``om`` of
the 11 evaluated models (11 x 1,418 conversation-turns, 15,550 binomial cells at seed 1);
``--conversations`` shrinks it.
Numbers are from simulated data (constants.SIMULATED_LABEL).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
import warnings


def _pymc_default(
    model, draws: int, tune: int, chains: int, cores: int, seed: int, target_accept: float
):
    """PyMC's own NUTS with its defaults but nutpie's target acceptance (the same posterior
    accuracy asked of both); compile (step construction) timed apart."""
    import pymc as pm

    t0 = time.perf_counter()
    with model:
        # the step pm.sample would build: NUTS on all free variables, default compile mode
        initial_points, step = pm.init_nuts(
            init="jitter+adapt_diag", chains=chains, random_seed=seed, progressbar=False,
            target_accept=target_accept,
        )  # fmt: skip
    compile_s = time.perf_counter() - t0
    del initial_points  # pm.sample re-draws the jittered start points from random_seed
    t1 = time.perf_counter()
    with model, contextlib.redirect_stdout(io.StringIO()):
        dt = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            random_seed=seed,
            nuts_sampler="pymc",
            target_accept=target_accept,
            progressbar=False,
            compute_convergence_checks=False,
        )
    # pm.sample compiles its own step function again (from PyTensor's caches); that time is
    # part of the sampling wall time reported here
    return dt, compile_s, time.perf_counter() - t1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--tune", type=int, default=1000)
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument(
        "--target-accept",
        type=float,
        default=None,
        help="nutpie's target acceptance (default: fit's default)",
    )
    ap.add_argument("--skip-pymc", action="store_true", help="only the nutpie fit")
    ap.add_argument("--conversations", type=int, default=None, help="release size (default 200)")
    ap.add_argument("--structure", default="default", help="model structure (ModelSpec string)")
    ap.add_argument("--warm", action="store_true", help="keep numba's on-disk kernel cache")
    ap.add_argument("--adaptation", default=None, help="nutpie mass matrix: diag or low_rank")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    if not args.warm:  # compile the kernel from scratch: numba reads NUMBA_CACHE_DIR on import
        import os

        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-numba-")

    from attunestats import hierarchical as H
    from attunestats import load_release, score
    from attunestats.constants import SIMULATED_LABEL
    from attunestats.release.simulate import simulate_release

    print(f"[{SIMULATED_LABEL}]")
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        simulate_release(f"{tmp}/release", rng=args.seed, n_conversations=args.conversations)
        scores = score(load_release(f"{tmp}/release"))
        print(f"simulate + load + score the release: {time.perf_counter() - t:.1f} s")
    model = H.behaviour_model_from_scores(
        scores, task="om", predictors=scores.names("model"), structure=args.structure
    )
    print(
        f"binary behaviour model: {model.n_predictors} predictors x {model.n_rows} "
        f"conversation-turns ({model.n_observations} cells, {int(model.trials.sum())} "
        f"judgements), {len(model.conversations)} conversations, {len(model.participants)} "
        f"participants, {len(model.topics)} topics; parameterisation {model.parameterization}"
    )
    print(f"structure: {model.spec}; nutpie adaptation: {args.adaptation or 'fit default'}")
    print(f"settings: {args.chains} chains x ({args.tune} tune + {args.draws} draws), "
          f"{args.cores} cores")  # fmt: skip

    from attunestats.hierarchical.fit import DEFAULT_TARGET_ACCEPT

    res_target_accept = (
        DEFAULT_TARGET_ACCEPT[model.family] if args.target_accept is None else args.target_accept
    )
    print(f"target_accept {res_target_accept} for both samplers")
    H.clear_compile_cache()
    res = H.fit(
        model, draws=args.draws, tune=args.tune, chains=args.chains, cores=args.cores,
        rng=args.seed, sampler="nutpie", progress_bar=False,
        **({} if args.target_accept is None else {"target_accept": args.target_accept}),
        **({} if args.adaptation is None else {"adaptation": args.adaptation}),
    )  # fmt: skip
    d = res.diagnostics
    nut_total = res.compile_seconds + res.sample_seconds
    print(
        f"nutpie : compile {res.compile_seconds:7.1f} s   sample {res.sample_seconds:7.1f} s   "
        f"total {nut_total:7.1f} s   min ESS bulk/tail {d.ess_bulk.min():.0f}/"
        f"{d.ess_tail.min():.0f}   max r_hat {d.r_hat.max():.3f}   divergences "
        f"{res.divergences}   gate {'passed' if res.passed else 'FAILED'}"
    )
    nut_per = 100 * nut_total / d.ess_bulk.min()
    if args.skip_pymc:
        return

    pm_model = model.build()
    dt, c_s, s_s = _pymc_default(
        pm_model, args.draws, args.tune, args.chains, args.cores, args.seed, res_target_accept
    )
    d2, div2 = H.diagnose(dt)
    pm_total = c_s + s_s
    print(
        f"PyMC   : compile {c_s:7.1f} s   sample {s_s:7.1f} s   total {pm_total:7.1f} s   "
        f"min ESS bulk/tail {d2.ess_bulk.min():.0f}/{d2.ess_tail.min():.0f}   max r_hat "
        f"{d2.r_hat.max():.3f}   divergences {div2}"
    )
    print(
        f"ratio PyMC / nutpie: compile {c_s / res.compile_seconds:.2f}x   sample "
        f"{s_s / res.sample_seconds:.2f}x   total {pm_total / nut_total:.2f}x"
    )
    pm_per = 100 * pm_total / d2.ess_bulk.min()
    print(
        f"total seconds per 100 min-bulk-ESS: nutpie {nut_per:.1f}   PyMC {pm_per:.1f}   "
        f"ratio {pm_per / nut_per:.2f}x   (target: total ratio >= 5x at the same ESS)"
    )


if __name__ == "__main__":
    main()
