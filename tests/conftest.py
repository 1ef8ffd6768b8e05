"""Fixtures shared by the whole test suite.

The test folders mirror the package (``tests/release/`` tests ``attunestats/release/``, ...); they
have no ``__init__.py``, so every test file name is unique across folders.

Session-scoped fixtures are built once per test process (once per xdist worker) and shared by
every test that asks for them. They are read-only: never modify one in a test (copy a table
before changing it, or build your own release with ``make_tmp_release``). Each release and
scores fixture checks at the end of the session that its tables are unchanged, and reports an
error otherwise.

``release_small_path`` / ``release_small``
    The hand-written release in the official format, ``tests/data/release_small/``, and that
    release loaded.
``bundled_release`` / ``bundled_scores``
    The bundled simulated release (paper-sized) and its scores with the default conventions.
``small_simulated_release`` / ``small_simulated_scores``
    A small simulated release built in memory (``SMALL_SIMULATION`` with seed ``SMALL_SEED``:
    40 conversations, 3 models, 1 human rater, 10 topics) and its scores.
``write_release``
    A factory: ``write_release(root, conversations, runs=None, info=None)`` writes dict literals as
    the official files of a release (``{"conversation_1.json": doc}``, ``{predictor: {name:
    doc}}``, ``release.json``) under ``root`` and returns ``root``: hand-written releases with one
    defect each, for the loader's tests.
``make_tmp_release``
    A factory: ``make_tmp_release(rng=..., **options)`` writes a simulated release into a fresh
    temporary directory and returns its path; ``options`` are those of
    :func:`attunestats.release.simulate.simulate_release` (the sizes default to the small
    release's).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

RELEASE_SMALL = Path(__file__).resolve().parent / "data" / "release_small"
SMALL_SIZES: dict[str, Any] = {
    "n_conversations": 40,
    "n_models": 3,
    "n_human_raters": 1,
    "n_topics": 10,
}
SMALL_SEED = 8


def _fingerprint(obj: Any) -> str:
    """Hash of the tables and info of a Release or Scores (its DataFrames and dicts)."""
    h = hashlib.sha256()
    parts = dict(vars(obj))
    parts.update({f"tables.{k}": v for k, v in (getattr(obj, "tables", None) or {}).items()})
    for name in sorted(parts):
        value = parts[name]
        h.update(name.encode())
        if isinstance(value, pd.DataFrame):
            h.update(repr((list(value.columns), [str(t) for t in value.dtypes])).encode())
            h.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
        elif isinstance(value, dict) and name != "tables":
            h.update(json.dumps(value, sort_keys=True, default=repr).encode())
    return h.hexdigest()


def _read_only(name: str, obj: Any) -> Iterator[Any]:
    """Yield ``obj``; at teardown, fail if a test changed it."""
    before = _fingerprint(obj)
    yield obj
    assert _fingerprint(obj) == before, (
        f"a test modified the session fixture {name!r}: it is shared and read-only; copy it first"
    )


@pytest.fixture(scope="session")
def release_small_path() -> Path:
    """``tests/data/release_small/``: the hand-written release in the official format."""
    return RELEASE_SMALL


@pytest.fixture(scope="session")
def release_small(release_small_path):
    """The hand-written release, loaded (read-only)."""
    from attunestats.release.load import load_release

    yield from _read_only("release_small", load_release(release_small_path))


@pytest.fixture(scope="session")
def bundled_release():
    """The bundled simulated release (read-only)."""
    from attunestats.release.bundled import load_bundled_release

    yield from _read_only("bundled_release", load_bundled_release())


@pytest.fixture(scope="session")
def bundled_scores(bundled_release):
    """Scores of the bundled release, default conventions (read-only)."""
    from attunestats.metrics import score

    yield from _read_only("bundled_scores", score(bundled_release))


@pytest.fixture(scope="session")
def small_simulated_release():
    """A small simulated release, in memory (read-only)."""
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import SimulationConfig, simulate_documents

    docs = simulate_documents(SimulationConfig(**SMALL_SIZES), rng=SMALL_SEED)
    release = release_from_documents(docs.conversations, docs.runs, docs.release_info)
    yield from _read_only("small_simulated_release", release)


@pytest.fixture(scope="session")
def small_simulated_scores(small_simulated_release):
    """Scores of the small simulated release, default conventions (read-only)."""
    from attunestats.metrics import score

    yield from _read_only("small_simulated_scores", score(small_simulated_release))


def _write_json_release(root: Path, conversations: dict[str, Any], runs: dict[str, Any] | None = None,
                        info: dict[str, Any] | None = None) -> Path:  # fmt: skip
    (root / "conversations").mkdir(parents=True)
    for name, doc in conversations.items():
        (root / "conversations" / name).write_text(json.dumps(doc))
    for predictor, files in (runs or {}).items():
        (root / "runs" / predictor).mkdir(parents=True)
        for name, doc in files.items():
            (root / "runs" / predictor / name).write_text(json.dumps(doc))
    if info is not None:
        (root / "release.json").write_text(json.dumps(info))
    return root


@pytest.fixture(scope="session")
def write_release() -> Callable[..., Path]:
    """Factory: write dict literals as the official files of a release under ``root``."""
    return _write_json_release


@pytest.fixture(scope="session")
def make_tmp_release(tmp_path_factory) -> Callable[..., Path]:
    """Factory: write a simulated release into a new temporary directory; return its path."""
    from attunestats.release.simulate import simulate_release

    def make(*, rng: Any, **options: Any) -> Path:
        out = tmp_path_factory.mktemp("release") / "release"
        return simulate_release(out, rng=rng, **{**SMALL_SIZES, **options})

    return make
