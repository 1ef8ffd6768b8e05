"""Structure of the capabilities: concordance of the metrics (Kendall's W) and principal components."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.errors import AttunestatsWarning, warn
from attunestats.independence._kernels import (
    correlation_matrix,
    first_component_share,
    kendall_w_stack,
    permuted_stack,
)
from attunestats.independence._matrix import (
    MetricMatrix,
    check_int,
    check_level,
    check_matrix,
    label_frame,
)

_TOL = 1e-12


def _interval(values: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return (float(np.nanquantile(values, alpha)), float(np.nanquantile(values, 1 - alpha)))


@dataclass(frozen=True, repr=False)
class ConcordanceResult(ResultMixin):
    """Kendall's W of the metrics (as raters) ranking the models (as units).

    ``W`` near 1: every metric ranks the models alike (one general skill); near 0: no common
    ordering. ``pvalue`` is the permutation p-value (model labels of each metric permuted
    independently, one-sided: W larger than under independence), ``pvalue_chi2`` Friedman's
    chi-square approximation ``K (M - 1) W ~ chi2(M - 1)`` (from
    :func:`attunestats.agreement.kendall_w`). W only sees *agreement*: metrics that rank the
    models in opposite orders lower it, so check the correlation table for negative pairs.
    """

    _title = "Concordance of predictor rankings across metrics"

    statistic: float
    chi2: float
    df: int
    pvalue_chi2: float
    pvalue: float
    mean_spearman: float
    ci_low: float
    ci_high: float
    n_models: int
    n_metrics: int
    n_permutations: int
    confidence_level: float
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: np.ndarray = field(repr=False)
    null_distribution: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row with W, its interval, both p-values and the settings."""
        row = {k: getattr(self, k) for k in (
            "statistic", "ci_low", "ci_high", "pvalue", "pvalue_chi2", "chi2", "df",
            "mean_spearman", "n_models", "n_metrics", "n_permutations", "confidence_level",
            "seed", "simulated")}  # fmt: skip
        frame = pd.DataFrame([{"quantity": "Kendall's W across metrics", **row}])
        return label_frame(frame, self.simulated)


def metric_concordance(
    data: MetricMatrix,
    *,
    n_permutations: int = 10_000,
    confidence_level: float | None = None,
    rng: RNGLike = None,
) -> ConcordanceResult:
    """Kendall's W across metrics, with a permutation p-value and a bootstrap interval.

    Parameters
    ----------
    data : MetricMatrix
    n_permutations : int
    confidence_level : float, optional
        Level of the percentile interval from the conversation resamples (default: matrix's).
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    ConcordanceResult
    """
    from attunestats.agreement import kendall_w

    data = check_matrix(data)
    n_permutations = check_int("n_permutations", n_permutations, 99)
    level = data.confidence_level if confidence_level is None else check_level(
        "confidence_level", confidence_level)  # fmt: skip
    generator = check_rng(rng)
    est = data.estimate
    M, K = est.shape
    base = kendall_w(est.T)  # metrics are the raters, models the units
    boot = kendall_w_stack(data.bootstrap_distribution)
    null = kendall_w_stack(permuted_stack(est, n_permutations, generator))
    pvalue = float((1.0 + np.sum(null >= base.statistic - _TOL)) / (1.0 + n_permutations))
    low, high = _interval(boot, level)
    return ConcordanceResult(
        statistic=float(base.statistic),
        chi2=float(base.chi2),
        df=int(base.df),
        pvalue_chi2=float(base.pvalue),
        pvalue=pvalue,
        mean_spearman=float(base.mean_spearman),
        ci_low=low,
        ci_high=high,
        n_models=M,
        n_metrics=K,
        n_permutations=n_permutations,
        confidence_level=level,
        seed=seed_record(rng),
        simulated=data.simulated,
        bootstrap_distribution=boot,
        null_distribution=null,
    )


@dataclass(frozen=True, repr=False)
class ComponentsResult(ResultMixin):
    """Principal components of the standardised model x metric matrix.

    Attributes
    ----------
    explained : numpy.ndarray
        Share of variance of each component (eigenvalues of the K x K correlation matrix over K).
    loadings : pandas.DataFrame
        Metrics x components (eigenvectors; sign fixed so each column sums to >= 0).
    first_share : float
        Share of the first component; ``pvalue`` compares it with its permutation null (columns
        permuted independently: no common factor). Even independent metrics give a first share
        well above ``1 / K`` with few models; ``null_mean`` shows how much.
    ci_low, ci_high : float
        Percentile interval of the first share over the conversation resamples.
    """

    _title = "Principal components of the metric matrix"

    explained: np.ndarray
    loadings: pd.DataFrame
    first_share: float
    pvalue: float
    null_mean: float
    ci_low: float
    ci_high: float
    method: str
    n_models: int
    n_metrics: int
    n_permutations: int
    confidence_level: float
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: np.ndarray = field(repr=False)
    null_distribution: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per component: share of variance (first row: test and interval)."""
        K = len(self.explained)
        frame = pd.DataFrame(
            {
                "component": np.arange(1, K + 1),
                "share": self.explained,
                "cumulative_share": np.cumsum(self.explained),
                "ci_low": [self.ci_low] + [np.nan] * (K - 1),
                "ci_high": [self.ci_high] + [np.nan] * (K - 1),
                "pvalue": [self.pvalue] + [np.nan] * (K - 1),
                "null_mean": [self.null_mean] + [np.nan] * (K - 1),
                "method": self.method,
                "n_models": self.n_models,
                "n_permutations": self.n_permutations,
                "confidence_level": self.confidence_level,
                "simulated": self.simulated,
            }
        )
        return label_frame(frame, self.simulated)


def principal_components(
    data: MetricMatrix,
    *,
    method: Literal["pearson", "spearman"] = "pearson",
    n_permutations: int = 10_000,
    confidence_level: float | None = None,
    rng: RNGLike = None,
) -> ComponentsResult:
    """PCA of the model x metric matrix, with the first component's share against its null.

    Parameters
    ----------
    data : MetricMatrix
    method : {"pearson", "spearman"}
        PCA of the correlation matrix of the standardised values or of their ranks.
    n_permutations : int
    confidence_level : float, optional
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    ComponentsResult
    """
    data = check_matrix(data)
    if method not in ("pearson", "spearman"):
        raise ValueError(f"method must be 'pearson' or 'spearman'; got {method!r}")
    n_permutations = check_int("n_permutations", n_permutations, 99)
    level = data.confidence_level if confidence_level is None else check_level(
        "confidence_level", confidence_level)  # fmt: skip
    generator = check_rng(rng)
    est = data.estimate
    M, K = est.shape
    corr = correlation_matrix(est, method)
    if not np.isfinite(corr).all():  # a metric every model scores the same: no correlation
        ok = np.isfinite(corr).sum(axis=0) > 1
        bad = [m for m, good in zip(data.metrics, ok, strict=True) if not good]
        if not bad or ok.sum() < 2:
            raise ValueError(
                f"no correlation for {bad} (constant or undefined across models): PCA needs at "
                "least 2 metrics that vary"
            )
        warn(f"metrics {bad} have no correlation with any other (constant or undefined across "
             "models); the PCA leaves them out", AttunestatsWarning)  # fmt: skip
        return principal_components(
            data.select([m for m, good in zip(data.metrics, ok, strict=True) if good]),
            method=method, n_permutations=n_permutations, confidence_level=confidence_level,
            rng=rng,
        )  # fmt: skip
    values, vectors = np.linalg.eigh(corr)
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    vectors = vectors * np.where(vectors.sum(axis=0) < 0, -1.0, 1.0)
    explained = values / values.sum()
    boot = first_component_share(correlation_matrix(data.bootstrap_distribution, method))
    null = first_component_share(
        correlation_matrix(permuted_stack(est, n_permutations, generator), method)
    )
    first = float(explained[0])
    pvalue = float((1.0 + np.sum(null >= first - _TOL)) / (1.0 + n_permutations))
    low, high = _interval(boot, level)
    loadings = pd.DataFrame(
        vectors, index=list(data.labels), columns=[f"PC{i + 1}" for i in range(K)]
    )
    return ComponentsResult(
        explained=explained,
        loadings=loadings,
        first_share=first,
        pvalue=pvalue,
        null_mean=float(np.mean(null)),
        ci_low=low,
        ci_high=high,
        method=method,
        n_models=M,
        n_metrics=K,
        n_permutations=n_permutations,
        confidence_level=level,
        seed=seed_record(rng),
        simulated=data.simulated,
        bootstrap_distribution=boot,
        null_distribution=null,
    )
