"""Agreement of the human raters with each other and with the participants.

* :func:`rater_agreement` -- how much the human raters agree with *each other*, per annotation
  type (Krippendorff's alpha with the right metric, plus Fleiss' kappa or the ICC where they
  apply), with bootstrap intervals;
* :func:`rater_vs_participant` -- each rater against the participants' own first-person
  annotations (the participant is one more "rater"), and whether raters agree with each other more
  than with the participants (a paired bootstrap difference).

The annotation types and how their ratings are read are described in
:mod:`attunestats.baseline.annotations`.

Resampling
----------
Ratings cluster by participant: every unit of a conversation, and every conversation of a
participant, shares that person's way of annotating (and what they talked about). The default
interval (``resample="participant"``, ``method="bootstrap-t"``) is therefore for the population of
participants: the participant bootstrap-t (percentile-t; Efron and Tibshirani 1993, ch. 12;
Davison and Hinkley 1997, sec. 5.2). Each resample draws the ``P`` participants with replacement,
and its alpha is studentized by the delete-one-participant jackknife SE computed *within* that
resample; the interval takes the order statistics of those ``t*`` (equal-tailed), so it is not
forced to be symmetric, and the p-value of a difference is the test the interval inverts (the
interval excludes 0 exactly when ``p < 1 - confidence_level``). Alpha is a ratio of sums of unit
contributions (Krippendorff's coincidences, :mod:`attunestats.agreement.alpha`), so a resample or
a deleted participant is a vector of participant weights: every alpha is exact and all of them
(every rater subset of an annotation type, ``B x (P + 1)`` weight vectors) come from matrix
products. An upper limit above 1 (alpha's maximum; with very few participants the bootstrap-t
can be long) is reported as 1. ``method="jackknife"`` gives the delete-one-participant jackknife
with a symmetric ``t`` interval on ``P - 1`` degrees of freedom (not random). Differences of alphas (rater-rater minus
rater-participant) are the same linear combination of the resampled alphas and of the jackknife
replicates, with the test from the same procedure.

Why the bootstrap-t (measured; the study is in ``tests/baseline/test_agreement_participants.py``,
synthetic ratings drawn there, not by the package's simulator): 3 raters, nominal (binary) and
interval (half-point scale) ratings, 18 conversations of 8 units per participant, 5% missing
ratings, conversation effects, and participants who differ in how well the raters can read them
(rater accuracy on the logit scale, or rating noise on the log scale, shifted per participant
with SD 0, 0.3 "mild" or 0.8 "strong"); true alpha the mean over 8 independent draws of 4,000
participants (its Monte Carlo SE 0.0002-0.001); 1,000 replications per cell (Monte Carlo SE of
a coverage 0.007), 1,000 resamples. Coverage of 95% intervals for 6 / 11 / 20 participants,
2026-12-07:

=================  ====================  ====================  ====================
setting            method                nominal               interval
=================  ====================  ====================  ====================
none (SD 0)        bootstrap-t           .947 .947 .961        .946 .937 .934
none (SD 0)        jackknife t           .955 .953 .957        .960 .937 .937
none (SD 0)        percentile bootstrap  .856 .898 .937        .852 .899 .907
mild (SD 0.3)      bootstrap-t           .952 .950 .958        .946 .949 .944
mild (SD 0.3)      jackknife t           .947 .950 .955        .946 .940 .937
mild (SD 0.3)      percentile bootstrap  .863 .894 .926        .859 .902 .919
strong (SD 0.8)    bootstrap-t           .941 .948 .961        .913 .926 .931
strong (SD 0.8)    jackknife t           .915 .928 .938        .888 .899 .904
strong (SD 0.8)    percentile bootstrap  .841 .892 .917        .789 .855 .883
=================  ====================  ====================  ====================

Both studentized intervals hold their level when participants differ not at all or mildly; the
percentile participant bootstrap is too narrow (by about ``sqrt((P - 1) / P)``, with no
small-sample correction). When participants differ strongly, a few participants dominate the
variance and alpha's sampling distribution is skewed: the jackknife t misses almost always on the
same side (0.89-0.94), the bootstrap-t, which learns the skewness from the resamples, keeps
nominal ratings in band (0.94-0.96) and brings interval ratings to 0.91-0.94 (still somewhat
optimistic there: its misses are mostly intervals lying above the truth; a second run of those
three cells with other seeds and 999 resamples gave .941 .925 .937, and centring the pivot on the
jackknife bias-corrected alpha, in the data and in every resample, changed none of them by more
than 0.002; both one-off experiments, not in the test suite). Studentizing on another scale does
not help either (``benchmarks/study_agreement_scale.py``, seed 101, 2026-12-07: 2,000
replications, 999 resamples, delta-method SEs, limits transformed back): alpha /
``log(1 - alpha)`` / ``atanh(alpha)`` covered .927 / .927 / .926 with 6 participants, .930 /
.927 / .927 with 11 and .936 / .935 / .935 with 20, with 6.8%, 5.9% and 4.5% of intervals above
the truth on every scale. The shortfall is consistent with the
sample, not the pivot: rating noise is log-normal across participants, so alpha's population
value is pulled down by rare very noisy participants that a sample of 6-20 often lacks, and no
resampling of the participants drawn can see them. The price is width:
median bootstrap-t intervals are 2-31% wider than the jackknife's (the most with 6 participants
and strong differences), and with very few participants a resample occasionally gives a very
long interval.

The conditional analyses stay available by name: ``resample="conversation"`` (cluster bootstrap
over conversations, *these* participants: conversations are drawn with replacement and every unit
of a drawn conversation enters with the conversation's multiplicity) and ``resample="unit"``
(the rated units themselves drawn with replacement,
:func:`~attunestats.agreement.krippendorff_alpha`'s ``method="units"``, which ignores all
clustering). Both give percentile intervals; resamples
where alpha is undefined are left out and counted. All alphas of one annotation type (every rater
subset, rater pair and rater-participant pair) are evaluated on the same replicates or resamples,
so their differences are paired. The F-based ICC intervals and Fleiss' kappa standard errors of
:mod:`attunestats.agreement` treat units as independent; they are reported as descriptive
companions of alpha.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.baseline._checks import (
    _check_choice,
    _check_level,
    _check_release,
    _check_resamples,
)
from attunestats.baseline.annotations import (
    ANNOTATION_TYPES,
    PARTICIPANT,
    AnnotationType,
    _check_annotations,
    _check_mode,
    _check_raters,
    _ratings_of,
)
from attunestats.baseline.kernel import (
    MIN_PARTICIPANTS_BOOTSTRAP_T,
    _alpha_subsets,
    _AlphaKernel,
    _bootstrap_t,
    _jackknife_t,
    _percentile,
    _spawned,
    _warn_undefined,
)
from attunestats.errors import AttunestatsWarning, warn

if TYPE_CHECKING:
    from attunestats.release.model import Release

__all__ = [
    "ParticipantAgreementResult",
    "RaterAgreementResult",
    "rater_agreement",
    "rater_vs_participant",
]

RESAMPLE = ("participant", "conversation", "unit")
#: Interval methods for ``resample="participant"``.
METHODS = ("bootstrap-t", "jackknife")
_RESAMPLE_ESTIMAND = {
    "participant": "participants",
    "conversation": "these-participants",
    "unit": "these-participants (units independent)",
}


# --------------------------------------------------------------------------------------------
# rater agreement
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class RaterAgreementResult(ResultMixin):
    """Agreement among raters per annotation type.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per annotation type: ``annotation``, ``description``, ``unit``, ``metric``,
        ``alpha`` (Krippendorff), ``ci_low``, ``ci_high``, ``standard_error``,
        ``percent_agreement`` (share of agreeing pairs of ratings; exact equality, NaN for interval
        data), ``fleiss_kappa`` (nominal types), ``icc`` (ICC(A,1), interval types) with
        ``icc_ci_low``/``icc_ci_high`` (F-based, units independent), ``n_units`` (pairable),
        ``n_conversations``, ``n_participants``, ``n_raters``, ``df`` (``P - 1`` for the
        participant jackknife, NaN for the bootstraps), ``n_undefined_resamples`` (replicates
        or resamples where alpha is undefined; for the bootstrap-t, resamples without a
        studentized value) and the settings (``resample``, ``method``,
        ``estimand``, ``n_resamples``, ``confidence_level``, ``seed``, ``simulated``).
    raters : tuple of str
    resample : str
        ``"participant"`` (the default), ``"conversation"`` (cluster bootstrap) or ``"unit"``.
    method : str
        ``"bootstrap-t"`` (the default) or ``"jackknife"`` with ``resample="participant"``;
        ``"percentile"`` for the other plans.
    bootstrap_distribution : dict of str to ndarray
        Alpha in each resample, per annotation type (bootstraps, including the bootstrap-t).
    replicates : dict of str to ndarray
        Alpha without each participant, per annotation type (``resample="participant"``).
    """

    _title = "Agreement among the human raters"
    _summary_columns = (
        "annotation", "metric", "alpha", "ci_low", "ci_high", "percent_agreement",
        "fleiss_kappa", "icc", "n_units", "n_conversations",
    )  # fmt: skip

    table: pd.DataFrame
    raters: tuple[str, ...]
    resample: str
    n_resamples: int | None
    confidence_level: float
    seed: int | str | None
    simulated: bool
    method: str = "bootstrap-t"
    bootstrap_distribution: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)
    replicates: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The agreement table (a copy)."""
        return self.table.copy()

    def _estimand(self) -> str:
        return "Krippendorff's alpha among the raters, per annotation type, for " + _estimand_words(
            self.resample
        )

    def _method(self) -> str:
        return _resampling_words(self.resample, self.method)

    def _summary_meta(self) -> dict[str, str]:
        return {**super()._summary_meta(), "Raters": ", ".join(self.raters)}

    def _summary_notes(self) -> list[str]:
        return [
            "Fleiss' kappa (nominal types) and the ICC(A,1) (interval types) treat units as "
            "independent; they are descriptive companions of alpha.",
            *_undefined_notes(self.table),
        ]


def _resampling_words(resample: str, method: str = "bootstrap-t") -> str:
    if resample == "participant" and method == "bootstrap-t":
        return ("participant bootstrap-t (percentile-t), studentized by the delete-one-participant "
                "jackknife SE within each resample")  # fmt: skip
    if resample == "participant":
        return "delete-one-participant jackknife, t intervals on P - 1 df"
    unit = "over conversations (cluster)" if resample == "conversation" else "over rated units"
    return f"percentile intervals, bootstrap {unit}"


def _estimand_words(resample: str) -> str:
    if resample == "participant":
        return "the population of participants (participants are the independent units)"
    if resample == "conversation":
        return "these participants (conditional: new conversations of the same participants)"
    return "these participants, rated units treated as independent (ignores all clustering)"


def _interval_method(release: Release, resample: str, method: str) -> str:
    """``method``, or ``"jackknife"`` (with a warning) for a bootstrap-t with too few
    participants in the release."""
    if resample != "participant" or method != "bootstrap-t":
        return method
    n = len(set(_participants_of(release).values()))
    if n >= MIN_PARTICIPANTS_BOOTSTRAP_T:
        return method
    warn(
        f"only {n} participants: the participant bootstrap-t needs at least "
        f"{MIN_PARTICIPANTS_BOOTSTRAP_T} (with few participants it has few distinct resamples; "
        "with 2 its interval has width 0); the delete-one-participant jackknife t interval on "
        f"{max(n - 1, 1)} df is reported instead (method='jackknife')",
        AttunestatsWarning,
    )
    return "jackknife"


def _participants_of(release: Release) -> dict[str, str]:
    conv = release.tables["conversations"]
    return dict(zip(conv["conversation_id"].astype(str), conv["participant_id"].astype(str),
                    strict=True))  # fmt: skip


def _undefined_notes(table: pd.DataFrame) -> list[str]:
    if "n_undefined_resamples" not in table or not (table["n_undefined_resamples"] > 0).any():
        return []
    bad = table.loc[table["n_undefined_resamples"] > 0, ["annotation", "n_undefined_resamples"]]
    listed = ", ".join(f"{a} ({n})" for a, n in bad.itertuples(index=False))
    return [
        f"replicates or resamples where alpha is undefined: {listed} (bootstrap: left out of the "
        "interval; jackknife: no interval)."
    ]


def _fleiss(frame: pd.DataFrame, spec: AnnotationType) -> float:
    from attunestats.agreement import fleiss_kappa

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = fleiss_kappa(
                frame,
                columns=(list(spec.unit_columns), "rater", "value"),
                value_domain=spec.value_domain,
            )
        return float(res.statistic)
    except ValueError:
        return float("nan")


def _icc(frame: pd.DataFrame, spec: AnnotationType, level: float) -> tuple[float, float, float]:
    from attunestats.agreement import icc

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AttunestatsWarning)
            res = icc(
                frame,
                columns=(list(spec.unit_columns), "rater", "value"),
                confidence_level=level,
            )
        i = res.forms.index("ICC(A,1)")
        return (
            float(res.statistic[i]),
            float(res.confidence_interval.low[i]),
            float(res.confidence_interval.high[i]),
        )
    except ValueError:
        return (float("nan"),) * 3


def _simulated(release: Release) -> bool:
    return bool(release.simulated)


def _intervals(
    estimate: np.ndarray, draws: np.ndarray, resample: str, level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(ci_low, ci_high, standard_error, df)`` per column: jackknife t or percentile."""
    if resample == "participant":
        se, lo, hi, df, _ = _jackknife_t(estimate, draws, level)
        return lo, hi, se, df
    lo, hi, se = _percentile(draws, level)
    return lo, hi, se, np.full(len(lo), np.nan)


def rater_agreement(
    release: Release,
    *,
    predictors: Sequence[str] | None = None,
    mode: str = "default",
    annotations: Sequence[str] | None = None,
    resample: Literal["participant", "conversation", "unit"] = "participant",
    method: Literal["bootstrap-t", "jackknife"] = "bootstrap-t",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> RaterAgreementResult:
    """Agreement among the human raters on every annotation type.

    Parameters
    ----------
    release : Release
    predictors : sequence of str, optional
        The raters (default: every predictor of kind ``"human"``); at least two.
    mode : str, default "default"
        Run mode of their predictions.
    annotations : sequence of str, optional
        Names of :data:`ANNOTATION_TYPES` (default: all).
    resample : {"participant", "conversation", "unit"}, default "participant"
        Resampling of participants (the population of participants), cluster bootstrap over
        conversations, or bootstrap over the rated units (see the module docstring).
    method : {"bootstrap-t", "jackknife"}, default "bootstrap-t"
        Interval of ``resample="participant"``: participant bootstrap-t (percentile-t,
        studentized by the jackknife SE within each resample) or the delete-one-participant
        jackknife with a t interval on ``P - 1`` df. Ignored by the other resampling plans
        (percentile intervals).
    n_resamples : int, default 2000
        Bootstrap resamples (0: no interval); not used by the jackknife.
    confidence_level : float, default 0.95
    rng : int, Generator or SeedSequence, optional
        Seed of the bootstraps (the jackknife is not random).

    Returns
    -------
    RaterAgreementResult

    Examples
    --------
    >>> import attunestats as at
    >>> res = at.rater_agreement(at.load_bundled_release(), n_resamples=200, rng=1)
    >>> res.to_frame()[["annotation", "alpha", "ci_low", "ci_high"]].round(2).head(3)
          annotation  alpha  ci_low  ci_high
    0   emotion_tags   0.30    0.25     0.34
    1  emotion_label   0.73    0.70     0.76
    2      binary_om   0.31    0.28     0.37
    """
    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=2)
    mode = _check_mode(release, mode, raters)
    resample = _check_choice(resample, "resample", RESAMPLE)  # type: ignore[assignment]
    method = _check_choice(method, "method", METHODS)  # type: ignore[assignment]
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    method = _interval_method(release, resample, method)  # type: ignore[assignment]
    children = _spawned(check_rng(rng))
    jackknife = resample == "participant" and method == "jackknife"
    boot_t = resample == "participant" and method == "bootstrap-t"
    participants = _participants_of(release)
    rows, dists, jack_reps = [], {}, {}
    nan = float("nan")
    for name in names:
        spec = ANNOTATION_TYPES[name]
        frame = _ratings_of(name, release, raters, mode, participant=False)
        row: dict[str, Any] = {
            "annotation": name,
            "description": spec.description,
            "unit": spec.unit,
            "metric": spec.metric,
        }
        alpha = lo = hi = se = df = pa = fk = nan
        icc_v = (nan,) * 3
        n_units = n_conv = n_part = n_bad = 0
        if len(frame):
            try:
                kernel = _AlphaKernel(frame, spec)
            except ValueError:  # e.g. a single value in the domain
                kernel = None
            if kernel is not None:
                est, dist, subs = _alpha_subsets(
                    kernel, [raters], resample=resample, n_resamples=n_resamples,
                    rng=children[name], participant_of_conversation=participants,
                )  # fmt: skip
                alpha = float(est[0])
                if boot_t:
                    jack_reps[name] = dist[:, 0]
                    bt = _bootstrap_t(subs, dist.shape[0], contrasts=None,
                                      n_resamples=n_resamples, rng=children[name], level=level)  # fmt: skip
                    lo, hi = float(bt["ci_low"][0]), float(bt["ci_high"][0])
                    se, df = float(bt["se"][0]), nan
                    dist = bt["draws"]
                    n_bad = int(bt["n_undefined"][0])
                else:
                    lo_a, hi_a, se_a, df_a = _intervals(est, dist, resample, level)
                    lo, hi, se = float(lo_a[0]), float(hi_a[0]), float(se_a[0])
                    df = float(df_a[0])
                    n_bad = int(np.sum(~np.isfinite(dist[:, 0]))) if len(dist) else 0
                _warn_undefined(name, n_bad, len(dist), jackknife=jackknife, studentized=boot_t)
                dists[name] = dist[:, 0]
                n_units = subs[0].n_units
                pairable = kernel.counts(kernel.rows(raters)).sum(1) >= 2
                pairable_conv = kernel.unit_conversation[pairable]
                n_conv = int(np.unique(pairable_conv).size)
                n_part = len({participants.get(kernel.conversations[c]) for c in
                              np.unique(pairable_conv)})  # fmt: skip
                if not spec.interval:
                    pa = subs[0].percent_agreement()
            if spec.nominal and spec.level == "nominal":
                fk = _fleiss(frame, spec)
            if spec.interval:
                icc_v = _icc(frame, spec, level)
        row.update(
            alpha=alpha,
            ci_low=lo,
            ci_high=hi,
            standard_error=se,
            df=df,
            percent_agreement=pa,
            fleiss_kappa=fk,
            icc=icc_v[0],
            icc_ci_low=icc_v[1],
            icc_ci_high=icc_v[2],
            n_units=n_units,
            n_conversations=n_conv,
            n_participants=n_part,
            n_raters=len(raters),
            n_undefined_resamples=n_bad,
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    table["ci_high"] = table["ci_high"].clip(upper=1.0)  # alpha is at most 1
    seed = None if jackknife else seed_record(rng)
    recorded = None if jackknife else n_resamples
    method = method if resample == "participant" else "percentile"
    _settings(table, resample, recorded, level, seed, _simulated(release), method)
    return RaterAgreementResult(
        table=table,
        raters=tuple(raters),
        resample=resample,
        n_resamples=recorded,
        confidence_level=level,
        seed=seed,
        simulated=_simulated(release),
        method=method,
        bootstrap_distribution=MappingProxyType({} if jackknife else dists),
        replicates=MappingProxyType(dists if jackknife else jack_reps),
    )


def _settings(table: pd.DataFrame, resample: str, n_resamples: int | None, level: float,
              seed: int | str | None, simulated: bool, method: str) -> None:  # fmt: skip
    table["resample"] = resample
    table["method"] = _resampling_words(resample, method)
    table["estimand"] = _RESAMPLE_ESTIMAND[resample]
    table["n_resamples"] = pd.Series([n_resamples] * len(table), dtype=object)
    table["confidence_level"] = level
    table["seed"] = pd.Series([seed] * len(table), dtype=object)
    table["simulated"] = simulated


# --------------------------------------------------------------------------------------------
# raters vs participants
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class ParticipantAgreementResult(ResultMixin):
    """Agreement of each rater with the participants, next to agreement between raters.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per annotation type and pair of "raters": ``comparison`` (``"rater-rater"`` or
        ``"rater-participant"``), ``rater_a``, ``rater_b`` (the participant is
        :data:`PARTICIPANT`), ``alpha`` with ``ci_low``, ``ci_high``, ``standard_error``,
        ``percent_agreement`` (exact equality; NaN for interval data), ``kappa`` (Cohen's;
        unweighted for nominal types, quadratic weights for the ordinal Q3, NaN otherwise) and
        ``kappa_weights``, ``n_units`` (units both rated), ``df`` and the settings.
    by_annotation : pandas.DataFrame
        One row per annotation type: ``alpha_rater_rater`` (mean over rater pairs),
        ``alpha_rater_participant`` (mean over raters), ``difference`` = rater-rater minus
        rater-participant, with a paired ``ci_low``, ``ci_high``, ``standard_error``, ``df`` and
        two-sided ``pvalue`` (participant bootstrap-t, the default: the bootstrap-t test that
        the interval inverts, never below ``2 / (B + 1)``; participant jackknife: t test on
        ``P - 1`` df; either interval excludes 0 exactly when ``pvalue < 1 -
        confidence_level``; conversation or unit bootstraps: percentile interval and bootstrap
        p-value), ``n_participants``; positive differences mean the raters agree with each other
        more than with the participants. (``summary()`` prints this table.)
    resample, method, n_resamples, confidence_level, seed, simulated
        As in :class:`RaterAgreementResult`.
    """

    _title = "Human raters against the participants"
    _summary_columns = (
        "annotation", "metric", "alpha_rater_rater", "alpha_rater_participant", "difference",
        "ci_low", "ci_high", "pvalue",
    )  # fmt: skip

    pairs: pd.DataFrame
    by_annotation: pd.DataFrame
    raters: tuple[str, ...]
    resample: str
    n_resamples: int | None
    confidence_level: float
    seed: int | str | None
    simulated: bool
    method: str = "bootstrap-t"
    bootstrap_distribution: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)
    replicates: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The pair table (a copy)."""
        return self.pairs.copy()

    def _estimand(self) -> str:
        return (
            "mean rater-rater alpha minus mean rater-participant alpha, per annotation type "
            f"(paired), for {_estimand_words(self.resample)}"
        )

    def _method(self) -> str:
        return _resampling_words(self.resample, self.method)

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        table = self.by_annotation[
            [c for c in self._summary_columns if c in self.by_annotation.columns]
        ]
        meta = {**self._summary_meta(), "Raters": ", ".join(self.raters)}
        notes = [
            "positive differences: the raters agree with each other more than with the "
            "participants; to_frame() has alpha and kappa for every pair."
        ]
        return self._title, meta, table, notes


def _cohen(frame: pd.DataFrame, spec: AnnotationType, a: str, b: str) -> tuple[float, str | None]:
    from attunestats.agreement import cohen_kappa

    if not spec.nominal:
        return float("nan"), None  # no kappa: a missing value (an empty CSV cell)
    weights = "quadratic" if spec.level == "ordinal" else None
    sub = frame.loc[frame["rater"].isin([a, b])]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = cohen_kappa(
                sub,
                columns=(list(spec.unit_columns), "rater", "value"),
                weights=weights,
                value_domain=spec.value_domain,
            )
        return float(res.statistic), weights or "identity"
    except ValueError:
        return float("nan"), weights or "identity"


def rater_vs_participant(
    release: Release,
    *,
    predictors: Sequence[str] | None = None,
    mode: str = "default",
    annotations: Sequence[str] | None = None,
    resample: Literal["participant", "conversation", "unit"] = "participant",
    method: Literal["bootstrap-t", "jackknife"] = "bootstrap-t",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ParticipantAgreementResult:
    """Each rater against the participants' own annotations, and against the other raters.

    The participant is treated as one more rater (:data:`PARTICIPANT`: the ground-truth emotion
    tags, binary references, pairwise winners, post PANAS, four-branch scores and survey
    answers). For every annotation type, alpha (and Cohen's kappa where it applies) is computed for
    every rater-participant pair and every rater-rater pair on the same participant replicates (or
    bootstrap resamples), so the difference "mean rater-rater alpha minus mean rater-participant
    alpha" has a paired interval and test.

    Parameters
    ----------
    release : Release
    predictors : sequence of str, optional
        The raters (default: every predictor of kind ``"human"``); at least one.
    mode, annotations, resample, method, n_resamples, confidence_level, rng
        As in :func:`rater_agreement`; the difference's p-value comes from the same procedure
        as its interval (bootstrap-t, t test on ``P - 1`` df, or bootstrap).

    Returns
    -------
    ParticipantAgreementResult

    Examples
    --------
    >>> import attunestats as at
    >>> res = at.rater_vs_participant(at.load_bundled_release(), n_resamples=200, rng=1)
    >>> res.by_annotation[["annotation", "difference", "ci_low", "ci_high"]].round(2).head(3)
          annotation  difference  ci_low  ci_high
    0   emotion_tags       -0.12   -0.13    -0.11
    1  emotion_label       -0.07   -0.08    -0.04
    2      binary_om        0.06    0.00     0.11
    """
    from attunestats.inference.compare import bootstrap_pvalue

    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=1)
    mode = _check_mode(release, mode, raters)
    resample = _check_choice(resample, "resample", RESAMPLE)  # type: ignore[assignment]
    method = _check_choice(method, "method", METHODS)  # type: ignore[assignment]
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    method = _interval_method(release, resample, method)  # type: ignore[assignment]
    children = _spawned(check_rng(rng))
    rater_pairs = list(combinations(raters, 2))
    part_pairs = [(r, PARTICIPANT) for r in raters]
    all_pairs = rater_pairs + part_pairs
    kinds = ["rater-rater"] * len(rater_pairs) + ["rater-participant"] * len(part_pairs)
    jackknife = resample == "participant" and method == "jackknife"
    boot_t = resample == "participant" and method == "bootstrap-t"
    participants = _participants_of(release)
    pair_frames, annotation_rows, dists, jack_reps = [], [], {}, {}
    nan = float("nan")
    n_pairs = len(all_pairs)
    # paired difference: mean rater-rater alpha - mean rater-participant alpha
    contrast = np.zeros(n_pairs)
    if rater_pairs:
        contrast[: len(rater_pairs)] = 1.0 / len(rater_pairs)
    contrast[len(rater_pairs) :] = -1.0 / len(part_pairs)
    for name in names:
        spec = ANNOTATION_TYPES[name]
        frame = _ratings_of(name, release, raters, mode, participant=True)
        bt: dict[str, np.ndarray] | None = None
        n_part_used = nan
        est = np.full(n_pairs, nan)
        dist = np.full((0 if jackknife else n_resamples, n_pairs), nan)
        n_units = np.zeros(n_pairs, dtype=np.int64)
        pa = np.full(n_pairs, nan)
        kernel = None
        if len(frame):
            try:
                kernel = _AlphaKernel(frame, spec)
            except ValueError:
                kernel = None
        if kernel is not None:
            present = [p for p in all_pairs if all(r in kernel.raters for r in p)]
            idx = [all_pairs.index(p) for p in present]
            if present:
                e, d, subs = _alpha_subsets(
                    kernel, [list(p) for p in present], resample=resample,
                    n_resamples=n_resamples, rng=children[name],
                    participant_of_conversation=participants,
                )  # fmt: skip
                if jackknife:
                    dist = np.full((d.shape[0], n_pairs), nan)
                if boot_t:
                    n_part_used = d.shape[0]
                    jack_reps[name] = np.full((d.shape[0], n_pairs), nan)
                    jack_reps[name][:, idx] = d
                    whole = len(idx) == n_pairs and bool(rater_pairs)
                    bt = _bootstrap_t(subs, d.shape[0],
                                      contrasts=contrast[idx][:, None] if whole else None,
                                      n_resamples=n_resamples, rng=children[name], level=level)  # fmt: skip
                    d = bt["draws"][:, : len(idx)]
                    n_bad = int(bt["n_undefined"].max()) if bt["n_undefined"].size else 0
                    _warn_undefined(name, n_bad, n_resamples, studentized=True)
                est[idx], dist[:, idx] = e, d
                n_units[idx] = [s.n_units for s in subs]
                if not spec.interval:
                    pa[idx] = [s.percent_agreement() for s in subs]
        if boot_t:
            lo, hi, se = np.full(n_pairs, nan), np.full(n_pairs, nan), np.full(n_pairs, nan)
            df = np.full(n_pairs, nan)
            if bt is not None:
                lo[idx], hi[idx], se[idx] = (bt[k][: len(idx)] for k in ("ci_low", "ci_high", "se"))
        else:
            lo, hi, se, df = _intervals(est, dist, resample, level)
        kappa = [
            _cohen(frame, spec, a, b) if kernel is not None else (nan, None) for a, b in all_pairs
        ]
        pair_frames.append(
            pd.DataFrame(
                {
                    "annotation": name,
                    "unit": spec.unit,
                    "metric": spec.metric,
                    "comparison": kinds,
                    "rater_a": [a for a, _ in all_pairs],
                    "rater_b": [b for _, b in all_pairs],
                    "alpha": est,
                    "ci_low": lo,
                    "ci_high": hi,
                    "standard_error": se,
                    "df": df,
                    "percent_agreement": pa,
                    "kappa": [k for k, _ in kappa],
                    "kappa_weights": [w for _, w in kappa],
                    "n_units": n_units,
                }
            )
        )
        rr = float(np.mean(est[: len(rater_pairs)])) if rater_pairs else nan
        rp = float(np.mean(est[len(rater_pairs) :]))
        diff = rr - rp if rater_pairs else nan
        dists[name] = dist
        if not boot_t:  # the bootstrap-t studentizes the contrast within resamples instead
            d_dist = dist @ contrast if rater_pairs else np.full(dist.shape[0], nan)
        if jackknife:
            d_se, d_lo, d_hi, d_df, d_p = _jackknife_t(np.array([diff]), d_dist[:, None], level)
            pval, d_df0 = float(d_p[0]), float(d_df[0])
        elif boot_t:
            d_df0 = pval = nan
            d_lo, d_hi, d_se = np.full(1, nan), np.full(1, nan), np.full(1, nan)
            if bt is not None and bt["estimate"].size > len(idx):  # the contrast column
                d_lo, d_hi, d_se = bt["ci_low"][-1:], bt["ci_high"][-1:], bt["se"][-1:]
                pval = float(bt["pvalue"][-1])
        else:
            d_lo, d_hi, d_se = _percentile(d_dist[:, None], level)
            pval = (
                float(bootstrap_pvalue(d_dist[:, None], np.array([diff]))[0])
                if n_resamples and np.isfinite(diff)
                else nan
            )
            d_df0 = nan
        annotation_rows.append(
            {
                "annotation": name,
                "unit": spec.unit,
                "metric": spec.metric,
                "alpha_rater_rater": rr,
                "alpha_rater_participant": rp,
                "difference": diff,
                "ci_low": float(d_lo[0]),
                "ci_high": float(d_hi[0]),
                "standard_error": float(d_se[0]),
                "df": d_df0,
                "pvalue": pval,
                "n_raters": len(raters),
                "n_participants": dist.shape[0] if jackknife else n_part_used,
            }
        )
    seed = None if jackknife else seed_record(rng)
    recorded = None if jackknife else n_resamples
    method = method if resample == "participant" else "percentile"
    simulated = _simulated(release)
    pairs = pd.concat(pair_frames, ignore_index=True)
    pairs["ci_high"] = pairs["ci_high"].clip(upper=1.0)  # alpha is at most 1
    by_annotation = pd.DataFrame(annotation_rows)
    for frame_ in (pairs, by_annotation):
        _settings(frame_, resample, recorded, level, seed, simulated, method)
    return ParticipantAgreementResult(
        pairs=pairs,
        by_annotation=by_annotation,
        raters=tuple(raters),
        resample=resample,
        n_resamples=recorded,
        confidence_level=level,
        seed=seed,
        simulated=simulated,
        method=method,
        bootstrap_distribution=MappingProxyType({} if jackknife else dists),
        replicates=MappingProxyType(dists if jackknife else jack_reps),
    )
