"""Participant-level randomization (sign-flip) test of a paired model difference.

The test
--------
Under the *sharp* null hypothesis that two predictors are interchangeable for every participant
(swapping the two predictors' answers on all conversations of any participant leaves the joint
distribution of the data unchanged), every one of the ``2**P`` swaps of whole participants is
equally likely, so the randomization distribution of any statistic over those swaps gives an
exact p-value, whatever the number of participants, the participant effects, the ICC or the
metric (means, the composite, pooled F1 or MCC). Swapping a participant is a sign flip of that
participant's contribution to a paired mean difference; for pooled metrics the confusion counts
are swapped.

The statistic is the difference of the official aggregates (``a - b``, conversation-weighted as
the scorer computes it), studentized by default by the delete-one-participant jackknife SE
recomputed for every swap. Studentizing keeps the test's level close to nominal also under the
*weak* null (equal population values but different spreads or participant interactions), where
the unstudentized swap test can over-reject; Canay, Romano and Shaikh (2017) show the
studentized sign-change test is valid with a fixed small number of clusters under approximate
symmetry. With ``P`` participants the smallest attainable two-sided p-value is ``2 / 2**P``
(0.0625 for 5 participants, 0.001 for 11): with very few participants no result can be
significant, and the result says so.

All ``2**P`` swaps are enumerated when ``2**P <= max_exact`` (default ``2**16``); otherwise
``n_resamples`` random swaps are drawn and ``p = (1 + #{|T*| >= |T|}) / (1 + n_resamples)``.

References
----------
Canay, I. A., Romano, J. P. and Shaikh, A. M. (2017). Randomization tests under an approximate
symmetry assumption. Econometrica 85, 1013-1030.
MacKinnon, J. G., Nielsen, M. O. and Webb, M. D. (2023). Cluster-robust inference: a guide to
empirical practice. Journal of Econometrics 232, 272-299.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats.inference.participants import ESTIMANDS

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

Alternative = Literal["two-sided", "greater", "less"]
_ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True, repr=False)
class SignFlipResult(ResultMixin):
    """Result of :func:`sign_flip_test`: one paired difference, its statistic and exact p-value.

    Attributes
    ----------
    metric, predictors, mode
        What was compared (``estimate = value(predictors[0]) - value(predictors[1])``).
    estimate : float
        The observed difference of the aggregates.
    statistic : float
        The observed test statistic (the jackknife t when ``studentized``, else the difference).
    pvalue : float
        Randomization p-value for ``alternative`` over the swaps whose statistic is defined
        (NaN when the observed difference is undefined).
    min_pvalue : float
        The smallest p-value this design can give (``2 / 2**P`` two-sided with exact enumeration
        when every swap is defined).
    n_swaps : int
        Swaps evaluated (``2**P`` when ``exact``).
    """

    metric: str
    predictors: tuple[str, str]
    mode: str
    estimate: float
    statistic: float
    pvalue: float
    min_pvalue: float
    alternative: str
    studentized: bool
    exact: bool
    n_swaps: int
    n_participants: int
    n_conversations: int
    simulated: bool = False

    _title = "Participant-level randomization (sign-flip) test"

    @property
    def estimand(self) -> str:
        return ESTIMANDS["participants"]

    @property
    def method(self) -> str:
        how = "all swaps enumerated" if self.exact else f"{self.n_swaps} random swaps"
        stat = "jackknife-studentized difference" if self.studentized else "difference"
        return f"participant swap (sign-flip) randomization test of the {stat}, {how}"

    def describe(self) -> str:
        return (
            f"Estimand: {self.estimand}. Method: {self.method}; "
            f"{self.n_participants} participants, {self.n_conversations} conversations."
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{
            "metric": self.metric, "predictor_a": self.predictors[0],
            "predictor_b": self.predictors[1], "mode": self.mode, "estimate": self.estimate,
            "statistic": self.statistic, "pvalue": self.pvalue, "min_pvalue": self.min_pvalue,
            "alternative": self.alternative, "studentized": self.studentized,
            "exact": self.exact, "n_swaps": self.n_swaps,
            "n_participants": self.n_participants, "n_conversations": self.n_conversations,
            "method": self.method, "estimand": "participants", "simulated": self.simulated,
        }])  # fmt: skip

    def _summary_notes(self) -> list[str]:
        notes = [
            "H0: the two predictors are interchangeable within every participant "
            "(p-value exact under it; studentized: approximately valid for equal population values)."
        ]
        if self.min_pvalue > 0.05:
            notes.append(
                f"With {self.n_participants} participants no p-value below "
                f"{self.min_pvalue:.3g} is possible: this sample cannot show a difference at 5%."
            )
        return notes


# --------------------------------------------------------------------------------------------
# the computation on participant sums
# --------------------------------------------------------------------------------------------
def _check_counts(**counts: Any) -> None:
    """Integer options (``n_resamples``, ``max_exact``): ints (not bools), at least 1."""
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"{name} must be an integer; got {value!r}")
        if value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")


def _swap_matrix(n_participants: int, *, max_exact: int, n_resamples: int, rng: Any) -> tuple[np.ndarray, bool]:  # fmt: skip
    """0/1 matrix (swaps x participants): every swap when affordable, else random ones
    (the observed assignment first, so row 0 is always the identity)."""
    if 2**n_participants <= max_exact:
        codes = np.arange(2**n_participants, dtype=np.int64)[:, None]
        return ((codes >> np.arange(n_participants)) & 1).astype(float), True
    gen = np.random.default_rng(rng)
    draws = gen.integers(0, 2, size=(n_resamples, n_participants)).astype(float)
    return np.vstack([np.zeros((1, n_participants)), draws]), False


def sign_flip_from_sums(
    sums_a: np.ndarray,
    sums_b: np.ndarray,
    finalize: Callable[[np.ndarray], np.ndarray],
    *,
    studentize: bool = True,
    alternative: Alternative = "two-sided",
    max_exact: int = 2**16,
    n_resamples: int = 9999,
    rng: int | np.random.Generator | None = None,
) -> dict[str, Any]:
    """The swap test on per-participant sums.

    ``sums_a``, ``sums_b``: (P, k) sums of each participant's conversations for the two
    predictors (for a mean: value sum and count of non-null values); ``finalize`` maps (n, k)
    totals to (n,) aggregates. Returns estimate, statistic, pvalue, min_pvalue, exact, n_swaps.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0.9, 1], [0.8, 1], [0.7, 1], [0.95, 1], [0.85, 1]])
    >>> b = np.array([[0.5, 1], [0.6, 1], [0.4, 1], [0.5, 1], [0.55, 1]])
    >>> mean = lambda t: t[:, 0] / t[:, 1]
    >>> out = sign_flip_from_sums(a, b, mean, studentize=False)
    >>> out["pvalue"], out["min_pvalue"]   # a beats b for all 5 participants: 2 / 2**5
    (0.0625, 0.0625)
    """
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}; got {alternative!r}")
    _check_counts(n_resamples=n_resamples, max_exact=max_exact)
    sa, sb = np.asarray(sums_a, dtype=float), np.asarray(sums_b, dtype=float)
    if sa.shape != sb.shape or sa.ndim != 2:
        raise ValueError(
            f"sums_a and sums_b must be (P, k) of one shape; got {sa.shape}, {sb.shape}"
        )
    n_part = sa.shape[0]
    if n_part < 2:
        raise ValueError(f"a randomization test needs at least 2 participants; got {n_part}")
    flips, exact = _swap_matrix(n_part, max_exact=max_exact, n_resamples=n_resamples, rng=rng)
    delta = sb - sa  # what a swap of participant p adds to a's totals (and takes from b's)
    shift = flips @ delta  # (R, k)
    tot_a, tot_b = sa.sum(axis=0) + shift, sb.sum(axis=0) + shift * -1.0
    diff = finalize(tot_a) - finalize(tot_b)
    if studentize:
        # contribution of participant q to a's / b's totals under each swap: (R, P, k)
        own_a = sa[None] + flips[:, :, None] * delta[None]
        own_b = sb[None] - flips[:, :, None] * delta[None]
        n_rep, k = flips.shape[0], sa.shape[1]
        rep_a = (tot_a[:, None, :] - own_a).reshape(-1, k)
        rep_b = (tot_b[:, None, :] - own_b).reshape(-1, k)
        reps = (finalize(rep_a) - finalize(rep_b)).reshape(n_rep, n_part)
        var = (n_part - 1.0) / n_part * ((reps - reps.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where(var > 0, diff / np.sqrt(var), np.sign(diff) * np.inf)
        stat = np.where((var <= 0) & (diff == 0), 0.0, stat)
    else:
        stat = diff
    observed = stat[0]
    tol = 1e-12 * max(1.0, abs(observed)) if np.isfinite(observed) else 0.0
    if alternative == "two-sided":
        extreme = np.abs(stat) >= abs(observed) - tol
    elif alternative == "greater":
        extreme = stat >= observed - tol
    else:
        extreme = stat <= observed + tol
    # a swap that leaves a predictor without any value has no statistic: the observed
    # arrangement, uniform over the swaps under the null, is uniform over the defined ones
    # given that it is defined, so the p-value is the share among those
    defined = ~np.isnan(stat)
    n_swaps = len(stat) if exact else len(stat) - 1
    tails = 2.0 if alternative == "two-sided" else 1.0
    if np.isnan(observed):  # the difference itself is undefined: nothing to test
        pvalue = min_p = np.nan
    elif exact:
        pvalue = float(extreme.sum() / defined.sum())
        min_p = tails / defined.sum()
    else:
        pvalue = float((1 + extreme[1:].sum()) / (1 + defined[1:].sum()))
        min_p = max(1.0 / (1 + defined[1:].sum()), tails / 2**n_part)
    return {"estimate": float(diff[0]), "statistic": float(observed), "pvalue": min(pvalue, 1.0),
            "min_pvalue": float(min_p), "exact": exact, "n_swaps": int(n_swaps)}  # fmt: skip


# --------------------------------------------------------------------------------------------
# entry point on scores
# --------------------------------------------------------------------------------------------
def _participant_sums(
    scores: Scores, metric: str, predictors: tuple[str, str], mode: str
) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray], int]:
    from attunestats.metrics.registry import METRICS, pooled_statistic

    spec = METRICS[metric]
    design = scores.design[["conversation_id", "participant_id"]].copy()
    design["conversation_id"] = design["conversation_id"].astype(str)
    participants = sorted(design["participant_id"].astype(str).unique())
    out = []
    for predictor in predictors:
        if spec.aggregation == "mean":
            tab = scores.conversation
            tab = tab[
                (tab["predictor"] == predictor) & (tab["mode"] == mode) & (tab["metric"] == metric)
            ]
            frame = pd.DataFrame({"conversation_id": tab["conversation_id"].astype(str),
                                  "value": tab["value"].to_numpy(dtype=float)})  # fmt: skip
            frame = design.merge(frame, on="conversation_id", how="left")
            frame["n"] = frame["value"].notna().astype(float)
            frame["value"] = frame["value"].fillna(0.0)
            cols = ["value", "n"]
        else:
            tab = scores.counts
            tab = tab[
                (tab["predictor"] == predictor)
                & (tab["mode"] == mode)
                & (tab["task"] == spec.pooled_task)
            ]
            cols = ["tp", "tn", "fp", "fn"]
            frame = tab[["conversation_id", *cols]].assign(
                conversation_id=lambda t: t["conversation_id"].astype(str)
            )
            frame = design.merge(frame, on="conversation_id", how="left").fillna(0.0)
        sums = frame.groupby("participant_id")[cols].sum().reindex(participants, fill_value=0.0)
        out.append(sums.to_numpy(dtype=float))
    if spec.aggregation == "mean":

        def finalize(t: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return t[:, 0] / t[:, 1]
    else:

        def finalize(t: np.ndarray) -> np.ndarray:
            return pooled_statistic(spec.pooled_stat, t[:, 0], t[:, 1], t[:, 2], t[:, 3])

    return out[0], out[1], finalize, len(design)


def sign_flip_test(
    scores: Scores,
    *,
    metric: str,
    predictors: tuple[str, str],
    mode: str | None = None,
    studentize: bool = True,
    alternative: Alternative = "two-sided",
    max_exact: int = 2**16,
    n_resamples: int = 9999,
    rng: int | np.random.Generator | None = None,
) -> SignFlipResult:
    """Exact participant-level randomization test of ``value(a) - value(b)`` on one metric.

    A second opinion next to the jackknife t test of :func:`attunestats.compare_models`, for
    reviewers who want a test whose level does not rest on a t approximation: the p-value is
    exact under the null that the two predictors are interchangeable within every participant
    (see the module docstring), for any conversation-level registry metric (means, the
    composite, pooled accuracy / F1 / MCC).

    Parameters
    ----------
    scores : Scores
        Output of :func:`attunestats.score`.
    metric : str
        A conversation-level registry metric.
    predictors : (str, str)
        The two predictors ``(a, b)``; the estimate is ``a - b``.
    mode : str, optional
        Prediction mode (default: the one mode both predictors have).
    studentize : bool
        Studentize by the jackknife SE recomputed for every swap (default; robust to unequal
        spreads); ``False`` uses the raw difference.
    alternative : {"two-sided", "greater", "less"}
    max_exact : int
        Enumerate all ``2**P`` swaps when at most this many.
    n_resamples : int
        Random swaps otherwise.
    rng : int, numpy.random.Generator or None
        Seeds the random swaps (unused when exact).

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())   # doctest: +SKIP
    >>> res = sign_flip_test(scores, metric="composite_score",
    ...                      predictors=("sim-model-01", "sim-model-02"))   # doctest: +SKIP
    >>> print(res.summary())   # doctest: +SKIP
    """
    from attunestats.metrics.registry import METRICS

    if metric not in METRICS or METRICS[metric].level != "conversation":
        raise ValueError(f"metric must be a conversation-level registry metric; got {metric!r}")
    if len(predictors) != 2 or predictors[0] == predictors[1]:
        raise ValueError(f"predictors must be two different predictors; got {predictors!r}")
    _check_counts(n_resamples=n_resamples, max_exact=max_exact)
    conv = scores.conversation
    modes = []
    for p in predictors:
        have = set(conv.loc[conv["predictor"] == p, "mode"].unique())
        if not have:
            raise ValueError(
                f"unknown predictor {p!r}; available: {sorted(conv['predictor'].unique())}"
            )
        modes.append(have)
    common = sorted(modes[0] & modes[1])
    if mode is None:
        if len(common) != 1:
            raise ValueError(f"give mode=: the predictors' common modes are {common}")
        mode = common[0]
    elif mode not in common:
        raise ValueError(f"mode {mode!r} is not a mode of both predictors; common modes: {common}")
    sums_a, sums_b, finalize, n_conv = _participant_sums(scores, metric, tuple(predictors), mode)
    out = sign_flip_from_sums(
        sums_a, sums_b, finalize, studentize=studentize, alternative=alternative,
        max_exact=max_exact, n_resamples=n_resamples, rng=rng,
    )  # fmt: skip
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    return SignFlipResult(
        metric=metric, predictors=(str(predictors[0]), str(predictors[1])), mode=str(mode),
        estimate=out["estimate"], statistic=out["statistic"], pvalue=out["pvalue"],
        min_pvalue=out["min_pvalue"], alternative=alternative, studentized=bool(studentize),
        exact=out["exact"], n_swaps=out["n_swaps"], n_participants=len(sums_a),
        n_conversations=n_conv, simulated=simulated,
    )  # fmt: skip
