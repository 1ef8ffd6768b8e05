"""Random-number conventions shared by every random function of attunestats.

Every random function takes ``rng`` (``None``, an ``int``, a :class:`numpy.random.SeedSequence` or
a :class:`numpy.random.Generator`) and calls :func:`numpy.random.default_rng` on it; nothing seeds
global state. :func:`seed_record` says what to write into a result so it can be rerun, and
:func:`child_seed` derives a stable per-artefact seed from a root seed and a name, so one figure
rebuilt alone gets the same numbers as in a full build.
"""

from __future__ import annotations

import hashlib

import numpy as np

type RNGLike = int | np.integer | np.random.SeedSequence | np.random.Generator | None


def check_rng(rng: RNGLike, *, name: str = "rng") -> np.random.Generator:
    """``np.random.default_rng(rng)`` with a clear error for unsupported types."""
    if isinstance(rng, bool) or not (
        rng is None
        or isinstance(rng, int | np.integer | np.random.SeedSequence | np.random.Generator)
    ):
        raise TypeError(
            f"{name} must be None, an int, a numpy SeedSequence or Generator; got {type(rng).__name__}"
        )
    if isinstance(rng, int | np.integer) and rng < 0:
        raise ValueError(f"{name} must be a non-negative integer seed; got {rng}")
    return np.random.default_rng(rng)


def seed_record(rng: RNGLike) -> int | str | None:
    """What to record as the seed of a result: the int, the SeedSequence entropy, or ``None``.

    A ``Generator`` passed in cannot be rerun from a number, so it is recorded as ``None``.
    """
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool):
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        entropy = rng.entropy
        return int(entropy) if isinstance(entropy, int | np.integer) else str(entropy)
    return None


def child_seed(root_seed: int, name: str) -> int:
    """A stable 63-bit seed for the artefact ``name`` derived from ``root_seed``.

    Independent of the order in which artefacts are built.
    """
    digest = hashlib.sha256(f"{int(root_seed)}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def root_seed(rng: RNGLike, *, name: str = "rng") -> int:
    """A non-negative int seed for work that derives child seeds (simulators, studies, builds).

    An int is returned unchanged (so ``rng=5`` reproduces what ``seed=5`` did); a
    ``SeedSequence`` or ``Generator`` gives a seed drawn from it (reproducible when they are);
    ``None`` gives a fresh seed from OS entropy. The result is recorded with the output, so a
    run started with ``rng=None`` can be repeated with the recorded seed.

    Examples
    --------
    >>> root_seed(7)
    7
    >>> root_seed(np.random.SeedSequence(7)) == root_seed(np.random.SeedSequence(7))
    True
    """
    generator = check_rng(rng, name=name)
    if isinstance(rng, int | np.integer):
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return int(rng.generate_state(1, np.uint64)[0] >> np.uint64(1))
    return int(generator.integers(0, 2**63 - 1))
