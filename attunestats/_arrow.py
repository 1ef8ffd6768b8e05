"""Arrow-backed ``str`` columns built from the system allocator (private; release and metrics).

The large tables of a release (one row per answer) and of its scores are built here. Their Arrow
buffers come from the system allocator (glibc's ``malloc`` on Linux) rather than Arrow's default
mimalloc pool: large buffers are then mapped and unmapped one by one, and the memory freed while
the tables are built is reused instead of being kept by the pool. Measured on one 10,000-turn
conversation (``benchmarks/bench_big_input.py``; benchmarks/RESULTS.md): this pool alone took
the data peak of loading and scoring from 365-405 MB to about 330 MB, and with
:func:`release_free_memory` and the loader handing over its columns one by one, to 290-299 MB.
Only these allocations use it: the process-wide default pool is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

POOL = pa.system_memory_pool()


def str_array(values: Sequence[Any]) -> Any:
    """``values`` (str or None) as a pandas ``str`` array."""
    return pd.array(pa.array(values, type=pa.large_string(), memory_pool=POOL), dtype="str")


def str_dictionary(values: Sequence[Any]) -> pa.Array:
    """The distinct values to :func:`take_str` from."""
    return pa.array(list(values), type=pa.large_string(), memory_pool=POOL)


def take_str(dictionary: pa.Array, indices: np.ndarray) -> Any:
    """``dictionary[indices]`` as a pandas ``str`` array."""
    return pd.array(pc.take(dictionary, indices, memory_pool=POOL), dtype="str")


def _libc_trim() -> Any:
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows): nothing to trim
        return None


_TRIM = _libc_trim()


def release_free_memory() -> None:
    """Give the memory the C allocator holds but no longer uses back to the operating system.

    glibc's ``malloc_trim(0)``; a no-op elsewhere. It changes no setting and frees nothing that is
    in use. Called after the loader has dropped the last parsed document: glibc keeps the freed
    heap of the parsed JSON, which Python's object arenas and NumPy's large arrays (both mapped
    apart from that heap) would not reuse.
    """
    if _TRIM is not None:
        _TRIM(0)
