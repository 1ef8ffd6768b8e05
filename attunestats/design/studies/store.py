"""The study results on disk: one Parquet part file per replicate, atomic renames, deterministic
consolidation into one file with the study recorded in its metadata.

A part is written to a temporary name, flushed, then renamed, so a crash never leaves a
half-written part; the consolidation orders rows by replicate id and is deterministic, so a study
interrupted and resumed gives a byte-identical file to one that ran through.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from attunestats.constants import SIMULATED_LABEL
from attunestats.errors import AttunestatsWarning, warn

FORMAT = "attunestats-study/1"
METADATA_KEY = b"attunestats.study"
_PART_PREFIX = "rep-"
_PART_SUFFIX = ".parquet"
_RESERVED = ("replicate", "replicate_seed")


class StudyLike(Protocol):
    """What the store and the executors need of a :class:`~attunestats.design.studies.Study`."""

    replicate: str
    name: str

    @property
    def fingerprint(self) -> str: ...

    def identity(self) -> dict[str, Any]: ...

    def make_context(self) -> Any: ...

    def replicate_seed(self, replicate: int) -> int: ...


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

    def __init__(self, out: str | os.PathLike[str], study: StudyLike) -> None:
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
                "use another out path, or overwrite=True (--overwrite) to discard them"
            )
        import attunestats

        if data.get("attunestats_version") != attunestats.__version__:
            warn(
                f"{where} was written by attunestats {data.get('attunestats_version')}, this is "
                f"{attunestats.__version__}: replicates computed by both are mixed",
                AttunestatsWarning,
            )

    # -- state ---------------------------------------------------------------------------------
    def check_destination(self) -> None:
        """Refuse, before any work, an ``out`` that cannot be written (one-line OutputError)."""
        from attunestats._io import OutputError, check_file_destination

        check_file_destination(self.path, what="out", create_parents=True)
        if self.parts.exists() and not self.parts.is_dir():
            raise OutputError(f"out {str(self.path)!r}: {str(self.parts)!r} (its parts folder) "
                              "exists and is not a directory")  # fmt: skip

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
            try:
                self._check_manifest(json.loads(manifest.read_text()), manifest)
            except ValueError:
                if self._holds_results():
                    raise
                # a study that stopped before its first replicate holds nothing: start afresh
                shutil.rmtree(self.parts)
                return set()
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
                warn(
                    f"unreadable part {entry} ({err}); it will be recomputed",
                    AttunestatsWarning,
                )
                entry.unlink(missing_ok=True)
                continue
            ids.add(replicate)
        return ids

    def _holds_results(self) -> bool:
        """Whether the parts folder holds a completed replicate (or the final file exists)."""
        if self.path.exists():
            return True
        return any(p.name.startswith(_PART_PREFIX) and p.name.endswith(_PART_SUFFIX)
                   for p in self.parts.iterdir())  # fmt: skip

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
        import pyarrow as pa

        try:
            table = _to_table(frame, replicate, self.study.replicate_seed(replicate))
        except pa.ArrowException as err:
            raise TypeError(
                f"replicate {replicate} of study {self.study.name!r} returned a frame that "
                f"cannot be stored as Parquet: {err}"
            ) from err
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
        try:
            merged = pa.concat_tables(tables, promote_options="permissive")
        except (pa.ArrowTypeError, pa.ArrowInvalid) as err:
            owners = [sorted(have)] * (len(tables) - len(parts)) + [[r] for r in parts]
            raise TypeError(self._type_clash(tables, owners, err)) from err
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

    def _type_clash(self, tables: list[Any], owners: list[list[int]], err: Exception) -> str:
        """Which columns the replicates return with types that cannot be combined, and where."""
        import pyarrow as pa

        seen: dict[str, dict[str, list[int]]] = {}
        fields: dict[str, list[Any]] = {}
        for table, reps in zip(tables, owners, strict=True):
            for f in table.schema:
                seen.setdefault(f.name, {}).setdefault(str(f.type), []).extend(reps)
                fields.setdefault(f.name, []).append(f)
        clashes = []
        for name, kinds in seen.items():
            if len(kinds) < 2:
                continue
            try:
                pa.unify_schemas([pa.schema([f]) for f in fields[name]],
                                 promote_options="permissive")  # fmt: skip
            except (pa.ArrowTypeError, pa.ArrowInvalid):
                where = "; ".join(f"{t} in replicates {sorted(r)}" for t, r in kinds.items())
                clashes.append(f"column {name!r}: {where}")
        detail = "; ".join(clashes) if clashes else str(err)
        return (
            f"the replicates of study {self.study.name!r} return columns of types that cannot be "
            f"combined ({detail}); a replicate function must return the same columns with the "
            f"same types every time (the replicates stay in {str(self.parts)!r})"
        )

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
