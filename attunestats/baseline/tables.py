"""Every table of the human-baseline analysis (what notebook 07 shows), from one call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import pandas as pd

from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.baseline._checks import _check_release
from attunestats.baseline.agreement import rater_agreement, rater_vs_participant
from attunestats.baseline.claim import claim_f
from attunestats.baseline.comparison import humans_vs_models

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

__all__ = ["baseline_tables"]


def baseline_tables(
    release: Release,
    scores: Scores | None = None,
    *,
    correction: Literal["maxt", "holm", "bonferroni", "bh", "none"] = "holm",
    ground: Literal["common", "all"] = "common",
    estimand: Literal["participants", "these-participants"] = "participants",
    resample: Literal["participant", "conversation", "unit"] = "participant",
    agreement_method: Literal["bootstrap-t", "jackknife"] = "bootstrap-t",
    agreement_resamples: int = 2000,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> dict[str, pd.DataFrame]:
    """Every table of the human-baseline analysis, from one call.

    Parameters
    ----------
    release : Release
    scores : Scores, optional
        ``attunestats.score(release)`` (computed here when absent).
    correction : {"maxt", "holm", "bonferroni", "bh", "none"}, default "holm"
    ground : {"common", "all"}, default "common"
        Humans vs models on each rater's common ground, or on all units.
    estimand : {"participants", "these-participants"}, default "participants"
        Humans vs models and claim (f): participant jackknife, or the conversation bootstrap.
    resample : {"participant", "conversation", "unit"}, default "participant"
        Resampling of the agreement tables (participants, or a conditional bootstrap).
    agreement_method : {"bootstrap-t", "jackknife"}, default "bootstrap-t"
        Interval of the agreement tables with ``resample="participant"``
        (:func:`~attunestats.baseline.rater_agreement`'s ``method``).
    agreement_resamples : int, default 2000
        Resamples of the agreement bootstraps (not used by the jackknife).
    n_resamples : int, default 10000
        Resamples of the conversation bootstrap of humans vs models (``estimand`` =
        ``"these-participants"``).
    confidence_level : float, default 0.95
    rng : int, Generator or SeedSequence, optional
        Root seed; the agreement tables and the comparisons get independent child streams.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``rater_agreement``, ``rater_vs_participant``, ``rater_vs_participant_summary``,
        ``humans_vs_models`` (with the units compared in every row), ``humans_vs_models_summary``
        and ``claim_f`` (one row per tested quantity); each has a ``simulated`` column.
    """
    from attunestats.metrics.score import score

    _check_release(release)
    if scores is None:
        scores = score(release)
    g_agree, g_part, g_boot = check_rng(rng).spawn(3)
    agree = rater_agreement(
        release, resample=resample, method=agreement_method, n_resamples=agreement_resamples,
        confidence_level=confidence_level, rng=g_agree,
    )  # fmt: skip
    part = rater_vs_participant(
        release, resample=resample, method=agreement_method, n_resamples=agreement_resamples,
        confidence_level=confidence_level, rng=g_part,
    )  # fmt: skip
    hvm = humans_vs_models(
        scores, release=release, correction=correction, ground=ground, estimand=estimand,
        n_resamples=n_resamples, confidence_level=confidence_level, rng=g_boot,
    )  # fmt: skip
    claim = claim_f(hvm, release)
    seed = seed_record(rng)
    tables = {
        "rater_agreement": agree.to_frame(),
        "rater_vs_participant": part.pairs.copy(),
        "rater_vs_participant_summary": part.by_annotation.copy(),
        "humans_vs_models": hvm.comparisons.copy(),
        "humans_vs_models_summary": hvm.by_metric.copy(),
        "claim_f": claim.to_frame(),
    }
    for frame in tables.values():
        frame["root_seed"] = pd.Series([seed] * len(frame), dtype=object)
    return tables
