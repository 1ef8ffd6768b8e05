"""Rank-normalised split R-hat and bulk / tail ESS of many parameters at once.

ArviZ's ``rhat`` and ``ess`` (arviz-stats 1.x; Vehtari, Gelman, Simpson, Carpenter and Buerkner
2021, Bayesian Analysis 16(2)) work parameter by parameter in Python: for the ~3,200 parameters
of a paper-sized hierarchical model with 4 x 2,000 draws that was about 50 s per fit, more than a
quarter of a full build's fitting time. :func:`rhat_ess` does the same arithmetic on blocks of
parameters at once: the same split chains, rank normalisation (average ranks, Blom's offset
3/8), folding at the median, FFT autocovariances, Geyer's initial positive and monotone
sequences (as closed forms over all parameters), the same tail quantiles (ArviZ's default
``stats.ci_prob``) and the same NaN rules. The tests compare every value with ``arviz.rhat`` /
``arviz.ess`` (tests/hierarchical/test_fit.py); ``benchmarks/bench_diagnostics.py`` times both.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import fft, special, stats

#: Parameters per block (memory: a few arrays of draws x block doubles).
_BLOCK = 256


def _split(x: np.ndarray) -> np.ndarray:
    """(chains, draws, p) -> (2 chains, draws // 2, p): first and last halves (ArviZ)."""
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]], axis=0)


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Normal scores of the average ranks over all chains and draws, per parameter."""
    m, n, p = x.shape
    flat = np.ascontiguousarray(x.reshape(m * n, p).T)  # each parameter's draws contiguous
    rank = stats.rankdata(flat, method="average", axis=1)
    size = m * n
    z = special.ndtri((rank - 3 / 8) / (size - 2 * 3 / 8 + 1))
    return z.T.reshape(m, n, p)


def _rhat(z: np.ndarray) -> np.ndarray:
    n = z.shape[1]
    chain_mean = z.mean(axis=1)
    chain_var = z.var(axis=1, ddof=1)
    between = n * chain_mean.var(axis=0, ddof=1)
    within = chain_var.mean(axis=0)
    return np.sqrt((between / within + n - 1) / n)


def _ess(a: np.ndarray) -> np.ndarray:
    """ArviZ's ``_ess`` of each parameter of ``a`` (chains, draws, p), vectorised.

    Geyer's truncation: with pair sums ``P_i = rho_2i + rho_2i+1`` (``rho_0 = 1``), ArviZ's loop
    stops at the first ``K >= 1`` with ``P_{K-1} <= 0`` or ``2K - 1 >= draws - 3``; the monotone
    step replaces ``P_0..P_{K-2}`` by their running minimum; ``tau = -1 + 2 sum P' + last``,
    ``last`` the even autocorrelation of pair ``K - 1`` when ArviZ keeps it.
    """
    m, n, p = a.shape
    out = np.full(p, np.nan)
    const = (a.max(axis=(0, 1)) - a.min(axis=(0, 1))) < np.finfo(float).resolution
    out[const] = m * n
    live = ~const
    if not live.any():
        return out
    a = a[:, :, live]
    size = fft.next_fast_len(2 * n)
    c = a - a.mean(axis=1, keepdims=True)
    f = np.fft.rfft(c, n=size, axis=1)
    f *= np.conjugate(f)
    acov = np.fft.irfft(f, n=size, axis=1)[:, :n] / n
    chain_mean = a.mean(axis=1)
    mean_var = acov[:, 0].mean(axis=0) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if m > 1:
        var_plus = var_plus + chain_mean.var(axis=0, ddof=1)
    rho = 1.0 - (mean_var[None, :] - acov.mean(axis=0)) / var_plus[None, :]  # (n, p')
    rho[0] = 1.0
    imax = 0  # largest loop index i with 2 i - 1 < n - 3
    while 2 * (imax + 1) - 1 < n - 3:
        imax += 1
    npairs = imax + 1
    lags = rho[: 2 * npairs]
    if lags.shape[0] < 2 * npairs:  # tiny n: pad (never read)
        lags = np.concatenate([lags, np.zeros((2 * npairs - lags.shape[0], lags.shape[1]))])
    pairs = lags[0::2] + lags[1::2]  # (npairs, p')
    if imax >= 1:
        cont = pairs[:imax] > 0  # iteration i (1..imax) runs while P_{i-1} > 0
        k_minus_1 = np.where(cont.all(axis=0), imax, np.argmin(cont, axis=0))  # K - 1
    else:
        k_minus_1 = np.zeros(pairs.shape[1], dtype=int)
    cols = np.arange(pairs.shape[1])
    run = np.minimum.accumulate(pairs, axis=0)
    csum = np.concatenate([np.zeros((1, pairs.shape[1])), np.cumsum(run, axis=0)])
    s = csum[k_minus_1, cols]  # sum of P'_0 .. P'_{K-2}
    even = lags[2 * k_minus_1, cols]
    kept = (even > 0) | ((k_minus_1 >= 1) & (pairs[k_minus_1, cols] >= 0))
    last = np.where(k_minus_1 >= 1, np.where(kept, even, 0.0), 1.0)
    tau = -1.0 + 2.0 * s + last
    total = m * n
    tau = np.maximum(tau, 1 / np.log10(total))
    ess = total / tau
    used = np.arange(rho.shape[0])[:, None] <= 2 * k_minus_1[None, :]
    ess[np.isnan(np.where(used, rho, 0.0)).any(axis=0)] = np.nan
    out[live] = ess
    return out


def _block(x: np.ndarray, tail_prob: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m, n, p = x.shape
    split = _split(x)
    rhat = np.full(p, np.nan)
    z = _z_scale(split)
    if m >= 2:
        folded = np.abs(split - np.median(split.reshape(-1, p), axis=0))
        bulk_rhat, tail_rhat = _rhat(z), _rhat(_z_scale(folded))
        # ArviZ's builtin max(bulk, tail): the tail value only when it is larger (NaN never is)
        rhat = np.where(tail_rhat > bulk_rhat, tail_rhat, bulk_rhat)
    bulk = _ess(z)
    lo, hi = sorted((tail_prob, 1 - tail_prob))
    q = np.quantile(x.reshape(-1, p), [lo, hi], axis=0)
    tail = np.minimum(
        _ess(_split((x <= q[0]).astype(float))), _ess(_split((x <= q[1]).astype(float)))
    )
    return rhat, bulk, tail


def rhat_ess(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank-normalised split R-hat, bulk ESS and tail ESS of each parameter of ``x``.

    ``x`` has shape (chains, draws, parameters). Returns three arrays of length parameters,
    equal to ``arviz.rhat(method="rank")``, ``arviz.ess(method="bulk")`` and
    ``arviz.ess(method="tail")`` up to floating-point rounding: NaN for a parameter with a NaN
    draw or fewer than 4 draws, R-hat NaN with one chain.
    """
    from arviz_base import rcParams

    x = np.asarray(x, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"x must have shape (chains, draws, parameters); got {x.shape}")
    m, n, p = x.shape
    rhat, bulk, tail = (np.full(p, np.nan) for _ in range(3))
    if n < 4 or p == 0:
        return rhat, bulk, tail
    tail_prob = float(rcParams["stats.ci_prob"])
    ok = ~np.isnan(x).any(axis=(0, 1))
    idx = np.flatnonzero(ok)
    blocks = [idx[j : j + _BLOCK] for j in range(0, len(idx), _BLOCK)]

    def run(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _block(x[:, :, cols], tail_prob)

    # numpy's sorts and FFTs release the GIL: blocks on two threads use both cores
    workers = min(len(blocks), os.cpu_count() or 1, 2)
    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(run, blocks))
    else:
        results = [run(cols) for cols in blocks]
    for cols, (r, b, t) in zip(blocks, results):
        rhat[cols], bulk[cols], tail[cols] = r, b, t
    return rhat, bulk, tail


def ess_mean(x: np.ndarray) -> np.ndarray:
    """ESS of the mean of each parameter of ``x`` (chains, draws, parameters): equal to
    ``arviz.ess(method="mean")`` up to rounding (NaN for a NaN draw or fewer than 4 draws)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"x must have shape (chains, draws, parameters); got {x.shape}")
    out = np.full(x.shape[2], np.nan)
    ok = ~np.isnan(x).any(axis=(0, 1))
    if x.shape[1] >= 4 and ok.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            out[ok] = _ess(_split(x[:, :, ok]))
    return out
