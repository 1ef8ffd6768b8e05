"""Rank correlations between metrics across models: intervals, pair tests and a global test."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.independence._kernels import (
    CORRELATION_METHODS,
    correlation_matrix,
    pair_indices,
    permuted_stack,
)
from attunestats.independence._matrix import (
    MetricMatrix,
    check_int,
    check_level,
    check_matrix,
    label_frame,
)
from attunestats.inference.bootstrap import confidence_interval
from attunestats.inference.compare import adjust_pvalues

#: Corrections of the pairwise permutation tests (their p-values are not t statistics, so
#: max-|t| does not apply).
CORRECTIONS = ("holm", "bh", "none")

GLOBAL_STATISTICS = ("sum_sq", "max_abs")
_TOL = 1e-12  # ties of floating statistics in permutation counts


def permutation_pvalue(observed: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Two-sided Monte Carlo permutation p-values ``(1 + #{|T*| >= |T|}) / (1 + P)`` per column.

    ``null`` is (P, L), ``observed`` (L,). The ``+1`` counts the observed arrangement, so the
    test is exact at level ``alpha`` for any number of permutations (Phipson & Smyth 2010).
    NaN where the observed statistic is undefined (e.g. a metric every model scores the same):
    no test, rather than the smallest p-value.
    """
    observed = np.asarray(observed, dtype=float)
    extreme = np.abs(null) >= np.abs(observed) - _TOL
    p = (1.0 + extreme.sum(axis=0)) / (1.0 + null.shape[0])
    return np.where(np.isnan(observed), np.nan, p)


def global_statistic(pair_values: np.ndarray, statistic: str) -> np.ndarray:
    """Sum of squared pair correlations or their largest absolute value (last axis = pairs)."""
    if statistic == "sum_sq":
        return np.sum(pair_values**2, axis=-1)
    if statistic == "max_abs":
        return np.max(np.abs(pair_values), axis=-1)
    raise ValueError(f"global_statistic must be one of {GLOBAL_STATISTICS}; got {statistic!r}")


@dataclass(frozen=True)
class GlobalTest:
    """Permutation test of mutual independence of the metrics across models.

    ``statistic_name`` is ``"sum_sq"`` (sum over metric pairs of the squared correlation: power
    against many moderate correlations) or ``"max_abs"`` (largest absolute correlation: power
    against one strong pair). The null distribution permutes the model labels of every metric
    independently (relative to the first), which is exact under the hypothesis that the metric
    columns are independent and the models exchangeable; ``pvalue = (1 + #{T* >= T}) / (1 + P)``.
    """

    statistic_name: str
    method: str
    statistic: float
    pvalue: float
    n_permutations: int
    n_models: int
    n_metrics: int
    seed: int | str | None
    simulated: bool
    null_distribution: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row: the statistic, its p-value and the settings."""
        frame = pd.DataFrame(
            [
                {
                    "test": f"global independence ({self.statistic_name} of {self.method})",
                    "statistic_name": self.statistic_name,
                    "method": self.method,
                    "statistic": self.statistic,
                    "pvalue": self.pvalue,
                    "null_mean": float(np.mean(self.null_distribution)),
                    "n_permutations": self.n_permutations,
                    "n_models": self.n_models,
                    "n_metrics": self.n_metrics,
                    "seed": self.seed,
                    "simulated": self.simulated,
                }
            ]
        )
        return label_frame(frame, self.simulated)


@dataclass(frozen=True, repr=False)
class CorrelationResult(ResultMixin):
    """Correlations between every pair of metrics across models.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per metric pair: ``capability_a, capability_b, metric_a, metric_b, method,
        statistic`` (correlation across models), ``ci_low, ci_high, standard_error`` (conversation
        bootstrap: rankings recomputed inside each resample; conditional on these models),
        ``pvalue`` with ``pvalue_method`` (``"exact"``: scipy's exact Kendall distribution, used
        when neither metric has tied models; otherwise ``"permutation"``), ``pvalue_adjusted``,
        ``correction``, ``significant`` (adjusted p < 1 - confidence level) and the settings.
    global_test : GlobalTest
    matrix, ci_low_matrix, ci_high_matrix : pandas.DataFrame
        K x K tables labelled by capability.
    bootstrap_distribution : numpy.ndarray, shape (B, K, K)
    """

    _title = "Rank correlations between metrics across predictors"

    pairs: pd.DataFrame
    global_test: GlobalTest
    method: str
    correction: str
    confidence_level: float
    simulated: bool
    matrix: pd.DataFrame = field(repr=False)
    ci_low_matrix: pd.DataFrame = field(repr=False)
    ci_high_matrix: pd.DataFrame = field(repr=False)
    bootstrap_distribution: np.ndarray = field(repr=False)
    null_distribution: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The pair table."""
        return label_frame(self.pairs.copy(), self.simulated)


def _exact_kendall_pvalue(x: np.ndarray, y: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.kendalltau(x, y, method="exact").pvalue)


def rank_correlations(
    data: MetricMatrix,
    *,
    correction: Literal["holm", "bh", "none"],
    method: Literal["kendall", "spearman", "pearson"] = "kendall",
    global_statistic_name: Literal["sum_sq", "max_abs"] = "sum_sq",
    n_permutations: int = 10_000,
    confidence_level: float | None = None,
    rng: RNGLike = None,
) -> CorrelationResult:
    """Kendall tau-b (or Spearman / Pearson) between metrics across models, with tests.

    Parameters
    ----------
    data : MetricMatrix
        From :func:`capability_matrix` or :func:`metric_matrix`.
    correction : {"holm", "bh", "none"}
        Multiplicity correction of the pair p-values over the ``K (K - 1) / 2`` pairs; required
        and echoed in every row (:func:`attunestats.inference.compare.adjust_pvalues`).
    method : {"kendall", "spearman", "pearson"}
    global_statistic_name : {"sum_sq", "max_abs"}
        Statistic of the global test (see :class:`GlobalTest`).
    n_permutations : int
        Permutations of the model labels (shared by the pair and global tests).
    confidence_level : float, optional
        Interval level and ``1 - alpha`` of the tests (default: the matrix's).
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    CorrelationResult

    Notes
    -----
    Two different questions are answered. The bootstrap interval resamples conversations with
    the models fixed: it says how much the correlation *among these models' observed scores*
    moves when other conversations are drawn (and is pulled toward 0 by measurement noise; see
    :func:`noise_corrected_correlations`). The p-values test whether the metrics are independent
    in the *population of models* the models are a sample from (exchangeable models), which at
    M = 11 has little power; see the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from attunestats.independence import metric_matrix, rank_correlations
    >>> values = np.random.default_rng(0).normal(size=(50, 11, 3))
    >>> res = rank_correlations(metric_matrix(values, n_resamples=200, rng=1),
    ...                         correction="holm", n_permutations=999, rng=2)
    >>> res.pairs[["metric_a", "metric_b", "pvalue_method"]].shape
    (3, 3)
    """
    data = check_matrix(data)
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    if method not in CORRELATION_METHODS:
        raise ValueError(f"method must be one of {CORRELATION_METHODS}; got {method!r}")
    if global_statistic_name not in GLOBAL_STATISTICS:
        raise ValueError(
            f"global_statistic_name must be one of {GLOBAL_STATISTICS}; got "
            f"{global_statistic_name!r}"
        )
    n_permutations = check_int("n_permutations", n_permutations, 99)
    level = data.confidence_level if confidence_level is None else check_level(
        "confidence_level", confidence_level)  # fmt: skip
    generator = check_rng(rng)

    est = data.estimate
    M, K = est.shape
    ia, ib = pair_indices(K)
    observed = correlation_matrix(est, method)
    boot = correlation_matrix(data.bootstrap_distribution, method)
    jack = (
        correlation_matrix(data.jackknife_distribution, method)[:, ia, ib]
        if data.method == "bca" and data.jackknife_distribution is not None
        else None
    )
    obs_pairs = observed[ia, ib]
    boot_pairs = boot[:, ia, ib]
    low, high, _ = confidence_interval(
        boot_pairs, obs_pairs, method=data.method, confidence_level=level,  # type: ignore[arg-type]
        jackknife=jack,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(boot_pairs, axis=0, ddof=1)

    permuted = permuted_stack(est, n_permutations, generator)
    null = correlation_matrix(permuted, method)[:, ia, ib]  # (P, pairs)
    perm_p = permutation_pvalue(obs_pairs, null)
    pvalues = perm_p.copy()
    p_method = np.full(len(ia), "permutation", dtype=object)
    if method == "kendall":
        no_ties = np.array([len(np.unique(est[:, k])) == M for k in range(K)])
        for j, (a, b) in enumerate(zip(ia, ib, strict=True)):
            if no_ties[a] and no_ties[b]:
                pvalues[j] = _exact_kendall_pvalue(est[:, a], est[:, b])
                p_method[j] = "exact"
    adjusted = adjust_pvalues(pvalues, method=correction)

    # the global test is over the pairs with a defined correlation (a constant metric has none)
    defined = np.isfinite(obs_pairs)
    if defined.any():
        g_obs = float(global_statistic(obs_pairs[defined], global_statistic_name))
        g_null = global_statistic(null[:, defined], global_statistic_name)
        g_p = float((1.0 + np.sum(g_null >= g_obs - _TOL)) / (1.0 + n_permutations))
    else:
        g_obs, g_null, g_p = np.nan, np.full(n_permutations, np.nan), np.nan
    seed = seed_record(rng)
    gtest = GlobalTest(
        statistic_name=global_statistic_name,
        method=method,
        statistic=g_obs,
        pvalue=g_p,
        n_permutations=n_permutations,
        n_models=M,
        n_metrics=K,
        seed=seed,
        simulated=data.simulated,
        null_distribution=g_null,
    )
    labels = list(data.labels)
    pairs = pd.DataFrame(
        {
            "capability_a": [data.capabilities[a] for a in ia],
            "capability_b": [data.capabilities[b] for b in ib],
            "metric_a": [data.metrics[a] for a in ia],
            "metric_b": [data.metrics[b] for b in ib],
            "method": method,
            "statistic": obs_pairs,
            "ci_low": low,
            "ci_high": high,
            "standard_error": se,
            "interval": f"{data.plan.unit} bootstrap ({data.method}), models fixed",
            "pvalue": pvalues,
            "pvalue_method": p_method,
            "pvalue_permutation": perm_p,
            "pvalue_adjusted": adjusted,
            "correction": correction,
            "significant": adjusted < 1.0 - level,
            "n_models": M,
            "confidence_level": level,
            "n_resamples": data.n_resamples,
            "n_permutations": n_permutations,
            "seed": pd.Series([seed] * len(ia), dtype=object),
            "simulated": data.simulated,
        }
    )

    def square(values: np.ndarray) -> pd.DataFrame:
        out = np.eye(K)
        out[ia, ib] = values
        out[ib, ia] = values
        return pd.DataFrame(out, index=labels, columns=labels)

    return CorrelationResult(
        pairs=label_frame(pairs, data.simulated),
        global_test=gtest,
        method=method,
        correction=correction,
        confidence_level=level,
        simulated=data.simulated,
        matrix=square(obs_pairs),
        ci_low_matrix=square(low),
        ci_high_matrix=square(high),
        bootstrap_distribution=boot,
        null_distribution=null,
    )
