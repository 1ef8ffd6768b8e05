"""Paired comparisons of predictors, rank confidence sets and metric discrimination.

The default estimand is the population of participants (:mod:`attunestats.inference.participants`):
``compare_models(scores, correction=...)`` runs the participant jackknife and compares every pair
of predictors on every metric with t tests on the working-model Satterthwaite degrees of freedom
(``P - 1`` with equal numbers of conversations per participant, fewer otherwise). Passing a
:class:`~attunestats.inference.bootstrap.BootstrapResult` instead gives the *conditional* analysis
(these participants, conversations resampled), labelled as such in every row.

Multiplicity
------------
Every comparison table states its correction; there is no default. ``correction`` is one of
``"maxt"``, ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``
(:mod:`attunestats.inference.multiplicity`); the family is all predictor pairs of one metric
(``family="metric"``) or of all metrics together (``family="all"``). The reported intervals are
adjusted the same way as the tests: simultaneous for ``"maxt"`` and ``"bonferroni"``, compatible
with the adjusted test for ``"holm"`` and ``"bh"``, so an interval excludes 0 exactly when the
adjusted p-value is below ``1 - confidence_level``.

Effect sizes
------------
Each pair carries the difference in the metric's own units, the same in composite points (the
composite moves by ``difference * composite_points_per_unit(metric)``; NaN for metrics that do not
enter the composite) and a standardized effect: the difference over the participant-level SD of
the paired difference (``d_z`` for a balanced mean), each with an interval at the row's level.

Ranks
-----
Marginal and simultaneous rank confidence sets (:mod:`attunestats.inference.ranks`).

Discrimination (claim (b) of the paper)
---------------------------------------
For a metric with predictor estimates ``t_1..t_M`` (those with an estimate) the between-model variance is
``s2 = var(t, ddof=1)`` and the noise is ``N = mean over pairs of Var(t_i - t_j) / 2`` (the
variance of paired differences under the chosen estimand). The observed signal-to-noise index
``sni = s2 / N`` is about 1 when the predictors do not really differ. The reported
discrimination ``D`` is the *true* between-model variance over ``N``: its estimate is ``sni - 1``
(unbiased, so negative when the predictors spread less than their noise; the interval then
starts at 0, as ``D >= 0``), and its interval inverts the noncentral F distribution of
``sni`` (``(M-1) sni`` is noncentral chi-square with ``M-1`` df and noncentrality ``(M-1) D``
under normal estimates with exchangeable noise; the noise is estimated on ``df_noise``
degrees of freedom (participants - 1, or conversations - 1 for the conditional analysis), hence F; Steiger and Fouladi 1997). Why
``P - 1`` and not the pairs' working-model df (smaller with unequal participants, 4.5-7.5 on
the bundled release): the noise is averaged over all pairs, which carries more information than
one pair (``(M - 1)(P - 1)`` df for equal participants and exchangeable noise), but less when
the noise differs between predictors. Simulated with 11 unequal participants (8-40
conversations), 4-6 predictors and predictor x participant deviations whose SD differs 10-fold
between predictors, the 95% intervals with ``P - 1`` covered 0.96-1.00 (conservative), those
with ``(M - 1)`` times the mean working df 0.91-0.95 and those with the mean working df alone
0.97-1.00 (tests/inference/test_compare.py checks the first).
:meth:`ComparisonResult.discrimination_contrast` gives ``D_a - D_b`` with a conservative
interval (the two ``1 - alpha/2`` intervals combined, Bonferroni) and the matching p-value.
Checked by simulation in tests/inference/test_compare.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.errors import AttunestatsWarning, warn
from attunestats.inference.bootstrap import BootstrapResult
from attunestats.inference.contrasts import (
    ContrastFamily,
    adjust_family,
    bootstrap_family,
    joint_abs_t,
    participant_family,
    standardized_effect,
)
from attunestats.inference.multiplicity import (  # noqa: F401  (re-exported)
    CORRECTIONS,
    Correction,
    adjust_pvalues,
    check_correction,
)
from attunestats.inference.participants import ESTIMANDS, ScoreInference, infer_scores
from attunestats.inference.ranks import pair_weights, rank_sets

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores


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
    """Paired differences, rank confidence sets and discrimination of predictors, per metric.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per metric and predictor pair (a, b): ``difference`` = a - b with ``ci_low``,
        ``ci_high`` (adjusted like the tests: column ``interval``), ``standard_error``, ``df``,
        ``pvalue`` (unadjusted), ``pvalue_adjusted``, ``significant``, the effect sizes
        (``composite_points`` with its interval, ``standardized_effect`` with its interval) and
        the settings (``correction``, ``family``, ``method``, ``estimand``, ``confidence_level``,
        ``n_units``, ``unit``).
    ranks : pandas.DataFrame
        One row per metric and predictor: ``estimate``, ``rank`` (1 = best), the marginal rank
        set ``rank_ci_low``-``rank_ci_high`` and the simultaneous one
        ``rank_sim_low``-``rank_sim_high``.
    discrimination : pandas.DataFrame
        One row per metric: ``n_predictors``, ``n_pairs``, ``n_distinguishable``,
        ``share_distinguishable``, ``sni`` (observed), ``discrimination`` (D = sni - 1) with
        ``ci_low``/``ci_high`` (noncentral F), ``noise_variance``, ``between_variance``,
        ``df_noise``.
    """

    pairs: pd.DataFrame
    ranks: pd.DataFrame
    discrimination: pd.DataFrame
    correction: str
    family: str
    confidence_level: float
    method: str
    estimand: str
    simulated: bool = False
    seed: int | str | None = None
    source: Any = field(repr=False, default=None)

    _title = "Paired comparisons of predictors"
    _summary_columns = (
        "metric", "predictor_a", "predictor_b", "difference", "ci_low", "ci_high", "pvalue",
        "pvalue_adjusted", "composite_points", "standardized_effect",
    )  # fmt: skip

    @property
    def boot(self) -> Any:
        """The inference the comparisons were computed from (ScoreInference or BootstrapResult)."""
        return self.source

    def to_frame(self) -> pd.DataFrame:
        """The pairwise comparison table."""
        return self.pairs.copy()

    def _summary_meta(self) -> dict[str, str]:
        meta = super()._summary_meta()
        meta["Family"] = (
            "all predictor pairs of each metric" if self.family == "metric"
            else "all predictor pairs of all metrics together"
        )  # fmt: skip
        if not self.pairs.empty:
            compared = set(self.pairs["predictor_a"]) | set(self.pairs["predictor_b"])
            in_source = set(getattr(self.source, "labels", pd.DataFrame()).get("predictor", []))
            if in_source and compared < in_source:
                meta["Family"] += f" among the {len(compared)} predictors compared (predictors=)"
        if not self.pairs.empty:
            meta["Intervals"] = str(self.pairs["interval"].iloc[0])
            meta["Units"] = f"{int(self.pairs['n_units'].iloc[0])} {self.pairs['unit'].iloc[0]}"
        return meta

    def pair(self, a: str, b: str, metric: str | None = None) -> pd.DataFrame:
        """The comparison of predictors ``a`` and ``b`` (a - b), on one metric or all.

        Rows stored as (b, a) are flipped so the difference is always ``a - b``.
        """
        rows = self.pairs
        known = set(rows["predictor_a"]) | set(rows["predictor_b"])
        for name in (a, b):
            if name not in known:
                raise KeyError(
                    f"predictor {name!r} is not in this comparison; have {sorted(known)}"
                )
        if metric is not None and metric not in set(rows["metric"]):
            raise KeyError(f"metric {metric!r} is not in this comparison")
        sel = rows[(rows["predictor_a"] == a) & (rows["predictor_b"] == b)]
        flip = rows[(rows["predictor_a"] == b) & (rows["predictor_b"] == a)].copy()
        if not flip.empty:
            flip = _flip(flip)
        out = pd.concat([sel, flip], ignore_index=True)
        if metric is not None:
            out = out[out["metric"] == metric].reset_index(drop=True)
        return out

    def discrimination_contrast(self, metric_a: str, metric_b: str) -> DiscriminationContrast:
        """D(metric_a) - D(metric_b) with a conservative interval and p-value.

        The interval combines the two noncentral-F intervals at level ``1 - alpha/2`` each
        (Bonferroni), so it covers with probability at least ``1 - alpha``; the p-value is the
        smallest ``alpha`` at which that interval excludes 0 (so interval and p-value agree).
        Positive values mean ``metric_a`` separates the predictors more than ``metric_b``.
        Returns a :class:`DiscriminationContrast` (``to_frame()``, ``summary()``).

        Examples
        --------
        >>> import attunestats as at
        >>> cmp = at.compare_models(scores, correction="maxt")              # doctest: +SKIP
        >>> cmp.discrimination_contrast("avg_pairwise_accuracy", "avg_emotion_f1").pvalue
        ...                                                                 # doctest: +SKIP
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
        undefined = [m for m, row in ((metric_a, a), (metric_b, b)) if not np.isfinite(row["sni"])]
        note = None
        if undefined:  # no spread between predictors or no resampling noise: D is not defined
            lo = hi = pvalue = np.nan
            note = (
                f"D is not defined for {', '.join(undefined)} (no variance between predictors "
                "or no resampling noise); no interval or p-value"
            )
        else:
            lo, hi = interval(1.0 - alpha / 2.0)
            pvalue = _interval_pvalue(interval)
        return DiscriminationContrast(
            metric_a=metric_a,
            metric_b=metric_b,
            discrimination_a=float(a["discrimination"]),
            discrimination_b=float(b["discrimination"]),
            difference=float(a["discrimination"] - b["discrimination"]),
            ci_low=float(lo),
            ci_high=float(hi),
            pvalue=float(pvalue),
            confidence_level=self.confidence_level,
            estimand=self.estimand,
            df_noise=int(a["df_noise"]),
            simulated=self.simulated,
            note=note,
        )


@dataclass(frozen=True, repr=False)
class DiscriminationContrast(ResultMixin):
    """``D(metric_a) - D(metric_b)``: does one metric separate the predictors more than another?

    Made by :meth:`ComparisonResult.discrimination_contrast` (claim (b) of the paper as a test).
    ``D`` is a metric's true between-model variance over the noise of paired differences
    (module docstring); ``ci_low``/``ci_high`` is a conservative interval (two noncentral-F
    intervals at ``1 - alpha/2`` combined) and ``pvalue`` the smallest ``alpha`` at which that
    interval excludes 0, so the two always agree. ``note`` says why the interval and p-value are
    NaN when ``D`` is undefined for a metric (no spread between predictors or no noise).
    """

    metric_a: str
    metric_b: str
    discrimination_a: float
    discrimination_b: float
    difference: float
    ci_low: float
    ci_high: float
    pvalue: float
    confidence_level: float
    estimand: str
    df_noise: int
    simulated: bool = False
    note: str | None = None
    method: str = "noncentral F intervals combined (Bonferroni)"

    _title = "Discrimination contrast D(a) - D(b)"

    def to_frame(self) -> pd.DataFrame:
        """One row: the two D estimates, their difference, interval, p-value and settings."""
        return pd.DataFrame([{
            "metric_a": self.metric_a, "metric_b": self.metric_b,
            "discrimination_a": self.discrimination_a,
            "discrimination_b": self.discrimination_b, "difference": self.difference,
            "ci_low": self.ci_low, "ci_high": self.ci_high, "pvalue": self.pvalue,
            "df_noise": self.df_noise, "confidence_level": self.confidence_level,
            "method": self.method, "estimand": self.estimand, "simulated": self.simulated,
            "note": self.note,
        }])  # fmt: skip

    def _summary_notes(self) -> list[str]:
        notes = ["positive: metric_a separates the predictors more than metric_b"]
        return notes + ([self.note] if self.note else [])


_FLIP_SWAP = (("predictor_a", "predictor_b"), ("mode_a", "mode_b"), ("estimate_a", "estimate_b"))
_FLIP_NEGATE = ("difference", "composite_points", "standardized_effect")
_FLIP_BOUNDS = (("ci_low", "ci_high"), ("composite_points_low", "composite_points_high"),
                ("standardized_effect_low", "standardized_effect_high"))  # fmt: skip


def _flip(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for x, y in _FLIP_SWAP:
        out[x], out[y] = frame[y].to_numpy(), frame[x].to_numpy()
    for c in _FLIP_NEGATE:
        out[c] = -frame[c]
    for lo, hi in _FLIP_BOUNDS:
        out[lo], out[hi] = -frame[hi].to_numpy(), -frame[lo].to_numpy()
    return out


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
    """Smallest alpha at which ``interval(1 - alpha/2)`` excludes 0 (bisection; 1 if never;
    NaN when the interval is not defined)."""
    from scipy import optimize

    def excludes(alpha: float) -> float:
        lo, hi = interval(1.0 - alpha / 2.0)
        return max(lo, -hi)  # > 0 when 0 is outside [lo, hi]

    if not (np.isfinite(excludes(1.0 - 1e-9)) and np.isfinite(excludes(1e-12))):
        return np.nan
    if excludes(1.0 - 1e-9) <= 0:
        return 1.0
    if excludes(1e-12) > 0:
        return 1e-12
    return float(optimize.brentq(excludes, 1e-12, 1.0 - 1e-9, xtol=1e-8))


# --------------------------------------------------------------------------------------------
# Main entry
# --------------------------------------------------------------------------------------------
def _check_family(family: Any) -> None:
    if family not in ("metric", "all"):
        raise ValueError(f"family must be 'metric' or 'all'; got {family!r}")


def _higher_is_better(metric: str) -> bool:
    from attunestats.metrics.registry import METRICS

    spec = METRICS.get(metric)
    hib = getattr(spec, "higher_is_better", True) if spec is not None else True
    return True if hib is None else bool(hib)


def _source_of(data: Any, metrics: Sequence[str] | None, options: dict[str, Any]) -> Any:
    if isinstance(data, ScoreInference | BootstrapResult):
        if options:
            raise TypeError(
                f"options {sorted(options)} given, but data is already an inference result; "
                "pass Scores to compute it here"
            )
        return data
    return infer_scores(data, metrics=metrics, **options)


def compare_models(
    data: ScoreInference | BootstrapResult | Scores,
    *,
    correction: Correction,
    family: Literal["metric", "all"] = "metric",
    metrics: Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
    confidence_level: float | None = None,
    n_draws: int = 10_000,
    rng: RNGLike = 0,
    **infer_options: Any,
) -> ComparisonResult:
    """Paired differences for every pair of predictors, rank confidence sets and discrimination.

    Parameters
    ----------
    data : Scores, ScoreInference or BootstrapResult
        Scores (participant-level inference is run here, with ``infer_options`` such as
        ``method`` or ``strata``), a :func:`~attunestats.inference.participants.infer_scores`
        result (population of participants), or a conversation bootstrap (the conditional
        analysis, these participants only).
    correction : {"maxt", "holm", "bonferroni", "bh", "none"}
        Multiplicity correction of tests *and* intervals; required, echoed in every row.
    family : {"metric", "all"}
        Family of the correction: the pairs of one metric, or all pairs of all metrics.
    metrics : sequence of str, optional
        Metrics to compare (default: all in the inference).
    predictors : sequence of str, optional
        Predictors to compare (default: all, human raters included). The families, the
        corrections, the rank sets and the discrimination are over these only: pass
        ``scores.names("model")`` for claims about models alone.
    confidence_level : float, optional
        Interval level and ``1 - alpha`` of the tests (default: the inference's).
    n_draws : int
        Draws of the joint null law for ``"maxt"`` and the rank sets.
    rng : int, Generator or None
        Seed of those draws (results are reproducible for an int).

    Returns
    -------
    ComparisonResult

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())
    >>> cmp = at.compare_models(scores, correction="holm", metrics=["composite_score"],
    ...                         predictors=scores.names("model"))
    >>> row = cmp.pair("sim-model-01", "sim-model-02", metric="composite_score")
    >>> row[["difference", "ci_low", "ci_high", "df", "correction"]].round(2)
       difference  ci_low  ci_high    df correction
    0       -3.76   -5.48    -2.04  7.52       holm
    >>> print(cmp.summary())  # every pair, with method and estimand  # doctest: +SKIP
    """
    check_correction(correction)
    _check_family(family)
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 100:
        raise ValueError(f"n_draws must be an integer >= 100; got {n_draws!r}")
    if confidence_level is not None and (
        isinstance(confidence_level, bool) or not isinstance(confidence_level, float | int)
    ):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    source = _source_of(data, metrics, dict(infer_options))
    level = source.confidence_level if confidence_level is None else float(confidence_level)
    if not 0 < level < 1:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    generator = check_rng(rng)
    labels = source.labels
    for col in ("predictor", "metric"):
        if col not in labels.columns:
            raise ValueError(f"the inference labels lack column {col!r}; score first")
    if "mode" not in labels.columns:
        labels = labels.assign(mode="default")
    all_metrics = list(dict.fromkeys(labels["metric"]))
    if metrics is None:
        metrics = all_metrics
    missing = [m for m in metrics if m not in all_metrics]
    if missing:
        raise ValueError(f"metrics {missing} are not in the inference; have {all_metrics}")
    all_predictors = list(dict.fromkeys(labels["predictor"]))
    if predictors is None:
        chosen = np.ones(len(labels), dtype=bool)
    else:
        if isinstance(predictors, str):
            raise TypeError("predictors must be a sequence of names, not one string")
        unknown = [p for p in predictors if p not in all_predictors]
        if unknown:
            raise ValueError(
                f"predictors {unknown} are not in the inference; have {all_predictors}"
            )
        chosen = labels["predictor"].isin(list(predictors)).to_numpy()

    participants = isinstance(source, ScoreInference)
    family_of = (
        (lambda w: participant_family(source, w)) if participants
        else (lambda w: bootstrap_family(source, w))
    )  # fmt: skip
    if participants:
        method = (f"stratified participant jackknife (strata {source.design.strata!r}), t tests "
                  "(Satterthwaite df over the strata)" if source.design.strata else {
            "jackknife": "participant jackknife, t tests (working-model Satterthwaite df)",
            "cr2": "CR2, t tests (working-model Satterthwaite df)",
        }[source.method])  # fmt: skip
        estimand = ESTIMANDS["participants"]
    else:
        method = (f"{source.plan.unit} bootstrap ({source.plan.describe()}), "
                  "studentized symmetric")  # fmt: skip
        estimand = ESTIMANDS["these-participants"] if source.plan.unit == "conversation" else (
            ESTIMANDS["participants"]
        )  # fmt: skip
    n_labels = len(labels)

    # -- one family of pair differences per metric -------------------------------------------
    blocks = []
    for metric in metrics:
        idx = np.flatnonzero((labels["metric"] == metric).to_numpy() & chosen)
        w, pairs = pair_weights(n_labels, idx)
        fam = family_of(w) if pairs else None
        abs_t = joint_abs_t(fam, n_draws=n_draws, rng=generator) if pairs else None
        blocks.append((metric, idx, pairs, fam, abs_t))
    with_pairs = [blk for blk in blocks if blk[2]]
    frames = []
    if with_pairs:
        if family == "all":
            fam_all = ContrastFamily.concat([blk[3] for blk in with_pairs])
            adj_all = adjust_family(fam_all, correction=correction, confidence_level=level,
                                    n_draws=n_draws, rng=generator)  # fmt: skip
            offsets = np.cumsum([0] + [len(blk[2]) for blk in with_pairs])
            adjusted = [_slice_adjusted(adj_all, offsets[i], offsets[i + 1])
                        for i in range(len(with_pairs))]  # fmt: skip
        else:
            adjusted = [adjust_family(blk[3], correction=correction, confidence_level=level,
                                      abs_t=blk[4]) for blk in with_pairs]  # fmt: skip
        for (metric, idx, pairs, fam, _), adj in zip(with_pairs, adjusted, strict=True):
            frames.append(_pair_frame(labels, source.estimate, metric, idx, pairs, fam, adj))
    pairs_df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    alpha = 1.0 - level
    if not participants and not pairs_df.empty:
        _warn_resample_floor(pairs_df, with_pairs, correction, family, alpha)
    if not pairs_df.empty:
        pairs_df["significant"] = pairs_df["pvalue_adjusted"] < alpha
        settings = {"correction": correction, "family": family, "method": method,
                    "estimand": "participants" if participants or source.plan.unit == "participant"
                    else "these-participants", "confidence_level": level,
                    "simulated": bool(source.simulated)}  # fmt: skip
        for key, value in settings.items():
            pairs_df[key] = value

    # -- ranks and discrimination ---------------------------------------------------------------
    rank_frames, disc_rows = [], []
    df_noise = (source.n_participants - 1) if participants else (source.n_units - 1)
    for metric, idx, pairs, fam, abs_t in blocks:
        sub = labels.iloc[idx]
        sets = rank_sets(fam, pairs, len(idx), higher_is_better=_higher_is_better(metric),
                         confidence_level=level, abs_t=abs_t,
                         defined=np.isfinite(source.estimate[idx]))  # fmt: skip
        rank_frames.append(pd.DataFrame({
            "metric": metric, "predictor": sub["predictor"].to_numpy(),
            "mode": sub["mode"].to_numpy(), "estimate": source.estimate[idx], **sets,
        }))  # fmt: skip
        disc_rows.append(_discrimination_row(metric, source.estimate[idx], fam, df_noise, level))
    ranks_df = pd.concat(rank_frames, ignore_index=True) if rank_frames else pd.DataFrame()
    ranks_df["confidence_level"] = level
    ranks_df["simulated"] = bool(source.simulated)
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
    disc_df["correction"] = correction
    disc_df["confidence_level"] = level
    disc_df["simulated"] = bool(source.simulated)
    return ComparisonResult(
        pairs=pairs_df, ranks=ranks_df, discrimination=disc_df, correction=correction,
        family=family, confidence_level=level, method=method, estimand=estimand,
        simulated=bool(source.simulated), seed=seed_record(rng), source=source,
    )  # fmt: skip


def _warn_resample_floor(pairs_df: pd.DataFrame, blocks: list[Any], correction: str,
                         family: str, alpha: float) -> None:  # fmt: skip
    """Warn when too few bootstrap resamples leave pair intervals unbounded: a bootstrap
    p-value is at least ``1 / (B + 1)``, so a step of ``correction`` at level ``alpha / K``
    below it can never reject, and the interval at that level is the whole line."""
    # infinite, not NaN: a NaN interval is an undefined difference (a metric not scored)
    unbounded = np.isinf(pairs_df["ci_low"]) | np.isinf(pairs_df["ci_high"])
    if not unbounded.any():
        return
    n_draws = max(blk[3].studentized.shape[0] for blk in blocks)
    k = len(pairs_df) if family == "all" else max(len(blk[2]) for blk in blocks)
    needed = int(np.ceil(k / alpha))
    warn(
        f"{int(unbounded.sum())} of {len(pairs_df)} pair intervals are unbounded (-inf, inf) "
        f"and those pairs cannot be significant: with {n_draws} bootstrap resamples no p-value is "
        f"below 1 / {n_draws + 1}, but correction={correction!r} over {k} pairs per family "
        f"tests the strongest pair at {alpha:g} / {k}. Resample at least {needed} times "
        "(bootstrap_scores(n_resamples=...)) or compare fewer predictors or metrics"
        + (", or use correction='maxt'" if correction != "maxt" else ""),
        AttunestatsWarning,
    )


def _slice_adjusted(adj: Any, start: int, stop: int) -> Any:
    from dataclasses import replace

    return replace(
        adj, pvalue_adjusted=adj.pvalue_adjusted[start:stop], ci_low=adj.ci_low[start:stop],
        ci_high=adj.ci_high[start:stop], row_alpha=adj.row_alpha[start:stop],
        row_df=adj.row_df[start:stop], critical_value=adj.critical_value[start:stop],
    )  # fmt: skip


def _pair_frame(labels: pd.DataFrame, estimates: np.ndarray, metric: str, idx: np.ndarray,
                pairs: list, fam: Any, adj: Any) -> pd.DataFrame:  # fmt: skip
    from attunestats.metrics.composite import composite_points_per_unit

    ia = np.array([idx[a] for a, _ in pairs])
    ib = np.array([idx[b] for _, b in pairs])
    points = composite_points_per_unit(metric)
    d, d_low, d_high = standardized_effect(fam, adj.row_alpha, adj.row_df,
                                           critical_value=adj.critical_value)  # fmt: skip
    return pd.DataFrame({
        "metric": metric,
        "predictor_a": labels["predictor"].to_numpy()[ia],
        "mode_a": labels["mode"].to_numpy()[ia],
        "predictor_b": labels["predictor"].to_numpy()[ib],
        "mode_b": labels["mode"].to_numpy()[ib],
        "estimate_a": estimates[ia],
        "estimate_b": estimates[ib],
        "difference": fam.estimate,
        "ci_low": adj.ci_low,
        "ci_high": adj.ci_high,
        "standard_error": fam.standard_error,
        "df": fam.df,
        "pvalue": fam.pvalue,
        "pvalue_adjusted": adj.pvalue_adjusted,
        "interval": adj.interval_kind,
        "interval_level": 1.0 - adj.row_alpha,
        "composite_points": fam.estimate * points,
        "composite_points_low": adj.ci_low * points,
        "composite_points_high": adj.ci_high * points,
        "standardized_effect": d,
        "standardized_effect_low": d_low,
        "standardized_effect_high": d_high,
        "n_units": fam.n_units,
        "unit": fam.unit,
    })  # fmt: skip


def _discrimination_row(
    metric: str, est: np.ndarray, fam: ContrastFamily | None, df_noise: int, level: float
) -> dict[str, Any]:
    # over the predictors with an estimate (a predictor the metric is undefined for is not
    # compared, as in the rank sets) and the pairs between them
    est = np.asarray(est, dtype=float)
    est = est[np.isfinite(est)]
    n_pred = len(est)
    defined = np.array([]) if fam is None else np.isfinite(fam.estimate)
    n_pairs = int(defined.sum())
    se2 = np.asarray(fam.standard_error, dtype=float)[defined] ** 2 if n_pairs else np.array([])
    se2 = se2[np.isfinite(se2)]
    noise = float(se2.mean()) / 2.0 if len(se2) else np.nan  # NaN: no pair has a standard error
    between = float(np.var(est, ddof=1)) if n_pred > 1 else np.nan
    if n_pred > 1 and noise > 0:
        sni = between / noise
        d_low, d_high = discrimination_interval(sni, n_pred, df_noise, level)
    else:
        sni, d_low, d_high = np.nan, np.nan, np.nan
    return {"metric": metric, "n_predictors": n_pred, "n_pairs": n_pairs,
            "between_variance": between, "noise_variance": noise, "df_noise": df_noise,
            "sni": sni, "discrimination": sni - 1.0, "ci_low": d_low, "ci_high": d_high}  # fmt: skip
