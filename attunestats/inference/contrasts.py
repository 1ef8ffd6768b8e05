"""Families of linear contrasts of scores: tests, adjusted p-values, coherent intervals, effect sizes.

A contrast family is ``K`` linear combinations of the estimates of one inference result (paired
differences between predictors, humans minus models, group contrasts). Two sources:

- a :class:`~attunestats.inference.participants.ScoreInference` (the default: population of
  participants): t statistics with the participant-level variance and df; the joint null
  distribution of the family (for ``"maxt"``) is the multivariate t with the covariance the
  participant replicates give;
- a :class:`~attunestats.inference.bootstrap.BootstrapResult` (conditional on these
  participants, conversations resampled): studentized bootstrap, two-sided p-values from the
  distribution shifted to the null (Hall and Wilson 1991) and symmetric intervals from the same
  studentized draws, so interval and test always agree.

:func:`adjust_family` then applies the correction to the p-values *and* the intervals the same
way (:mod:`attunestats.inference.multiplicity`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from attunestats.inference.multiplicity import (
    INTERVAL_KINDS,
    adjust_pvalues,
    check_correction,
    interval_alpha,
    maxt_adjust,
)
from attunestats.inference.participants import _nan_matmul


@dataclass(frozen=True)
class ContrastFamily:
    """Estimates, SEs, df and raw p-values of K contrasts, with what their joint law needs."""

    estimate: np.ndarray
    standard_error: np.ndarray
    df: np.ndarray
    pvalue: np.ndarray
    source: str  # "participants" or "bootstrap"
    n_units: int
    unit: str  # "participants" or "conversations"
    deviations: np.ndarray | None = None  # participants: (R, K) replicate deviations
    scale: np.ndarray | None = None  # participants: (R,) factors of the deviations
    studentized: np.ndarray | None = None  # bootstrap: (B, K) (d* - d) / se

    @property
    def t(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.estimate / self.standard_error

    def subset(self, index: np.ndarray) -> ContrastFamily:
        """The contrasts at ``index`` (a sub-family)."""
        return ContrastFamily(
            estimate=self.estimate[index], standard_error=self.standard_error[index],
            df=self.df[index], pvalue=self.pvalue[index], source=self.source,
            n_units=self.n_units, unit=self.unit,
            deviations=None if self.deviations is None else self.deviations[:, index],
            scale=self.scale,
            studentized=None if self.studentized is None else self.studentized[:, index],
        )  # fmt: skip

    @staticmethod
    def concat(parts: list[ContrastFamily]) -> ContrastFamily:
        """Several families as one (for a correction over all of them)."""
        first = parts[0]

        def cat(name: str) -> np.ndarray | None:
            values = [getattr(p, name) for p in parts]
            if values[0] is None:
                return None
            axis = 0 if values[0].ndim == 1 else 1
            return np.concatenate(values, axis=axis)

        return ContrastFamily(
            estimate=cat("estimate"), standard_error=cat("standard_error"), df=cat("df"),
            pvalue=cat("pvalue"), source=first.source, n_units=first.n_units, unit=first.unit,
            deviations=cat("deviations"), scale=first.scale, studentized=cat("studentized"),
        )  # fmt: skip


def participant_family(inference: Any, weights: np.ndarray) -> ContrastFamily:
    """Contrasts ``weights.T @ estimate`` of a ScoreInference (weights: (L, K)).

    The deviations carry each contrast's own jackknife / CR2 factors over the participants in
    its sample (:func:`~attunestats.inference.participants.participants_with_data`), so that
    ``sum((deviations * scale)**2)`` is the contrast's variance.
    """
    from attunestats.inference.participants import _cr2_adjust, participants_with_data

    res = inference.contrast(weights)
    design = inference.design
    infl = _nan_matmul(inference.influence, weights)
    present = participants_with_data(infl, design.participant, design.n_participants)
    if inference.method == "jackknife":
        reps = _nan_matmul(inference.replicates, weights)
        strat = design.stratum_of_participant
        dev = np.zeros_like(reps)
        with np.errstate(invalid="ignore", divide="ignore"):
            for h in range(len(design.strata_ids)):
                rows, m = strat == h, present[strat == h]
                n = m.sum(axis=0).astype(float)
                mean = np.where(m, reps[rows], 0.0).sum(axis=0) / n
                dev[rows] = np.where(m, (reps[rows] - mean) * np.sqrt((n - 1.0) / n), 0.0)
    else:
        n_part = design.n_participants
        dev = np.zeros((n_part, infl.shape[1]))
        np.add.at(dev, design.participant, infl)
        counts = np.bincount(design.participant, minlength=n_part).astype(float)
        dev = dev * np.sqrt(_cr2_adjust(counts, present, infl.shape[1]))
    return ContrastFamily(
        estimate=res["estimate"], standard_error=res["standard_error"], df=res["df"],
        pvalue=res["pvalue"], source="participants", n_units=design.n_participants,
        unit="participants", deviations=dev, scale=np.ones(dev.shape[0]),
    )  # fmt: skip


def bootstrap_family(boot: Any, weights: np.ndarray) -> ContrastFamily:
    """Contrasts of a BootstrapResult: studentized symmetric bootstrap (the estimand of its
    resampling plan: conditional for conversations, the population for participants)."""
    # only the statistics each contrast uses (a NaN elsewhere would make every contrast NaN)
    est = _nan_matmul(np.asarray(boot.estimate, dtype=float)[None, :], weights)[0]
    dist = _nan_matmul(boot.bootstrap_distribution, weights)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an unscored metric: all-NaN columns
        se = np.nanstd(dist, axis=0, ddof=1)
        studentized = (dist - est) / se
        valid = ~np.isnan(dist)
        extreme = (np.abs(dist - est) >= np.abs(est)) & valid
        n_valid = valid.sum(axis=0)
        p = (1.0 + extreme.sum(axis=0)) / (n_valid + 1.0)
    p = np.where(np.isnan(est) | (n_valid == 0), np.nan, np.minimum(p, 1.0))
    # the resampling unit sets the scale of the standardized effect (per-participant SD for a
    # participant bootstrap, per-conversation SD for a conversation bootstrap)
    by_participant = getattr(getattr(boot, "plan", None), "unit", "conversation") == "participant"
    return ContrastFamily(
        estimate=est, standard_error=se, df=np.full(est.shape, np.inf), pvalue=p,
        source="bootstrap",
        n_units=boot.n_units if by_participant else (len(boot.conversation_ids) or boot.n_units),
        unit="participants" if by_participant else "conversations", studentized=studentized,
    )  # fmt: skip


@dataclass(frozen=True)
class AdjustedFamily:
    """A family after its correction: adjusted p-values and the intervals that agree with them."""

    pvalue_adjusted: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    row_alpha: np.ndarray  # the per-row level the interval was computed at
    row_df: np.ndarray  # the df of the t quantile the interval used (maxt: the family's)
    critical_value: np.ndarray  # per-row |t| beyond which the adjusted test rejects
    interval_kind: str
    correction: str


def _scaled_deviations(family: ContrastFamily) -> np.ndarray:
    """Replicate deviations scaled so that ``g @ dev`` (g ~ N(0, I)) has the contrasts' standardized
    covariance; zero columns for contrasts without spread."""
    se = family.standard_error
    ok = np.isfinite(se) & (se > 0) & np.all(np.isfinite(family.deviations), axis=0)
    dev = np.where(ok, family.deviations * family.scale[:, None], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, dev / se, 0.0)


def joint_abs_t(
    family: ContrastFamily,
    *,
    n_draws: int = 10_000,
    rng: np.random.Generator | None = None,
    max_only: bool = False,
    block: int = 512,
) -> np.ndarray:
    """Draws of ``|T_k|`` for every contrast under the family's joint null law, (B, K).

    Participants: multivariate t with the replicates' covariance and the smallest df of the
    family; bootstrap: the studentized resampled contrasts. Sub-families take columns. With
    ``max_only`` only ``max_k |T_k|`` per draw is returned, (B,), computed in column blocks (a
    family of thousands of contrasts does not need a (B, K) array).
    """
    k = len(family.estimate)
    if family.source == "participants":
        gen = np.random.default_rng(rng)
        dev = _scaled_deviations(family)
        df = float(np.nanmin(family.df)) if k else np.inf
        g = gen.standard_normal((n_draws, dev.shape[0]))
        inv_chi = (
            1.0 / np.sqrt(gen.chisquare(df, size=n_draws) / df) if np.isfinite(df)
            else np.ones(n_draws)
        )  # fmt: skip
        if not max_only:
            return np.abs(g @ dev) * inv_chi[:, None]
        out = np.zeros(n_draws)
        for start in range(0, k, block):
            np.maximum(out, np.abs(g @ dev[:, start : start + block]).max(axis=1), out=out)
        return out * inv_chi
    stud = np.abs(np.where(np.isfinite(family.studentized), family.studentized, 0.0))
    return stud.max(axis=1) if max_only else stud


def adjust_family(
    family: ContrastFamily,
    *,
    correction: str,
    confidence_level: float,
    n_draws: int = 10_000,
    rng: np.random.Generator | None = None,
    abs_t: np.ndarray | None = None,
) -> AdjustedFamily:
    """Adjusted p-values and coherent intervals for one family (see module docstring).

    ``abs_t`` (B, K) are joint draws of ``|T|`` (:func:`joint_abs_t`); computed when needed and
    not given.
    """
    check_correction(correction)
    alpha = 1.0 - confidence_level
    est, se = family.estimate, family.standard_error
    t = family.t
    k = len(est)
    if correction == "maxt":
        if abs_t is None:
            draws = joint_abs_t(family, n_draws=n_draws, rng=rng, max_only=True)
        else:
            draws = abs_t.max(axis=1) if k else np.zeros(0)
        adjusted, crit = maxt_adjust(t, draws, alpha)
        if family.source == "participants":
            min_df = float(np.nanmin(family.df)) if k else np.nan
            # max_k |T_k| >= |T_j|: the exact procedure never adjusts below the t test on the
            # family's df, nor is its interval narrower; Monte Carlo draws can (one contrast:
            # half the time), so both are floored there (they still agree with each other)
            with np.errstate(invalid="ignore"):
                floor_p = 2.0 * stats.t.sf(np.abs(t), min_df)
            adjusted = np.fmax(adjusted, np.where(np.isnan(adjusted), np.nan, floor_p))
            crit = float(np.fmax(crit, stats.t.ppf(1.0 - alpha / 2.0, min_df))) if k else crit
            row_df = np.full(k, min_df)
            row_alpha = 2.0 * stats.t.sf(crit, row_df)
        else:
            stud = np.abs(np.where(np.isfinite(family.studentized), family.studentized, 0.0))
            row_alpha = np.mean(stud > crit, axis=0) if k else np.zeros(0)
        crit_rows = np.full(k, crit)
    else:
        adjusted = adjust_pvalues(family.pvalue, method=correction)
        row_alpha = interval_alpha(correction, family.pvalue, adjusted, alpha)
        if family.source == "participants":
            crit_rows = stats.t.ppf(1.0 - row_alpha / 2.0, family.df)
        else:
            crit_rows = _column_quantiles(np.abs(family.studentized), row_alpha)
    if correction != "maxt" or family.source != "participants":
        row_df = np.asarray(family.df, dtype=float)
    with np.errstate(invalid="ignore"):
        low, high = est - crit_rows * se, est + crit_rows * se
    nothing = (est == 0) & (se == 0)  # no difference and no variance: nothing to reject
    adjusted = np.where(nothing & np.isnan(adjusted), 1.0, adjusted)
    degenerate = (se == 0) & np.isfinite(est)
    low = np.where(degenerate, est, low)
    high = np.where(degenerate, est, high)
    return AdjustedFamily(
        pvalue_adjusted=adjusted, ci_low=low, ci_high=high, row_alpha=row_alpha, row_df=row_df,
        critical_value=crit_rows, interval_kind=INTERVAL_KINDS[correction],
        correction=correction,
    )  # fmt: skip


def _column_quantiles(values: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Per column the order statistic ``c`` with ``|t| > c`` exactly when
    ``(1 + #{values >= |t|}) / (n + 1) < alpha`` (the bootstrap p-value), vectorised."""
    if values.shape[1] == 0:
        return np.zeros(0)
    finite = np.isfinite(values)
    srt = np.sort(np.where(finite, values, np.inf), axis=0)
    n = np.sum(finite, axis=0)
    a = np.asarray(alpha, dtype=float)
    m = np.floor(np.nan_to_num(n - (a * (n + 1.0) - 1.0))).astype(np.int64) + 1  # NaN level
    pos = np.clip(m - 1, 0, np.maximum(n - 1, 0))
    out = srt[pos, np.arange(values.shape[1])].astype(float)
    out = np.where(m > n, np.inf, np.where(m < 1, -np.inf, out))
    return np.where((n > 0) & np.isfinite(a), out, np.nan)


def standardized_effect(
    family: ContrastFamily,
    row_alpha: np.ndarray,
    row_df: np.ndarray | None = None,
    *,
    critical_value: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standardized effect ``estimate / (se sqrt(n))`` with an interval at each row's level.

    For participant-level inference ``n = P`` and the effect is in units of the SD of the
    participant-level contrast (Cohen's ``d_z`` for a balanced paired mean difference); its
    interval inverts the noncentral t distribution of ``t = d sqrt(P)`` with the row's df, so
    it excludes 0 exactly when the difference's interval does (``row_df``: the df of the
    difference's interval, e.g. the family's smallest for max-|t|; default each row's own). For the conditional bootstrap
    ``n`` is the number of conversations (per-conversation SD) and the interval is the
    difference's interval on that scale: pass the difference's ``critical_value`` (the
    bootstrap's, :class:`AdjustedFamily`); without it the normal quantile at ``row_alpha`` is
    used, which need not agree with a bootstrap interval.
    """
    n = float(family.n_units)
    est, se = family.estimate, family.standard_error
    with np.errstate(invalid="ignore", divide="ignore"):
        d = est / (se * np.sqrt(n))
    if family.source != "participants":
        crit = (stats.norm.ppf(1.0 - np.asarray(row_alpha) / 2.0) if critical_value is None
                else np.asarray(critical_value, dtype=float))  # fmt: skip
        with np.errstate(invalid="ignore", divide="ignore"):  # se 0: a constant metric
            t = est / se
        return d, (t - crit) / np.sqrt(n), (t + crit) / np.sqrt(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        t_obs = est / se
    low, high = noncentral_t_interval(t_obs, family.df if row_df is None else row_df, row_alpha)
    return d, low / np.sqrt(n), high / np.sqrt(n)


def noncentral_t_interval(
    t: np.ndarray, df: np.ndarray, alpha: np.ndarray, *, iterations: int = 44
) -> tuple[np.ndarray, np.ndarray]:
    """Interval for the noncentrality ``lam`` of ``t ~ nct(df, lam)``, vectorised bisection.

    ``low`` solves ``F(t; df, low) = 1 - alpha / 2`` and ``high`` solves
    ``F(t; df, high) = alpha / 2`` (F decreases in ``lam``).
    """
    t = np.asarray(t, dtype=float)
    df = np.broadcast_to(np.asarray(df, dtype=float), t.shape)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), t.shape)
    ok = np.isfinite(t) & np.isfinite(df) & (df > 0) & np.isfinite(alpha)
    low = np.full(t.shape, np.nan)
    high = np.full(t.shape, np.nan)
    if not ok.any():
        return low, high
    tt, dd, aa = t[ok], df[ok], alpha[ok]
    width = 10.0 + 2.0 * np.abs(tt)

    def solve(target: np.ndarray) -> np.ndarray:
        lo, hi = tt - width, tt + width
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            cdf = stats.nct.cdf(tt, dd, mid)
            cdf = np.where(np.isnan(cdf), np.where(mid > tt, 0.0, 1.0), cdf)  # far tails
            above = cdf > target  # lam too small
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
        return 0.5 * (lo + hi)

    low[ok] = solve(1.0 - aa / 2.0)
    high[ok] = solve(aa / 2.0)
    return low, high
