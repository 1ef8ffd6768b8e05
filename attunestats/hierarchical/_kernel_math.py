"""Numerical helpers of :mod:`.kernel` (private): stable logistic functions, digamma, rising
factorials and PyMC's zero-sum transform, each compiled by numba (cached on disk)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

try:  # numba is a dependency of nutpie and PyMC's default backend
    import numba

    _njit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
except ImportError:  # pragma: no cover - without numba the kernel runs as plain Python
    numba = None

    def _njit(f: Any) -> Any:
        return f


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------
@_njit
def _softplus(x: float) -> float:
    if x > 0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


@_njit
def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@_njit
def _digamma(x: float) -> float:
    r = 0.0
    while x < 6.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))))
    return r + math.log(x) - 0.5 / x + t


#: Above this many terms, :func:`_rising` uses log-gamma and digamma instead of the product.
_RISING_SUM_MAX = 32


@_njit
def _rising(a: float, n: float) -> tuple[float, float]:
    """``log(a (a + 1) ... (a + n - 1))`` (= lgamma(a + n) - lgamma(a)) and its derivative in
    ``a`` (= digamma(a + n) - digamma(a)), for a whole number ``n >= 0``.

    Up to :data:`_RISING_SUM_MAX` factors: the product ``R`` and its derivative ``R'`` by the
    product rule (multiplications only, rescaled before they could overflow), then one log and
    one division (``R' / R``); beyond, log-gamma and digamma.
    """
    if n <= _RISING_SUM_MAX:
        lv = 0.0
        r = 1.0
        dr = 0.0
        for j in range(int(n)):
            t = a + j
            dr = dr * t + r
            r = r * t
            if r > 1e150:
                lv += math.log(r)
                dr /= r
                r = 1.0
        return lv + math.log(r), dr / r
    return math.lgamma(a + n) - math.lgamma(a), _digamma(a + n) - _digamma(a)


@_njit
def _log1mexp(x: float) -> float:
    """log(1 - exp(x)) for x < 0."""
    if x > -0.6931471805599453:
        return math.log(-math.expm1(x))
    return math.log1p(-math.exp(x))


@_njit
def _extend(f: np.ndarray, out: np.ndarray) -> None:
    """Zero-sum free coordinates ``f`` (n - 1) -> values ``out`` (n) summing to zero."""
    n1 = f.shape[0]
    n = n1 + 1.0
    s = 0.0
    for i in range(n1):
        s += f[i]
    sq = math.sqrt(n)
    norm = s / (sq + n)
    for i in range(n1):
        out[i] = f[i] - norm
    out[n1] = -s / sq


@_njit
def _extend_t(g: np.ndarray, out: np.ndarray) -> None:
    """Transpose of :func:`_extend`: gradient ``g`` (n) of the values -> ``out`` (n - 1)."""
    n1 = g.shape[0] - 1
    n = n1 + 1.0
    sq = math.sqrt(n)
    s = 0.0
    for i in range(n1):
        s += g[i]
    c = s / (sq + n) + g[n1] / sq
    for i in range(n1):
        out[i] = g[i] - c


@_njit
def _extend_rows(f: np.ndarray, out: np.ndarray) -> None:
    """Apply :func:`_extend` along axis 1 of a matrix: (r, n - 1) -> (r, n)."""
    for i in range(f.shape[0]):
        _extend(f[i], out[i])


@_njit
def _extend_rows_t(g: np.ndarray, out: np.ndarray) -> None:
    for i in range(g.shape[0]):
        _extend_t(g[i], out[i])
