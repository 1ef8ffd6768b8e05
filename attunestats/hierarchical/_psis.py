"""PSIS-LOO of many observed cells at once: ArviZ's algorithm, vectorised over observations.

``arviz.loo`` (arviz-stats 1.x) runs Pareto-smoothed importance sampling (Vehtari, Simpson,
Gelman, Yao and Gabry 2024, JMLR 25(72)) and the pointwise elpd in a Python loop over the
observations: for the ~15,800 cells of the paper-sized behaviour model that is 6.6-7.6 s per
fit (300-1,000 draws; about half Pareto fits, half two ``logsumexp`` calls per cell), most of the
structure comparison's time in a fast build. :func:`loo` does the same arithmetic on whole arrays, cells in columns:
the same tail length, the same generalized Pareto fit (Zhang and Stephens 2009 with ArviZ's
weakly informative prior on the shape), the same smoothing, truncation and normalisation, then
ArviZ's own :class:`arviz_stats.ELPDDataLOO` and ``loo_summary``, so ``arviz.compare`` takes the
result as it takes ``arviz.loo``'s. The tests compare every output with ``arviz.loo``
(tests/hierarchical/test_checks.py); ``benchmarks/bench_loo.py`` times both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import logsumexp

from attunestats.errors import warn
from attunestats.hierarchical._diagnostics import ess_mean

#: Columns (cells) per block of the generalized Pareto fit (memory: grid x block x tail doubles).
_BLOCK = 2048
_PRIOR_BS = 3.0
_PRIOR_K = 10.0


def _tail_length(n_samples: int, r_eff: float) -> int:
    """ArviZ's number of tail draws of the right tail (``_get_ps_tails``)."""
    if n_samples * r_eff > 225:
        return int(np.floor(3 * (n_samples / r_eff) ** 0.5))
    return int(np.floor(n_samples / 5))


def _gpd_fit(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shape and scale of a generalized Pareto fit to each column of ``x`` (sorted ascending,
    >= 0; shape (tail, cells)): ArviZ's ``_gpdfit`` column by column."""
    n, cells = x.shape
    m = 30 + int(n**0.5)
    kappa = np.full(cells, np.nan)
    sigma = np.full(cells, np.nan)
    xstar = x[int((n / 4 + 0.5) - 1)]
    ok = xstar > x[0]  # else far from a generalized Pareto: nan, no smoothing (as ArviZ)
    if not ok.any():
        return kappa, sigma
    xs, xo = xstar[ok], x[:, ok]
    grid = 1 - np.sqrt(m / (np.arange(1, m + 1, dtype=float) - 0.5))
    b = grid[:, None] / (_PRIOR_BS * xs[None, :]) + 1 / xo[-1][None, :]  # (m, cells)
    k = np.empty_like(b)
    for j in range(0, b.shape[1], _BLOCK):
        s = slice(j, j + _BLOCK)
        k[:, s] = np.log1p(-b[:, s, None] * xo.T[None, s, :]).mean(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        len_scale = n * (np.log(-b / k) - k - 1)
        w = np.exp(len_scale - logsumexp(len_scale, axis=0))
        w = np.where(w >= 10 * np.finfo(float).eps, w, 0.0)  # nan (failed grid points) too
        total = w.sum(axis=0)
        # ArviZ drops the negligible grid points; none left: an empty sum, b_post = 0
        b_post = np.where(total > 0, (b * w).sum(axis=0) / np.where(total > 0, total, 1.0), 0.0)
        kap = np.log1p(-b_post[None, :] * xo).mean(axis=0)
        sig = -kap / b_post
    kap = (n * kap + _PRIOR_K * 0.5) / (n + _PRIOR_K)
    bad = np.isnan(kap)
    kap[bad], sig[bad] = np.inf, np.nan
    kappa[ok], sigma[ok] = kap, sig
    return kappa, sigma


def psis_log_weights(log_lik: np.ndarray, r_eff: float) -> tuple[np.ndarray, np.ndarray]:
    """Pareto-smoothed, normalised log importance weights of leaving out each cell.

    ``log_lik`` has shape (draws, cells) (chains stacked). Returns ``(log_weights, pareto_k)``
    of shapes (draws, cells) and (cells,). Raises ``ValueError("All tail values are the same")``
    as ArviZ does when a cell's largest ratios are all equal (e.g. draws repeated by a stuck
    sampler).
    """
    ll = np.asarray(log_lik, dtype=float)
    n_samples, cells = ll.shape
    n_tail = _tail_length(n_samples, float(r_eff))
    if n_tail < 5:
        raise ValueError("n_draws_tail must be at least 5")
    lw = -ll
    lw = lw - lw.max(axis=0)
    order = np.argsort(lw, axis=0)
    tail_idx = order[n_samples - n_tail :]
    tail = np.take_along_axis(lw, tail_idx, axis=0)  # ascending per column
    cutoff = np.take_along_axis(lw, order[n_samples - n_tail - 1][None, :], axis=0)[0]
    max_tail, min_tail = tail[-1], tail[0]
    if np.any(np.abs(max_tail - min_tail) < np.finfo(float).tiny):
        raise ValueError("All tail values are the same")
    mu = np.exp(cutoff)
    khat, sigma = _gpd_fit(np.exp(tail) - mu[None, :])
    smooth = np.isfinite(khat)
    if smooth.any():
        p = (np.arange(0.5, n_tail) / n_tail)[:, None]
        k, s, c = khat[smooth][None, :], sigma[smooth][None, :], mu[smooth][None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            k_safe = np.where(k == 0, 1.0, k)
            q = np.where(k == 0, c - s * np.log1p(-p), c + s * np.expm1(-k * np.log1p(-p)) / k_safe)
            q = np.where(s <= 0, np.nan, q)
            smoothed = np.log(q)
        mt = max_tail[smooth][None, :]
        smoothed = np.where(smoothed > mt, mt, smoothed)
        cols = np.flatnonzero(smooth)
        lw[tail_idx[:, cols], cols[None, :]] = smoothed
    lw -= logsumexp(lw, axis=0)
    return lw, khat


def loo(data: Any, *, var_name: str = "y", label: str = "") -> Any:
    """PSIS-LOO of ``data`` (a DataTree with ``posterior`` and ``log_likelihood[var_name]`` over
    ``chain, draw`` and one observation dimension), as ``arviz.loo(data, var_name=...)``
    returns it (:class:`arviz_stats.ELPDDataLOO`, pointwise values included). ``label`` names
    the fit in the warning about high Pareto k."""
    import xarray as xr
    from arviz_stats import ELPDDataLOO

    da = data["log_likelihood"][var_name]
    obs = [d for d in da.dims if d not in ("chain", "draw")]
    if len(obs) != 1:
        raise ValueError(f"log_likelihood[{var_name!r}] must have one observation dimension")
    da = da.transpose("chain", "draw", obs[0])
    n_chain, n_draw, cells = da.shape
    n_samples = n_chain * n_draw
    ll = np.asarray(da.values, dtype=float).reshape(n_samples, cells)
    if n_chain == 1:
        r_eff = 1.0
    else:  # ArviZ's r_eff: mean ESS ("mean" method) over every posterior element / draws
        post = data["posterior"].to_dataset()
        ess = [
            ess_mean(a.reshape(a.shape[0], a.shape[1], -1))
            for a in (post[v].transpose("chain", "draw", ...).values for v in post.data_vars)
        ]
        r_eff = float(np.hstack(ess).mean()) / n_samples
    with np.errstate(all="ignore"):  # degenerate cells give NaN, as in ArviZ, without noise
        lw, khat = psis_log_weights(ll, r_eff)
    elpd_i = logsumexp(lw + ll, axis=0)
    lppd_i = logsumexp(ll, axis=0, b=1.0 / n_samples)
    coords = {obs[0]: da[obs[0]].values} if obs[0] in da.coords else {}
    elpd_da = xr.DataArray(elpd_i, dims=obs, coords=coords)
    p_da = xr.DataArray(lppd_i - elpd_i, dims=obs, coords=coords)
    k_da = xr.DataArray(khat, dims=obs, coords=coords)
    lw_da = xr.DataArray(lw.reshape(n_chain, n_draw, cells), dims=da.dims, coords=da.coords)
    elpd, se, p_loo, _ = elpd_da.azstats.loo_summary(p_da)
    good_k = min(1 - 1 / np.log10(n_samples), 0.7) if n_samples > 1 else 0.7
    high_k = bool(np.any(khat > good_k))
    if high_k:
        n_high = int(np.sum(khat > good_k))
        warn(
            f"{label + ': ' if label else ''}PSIS-LOO: the estimated Pareto shape k is greater "
            f"than {good_k:.2f} for {n_high} of {cells} observations (as ArviZ warns): importance "
            "sampling is unreliable there (influential observations, or a model not robust to "
            "them), so treat this fit's elpd and its comparisons with caution",
            UserWarning,
        )
    return ELPDDataLOO(
        elpd=elpd, se=se, p=p_loo, n_samples=n_samples, n_data_points=cells, scale="log",
        warning=high_k, good_k=good_k, elpd_i=elpd_da, pareto_k=k_da, approx_posterior=False,
        log_weights=lw_da,
    )  # fmt: skip
