"""Inference for the population of participants: few-cluster methods for every score.

The estimand
------------
AttuneBench's conversations come from a handful of participants, and everything one participant
annotates (emotions, judgements, preferences, surveys) shares that person's way of annotating. A
claim such as "model A beats model B" or "participants with a diagnosis differ" is a claim about
the *population of participants*: a new study would recruit new people. The estimand of every
interval and test here is therefore the population value of the statistic, i.e. the value the
official scorer would report on an unlimited number of participants drawn like these (for a
mean over conversations: the ratio of the expected per-participant sums, which weights
participants by their number of conversations, as the official aggregate does). Participants are
the independent units, so their number ``P`` (not the number of conversations) sets the degrees
of freedom.

Methods
-------
Every predictor-level statistic is ``g(T)`` with ``T`` a sum over conversations
(:mod:`attunestats.inference.sums`), so participant replicates are cheap: one weight vector per
participant, evaluated for every predictor and metric at once.

``"jackknife"`` (default)
    Delete-one-participant jackknife variance (the cluster jackknife, "CV3"), ``t`` intervals and
    tests. Valid for every statistic (means, pooled ratios, F1, MCC, Kendall tau averages, the
    composite) and any contrast of them. For a mean with equal numbers of conversations per
    participant it *is* the t interval on the participant means, with ``P - 1`` degrees of
    freedom; MacKinnon, Nielsen and Webb (2023) recommend it with ``t(G - 1)`` for few clusters.
``"cr2"``
    Bias-reduced linearisation (CR2; Bell and McCaffrey 2002) of the linearised statistic
    (Pustejovsky and Tipton 2018). Exactly clubSandwich's CR2 for a conversation mean without
    missing values; a linearisation for non-linear statistics. With missing values (a metric
    null in some conversations) the adjustment, like the working-model df below, counts all of
    a participant's conversations, not only those with a value: an approximation (0.2% of the
    SE for the PANAS-NA metric of the bundled release; about 3% when the missing values sit in
    one participant).

Degrees of freedom (both methods): Satterthwaite's for the variance estimator under a working
random-intercept model with the statistic's estimated intraclass correlation (Imbens and Kolesar
2016; :func:`working_df`). With equal numbers of conversations per participant this is ``P - 1``
whatever the correlation; unequal numbers give fewer (4.5-7.5 for the paired differences of the
bundled simulated release's 11 participants), which widens the intervals where a few
participants carry most conversations. A participant with no value for a statistic (a metric
missing on all their conversations, a predictor that did not answer them) is not in its sample:
variance and df run over the participants that have data (:func:`participants_with_data`).

With ``strata`` (e.g. ``"diagnosis_group"``), participants are resampled within strata (JKn:
the remaining participants of a stratum are reweighted by ``P_h / (P_h - 1)``), the variance is
summed over strata and the degrees of freedom are Satterthwaite's over the strata components
(Welch's test for a difference between two groups' means).

The conditional analysis (these participants, new conversations; the conversation bootstrap of
:func:`attunestats.inference.bootstrap.bootstrap_scores`) answers another question and is
available by name only.

References
----------
Bell, R. M. and McCaffrey, D. F. (2002). Bias reduction in standard errors for linear regression
with multi-stage samples. Survey Methodology 28, 169-181.
Imbens, G. W. and Kolesar, M. (2016). Robust standard errors in small samples: some practical
advice. Review of Economics and Statistics 98, 701-712.
MacKinnon, J. G., Nielsen, M. O. and Webb, M. D. (2023). Cluster-robust inference: a guide to
empirical practice. Journal of Econometrics 232, 272-299.
Pustejovsky, J. E. and Tipton, E. (2018). Small-sample methods for cluster-robust variance
estimation and hypothesis testing in fixed effects models. Journal of Business & Economic
Statistics 36, 672-683.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats.errors import warn
from attunestats.inference.sums import SumStatistic, scores_statistic

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

ClusterMethod = Literal["jackknife", "cr2"]
CLUSTER_METHODS: tuple[str, ...] = ("jackknife", "cr2")

#: One sentence per estimand, recorded with every result.
ESTIMANDS: dict[str, str] = {
    "participants": (
        "the population of participants: the value on new participants' conversations "
        "(participants are the independent units)"
    ),
    "these-participants": (
        "these participants (conditional): the value on new conversations of the same "
        "participants, participant effects held fixed"
    ),
}

_METHOD_WORDS = {
    "jackknife": "delete-one-participant jackknife (CV3), t intervals with working-model "
    "Satterthwaite df",
    "cr2": "CR2 cluster-robust SE (Bell-McCaffrey), working-model Satterthwaite df",
}


# --------------------------------------------------------------------------------------------
# participants and strata
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParticipantDesign:
    """Which conversation belongs to which participant (and stratum).

    Attributes
    ----------
    participant : ndarray of int, shape (C,)
        Participant code of each conversation (into :attr:`participant_ids`).
    stratum_of_participant : ndarray of int, shape (P,)
        Stratum code of each participant (all 0 without strata).
    participant_ids, strata_ids : tuple of str
        Sorted participant ids and stratum labels.
    strata : str or None
        Name of the stratifying column.
    """

    participant: np.ndarray
    stratum_of_participant: np.ndarray
    participant_ids: tuple[str, ...]
    strata_ids: tuple[str, ...]
    strata: str | None = None

    @classmethod
    def from_design(cls, design: pd.DataFrame, *, strata: str | None = None) -> ParticipantDesign:
        """From a design table (one row per conversation, with ``participant_id``)."""
        if "participant_id" not in design.columns:
            raise ValueError(
                f"the design has no 'participant_id' column; columns: {list(design.columns)}"
            )
        pid = design["participant_id"]
        if pid.isna().any():
            n_missing = int(pid.isna().sum())
            raise ValueError(
                f"{n_missing} conversation(s) have no participant_id; participant-level "
                "inference needs every conversation's participant"
            )
        codes, uniques = pd.factorize(pid.astype(str), sort=True)
        n_part = len(uniques)
        if strata is None:
            strat = np.zeros(n_part, dtype=np.int64)
            strata_ids: tuple[str, ...] = ("all",)
        else:
            if strata not in design.columns:
                raise ValueError(
                    f"strata column {strata!r} is not in the design; columns: "
                    f"{list(design.columns)}"
                )
            per_part = design.groupby(codes)[strata].agg(lambda s: tuple(pd.unique(s)))
            mixed = [uniques[i] for i, v in per_part.items() if len(v) != 1]
            if mixed:
                raise ValueError(
                    f"strata column {strata!r} is not constant within participant(s) "
                    f"{mixed[:5]}; participant strata need a participant attribute"
                )
            labels = per_part.map(lambda v: v[0]).astype(str)
            strat_codes, strat_uniques = pd.factorize(labels.sort_index(), sort=True)
            strat = strat_codes.astype(np.int64)
            strata_ids = tuple(str(s) for s in strat_uniques)
        return cls(
            participant=codes.astype(np.int64),
            stratum_of_participant=strat,
            participant_ids=tuple(str(u) for u in uniques),
            strata_ids=strata_ids,
            strata=strata,
        )

    @property
    def n_participants(self) -> int:
        return len(self.participant_ids)

    @property
    def n_conversations(self) -> int:
        return len(self.participant)

    def stratum_sizes(self) -> np.ndarray:
        """Participants per stratum."""
        return np.bincount(self.stratum_of_participant, minlength=len(self.strata_ids))

    def check(self) -> None:
        """Raise when the design cannot give a variance (fewer than 2 per stratum)."""
        sizes = self.stratum_sizes()
        if self.n_participants < 2:
            raise ValueError(
                f"participant-level inference needs at least 2 participants; got "
                f"{self.n_participants}"
            )
        small = [self.strata_ids[h] for h in np.flatnonzero(sizes < 2)]
        if small:
            raise ValueError(
                f"stratum/strata {small} of {self.strata!r} have fewer than 2 participants: "
                "no within-stratum variance; merge strata or drop strata="
            )

    def jackknife_weights(self) -> np.ndarray:
        """Delete-one-participant replicate weights, shape (P, C) (JKn reweighting in strata)."""
        sizes = self.stratum_sizes().astype(float)
        stratum_of_conv = self.stratum_of_participant[self.participant]
        weights = np.ones((self.n_participants, self.n_conversations))
        if self.strata is not None:
            for p in range(self.n_participants):
                h = self.stratum_of_participant[p]
                same = stratum_of_conv == h
                weights[p, same] = sizes[h] / (sizes[h] - 1.0)
        weights[np.arange(self.n_participants)[:, None] == self.participant[None, :]] = 0.0
        return weights


# --------------------------------------------------------------------------------------------
# variance kernels
# --------------------------------------------------------------------------------------------
def jackknife_variance(
    replicates: np.ndarray, stratum: np.ndarray, n_strata: int, present: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Stratified jackknife variance and Satterthwaite df of each column of ``replicates``.

    ``v = sum_h (P_h - 1) / P_h sum_{p in h} (r_p - mean_h r)^2``;
    ``df = v^2 / sum_h v_h^2 / (P_h - 1)`` (``P - 1`` without strata). NaN replicates make the
    column's variance NaN. ``present`` (P, L) marks the participants in each column's sample
    (:func:`participants_with_data`; default all): the sums and ``P_h`` run over them only, a
    stratum without one adds nothing, a stratum with one has no variance (NaN).
    """
    r = np.asarray(replicates, dtype=float)
    here = np.ones(r.shape, dtype=bool) if present is None else np.asarray(present, dtype=bool)
    components = np.zeros((n_strata, r.shape[1]))
    sizes = np.zeros((n_strata, r.shape[1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        for h in range(n_strata):
            rows, m = r[stratum == h], here[stratum == h]
            n = m.sum(axis=0).astype(float)
            dev = np.where(m, rows - np.where(m, rows, 0.0).sum(axis=0) / n, 0.0)
            comp = (n - 1.0) / n * np.sum(dev * dev, axis=0)
            components[h] = np.where(n == 0, 0.0, np.where(n == 1, np.nan, comp))
            sizes[h] = n
        variance = components.sum(axis=0)
        used = sizes > 1
        denom = np.sum(np.where(used, components**2 / (sizes - 1.0), 0.0), axis=0)
        df = np.where(denom > 0, variance**2 / denom, np.sum(np.where(used, sizes - 1.0, 0.0), 0))
    if n_strata == 1:
        df = sizes[0] - 1.0
    return variance, df


def cr2_variance(
    influence: np.ndarray,
    participant: np.ndarray,
    n_participants: int,
    present: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """CR2 variance and Bell-McCaffrey / Satterthwaite df of linearised statistics.

    ``influence`` is (C, L): the derivative of each statistic with respect to each
    conversation's weight (for a mean, ``(y_c - mean) / C``). Participant scores
    ``u_p = sum_{c in p} influence_c`` are inflated by ``1 / sqrt(1 - n_p / C)`` (the CR2
    adjustment of an intercept-only regression with ``n_p`` conversations in participant ``p``),
    ``v = sum_p u_p^2 / (1 - n_p / C)``. Under the working model of independent homoscedastic
    conversations ``u ~ N(0, s2 Omega)`` with ``Omega = diag(n) - n n' / C``, so
    ``v = u' M u`` (``M = diag(1 / (1 - n_p / C))``) has Satterthwaite
    ``df = tr(M Omega)^2 / tr((M Omega)^2)``; equal ``n_p`` give ``P - 1``. ``present``
    (P, L) marks the participants in each column's sample (default all): ``C`` counts their
    conversations only (the df returned is that of all participants).
    """
    infl = np.asarray(influence, dtype=float)
    n_conv = infl.shape[0]
    counts = np.bincount(participant, minlength=n_participants).astype(float)
    scores = np.zeros((n_participants, infl.shape[1]))
    np.add.at(scores, participant, infl)
    adjust = _cr2_adjust(counts, present, infl.shape[1])
    with np.errstate(invalid="ignore"):
        variance = np.sum(adjust * scores**2, axis=0)
    omega = np.diag(counts) - np.outer(counts, counts) / n_conv
    m_omega = (1.0 / (1.0 - counts / n_conv))[:, None] * omega  # all participants
    df = np.trace(m_omega) ** 2 / np.trace(m_omega @ m_omega)
    return variance, np.full(infl.shape[1], float(df))


def _cr2_adjust(counts: np.ndarray, present: np.ndarray | None, n_columns: int) -> np.ndarray:
    """CR2 factors ``1 / (1 - n_p / C)`` (P, L) over each column's participants (0 for others)."""
    here = (np.ones((len(counts), n_columns), dtype=bool) if present is None
            else np.asarray(present, dtype=bool))  # fmt: skip
    n = np.where(here, counts[:, None], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(here, 1.0 / (1.0 - n / n.sum(axis=0)), 0.0)


def participants_with_data(influence: np.ndarray, participant: np.ndarray,
                           n_participants: int) -> np.ndarray:  # fmt: skip
    """(P, L): whether participant ``p`` is in statistic ``l``'s sample, i.e. some conversation of
    ``p`` moves it (non-zero influence). A participant without a value for a statistic (a metric
    missing on all their conversations, a predictor that did not answer them) is not: counting
    them would give the t the df of participants the statistic never saw (a metric of 4 of 11
    participants had 10 df and covered 0.91). A statistic no participant moves (undefined or
    constant) keeps them all."""
    moved = (np.nan_to_num(np.asarray(influence, dtype=float)) != 0).astype(float)
    onehot = np.zeros((n_participants, moved.shape[0]))
    onehot[participant, np.arange(moved.shape[0])] = 1.0
    present = (onehot @ moved) > 0
    return present | ~present.any(axis=0)


def anova_icc(values: np.ndarray, participant: np.ndarray, n_participants: int) -> np.ndarray:
    """One-way ANOVA ICC(1) of each column of conversation-level ``values`` (truncated at 0)."""
    v = np.asarray(values, dtype=float)
    counts = np.bincount(participant, minlength=n_participants).astype(float)
    n_total, n_part = counts.sum(), float(n_participants)
    sums = np.zeros((n_participants, v.shape[1]))
    np.add.at(sums, participant, v)
    means = sums / counts[:, None]
    grand = v.mean(axis=0)
    ssb = np.sum(counts[:, None] * (means - grand) ** 2, axis=0)
    ssw = np.sum((v - means[participant]) ** 2, axis=0)
    msb = ssb / (n_part - 1.0)
    msw = ssw / max(n_total - n_part, 1.0)
    n0 = (n_total - np.sum(counts**2) / n_total) / (n_part - 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s2b = np.maximum((msb - msw) / n0, 0.0)
        icc = np.where(s2b + msw > 0, s2b / (s2b + msw), 0.0)
    return icc


def working_df(counts: np.ndarray, icc: np.ndarray, *, kind: str) -> np.ndarray:
    """Satterthwaite df of the jackknife or CR2 variance under a random-intercept working model.

    Imbens and Kolesar (2016): with clusters of unequal size and correlated errors, the
    Bell-McCaffrey df should use a working model with the (estimated) intraclass correlation
    ``rho``, not independence. For an intercept-only model with ``n_p`` conversations in
    participant ``p`` and ``Var(errors) = s2 ((1 - rho) I + rho J_p)`` within participants, the
    participant scores ``u`` have covariance ``A + rho B``; the variance estimator is ``u' M u``
    (``M`` of the jackknife or of CR2), so ``df(rho) = tr(M (A + rho B))^2 /
    tr((M (A + rho B))^2)``, a ratio of quadratics in ``rho`` evaluated for every statistic at
    once. Equal ``n_p`` give ``P - 1`` whatever ``rho``.
    """
    n = np.asarray(counts, dtype=float)
    total = n.sum()
    n_part = len(n)

    def omega(s: np.ndarray) -> np.ndarray:
        return (np.diag(s) - (np.outer(n, s) + np.outer(s, n)) / total
                + np.outer(n, n) * s.sum() / total**2)  # fmt: skip

    a_mat = omega(n)  # rho = 0
    b_mat = omega(n**2) - a_mat  # d Omega / d rho
    if kind == "jackknife":
        d = np.diag(1.0 / (total - n))
        c = (n_part - 1.0) / n_part * (np.eye(n_part) - 1.0 / n_part)
        m = d @ c @ d
    else:
        m = np.diag(1.0 / (1.0 - n / total))
    ma, mb = m @ a_mat, m @ b_mat
    t1a, t1b = np.trace(ma), np.trace(mb)
    t2aa, t2ab, t2bb = np.trace(ma @ ma), np.trace(ma @ mb), np.trace(mb @ mb)
    rho = np.asarray(icc, dtype=float)
    return (t1a + rho * t1b) ** 2 / (t2aa + 2.0 * rho * t2ab + rho**2 * t2bb)


def _df(
    design: ParticipantDesign,
    influence: np.ndarray,
    df: np.ndarray,
    method: str,
    present: np.ndarray | None = None,
) -> np.ndarray:
    """Degrees of freedom: working-model Satterthwaite (unstratified) over each statistic's
    participants (``present``, default all), or strata Satterthwaite."""
    if design.strata is not None:
        return df
    counts = np.bincount(design.participant, minlength=design.n_participants)
    infl = np.nan_to_num(np.asarray(influence, dtype=float))
    if present is None:
        present = np.ones((design.n_participants, infl.shape[1]), dtype=bool)
    out = np.full(infl.shape[1], np.nan)
    patterns, which = np.unique(np.asarray(present, dtype=bool).T, axis=0, return_inverse=True)
    for k, keep in enumerate(patterns):
        cols = np.asarray(which).reshape(-1) == k
        if keep.sum() < 2:
            continue
        rows = keep[design.participant]
        codes = np.cumsum(keep)[design.participant[rows]] - 1  # kept participants: 0..P'-1
        icc = anova_icc(infl[rows][:, cols], codes, int(keep.sum()))
        out[cols] = working_df(counts[keep], icc, kind=method)
    return out


def influence_values(statistic: SumStatistic, *, step: float = 1e-6) -> np.ndarray:
    """Derivative of every statistic with respect to each conversation's weight, (C, L).

    Central finite differences of ``finalize(w @ X)`` around ``w = 1`` (exact up to rounding
    for the means and ratios the scores are made of).
    """
    n_conv = statistic.X.shape[0]
    eye = np.eye(n_conv)
    plus = statistic.evaluate(1.0 + step * eye)
    minus = statistic.evaluate(1.0 - step * eye)
    return (np.asarray(plus) - np.asarray(minus)) / (2.0 * step)


def t_summary(
    estimate: np.ndarray,
    variance: np.ndarray,
    df: np.ndarray,
    confidence_level: float,
    *,
    null: float | np.ndarray = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(se, ci_low, ci_high, pvalue)`` of t intervals and two-sided t tests of ``null``."""  # fmt: skip
    se = np.sqrt(np.asarray(variance, dtype=float))
    est = np.asarray(estimate, dtype=float)
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = stats.t.ppf(0.5 + confidence_level / 2.0, df)
        low, high = est - q * se, est + q * se
        t = (est - null) / se
        p = 2.0 * stats.t.sf(np.abs(t), df)
    p = np.where(se > 0, p, np.where(est == null, 1.0, np.nan))
    return se, low, high, p


# --------------------------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class ScoreInference(ResultMixin):
    """Estimates, standard errors and intervals of every predictor x metric, with the replicates
    needed for any linear contrast of them (paired differences, group contrasts, ranks).

    Attributes
    ----------
    labels : pandas.DataFrame
        One row per statistic: ``predictor``, ``mode``, ``metric`` (for scores).
    estimate, standard_error, df, ci_low, ci_high : numpy.ndarray
        Point estimate (the official aggregate), standard error, degrees of freedom and interval.
    method : str
        ``"jackknife"`` or ``"cr2"``.
    estimand : str
        The estimand in one sentence (:data:`ESTIMANDS`).
    design : ParticipantDesign
        Participants, strata and which conversation belongs to whom.
    replicates : numpy.ndarray
        Delete-one-participant values, shape (P, L) (``method="jackknife"``).
    influence : numpy.ndarray
        Linearised influence of each conversation, shape (C, L) (``method="cr2"``).
    """

    labels: pd.DataFrame
    estimate: np.ndarray
    standard_error: np.ndarray
    df: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    method: str
    estimand: str
    confidence_level: float
    design: ParticipantDesign = field(repr=False)
    simulated: bool = False
    conversation_ids: tuple[str, ...] = ()
    replicates: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))
    influence: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))

    _title = "Benchmark scores with participant-level uncertainty"
    _summary_columns = (
        "predictor", "metric", "estimate", "ci_low", "ci_high", "standard_error", "df",
    )  # fmt: skip
    estimand_key = "participants"

    @property
    def n_participants(self) -> int:
        return self.design.n_participants

    @property
    def n_conversations(self) -> int:
        return self.design.n_conversations

    @property
    def method_words(self) -> str:
        """The method in words, with the df it used (working-model, or Satterthwaite over the
        strata when stratified)."""
        if self.design.strata:
            return (f"delete-one-participant jackknife within strata of {self.design.strata!r} "
                    "(JKn), t intervals with Satterthwaite df over the strata")  # fmt: skip
        return _METHOD_WORDS[self.method]

    def describe(self) -> str:
        """One sentence: estimand and method."""
        return (
            f"Estimand: {self.estimand}. Method: {self.method_words} over "
            f"{self.n_participants} participants ({self.n_conversations} conversations)."
        )

    def _summary_meta(self) -> dict[str, str]:
        meta = super()._summary_meta()
        meta["Method"] = self.method_words
        meta["Units"] = (
            f"{self.n_participants} participants, {self.n_conversations} conversations"
            + (f"; strata: {self.design.strata}" if self.design.strata else "")
        )
        return meta

    def to_frame(self) -> pd.DataFrame:
        """One tidy row per statistic with estimate, interval, SE, df and the settings used."""
        frame = self.labels.copy()
        frame["estimate"] = self.estimate
        frame["ci_low"] = self.ci_low
        frame["ci_high"] = self.ci_high
        frame["standard_error"] = self.standard_error
        frame["df"] = self.df
        frame["method"] = self.method
        frame["estimand"] = self.estimand_key
        frame["n_participants"] = self.n_participants
        frame["n_conversations"] = self.n_conversations
        frame["confidence_level"] = self.confidence_level
        frame["simulated"] = self.simulated
        return frame

    # -- contrasts ----------------------------------------------------------------------------
    def contrast(
        self, weights: np.ndarray, *, confidence_level: float | None = None, null: float = 0.0
    ) -> dict[str, np.ndarray]:
        """Linear contrasts ``weights.T @ estimate`` (weights: (L, K)) with SE, df, interval, p.

        The contrast's replicates (or influence values) are the same linear combination of the
        statistics', so paired differences keep the pairing of conversations and participants.
        """
        w = np.asarray(weights, dtype=float)
        if w.ndim == 1:
            w = w[:, None]
        if w.shape[0] != len(self.estimate):
            raise ValueError(
                f"weights must have one row per statistic ({len(self.estimate)}); got {w.shape}"
            )
        level = self.confidence_level if confidence_level is None else float(confidence_level)
        # over the statistics each contrast uses: a NaN estimate elsewhere (a metric the
        # release cannot score) must not turn every contrast into NaN (NaN * 0 = NaN)
        est = _nan_matmul(self.estimate[None, :], w)[0]
        variance, df = self.contrast_variance(w)
        se, low, high, p = t_summary(est, variance, df, level, null=null)
        return {"estimate": est, "standard_error": se, "df": df, "ci_low": low,
                "ci_high": high, "pvalue": p}  # fmt: skip

    def contrast_variance(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Variance and df of the contrasts ``weights.T @ estimate``."""
        w = np.asarray(weights, dtype=float)
        infl = _nan_matmul(self.influence, w)
        present = participants_with_data(infl, self.design.participant, self.n_participants)
        if self.method == "jackknife":
            reps = _nan_matmul(self.replicates, w)
            variance, df = jackknife_variance(
                reps, self.design.stratum_of_participant, len(self.design.strata_ids), present
            )
        else:
            variance, df = cr2_variance(infl, self.design.participant, self.n_participants,
                                        present)  # fmt: skip
        return variance, _df(self.design, infl, df, self.method, present)

    def covariance(self, index: Sequence[int]) -> np.ndarray:
        """Covariance matrix of the estimates at ``index`` (jackknife or CR2 cross-products)."""
        idx = np.asarray(index, dtype=int)
        if self.method == "jackknife":
            reps = self.replicates[:, idx]
            strat = self.design.stratum_of_participant
            sizes = self.design.stratum_sizes().astype(float)
            cov = np.zeros((len(idx), len(idx)))
            for h in range(len(sizes)):
                dev = reps[strat == h] - reps[strat == h].mean(axis=0)
                cov += (sizes[h] - 1.0) / sizes[h] * dev.T @ dev
            return cov
        infl = self.influence[:, idx]
        n_part = self.n_participants
        counts = np.bincount(self.design.participant, minlength=n_part).astype(float)
        scores = np.zeros((n_part, len(idx)))
        np.add.at(scores, self.design.participant, infl)
        adjust = 1.0 / (1.0 - counts / self.n_conversations)
        return (scores * adjust[:, None]).T @ scores

    def index_of(self, **selectors: Any) -> np.ndarray:
        """Positions of the labels matching every ``column=value`` given."""
        keep = np.ones(len(self.labels), dtype=bool)
        for column, value in selectors.items():
            if column not in self.labels.columns:
                raise KeyError(f"no label column {column!r}; columns: {list(self.labels.columns)}")
            keep &= (self.labels[column] == value).to_numpy()
        return np.flatnonzero(keep)


def _nan_matmul(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``values @ weights`` over the rows of ``weights`` that are used; a NaN in a used column
    of ``values`` gives NaN (not silently 0)."""
    values = np.asarray(values, dtype=float)
    weights = np.asarray(weights, dtype=float)
    rows = np.flatnonzero(np.any(weights != 0, axis=1))
    sub_v, sub_w = values[:, rows], weights[rows]
    nan = np.isnan(sub_v)
    if not nan.any():
        return sub_v @ sub_w
    out = np.where(nan, 0.0, sub_v) @ sub_w
    out[(nan.astype(float) @ (sub_w != 0).astype(float)) > 0] = np.nan
    return out


# --------------------------------------------------------------------------------------------
# entry points
# --------------------------------------------------------------------------------------------
def _check_options(method: Any, confidence_level: Any) -> float:
    if method not in CLUSTER_METHODS:
        raise ValueError(f"method must be one of {CLUSTER_METHODS}; got {method!r}")
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, float | int):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    return float(confidence_level)


def participant_inference(
    statistic: SumStatistic,
    design: pd.DataFrame,
    *,
    method: ClusterMethod = "jackknife",
    strata: str | None = None,
    confidence_level: float = 0.95,
    simulated: bool = False,
) -> ScoreInference:
    """Participant-level inference for any :class:`~attunestats.inference.sums.SumStatistic`.

    ``design`` has one row per conversation in the row order of ``statistic.X``, with
    ``conversation_id``, ``participant_id`` and the ``strata`` column when given.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from attunestats.inference.sums import mean_statistic
    >>> y = np.array([[0.2], [0.4], [0.5], [0.9], [0.6], [0.8]])
    >>> design = pd.DataFrame({"conversation_id": list("abcdef"),
    ...                        "participant_id": ["p1", "p1", "p2", "p2", "p3", "p3"]})
    >>> res = participant_inference(mean_statistic(y, pd.DataFrame({"metric": ["m"]})), design)
    >>> round(float(res.estimate[0]), 6), int(res.df[0])
    (0.566667, 2)
    >>> round(float(res.standard_error[0]), 6)  # sd(0.3, 0.7, 0.7) / sqrt(3)
    0.133333
    """
    level = _check_options(method, confidence_level)
    if len(design) != statistic.X.shape[0]:
        raise ValueError(
            f"design has {len(design)} conversations but the statistic has "
            f"{statistic.X.shape[0]} rows"
        )
    pdesign = ParticipantDesign.from_design(design, strata=strata)
    pdesign.check()
    if method == "cr2" and strata is not None:
        raise ValueError("method='cr2' does not take strata; use method='jackknife' with strata")
    estimate = np.asarray(statistic.evaluate(np.ones((1, len(design))))[0], dtype=float)
    replicates = np.empty((0, 0))
    influence = np.ascontiguousarray(influence_values(statistic))
    present = participants_with_data(influence, pdesign.participant, pdesign.n_participants)
    if method == "jackknife":
        replicates = np.ascontiguousarray(statistic.evaluate(pdesign.jackknife_weights()))
        variance, df = jackknife_variance(
            replicates, pdesign.stratum_of_participant, len(pdesign.strata_ids), present
        )
    else:
        variance, df = cr2_variance(influence, pdesign.participant, pdesign.n_participants,
                                    present)  # fmt: skip
    df = _df(pdesign, influence, df, method, present)
    se, low, high, _ = t_summary(estimate, variance, df, level)
    return ScoreInference(
        labels=statistic.labels.reset_index(drop=True),
        estimate=estimate,
        standard_error=se,
        df=df,
        ci_low=low,
        ci_high=high,
        method=method,
        estimand=ESTIMANDS["participants"],
        confidence_level=level,
        design=pdesign,
        simulated=simulated,
        conversation_ids=tuple(design["conversation_id"].astype(str)),
        replicates=replicates,
        influence=influence,
    )


def infer_scores(
    scores: Scores,
    *,
    metrics: Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
    method: ClusterMethod = "jackknife",
    strata: str | None = None,
    confidence_level: float = 0.95,
) -> ScoreInference:
    """Participant-level estimates and intervals for every metric of every predictor.

    The default inference of the package: the estimand is the population of participants
    (:data:`ESTIMANDS`), the method the delete-one-participant jackknife with ``t`` intervals on
    the working-model Satterthwaite df (``P - 1`` for equal participants, fewer otherwise; see
    the module docstring for why, and for ``method="cr2"``). All predictors
    and metrics are computed from the same participant replicates, so any contrast of them
    (:meth:`ScoreInference.contrast`, :func:`attunestats.compare_models`) is paired.

    Parameters
    ----------
    scores : Scores
        Output of :func:`attunestats.score`.
    metrics, predictors : sequence of str, optional
        Conversation-level registry metrics and predictors (default: all).
    method : {"jackknife", "cr2"}
    strata : str, optional
        A participant attribute of the design (e.g. ``"diagnosis_group"``) to stratify by.
    confidence_level : float

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())
    >>> res = at.infer_scores(scores, metrics=["composite_score"])
    >>> res  # doctest: +ELLIPSIS
    <ScoreInference: 14 rows; estimand='the population of participants: ...'; method='jackknife'; SIMULATED>
    >>> res.to_frame()[["predictor", "estimate", "ci_low", "ci_high", "df"]].round(1).head(2)
         predictor  estimate  ci_low  ci_high   df
    0  sim-human-1      66.2    65.2     67.3  7.2
    1  sim-human-2      64.7    63.3     66.1  5.4
    >>> print(res.summary())  # the table with method, estimand and conventions  # doctest: +SKIP
    """
    statistic, design = scores_statistic(scores, metrics=metrics, predictors=predictors)
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    result = participant_inference(
        statistic, design, method=method, strata=strata, confidence_level=confidence_level,
        simulated=simulated,
    )  # fmt: skip
    _warn_undefined(result)
    return result


def _warn_undefined(result: ScoreInference) -> None:
    """One warning listing the metrics without an estimate (their rows stay, as NaN)."""
    missing = result.labels[~np.isfinite(result.estimate)]
    if missing.empty:
        return
    n_predictors = result.labels["predictor"].nunique()
    parts = []
    for metric, rows in missing.groupby("metric", sort=True):
        who = rows["predictor"].unique()
        parts.append(f"{metric} (all {n_predictors} predictors)" if len(who) == n_predictors
                     else f"{metric} ({', '.join(map(str, who))})")  # fmt: skip
    warn(f"infer_scores: no estimate for {len(missing)} predictor x metric row(s), because the "
         f"metric is undefined on every conversation of theirs: {'; '.join(parts)}; these rows "
         "are NaN (left out of contrasts that do not use them)")  # fmt: skip
