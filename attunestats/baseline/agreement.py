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
Units within a conversation are not independent (the same participant, topic and conversation
drive all of them), so the default interval is a *cluster* bootstrap over conversations
(``resample="conversation"``): conversations are drawn with replacement and every unit of a drawn
conversation enters with the conversation's multiplicity; alpha is recomputed from the resampled
coincidences (Krippendorff's unit-contribution kernel, :mod:`attunestats.agreement.alpha`).
``resample="unit"`` draws the rated units themselves (turns, questions, comparisons, ...) with
replacement, which is :func:`~attunestats.agreement.krippendorff_alpha`'s ``method="units"`` and
ignores the clustering (narrower intervals when units of a conversation are correlated). Percentile
intervals; resamples where alpha is undefined are left out and counted. All alphas of one
annotation type (every rater subset, rater pair and rater-participant pair) are evaluated on the
same resamples, so their differences are paired. The F-based ICC intervals and Fleiss' kappa
standard errors of :mod:`attunestats.agreement` treat units as independent; they are reported as
descriptive companions of alpha.
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
    _alpha_subsets,
    _AlphaKernel,
    _percentile,
    _spawned,
    _warn_undefined,
)
from attunestats.errors import AttunestatsWarning

if TYPE_CHECKING:
    from attunestats.release.model import Release

__all__ = [
    "ParticipantAgreementResult",
    "RaterAgreementResult",
    "rater_agreement",
    "rater_vs_participant",
]

RESAMPLE = ("conversation", "unit")


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
        ``n_conversations``, ``n_raters``, ``n_undefined_resamples`` and the settings
        (``resample``, ``n_resamples``, ``confidence_level``, ``seed``, ``simulated``).
    raters : tuple of str
    resample : str
        ``"conversation"`` (cluster bootstrap) or ``"unit"``.
    bootstrap_distribution : dict of str to ndarray
        Alpha in each resample, per annotation type.
    """

    _title = "Agreement among the human raters"
    _summary_columns = (
        "annotation", "metric", "alpha", "ci_low", "ci_high", "percent_agreement",
        "fleiss_kappa", "icc", "n_units", "n_conversations",
    )  # fmt: skip

    table: pd.DataFrame
    raters: tuple[str, ...]
    resample: str
    n_resamples: int
    confidence_level: float
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The agreement table (a copy)."""
        return self.table.copy()

    def _estimand(self) -> str:
        return "Krippendorff's alpha among the raters, per annotation type"

    def _method(self) -> str:
        return _resampling_words(self.resample)

    def _summary_meta(self) -> dict[str, str]:
        return {**super()._summary_meta(), "Raters": ", ".join(self.raters)}

    def _summary_notes(self) -> list[str]:
        return [
            "Fleiss' kappa (nominal types) and the ICC(A,1) (interval types) treat units as "
            "independent; they are descriptive companions of alpha.",
            *_undefined_notes(self.table),
        ]


def _resampling_words(resample: str) -> str:
    unit = "over conversations (cluster)" if resample == "conversation" else "over rated units"
    return f"percentile intervals, bootstrap {unit}"


def _undefined_notes(table: pd.DataFrame) -> list[str]:
    if "n_undefined_resamples" not in table or not (table["n_undefined_resamples"] > 0).any():
        return []
    bad = table.loc[table["n_undefined_resamples"] > 0, ["annotation", "n_undefined_resamples"]]
    listed = ", ".join(f"{a} ({n})" for a, n in bad.itertuples(index=False))
    return [f"resamples where alpha is undefined, left out of the interval: {listed}."]


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


def rater_agreement(
    release: Release,
    *,
    predictors: Sequence[str] | None = None,
    mode: str = "default",
    annotations: Sequence[str] | None = None,
    resample: Literal["conversation", "unit"] = "conversation",
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
    resample : {"conversation", "unit"}, default "conversation"
        Cluster bootstrap over conversations, or bootstrap over the rated units (see the module
        docstring).
    n_resamples : int, default 2000
        Bootstrap resamples (0: no interval).
    confidence_level : float, default 0.95
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    RaterAgreementResult

    Examples
    --------
    >>> import attunestats as at
    >>> res = rater_agreement(at.load_bundled_release(), n_resamples=500, rng=1)  # doctest: +SKIP
    >>> res.to_frame()[["annotation", "alpha", "ci_low", "ci_high"]]             # doctest: +SKIP
    """
    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=2)
    mode = _check_mode(release, mode, raters)
    resample = _check_choice(resample, "resample", RESAMPLE)  # type: ignore[assignment]
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    children = _spawned(check_rng(rng))
    rows, dists = [], {}
    for name in names:
        spec = ANNOTATION_TYPES[name]
        frame = _ratings_of(name, release, raters, mode, participant=False)
        row: dict[str, Any] = {
            "annotation": name,
            "description": spec.description,
            "unit": spec.unit,
            "metric": spec.metric,
        }
        alpha = lo = hi = se = pa = fk = float("nan")
        icc_v = (float("nan"),) * 3
        n_units = n_conv = n_bad = 0
        if len(frame):
            try:
                kernel = _AlphaKernel(frame, spec)
            except ValueError:  # e.g. a single value in the domain
                kernel = None
            if kernel is not None:
                est, dist, subs = _alpha_subsets(
                    kernel, [raters], resample=resample, n_resamples=n_resamples,
                    rng=children[name],
                )  # fmt: skip
                alpha = float(est[0])
                lo_a, hi_a, se_a = _percentile(dist, level)
                lo, hi, se = float(lo_a[0]), float(hi_a[0]), float(se_a[0])
                n_bad = int(np.sum(~np.isfinite(dist[:, 0]))) if n_resamples else 0
                _warn_undefined(name, n_bad, n_resamples)
                dists[name] = dist[:, 0]
                n_units = subs[0].n_units
                pairable_conv = kernel.unit_conversation[
                    kernel.counts(kernel.rows(raters)).sum(1) >= 2
                ]
                n_conv = int(np.unique(pairable_conv).size)
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
            percent_agreement=pa,
            fleiss_kappa=fk,
            icc=icc_v[0],
            icc_ci_low=icc_v[1],
            icc_ci_high=icc_v[2],
            n_units=n_units,
            n_conversations=n_conv,
            n_raters=len(raters),
            n_undefined_resamples=n_bad,
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    seed = seed_record(rng)
    table["resample"] = resample
    table["n_resamples"] = n_resamples
    table["confidence_level"] = level
    table["seed"] = pd.Series([seed] * len(table), dtype=object)
    table["simulated"] = _simulated(release)
    return RaterAgreementResult(
        table=table,
        raters=tuple(raters),
        resample=resample,
        n_resamples=n_resamples,
        confidence_level=level,
        seed=seed,
        simulated=_simulated(release),
        bootstrap_distribution=MappingProxyType(dists),
    )


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
        ``kappa_weights``, ``n_units`` (units both rated), and the settings.
    by_annotation : pandas.DataFrame
        One row per annotation type: ``alpha_rater_rater`` (mean over rater pairs),
        ``alpha_rater_participant`` (mean over raters), ``difference`` = rater-rater minus
        rater-participant, with a paired bootstrap ``ci_low``, ``ci_high``, ``standard_error``
        and two-sided bootstrap ``pvalue``; positive differences mean the raters agree with each
        other more than with the participants. (``summary()`` prints this table.)
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
    n_resamples: int
    confidence_level: float
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The pair table (a copy)."""
        return self.pairs.copy()

    def _estimand(self) -> str:
        return (
            "mean rater-rater alpha minus mean rater-participant alpha, per annotation type "
            "(paired)"
        )

    def _method(self) -> str:
        return _resampling_words(self.resample)

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


def _cohen(frame: pd.DataFrame, spec: AnnotationType, a: str, b: str) -> tuple[float, str]:
    from attunestats.agreement import cohen_kappa

    if not spec.nominal:
        return float("nan"), ""
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
    resample: Literal["conversation", "unit"] = "conversation",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ParticipantAgreementResult:
    """Each rater against the participants' own annotations, and against the other raters.

    The participant is treated as one more rater (:data:`PARTICIPANT`: the ground-truth emotion
    tags, binary references, pairwise winners, post PANAS, four-branch scores and survey
    answers). For every annotation type, alpha (and Cohen's kappa where it applies) is computed for
    every rater-participant pair and every rater-rater pair on the same bootstrap resamples, so the
    difference "mean rater-rater alpha minus mean rater-participant alpha" has a paired interval.

    Parameters
    ----------
    release : Release
    predictors : sequence of str, optional
        The raters (default: every predictor of kind ``"human"``); at least one.
    mode, annotations, resample, n_resamples, confidence_level, rng
        As in :func:`rater_agreement`.

    Returns
    -------
    ParticipantAgreementResult

    Examples
    --------
    >>> import attunestats as at
    >>> res = rater_vs_participant(at.load_bundled_release(), n_resamples=500, rng=1)  # doctest: +SKIP
    >>> res.by_annotation[["annotation", "difference", "ci_low", "ci_high"]]         # doctest: +SKIP
    """
    from attunestats.inference.compare import bootstrap_pvalue

    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=1)
    mode = _check_mode(release, mode, raters)
    resample = _check_choice(resample, "resample", RESAMPLE)  # type: ignore[assignment]
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    children = _spawned(check_rng(rng))
    rater_pairs = list(combinations(raters, 2))
    part_pairs = [(r, PARTICIPANT) for r in raters]
    all_pairs = rater_pairs + part_pairs
    kinds = ["rater-rater"] * len(rater_pairs) + ["rater-participant"] * len(part_pairs)
    pair_frames, annotation_rows, dists = [], [], {}
    nan = float("nan")
    for name in names:
        spec = ANNOTATION_TYPES[name]
        frame = _ratings_of(name, release, raters, mode, participant=True)
        n_pairs = len(all_pairs)
        est = np.full(n_pairs, nan)
        dist = np.full((n_resamples, n_pairs), nan)
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
                )  # fmt: skip
                est[idx], dist[:, idx] = e, d
                n_units[idx] = [s.n_units for s in subs]
                if not spec.interval:
                    pa[idx] = [s.percent_agreement() for s in subs]
        lo, hi, se = _percentile(dist, level)
        kappa = [
            _cohen(frame, spec, a, b) if kernel is not None else (nan, "") for a, b in all_pairs
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
                    "percent_agreement": pa,
                    "kappa": [k for k, _ in kappa],
                    "kappa_weights": [w for _, w in kappa],
                    "n_units": n_units,
                }
            )
        )
        # paired difference: mean rater-rater alpha - mean rater-participant alpha
        contrast = np.zeros(n_pairs)
        if rater_pairs:
            contrast[: len(rater_pairs)] = 1.0 / len(rater_pairs)
        contrast[len(rater_pairs) :] = -1.0 / len(part_pairs)
        rr = float(np.mean(est[: len(rater_pairs)])) if rater_pairs else nan
        rp = float(np.mean(est[len(rater_pairs) :]))
        diff = rr - rp if rater_pairs else nan
        d_dist = dist @ contrast if rater_pairs else np.full(n_resamples, nan)
        dists[name] = dist
        d_lo, d_hi, d_se = _percentile(d_dist[:, None], level)
        pval = (
            float(bootstrap_pvalue(d_dist[:, None], np.array([diff]))[0])
            if n_resamples and np.isfinite(diff)
            else nan
        )
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
                "pvalue": pval,
                "n_raters": len(raters),
            }
        )
    seed = seed_record(rng)
    simulated = _simulated(release)
    pairs = pd.concat(pair_frames, ignore_index=True)
    by_annotation = pd.DataFrame(annotation_rows)
    for frame_ in (pairs, by_annotation):
        frame_["resample"] = resample
        frame_["n_resamples"] = n_resamples
        frame_["confidence_level"] = level
        frame_["seed"] = pd.Series([seed] * len(frame_), dtype=object)
        frame_["simulated"] = simulated
    return ParticipantAgreementResult(
        pairs=pairs,
        by_annotation=by_annotation,
        raters=tuple(raters),
        resample=resample,
        n_resamples=n_resamples,
        confidence_level=level,
        seed=seed,
        simulated=simulated,
        bootstrap_distribution=MappingProxyType(dists),
    )
