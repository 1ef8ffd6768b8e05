"""Confidence sets for ranks: marginal and simultaneous (Mogstad, Romano, Shaikh and Wilhelm 2024).

For ``M`` predictors with estimates ``theta_1..theta_M`` of one metric, the rank of ``j`` is
``1 + #{k : theta_k better than theta_j}``. From confidence intervals for the differences
``theta_k - theta_j`` that hold *simultaneously* over a family, the rank confidence set of ``j``
is ``[1 + #{k : k shown better than j}, M - #{k : k shown worse than j}]``:

marginal
    for each ``j`` separately, the family is the ``M - 1`` differences involving ``j``: each
    predictor's set covers its own rank with probability ``>= 1 - alpha``;
simultaneous
    the family is all ``M (M - 1) / 2`` pairs: all ``M`` sets cover all ranks jointly with
    probability ``>= 1 - alpha`` (what a reader needs who reads the whole ranking).

The simultaneous intervals for the differences are max-|t| intervals
(:mod:`attunestats.inference.multiplicity`), from the participant-level joint distribution by
default (the csranks R package uses a bootstrap of the same max statistic). Ties count as not
shown either way.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from attunestats.inference.contrasts import ContrastFamily, adjust_family, joint_abs_t


def pair_weights(n_labels: int, idx: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Contrast weights (n_labels, K) of all pairs ``idx[a] - idx[b]``, ``a < b``, and the pairs."""
    pairs = list(combinations(range(len(idx)), 2))
    weights = np.zeros((n_labels, len(pairs)))
    for k, (a, b) in enumerate(pairs):
        weights[idx[a], k] = 1.0
        weights[idx[b], k] = -1.0
    return weights, pairs


def rank_sets(
    fam: ContrastFamily | None,
    pairs: list[tuple[int, int]],
    m: int,
    *,
    higher_is_better: bool,
    confidence_level: float,
    rng: np.random.Generator | None = None,
    n_draws: int = 10_000,
    abs_t: np.ndarray | None = None,
    defined: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Estimated ranks with marginal and simultaneous confidence sets of ``m`` predictors.

    ``fam`` is the family of all pair differences ``theta_a - theta_b`` (``pairs``, from
    :func:`pair_weights`; None when ``m < 2``); ``abs_t`` its joint ``|T|`` draws (computed when
    not given). ``defined`` marks the predictors with an estimate (default: all): the others
    (a metric undefined on all their conversations) get no rank (NaN) and the rest are ranked
    among themselves. Returns arrays over the ``m`` predictors: ``rank`` (1 = best; ties get the
    average rank), ``rank_ci_low``, ``rank_ci_high`` (marginal), ``rank_sim_low``,
    ``rank_sim_high`` (simultaneous).
    """
    out = {key: np.full(m, np.nan) for key in
           ("rank", "rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high")}  # fmt: skip
    ok = np.ones(m, dtype=bool) if defined is None else np.asarray(defined, dtype=bool)
    m_def = int(ok.sum())
    if m_def == 0:
        return out
    if m_def == 1:
        for key in out:
            out[key][ok] = 1
        return out
    sign = 1.0 if higher_is_better else -1.0
    est = fam.estimate  # theta_a - theta_b per pair
    from scipy.stats import rankdata

    # the estimates themselves: a - b > 0 means a ahead when higher is better
    score = np.zeros(m)
    for k, (a, b) in enumerate(pairs):
        if np.isnan(est[k]):
            continue
        score[a] += np.sign(sign * est[k])
        score[b] -= np.sign(sign * est[k])
    out["rank"][ok] = rankdata(-score[ok], method="average")

    def sets(low: np.ndarray, high: np.ndarray, subset: list[int]) -> tuple[np.ndarray, np.ndarray]:
        better = np.zeros(m)  # number shown better than j
        worse = np.zeros(m)
        for k in subset:
            a, b = pairs[k]
            lo, hi = sign * low[k], sign * high[k]
            if sign < 0:
                lo, hi = hi, lo
            if lo > 0:  # a shown better than b
                better[b] += 1
                worse[a] += 1
            elif hi < 0:
                better[a] += 1
                worse[b] += 1
        return 1 + better, m_def - worse  # ranks among the predictors with an estimate

    if abs_t is None:  # one joint law for every sub-family
        abs_t = joint_abs_t(fam, n_draws=n_draws, rng=rng)
    sim = adjust_family(fam, correction="maxt", confidence_level=confidence_level, abs_t=abs_t)
    lo_all, hi_all = sets(sim.ci_low, sim.ci_high, list(range(len(pairs))))
    out["rank_sim_low"][ok], out["rank_sim_high"][ok] = lo_all[ok], hi_all[ok]
    for j in np.flatnonzero(ok):
        involved = [k for k, (a, b) in enumerate(pairs) if j in (a, b)]
        cols = np.array(involved)
        marg = adjust_family(fam.subset(cols), correction="maxt",
                             confidence_level=confidence_level, abs_t=abs_t[:, cols])  # fmt: skip
        low = np.full(len(pairs), np.nan)
        high = np.full(len(pairs), np.nan)
        low[involved], high[involved] = marg.ci_low, marg.ci_high
        lo_j, hi_j = sets(low, high, involved)
        out["rank_ci_low"][j], out["rank_ci_high"][j] = lo_j[j], hi_j[j]
    return out
