"""The vectorised alpha kernel: Krippendorff's alpha of many rater subsets on shared resamples.

:func:`~attunestats.baseline.rater_agreement` and :func:`~attunestats.baseline.rater_vs_participant`
evaluate every alpha of one annotation type (all raters, each rater pair, each rater-participant
pair) on the same bootstrap resamples with the classes here, so their differences are paired (see
the "Resampling" section of :mod:`attunestats.baseline.agreement`). :func:`masi_matrix` is the
MASI distance between label sets without a loop over pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from attunestats.baseline.annotations import _ANNOTATION_ORDER, AnnotationType
from attunestats.errors import AttunestatsWarning, warn

__all__ = ["masi_matrix"]

_BLOCK = 256  # resamples per block (memory ~ block x clusters x 8 bytes)
#: Fewest participants for the participant bootstrap-t (the smallest number the coverage study
#: of :mod:`attunestats.baseline.agreement` covers). With fewer, few distinct resamples exist
#: (with 2, every resample that studentizes is the data itself: an interval of width 0): the
#: public functions then use the jackknife t, and ``_bootstrap_t`` gives no interval.
MIN_PARTICIPANTS_BOOTSTRAP_T = 6
_BT_ELEMENTS = 2_000_000  # bootstrap-t: weights of resamples x participants x participants at once


# --------------------------------------------------------------------------------------------
# the alpha kernel: many rater subsets, one set of resamples
# --------------------------------------------------------------------------------------------
def masi_matrix(domain: Sequence[Any]) -> np.ndarray:
    """The MASI distance between every pair of label sets of ``domain`` (vectorised).

    Equal to :func:`attunestats.agreement.masi_distance` element by element: 0 for equal sets
    (two empty sets included), 1 for disjoint sets (an empty and a non-empty set included), else
    ``1 - J M`` with the Jaccard index ``J`` and ``M`` = 2/3 (one set contains the other) or 1/3.
    """
    sets = [frozenset(v) for v in domain]
    labels = sorted({lab for s in sets for lab in s}, key=str)
    index = {lab: i for i, lab in enumerate(labels)}
    member = np.zeros((len(sets), max(len(labels), 1)), dtype=np.float64)
    for i, s in enumerate(sets):
        for lab in s:
            member[i, index[lab]] = 1.0
    inter = member @ member.T
    size = member.sum(axis=1)
    a, b = size[:, None], size[None, :]
    union = a + b - inter
    equal = (inter == a) & (inter == b)
    nested = (inter == a) | (inter == b)
    weight = np.where(nested, 2.0 / 3.0, 1.0 / 3.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        jaccard = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    out = np.where(inter == 0, 1.0, 1.0 - jaccard * weight)
    out[equal] = 0.0
    return out


class _AlphaKernel:
    """Krippendorff's alpha of any subset of raters, on shared cluster-bootstrap resamples.

    Built on :class:`attunestats.agreement.alpha._UnitTerms` (the unit-contribution kernel of
    :func:`~attunestats.agreement.krippendorff_alpha`): for a subset of raters the pairable units
    are collapsed into count patterns; a resample is a vector of cluster multiplicities ``w``
    (conversations or units), and the pattern multiplicities are ``w @ M`` with ``M[g, p]`` the
    number of pairable units of cluster ``g`` with pattern ``p``.
    """

    def __init__(self, frame: pd.DataFrame, spec: AnnotationType) -> None:
        from attunestats.agreement._input import _check_ratings
        from attunestats.agreement.alpha import _metric

        self.spec = spec
        cols = list(spec.unit_columns)
        self.ratings = _check_ratings(
            frame, columns=(cols, "rater", "value"), value_domain=spec.value_domain
        )
        if spec.distance == "masi":  # vectorised MASI matrix (the loop over pairs is slow)
            self.metric = _metric(None, masi_matrix(self.ratings.domain), self.ratings)
        else:
            self.metric = _metric(spec.level, spec.distance, self.ratings)
        ids = self.ratings.unit_ids
        if isinstance(ids, pd.MultiIndex):
            conv = ids.get_level_values("conversation_id").astype(str).tolist()
        elif len(cols) > 1:  # an Index of (conversation_id, ...) tuples
            conv = [str(u[0]) for u in ids]
        else:
            conv = [str(u) for u in ids]
        codes, uniques = pd.factorize(pd.Index(conv, dtype=object), sort=True)
        self.unit_conversation = np.asarray(codes)
        self.conversations = tuple(str(u) for u in uniques)
        self.raters = tuple(str(r) for r in self.ratings.rater_ids)

    @property
    def n_units(self) -> int:
        return self.ratings.n_units

    def rows(self, raters: Sequence[str]) -> np.ndarray:
        pos = {r: i for i, r in enumerate(self.raters)}
        return np.array([pos[r] for r in raters], dtype=np.int64)

    def counts(self, rows: np.ndarray) -> np.ndarray:
        """Value counts per unit (U x V) for the raters ``rows``."""
        codes = self.ratings.codes[rows]
        n_units, n_values = self.ratings.n_units, self.ratings.n_values
        valid = codes >= 0
        units = np.broadcast_to(np.arange(n_units), codes.shape)[valid]
        flat = units * n_values + codes[valid]
        out = np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)
        return out.astype(np.float64)

    def subset(self, rows: np.ndarray, cluster_of_unit: np.ndarray, n_clusters: int) -> _Subset:
        from attunestats.agreement.alpha import _UnitTerms

        counts = self.counts(rows)
        m = counts.sum(axis=1)
        pairable = m >= 2
        present = counts[pairable].sum(axis=0)
        if not pairable.any() or int((present > 0).sum()) < 2:
            return _Subset(None, None, int(pairable.sum()), counts[pairable])
        # values no rater of the subset used change nothing (zero marginals): drop them
        used = present > 0
        counts = counts[pairable][:, used]
        metric = replace(
            self.metric,
            x=None if self.metric.x is None else self.metric.x[used],
            delta=None if self.metric.delta is None else self.metric.delta[np.ix_(used, used)],
        )
        terms = _UnitTerms(counts, metric)
        patterns, inverse = np.unique(counts, axis=0, return_inverse=True)
        if patterns.shape != terms.patterns.shape or not np.array_equal(patterns, terms.patterns):
            raise RuntimeError("internal: pattern order differs from the agreement kernel")
        clusters = cluster_of_unit[pairable]
        mapping = sparse.csr_array(
            (np.ones(clusters.size), (clusters, inverse.ravel())),
            shape=(n_clusters, terms.n_patterns),
        )
        return _Subset(terms, mapping, int(pairable.sum()), counts)


@dataclass
class _Subset:
    terms: Any
    mapping: Any
    n_units: int
    counts: np.ndarray

    def statistic(self) -> float:
        if self.terms is None:
            return float("nan")
        return float(self.terms.alpha(self.terms.freq[None, :])[0])

    def resampled(self, cluster_weights: np.ndarray) -> np.ndarray:
        if self.terms is None:
            return np.full(cluster_weights.shape[0], np.nan)
        w = np.asarray((self.mapping.T @ cluster_weights.T).T)
        terms = self.terms
        if terms.metric.kind != "matrix":
            return terms.alpha(w)
        # matrix metrics: the kernel's formula with the quadratic form as matrix products
        sums = w @ terms.columns
        tot, do_num = sums[:, 0], sums[:, 1]
        n_b = terms.marginals(w)
        quad = ((n_b @ terms.metric.delta) * n_b).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - (tot - 1.0) * do_num / quad
        out[~(quad > 1e-12 * tot * tot)] = np.nan
        return out

    def percent_agreement(self) -> float:
        """Share of agreeing pairs among all pairs of ratings of a unit (exact equality)."""
        c = self.counts
        if c.size == 0:
            return float("nan")
        m = c.sum(axis=1)
        pairs = float((m * (m - 1.0)).sum())
        return float((c * (c - 1.0)).sum() / pairs) if pairs > 0 else float("nan")


def _cluster_weights(
    rng: np.random.Generator, n_clusters: int, n_resamples: int
) -> list[np.ndarray]:
    """Blocks (B_block x G) of multiplicities of G clusters drawn G times with replacement."""
    out = []
    done = 0
    while done < n_resamples:
        size = min(_BLOCK, n_resamples - done)
        idx = rng.integers(0, n_clusters, size=(size, n_clusters))
        flat = (idx + (np.arange(size) * n_clusters)[:, None]).ravel()
        w = np.bincount(flat, minlength=size * n_clusters).reshape(size, n_clusters)
        out.append(w.astype(np.float64))
        done += size
    return out


def _participant_codes(
    kernel: _AlphaKernel, participant_of_conversation: Mapping[str, str]
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Participant code of each unit of the kernel, and the sorted participant ids."""
    try:
        ids = [str(participant_of_conversation[c]) for c in kernel.conversations]
    except KeyError as exc:
        raise ValueError(f"conversation {exc.args[0]!r} has no participant_id") from None
    codes, uniques = pd.factorize(pd.Index(ids, dtype=object), sort=True)
    return np.asarray(codes)[kernel.unit_conversation], tuple(str(u) for u in uniques)


def _alpha_subsets(
    kernel: _AlphaKernel,
    subsets: Sequence[Sequence[str]],
    *,
    resample: str,
    n_resamples: int,
    rng: np.random.Generator | None,
    participant_of_conversation: Mapping[str, str] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[_Subset]]:
    """Alpha of each rater subset and its replicates on shared resamples.

    ``resample="participant"``: the delete-one-participant jackknife, replicates (P x S), row
    ``p`` the alpha without participant ``p``'s units (exact: alpha is a ratio of sums of unit
    contributions, so deleting a participant is a zero weight on its units). Otherwise bootstrap
    distributions (B x S) over conversations or units.
    """
    if resample == "participant":
        if participant_of_conversation is None:
            raise ValueError("resample='participant' needs the participant of each conversation")
        unit_participant, participants = _participant_codes(kernel, participant_of_conversation)
        n_part = len(participants)
        subs = [kernel.subset(kernel.rows(s), unit_participant, n_part) for s in subsets]
        estimate = np.array([s.statistic() for s in subs])
        weights = 1.0 - np.eye(n_part)
        reps = np.full((n_part, len(subs)), np.nan)
        for j, s in enumerate(subs):
            reps[:, j] = s.resampled(weights)
        return estimate, reps, subs
    if resample == "conversation":
        cluster_of_unit, n_clusters = kernel.unit_conversation, len(kernel.conversations)
    else:
        cluster_of_unit, n_clusters = np.arange(kernel.n_units), kernel.n_units
    subs = [kernel.subset(kernel.rows(s), cluster_of_unit, n_clusters) for s in subsets]
    estimate = np.array([s.statistic() for s in subs])
    dist = np.full((n_resamples, len(subs)), np.nan)
    if n_resamples:
        pos = 0
        for w in _cluster_weights(rng, n_clusters, n_resamples):
            for j, s in enumerate(subs):
                dist[pos : pos + w.shape[0], j] = s.resampled(w)
            pos += w.shape[0]
    return estimate, dist, subs


def _percentile(dist: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval and SE per column, NaN resamples left out."""
    a = 1.0 - level
    n = dist.shape[1]
    lo, hi, se = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    for j in range(n):
        x = dist[:, j][np.isfinite(dist[:, j])]
        if x.size >= 2:
            lo[j], hi[j] = np.quantile(x, [a / 2, 1 - a / 2])
            se[j] = np.std(x, ddof=1)
    return lo, hi, se


def _jackknife_t(
    estimate: np.ndarray, replicates: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(se, ci_low, ci_high, df, pvalue)`` of delete-one-participant jackknife t intervals.

    ``se^2 = (P - 1) / P sum_p (r_p - mean r)^2``, t interval and two-sided t test of 0 with
    ``P - 1`` degrees of freedom (the interval excludes 0 exactly when ``p < 1 - level``). A
    column with an undefined replicate has no interval.
    """
    from scipy import stats

    reps = np.asarray(replicates, dtype=float)
    n_part = reps.shape[0]
    est = np.asarray(estimate, dtype=float)
    dev = reps - reps.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt((n_part - 1.0) / n_part * np.sum(dev * dev, axis=0))
        df = np.full(est.shape, n_part - 1.0)
        q = stats.t.ppf(0.5 + level / 2.0, df) if n_part > 1 else np.full(est.shape, np.nan)
        low, high = est - q * se, est + q * se
        p = 2.0 * stats.t.sf(np.abs(est / se), df)
    p = np.where(se > 0, p, np.where(est == 0, 1.0, np.nan))
    return se, low, high, df, p


def _jackknife_se(values: np.ndarray, replicates: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """Jackknife SE over ``P`` drawn participants (``copies`` of each: B x P) from the replicates
    without one copy (B x P x K): ``se^2 = (P - 1) / P sum_p copies_p (r_p - mean r)^2``."""
    n_part = copies.shape[1]
    w = copies[:, :, None]
    r = np.where(w > 0, replicates, 0.0)
    mean = (w * r).sum(axis=1, keepdims=True) / n_part
    with np.errstate(invalid="ignore"):
        var = (n_part - 1.0) / n_part * (w * (r - mean) ** 2).sum(axis=1)
    bad = np.isnan(np.where(w > 0, replicates, 0.0)).any(axis=1) | np.isnan(values)
    return np.where(bad, np.nan, np.sqrt(var))


def _bootstrap_t(
    subs: Sequence[_Subset],
    n_part: int,
    *,
    contrasts: np.ndarray | None,
    n_resamples: int,
    rng: np.random.Generator,
    level: float,
) -> dict[str, np.ndarray]:
    """Participant bootstrap-t (percentile-t) intervals of alphas and of linear contrasts of them.

    Columns: the ``S`` subsets' alphas, then ``contrasts`` (S x K) of them. Every resample draws
    ``P`` participants with replacement; the studentized draw ``t* = (a* - a) / se*`` uses the
    delete-one-participant jackknife SE computed *within* the resample (one copy deleted at a
    time), the interval is ``[a - t*_(B-m+1) se, a - t*_(m) se]`` with the jackknife SE ``se``
    of the data, ``t*_(i)`` the order statistics of the ``B`` finite ``t*`` and
    ``m = ceil((1 - level) (B + 1) / 2) - 1``, and the two-sided p-value of ``H0: value = 0`` is
    ``min(1, 2 min(1 + #(t* >= t0), 1 + #(t* <= t0)) / (B + 1))`` with ``t0 = a / se``: the
    interval is the set of values this test does not reject at ``1 - level``, so it excludes 0
    exactly when ``p < 1 - level`` (Efron and Tibshirani 1993, ch. 12; Davison and Hinkley 1997,
    sec. 5.2). Returns ``estimate``, ``se``, ``ci_low``,
    ``ci_high``, ``pvalue``, ``n_undefined`` (resamples without a finite ``t*``) and ``draws``
    (the alphas and contrasts in each resample, B x (S + K)).
    """
    n_sub = len(subs)
    c = np.zeros((n_sub, 0)) if contrasts is None else np.asarray(contrasts, dtype=float)
    eye = np.eye(n_part)

    def evaluate(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n_b = weights.shape[0]
        # each resample and, for every participant, the resample without one copy of them
        drop = np.repeat(weights, n_part, axis=0) - np.tile(eye, (n_b, 1))
        ok = drop.min(axis=1) >= 0
        a = np.empty((n_b, n_sub))
        r = np.full((n_b * n_part, n_sub), np.nan)
        for j, s in enumerate(subs):
            a[:, j] = s.resampled(weights)
            r[ok, j] = s.resampled(drop[ok])
        a = np.concatenate([a, a @ c], axis=1)
        r = r.reshape(n_b, n_part, n_sub)
        r = np.concatenate([r, r @ c], axis=2)
        return a, _jackknife_se(a, r, weights)

    est, se = evaluate(np.ones((1, n_part)))
    est, se = est[0], se[0]
    draws, t_draws = [], []
    chunk = max(1, _BT_ELEMENTS // (n_part * n_part))  # resamples per evaluation (memory)
    for block in _cluster_weights(rng, n_part, n_resamples):
        for start in range(0, block.shape[0], chunk):
            a, s = evaluate(block[start : start + chunk])
            with np.errstate(invalid="ignore", divide="ignore"):
                t = (a - est) / s
            t[~np.isfinite(t) | ~(s > 0)] = np.nan
            draws.append(a)
            t_draws.append(t)
    k = est.size
    draws_ = np.concatenate(draws) if draws else np.empty((0, k))
    t_all = np.concatenate(t_draws) if t_draws else np.empty((0, k))
    low, high, pvalue = np.full(k, np.nan), np.full(k, np.nan), np.full(k, np.nan)
    n_bad = np.sum(np.isnan(t_all), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t0 = est / se
    for j in range(k):
        t = np.sort(t_all[:, j][~np.isnan(t_all[:, j])])
        b = t.size
        if b == 0 or not np.isfinite(est[j]) or not se[j] > 0:
            continue
        if n_part < MIN_PARTICIPANTS_BOOTSTRAP_T:  # degenerate resampling: no interval
            continue
        m = int(np.ceil((1.0 - level) * (b + 1) / 2.0 - 1e-9)) - 1
        if m >= 1:
            low[j] = est[j] - t[b - m] * se[j]
            high[j] = est[j] - t[m - 1] * se[j]
        else:  # too few resamples for this level: the interval is unbounded
            low[j], high[j] = -np.inf, np.inf
        upper = 1 + np.sum(t >= t0[j])
        lower = 1 + np.sum(t <= t0[j])
        pvalue[j] = min(1.0, 2.0 * min(upper, lower) / (b + 1))
    return {"estimate": est, "se": se, "ci_low": low, "ci_high": high, "pvalue": pvalue,
            "n_undefined": n_bad, "draws": draws_}  # fmt: skip


def _spawned(generator: np.random.Generator) -> dict[str, np.random.Generator]:
    """One child generator per annotation type (all spawned, so a subset gets the same ones)."""
    children = generator.spawn(len(_ANNOTATION_ORDER))
    return dict(zip(_ANNOTATION_ORDER, children, strict=True))


def _warn_undefined(
    name: str, n_bad: int, total: int, *, jackknife: bool = False, studentized: bool = False
) -> None:
    if not n_bad:
        return
    if studentized:
        message = (
            f"{name}: {n_bad} of {total} bootstrap resamples have no studentized value (alpha or "
            "its within-resample jackknife SE undefined or 0, e.g. one participant drawn every "
            "time); they are left out of the bootstrap-t interval"
        )
    elif jackknife:
        message = (
            f"{name}: alpha is undefined without {n_bad} of {total} participants (no variation "
            "among the remaining values); no jackknife interval"
        )
    else:
        message = (
            f"{name}: alpha is undefined in {n_bad} of {total} bootstrap resamples (no variation "
            "among the resampled values); they are left out of the interval"
        )
    warn(message, AttunestatsWarning)
