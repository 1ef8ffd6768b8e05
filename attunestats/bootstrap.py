"""Cluster bootstrap for every metric of every predictor, paired by construction.

Every predictor-level AttuneBench metric is either a (null-aware) mean of conversation-level values
or a statistic of confusion counts summed over conversations. Both are functions of *sums over
conversations*, so one bootstrap resample is one vector of conversation weights ``w`` (how often
each conversation was drawn) and every statistic of every predictor is recomputed from ``w @ X``,
where the columns of ``X`` hold the per-conversation sums. A (resamples x conversations) weight
matrix times X evaluates all predictors and metrics at once, and because all predictors share the
same weights the comparisons between them are paired (design.md, "Performance").

Resampling plans (:class:`ResamplingPlan`)
------------------------------------------
``unit="conversation"`` (default)
    Conversations are drawn with replacement (Efron's bootstrap with the conversation as the
    independent unit: turns stay together). Optional ``strata="topic"`` (or any column of the
    design) resamples conversations within each stratum, keeping stratum sizes fixed.
``unit="participant"``
    Two-stage: participants are drawn with replacement, then each drawn participant's
    conversations are drawn with replacement (Davison & Hinkley 1997, section 3.8, resampling at
    both stages). With about eleven participants this plan is known to be unreliable: it may
    undercover, and its coverage is measured and reported (tests and studies), not assumed.

Interval methods
----------------
``"percentile"``, ``"basic"`` and ``"bca"`` (bias-corrected and accelerated; Efron 1987), as
:func:`scipy.stats.bootstrap` defines them. The BCa acceleration comes from the jackknife over the
resampling unit (leave one conversation out, or one participant out for the two-stage plan). When
BCa is degenerate for a statistic (all resampled values on one side of the estimate, or a
jackknife without spread), the percentile interval is used for it and an
:class:`~attunestats.errors.AttunestatsWarning` says for how many.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.errors import AttunestatsWarning

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

METHODS = ("percentile", "basic", "bca")
UNITS = ("conversation", "participant")
Method = Literal["percentile", "basic", "bca"]
Unit = Literal["conversation", "participant"]

# memory per block of resamples (sums and finalize temporaries): blocks of a few MB are reused
# by the allocator and stay in cache, where one block for all 10,000 resamples of ~1,000
# statistics allocates ~90 MB temporaries that cost a page fault per 4 KiB page (measured on the
# bundled release's full BCa pass: 16 MiB blocks ~20% faster than one block)
_DEFAULT_BATCH_BYTES = 16 * 2**20


# --------------------------------------------------------------------------------------------
# Resampling plans
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResamplingPlan:
    """How conversations are resampled: the unit, and optional strata.

    Parameters
    ----------
    unit : {"conversation", "participant"}
        Resampling unit; ``"participant"`` is the two-stage participant -> conversation plan.
    strata : str or None
        Column of the design within which units are resampled: with ``unit="conversation"`` any
        conversation attribute (e.g. ``"topic"``); with ``unit="participant"`` a participant
        attribute (e.g. ``"diagnosis_group"``: participants are drawn within their group, so every
        resample keeps each group's number of participants).
    """

    unit: Unit = "conversation"
    strata: str | None = None

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}; got {self.unit!r}")
        if self.strata is not None and (not isinstance(self.strata, str) or not self.strata):
            raise TypeError(f"strata must be a column name or None; got {self.strata!r}")

    def describe(self) -> str:
        """One sentence describing the plan (recorded with every result)."""
        if self.unit == "participant":
            within = f" within strata of {self.strata!r}" if self.strata else ""
            return (
                f"two-stage: participants drawn with replacement{within}, then each drawn "
                "participant's conversations drawn with replacement"
            )
        if self.strata:
            return f"conversations drawn with replacement within strata of {self.strata!r}"
        return "conversations drawn with replacement"

    # ----------------------------------------------------------------------------------------
    def weights(
        self, design: pd.DataFrame, n_resamples: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Resample weights, shape (n_resamples, n_conversations), rows summing to C.

        Conversations are in the order of ``design`` (callers sort it by conversation id).
        """
        n_conv = len(design)
        if self.unit == "conversation" and self.strata is None:
            return _uniform_counts(np.arange(n_conv), n_conv, n_resamples, rng)
        if self.unit == "conversation":
            groups = _group_indices(design, self.strata)
            weights = np.zeros((n_resamples, n_conv))
            for members in groups:
                weights += _uniform_counts(members, n_conv, n_resamples, rng)
            return weights
        groups = _group_indices(design, "participant_id")
        n_groups = len(groups)
        if self.strata is None:
            drawn = _uniform_counts(np.arange(n_groups), n_groups, n_resamples, rng)  # (B, P)
        else:
            drawn = np.zeros((n_resamples, n_groups))
            for members in _participant_strata(design, groups, self.strata):
                drawn += _uniform_counts(members, n_groups, n_resamples, rng)
        weights = np.zeros((n_resamples, n_conv))
        for j, members in enumerate(groups):
            m = len(members)
            totals = (drawn[:, j] * m).astype(np.int64)
            weights[:, members] = rng.multinomial(totals, np.full(m, 1.0 / m))
        return weights

    def jackknife(self, design: pd.DataFrame) -> np.ndarray:
        """Leave-one-unit-out weights, shape (n_units, n_conversations)."""
        n_conv = len(design)
        if self.unit == "conversation":
            return 1.0 - np.eye(n_conv)
        groups = _group_indices(design, "participant_id")
        weights = np.ones((len(groups), n_conv))
        for j, members in enumerate(groups):
            weights[j, members] = 0.0
        return weights

    def n_units(self, design: pd.DataFrame) -> int:
        """Number of first-stage resampling units in ``design``."""
        if self.unit == "participant":
            return int(design["participant_id"].nunique())
        return len(design)


def _uniform_counts(
    members: np.ndarray, n_total: int, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Counts (B, n_total) of len(members) draws with replacement among ``members``."""
    m = len(members)
    draws = members[rng.integers(0, m, size=(n_resamples, m))]
    offsets = (np.arange(n_resamples) * n_total)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_total)
    return counts.reshape(n_resamples, n_total).astype(np.float64)


def _participant_strata(
    design: pd.DataFrame, groups: list[np.ndarray], column: str
) -> list[np.ndarray]:
    """Participant indices (into ``groups``) per value of a participant-level ``column``."""
    if column not in design.columns:
        raise ValueError(f"the design has no column {column!r}; columns: {list(design.columns)}")
    values = []
    for members in groups:
        distinct = design[column].iloc[members].unique()
        if len(distinct) != 1:
            pid = design["participant_id"].iloc[members[0]]
            raise ValueError(
                f"strata column {column!r} is not constant within participant {pid!r} "
                f"(values {list(distinct)}); participant strata need a participant attribute"
            )
        values.append(distinct[0])
    codes, uniques = pd.factorize(pd.Series(values), sort=True)
    return [np.flatnonzero(codes == k) for k in range(len(uniques))]


def _group_indices(design: pd.DataFrame, column: str) -> list[np.ndarray]:
    if column not in design.columns:
        raise ValueError(f"the design has no column {column!r}; columns: {list(design.columns)}")
    values = design[column]
    if values.isna().any():
        raise ValueError(f"design column {column!r} has missing values; cannot resample by it")
    codes, uniques = pd.factorize(values, sort=True)
    return [np.flatnonzero(codes == k) for k in range(len(uniques))]


# --------------------------------------------------------------------------------------------
# Statistics that are functions of per-conversation sums
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SumStatistic:
    """Statistics computable from weighted sums over conversations.

    ``values(W) = finalize(W @ X)``: ``X`` has one row per conversation and one column per
    summed quantity; ``finalize`` maps the (n, Q) sums to (n, L) statistics, one per label.
    """

    X: np.ndarray
    finalize: Callable[[np.ndarray], np.ndarray]
    labels: pd.DataFrame

    def evaluate(self, weights: np.ndarray, *, batch_size: int | None = None) -> np.ndarray:
        """Statistics for each row of ``weights`` (n, C) -> (n, L), in memory-bounded blocks.

        The result is stored column-major (each statistic's n resampled values contiguous), the
        layout its consumers read: quantiles, standard errors and BCa counts run down columns.
        The sums are formed as ``X.T @ W.T`` for the same reason (the product costs the same
        either way round; this way its output is column-major); ``finalize`` sees them as an
        (n, Q) column-major view, so it is written once for either layout.
        """
        weights = np.atleast_2d(weights)
        n = weights.shape[0]
        if batch_size is None:
            per_row = 8 * max(self.X.shape[1], len(self.labels)) * 3
            batch_size = max(1, _DEFAULT_BATCH_BYTES // max(per_row, 1))
        x_t = self.X.T
        with np.errstate(invalid="ignore", divide="ignore"):
            if batch_size >= n:  # one block: finalize's (column-major) output is the result
                return np.asfortranarray(self.finalize((x_t @ weights.T).T))
            out_t = np.empty((len(self.labels), n))  # (L, n): returned as its (n, L) transpose
            for start in range(0, n, batch_size):
                stop = min(n, start + batch_size)
                sums = (x_t @ weights[start:stop].T).T  # (b, Q), column-major
                out_t[:, start:stop] = self.finalize(sums).T
        return out_t.T


def mean_statistic(
    values: np.ndarray, labels: pd.DataFrame, *, mask: np.ndarray | None = None
) -> SumStatistic:
    """Null-aware means over conversations: column k is ``sum(w v_k m_k) / sum(w m_k)``.

    ``values`` is (C, L) with NaN for null; ``mask`` defaults to ``~isnan(values)``. Identical
    mask columns (most metrics are never null) share one summed column.
    """
    values = np.asarray(values, dtype=float)
    if mask is None:
        mask = ~np.isnan(values)
    filled = np.where(mask, np.nan_to_num(values), 0.0)
    n_labels = values.shape[1]
    unique_masks, mask_index = np.unique(mask.T, axis=0, return_inverse=True)
    mask_index = np.asarray(mask_index).reshape(-1)
    X = np.hstack([filled, unique_masks.T.astype(float)])
    # runs of consecutive labels sharing a mask: each run is one broadcast division of
    # contiguous columns (a gather of denominator columns per label is several times slower)
    starts = np.flatnonzero(np.diff(mask_index, prepend=-1))
    runs = [
        (int(a), int(b), n_labels + int(mask_index[a]))
        for a, b in zip(starts, [*starts[1:], n_labels], strict=True)
    ]

    def finalize(sums: np.ndarray) -> np.ndarray:
        out = np.empty((sums.shape[0], n_labels), order="F")
        for a, b, d in runs:
            np.divide(sums[:, a:b], sums[:, d : d + 1], out=out[:, a:b])
        return out

    return SumStatistic(X, finalize, labels.reset_index(drop=True))


def ratio_statistic(
    numerator: np.ndarray, denominator: np.ndarray, labels: pd.DataFrame
) -> SumStatistic:
    """Ratio-of-sums statistics: column k is ``sum(w a_k) / sum(w d_k)`` (pooled proportions)."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    n_labels = numerator.shape[1]
    X = np.hstack([numerator, denominator])

    def finalize(sums: np.ndarray) -> np.ndarray:
        return sums[:, :n_labels] / sums[:, n_labels:]

    return SumStatistic(X, finalize, labels.reset_index(drop=True))


def concat_statistics(parts: Sequence[SumStatistic]) -> SumStatistic:
    """One statistic evaluating several: X side by side, labels stacked."""
    parts = list(parts)
    if not parts:
        raise ValueError("concat_statistics needs at least one statistic")
    widths = np.cumsum([0] + [p.X.shape[1] for p in parts])
    offsets = np.cumsum([0] + [len(p.labels) for p in parts])
    X = np.hstack([p.X for p in parts])

    def finalize(sums: np.ndarray) -> np.ndarray:
        # filled part by part (no hstack copy), column-major like the sums evaluate() passes
        out = np.empty((sums.shape[0], int(offsets[-1])), order="F")
        for i, p in enumerate(parts):
            out[:, offsets[i] : offsets[i + 1]] = p.finalize(sums[:, widths[i] : widths[i + 1]])
        return out

    labels = pd.concat([p.labels for p in parts], ignore_index=True)
    return SumStatistic(X, finalize, labels)


# --------------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------------
# statistics summarised per chunk: a chunk's sorted copy (64 x 10,000 doubles, 5 MB) stays in
# cache and its memory is reused, where whole-distribution temporaries (~90 MB each for 1,000
# statistics) cost a page fault per 4 KiB page every time they are allocated
_CHUNK_COLUMNS = 64


def _sorted_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``values`` (n, k) as the sorted rows of a (k, n) copy, and their non-NaN counts.

    ``values`` itself is not reordered (its rows are resamples paired with the weights). The
    copy is row-major, so each sort runs on contiguous memory: numpy's vectorised sort of
    10,000 doubles is faster here than ``np.partition`` at the few ranks BCa needs.
    """
    block = np.array(np.asarray(values, dtype=float).T, order="C", copy=True)
    block.sort(axis=1)  # NaN sort last
    n = block.shape[1]
    n_valid = np.full(block.shape[0], n, dtype=np.int64)
    if n:
        has_nan = np.isnan(block[:, -1])
        if has_nan.any():
            n_valid[has_nan] = n - np.count_nonzero(np.isnan(block[has_nan]), axis=1)
    return block, n_valid


def _sorted_quantile(block: np.ndarray, n_valid: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Quantile ``q[k]`` of sorted row k (its first ``n_valid[k]`` values; linear interpolation,
    numpy's default); NaN where the row has no value or the level is not finite."""
    rows = np.arange(block.shape[0])
    top = np.maximum(n_valid - 1, 0)
    pos = np.where(np.isfinite(q), q, 0.0) * top
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, top)
    v_lo = block[rows, lo]
    v_hi = block[rows, hi]
    value = v_lo + (pos - lo) * (v_hi - v_lo)
    return np.where((n_valid > 0) & np.isfinite(q), value, np.nan)


def _column_quantiles(values: np.ndarray, *qs: np.ndarray) -> list[np.ndarray]:
    """Quantiles q[k] of column k (linear interpolation, NaN ignored), vectorised over columns."""
    values = np.asarray(values, dtype=float)
    n, n_cols = values.shape
    qv = [np.broadcast_to(np.asarray(q, dtype=float), (n_cols,)) for q in qs]
    if n == 0:
        return [np.full(n_cols, np.nan) for _ in qv]
    block, n_valid = _sorted_rows(values)
    return [_sorted_quantile(block, n_valid, q) for q in qv]


def _bca_acceleration(jackknife: np.ndarray) -> np.ndarray:
    """a = sum(U^3) / (6 sum(U^2)^1.5) per column, U the jackknife influence values
    (n-1)(mean - theta_i); NaN where the jackknife has no spread."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        n_jack = jackknife.shape[0]
        influence = (n_jack - 1) * (np.nanmean(jackknife, axis=0) - jackknife)
        num = np.nansum(influence**3, axis=0)
        den = np.nansum(influence**2, axis=0)
        accel = num / (6.0 * den**1.5)
    return np.where(den > 0, accel, np.nan)


def _bca_bias(below: np.ndarray, at_or_below: np.ndarray, n_valid: np.ndarray) -> np.ndarray:
    """z0 from the mid-rank share of resampled values below the estimate (as scipy does)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return ndtri((below + at_or_below) / (2.0 * n_valid))


def _interval_summary(
    distribution: np.ndarray,
    estimate: np.ndarray,
    *,
    method: Method,
    confidence_level: float,
    jackknife: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(low, high, bca_degenerate, standard_error)`` per column, one chunk of columns at a time.

    Each chunk is copied and sorted once; the bootstrap standard error (ddof=1, NaN resamples
    ignored), the BCa bias counts and the quantiles are all read from that sorted copy.
    """
    distribution = np.asarray(distribution, dtype=float)
    n_labels = distribution.shape[1]
    estimate = np.broadcast_to(np.asarray(estimate, dtype=float), (n_labels,))
    alpha = (1.0 - confidence_level) / 2.0
    low = np.full(n_labels, np.nan)
    high = np.full(n_labels, np.nan)
    se = np.full(n_labels, np.nan)
    degenerate = np.zeros(n_labels, dtype=bool)
    if method == "bca":
        if jackknife is None:
            raise ValueError("method='bca' needs the jackknife distribution")
        accel = _bca_acceleration(np.asarray(jackknife, dtype=float))
        z_lo, z_hi = ndtri(alpha), ndtri(1.0 - alpha)
    if distribution.shape[0] == 0:
        return low, high, degenerate, se
    for a in range(0, n_labels, _CHUNK_COLUMNS):
        b = min(n_labels, a + _CHUNK_COLUMNS)
        block, n_valid = _sorted_rows(distribution[:, a:b])
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # fewer than 2 valid resamples
            if (n_valid < block.shape[1]).any():
                se[a:b] = np.nanstd(block, axis=1, ddof=1)
            else:
                se[a:b] = np.std(block, axis=1, ddof=1)
        q_low = np.full(b - a, alpha)
        q_high = np.full(b - a, 1.0 - alpha)
        if method == "bca":
            est = estimate[a:b, None]
            # comparisons with NaN are False: NaN resamples never count as below the estimate
            z0 = _bca_bias(
                np.count_nonzero(block < est, axis=1),
                np.count_nonzero(block <= est, axis=1),
                n_valid,
            )
            acc = accel[a:b]
            with np.errstate(invalid="ignore", divide="ignore"):
                adj_lo = ndtr(z0 + (z0 + z_lo) / (1.0 - acc * (z0 + z_lo)))
                adj_hi = ndtr(z0 + (z0 + z_hi) / (1.0 - acc * (z0 + z_hi)))
            bad = ~(np.isfinite(z0) & np.isfinite(acc) & np.isfinite(adj_lo) & np.isfinite(adj_hi))
            degenerate[a:b] = bad
            q_low = np.where(bad, q_low, adj_lo)
            q_high = np.where(bad, q_high, adj_hi)
        low[a:b] = _sorted_quantile(block, n_valid, q_low)
        high[a:b] = _sorted_quantile(block, n_valid, q_high)
    if method == "basic":
        low, high = 2.0 * estimate - high, 2.0 * estimate - low
    return low, high, degenerate & ~np.isnan(estimate), se


def confidence_interval(
    distribution: np.ndarray,
    estimate: np.ndarray,
    *,
    method: Method,
    confidence_level: float,
    jackknife: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sided intervals per column of a bootstrap distribution (n_resamples, L).

    Returns ``(low, high, bca_degenerate)``; ``bca_degenerate`` marks columns where BCa fell back
    to the percentile interval (always False for other methods).
    """
    low, high, degenerate, _ = _interval_summary(
        distribution,
        estimate,
        method=method,
        confidence_level=confidence_level,
        jackknife=jackknife,
    )
    return low, high, degenerate


def _warn_degenerate(n_degenerate: int, n_total: int) -> None:
    if n_degenerate:
        warnings.warn(
            f"BCa is degenerate for {n_degenerate} of {n_total} statistics (resampled values all "
            "on one side of the estimate, or no jackknife spread); the percentile interval is "
            "used for them (column 'method' of to_frame() says which)",
            AttunestatsWarning,
            stacklevel=3,
        )


def _check_common(method: str, n_resamples: Any, confidence_level: Any) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer):
        raise TypeError(f"n_resamples must be an int; got {n_resamples!r}")
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2; got {n_resamples}")
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, float | int):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap estimates, intervals and distributions of many statistics at once.

    Attributes
    ----------
    labels : pandas.DataFrame
        One row per statistic (for scores: ``predictor``, ``mode``, ``metric``).
    estimate, ci_low, ci_high, standard_error : numpy.ndarray
        Point estimate (full data), interval bounds and bootstrap standard error per label.
    method_used : numpy.ndarray
        Interval method per label (``"bca"`` or ``"percentile"`` where BCa was degenerate).
    bootstrap_distribution : numpy.ndarray
        Resampled statistics, shape (n_resamples, n_labels).
    jackknife_distribution : numpy.ndarray or None
        Leave-one-unit-out statistics, shape (n_units, n_labels) (for BCa).
    weights : numpy.ndarray
        The resample weights (n_resamples, n_conversations), so other statistics can be
        evaluated on exactly the same resamples (paired comparisons, rank intervals).
    conversation_ids : tuple of str
        Conversation order of the columns of ``weights``.
    """

    labels: pd.DataFrame
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    standard_error: np.ndarray
    method_used: np.ndarray
    method: str
    confidence_level: float
    n_resamples: int
    plan: ResamplingPlan
    seed: int | str | None
    simulated: bool = False
    n_units: int = 0
    conversation_ids: tuple[str, ...] = ()
    bootstrap_distribution: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))
    jackknife_distribution: np.ndarray | None = field(repr=False, default=None)
    weights: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))

    def to_frame(self) -> pd.DataFrame:
        """One tidy row per statistic with estimate, interval, SE and the settings used."""
        frame = self.labels.copy()
        frame["estimate"] = self.estimate
        frame["ci_low"] = self.ci_low
        frame["ci_high"] = self.ci_high
        frame["standard_error"] = self.standard_error
        frame["method"] = self.method_used
        frame["unit"] = (
            self.plan.unit
            if self.plan.strata is None
            else (f"{self.plan.unit} (strata: {self.plan.strata})")
        )
        frame["n_resamples"] = self.n_resamples
        frame["confidence_level"] = self.confidence_level
        frame["seed"] = pd.Series([self.seed] * len(frame), dtype=object)
        frame["simulated"] = self.simulated
        return frame

    def index_of(self, **selectors: Any) -> np.ndarray:
        """Positions of the labels matching every ``column=value`` given."""
        keep = np.ones(len(self.labels), dtype=bool)
        for column, value in selectors.items():
            if column not in self.labels.columns:
                raise KeyError(f"no label column {column!r}; columns: {list(self.labels.columns)}")
            keep &= (self.labels[column] == value).to_numpy()
        return np.flatnonzero(keep)

    def distribution(self, **selectors: Any) -> np.ndarray:
        """The bootstrap distribution of the one label matching ``selectors``."""
        idx = self.index_of(**selectors)
        if len(idx) != 1:
            raise KeyError(f"{selectors} matches {len(idx)} labels, not exactly one")
        return self.bootstrap_distribution[:, idx[0]]


def run_bootstrap(
    statistic: SumStatistic,
    design: pd.DataFrame,
    *,
    plan: ResamplingPlan | None = None,
    method: Method = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
    simulated: bool = False,
    batch_size: int | None = None,
) -> BootstrapResult:
    """Bootstrap any :class:`SumStatistic` over the conversations of ``design``.

    ``design`` has one row per conversation, in the row order of ``statistic.X``, with at least
    ``conversation_id`` (and ``participant_id`` or the strata column when the plan uses them).
    """
    plan = plan or ResamplingPlan()
    _check_common(method, n_resamples, confidence_level)
    if len(design) != statistic.X.shape[0]:
        raise ValueError(
            f"design has {len(design)} conversations but the statistic has {statistic.X.shape[0]} rows"
        )
    if len(design) < 2:
        raise ValueError(f"need at least 2 conversations to resample; got {len(design)}")
    generator = check_rng(rng)
    estimate = statistic.evaluate(np.ones((1, len(design))))[0]
    weights = plan.weights(design, int(n_resamples), generator)
    distribution = statistic.evaluate(weights, batch_size=batch_size)
    jackknife = (
        statistic.evaluate(plan.jackknife(design), batch_size=batch_size)
        if method == "bca"
        else None
    )
    low, high, degenerate, se = _interval_summary(
        distribution,
        estimate,
        method=method,
        confidence_level=float(confidence_level),
        jackknife=jackknife,
    )
    if method == "bca":
        _warn_degenerate(int(degenerate.sum()), len(estimate))
    used = np.where(degenerate, "percentile", method).astype(object)
    return BootstrapResult(
        labels=statistic.labels.reset_index(drop=True),
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        standard_error=se,
        method_used=used,
        method=method,
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
        plan=plan,
        seed=seed_record(rng),
        simulated=simulated,
        n_units=plan.n_units(design),
        conversation_ids=tuple(design["conversation_id"].astype(str)),
        bootstrap_distribution=distribution,
        jackknife_distribution=jackknife,
        weights=weights,
    )


def cluster_bootstrap_mean(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[Any] | np.ndarray | None = None,
    *,
    method: Method = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> BootstrapResult:
    """Cluster bootstrap of the pooled mean of ``values`` (clusters resampled whole).

    The estimate is ``sum(values) / len(values)``; with ``clusters=None`` every value is its own
    cluster (the ordinary bootstrap of a mean). Clusters are sorted, so the order of the input
    rows does not change a seeded result.

    Examples
    --------
    >>> res = cluster_bootstrap_mean([1, 0, 1, 1, 0, 1], clusters=[1, 1, 2, 2, 3, 3], rng=1,
    ...                              n_resamples=2000, method="percentile")
    >>> round(float(res.estimate[0]), 4)
    0.6667
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size < 2:
        raise ValueError(
            f"values must be a 1-d sequence of at least 2 numbers; got shape {v.shape}"
        )
    if np.isnan(v).any():
        raise ValueError("values contain NaN; drop them first")
    if clusters is None:
        cluster_codes = np.arange(v.size)
        ids = [str(i) for i in range(v.size)]
    else:
        c = np.asarray(clusters)
        if c.shape != v.shape:
            raise ValueError(f"clusters must have the shape of values {v.shape}; got {c.shape}")
        cluster_codes, uniques = pd.factorize(pd.Series(c), sort=True)
        ids = [str(u) for u in uniques]
    n_clusters = int(cluster_codes.max()) + 1
    sums = np.bincount(cluster_codes, weights=v, minlength=n_clusters)[:, None]
    counts = np.bincount(cluster_codes, minlength=n_clusters).astype(float)[:, None]
    stat = ratio_statistic(sums, counts, pd.DataFrame({"statistic": ["mean"]}))
    design = pd.DataFrame({"conversation_id": ids})
    return run_bootstrap(
        stat,
        design,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
    )


# --------------------------------------------------------------------------------------------
# Scores -> statistics
# --------------------------------------------------------------------------------------------
def _codes(column: pd.Series, categories: Sequence[Any]) -> np.ndarray:
    """Position of each value of ``column`` in ``categories`` (-1 where absent or missing).

    Factorises the long column once (fast, whatever its string dtype) and looks up only its few
    distinct values, instead of hashing every row against the categories.
    """
    codes, uniques = pd.factorize(column)
    lookup = np.append(pd.Index(list(categories), dtype=object).get_indexer(uniques), -1)
    return lookup[codes]  # code -1 (missing) takes the appended -1


def scores_statistic(
    scores: Scores,
    *,
    metrics: Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
) -> tuple[SumStatistic, pd.DataFrame]:
    """The :class:`SumStatistic` of every (predictor, mode, metric) of ``scores``.

    Mean metrics use the null-aware conversation means; pooled metrics (registry aggregation
    ``"pooled"``) are recomputed from summed confusion counts. Returns the statistic and the
    design (one row per conversation, sorted by ``conversation_id``).
    """
    from attunestats.metrics.registry import METRICS, pooled_statistic

    conv = scores.conversation
    if predictors is not None:
        unknown = sorted(set(predictors) - set(conv["predictor"].unique()))
        if unknown:
            raise ValueError(
                f"unknown predictors {unknown}; available: {sorted(conv['predictor'].unique())}"
            )
        conv = conv[conv["predictor"].isin(list(predictors))]
    available = set(conv["metric"].unique())
    if metrics is None:
        metrics = [
            m for m, spec in METRICS.items() if spec.level == "conversation" and m in available
        ]
    else:
        bad = [m for m in metrics if m not in METRICS or METRICS[m].level != "conversation"]
        if bad:
            raise ValueError(
                f"not conversation-level metrics of the registry: {bad}; see attunestats.METRICS"
            )
    design = scores.design.sort_values("conversation_id", ignore_index=True)
    conv_ids = design["conversation_id"].astype(str).tolist()
    keys = conv[["predictor", "mode"]].drop_duplicates().sort_values(["predictor", "mode"])
    key_list = list(keys.itertuples(index=False, name=None))
    key_of = {k: i for i, k in enumerate(key_list)}
    n_keys = len(key_list)

    def key_codes(table: pd.DataFrame) -> np.ndarray:
        """Index into ``key_list`` of each row's (predictor, mode); -1 for other keys."""
        pred_codes, preds = pd.factorize(table["predictor"])
        mode_codes, modes = pd.factorize(table["mode"])
        lookup = np.full((len(preds) + 1, len(modes) + 1), -1, dtype=np.int64)
        for i, p in enumerate(preds):
            for j, md in enumerate(modes):
                lookup[i, j] = key_of.get((p, md), -1)
        return lookup[pred_codes, mode_codes]  # -1 codes index the last row/column: -1

    mean_metrics = [m for m in metrics if METRICS[m].aggregation == "mean"]
    pooled_metrics = [m for m in metrics if METRICS[m].aggregation == "pooled"]
    parts: list[SumStatistic] = []
    if mean_metrics:
        values = np.full((len(conv_ids), n_keys * len(mean_metrics)), np.nan)
        rows = _codes(conv["conversation_id"], conv_ids)
        metric = _codes(conv["metric"], mean_metrics)
        key = key_codes(conv)
        ok = (rows >= 0) & (metric >= 0) & (key >= 0)
        cols = key[ok] * len(mean_metrics) + metric[ok]
        values[rows[ok], cols] = conv["value"].to_numpy(dtype=float)[ok]
        labels = pd.DataFrame(
            [(p, md, m) for (p, md) in key_list for m in mean_metrics],
            columns=["predictor", "mode", "metric"],
        )
        parts.append(mean_statistic(values, labels))
    if pooled_metrics:
        counts = scores.counts
        if predictors is not None:
            counts = counts[counts["predictor"].isin(list(predictors))]
        # one block of (tp, tn, fp, fn) columns per (predictor, mode, task), shared by every
        # pooled statistic of that task
        tasks = list(dict.fromkeys(METRICS[m].pooled_task for m in pooled_metrics))
        X = np.zeros((len(conv_ids), 4 * n_keys * len(tasks)))
        rows = _codes(counts["conversation_id"], conv_ids)
        task = _codes(counts["task"], tasks)
        key = key_codes(counts)
        ok = (rows >= 0) & (task >= 0) & (key >= 0)
        block = key[ok] * len(tasks) + task[ok]
        for j, col in enumerate(("tp", "tn", "fp", "fn")):
            X[rows[ok], 4 * block + j] = counts[col].to_numpy(dtype=float)[ok]
        label_rows = [(p, md, m) for (p, md) in key_list for m in pooled_metrics]
        label_block = np.array(
            [key_of[(p, md)] * len(tasks) + tasks.index(METRICS[m].pooled_task)
             for p, md, m in label_rows]
        )  # fmt: skip
        label_stat = np.array([METRICS[m].pooled_stat for _, _, m in label_rows])
        stat_names = list(dict.fromkeys(label_stat))

        def finalize(sums: np.ndarray) -> np.ndarray:
            tp, tn, fp, fn = (sums[:, j::4] for j in range(4))
            out = np.empty((sums.shape[0], len(label_rows)), order="F")
            for stat in stat_names:
                sel = label_stat == stat
                out[:, sel] = pooled_statistic(stat, tp, tn, fp, fn)[:, label_block[sel]]
            return out

        labels = pd.DataFrame(label_rows, columns=["predictor", "mode", "metric"])
        parts.append(SumStatistic(X, finalize, labels))
    if not parts:
        raise ValueError("no metric to bootstrap")
    return concat_statistics(parts), design


def bootstrap_scores(
    scores: Scores,
    *,
    metrics: Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
    unit: Unit = "conversation",
    strata: str | None = None,
    method: Method = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> BootstrapResult:
    """Cluster-bootstrap intervals for every metric of every predictor in one vectorised pass.

    Parameters
    ----------
    scores : Scores
        Output of :func:`attunestats.score`.
    metrics : sequence of str, optional
        Conversation-level registry metrics (default: all present, including pillars and the
        composite, which are recomputed inside each resample as means of per-conversation values).
    predictors : sequence of str, optional
        Subset of predictors (default: all).
    unit, strata : see :class:`ResamplingPlan`.
    method : {"bca", "percentile", "basic"}
    n_resamples, confidence_level, rng : as in :func:`scipy.stats.bootstrap`.

    Returns
    -------
    BootstrapResult
        Labels ``predictor``, ``mode``, ``metric``; all predictors share the resample weights.

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())               # doctest: +SKIP
    >>> boot = bootstrap_scores(scores, n_resamples=2000, rng=1)    # doctest: +SKIP
    >>> boot.to_frame().head()                                      # doctest: +SKIP
    """
    plan = ResamplingPlan(unit=unit, strata=strata)
    statistic, design = scores_statistic(scores, metrics=metrics, predictors=predictors)
    simulated = bool(getattr(scores, "release_info", {}).get("simulated", False))
    return run_bootstrap(
        statistic,
        design,
        plan=plan,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
        simulated=simulated,
    )
