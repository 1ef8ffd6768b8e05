"""Reliability of each metric's model ranking, and noise-corrected correlations between metrics."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.errors import NotApplicable
from attunestats.independence._kernels import (
    constant_metrics,
    corr_from_cov,
    pair_indices,
    pearson_matrix,
    psd_projection,
    spearman_matrix,
    sym_power,
)
from attunestats.independence._matrix import (
    MetricMatrix,
    check_int,
    check_level,
    check_matrix,
    label_frame,
)
from attunestats.inference.compare import discrimination_interval

_EPS = 1e-12


# --------------------------------------------------------------------------------------------
# Covariances from the resamples
# --------------------------------------------------------------------------------------------
def _finite_resamples(dist: np.ndarray) -> np.ndarray:
    keep = np.isfinite(dist).all(axis=(1, 2))
    return dist[keep]


def between_covariance(estimate: np.ndarray) -> np.ndarray:
    """Covariance of the metrics across models, ``S`` (K x K, ddof 1)."""
    return np.cov(estimate, rowvar=False, ddof=1)


def noise_covariance(distribution: np.ndarray) -> np.ndarray:
    """Noise covariance of the models' deviations from the model mean, ``N`` (K x K).

    ``N = sum_m Cov*(t_m - mean_j t_j) / (M - 1)`` from the bootstrap distribution (B, M, K).
    Centring on the model mean removes what all models share in a resample (a hard draw of
    conversations moves every model), which does not change their ranking. With ``S`` the
    observed between-model covariance, ``E[S] = T + N`` where ``T`` is the covariance of the
    models' true scores (their expected scores over conversations), so ``S - N`` estimates
    ``T`` without bias, also when the noise of two metrics is correlated within a model.
    """
    dist = _finite_resamples(distribution)
    B, M, _ = dist.shape
    if B < 2:
        raise ValueError("fewer than 2 resamples with every estimate defined")
    centred = dist - dist.mean(axis=1, keepdims=True)
    dev = centred - centred.mean(axis=0, keepdims=True)
    return np.einsum("bmk,bml->kl", dev, dev) / ((B - 1) * (M - 1))


def model_noise_covariances(distribution: np.ndarray) -> np.ndarray:
    """Per-model noise covariance of the metrics, free of the shared component: (M, K, K).

    ``Sigma_m = M / (M - 1) * Cov*(t_m - mean_j t_j)``: if the noise of model ``m`` is a part
    shared by all models plus an own part ``d_m`` independent across models, centring leaves
    ``d_m - mean d`` whose covariance is ``(1 - 1/M) Cov(d_m)`` (for equal ``Cov(d_m)``).
    """
    dist = _finite_resamples(distribution)
    B, M, _ = dist.shape
    centred = dist - dist.mean(axis=1, keepdims=True)
    dev = centred - centred.mean(axis=0, keepdims=True)
    return np.einsum("bmk,bml->mkl", dev, dev) / (B - 1) * (M / (M - 1.0))


# --------------------------------------------------------------------------------------------
# Reliability
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class ReliabilityResult(ResultMixin):
    """Reliability of each metric's ranking of the models.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per metric: ``split_half_pearson`` and ``split_half_spearman`` (mean over
        ``n_splits`` random halves of the correlation across models between the two halves'
        estimates, stepped up to full length with Spearman-Brown ``2r / (1 + r)``),
        ``reliability`` (``1 - N_kk / S_kk``: share of the observed between-model variance that is
        true-score variance, from the bootstrap noise) with ``ci_low``/``ci_high`` (noncentral F,
        as :func:`attunestats.inference.compare.discrimination_interval`: ``rel = D / (1 + D)``),
        ``between_variance`` ``S_kk``, ``noise_variance`` ``N_kk``, ``n_models``, ``n_splits``.
        A metric every model scores the same (up to rounding, :func:`constant_metrics`) ranks
        no models: its reliabilities are NaN and its variances 0. ``reliability`` can be
        negative (the models spread less than their noise) while its interval starts at 0.

    The target is the ranking of *these* models (the models are fixed; only the conversations'
    noise is random). The interval's noise df are ``units - 1`` although the noise variance is
    pooled over the models, so it is conservative (simulated with 11 models and 60
    conversations, 400 replicates: coverage 0.96-0.995 for these models).
    """

    _title = "Reliability of each metric's ranking of predictors"
    method = ("1 - noise / between-model variance (bootstrap noise), noncentral-F interval; "
              "split-half correlations stepped up with Spearman-Brown")  # fmt: skip

    table: pd.DataFrame
    n_splits: int
    confidence_level: float
    simulated: bool
    split_half_distribution: np.ndarray = field(repr=False)
    #: the resampled units of the plan (participants for a participant plan)
    estimand: str = (
        "reliability of the ranking of these models (models fixed, conversations random)"
    )

    def to_frame(self) -> pd.DataFrame:
        """The per-metric table."""
        return label_frame(self.table.copy(), self.simulated)


def _split_weights(data: MetricMatrix, n_splits: int, rng: np.random.Generator) -> np.ndarray:
    """(n_splits, C) 0/1 weights of half A; units are the plan's (conversation or participant)."""
    design = data.design
    C = data.weights.shape[1]
    if data.plan.unit == "participant" and design is not None and "participant_id" in design:
        codes, uniques = pd.factorize(design["participant_id"], sort=True)
        n_groups = len(uniques)
    else:
        codes, n_groups = np.arange(C), C
    if n_groups < 4:
        unit = "participants" if data.plan.unit == "participant" else "conversations"
        raise NotApplicable(f"split-half reliability needs at least 4 {unit}; got {n_groups}")
    order = rng.permuted(np.tile(np.arange(n_groups), (n_splits, 1)), axis=1)
    in_a = np.zeros((n_splits, n_groups))
    np.put_along_axis(in_a, order[:, : n_groups // 2], 1.0, axis=1)
    return in_a[:, codes]


def _paired_correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson correlation across models (axis 1) of a and b, per split and metric: (S, K)."""
    ac = a - np.nanmean(a, axis=1, keepdims=True)
    bc = b - np.nanmean(b, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ac * bc).sum(axis=1) / np.sqrt((ac**2).sum(axis=1) * (bc**2).sum(axis=1))


def _rank(x: np.ndarray) -> np.ndarray:
    from scipy import stats

    return stats.rankdata(x, axis=1, method="average", nan_policy="propagate")


def reliability(
    data: MetricMatrix,
    *,
    n_splits: int = 1000,
    confidence_level: float | None = None,
    rng: RNGLike = None,
) -> ReliabilityResult:
    """Reliability of each metric's model ranking: split-half and bootstrap estimates.

    Parameters
    ----------
    data : MetricMatrix
    n_splits : int
        Random splits of the conversations (participants, for a participant plan) into halves.
    confidence_level : float, optional
        Level of the interval of the bootstrap reliability (default: the matrix's).
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    ReliabilityResult

    Notes
    -----
    Both estimate the same quantity, ``var(true scores) / var(observed scores)`` across models,
    in two independent ways: the split-half estimate from how well two disjoint halves of the
    conversations agree (Spearman 1910; Brown 1910), the bootstrap one from the resampling
    variance of the estimates. Their agreement is checked in the tests.
    """
    data = check_matrix(data)
    n_splits = check_int("n_splits", n_splits, 10)
    level = data.confidence_level if confidence_level is None else check_level(
        "confidence_level", confidence_level)  # fmt: skip
    generator = check_rng(rng)
    M, K = data.estimate.shape
    w_a = _split_weights(data, n_splits, generator)
    half_a = data.evaluate(w_a)
    half_b = data.evaluate(1.0 - w_a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r_pearson = _paired_correlation(half_a, half_b)
        r_spearman = _paired_correlation(_rank(half_a), _rank(half_b))
        mean_p = np.nanmean(r_pearson, axis=0)
        mean_s = np.nanmean(r_spearman, axis=0)

    S = np.diag(between_covariance(data.estimate))
    N = np.diag(noise_covariance(data.bootstrap_distribution))
    constant = constant_metrics(data.estimate)
    S, N = np.where(constant, 0.0, S), np.where(constant, 0.0, N)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(constant, np.nan, 1.0 - N / S)
        sni = S / N
        mean_p = np.where(constant, np.nan, mean_p)
        mean_s = np.where(constant, np.nan, mean_s)
    df_noise = data.n_units - 1
    low = np.full(K, np.nan)
    high = np.full(K, np.nan)
    for k in range(K):
        if np.isfinite(sni[k]) and N[k] > 0:
            d_lo, d_hi = discrimination_interval(float(sni[k]), M, df_noise, level)
            low[k], high[k] = d_lo / (1.0 + d_lo), d_hi / (1.0 + d_hi)
    table = pd.DataFrame(
        {
            "capability": list(data.capabilities),
            "metric": list(data.metrics),
            "split_half_pearson": 2.0 * mean_p / (1.0 + mean_p),
            "split_half_spearman": 2.0 * mean_s / (1.0 + mean_s),
            "half_correlation_pearson": mean_p,
            "half_correlation_spearman": mean_s,
            "reliability": rel,
            "ci_low": low,
            "ci_high": high,
            "between_variance": S,
            "noise_variance": N,
            "n_models": M,
            "n_splits": n_splits,
            "df_noise": df_noise,
            "confidence_level": level,
            "seed": pd.Series([seed_record(rng)] * K, dtype=object),
            "simulated": data.simulated,
        }
    )
    return ReliabilityResult(
        table=label_frame(table, data.simulated),
        n_splits=n_splits,
        confidence_level=level,
        simulated=data.simulated,
        split_half_distribution=np.stack([r_pearson, r_spearman], axis=0),
        estimand=("reliability of the ranking of these models (models fixed, "
                  f"{data.plan.unit}s random)"),
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Noise-corrected correlations
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class NoiseCorrectedResult(ResultMixin):
    """Correlations of the models' true scores between metrics (noise removed).

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per metric pair: ``observed`` (Pearson correlation of the estimates across
        models), ``observed_spearman``, ``reliability_a``/``reliability_b``, ``noise_correlation``
        (correlation of the two metrics' noise within a model), ``corrected_raw``
        (``(S - N)_ab / sqrt((S - N)_aa (S - N)_bb)``; may pass +-1, or be +-inf/NaN when a
        true-score variance estimate is <= 0), ``corrected`` (clamped to [-1, 1]; NaN when
        undefined), ``flag``
        (``"ok"``, ``"clamped"`` or ``"undefined"``: also every pair with a metric every model
        scores the same, :func:`constant_metrics`), ``ci_low``/``ci_high`` (population of
        models: the noise of the plan's units, conversations or participants, plus model
        sampling), ``sample_ci_low``/``sample_ci_high`` (these models: that noise only),
        ``share_undefined`` (share of resamples in which
        a true-score variance was <= 0) and the settings.
    corrected_matrix, ci_low_matrix, ci_high_matrix : pandas.DataFrame
        K x K tables labelled by capability (population intervals).
    between_cov, noise_cov : numpy.ndarray
        ``S`` and ``N`` (K x K), oriented scale.
    """

    _title = "Noise-corrected (disattenuated) correlations"
    _summary_columns = ("metric_a", "metric_b", "observed", "corrected", "ci_low", "ci_high",
                        "flag", "share_undefined")  # fmt: skip
    estimand = ("correlation of true scores in the population of models (the evaluated models "
                "as a sample of models; sample_ci_low/high: these models only)")  # fmt: skip

    pairs: pd.DataFrame
    confidence_level: float
    simulated: bool
    corrected_matrix: pd.DataFrame = field(repr=False)
    ci_low_matrix: pd.DataFrame = field(repr=False)
    ci_high_matrix: pd.DataFrame = field(repr=False)
    between_cov: np.ndarray = field(repr=False)
    noise_cov: np.ndarray = field(repr=False)
    sample_distribution: np.ndarray = field(repr=False)
    population_distribution: np.ndarray = field(repr=False)
    #: names the plan's resampled units (participants for a participant plan)
    method: str = ("noise-deflated conversation bootstrap of the between-model covariance, plus "
                   "Fisher-z model sampling for the population interval")  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """The pair table."""
        return label_frame(self.pairs.copy(), self.simulated)

    def intervals(self, confidence_level: float, *, target: str = "population") -> pd.DataFrame:
        """Percentile intervals at another level from the same draws (e.g. simultaneous ones).

        ``target`` is ``"population"`` (models as a sample) or ``"sample"`` (these models).
        Extreme levels need many resamples: the tail beyond the interval should hold at least
        a few dozen draws.
        """
        level = check_level("confidence_level", confidence_level)
        if target not in ("population", "sample"):
            raise ValueError(f"target must be 'population' or 'sample'; got {target!r}")
        draws = self.population_distribution if target == "population" else (
            self.sample_distribution)  # fmt: skip
        low, high = _quantiles(draws, level)
        frame = self.pairs[["capability_a", "capability_b", "metric_a", "metric_b"]].copy()
        frame["ci_low"] = low
        frame["ci_high"] = high
        frame["confidence_level"] = level
        frame["target"] = target
        return label_frame(frame, self.simulated)


def _quantiles(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1.0 - level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low = np.nanquantile(values, alpha, axis=0)
        high = np.nanquantile(values, 1.0 - alpha, axis=0)
    return low, high


def noise_corrected_correlations(
    data: MetricMatrix,
    *,
    confidence_level: float | None = None,
    rng: RNGLike = None,
) -> NoiseCorrectedResult:
    """Disattenuated correlations between metrics, with intervals for two targets.

    Parameters
    ----------
    data : MetricMatrix
    confidence_level : float, optional
        Interval level (default: the matrix's).
    rng : int, Generator or SeedSequence, optional
        Draws of the model-sampling term of the population interval.

    Returns
    -------
    NoiseCorrectedResult

    Notes
    -----
    *Estimate.* ``T = S - N`` estimates the covariance of the models' true scores (see
    :func:`noise_covariance`); the corrected correlation is ``T_ab / sqrt(T_aa T_bb)``. With
    uncorrelated noise this is Spearman's (1904) ``r_ab / sqrt(rel_a rel_b)``; the general form
    also removes noise shared by two metrics of one model. The correction is made on the Pearson
    scale, where classical test theory defines it.

    *Interval for these models* (``sample_ci_*``; target: the correlation of these M models'
    true scores). Computed inside each resample of a *noise-deflated bootstrap world*: the
    models' estimates are shrunk about their mean, ``mu_m = mean + A (t_m - mean)`` with
    ``A = T+^(1/2) S^(-1/2)`` (``T+`` = ``T`` made positive semi-definite), so that their
    between-model covariance is the corrected ``T+``; each resample adds its own noise
    ``t*_m - t_m`` to ``mu_m`` and the corrected correlation is recomputed with ``N``. Plain
    resampling would put the bootstrap world's true covariance at ``S`` (noise included) and
    centre the resampled corrected correlations on the *observed* one. Percentile interval;
    values past +-1 are clamped. Coverage is checked by simulation (tests).

    *Interval for the population of models* (``ci_low``/``ci_high``; target: the correlation
    of true skills in the population the models come from). On Fisher's z scale the resampled
    values get an independent ``N(0, 1 / (M - 3))`` term for the sampling of M models
    (Fisher 1921), and the percentile interval is transformed back. This is the interval the
    verdicts use: a claim that capabilities are independent is a claim about models in general.
    """
    data = check_matrix(data)
    level = data.confidence_level if confidence_level is None else check_level(
        "confidence_level", confidence_level)  # fmt: skip
    generator = check_rng(rng)
    est = data.estimate
    M, K = est.shape
    ia, ib = pair_indices(K)
    S = between_covariance(est)
    N = noise_covariance(data.bootstrap_distribution)
    # a metric every model scores the same has no between-model variance: its rounding noise
    # must not pass for a true-score variance (its correlations are undefined, not "ok")
    constant = constant_metrics(est)
    S[constant, :] = S[:, constant] = 0.0
    N[constant, :] = N[:, constant] = 0.0
    T = S - N
    raw = corr_from_cov(T)[ia, ib]
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = 1.0 - np.diag(N) / np.diag(S)
        noise_corr = (N / np.sqrt(np.outer(np.diag(N), np.diag(N))))[ia, ib]

    # noise-deflated bootstrap world
    dist = _finite_resamples(data.bootstrap_distribution)
    t_plus = psd_projection(T)
    A = sym_power(t_plus, 0.5) @ sym_power(S, -0.5)
    centre = est.mean(axis=0)
    mu_world = centre + (est - centre) @ A.T
    world = mu_world + (dist - est)
    world_c = world - world.mean(axis=1, keepdims=True)
    S_b = np.einsum("bmk,bml->bkl", world_c, world_c) / (M - 1)
    r_b = corr_from_cov(S_b - N)[:, ia, ib]  # (B, pairs), may hold +-inf / nan
    r_b[:, constant[ia] | constant[ib]] = np.nan
    undefined = ~np.isfinite(r_b)
    sample_draws = np.clip(r_b, -1.0, 1.0)
    s_low, s_high = _quantiles(sample_draws, level)

    z = np.arctanh(np.clip(sample_draws, -1.0 + _EPS, 1.0 - _EPS))
    if M > 3:
        z = z + generator.standard_normal(z.shape) / np.sqrt(M - 3.0)
        pop_draws = np.tanh(z)
        p_low, p_high = _quantiles(pop_draws, level)
    else:
        pop_draws = np.full_like(z, np.nan)
        p_low = p_high = np.full(len(ia), np.nan)

    # undefined (a true-score variance <= 0, or a constant metric): NaN, not the clamp's +-1
    corrected = np.where(np.isfinite(raw), np.clip(raw, -1.0, 1.0), np.nan)
    flag = np.where(
        ~np.isfinite(raw), "undefined", np.where(np.abs(raw) > 1.0, "clamped", "ok")
    ).astype(object)
    observed = pearson_matrix(est)[ia, ib]
    observed_s = spearman_matrix(est)[ia, ib]
    pairs = pd.DataFrame(
        {
            "capability_a": [data.capabilities[a] for a in ia],
            "capability_b": [data.capabilities[b] for b in ib],
            "metric_a": [data.metrics[a] for a in ia],
            "metric_b": [data.metrics[b] for b in ib],
            "observed": observed,
            "observed_spearman": observed_s,
            "reliability_a": rel[ia],
            "reliability_b": rel[ib],
            "noise_correlation": noise_corr,
            "corrected_raw": raw,
            "corrected": corrected,
            "flag": flag,
            "ci_low": p_low,
            "ci_high": p_high,
            "sample_ci_low": s_low,
            "sample_ci_high": s_high,
            "share_undefined": undefined.mean(axis=0),
            "interval": "population of models: noise-deflated bootstrap + Fisher z model sampling",
            "n_models": M,
            "confidence_level": level,
            "n_resamples": dist.shape[0],
            "seed": pd.Series([seed_record(rng)] * len(ia), dtype=object),
            "simulated": data.simulated,
        }
    )
    labels = list(data.labels)

    def square(values: np.ndarray) -> pd.DataFrame:
        out = np.eye(K)
        out[ia, ib] = values
        out[ib, ia] = values
        return pd.DataFrame(out, index=labels, columns=labels)

    return NoiseCorrectedResult(
        pairs=label_frame(pairs, data.simulated),
        confidence_level=level,
        simulated=data.simulated,
        corrected_matrix=square(corrected),
        ci_low_matrix=square(p_low),
        ci_high_matrix=square(p_high),
        between_cov=S,
        noise_cov=N,
        sample_distribution=sample_draws,
        population_distribution=pop_draws,
        method=(f"noise-deflated {data.plan.unit} bootstrap of the between-model covariance, "
                "plus Fisher-z model sampling for the population interval"),
    )  # fmt: skip
