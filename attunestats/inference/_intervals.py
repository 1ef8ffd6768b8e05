"""Bootstrap interval kernels: percentile, basic and BCa intervals, standard errors, vectorised.

Columns of a (resamples x statistics) distribution are summarised one chunk at a time from one
sorted copy (quantiles, BCa bias counts and standard errors all read from it).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from scipy.special import ndtr, ndtri

from attunestats.errors import AttunestatsWarning, warn

METHODS = ("percentile", "basic", "bca")
Method = Literal["percentile", "basic", "bca"]


# --------------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------------
# statistics summarised per chunk: a chunk's sorted copy (64 x 10,000 doubles, 5 MB) stays in
# cache and its memory is reused, where whole-distribution temporaries (~90 MB each for 1,000
# statistics) cost a page fault per 4 KiB page every time they are allocated
_CHUNK_COLUMNS = 64


def _sorted_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``values`` (n, k) as the sorted rows of a (k, n) copy, and their non-NaN counts.

    ``values`` itself is not reordered (its rows are resamples paired with the weights). The
    copy is row-major, so each sort runs on contiguous memory: numpy's vectorised sort of
    10,000 doubles is faster here than ``np.partition`` at the few ranks BCa needs.
    """
    block = np.array(np.asarray(values, dtype=float).T, order="C", copy=True)
    block.sort(axis=1)  # NaN sort last
    n = block.shape[1]
    n_valid = np.full(block.shape[0], n, dtype=np.int64)
    if n:
        has_nan = np.isnan(block[:, -1])
        if has_nan.any():
            n_valid[has_nan] = n - np.count_nonzero(np.isnan(block[has_nan]), axis=1)
    return block, n_valid


def _sorted_quantile(block: np.ndarray, n_valid: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Quantile ``q[k]`` of sorted row k (its first ``n_valid[k]`` values; linear interpolation,
    numpy's default); NaN where the row has no value or the level is not finite."""
    rows = np.arange(block.shape[0])
    top = np.maximum(n_valid - 1, 0)
    pos = np.where(np.isfinite(q), q, 0.0) * top
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, top)
    v_lo = block[rows, lo]
    v_hi = block[rows, hi]
    value = v_lo + (pos - lo) * (v_hi - v_lo)
    return np.where((n_valid > 0) & np.isfinite(q), value, np.nan)


def _column_quantiles(values: np.ndarray, *qs: np.ndarray) -> list[np.ndarray]:
    """Quantiles q[k] of column k (linear interpolation, NaN ignored), vectorised over columns."""
    values = np.asarray(values, dtype=float)
    n, n_cols = values.shape
    qv = [np.broadcast_to(np.asarray(q, dtype=float), (n_cols,)) for q in qs]
    if n == 0:
        return [np.full(n_cols, np.nan) for _ in qv]
    block, n_valid = _sorted_rows(values)
    return [_sorted_quantile(block, n_valid, q) for q in qv]


def _bca_acceleration(jackknife: np.ndarray) -> np.ndarray:
    """a = sum(U^3) / (6 sum(U^2)^1.5) per column, U the jackknife influence values
    (n-1)(mean - theta_i); NaN where the jackknife has no spread."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        n_jack = jackknife.shape[0]
        influence = (n_jack - 1) * (np.nanmean(jackknife, axis=0) - jackknife)
        num = np.nansum(influence**3, axis=0)
        den = np.nansum(influence**2, axis=0)
        accel = num / (6.0 * den**1.5)
    return np.where(den > 0, accel, np.nan)


def _bca_bias(below: np.ndarray, at_or_below: np.ndarray, n_valid: np.ndarray) -> np.ndarray:
    """z0 from the mid-rank share of resampled values below the estimate (as scipy does)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return ndtri((below + at_or_below) / (2.0 * n_valid))


def _interval_summary(
    distribution: np.ndarray,
    estimate: np.ndarray,
    *,
    method: Method,
    confidence_level: float,
    jackknife: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(low, high, bca_degenerate, standard_error)`` per column, one chunk of columns at a time.

    Each chunk is copied and sorted once; the bootstrap standard error (ddof=1, NaN resamples
    ignored), the BCa bias counts and the quantiles are all read from that sorted copy.
    """
    distribution = np.asarray(distribution, dtype=float)
    n_labels = distribution.shape[1]
    estimate = np.broadcast_to(np.asarray(estimate, dtype=float), (n_labels,))
    alpha = (1.0 - confidence_level) / 2.0
    low = np.full(n_labels, np.nan)
    high = np.full(n_labels, np.nan)
    se = np.full(n_labels, np.nan)
    degenerate = np.zeros(n_labels, dtype=bool)
    if method == "bca":
        if jackknife is None:
            raise ValueError("method='bca' needs the jackknife distribution")
        accel = _bca_acceleration(np.asarray(jackknife, dtype=float))
        z_lo, z_hi = ndtri(alpha), ndtri(1.0 - alpha)
    if distribution.shape[0] == 0:
        return low, high, degenerate, se
    for a in range(0, n_labels, _CHUNK_COLUMNS):
        b = min(n_labels, a + _CHUNK_COLUMNS)
        block, n_valid = _sorted_rows(distribution[:, a:b])
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # fewer than 2 valid resamples
            if (n_valid < block.shape[1]).any():
                se[a:b] = np.nanstd(block, axis=1, ddof=1)
            else:
                se[a:b] = np.std(block, axis=1, ddof=1)
        q_low = np.full(b - a, alpha)
        q_high = np.full(b - a, 1.0 - alpha)
        if method == "bca":
            est = estimate[a:b, None]
            # comparisons with NaN are False: NaN resamples never count as below the estimate
            z0 = _bca_bias(
                np.count_nonzero(block < est, axis=1),
                np.count_nonzero(block <= est, axis=1),
                n_valid,
            )
            acc = accel[a:b]
            with np.errstate(invalid="ignore", divide="ignore"):
                adj_lo = ndtr(z0 + (z0 + z_lo) / (1.0 - acc * (z0 + z_lo)))
                adj_hi = ndtr(z0 + (z0 + z_hi) / (1.0 - acc * (z0 + z_hi)))
            bad = ~(np.isfinite(z0) & np.isfinite(acc) & np.isfinite(adj_lo) & np.isfinite(adj_hi))
            degenerate[a:b] = bad
            q_low = np.where(bad, q_low, adj_lo)
            q_high = np.where(bad, q_high, adj_hi)
        low[a:b] = _sorted_quantile(block, n_valid, q_low)
        high[a:b] = _sorted_quantile(block, n_valid, q_high)
    if method == "basic":
        low, high = 2.0 * estimate - high, 2.0 * estimate - low
    return low, high, degenerate & ~np.isnan(estimate), se


def confidence_interval(
    distribution: np.ndarray,
    estimate: np.ndarray,
    *,
    method: Method,
    confidence_level: float,
    jackknife: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sided intervals per column of a bootstrap distribution (n_resamples, L).

    Returns ``(low, high, bca_degenerate)``; ``bca_degenerate`` marks columns where BCa fell back
    to the percentile interval (always False for other methods).
    """
    low, high, degenerate, _ = _interval_summary(
        distribution,
        estimate,
        method=method,
        confidence_level=confidence_level,
        jackknife=jackknife,
    )
    return low, high, degenerate


def _warn_degenerate(n_degenerate: int, n_total: int, which: Sequence[str] = ()) -> None:
    """Warn that BCa fell back to the percentile interval; ``which`` names some of them."""
    if n_degenerate:
        shown = "; ".join(which[:3])
        named = ("" if not len(which) else f": {shown}" if n_degenerate <= len(which[:3])
                 else f", e.g. {shown}, ...")  # fmt: skip
        warn(
            f"BCa is degenerate for {n_degenerate} of {n_total} statistics{named} (resampled "
            "values all on one side of the estimate, or no jackknife spread); the percentile "
            "interval is used for them (column 'method' of to_frame() says which)",
            AttunestatsWarning,
        )


def _check_common(method: str, n_resamples: Any, confidence_level: Any) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer):
        raise TypeError(f"n_resamples must be an int; got {n_resamples!r}")
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2; got {n_resamples}")
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, float | int):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
