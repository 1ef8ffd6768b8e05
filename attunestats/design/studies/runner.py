"""The study runner: a :class:`Study` (replicate function, config, seed, size), its registered
kinds, :func:`run_study` (serial, processes or Dask; resumable) and :func:`read_study`.

Replicate ``i`` uses the seed :func:`replicate_seed` ``(seed, i)``, which depends neither on the
executor nor on the order in which replicates finish. The built-in kinds are registered by
:mod:`~attunestats.design.studies.kinds`; this module imports no statistics module.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, root_seed
from attunestats.constants import SIMULATED_LABEL
from attunestats.design.studies.executors import (
    EXECUTORS,
    Executor,
    _dask_client,
    _run_dask,
    _run_processes,
    _run_serial,
    _start_pool,
    resolve,
)
from attunestats.design.studies.store import METADATA_KEY, _Store

__all__ = [
    "STUDY_KINDS",
    "Study",
    "StudyKind",
    "StudyResult",
    "make_study",
    "read_study",
    "register_study_kind",
    "replicate_seed",
    "run_study",
]


# --------------------------------------------------------------------------------------------
# seeds and references
# --------------------------------------------------------------------------------------------
def replicate_seed(study_seed: int, replicate: int) -> int:
    """The seed of replicate ``replicate`` of a study seeded ``study_seed``.

    Child ``replicate`` of ``numpy.random.SeedSequence(study_seed)`` (what ``.spawn`` returns),
    reduced to a non-negative 63-bit integer. It depends only on the two numbers, never on the
    executor, the number of workers or the order in which replicates run.

    Examples
    --------
    >>> replicate_seed(1, 0) == replicate_seed(1, 0) != replicate_seed(1, 1)
    True
    """
    for name, value in (("study_seed", study_seed), ("replicate", replicate)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    child = np.random.SeedSequence(int(study_seed), spawn_key=(int(replicate),))
    return int(child.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _reference(func: Any, name: str) -> str:
    """``"module:qualname"`` of an importable top-level function (or the string itself)."""
    if isinstance(func, str):
        if ":" not in func or not all(func.split(":", 1)):
            raise ValueError(f"{name} must look like 'package.module:function'; got {func!r}")
        return func
    if not callable(func):
        raise TypeError(f"{name} must be a function or 'module:function'; got {func!r}")
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", "")
    if not module or not qualname or "<" in qualname or module == "__main__":
        raise ValueError(
            f"{name} must be an importable top-level function (workers import it by name); "
            f"got {func!r}. Define it at module level in an importable module."
        )
    return f"{module}:{qualname}"


def _canonical_json(obj: Any, name: str) -> str:
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{name} must be JSON-serialisable (finite numbers, str, lists, dicts): {err}"
        ) from err


# --------------------------------------------------------------------------------------------
# study definition
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Study:
    """A simulation study: a pure replicate function, its config, a seed and a size.

    Parameters
    ----------
    replicate : str or callable
        ``replicate(context, rng) -> pandas.DataFrame``, given as ``"package.module:function"``
        or as an importable top-level function (stored as its reference). It must be pure:
        its result may depend only on ``context`` and ``rng`` (the runner passes the int
        :func:`replicate_seed`). The columns ``replicate`` and ``replicate_seed`` are added by
        the runner and may not be returned.
    config : mapping
        JSON-able settings of the study (recorded in the results).
    n_replicates : int
        Number of replicates (ids ``0 .. n_replicates - 1``).
    seed : int
        Study seed (recorded in the results); replicate ``i`` gets :func:`replicate_seed`
        ``(seed, i)``. :func:`make_study` derives it from an ``rng``.
    setup : str or callable, optional
        ``setup(config) -> context``, run once per study (deterministic). Default: the context is
        the config itself.
    name : str
        Label for progress lines and file metadata.
    """

    replicate: str
    config: Mapping[str, Any] = field(default_factory=dict)
    n_replicates: int = field(default=100, kw_only=True)
    seed: int = field(default=0, kw_only=True)
    setup: str | None = field(default=None, kw_only=True)
    name: str = field(default="study", kw_only=True)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "replicate", _reference(self.replicate, "replicate"))
        if self.setup is not None:
            set_(self, "setup", _reference(self.setup, "setup"))
        if not isinstance(self.config, Mapping):
            raise TypeError(f"config must be a mapping; got {type(self.config).__name__}")
        set_(self, "config", json.loads(_canonical_json(dict(self.config), "config")))
        for fname, low in (("n_replicates", 1), ("seed", 0)):
            val = getattr(self, fname)
            if isinstance(val, bool) or not isinstance(val, int | np.integer) or val < low:
                raise ValueError(f"{fname} must be an integer >= {low}; got {val!r}")
            set_(self, fname, int(val))
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string; got {self.name!r}")

    def replicate_seed(self, replicate: int) -> int:
        """Seed of replicate ``replicate`` (see :func:`replicate_seed`)."""
        return replicate_seed(self.seed, replicate)

    def identity(self) -> dict[str, Any]:
        """What determines every replicate's result (not ``n_replicates`` nor ``name``)."""
        return {
            "replicate": self.replicate,
            "setup": self.setup,
            "config": self.config,
            "seed": self.seed,
        }

    @property
    def fingerprint(self) -> str:
        """SHA-256 of :meth:`identity`: two studies with the same fingerprint share replicates."""
        text = _canonical_json(self.identity(), "study")
        return hashlib.sha256(text.encode()).hexdigest()

    def make_context(self) -> Any:
        """Run the setup function on the config (or return the config)."""
        if self.setup is None:
            return dict(self.config)
        return resolve(self.setup)(dict(self.config))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able description (identity plus name and size)."""
        return {"name": self.name, "n_replicates": self.n_replicates, **self.identity()}


@dataclass(frozen=True)
class StudyKind:
    """A named study type: replicate and setup references, default config, description."""

    name: str
    replicate: str
    setup: str | None
    defaults: Mapping[str, Any] | None
    description: str


STUDY_KINDS: dict[str, StudyKind] = {}


def register_study_kind(
    name: str,
    replicate: str,
    *,
    setup: str | None = None,
    defaults: Mapping[str, Any] | None = None,
    description: str = "",
    replace: bool = False,
) -> None:
    """Register a study kind for :func:`make_study` and ``attunestats study run KIND``.

    ``replicate`` and ``setup`` are ``"package.module:function"`` references (imported lazily,
    when the study runs, so registering costs nothing). ``defaults`` lists every config key with
    its default; ``None`` accepts any config (the replicate function checks it).
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    if name in STUDY_KINDS and not replace:
        raise ValueError(f"study kind {name!r} is already registered; pass replace=True")
    if defaults is not None:
        defaults = dict(defaults)
        _canonical_json(defaults, "defaults")
    STUDY_KINDS[name] = StudyKind(
        name,
        _reference(replicate, "replicate"),
        None if setup is None else _reference(setup, "setup"),
        defaults,
        description,
    )


def make_study(
    kind: str,
    config: Mapping[str, Any] | None = None,
    *,
    n_replicates: int,
    rng: RNGLike,
    name: str | None = None,
) -> Study:
    """A study of a registered kind; ``config`` overrides the kind's defaults key by key.

    The study seed is ``root_seed(rng)`` (:func:`attunestats._rng.root_seed`): ``rng`` itself
    when an int (``rng=1`` is the study seeded 1), drawn from a ``SeedSequence`` or
    ``Generator``, fresh entropy for ``None``; it is recorded as ``Study.seed`` and in the
    results file, so any study can be rerun.

    Examples
    --------
    >>> s = make_study("mean_coverage", {"n_participants": 8}, n_replicates=10, rng=1)
    >>> s.config["n_participants"], s.replicate
    (8, 'attunestats.design.studies.kinds:mean_coverage_replicate')
    """
    if kind not in STUDY_KINDS:
        raise ValueError(f"unknown study kind {kind!r}; registered: {sorted(STUDY_KINDS)}")
    if isinstance(n_replicates, bool) or not isinstance(n_replicates, int) or n_replicates < 1:
        raise ValueError(f"n_replicates must be a positive integer; got {n_replicates!r}")
    spec = STUDY_KINDS[kind]
    config = dict(config or {})
    check_config(kind, config)
    merged = {**(spec.defaults or {}), **config}
    return Study(
        spec.replicate,
        merged,
        n_replicates=n_replicates,
        seed=root_seed(rng),
        setup=spec.setup,
        name=name or kind,
    )


_POSITIVE_INT = frozenset({"cluster_size", "draws", "tune", "chains", "n_resamples",
                           "population_conversations", "population_chunk_size"})  # fmt: skip
_UNIT_INTERVAL = frozenset({"icc", "confidence_level", "ci_prob"})


def _close(key: str, known: list[str]) -> str:
    import difflib

    hit = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f" (did you mean {hit[0]!r}?)" if hit else ""


def _check_value(key: str, value: Any, default: Any, kind: str) -> None:
    """Type from the default, range from the key's name (see :func:`check_config`)."""
    where = f"config key {key!r} of study kind {kind!r}"
    if value is None:
        if default is not None:
            raise ValueError(f"{where} must not be null (default {default!r})")
        return
    if default is None:
        # no default type to follow (null: "not set"); a count must still be an integer >= 1
        if not (key.startswith("n_") or key in _POSITIVE_INT):
            return
        ok, want = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif isinstance(default, bool):
        ok = isinstance(value, bool)
        want = "true or false"
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
        want = "an integer"
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        want = "a finite number"
    elif isinstance(default, str):
        ok, want = isinstance(value, str), "a string"
    elif isinstance(default, Mapping):
        ok, want = isinstance(value, Mapping), "an object"
    elif isinstance(default, list | tuple):
        ok, want = isinstance(value, list | tuple), "an array"
    else:
        ok, want = True, ""
    if not ok:
        raise ValueError(f"{where} must be {want}; got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if (key.startswith("n_") or key in _POSITIVE_INT) and value < 1:
        raise ValueError(f"{where} must be >= 1; got {value!r}")
    if key in _UNIT_INTERVAL and not 0 <= value <= 1:
        raise ValueError(f"{where} must be in [0, 1]; got {value!r}")
    if key == "confidence_level" and value in (0, 1):
        raise ValueError(f"{where} must be strictly between 0 and 1; got {value!r}")
    if (key == "sd" or key.endswith("_sd") or key.endswith("_seed")) and value < 0:
        raise ValueError(f"{where} must be >= 0; got {value!r}")


def check_config(kind: str, config: Mapping[str, Any]) -> None:
    """Check a study configuration completely, before any work or any file.

    Against the kind's ``defaults``: no unknown key (the closest known one is suggested); each
    value of the default's type (an integer where the default is one, a finite number where it
    is a float, ...); counts (``n_*``, ``cluster_size``, ``draws``, ``tune``, ``chains``,
    ``n_resamples``) >= 1; ``icc``, ``ci_prob`` in [0, 1], ``confidence_level`` in (0, 1);
    standard deviations and seeds >= 0. A ``scenario`` must be one of the simulator's
    scenarios, and ``simulation`` overrides must make a valid
    :class:`~attunestats.release.simulate.SimulationConfig`. Kinds without ``defaults`` are
    checked by their replicate function.

    Raises
    ------
    ValueError
        Naming the key, the value and what was expected.
    """
    spec = STUDY_KINDS[kind]
    if spec.defaults is None:
        return
    known = sorted(spec.defaults)
    unknown = sorted(str(k) for k in set(config) - set(spec.defaults))
    if unknown:
        raise ValueError(f"unknown config keys {unknown} for study kind {kind!r}"
                         f"{_close(unknown[0], known)}; known: {known}")  # fmt: skip
    merged = {**spec.defaults, **config}
    for key, value in config.items():
        _check_value(key, value, spec.defaults[key], kind)
    if "scenario" in merged or "simulation" in merged:
        from dataclasses import replace as _replace

        from attunestats.release.simulate import SCENARIOS

        scenario = merged.get("scenario", "paper")
        if scenario not in SCENARIOS:
            raise ValueError(f"config key 'scenario' of study kind {kind!r} must be one of "
                             f"{sorted(SCENARIOS)}; got {scenario!r}")  # fmt: skip
        overrides = merged.get("simulation") or {}
        try:
            _replace(SCENARIOS[scenario], **overrides)
        except TypeError as err:
            raise ValueError(f"config key 'simulation' of study kind {kind!r}: {err}") from None
        except ValueError as err:
            raise ValueError(f"config key 'simulation' of study kind {kind!r}: {err}") from None


# --------------------------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class StudyResult(ResultMixin):
    """What :func:`run_study` did; ``to_frame()`` reads the results, ``summary()`` shows both.

    Attributes
    ----------
    path : Path
        The consolidated Parquet file.
    study : Study
    n_replicates : int
        Replicates in the file.
    n_computed, n_resumed : int
        Replicates computed by this call and found done already.
    elapsed : float
        Wall time of this call (seconds), setup included.
    compute_time : float
        Wall time spent running replicates (seconds).
    executor : str
    n_workers : int
    """

    _title = "Simulation study"

    path: Path
    study: Study
    n_replicates: int
    n_computed: int
    n_resumed: int
    elapsed: float
    compute_time: float
    executor: str
    n_workers: int
    simulated: bool = True

    @property
    def replicates_per_second(self) -> float:
        """Replicates computed per second of compute time (NaN when none were computed)."""
        if self.n_computed == 0 or self.compute_time <= 0:
            return math.nan
        return self.n_computed / self.compute_time

    @property
    def seed(self) -> int:
        """The study seed (rerun with ``make_study(..., rng=seed)``)."""
        return self.study.seed

    @property
    def method(self) -> str:
        """The replicate function and its setup."""
        setup = f" (setup {self.study.setup})" if self.study.setup else ""
        return f"replicates of {self.study.replicate}{setup}"

    def to_frame(self) -> pd.DataFrame:
        """The results (one block of rows per replicate, ordered by replicate id)."""
        return read_study(self.path)

    def _summary_meta(self) -> dict[str, str]:
        meta = {"Study": self.study.name, "File": str(self.path)}
        meta.update(super()._summary_meta())
        meta["Replicates"] = (
            f"{self.n_replicates} ({self.n_computed} computed, {self.n_resumed} resumed)"
        )
        meta["Executor"] = f"{self.executor} x {self.n_workers}"
        meta["Time"] = f"{self.elapsed:.1f} s ({self.compute_time:.1f} s computing)"
        return meta

    def __repr__(self) -> str:
        # the number of rows comes from the file's footer: a repr reads no data
        try:
            import pyarrow.parquet as pq

            rows = f"{pq.read_metadata(self.path).num_rows} rows"
        except Exception:  # a repr must never raise
            rows = "unavailable"
        return (
            f"<StudyResult: {rows}; study={self.study.name!r}; "
            f"{self.n_replicates} replicates; SIMULATED>"
        )


def read_study(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a consolidated study file; ``attrs`` hold the study and the simulated label."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = (table.schema.metadata or {}).get(METADATA_KEY)
    frame = table.to_pandas()
    if meta is not None:
        frame.attrs["study"] = json.loads(meta)
    frame.attrs["label"] = SIMULATED_LABEL
    frame.attrs["simulated"] = True
    return frame


# --------------------------------------------------------------------------------------------
# progress
# --------------------------------------------------------------------------------------------
def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class _Progress:
    """A tqdm bar on a terminal or in a notebook (:mod:`attunestats._progress`); elsewhere, when
    enabled, ``name: done/total (k resumed), rate/s, elapsed, ETA`` lines every 5%."""

    def __init__(self, name: str, total: int, resumed: int, enabled: bool, stream: TextIO) -> None:
        from attunestats._progress import in_notebook, progress_bar

        self.name, self.total, self.resumed = name, total, resumed
        self.enabled = enabled
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self.done = 0
        self.step = max(1, (total - resumed) // 20)
        self.last_len = 0
        self.bar = None
        if enabled and (self.tty or in_notebook()):
            self.bar = progress_bar(total, desc=name, unit="replicates", initial=resumed,
                                    enabled=True, stream=stream)  # fmt: skip

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else math.nan
        left = self.total - self.resumed - self.done
        eta = left / rate if rate and rate > 0 else math.inf
        return (
            f"{self.name}: {self.resumed + self.done}/{self.total} replicates"
            + (f" ({self.resumed} resumed)" if self.resumed else "")
            + f", {rate:.2f}/s, elapsed {_clock(elapsed)}, ETA {_clock(eta if left else 0.0)}"
        )

    def update(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update()
            return
        if not self.enabled:
            return
        finished = self.resumed + self.done == self.total
        if self.tty:
            text = self.line()
            pad = " " * max(0, self.last_len - len(text))
            self.stream.write("\r" + text + pad + ("\n" if finished else ""))
            self.last_len = len(text)
            self.stream.flush()
        elif finished or self.done % self.step == 0:
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            return
        if self.enabled and self.tty and self.resumed + self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------------------------
# runner
# --------------------------------------------------------------------------------------------
def run_study(
    study: Study,
    out: str | os.PathLike[str],
    *,
    executor: Executor = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    progress: bool | None = None,
    overwrite: bool = False,
    stream: TextIO | None = None,
) -> StudyResult:
    """Run (or resume, or extend) a study; results go to the Parquet file ``out``.

    Parameters
    ----------
    study : Study
    out : path
        The consolidated ``.parquet`` file; parts are written under ``<out>.parts/`` while the
        study runs. Calling again with the same study resumes it (completed replicates are kept,
        not recomputed); with more replicates, extends it.
    executor : {"serial", "processes", "dask"}
    n_workers : int, optional
        Worker processes for ``"processes"`` (default: CPU count) and for the LocalCluster that
        ``"dask"`` starts when neither ``scheduler`` nor ``client`` is given (default 2).
    scheduler : str, optional
        Address of a running Dask scheduler (``"tcp://host:8786"``); ``executor="dask"`` only.
    client : distributed.Client, optional
        An existing Dask client (``executor="dask"`` only; not closed).
    progress : bool, optional
        Progress line with rate and time left on ``stream`` (default stderr). Default: on when
        ``stream`` is a terminal.
    overwrite : bool
        Discard existing results at ``out`` (also those of a different study) first.
    stream : text file, optional
        Where progress goes (default ``sys.stderr``).

    Returns
    -------
    StudyResult

    Raises
    ------
    StudyError
        When a replicate fails (completed replicates stay on disk; the next call resumes).
    ValueError
        When ``out`` holds results of a different study.
    """
    if not isinstance(study, Study):
        raise TypeError(f"study must be a Study; got {type(study).__name__}")
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {EXECUTORS}; got {executor!r}")
    if n_workers is not None and (
        isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1
    ):
        raise ValueError(f"n_workers must be a positive integer; got {n_workers!r}")
    if (scheduler is not None or client is not None) and executor != "dask":
        raise ValueError(f"scheduler/client need executor='dask'; got executor={executor!r}")
    if scheduler is not None and client is not None:
        raise ValueError("give either scheduler or client, not both")
    resolve(study.replicate)  # fail here, before anything is written, if it cannot be imported
    if study.setup is not None:
        resolve(study.setup)
    stream = sys.stderr if stream is None else stream
    if progress is None:
        progress = bool(getattr(stream, "isatty", lambda: False)())
    started = time.perf_counter()
    store = _Store(out, study)
    store.check_destination()  # before any work: file-vs-directory mismatches, unwritable parent
    if overwrite:
        store.clear()
    store.path.parent.mkdir(parents=True, exist_ok=True)
    done = store.final_ids() | store.part_ids()
    todo = [i for i in range(study.n_replicates) if i not in done]
    resumed = study.n_replicates - len(todo)
    workers = 1
    compute_time = 0.0
    if todo:
        store.prepare()
        context = store.context()
        bar = _Progress(study.name, study.n_replicates, resumed, progress, stream)
        owned: list[Any] = []
        try:
            if executor == "serial":
                results = _run_serial(study, context, todo)
            elif executor == "processes":
                workers = min(n_workers or os.cpu_count() or 1, len(todo))
                pool = _start_pool(context, workers, study.replicate)
                owned.append(pool)
                results = _run_processes(study, todo, pool, workers)
            else:
                dask_client, owned = _dask_client(client, scheduler, n_workers)
                workers = len(dask_client.nthreads())
                results = _run_dask(study, context, todo, dask_client)
            t0 = bar.start = time.perf_counter()
            for i, frame in results:
                store.write_part(i, frame)
                bar.update()
            compute_time = time.perf_counter() - t0
        finally:
            bar.close()
            for obj in owned:
                if isinstance(obj, cf.Executor):
                    obj.shutdown(wait=True, cancel_futures=True)
                else:
                    obj.close()
    n_total = store.consolidate()
    store.remove_parts()
    return StudyResult(
        path=store.path,
        study=study,
        n_replicates=n_total,
        n_computed=len(todo),
        n_resumed=resumed,
        elapsed=time.perf_counter() - started,
        compute_time=compute_time,
        executor=executor,
        n_workers=workers,
    )
