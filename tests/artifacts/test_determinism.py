"""Determinism of reproduce with an MCMC fit (issue 19, item 4).

``attunestats reproduce --fast --only topic-effects`` (four hierarchical fits, nutpie) on a small
simulated release, run in two fresh processes that differ in everything that may not change the
outputs: BLAS/OpenMP/numba threads (1 vs 2) and the compile caches (the suite's warm PyTensor
cache vs a new empty PyTensor and numba cache directory). Every CSV, JSON and TeX file, and
MANIFEST.json, must be byte-identical (the table carries the posterior summaries at full
precision); only BUILD.log (wall times) may differ. A third run with another root seed must
change the MCMC numbers: the equality above is not that of a table without random content.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-c", "import sys; from attunestats.cli import main; sys.exit(main())"]
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _reproduce(release: Path, out: Path, *, seed: int, threads: int, cache: Path | None) -> None:
    env = dict(os.environ)
    env.update({name: str(threads) for name in THREAD_VARS})
    if cache is not None:  # cold: empty compile caches of their own
        env["PYTENSOR_FLAGS"] = f"base_compiledir={cache / 'pytensor'}"
        env["NUMBA_CACHE_DIR"] = str(cache / "numba")
    args = ["reproduce", "--release", str(release), "--out", str(out), "--fast", "--seed",
            str(seed), "--only", "topic-effects"]  # fmt: skip
    proc = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _outputs(out: Path) -> dict[str, bytes]:
    files = {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "BUILD.log"
    }
    assert {Path(rel).suffix for rel in files} == {".csv", ".json", ".tex", ".md"}
    return files


@pytest.fixture(scope="module")
def release(make_tmp_release) -> Path:
    return make_tmp_release(rng=4, n_conversations=12, n_models=2, n_human_raters=1, n_topics=3)


def test_reproduce_with_mcmc_is_byte_identical_across_threads_and_caches(tmp_path, release):
    warm, cold = tmp_path / "warm", tmp_path / "cold"
    _reproduce(release, warm, seed=11, threads=1, cache=None)
    _reproduce(release, cold, seed=11, threads=2, cache=tmp_path / "caches")
    assert any((tmp_path / "caches").rglob("*"))  # the cold run compiled into its own cache
    a, b = _outputs(warm), _outputs(cold)
    assert "tables/05_topic_effects.csv" in a
    assert sorted(a) == sorted(b)
    assert [rel for rel in a if a[rel] != b[rel]] == []
    other = tmp_path / "other"
    _reproduce(release, other, seed=12, threads=1, cache=None)
    rel = "tables/05_topic_effects.csv"
    assert _outputs(other)[rel] != a[rel]
