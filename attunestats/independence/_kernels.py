"""Vectorised kernels: correlation matrices, permutations, Kendall's W, first-component share.

Every kernel takes a stack of model x metric matrices ``X`` of shape ``(..., M, K)`` (leading axes:
bootstrap resamples or permutations) and works on all of them at once.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

CORRELATION_METHODS = ("kendall", "spearman", "pearson")

_BATCH_ELEMENTS = 4_000_000  # float64 elements per block of the (R, pairs, K) sign array


def pair_indices(n_metrics: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the metric pairs (a < b), in the order of ``np.triu_indices``."""
    return np.triu_indices(n_metrics, 1)


def _normalise_gram(gram: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.diagonal(gram, axis1=-2, axis2=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = gram / (d[..., :, None] * d[..., None, :])
    return out


def kendall_matrix(X: np.ndarray) -> np.ndarray:
    """Kendall tau-b between every pair of columns, for each leading index: (..., K, K).

    With ``s_p,k = sign(x_ik - x_jk)`` over the model pairs ``p = (i < j)``, tau-b is
    ``sum_p s_pk s_pl / sqrt(sum_p s_pk^2 sum_p s_pl^2)``: the numerator is concordant minus
    discordant pairs and ``sum_p s_pk^2`` counts the pairs not tied on ``k`` (Kendall 1945).
    """
    X = np.asarray(X, dtype=float)
    lead = X.shape[:-2]
    M, K = X.shape[-2:]
    flat = X.reshape((-1, M, K))
    iu, ju = np.triu_indices(M, 1)
    out = np.empty((flat.shape[0], K, K))
    step = max(1, _BATCH_ELEMENTS // max(1, len(iu) * K))
    for start in range(0, flat.shape[0], step):
        block = flat[start : start + step]
        s = np.sign(block[:, iu, :] - block[:, ju, :])
        out[start : start + step] = _normalise_gram(np.einsum("rpk,rpl->rkl", s, s))
    return out.reshape(lead + (K, K))


def pearson_matrix(X: np.ndarray) -> np.ndarray:
    """Pearson correlation between columns across rows (axis -2), for each leading index."""
    X = np.asarray(X, dtype=float)
    Xc = X - X.mean(axis=-2, keepdims=True)
    return _normalise_gram(np.einsum("...mk,...ml->...kl", Xc, Xc))


def spearman_matrix(X: np.ndarray) -> np.ndarray:
    """Spearman correlation (Pearson of mid-ranks) between columns, for each leading index."""
    X = np.asarray(X, dtype=float)
    ranks = stats.rankdata(X, axis=-2, method="average", nan_policy="propagate")
    return pearson_matrix(ranks)


def correlation_matrix(X: np.ndarray, method: str) -> np.ndarray:
    """Kendall tau-b, Spearman or Pearson correlation matrices of a stack of matrices."""
    if method == "kendall":
        return kendall_matrix(X)
    if method == "spearman":
        return spearman_matrix(X)
    if method == "pearson":
        return pearson_matrix(X)
    raise ValueError(f"method must be one of {CORRELATION_METHODS}; got {method!r}")


def permuted_stack(X: np.ndarray, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """``n_permutations`` copies of ``X`` (M, K) with columns 1..K-1 permuted independently.

    Column 0 keeps its order: permuting every column relative to the first gives the joint
    permutation null of mutual independence (the distribution of any statistic of the matrix
    that is invariant to a common relabelling of the rows).
    """
    M, K = X.shape
    order = np.tile(np.arange(M), (n_permutations, K, 1))
    order = rng.permuted(order, axis=-1)
    order[:, 0, :] = np.arange(M)
    return X[order.transpose(0, 2, 1), np.arange(K)]


def kendall_w_stack(X: np.ndarray) -> np.ndarray:
    """Kendall's W of the metrics (raters) ranking the models (units), tie-corrected: (...,).

    ``W = 12 S / (K^2 (M^3 - M) - K T)`` with ``S`` the sum of squared deviations of the rank sums
    and ``T = sum over metrics and tie groups of (t^3 - t)`` (Kendall & Babington Smith 1939).
    """
    X = np.asarray(X, dtype=float)
    M, K = X.shape[-2:]
    ranks = stats.rankdata(X, axis=-2, method="average")
    rank_sums = ranks.sum(axis=-1)  # (..., M)
    s = ((rank_sums - K * (M + 1) / 2.0) ** 2).sum(axis=-1)
    equal = X[..., :, None, :] == X[..., None, :, :]  # (..., M, M, K)
    counts = equal.sum(axis=-2)  # (..., M, K): size of each value's tie group
    ties = (counts.astype(float) ** 2 - 1.0).sum(axis=(-2, -1))
    denom = K**2 * (M**3 - M) - K * ties
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, 12.0 * s / denom, np.nan)


def first_component_share(corr: np.ndarray) -> np.ndarray:
    """Share of the largest eigenvalue in the trace of each correlation matrix: (...,)."""
    corr = np.asarray(corr, dtype=float)
    bad = ~np.isfinite(corr).all(axis=(-2, -1))
    safe = np.where(bad[..., None, None], np.eye(corr.shape[-1]), corr)
    values = np.linalg.eigvalsh(safe)
    share = values[..., -1] / np.trace(safe, axis1=-2, axis2=-1)
    return np.where(bad, np.nan, share)


def psd_projection(matrix: np.ndarray) -> np.ndarray:
    """Nearest (Frobenius) positive semi-definite matrix: negative eigenvalues set to 0."""
    sym = (matrix + matrix.T) / 2.0
    values, vectors = np.linalg.eigh(sym)
    return (vectors * np.clip(values, 0.0, None)) @ vectors.T


def sym_power(matrix: np.ndarray, power: float, *, rtol: float = 1e-10) -> np.ndarray:
    """``matrix ** power`` of a symmetric PSD matrix; eigenvalues below ``rtol * max`` count as 0
    (a pseudo-inverse for negative powers)."""
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2.0)
    cut = rtol * max(float(values.max()), 0.0)
    keep = values > cut
    scaled = np.zeros_like(values)
    scaled[keep] = values[keep] ** power
    return (vectors * scaled) @ vectors.T


def constant_metrics(estimate: np.ndarray, *, rtol: float = 1e-9) -> np.ndarray:
    """Metrics on which every model has the same estimate (up to rounding): (K,) bool.

    Their between-model variance is 0 in exact arithmetic; computed, it is rounding noise (for
    example ``1e-33``) whose ratio to an equally tiny noise variance would give any reliability.
    A metric counts as constant when its range across models is at most ``rtol`` times its
    largest magnitude (at least 1).

    Examples
    --------
    >>> est = np.array([[0.1, 0.7], [0.5, 0.7 + 1e-15], [0.9, 0.7]])  # 3 models x 2 metrics
    >>> constant_metrics(est).tolist()
    [False, True]
    """
    est = np.asarray(estimate, dtype=float)
    scale = np.maximum(np.nanmax(np.abs(est), axis=0, initial=0.0), 1.0)
    return np.ptp(est, axis=0) <= rtol * scale


def corr_from_cov(cov: np.ndarray) -> np.ndarray:
    """Correlations from covariance matrices (..., K, K), extended honestly past the bounds.

    Where both variances are positive the value is ``c_ab / sqrt(c_aa c_bb)`` (it may exceed 1 in
    magnitude when ``cov`` is not positive semi-definite). Where a variance is zero or negative
    the correlation is undefined; it is set to ``+inf``/``-inf`` with the sign of ``c_ab`` (the
    limit as the variance goes to 0 from above; ``nan`` if ``c_ab`` is 0), so that quantiles of a
    bootstrap distribution stay meaningful before clamping to [-1, 1].
    """
    d = np.diagonal(cov, axis1=-2, axis2=-1)
    pos = d > 0
    both = pos[..., :, None] & pos[..., None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(np.where(both, d[..., :, None] * d[..., None, :], np.nan))
    undefined = np.where(cov > 0, np.inf, np.where(cov < 0, -np.inf, np.nan))
    r = np.where(both, r, undefined)
    K = cov.shape[-1]
    idx = np.arange(K)
    r[..., idx, idx] = np.where(pos, 1.0, np.nan)
    return r
