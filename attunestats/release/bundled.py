"""The bundled default release: a paper-sized simulated release, built on first use.

Every command and notebook uses it when no release is given. It is *simulated* (see
:mod:`attunestats.release.simulate`); numbers computed from it are not findings about real models.

The release is not stored in the repository (about 3,000 files); it is generated deterministically
from :data:`BUNDLED_SEED` into a cache directory the first time it is needed. The cache key includes
the package version and a hash of the simulator's source, so a changed simulator never serves stale
files. Generation is atomic: a temporary directory is renamed into place, so concurrent processes
(pytest workers, notebooks) never see a half-written release.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from attunestats.release.model import Release

#: Seed of the bundled release (fixed; documented in the README).
BUNDLED_SEED = 20260521
#: Scenario of the bundled release: every qualitative claim of the paper planted true.
BUNDLED_SCENARIO = "paper"


def cache_root() -> Path:
    """Cache directory: ``$ATTUNESTATS_CACHE`` or ``~/.cache/attunestats``."""
    env = os.environ.get("ATTUNESTATS_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "attunestats"


def _simulator_fingerprint() -> str:
    """Hash of the package version and every file of the simulator package (names and bytes)."""
    from attunestats import __version__

    package = Path(__file__).parent / "simulate"
    digest = hashlib.sha256(__version__.encode())
    files = sorted(
        p
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.relative_to(package).parts
    )
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def bundled_release_path(*, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Path of the bundled simulated release, generating it on first use.

    Parameters
    ----------
    cache_dir : path, optional
        Where to keep generated releases (default :func:`cache_root`).

    Examples
    --------
    >>> import attunestats as at
    >>> sorted(p.name for p in at.bundled_release_path().iterdir())
    ['conversations', 'release.json', 'runs', 'truth.json']
    """
    from attunestats.release.simulate import SCENARIOS, simulate_release

    root = Path(cache_dir) if cache_dir is not None else cache_root()
    target = root / f"bundled-{BUNDLED_SCENARIO}-seed{BUNDLED_SEED}-{_simulator_fingerprint()}"
    if (target / "release.json").exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".bundled-", dir=root))
    try:
        simulate_release(tmp / "release", rng=BUNDLED_SEED, config=SCENARIOS[BUNDLED_SCENARIO])
        try:
            os.rename(tmp / "release", target)
        except OSError:
            if not (target / "release.json").exists():
                raise
            # another process finished first: use its (identical) release
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def load_bundled_release(*, cache_dir: str | os.PathLike[str] | None = None) -> Release:
    """Load the bundled simulated release (generating it on first use).

    Examples
    --------
    >>> import attunestats as at
    >>> release = at.load_bundled_release()
    >>> release.simulated, len(release.conversations), release.predictor_names[:2]
    (True, 200, ['sim-human-1', 'sim-human-2'])
    """
    from attunestats.release.load import load_release

    return load_release(bundled_release_path(cache_dir=cache_dir))
