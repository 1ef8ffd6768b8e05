"""Fitting with a diagnostics gate.

:func:`fit` samples a :class:`~.model.HierarchicalModel` with nutpie on the numba kernel of
:mod:`.kernel` when nutpie is installed (the default) and with PyMC's NUTS on the PyMC model
(:mod:`.pymc_model`) otherwise or on request, then checks every parameter: rank-normalised split
R-hat <= ``max_rhat`` (1.01), bulk and tail ESS >= ``min_ess`` (400) and no divergent transition.
The :class:`FitResult` says which parameters failed; the summaries of :mod:`.summaries` raise
:class:`~attunestats.errors.DiagnosticsError` on a failed fit unless called with
``accept_failed_diagnostics=True``, and then stamp every row ``diagnostics failed``.

Why the kernel. Both samplers target the same density in the same coordinates (tested). The PyMC
model compiled through nutpie's numba backend cost 15-20 s per model structure and per process
(nutpie's compiled functions cannot be cached on disk); the kernel is one numba function for
every structure, compiled once per machine and loaded from numba's cache in about a second,
and it evaluates the density and gradient of the paper-sized behaviour model in a single pass over
its cells. ``benchmarks/bench_hierarchical.py`` measures the whole fit against PyMC's default
sampler.

PyMC models are cached by :meth:`HierarchicalModel.structure_key` within a process: a second fit
of the same structure with new data values swaps the data into the compiled model
(``pm.Data``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import os
import pickle
import sys
import time
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, child_seed, seed_record
from attunestats.errors import AttunestatsWarning, DiagnosticsError, warn
from attunestats.hierarchical.model import HierarchicalModel

Sampler = Literal["auto", "nutpie", "pymc"]
#: nutpie's mass-matrix adaptation for the kernel (``fit(adaptation=...)``): ``"diag"`` (nutpie's
#: default) or ``"low_rank"`` (a low-rank correction for correlated parameters).
DEFAULT_ADAPTATION = "diag"

#: Default diagnostics thresholds (the gate of the issue).
MAX_RHAT = 1.01
MIN_ESS = 400.0
#: Cells x iterations x chains above which ``progress_bar=None`` shows a bar (a few seconds).
_PROGRESS_WORK = 2e7
_CACHE_SIZE = 8
#: PyTensor mode of PyMC's NUTS fallback: the C virtual machine, whose compiled operations are
#: cached on disk across processes (PyTensor's default Numba mode recompiles the step function
#: in every process, about 45 s for these models on this machine).
PYMC_COMPILE_MODE = "CVM"


@dataclass
class _Compiled:
    model: Any  # pm.Model
    nutpie: Any = None  # nutpie CompiledPyMCModel (data of the last build)
    compile_seconds: float = 0.0


_CACHE: OrderedDict[tuple[Any, ...], _Compiled] = OrderedDict()


def clear_compile_cache() -> None:
    """Forget every cached compiled model."""
    _CACHE.clear()


def nutpie_available() -> bool:
    """True when the nutpie sampler can be imported."""
    return importlib.util.find_spec("nutpie") is not None


@dataclass(frozen=True, eq=False, repr=False)
class FitResult(ResultMixin):
    """A fitted hierarchical model and its diagnostics.

    Attributes
    ----------
    model : HierarchicalModel
        What was fitted.
    idata : xarray.DataTree
        ArviZ 1.x data: ``posterior`` and ``sample_stats`` (warm-up not kept).
    diagnostics : pandas.DataFrame
        One row per scalar parameter: ``parameter, variable, r_hat, ess_bulk, ess_tail, passed,
        reason``.
    divergences : int
        Divergent transitions after warm-up.
    passed : bool
        Whether every parameter passed and there was no divergence.
    failures : tuple of str
        What failed, e.g. ``"sigma_topic: r_hat 1.03 > 1.01"``, ``"divergences: 3"``.
    sampler : str
        ``"nutpie"`` or ``"pymc"``.
    seed : int
        Integer seed given to the sampler (reproduces the draws).
    draws, tune, chains : int
        Sampling settings.
    max_rhat, min_ess : float
        Thresholds of the gate.
    compile_seconds, sample_seconds : float
        Wall times (compile is 0 when the compiled model came from the cache).
    from_cache : bool
        Whether the compiled model came from the cache.
    rng_seed : int, str or None
        What ``rng`` was (``_rng.seed_record``).
    from_result_cache : bool
        Whether the whole fit was loaded from ``fit(cache_dir=...)`` (times are the original's).
    earlier_attempts : tuple of str
        When this fit replaced earlier ones that failed the gate (``fit(retries=...)``; a full
        ``reproduce`` build uses one retry): each earlier attempt's settings, seed and first
        failures. Empty for a first fit.
    """

    _title = "Hierarchical model fit"

    model: HierarchicalModel
    idata: Any = field(repr=False)
    diagnostics: pd.DataFrame = field(repr=False)
    divergences: int
    passed: bool
    failures: tuple[str, ...]
    sampler: str
    seed: int
    draws: int
    tune: int
    chains: int
    max_rhat: float
    min_ess: float
    compile_seconds: float
    sample_seconds: float
    from_cache: bool
    rng_seed: int | str | None = None
    from_result_cache: bool = False
    earlier_attempts: tuple[str, ...] = ()

    @property
    def simulated(self) -> bool:
        return self.model.simulated

    @property
    def label(self) -> str:
        return self.model.label

    def to_frame(self) -> pd.DataFrame:
        """The per-parameter diagnostics table."""
        out = self.diagnostics.copy()
        out["simulated"] = self.simulated
        return out

    def overview(self) -> dict[str, Any]:
        """One row describing the fit: sampler, settings, gate verdict, worst diagnostics, times."""
        d = self.diagnostics
        return {
            "outcome": self.model.outcome,
            "sampler": self.sampler,
            "chains": self.chains,
            "draws": self.draws,
            "tune": self.tune,
            "passed": self.passed,
            "divergences": self.divergences,
            "max_r_hat": float(d["r_hat"].max()) if len(d) else np.nan,
            "min_ess_bulk": float(d["ess_bulk"].min()) if len(d) else np.nan,
            "min_ess_tail": float(d["ess_tail"].min()) if len(d) else np.nan,
            "n_parameters": int(len(d)),
            "n_failed": int((~d["passed"]).sum()) if len(d) else 0,
            "compile_seconds": self.compile_seconds,
            "sample_seconds": self.sample_seconds,
            "seed": self.seed,
            "simulated": self.simulated,
            "failures": self._first_failures() or None,  # None: an empty cell in a CSV
            "attempts": 1 + len(self.earlier_attempts),
            "earlier_attempts": " | ".join(self.earlier_attempts) or None,
        }

    def _first_failures(self, n: int = 5) -> str:
        """The first ``n`` failures, joined, with a count of the rest."""
        more = len(self.failures) - n
        return "; ".join(self.failures[:n]) + (f" (+{more} more)" if more > 0 else "")

    def failure_message(self) -> str:
        shown = list(self.failures[:20])
        more = len(self.failures) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more")
        return (
            f"MCMC diagnostics failed for {self.model.outcome} (thresholds: r_hat <= "
            f"{self.max_rhat}, bulk and tail ESS >= {self.min_ess:g}, no divergence): "
            + "; ".join(shown)
            + (". One chain has no R-hat: run 2+" if self.chains < 2 else ". Run longer chains")
            + ", or pass accept_failed_diagnostics=True to report anyway."
        )

    def check(self, *, accept_failed_diagnostics: bool = False) -> str:
        """Raise :class:`DiagnosticsError` on a failed fit unless accepted.

        Returns the warning text to attach to tables (``""`` for a passed fit).
        """
        if not isinstance(accept_failed_diagnostics, bool):
            raise TypeError(
                f"accept_failed_diagnostics must be a bool; got {accept_failed_diagnostics!r}"
            )
        if self.passed:
            return ""
        if not accept_failed_diagnostics:
            raise DiagnosticsError(self.failure_message())
        return "diagnostics failed: " + self._first_failures()


# --------------------------------------------------------------------------------------------
def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _check_fit_args(
    model: Any,
    draws: Any,
    tune: Any,
    chains: Any,
    cores: Any,
    sampler: Any,
    target_accept: Any,
    max_rhat: Any,
    min_ess: Any,
    progress_bar: Any,
) -> tuple[int, int, int, int, str]:
    if not isinstance(model, HierarchicalModel):
        raise TypeError(
            f"model must be a HierarchicalModel (see behaviour_model etc.); "
            f"got {type(model).__name__}"
        )
    draws = _check_int("draws", draws, 1)
    tune = _check_int("tune", tune, 0)
    chains = _check_int("chains", chains, 1)
    cores = min(chains, 2) if cores is None else _check_int("cores", cores, 1)
    if sampler not in ("auto", "nutpie", "pymc"):
        raise ValueError(f"sampler must be 'auto', 'nutpie' or 'pymc'; got {sampler!r}")
    if sampler == "auto":
        sampler = "nutpie" if nutpie_available() else "pymc"
    elif sampler == "nutpie" and not nutpie_available():
        raise ValueError("sampler='nutpie' but nutpie is not installed; use sampler='pymc'")
    if not isinstance(target_accept, float | int) or not 0 < target_accept < 1:
        raise ValueError(f"target_accept must be in (0, 1); got {target_accept!r}")
    if not isinstance(max_rhat, float | int) or max_rhat < 1:
        raise ValueError(f"max_rhat must be a number >= 1; got {max_rhat!r}")
    if not isinstance(min_ess, float | int) or min_ess < 0:
        raise ValueError(f"min_ess must be a non-negative number; got {min_ess!r}")
    if progress_bar is not None and not isinstance(progress_bar, bool):
        raise TypeError(f"progress_bar must be None or a bool; got {progress_bar!r}")
    return draws, tune, chains, cores, sampler


def _int_seed(rng: RNGLike) -> int:
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool):
        check_rng(rng)
        return int(rng) % (2**63)
    return int(check_rng(rng).integers(0, 2**63 - 1))


def _get_compiled(model: HierarchicalModel) -> tuple[_Compiled, bool, float]:
    """The PyMC model of ``model``'s structure, with ``model``'s data swapped in."""
    key = model.structure_key()
    entry = _CACHE.get(key)
    t0 = time.perf_counter()
    if entry is None:
        with _quiet():
            pm_model = model.build()
        entry = _Compiled(pm_model, None, time.perf_counter() - t0)
        _CACHE[key] = entry
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
        return entry, False, entry.compile_seconds
    _CACHE.move_to_end(key)
    import pymc as pm

    from attunestats.hierarchical.pymc_model import pymc_data

    with entry.model:
        pm.set_data(pymc_data(model))
    return entry, True, time.perf_counter() - t0


_KERNEL_READY = False


def _kernel_ready() -> float:
    """Load (or compile, once per machine) the numba kernel; seconds it took in this process."""
    global _KERNEL_READY
    if _KERNEL_READY:
        return 0.0
    from attunestats.hierarchical.kernel import warm_up

    seconds = warm_up()
    _KERNEL_READY = True
    return seconds


def nutpie_model(model: HierarchicalModel, *, seed: int = 0) -> Any:
    """nutpie's model object for ``model``: the numba kernel behind nutpie's Python-function
    interface (the unconstrained vector is stored as ``__q`` and turned into the posterior
    variables after sampling, :func:`.layout.constrained`)."""
    from nutpie.compiled_pyfunc import from_pyfunc

    from attunestats.hierarchical.kernel import logp_grad
    from attunestats.hierarchical.layout import initial_point, kernel_args

    args, ndim = kernel_args(model)

    def make_logp():
        def logp(x: np.ndarray, **_: Any) -> tuple[float, np.ndarray]:
            grad = np.empty(ndim)
            value = logp_grad(x, grad, *args)
            return float(value), grad

        return logp

    def make_expand(seed1: int, seed2: int, chain: int):
        def expand(x: np.ndarray, **_: Any) -> dict[str, np.ndarray]:
            return {"__q": np.array(x, dtype=np.float64, copy=True)}

        return expand

    def make_init(chain_seed: int) -> np.ndarray:
        gen = np.random.default_rng(np.random.SeedSequence([seed % (2**63), int(chain_seed)]))
        return initial_point(model, gen)

    return from_pyfunc(
        ndim, make_logp, make_expand, [np.dtype("float64")], [(ndim,)], ["__q"],
        coords={"__dim": np.arange(ndim)}, dims={"__q": ("__dim",)},
        make_initial_point_fn=make_init,
    )  # fmt: skip


def _sample_kernel(
    model: HierarchicalModel, draws: int, tune: int, chains: int, cores: int, seed: int,
    progress_bar: bool, target_accept: float, adaptation: str,
) -> tuple[Any, float]:  # fmt: skip
    """nutpie on the kernel; returns the DataTree (posterior variables) and sampling seconds."""
    import nutpie
    import xarray as xr

    from attunestats.hierarchical.layout import DIMS, constrained

    compiled = nutpie_model(model, seed=seed)
    t0 = time.perf_counter()
    with _quiet(), _one_blas_thread():
        dt = nutpie.sample(
            compiled, draws=draws, tune=tune, chains=chains, cores=cores, seed=seed,
            progress_bar=progress_bar, save_warmup=False, target_accept=float(target_accept),
            adaptation=adaptation,
        )  # fmt: skip
    seconds = time.perf_counter() - t0
    Q = np.asarray(dt["posterior"]["__q"].transpose("chain", "draw", "__dim").values)
    n_chain, n_draw = Q.shape[:2]
    post = constrained(model, Q.reshape(n_chain * n_draw, -1))
    coords = model.coords()
    coords["cutpoint"] = ["1", "2"]
    data_vars = {}
    for name, arr in post.items():
        dims = DIMS.get(name, ())
        data_vars[name] = (("chain", "draw", *dims), arr.reshape((n_chain, n_draw, *arr.shape[1:])))
    used = {d for name in post for d in DIMS.get(name, ())}
    ds = xr.Dataset(
        data_vars,
        coords={"chain": np.arange(n_chain), "draw": np.arange(n_draw),
                **{d: coords[d] for d in used}},
    )  # fmt: skip
    stats = dt["sample_stats"].to_dataset()
    keep = [v for v in stats.data_vars if v != "unconstrained_draw"]
    out = xr.DataTree.from_dict({"posterior": ds, "sample_stats": stats[keep]})
    return out, seconds


@contextlib.contextmanager
def _one_blas_thread() -> Any:
    """One BLAS thread while sampling (``threadpoolctl``; inherited by PyMC's forked workers).

    The small dense products, Cholesky factors and triangular solves of the participant
    covariance (see :mod:`.model`) run through NumPy/SciPy's OpenBLAS in PyMC's C VM mode; with
    its default thread pool, two chains on two cores spent most of their time in thread
    hand-offs (measured: 2 chains x 400 iterations of a 16-conversation panel, 98-187 s with the
    default pool vs 10.5 s with one thread).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@contextlib.contextmanager
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*BLAS.*")
        warnings.filterwarnings("ignore", category=FutureWarning)
        yield


#: Default NUTS target acceptance by likelihood family (see :func:`fit`).
DEFAULT_TARGET_ACCEPT = {"binomial": 0.9, "ordered_beta": 0.95}


def fit(
    model: HierarchicalModel,
    *,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    cores: int | None = None,
    sampler: Sampler = "auto",
    rng: RNGLike = None,
    target_accept: float | None = None,
    max_rhat: float = MAX_RHAT,
    min_ess: float = MIN_ESS,
    progress_bar: bool | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    adaptation: str = DEFAULT_ADAPTATION,
    retries: int = 0,
) -> FitResult:
    """Sample the posterior of ``model`` and run the diagnostics gate.

    Parameters
    ----------
    model : HierarchicalModel
        From :func:`behaviour_model`, :func:`preference_model`, :func:`emotion_model`,
        :func:`holistic_model` (or their ``*_from_scores`` forms).
    draws, tune, chains : int
        Draws kept per chain, warm-up iterations per chain, number of chains.
    cores : int, optional
        Chains run in parallel (default ``min(chains, 2)``).
    sampler : {"auto", "nutpie", "pymc"}
        ``"auto"``: nutpie when installed, else PyMC's NUTS.
    rng : int, Generator or SeedSequence, optional
        Seed: an int is given to the sampler as is; anything else draws one. The same int
        reproduces the draws exactly (same sampler, same data).
    target_accept : float, optional
        Target acceptance probability of NUTS (raise towards 0.99 on divergences). Default
        (:data:`DEFAULT_TARGET_ACCEPT`, PyMC's own is 0.8): 0.9 for binomial models, 0.95 for
        ordered-beta ones. Measured on the paper-sized simulated release with nutpie: the
        behaviour model at 0.8 (4 x 1,000 draws) left 1 divergent transition (seed 1), failing
        the gate, at 0.9 none in three seeds, for about twice the sampling time
        (benchmarks/bench_hierarchical.py); the emotion-F1 model at 0.9 (4 x 2,000 draws) left
        1.
    max_rhat, min_ess : float
        Thresholds of the gate (defaults 1.01 and 400, for bulk and tail ESS).
    progress_bar : bool, optional
        ``None``: show a progress bar when the fit is expected to take more than a few seconds
        and standard error is a terminal.
    adaptation : {"diag", "low_rank"}
        nutpie's mass-matrix adaptation (kernel sampler only).
    cache_dir : path, optional
        Directory of finished fits: a fit with the same data, model structure, priors, sampler,
        settings, seed and library versions is loaded from it instead of sampled again (the
        draws are identical either way; ``from_result_cache`` says which). New fits are written
        there (pickle, written to a temporary file and renamed). Only for directories you
        trust: loading runs pickle. ``attunestats reproduce`` gives its notebooks one for the
        duration of a build, so notebooks fitting the same model share the fit.
    retries : int
        When the fit fails the gate, fit again up to ``retries`` times: attempt ``k`` runs
        ``2**k`` times the tuning steps and draws with the seed
        ``attunestats._rng.child_seed(seed, f"retry-{k}")`` (``seed`` the first attempt's), each
        announced by an :class:`~attunestats.errors.AttunestatsWarning`. The last attempt is
        returned, passed or not; its ``earlier_attempts`` say what failed before. Default 0.
        Longer chains are the remedy the gate's message recommends; ``attunestats reproduce``
        uses one retry in a full build (at 4 x 2,000 draws the slowest scales of the paper-sized
        models sit near the thresholds and which fit fails narrowly depends on the seed).

    Returns
    -------
    FitResult

    Examples
    --------
    >>> res = fit(model, draws=1000, tune=1000, chains=4, rng=1)   # doctest: +SKIP
    >>> res.passed, res.failures                                   # doctest: +SKIP
    (True, ())
    """
    retries = _check_int("retries", retries, 0)
    opts = dict(chains=chains, cores=cores, sampler=sampler, target_accept=target_accept,
                max_rhat=max_rhat, min_ess=min_ess, progress_bar=progress_bar,
                cache_dir=cache_dir, adaptation=adaptation)  # fmt: skip
    result = _fit_once(model, draws=draws, tune=tune, rng=rng, **opts)
    first_seed, earlier = result.seed, []
    for k in range(1, retries + 1):
        if result.passed:
            break
        chains_k = f"{result.chains} x ({result.tune} + {result.draws})"
        earlier.append(f"{chains_k}, seed {result.seed}: {result._first_failures(3)}")
        seed_k = child_seed(first_seed, f"retry-{k}")
        warn(
            f"{model.outcome}: the fit failed the diagnostics gate with {chains_k} "
            f"({result._first_failures(2)}); fitting again with {2**k}x the tuning steps and "
            f"draws (seed {seed_k})",
            AttunestatsWarning,
        )
        result = _fit_once(model, draws=draws * 2**k, tune=tune * 2**k, rng=seed_k, **opts)
    return dataclasses.replace(result, earlier_attempts=tuple(earlier)) if earlier else result


def _fit_once(
    model: HierarchicalModel,
    *,
    draws: int,
    tune: int,
    chains: int,
    cores: int | None,
    sampler: Sampler,
    rng: RNGLike,
    target_accept: float | None,
    max_rhat: float,
    min_ess: float,
    progress_bar: bool | None,
    cache_dir: str | os.PathLike[str] | None,
    adaptation: str,
) -> FitResult:
    """One fit of :func:`fit` (no retries)."""
    if target_accept is None:
        target_accept = DEFAULT_TARGET_ACCEPT[getattr(model, "family", "binomial")]
    draws, tune, chains, cores, sampler = _check_fit_args(
        model, draws, tune, chains, cores, sampler, target_accept, max_rhat, min_ess, progress_bar
    )
    seed = _int_seed(rng)
    cache_path = None
    if cache_dir is not None:
        key = _result_key(model, draws, tune, chains, cores, sampler, seed, target_accept,
                          max_rhat, min_ess, adaptation)  # fmt: skip
        cache_path = Path(cache_dir) / f"fit-{key}.pkl"
        if cache_path.is_file():
            with cache_path.open("rb") as fh:
                cached = pickle.load(fh)
            return dataclasses.replace(cached, model=model, from_result_cache=True,
                                       rng_seed=seed_record(rng))  # fmt: skip
    if progress_bar is None:
        work = model.n_predictors * model.n_rows * (draws + tune) * chains / max(cores, 1)
        progress_bar = bool(work > _PROGRESS_WORK and sys.stderr.isatty())
    if adaptation not in ("diag", "low_rank"):
        raise ValueError(f"adaptation must be 'diag' or 'low_rank'; got {adaptation!r}")
    if sampler == "nutpie":
        compile_seconds = _kernel_ready()
        from_cache = compile_seconds == 0.0
        dt, sample_seconds = _sample_kernel(model, draws, tune, chains, cores, seed,
                                            progress_bar, float(target_accept), adaptation)  # fmt: skip
    else:
        entry, from_cache, compile_seconds = _get_compiled(model)
        dt, extra_compile, sample_seconds = _sample_pymc(
            entry.model, draws, tune, chains, cores, seed, progress_bar, float(target_accept)
        )
        compile_seconds += extra_compile
        dt = _drop_reparameterisations(dt)
    dt = _relabel(dt, model)
    dt = _add_participant_means(dt, model, seed)
    diag, divergences = diagnose(dt, max_rhat=max_rhat, min_ess=min_ess)
    failures = [f"{r.parameter}: {r.reason}" for r in diag.itertuples() if not r.passed]
    if divergences:
        failures.append(f"divergences: {divergences}")
    result = FitResult(
        model=model,
        idata=dt,
        diagnostics=diag,
        divergences=divergences,
        passed=not failures,
        failures=tuple(failures),
        sampler=sampler,
        seed=seed,
        draws=draws,
        tune=tune,
        chains=chains,
        max_rhat=float(max_rhat),
        min_ess=float(min_ess),
        compile_seconds=float(compile_seconds),
        sample_seconds=float(sample_seconds),
        from_cache=from_cache,
        rng_seed=seed_record(rng),
    )
    if cache_path is not None:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_path.with_name(f".{cache_path.name}.{os.getpid()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache_path)
    return result


def _result_key(
    model: HierarchicalModel,
    draws: int,
    tune: int,
    chains: int,
    cores: int,
    sampler: str,
    seed: int,
    target_accept: float,
    max_rhat: float,
    min_ess: float,
    adaptation: str = DEFAULT_ADAPTATION,
) -> str:
    """sha256 of everything a fit's draws depend on (data, structure, priors, settings, seed,
    versions of the libraries that sample)."""
    import hashlib
    import importlib.metadata as md

    h = hashlib.sha256()

    def add(x: Any) -> None:
        h.update(repr(x).encode("utf-8"))
        h.update(b"\x00")

    add(model.structure_key())
    add(model.coords())
    add((model.outcome, model.diagnosis_groups, model.tasks))
    for name, arr in sorted(model.data_arrays().items()):
        a = np.ascontiguousarray(arr)
        add((name, a.dtype.str, a.shape))
        h.update(a.tobytes())
    add(sorted(model.spec.all_priors().items()))
    add((draws, tune, chains, cores, sampler, seed, float(target_accept), float(max_rhat),
         float(min_ess), adaptation))  # fmt: skip
    kernel_src = Path(__file__).with_name("kernel.py").read_bytes()
    h.update(hashlib.sha256(kernel_src).digest())
    for dist in ("attunestats", "pymc", "pytensor", "nutpie", "numpy", "arviz"):
        try:
            add((dist, md.version(dist)))
        except md.PackageNotFoundError:
            add((dist, None))
    return h.hexdigest()[:32]


def _sample_pymc(
    pm_model: Any,
    draws: int,
    tune: int,
    chains: int,
    cores: int,
    seed: int,
    progress_bar: bool,
    target_accept: float,
) -> tuple[Any, float, float]:
    """PyMC's NUTS: compilation and sampling, timed separately.

    "Compile" is the compilation of the log-density and its gradient in the C VM mode (which
    fills PyTensor's on-disk cache); ``pm.sample`` then builds its step function from that
    cache (counted in the sampling time).
    """
    import pymc as pm

    t0 = time.perf_counter()
    with _quiet():
        pm_model.compile_logp(mode=PYMC_COMPILE_MODE)
        pm_model.compile_dlogp(mode=PYMC_COMPILE_MODE)
    compile_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    out = io.StringIO()
    with _quiet(), _one_blas_thread(), pm_model, contextlib.redirect_stdout(out):
        dt = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            init="jitter+adapt_diag",
            random_seed=seed % (2**32),
            target_accept=target_accept,
            progressbar=progress_bar,
            compute_convergence_checks=False,
            return_inferencedata=True,
            compile_kwargs={"mode": PYMC_COMPILE_MODE},
        )
    return dt, compile_seconds, time.perf_counter() - t1


def _drop_reparameterisations(dt: Any) -> Any:
    """PyMC's posterior without the standardised ``z_*`` variables (the kernel does not store
    them): both samplers report the same variables."""
    ds = dt["posterior"].to_dataset()
    dt["posterior"] = ds.drop_vars([v for v in ds.data_vars if str(v).startswith("z_")])
    return dt


def _add_participant_means(dt: Any, model: HierarchicalModel, seed: int) -> Any:
    """Posterior draws of ``intercept`` and ``diagnosis_effect`` (integrated out of the sampler;
    drawn exactly from their conditional posterior, see ``model.draw_participant_means``)."""
    from attunestats.hierarchical.model import draw_participant_means

    ds = dt["posterior"].to_dataset()
    P = ds["participant_intercept"].transpose("chain", "draw", "participant").values
    n_chain, n_draw = P.shape[:2]
    s = ds["sigma_participant"].values.reshape(-1)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(7,)))
    b0, delta = draw_participant_means(model, P.reshape(n_chain * n_draw, -1), s, rng)
    new = {"intercept": (("chain", "draw"), b0.reshape(n_chain, n_draw))}
    if model.has_diagnosis:
        new["diagnosis_effect"] = (
            ("chain", "draw", "diagnosis"),
            delta.reshape(n_chain, n_draw, -1),
        )
    ds = ds.assign(new)
    if model.has_diagnosis:
        ds = ds.assign_coords(diagnosis=list(model.diagnosis_groups[1:]))
    dt["posterior"] = ds
    return dt


def _relabel(dt: Any, model: HierarchicalModel) -> Any:
    """Coordinates of this model's levels (a cached compiled model carries the first one's)."""
    coords = model.coords()
    for group in ("posterior",):
        ds = dt[group].to_dataset()
        upd = {d: coords[d] for d in coords if d in ds.dims and len(coords[d]) == ds.sizes[d]}
        if upd:
            dt[group] = dt[group].to_dataset().assign_coords(upd)
    return dt


# --------------------------------------------------------------------------------------------
def diagnose(
    idata: Any,
    *,
    max_rhat: float = MAX_RHAT,
    min_ess: float = MIN_ESS,
    var_names: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, int]:
    """Per-parameter R-hat, bulk and tail ESS of a posterior, and the divergence count.

    Returns ``(table, divergences)``; ``table`` has ``parameter, variable, r_hat, ess_bulk,
    ess_tail, passed, reason``. Parameters are the scalar elements of every posterior variable
    (``name[level]`` or ``name[level, level]``). ArviZ's rank-normalised split R-hat and bulk /
    tail ESS (``arviz.rhat``, ``arviz.ess``), computed on all elements of a variable at once
    (``hierarchical._diagnostics``: the same values, several times faster than ArviZ's loop over
    elements).
    """
    from attunestats.hierarchical._diagnostics import rhat_ess

    post = idata["posterior"].to_dataset()
    if var_names is not None:
        post = post[list(var_names)]
    rows: list[dict[str, Any]] = []
    for name in post.data_vars:
        dims = [d for d in post[name].dims if d not in ("chain", "draw")]
        arr = np.asarray(post[name].transpose("chain", "draw", *dims).values, dtype=float)
        r, b, t = rhat_ess(arr.reshape(arr.shape[0], arr.shape[1], -1))
        labels = _element_labels(post[name])
        for lab, rv, bv, tv in zip(labels, r, b, t):
            reasons = []
            if not np.isfinite(rv) or rv > max_rhat:  # NaN: one chain, or constant draws
                ok = np.isfinite(rv)
                reasons.append(f"r_hat {rv:.3f} > {max_rhat}" if ok else "r_hat undefined")
            if not np.isfinite(bv) or bv < min_ess:
                reasons.append(f"bulk ESS {bv:.0f} < {min_ess:g}")
            if not np.isfinite(tv) or tv < min_ess:
                reasons.append(f"tail ESS {tv:.0f} < {min_ess:g}")
            rows.append(
                {
                    "parameter": lab,
                    "variable": str(name),
                    "r_hat": float(rv),
                    "ess_bulk": float(bv),
                    "ess_tail": float(tv),
                    "passed": not reasons,
                    "reason": ", ".join(reasons),
                }
            )
    table = pd.DataFrame(rows)
    if not table.empty:
        table = table.astype({"parameter": "str", "variable": "str", "reason": "str"})
    divergences = 0
    if "sample_stats" in idata.children and "diverging" in idata["sample_stats"].data_vars:
        divergences = int(idata["sample_stats"]["diverging"].values.sum())
    return table, divergences


def _element_labels(da: Any) -> list[str]:
    dims = [d for d in da.dims if d not in ("chain", "draw")]
    name = str(da.name)
    if not dims:
        return [name]
    grids = []
    for d in dims:
        vals = da[d].values if d in da.coords else np.arange(da.sizes[d])
        grids.append([str(v) for v in vals])
    idx = np.indices([len(g) for g in grids]).reshape(len(dims), -1).T
    return [name + "[" + ", ".join(grids[j][i] for j, i in enumerate(row)) + "]" for row in idx]


def _warn_accepted(result: FitResult) -> None:
    warn(result.failure_message(), AttunestatsWarning)
