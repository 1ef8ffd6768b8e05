"""A cheap simulator of conversation-level metric values with known true correlation, and power.

The full release simulator (:mod:`attunestats.release.simulate`) goes through files, the loader and
every metric; here the conversation-level values are drawn directly, so that size, power and
coverage studies over hundreds of simulated benchmarks run in seconds. Everything produced here is
simulated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng
from attunestats.independence._kernels import correlation_matrix, pair_indices, permuted_stack
from attunestats.independence._matrix import check_int, check_level, label_frame


def _correlation(value: Any, n_metrics: int) -> np.ndarray:
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        r = np.full((n_metrics, n_metrics), float(value))
        np.fill_diagonal(r, 1.0)
    else:
        r = np.asarray(value, dtype=float)
        if r.shape != (n_metrics, n_metrics):
            raise ValueError(
                f"correlation must be a number or a {n_metrics} x {n_metrics} matrix; "
                f"got shape {r.shape}"
            )
    if not np.allclose(r, r.T) or not np.allclose(np.diag(r), 1.0):
        raise ValueError("correlation must be symmetric with unit diagonal")
    if np.linalg.eigvalsh(r).min() < -1e-10:
        raise ValueError(f"correlation must be positive semi-definite; got {r.tolist()}")
    return r


def _root(r: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh(r)
    return vectors * np.sqrt(np.clip(values, 0.0, None))


@dataclass(frozen=True)
class SimulatedValues:
    """Conversation-level values with planted truth.

    Attributes
    ----------
    values : numpy.ndarray, shape (C, M, K)
    true_means : numpy.ndarray, shape (M, K)
        Each model's expected score on each metric (the true scores).
    population_correlation : numpy.ndarray, shape (K, K)
        Correlation of true scores in the population of models.
    noise_sd : numpy.ndarray, shape (K,)
        Sd of a conversation-level value around the model's true score (own part).
    """

    values: np.ndarray = field(repr=False)
    true_means: np.ndarray
    population_correlation: np.ndarray
    noise_sd: np.ndarray
    reliability: np.ndarray

    @property
    def sample_correlation(self) -> np.ndarray:
        """Pearson correlation of these models' true scores (target of the sample interval)."""
        return np.corrcoef(self.true_means, rowvar=False)


def simulate_metric_values(
    *,
    n_models: int = 11,
    n_conversations: int = 200,
    n_metrics: int = 5,
    correlation: Any = 0.0,
    reliability: Any = 0.8,
    skill_sd: float = 1.0,
    conversation_sd: float = 1.0,
    noise_correlation: float = 0.0,
    rng: RNGLike = None,
) -> SimulatedValues:
    """Draw conversation x model x metric values with a set true correlation.

    ``value[c, m, k] = skill_sd * z[m, k] + conversation_sd * w[c, k] + noise_sd_k * e[c, m, k]``
    with ``z[m] ~ N(0, R)`` (``R`` from ``correlation``), ``w`` a conversation effect shared by all
    models (it does not change rankings), and ``e[c, m] ~ N(0, Q)``, ``Q`` with off-diagonal
    ``noise_correlation`` (noise shared by two metrics of one model). ``noise_sd_k`` is set so
    that the model means over C conversations have the given ``reliability``
    ``skill_sd^2 / (skill_sd^2 + noise_sd_k^2 / C)``.

    Parameters
    ----------
    n_models, n_conversations, n_metrics : int
    correlation : float or (K, K) array
        True correlation of the skills across metrics.
    reliability : float or sequence of K floats in (0, 1)
    skill_sd, conversation_sd : float
    noise_correlation : float
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    SimulatedValues
    """
    M = check_int("n_models", n_models, 4)
    C = check_int("n_conversations", n_conversations, 2)
    K = check_int("n_metrics", n_metrics, 2)
    R = _correlation(correlation, K)
    rel = np.broadcast_to(np.asarray(reliability, dtype=float), (K,)).copy()
    if np.any((rel <= 0) | (rel >= 1)):
        raise ValueError(f"reliability must lie in (0, 1); got {reliability!r}")
    Q = _correlation(noise_correlation, K)
    generator = check_rng(rng)
    noise_sd = skill_sd * np.sqrt(C * (1.0 - rel) / rel)
    z = generator.standard_normal((M, K)) @ _root(R).T
    true_means = skill_sd * z
    w = conversation_sd * generator.standard_normal((C, 1, K))
    e = (generator.standard_normal((C, M, K)) @ _root(Q).T) * noise_sd
    values = true_means[None, :, :] + w + e
    return SimulatedValues(values, true_means, R, noise_sd, rel)


@dataclass(frozen=True, repr=False)
class PowerResult(ResultMixin):
    """Rejection rates of the independence tests over simulated benchmarks.

    ``table`` has one row per true correlation: ``reject_global`` (global permutation test),
    ``reject_pair`` (share of metric pairs whose exact Kendall test rejects, unadjusted),
    ``reject_any_pair_holm`` (any pair after Holm), each with its Monte Carlo standard error.
    """

    _title = "Power of the independence tests (simulated)"

    table: pd.DataFrame
    alpha: float
    n_simulations: int
    simulated: bool = True
    details: dict[str, Any] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The table (simulated)."""
        return label_frame(self.table.copy(), True)


def independence_power(
    correlations: Any = (0.0, 0.3, 0.5, 0.7),
    *,
    n_models: int = 11,
    n_metrics: int = 5,
    reliability: float = 0.9,
    n_simulations: int = 400,
    n_permutations: int = 999,
    method: str = "kendall",
    global_statistic_name: str = "sum_sq",
    alpha: float = 0.05,
    rng: RNGLike = None,
) -> PowerResult:
    """Size and power of the global and pairwise independence tests by simulation.

    Each simulated benchmark draws true skills with correlation ``r`` between every pair of
    metrics (:func:`simulate_metric_values`), observed model means with the given reliability,
    and runs the tests of :func:`rank_correlations` on the means (the tests only use the means,
    so the conversation values are not drawn: the means are true scores plus normal noise of the
    variance implied by ``reliability``).

    Returns
    -------
    PowerResult
    """
    from scipy import stats

    from attunestats.independence.correlation import global_statistic, permutation_pvalue
    from attunestats.inference.compare import adjust_pvalues

    M = check_int("n_models", n_models, 4)
    K = check_int("n_metrics", n_metrics, 2)
    n_sim = check_int("n_simulations", n_simulations, 1)
    n_perm = check_int("n_permutations", n_permutations, 99)
    alpha = check_level("alpha", alpha)
    rel = float(reliability)
    if not 0 < rel <= 1:
        raise ValueError(f"reliability must lie in (0, 1]; got {reliability!r}")
    generator = check_rng(rng)
    ia, ib = pair_indices(K)
    rows = []
    details: dict[str, Any] = {}
    for r in np.atleast_1d(np.asarray(correlations, dtype=float)):
        R = _correlation(float(r), K)
        root = _root(R).T
        g_p = np.empty(n_sim)
        pair_p = np.empty((n_sim, len(ia)))
        for s in range(n_sim):
            true = generator.standard_normal((M, K)) @ root
            noise = generator.standard_normal((M, K)) * np.sqrt((1.0 - rel) / rel)
            est = true + noise
            obs = correlation_matrix(est, method)[ia, ib]
            null = correlation_matrix(permuted_stack(est, n_perm, generator), method)[:, ia, ib]
            g_obs = global_statistic(obs, global_statistic_name)
            g_null = global_statistic(null, global_statistic_name)
            g_p[s] = (1.0 + np.sum(g_null >= g_obs - 1e-12)) / (1.0 + n_perm)
            if method == "kendall":
                pair_p[s] = [
                    stats.kendalltau(est[:, a], est[:, b], method="exact").pvalue
                    for a, b in zip(ia, ib, strict=True)
                ]
            else:
                pair_p[s] = permutation_pvalue(obs, null)
        holm_any = np.array([np.any(adjust_pvalues(p, method="holm") < alpha) for p in pair_p])
        rej_g = float(np.mean(g_p < alpha))
        rej_p = float(np.mean(pair_p < alpha))
        rows.append(
            {
                "true_correlation": float(r),
                "n_models": M,
                "n_metrics": K,
                "reliability": rel,
                "reject_global": rej_g,
                "se_global": float(np.sqrt(rej_g * (1 - rej_g) / n_sim)),
                "reject_pair": rej_p,
                "se_pair": float(np.sqrt(rej_p * (1 - rej_p) / n_sim)),
                "reject_any_pair_holm": float(np.mean(holm_any)),
                "alpha": alpha,
                "method": method,
                "global_statistic": global_statistic_name,
                "n_simulations": n_sim,
                "n_permutations": n_perm,
                "simulated": True,
            }
        )
        details[f"{r:g}"] = {"global_p": g_p, "pair_p": pair_p}
    return PowerResult(pd.DataFrame(rows), alpha, n_sim, True, details)
