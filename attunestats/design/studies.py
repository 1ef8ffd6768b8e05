"""Simulation studies that scale out: one runner, any executor, resumable Parquet results.

The package's validity rests on simulation studies (interval coverage, test size and power,
hierarchical recovery, power curves) that need thousands of simulated releases. A study here is

- a *replicate function* ``replicate(context, seed) -> pandas.DataFrame``, named by its import path
  (``"package.module:function"``) so that any worker process or cluster node can import it;
- a JSON-able *config* and an optional *setup function* ``setup(config) -> context`` that builds the
  expensive shared state once (for the coverage study: the population and its population values);
- a study *seed* and a number of replicates.

Replicate ``i`` uses the seed :func:`replicate_seed` ``(seed, i)`` (``SeedSequence(seed).spawn``'s
child ``i``), which depends neither on the executor nor on the order in which replicates finish,
so a replicate is a pure function of (config, seed, i) and the results are the same numbers
whatever runs them. Every replicate runs with one BLAS/OpenMP thread in every executor
(``threadpoolctl`` and the thread environment variables): multi-threaded BLAS can add in another
order, and a last-bit difference is enough to flip a tie in a bootstrap count or to send an MCMC
chain elsewhere. :func:`run_study` runs the replicates that are not done yet

- ``executor="serial"``: in this process, one after the other;
- ``executor="processes"``: in local worker processes (``concurrent.futures`` with the spawn start
  method, so workers start clean on every platform);
- ``executor="dask"``: on a Dask distributed cluster (``scheduler="tcp://host:8786"``), or on a
  :class:`distributed.LocalCluster` started for the study when no address is given,

and writes every finished replicate at once as its own Parquet part file (written to a temporary
name, flushed, then renamed: a crash never leaves a half-written part), so an interrupted study
resumes where it stopped when the same call is made again: completed replicates are read, not
redone, and none is lost. When every replicate is done the parts are consolidated into one Parquet
file, rows ordered by replicate id, with the study recorded in its metadata; the consolidation is
deterministic, so a study interrupted and resumed gives a byte-identical file to one that ran
through. Running the same study again with more replicates extends the file.

A progress line on stderr (updated in place on a terminal, a line every 5% otherwise) shows the
replicates done, the rate and an estimate of the time left.

Built-in study kinds (:data:`STUDY_KINDS`, see :func:`make_study`): ``coverage`` (bootstrap
interval coverage against population values, :mod:`attunestats.design.coverage`), ``mean_coverage``
(coverage of the cluster-t interval of a clustered normal mean: a cheap, exactly calibrated study),
``power_curve`` (simulated power of a clustered contrast, :mod:`attunestats.design.power`),
``release_power`` (size and power of the paired bootstrap comparison on full simulated releases),
and ``recovery`` (hierarchical model recovery: simulate, fit with :mod:`attunestats.hierarchical`,
compare with the planted truth; :func:`recovery_replicate`).
Other modules add kinds with :func:`register_study_kind`. Everything a study produces is
simulated and labelled so (``constants.SIMULATED_LABEL``).

Running a study on a multi-node Dask cluster
--------------------------------------------
The same study gives the same numbers on a laptop and on a cluster: only the executor changes.

1. Install the same version of attunestats (with its ``dask`` extra) in the same Python
   environment on every node (``pip install 'attunestats[dask]'``; replicate results depend on
   the versions of numpy/scipy/pandas, so keep them identical across nodes).
2. Start a scheduler on one node: ``dask scheduler --port 8786``.
3. Start workers on every node, one single-threaded worker process per core (the replicates are
   single-threaded numpy): ``dask worker tcp://SCHEDULER:8786 --nworkers auto --nthreads 1``.
4. From any machine that can reach the scheduler (it needs no shared file system with the
   workers: results come back to the client, which alone writes the Parquet file), run::

       attunestats study run coverage --replicates 4000 --seed 1 \\
           --out studies/coverage.parquet --executor dask --scheduler tcp://SCHEDULER:8786

   or, from Python, ``run_study(make_study("coverage", n_replicates=4000, seed=1),
   "studies/coverage.parquet", executor="dask", scheduler="tcp://SCHEDULER:8786")``.
5. If the client, the scheduler or workers stop, run the same command again: the study resumes
   from the replicates already written to ``studies/coverage.parquet.parts/``. A worker that dies
   mid-replicate costs only that replicate, which Dask reschedules elsewhere.

The shared context (e.g. the population values of the coverage study) is computed once on the
client, cached in the parts folder, and broadcast to every worker once; the client keeps about
two replicates per worker thread in flight, so memory stays flat however long the study. Keep
``--nthreads 1``: replicates run single-threaded and several threads per worker process only
contend for the GIL. Byte-identical results across machines need identical library versions
and, strictly, the same BLAS kernels: OpenBLAS picks kernels by CPU type, so on a cluster of
mixed CPU generations set ``OPENBLAS_CORETYPE`` to one common type on every node (and on the
client) when bit-for-bit agreement with a laptop run matters. On a batch system (SLURM, PBS),
``dask-jobqueue`` starts the same workers as jobs; pass its scheduler address the same way.

Examples
--------
>>> study = make_study("mean_coverage", {"n_participants": 8}, n_replicates=20, seed=3)
>>> result = run_study(study, "mean_coverage.parquet", progress=False)   # doctest: +SKIP
>>> summarise_coverage(result.to_frame())                                # doctest: +SKIP
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import hashlib
import importlib
import json
import math
import multiprocessing
import os
import pickle
import shutil
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

import numpy as np
import pandas as pd

from attunestats.constants import SIMULATED_LABEL
from attunestats.errors import AttunestatsWarning

__all__ = [
    "EXECUTORS",
    "STUDY_KINDS",
    "Study",
    "StudyError",
    "StudyKind",
    "StudyResult",
    "make_study",
    "read_study",
    "register_study_kind",
    "replicate_seed",
    "run_study",
    "summarise_coverage",
]

EXECUTORS: tuple[str, ...] = ("serial", "processes", "dask")
Executor = Literal["serial", "processes", "dask"]
FORMAT = "attunestats-study/1"
METADATA_KEY = b"attunestats.study"
_PART_PREFIX = "rep-"
_PART_SUFFIX = ".parquet"
_RESERVED = ("replicate", "replicate_seed")


class StudyError(RuntimeError):
    """A replicate failed (the message names the replicate, its seed and the error)."""


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


def resolve(reference: str) -> Callable[..., Any]:
    """Import ``"package.module:function"`` (attribute chains allowed after the colon)."""
    module_name, _, attr = reference.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as err:
        raise ImportError(f"cannot import module {module_name!r} of {reference!r}: {err}") from err
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as err:
            raise ImportError(f"{reference!r}: module {module_name!r} has no {attr!r}") from err
    return obj


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
        ``replicate(context, seed) -> pandas.DataFrame``, given as ``"package.module:function"``
        or as an importable top-level function (stored as its reference). It must be pure:
        its result may depend only on ``context`` and ``seed``. The columns ``replicate`` and
        ``replicate_seed`` are added by the runner and may not be returned.
    config : mapping
        JSON-able settings of the study (recorded in the results).
    n_replicates : int
        Number of replicates (ids ``0 .. n_replicates - 1``).
    seed : int
        Study seed; replicate ``i`` gets :func:`replicate_seed` ``(seed, i)``.
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
    seed: int,
    name: str | None = None,
) -> Study:
    """A study of a registered kind; ``config`` overrides the kind's defaults key by key.

    Examples
    --------
    >>> s = make_study("mean_coverage", {"n_participants": 8}, n_replicates=10, seed=1)
    >>> s.config["n_participants"], s.replicate
    (8, 'attunestats.design.studies:mean_coverage_replicate')
    """
    if kind not in STUDY_KINDS:
        raise ValueError(f"unknown study kind {kind!r}; registered: {sorted(STUDY_KINDS)}")
    spec = STUDY_KINDS[kind]
    config = dict(config or {})
    if spec.defaults is not None:
        unknown = sorted(set(config) - set(spec.defaults))
        if unknown:
            raise ValueError(
                f"unknown config keys {unknown} for study kind {kind!r}; "
                f"known: {sorted(spec.defaults)}"
            )
    merged = {**(spec.defaults or {}), **config}
    return Study(
        spec.replicate,
        merged,
        n_replicates=n_replicates,
        seed=seed,
        setup=spec.setup,
        name=name or kind,
    )


# --------------------------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StudyResult:
    """What :func:`run_study` did.

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

    def to_frame(self) -> pd.DataFrame:
        """The results (one block of rows per replicate, ordered by replicate id)."""
        return read_study(self.path)


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
# storage: one part file per replicate, atomic renames, deterministic consolidation
# --------------------------------------------------------------------------------------------
def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _write_table_atomic(table: Any, path: Path, *, sync_dir: bool = True) -> None:
    """Write to a temporary name, flush to disk, rename (a reader never sees a partial file).

    Without ``sync_dir`` a power cut may lose the rename (the file is then simply absent and
    recomputed), never leave a partial file under the final name.
    """
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        pq.write_table(table, tmp, compression="zstd")
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    if sync_dir:
        _fsync_dir(path.parent)


class _Store:
    """The parts folder and the consolidated file of one study."""

    def __init__(self, out: str | os.PathLike[str], study: Study) -> None:
        self.path = Path(out)
        if self.path.suffix != ".parquet":
            raise ValueError(f"out must be a .parquet file path; got {str(out)!r}")
        self.parts = self.path.with_name(self.path.name + ".parts")
        self.study = study
        self.fingerprint = study.fingerprint

    # -- metadata ------------------------------------------------------------------------------
    def _manifest(self) -> dict[str, Any]:
        import attunestats

        return {
            "format": FORMAT,
            "fingerprint": self.fingerprint,
            "study": self.study.identity(),
            "name": self.study.name,
            "attunestats_version": attunestats.__version__,
            "label": SIMULATED_LABEL,
            "simulated": True,
        }

    def _check_manifest(self, data: Mapping[str, Any], where: Path) -> None:
        if data.get("format") != FORMAT or data.get("fingerprint") != self.fingerprint:
            raise ValueError(
                f"{where} holds results of a different study (fingerprint "
                f"{str(data.get('fingerprint'))[:12]}..., this study {self.fingerprint[:12]}...); "
                "use another out path, or overwrite=True to discard them"
            )
        import attunestats

        if data.get("attunestats_version") != attunestats.__version__:
            warnings.warn(
                f"{where} was written by attunestats {data.get('attunestats_version')}, this is "
                f"{attunestats.__version__}: replicates computed by both are mixed",
                AttunestatsWarning,
                stacklevel=3,
            )

    # -- state ---------------------------------------------------------------------------------
    def clear(self) -> None:
        if self.parts.exists():
            shutil.rmtree(self.parts)
        if self.path.exists():
            self.path.unlink()

    def final_ids(self) -> set[int]:
        import pyarrow.parquet as pq

        if not self.path.exists():
            return set()
        meta = pq.read_schema(self.path).metadata or {}
        if METADATA_KEY not in meta:
            raise ValueError(f"{self.path} is not an attunestats study file; use another out path")
        self._check_manifest(json.loads(meta[METADATA_KEY]), self.path)
        ids = pq.read_table(self.path, columns=["replicate"]).column(0).to_numpy()
        return {int(i) for i in np.unique(ids)}

    def _part_path(self, replicate: int) -> Path:
        return self.parts / f"{_PART_PREFIX}{replicate:09d}{_PART_SUFFIX}"

    def part_ids(self) -> set[int]:
        import pyarrow.parquet as pq

        if not self.parts.exists():
            return set()
        manifest = self.parts / "study.json"
        if manifest.exists():
            self._check_manifest(json.loads(manifest.read_text()), manifest)
        ids = set()
        for entry in self.parts.iterdir():
            name = entry.name
            if name.startswith(".") and ".tmp-" in name:
                entry.unlink(missing_ok=True)  # a write interrupted before its rename
                continue
            if not (name.startswith(_PART_PREFIX) and name.endswith(_PART_SUFFIX)):
                continue
            try:
                replicate = int(name[len(_PART_PREFIX) : -len(_PART_SUFFIX)])
                pq.read_metadata(entry)
            except (ValueError, OSError) as err:
                warnings.warn(
                    f"unreadable part {entry} ({err}); it will be recomputed",
                    AttunestatsWarning,
                    stacklevel=3,
                )
                entry.unlink(missing_ok=True)
                continue
            ids.add(replicate)
        return ids

    def prepare(self) -> None:
        self.parts.mkdir(parents=True, exist_ok=True)
        manifest = self.parts / "study.json"
        if not manifest.exists():
            _atomic_write_bytes(manifest, json.dumps(self._manifest(), indent=1).encode())

    # -- context cache -------------------------------------------------------------------------
    def context(self) -> Any:
        cache = self.parts / "context.pickle"
        if cache.exists():
            try:
                with open(cache, "rb") as fh:
                    stored_fp, context = pickle.load(fh)
                if stored_fp == self.fingerprint:
                    return context
            except Exception:  # a stale or broken cache is recomputed
                pass
        context = self.study.make_context()
        try:
            payload = pickle.dumps((self.fingerprint, context), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # unpicklable contexts are simply not cached
            return context
        _atomic_write_bytes(cache, payload)
        return context

    # -- writing -------------------------------------------------------------------------------
    def write_part(self, replicate: int, frame: pd.DataFrame) -> None:
        table = _to_table(frame, replicate, self.study.replicate_seed(replicate))
        _write_table_atomic(table, self._part_path(replicate), sync_dir=False)

    def consolidate(self) -> int:
        """Merge the consolidated file (if any) and the parts into the file; return its size."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        tables = []
        have = set()
        if self.path.exists():
            old = pq.read_table(self.path)
            tables.append(old.replace_schema_metadata(None))
            have = {int(i) for i in np.unique(old.column("replicate").to_numpy())}
        parts = sorted(self.part_ids() - have)
        for replicate in parts:
            tables.append(pq.read_table(self._part_path(replicate)).replace_schema_metadata(None))
        if not parts and self.path.exists():
            return len(have)
        ids = sorted(have | set(parts))
        merged = pa.concat_tables(tables, promote_options="permissive")
        order = pc.sort_indices(merged, sort_keys=[("replicate", "ascending")])  # stable
        merged = merged.take(order)
        meta = {**self._manifest(), "n_replicates": len(ids)}
        merged = merged.replace_schema_metadata(
            {METADATA_KEY: json.dumps(meta, sort_keys=True).encode()}
        )
        _write_table_atomic(merged, self.path)
        for replicate in parts:
            self._part_path(replicate).unlink(missing_ok=True)
        return len(ids)

    def remove_parts(self) -> None:
        if not self.parts.exists():
            return
        leftovers = [
            p for p in self.parts.iterdir() if p.name not in ("study.json", "context.pickle")
        ]
        if not leftovers:
            shutil.rmtree(self.parts)


def _to_table(frame: Any, replicate: int, seed: int) -> Any:
    import pyarrow as pa

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"replicate {replicate} returned {type(frame).__name__}; a replicate function must "
            "return a pandas DataFrame"
        )
    clash = [c for c in _RESERVED if c in frame.columns]
    if clash:
        raise ValueError(f"replicate {replicate} returned reserved columns {clash}")
    table = pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False)
    n = table.num_rows
    table = table.add_column(0, "replicate_seed", pa.array(np.full(n, seed, dtype=np.int64)))
    table = table.add_column(0, "replicate", pa.array(np.full(n, replicate, dtype=np.int64)))
    return table.replace_schema_metadata(None)


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
    """``name: done/total (k resumed), rate/s, elapsed, ETA`` on stderr."""

    def __init__(self, name: str, total: int, resumed: int, enabled: bool, stream: TextIO) -> None:
        self.name, self.total, self.resumed = name, total, resumed
        self.enabled = enabled
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self.done = 0
        self.step = max(1, (total - resumed) // 20)
        self.last_len = 0

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
        if self.enabled and self.tty and self.resumed + self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------------------------
# executors
# --------------------------------------------------------------------------------------------
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _single_threaded() -> Iterator[None]:
    """One BLAS/OpenMP thread while a replicate runs, in every executor.

    Multi-threaded BLAS may sum in another order than single-threaded BLAS (Dask workers run
    with one thread), and a last-bit difference can flip a tie in a bootstrap count or change
    the path of an MCMC chain; pinning one thread everywhere makes a replicate's numbers
    independent of where it runs. Libraries already loaded are limited with ``threadpoolctl``;
    libraries loaded during the replicate (e.g. compiled PyTensor modules) read the thread
    environment variables, which are set to 1 meanwhile (they keep one thread afterwards).
    Parallelism comes from running replicates side by side.
    """
    saved = {k: os.environ.get(k) for k in _ONE_THREAD}
    os.environ.update(dict.fromkeys(_ONE_THREAD, "1"))
    try:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - threadpoolctl comes with the scientific stack
            yield
        else:
            with threadpool_limits(limits=1):
                yield
    finally:
        _restore_env(saved)


def _restore_env(saved: Mapping[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _call(reference: str, context: Any, seed: int) -> pd.DataFrame:
    with _single_threaded():
        return resolve(reference)(context, seed)


_WORKER_CONTEXT: Any = None


def _init_worker(context: Any) -> None:
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = context


def _process_task(reference: str, seed: int) -> pd.DataFrame:
    return _call(reference, _WORKER_CONTEXT, seed)


def _failure(study: Study, replicate: int, err: BaseException) -> StudyError:
    detail = "".join(traceback.format_exception_only(type(err), err)).strip()
    return StudyError(
        f"replicate {replicate} (seed {study.replicate_seed(replicate)}) of study "
        f"{study.name!r} failed: {detail}"
    )


def _run_serial(study: Study, context: Any, todo: Sequence[int]) -> Iterator[tuple[int, Any]]:
    for i in todo:
        try:
            frame = _call(study.replicate, context, study.replicate_seed(i))
        except Exception as err:
            raise _failure(study, i, err) from err
        yield i, frame


def _warm(reference: str) -> int:
    resolve(reference)  # import the replicate's module in the worker
    return os.getpid()


def _start_pool(context: Any, n_workers: int, reference: str) -> cf.ProcessPoolExecutor:
    """Spawn the worker processes and import the replicate's module in them (before timing).

    Workers start with one BLAS thread (environment variables set while they are spawned, as
    Dask's nanny does), so no idle BLAS threads compete with the other workers for the cores.
    """
    saved = {k: os.environ.get(k) for k in _ONE_THREAD}
    os.environ.update(dict.fromkeys(_ONE_THREAD, "1"))
    pool = cf.ProcessPoolExecutor(
        max_workers=n_workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(context,),
    )
    try:
        for fut in [pool.submit(_warm, reference) for _ in range(2 * n_workers)]:
            fut.result()
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        _restore_env(saved)
    return pool


def _run_processes(
    study: Study, todo: Sequence[int], pool: cf.ProcessPoolExecutor, n_workers: int
) -> Iterator[tuple[int, Any]]:
    window = 2 * n_workers
    pending: dict[cf.Future, int] = {}
    queue = iter(todo)
    try:
        for i in queue:
            pending[pool.submit(_process_task, study.replicate, study.replicate_seed(i))] = i
            if len(pending) >= window:
                break
        while pending:
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                try:
                    frame = fut.result()
                except Exception as err:
                    raise _failure(study, i, err) from err
                nxt = next(queue, None)
                if nxt is not None:
                    seed = study.replicate_seed(nxt)
                    pending[pool.submit(_process_task, study.replicate, seed)] = nxt
                yield i, frame
    finally:
        for fut in pending:
            fut.cancel()


def _dask_client(
    client: Any, scheduler: str | None, n_workers: int | None
) -> tuple[Any, list[Any]]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:  # pragma: no cover - dask is an optional extra
        raise ImportError(
            "executor='dask' needs dask.distributed: pip install 'attunestats[dask]'"
        ) from err
    if client is not None:
        return client, []
    if scheduler:
        c = Client(scheduler)
        return c, [c]
    cluster = LocalCluster(
        n_workers=n_workers or 2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )
    c = Client(cluster)
    return c, [c, cluster]


def _run_dask(
    study: Study, context: Any, todo: Sequence[int], client: Any
) -> Iterator[tuple[int, Any]]:
    from distributed import as_completed

    resolve(study.replicate)
    n_threads = max(1, sum(client.nthreads().values()))
    window = max(4, 2 * n_threads)
    [ctx_future] = client.scatter([context], broadcast=True)
    queue = iter(todo)
    keys: dict[str, int] = {}

    def submit(i: int) -> Any:
        fut = client.submit(_call, study.replicate, ctx_future, study.replicate_seed(i), pure=False)
        keys[fut.key] = i
        return fut

    first = [submit(i) for _, i in zip(range(window), queue)]
    stream = as_completed(first)
    try:
        for fut in stream:
            i = keys.pop(fut.key)
            try:
                frame = fut.result()
            except Exception as err:
                raise _failure(study, i, err) from err
            fut.release()
            nxt = next(queue, None)
            if nxt is not None:
                stream.add(submit(nxt))
            yield i, frame
    finally:
        for fut in list(stream.futures):
            fut.cancel()
        ctx_future.release()


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


# --------------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------------
def summarise_coverage(
    frame: pd.DataFrame, *, by: Sequence[str] = ("kind",), confidence_level: float = 0.95
) -> pd.DataFrame:
    """Coverage per group with its Monte Carlo standard error.

    Intervals of one replicate share a release, so the Monte Carlo error is computed from the
    per-replicate coverages (between-replicate spread), not from the binomial formula over all
    intervals. ``mc_low``/``mc_high`` are normal intervals at ``confidence_level`` for the
    expected coverage.
    """
    from scipy import stats

    needed = {"replicate", "covered", *by}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValueError(f"frame lacks columns {missing} (is it a coverage study?)")
    z = float(stats.norm.ppf(0.5 + confidence_level / 2))
    rows = []
    keys = list(by)
    groups = frame.groupby(keys, sort=True) if keys else [((), frame)]
    for key, sub in groups:
        per_rep = sub.groupby("replicate")["covered"].mean()
        k = per_rep.size
        mean = float(per_rep.mean())
        se = float(per_rep.std(ddof=1) / math.sqrt(k)) if k > 1 else math.nan
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "coverage": mean,
                "mc_se": se,
                "mc_low": mean - z * se,
                "mc_high": mean + z * se,
                "n_intervals": int(sub.shape[0]),
                "n_replicates": int(k),
                "simulated": True,
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["label"] = SIMULATED_LABEL
    return out


# --------------------------------------------------------------------------------------------
# built-in study kinds
# --------------------------------------------------------------------------------------------
def mean_coverage_replicate(config: Mapping[str, Any], seed: int) -> pd.DataFrame:
    """One clustered normal sample; coverage of the cluster-level t and the naive t intervals.

    ``y[j, i] = mean + u[j] + e[j, i]`` for ``n_participants`` clusters of ``cluster_size``
    conversations, ``Var(u) = icc * sd^2``, ``Var(e) = (1 - icc) * sd^2``. The cluster-level t
    interval (t on the cluster means, ``n_participants - 1`` degrees of freedom) is exact, so its
    coverage equals ``confidence_level``; the naive t interval over all conversations ignores the
    clustering and undercovers when ``icc > 0`` (by about ``sqrt(design effect)`` in its width).
    """
    from scipy import stats

    g = int(config["n_participants"])
    m = int(config["cluster_size"])
    icc = float(config["icc"])
    sd = float(config["sd"])
    mu = float(config["mean"])
    level = float(config["confidence_level"])
    rng = np.random.default_rng(seed)
    u = rng.normal(0.0, sd * math.sqrt(icc), size=(g, 1))
    e = rng.normal(0.0, sd * math.sqrt(1.0 - icc), size=(g, m))
    y = mu + u + e
    rows = []
    cm = y.mean(axis=1)
    for name, values in (("cluster_t", cm), ("naive_t", y.ravel())):
        n = values.size
        est = float(values.mean())
        se = float(values.std(ddof=1) / math.sqrt(n))
        half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * se
        rows.append(
            {
                "kind": name,
                "estimate": est,
                "ci_low": est - half,
                "ci_high": est + half,
                "truth": mu,
                "covered": bool(est - half <= mu <= est + half),
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class CoverageContext:
    """Shared state of the coverage study: the population, its values and the study config."""

    effects: Any
    population: pd.DataFrame
    config: Mapping[str, Any]


def coverage_setup(config: Mapping[str, Any]) -> CoverageContext:
    """Population of the coverage study: effects and population values (deterministic)."""
    from dataclasses import replace

    from attunestats.design.coverage import population_values
    from attunestats.release.simulate import SCENARIOS, draw_effects

    scenario = config["scenario"]
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {sorted(SCENARIOS)}; got {scenario!r}")
    sim = SCENARIOS[scenario]
    overrides = dict(config.get("simulation") or {})
    if overrides:
        sim = replace(sim, **overrides)
    effects = draw_effects(sim, rng=int(config["effects_seed"]))
    population = population_values(
        effects,
        n_conversations=int(config["population_conversations"]),
        chunk_size=int(config["population_chunk_size"]),
        seed=int(config["population_seed"]),
        metrics=_coverage_metrics(config),
    )
    return CoverageContext(effects, population, dict(config))


def _coverage_metrics(config: Mapping[str, Any]) -> list[str]:
    if config.get("metrics"):
        return list(config["metrics"])
    from attunestats.metrics.registry import MAIN_METRICS, PILLAR_METRICS

    return sorted((set(MAIN_METRICS) | set(PILLAR_METRICS)) - {"composite_z"})


def coverage_study_replicate(context: CoverageContext, seed: int) -> pd.DataFrame:
    """One replicate of the coverage study (:func:`attunestats.design.coverage.coverage_replicate`)."""
    from attunestats.design.coverage import coverage_replicate

    config = context.config
    n_conv = config.get("n_conversations")
    return coverage_replicate(
        context.effects,
        context.population,
        seed,
        n_conversations=None if n_conv is None else int(n_conv),
        n_resamples=int(config["n_resamples"]),
        method=config["method"],
        unit=config["unit"],
        confidence_level=float(config["confidence_level"]),
        metrics=_coverage_metrics(config),
    )


register_study_kind(
    "mean_coverage",
    "attunestats.design.studies:mean_coverage_replicate",
    defaults={
        "n_participants": 10,
        "cluster_size": 5,
        "icc": 0.2,
        "sd": 1.0,
        "mean": 0.0,
        "confidence_level": 0.95,
    },
    description="coverage of the cluster-level and naive t intervals of a clustered normal mean",
)
register_study_kind(
    "coverage",
    "attunestats.design.studies:coverage_study_replicate",
    setup="attunestats.design.studies:coverage_setup",
    defaults={
        "scenario": "paper",
        "simulation": {"n_conversations": 200, "n_models": 5, "n_human_raters": 1},
        "effects_seed": 17,
        "population_conversations": 20_000,
        "population_chunk_size": 1000,
        "population_seed": 7,
        "n_conversations": None,
        "n_resamples": 1000,
        "method": "bca",
        "unit": "conversation",
        "confidence_level": 0.95,
        "metrics": None,
    },
    description="bootstrap interval coverage of model means and paired differences "
    "against population values (attunestats.design.coverage)",
)
register_study_kind(
    "power_curve",
    "attunestats.design.power:power_curve_replicate",
    defaults=None,
    description="simulated power of a clustered contrast over a grid of sizes "
    "(attunestats.design.power.power_curve builds the config)",
)
register_study_kind(
    "release_power",
    "attunestats.design.power:release_power_replicate",
    setup="attunestats.design.power:release_power_setup",
    defaults=None,
    description="size and power of the paired bootstrap comparison of two predictors on full "
    "simulated releases (attunestats.design.power.release_power builds the config)",
)
_RECOVERY_MODELS = {
    "behaviour": "behaviour_model_from_scores",
    "preference": "preference_model_from_scores",
    "emotion": "emotion_model_from_scores",
    "holistic": "holistic_model_from_scores",
}


def recovery_replicate(config: Mapping[str, Any], seed: int) -> pd.DataFrame:
    """One hierarchical-recovery replicate: simulate a release, fit, compare with the truth.

    Draws a release (scenario ``config["scenario"]`` with ``config["simulation"]`` overrides,
    population and conversations from ``seed``), scores it, builds the hierarchical model of
    ``config["capability"]`` (:mod:`attunestats.hierarchical`, ``*_model_from_scores`` with
    ``config["model_options"]``), samples it (``draws``, ``tune``, ``chains``; chains run one
    after the other, seeded by ``seed``) and returns
    :func:`attunestats.hierarchical.recovery.recovery_table` (posterior mean and interval of every
    identifiable quantity next to its true value, ``covered``, ``passed``) with the sampler's
    divergences.
    """
    from dataclasses import replace

    from attunestats import hierarchical as hier
    from attunestats.hierarchical.recovery import recovery_table, truth_from_simulation
    from attunestats.metrics.score import score
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import SCENARIOS, simulate_documents

    capability = config["capability"]
    if capability not in _RECOVERY_MODELS:
        raise ValueError(
            f"capability must be one of {sorted(_RECOVERY_MODELS)}; got {capability!r}"
        )
    sim = SCENARIOS[config["scenario"]]
    if config.get("simulation"):
        sim = replace(sim, **config["simulation"])
    docs = simulate_documents(sim, rng=int(seed))
    scores = score(release_from_documents(docs.conversations, docs.runs, docs.release_info))
    build = getattr(hier, _RECOVERY_MODELS[capability])
    model = build(scores, **dict(config.get("model_options") or {}))
    result = hier.fit(
        model,
        draws=int(config["draws"]),
        tune=int(config["tune"]),
        chains=int(config["chains"]),
        cores=1,
        sampler=config.get("sampler", "auto"),
        rng=int(seed) % (2**31),
        progress_bar=False,
    )
    truth = truth_from_simulation(json.loads(docs.files()["truth.json"]), capability)
    table = recovery_table(result, truth, ci_prob=float(config["ci_prob"]))
    return table.reset_index(drop=True)


register_study_kind(
    "recovery",
    "attunestats.design.studies:recovery_replicate",
    defaults={
        "capability": "behaviour",
        "scenario": "paper",
        "simulation": {"n_conversations": 60, "n_models": 4, "n_human_raters": 0, "n_topics": 10},
        "model_options": {},
        "draws": 300,
        "tune": 300,
        "chains": 2,
        "sampler": "auto",
        "ci_prob": 0.94,
    },
    description="hierarchical model parameter recovery against the simulator's truth "
    "(attunestats.hierarchical)",
)
