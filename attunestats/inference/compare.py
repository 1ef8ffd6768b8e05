"""Paired model comparisons, rank intervals and metric discrimination from one bootstrap.

Everything here reuses the resamples of :func:`attunestats.inference.bootstrap.bootstrap_scores`: all
predictors share the conversation weights of each resample, so the difference of two predictors'
resampled values *is* the resampled paired difference, and ranks recomputed per resample give
rank intervals. Nothing is resampled twice.

Multiplicity
------------
Every comparison table states its correction; there is no default. ``correction`` is one of
``"holm"`` (Holm 1979, family-wise error), ``"bh"`` (Benjamini & Hochberg 1995, false discovery
rate) or ``"none"``; the family is all predictor pairs of one metric (``family="metric"``) or of
all metrics together (``family="all"``).

Bootstrap p-values
------------------
Two-sided, from the bootstrap distribution shifted to the null (Hall & Wilson 1991):
``p = (1 + #{|d*_b - d| >= |d|}) / (B + 1)`` where ``d`` is the observed difference.

Discrimination (claim (b) of the paper)
---------------------------------------
For a metric with predictor estimates ``t_1..t_M`` the between-model variance is
``s2 = var(t, ddof=1)`` and the noise is ``N = mean over pairs of Var*(t_i - t_j) / 2`` (bootstrap
variance of paired differences, so the pairing of predictors is accounted for). The observed
signal-to-noise index ``sni = s2 / N`` is about 1 when the predictors do not really differ. The
reported discrimination ``D`` is the *true* between-model variance over ``N``: its estimate is
``sni - 1`` (``s2`` overestimates the true variance by about ``N``), and its interval inverts the
noncentral F distribution of ``sni`` (``(M-1) sni`` is noncentral chi-square with ``M-1`` degrees
of freedom and noncentrality ``(M-1) D`` when the estimates are normal with exchangeable noise; the
noise itself is estimated from ``n_units - 1`` degrees of freedom, hence F; Steiger & Fouladi
1997). Checked by simulation in tests/inference/test_compare.py (the basic and BCa bootstrap intervals of
``sni`` undercover badly here, which is why they are not used). ``D`` is scale-free, so metrics can
be compared: :meth:`ComparisonResult.discrimination_contrast` gives ``D_a - D_b`` with a
conservative interval (the two ``1 - alpha/2`` intervals combined, Bonferroni) and the matching
p-value. ``share_distinguishable`` is the share of predictor pairs whose corrected test rejects at
``1 - confidence_level``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats.inference.bootstrap import BootstrapResult, bootstrap_scores, confidence_interval

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

CORRECTIONS = ("holm", "bh", "none")
Correction = Literal["holm", "bh", "none"]


# --------------------------------------------------------------------------------------------
# Multiplicity
# --------------------------------------------------------------------------------------------
def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, *, method: Correction) -> np.ndarray:
    """Adjusted p-values: Holm step-down, Benjamini-Hochberg step-up, or unchanged.

    NaN p-values stay NaN and do not count in the family size.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {method!r}")
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-d; got shape {p.shape}")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("pvalues must lie in [0, 1]")
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        out[ok] = q
        return out
    order = np.argsort(q, kind="stable")
    sorted_p = q[order]
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * sorted_p)
    else:  # bh
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * sorted_p[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(adj, 1.0)
    out[ok] = adjusted
    return out


def bootstrap_pvalue(distribution: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-values per column, from the distribution shifted to the null."""
    valid = ~np.isnan(distribution)
    extreme = (np.abs(distribution - estimate) >= np.abs(estimate)) & valid
    n_valid = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = (1.0 + extreme.sum(axis=0)) / (n_valid + 1.0)
    return np.where(np.isnan(estimate) | (n_valid == 0), np.nan, np.minimum(p, 1.0))


# --------------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class ComparisonResult(ResultMixin):
    """Paired differences, rank intervals and discrimination of predictors, per metric.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per metric and predictor pair (a, b): ``difference`` = a - b, ``ci_low``,
        ``ci_high``, ``standard_error``, ``pvalue``, ``pvalue_adjusted``, ``significant`` and the
        settings (``correction``, ``family``, ``method``, ``confidence_level``, ``n_resamples``,
        ``unit``, ``seed``).
    ranks : pandas.DataFrame
        One row per metric and predictor: ``estimate``, ``rank`` (1 = best), ``rank_ci_low``,
        ``rank_ci_high``, ``p_rank1``.
    discrimination : pandas.DataFrame
        One row per metric: ``n_predictors``, ``n_pairs``, ``n_distinguishable``,
        ``share_distinguishable``, ``sni`` (observed), ``discrimination`` (D = sni - 1) with
        ``ci_low``/``ci_high`` (noncentral F), ``noise_variance``, ``between_variance``,
        ``df_noise``.
    """

    _title = "Paired comparisons of predictors"

    pairs: pd.DataFrame
    ranks: pd.DataFrame
    discrimination: pd.DataFrame
    correction: str
    family: str
    confidence_level: float
    boot: BootstrapResult = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The pairwise comparison table."""
        return self.pairs.copy()

    def discrimination_contrast(self, metric_a: str, metric_b: str) -> dict[str, Any]:
        """D(metric_a) - D(metric_b) with a conservative interval and p-value.

        The interval combines the two noncentral-F intervals at level ``1 - alpha/2`` each
        (Bonferroni), so it covers with probability at least ``1 - alpha``; the p-value is the
        smallest ``alpha`` at which that interval excludes 0. Positive values mean ``metric_a``
        separates the predictors more than ``metric_b``.
        """
        disc = self.discrimination.set_index("metric")
        for m in (metric_a, metric_b):
            if m not in disc.index:
                raise KeyError(f"metric {m!r} not in this comparison; have {sorted(disc.index)}")
        a, b = disc.loc[metric_a], disc.loc[metric_b]

        def interval(level: float) -> tuple[float, float]:
            lo_a, hi_a = discrimination_interval(
                a["sni"], int(a["n_predictors"]), int(a["df_noise"]), level
            )
            lo_b, hi_b = discrimination_interval(
                b["sni"], int(b["n_predictors"]), int(b["df_noise"]), level
            )
            return lo_a - hi_b, hi_a - lo_b

        alpha = 1.0 - self.confidence_level
        lo, hi = interval(1.0 - alpha / 2.0)
        pvalue = _interval_pvalue(interval)
        return {
            "metric_a": metric_a,
            "metric_b": metric_b,
            "discrimination_a": float(a["discrimination"]),
            "discrimination_b": float(b["discrimination"]),
            "difference": float(a["discrimination"] - b["discrimination"]),
            "ci_low": float(lo),
            "ci_high": float(hi),
            "pvalue": float(pvalue),
            "confidence_level": self.confidence_level,
            "method": "noncentral F intervals combined (Bonferroni)",
            "simulated": self.boot.simulated,
        }


def discrimination_interval(
    sni: float, n_predictors: int, df_noise: int, level: float
) -> tuple[float, float]:
    """Interval for D (true between-model variance / noise) by inverting the noncentral F.

    ``sni`` is the observed signal-to-noise index, ``n_predictors`` the number of predictors M
    (numerator df M - 1) and ``df_noise`` the denominator df (resampling units - 1).
    """
    from scipy import optimize, stats

    k = n_predictors - 1
    if k < 1 or not np.isfinite(sni) or df_noise < 1:
        return (np.nan, np.nan)
    tail = (1.0 - level) / 2.0

    def cdf(lam: float) -> float:
        if lam <= 0:
            return float(stats.f.cdf(sni, k, df_noise))
        return float(stats.ncf.cdf(sni, k, df_noise, lam))

    def solve(target: float) -> float:
        if cdf(0.0) <= target:
            return 0.0
        upper = max(10.0, 4.0 * k * sni)
        while cdf(upper) > target:
            upper *= 2.0
        return float(optimize.brentq(lambda lam: cdf(lam) - target, 0.0, upper, xtol=1e-10))

    return solve(1.0 - tail) / k, solve(tail) / k


def _interval_pvalue(interval: Any) -> float:
    """Smallest alpha at which ``interval(1 - alpha/2)`` excludes 0 (bisection; 1 if never)."""
    from scipy import optimize

    def excludes(alpha: float) -> float:
        lo, hi = interval(1.0 - alpha / 2.0)
        return max(lo, -hi)  # > 0 when 0 is outside [lo, hi]

    if excludes(1.0 - 1e-9) <= 0:
        return 1.0
    if excludes(1e-12) > 0:
        return 1e-12
    return float(optimize.brentq(excludes, 1e-12, 1.0 - 1e-9, xtol=1e-8))


# --------------------------------------------------------------------------------------------
# Main entry
# --------------------------------------------------------------------------------------------
def _check_correction(correction: Any, family: Any) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    if family not in ("metric", "all"):
        raise ValueError(f"family must be 'metric' or 'all'; got {family!r}")


def _higher_is_better(metric: str) -> bool:
    try:
        from attunestats.metrics.registry import METRICS
    except ImportError:  # pragma: no cover - registry always present in the package
        return True
    spec = METRICS.get(metric)
    hib = getattr(spec, "higher_is_better", True) if spec is not None else True
    return True if hib is None else bool(hib)


def compare_models(
    data: BootstrapResult | Scores,
    *,
    correction: Correction,
    family: Literal["metric", "all"] = "metric",
    metrics: Sequence[str] | None = None,
    confidence_level: float | None = None,
    **bootstrap_kwargs: Any,
) -> ComparisonResult:
    """Paired differences for every pair of predictors, rank intervals and discrimination.

    Parameters
    ----------
    data : BootstrapResult or Scores
        A bootstrap of scores (its resamples are reused), or scores to bootstrap with
        ``bootstrap_kwargs`` (``unit``, ``strata``, ``method``, ``n_resamples``, ``rng``, ...).
    correction : {"holm", "bh", "none"}
        Multiplicity correction; required, echoed in every row.
    family : {"metric", "all"}
        Family of the correction: the pairs of one metric, or all pairs of all metrics.
    metrics : sequence of str, optional
        Metrics to compare (default: all in the bootstrap).
    confidence_level : float, optional
        Interval level and ``1 - alpha`` of the tests (default: the bootstrap's).

    Returns
    -------
    ComparisonResult
    """
    _check_correction(correction, family)
    if isinstance(data, BootstrapResult):
        if bootstrap_kwargs:
            raise TypeError(
                f"bootstrap options {sorted(bootstrap_kwargs)} given, but data is already a "
                "BootstrapResult; pass Scores to bootstrap here"
            )
        boot = data
    else:
        boot = bootstrap_scores(
            data, metrics=metrics, confidence_level=confidence_level or 0.95, **bootstrap_kwargs
        )
    level = boot.confidence_level if confidence_level is None else float(confidence_level)
    if not 0 < level < 1:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    labels = boot.labels
    for col in ("predictor", "metric"):
        if col not in labels.columns:
            raise ValueError(f"the bootstrap labels lack column {col!r}; bootstrap scores first")
    if "mode" not in labels.columns:
        labels = labels.assign(mode="default")
    all_metrics = list(dict.fromkeys(labels["metric"]))
    if metrics is None:
        metrics = all_metrics
    missing = [m for m in metrics if m not in all_metrics]
    if missing:
        raise ValueError(f"metrics {missing} are not in the bootstrap; have {all_metrics}")

    settings = {
        "correction": correction,
        "family": family,
        "method": boot.method,
        "confidence_level": level,
        "n_resamples": boot.n_resamples,
        "unit": boot.plan.unit,
        "seed": boot.seed,
        "simulated": boot.simulated,
    }
    pair_frames, rank_frames, disc_rows = [], [], []
    alpha = 1.0 - level
    for metric in metrics:
        idx = np.flatnonzero((labels["metric"] == metric).to_numpy())
        sub = labels.iloc[idx]
        est = boot.estimate[idx]
        dist = boot.bootstrap_distribution[:, idx]
        jack = (
            boot.jackknife_distribution[:, idx] if boot.jackknife_distribution is not None else None
        )
        n_pred = len(idx)
        pairs = list(combinations(range(n_pred), 2))
        if pairs:
            ia = np.array([a for a, _ in pairs])
            ib = np.array([b for _, b in pairs])
            d_est = est[ia] - est[ib]
            d_dist = dist[:, ia] - dist[:, ib]
            d_jack = jack[:, ia] - jack[:, ib] if jack is not None else None
            lo, hi, degenerate = confidence_interval(
                d_dist, d_est, method=boot.method, confidence_level=level, jackknife=d_jack
            )
            with np.errstate(invalid="ignore"):
                se = np.nanstd(d_dist, axis=0, ddof=1)
            frame = pd.DataFrame(
                {
                    "metric": metric,
                    "predictor_a": sub["predictor"].to_numpy()[ia],
                    "mode_a": sub["mode"].to_numpy()[ia],
                    "predictor_b": sub["predictor"].to_numpy()[ib],
                    "mode_b": sub["mode"].to_numpy()[ib],
                    "estimate_a": est[ia],
                    "estimate_b": est[ib],
                    "difference": d_est,
                    "ci_low": lo,
                    "ci_high": hi,
                    "standard_error": se,
                    "pvalue": bootstrap_pvalue(d_dist, d_est),
                    "interval_method": np.where(degenerate, "percentile", boot.method),
                }
            )
            pair_frames.append(frame)
            noise = np.nanmean(np.nanvar(d_dist, axis=0, ddof=1)) / 2.0
        else:
            noise = np.nan

        # ranks per resample (1 = best)
        sign = -1.0 if _higher_is_better(metric) else 1.0
        ranks_b = _rank_rows(sign * dist)
        rank_hat = _rank_rows(sign * est[None, :])[0]
        rank_frames.append(
            pd.DataFrame(
                {
                    "metric": metric,
                    "predictor": sub["predictor"].to_numpy(),
                    "mode": sub["mode"].to_numpy(),
                    "estimate": est,
                    "rank": rank_hat,
                    "rank_ci_low": np.nanquantile(ranks_b, alpha / 2, axis=0, method="lower"),
                    "rank_ci_high": np.nanquantile(ranks_b, 1 - alpha / 2, axis=0, method="higher"),
                    "p_rank1": np.nanmean(ranks_b == 1, axis=0),
                }
            )
        )

        # discrimination
        between = float(np.var(est, ddof=1)) if n_pred > 1 else np.nan
        df_noise = boot.n_units - 1
        if n_pred > 1 and noise > 0:
            sni = between / noise
            d_low, d_high = discrimination_interval(sni, n_pred, df_noise, level)
        else:
            sni, d_low, d_high = np.nan, np.nan, np.nan
        disc_rows.append(
            {
                "metric": metric,
                "n_predictors": n_pred,
                "n_pairs": len(pairs),
                "between_variance": between,
                "noise_variance": noise,
                "df_noise": df_noise,
                "sni": sni,
                "discrimination": sni - 1.0,
                "ci_low": d_low,
                "ci_high": d_high,
            }
        )

    pairs_df = pd.concat(pair_frames, ignore_index=True) if pair_frames else pd.DataFrame()
    if not pairs_df.empty:
        if family == "all":
            pairs_df["pvalue_adjusted"] = adjust_pvalues(
                pairs_df["pvalue"].to_numpy(), method=correction
            )
        else:
            pairs_df["pvalue_adjusted"] = np.nan
            for _, rows in pairs_df.groupby("metric", sort=False).groups.items():
                pairs_df.loc[rows, "pvalue_adjusted"] = adjust_pvalues(
                    pairs_df.loc[rows, "pvalue"].to_numpy(), method=correction
                )
        pairs_df["significant"] = pairs_df["pvalue_adjusted"] < alpha
        for key, value in settings.items():
            pairs_df[key] = (
                pd.Series([value] * len(pairs_df), dtype=object) if key == "seed" else value
            )
    disc_df = pd.DataFrame(disc_rows)
    if not pairs_df.empty:
        n_sig = pairs_df.groupby("metric", sort=False)["significant"].sum()
        disc_df["n_distinguishable"] = disc_df["metric"].map(n_sig).fillna(0).astype(int)
    else:
        disc_df["n_distinguishable"] = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        disc_df["share_distinguishable"] = disc_df["n_distinguishable"] / disc_df[
            "n_pairs"
        ].replace(0, np.nan)
    for key in ("correction", "confidence_level", "n_resamples", "unit", "simulated"):
        disc_df[key] = settings[key]
    ranks_df = pd.concat(rank_frames, ignore_index=True)
    ranks_df["confidence_level"] = level
    ranks_df["simulated"] = boot.simulated
    return ComparisonResult(
        pairs=pairs_df,
        ranks=ranks_df,
        discrimination=disc_df,
        correction=correction,
        family=family,
        confidence_level=level,
        boot=boot,
    )


def _rank_rows(values: np.ndarray) -> np.ndarray:
    """Ranks (1 = smallest) within each row, ties get their average rank, NaN stays NaN."""
    from scipy.stats import rankdata

    return rankdata(values, axis=1, method="average", nan_policy="omit")
