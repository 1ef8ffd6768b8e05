"""Krippendorff's alpha with missing data, any metric, and vectorised bootstrap intervals.

Definitions (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"). For a unit ``u``
with ``m_u >= 2`` ratings and value counts ``n_uc``, its coincidence contribution is
``O_u[c, k] = (n_uc n_uk - [c = k] n_uc) / (m_u - 1)``; units with fewer than two ratings are not
pairable and are dropped. With ``o = sum_u O_u``, marginals ``n_c = sum_k o_ck`` (= the number of
pairable values equal to ``c``) and ``n = sum_c n_c``::

    D_o = sum_ck o_ck delta2_ck / n
    D_e = sum_ck n_c (n_k - [c = k]) delta2_ck / (n (n - 1))
    alpha = 1 - D_o / D_e

``delta2`` is 1 - [c = k] (nominal), ``(c - k)^2`` (interval), ``((c - k) / (c + k))^2`` (ratio)
or Krippendorff's rank metric (ordinal) ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``, which is
the squared difference of the *mid-ranks* ``r_c = sum_{g <= c} n_g - n_c / 2`` and therefore
depends on the marginals ``n_c``. A user distance ``delta2(a, b)`` (e.g. MASI on emotion-tag
sets) plugs in unchanged.

Intervals
---------
``method="units"`` (default): nonparametric bootstrap over the pairable units, the natural
cluster bootstrap. Each unit's contribution is precomputed once: for fixed metrics the scalar
``d_u = sum_ck O_u[c, k] delta2_ck`` and the count vector ``n_u``; a resample is a row ``w`` of
unit multiplicities, so ``sum o delta2 = w @ d``, ``n_c = w @ N`` and ``D_e`` is a quadratic form
in the resampled marginals -- all resamples at once are (B x U) @ (U x ...) products. For the
ordinal metric nothing is held fixed: the mid-ranks are recomputed from each resample's
marginals, so every bootstrap value equals ``krippendorff.alpha`` on the resampled units
(tested to 1e-12). Percentile interval (linear interpolation, as ``scipy.stats.bootstrap``).

``method="hayes-krippendorff"``: the bootstrap of Hayes & Krippendorff (2007), as specified in
Krippendorff's "Algorithm for bootstrapping a distribution of alpha" (2006, rev. 2011) and
implemented by the KALPHA macro. It resamples *pairs of values*, not units: each resample draws
``M`` cells of the observed coincidence matrix with probabilities ``o_cc / n`` (diagonal) and
``2 o_ck / n`` (``c < k``), and sets ``alpha* = 1 - mean(delta2 of the draws) / D_e`` with the
expected disagreement ``D_e`` and the metric (ordinal: the original marginals) held fixed.
``M`` is the number of pairable pairs ``sum_u m_u (m_u - 1) / 2`` as in the paper ("a random
sample of 239 pairs of judgments from the available pairs, weighted by how many observers judged
a given unit"); the 2011 macro caps it at ``min(25 q, (m - 1) n / 2)`` (``q`` = non-empty
cells), which equals the pair count for complete data when the cap does not bind. Then, as in
the algorithm: ``alpha* < -1`` is set to -1; if only one diagonal cell is non-empty every
``alpha* = 1`` (a resample without variation) becomes 0, otherwise
``min(#{alpha* = 1}, round(B sum_c (o_cc / n)^M))`` of them do. The interval takes order
statistics as the macro does (lower ``max(floor(a/2 B), 1)``-th, upper
``floor((1 - a/2) B) + 1``-th smallest value). Pairs from one unit are treated as independent,
so this interval ignores the clustering of pairs within units; Gwet (2015) shows it is too
narrow. Prefer ``method="units"``; the option exists to reproduce published KALPHA analyses.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attunestats.agreement._input import (
    DEFAULT_COLUMNS,
    _check_choice,
    _check_ratings,
    _check_unit_interval,
    _Ratings,
    _seed_of,
)
from attunestats.agreement._results import ConfidenceInterval
from attunestats.agreement.distances import (
    jaccard_distance,
    masi_distance,
    valence_arousal_distance,
)
from attunestats.errors import AttunestatsWarning

__all__ = ["AlphaResult", "krippendorff_alpha"]

LEVELS = ("nominal", "ordinal", "interval", "ratio")
NAMED_DISTANCES: dict[str, Callable[[Any, Any], float]] = {
    "masi": masi_distance,
    "jaccard": jaccard_distance,
    "valence_arousal": valence_arousal_distance,
}
METHODS = ("units", "hayes-krippendorff")
#: Resamples processed per block (bounds memory at about 2 * block * n_units * 8 bytes).
_BLOCK = 256


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha with its bootstrap interval.

    Attributes
    ----------
    statistic : float
        Krippendorff's alpha.
    confidence_interval : ConfidenceInterval
        ``(low, high)``; NaN when ``n_resamples == 0``.
    standard_error : float
        Standard deviation of the bootstrap distribution (NaN without resampling).
    level : str
        ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``, the name of a named distance
        (``"masi"``, ``"jaccard"``, ``"valence_arousal"``) or ``"custom"``.
    method : str or None
        ``"units"`` or ``"hayes-krippendorff"``; None without resampling.
    n_resamples, confidence_level, seed
        Settings used (``seed`` is the integer seed when one was given).
    n_units : int
        Number of pairable units (at least two ratings); the units resampled.
    n_raters : int
        Number of raters (rows of the data).
    n_pairable_values : int
        ``n``, the number of ratings in pairable units.
    n_pairs : int
        ``sum_u m_u (m_u - 1) / 2``, the number of pairs of ratings within units.
    observed_disagreement, expected_disagreement : float
        ``D_o`` and ``D_e``.
    n_degenerate_resamples : int
        Resamples in which alpha is undefined (all resampled values equal); excluded from the
        interval and the standard error, with a warning.
    value_domain : ndarray
        The ordered values (rows/columns of ``coincidences``).
    coincidences : ndarray
        The observed coincidence matrix ``o``.
    bootstrap_distribution : ndarray
        Alpha in each resample, in resample order.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    level: str
    method: str | None
    n_resamples: int
    confidence_level: float
    seed: int | None
    n_units: int
    n_raters: int
    n_pairable_values: int
    n_pairs: int
    observed_disagreement: float
    expected_disagreement: float
    n_degenerate_resamples: int = 0
    value_domain: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))
    coincidences: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))
    bootstrap_distribution: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))

    def probability_below(self, alpha_min: float) -> float:
        """Bootstrap probability that alpha is below ``alpha_min`` (Krippendorff's ``q``)."""
        boot = self.bootstrap_distribution[np.isfinite(self.bootstrap_distribution)]
        if boot.size == 0:
            return float("nan")
        return float(np.mean(boot < alpha_min))

    def to_frame(self) -> pd.DataFrame:
        """One tidy row: coefficient, level, statistic, standard error, interval and settings."""
        return pd.DataFrame(
            {
                "coefficient": ["krippendorff_alpha"],
                "level": [self.level],
                "statistic": [self.statistic],
                "standard_error": [self.standard_error],
                "ci_low": [self.confidence_interval.low],
                "ci_high": [self.confidence_interval.high],
                "confidence_level": [self.confidence_level],
                "method": [self.method if self.method is not None else ""],
                "n_resamples": [self.n_resamples],
                "seed": pd.array([self.seed], dtype="Int64"),
                "n_units": [self.n_units],
                "n_raters": [self.n_raters],
                "n_pairable_values": [self.n_pairable_values],
                "observed_disagreement": [self.observed_disagreement],
                "expected_disagreement": [self.expected_disagreement],
            }
        )


# ---------------------------------------------------------------------------------------------
# distance matrices


def _ordinal_delta(n_c: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal metric from marginals ``n_c`` (last axis): squared mid-rank gaps."""
    r = np.cumsum(n_c, axis=-1) - n_c / 2.0
    return (r[..., :, None] - r[..., None, :]) ** 2


def _distance_matrix(
    level: str | None, distance: Any, ratings: _Ratings
) -> tuple[np.ndarray | None, str]:
    """The (V x V) delta2 matrix, or None for the ordinal metric (it depends on marginals)."""
    domain = ratings.domain
    v = ratings.n_values
    if distance is None:
        lvl = "nominal" if level is None else _check_choice(level, "level", LEVELS)
        if lvl == "nominal":
            return 1.0 - np.eye(v), lvl
        if not ratings.numeric and lvl != "ordinal":
            raise ValueError(
                f"level={lvl!r} needs numeric values; data holds non-numeric values such as "
                f"{domain[0]!r}"
            )
        if lvl == "ordinal":
            return None, lvl
        x = domain.astype(np.float64)
        if lvl == "interval":
            return (x[:, None] - x[None, :]) ** 2, lvl
        if (x < 0).any():
            raise ValueError(
                f"level='ratio' needs non-negative values; data holds {x[x < 0][:3].tolist()}"
            )
        s = x[:, None] + x[None, :]
        diff = x[:, None] - x[None, :]
        out = np.divide(diff, s, out=np.zeros_like(s), where=s != 0) ** 2
        return out, lvl
    if level is not None:
        raise ValueError(
            f"give either level or distance, not both (level={level!r}, distance={distance!r})"
        )
    if isinstance(distance, str):
        if distance not in NAMED_DISTANCES:
            raise ValueError(
                f"distance must be a callable, a square array or one of "
                f"{sorted(NAMED_DISTANCES)}; got {distance!r}"
            )
        func, name = NAMED_DISTANCES[distance], distance
    elif callable(distance):
        func, name = distance, "custom"
    else:
        mat = np.asarray(distance, dtype=np.float64)
        if mat.shape != (v, v):
            raise ValueError(
                f"distance matrix must be {v} x {v} (one row/column per value of value_domain); "
                f"got shape {mat.shape}"
            )
        _check_delta(mat)
        return mat, "custom"
    mat = np.zeros((v, v))
    values = domain.tolist()
    for i in range(v):
        for j in range(i, v):
            d = float(func(values[i], values[j]))
            mat[i, j] = d
            if j != i:
                mat[j, i] = float(func(values[j], values[i]))
    _check_delta(mat)
    return mat, name


def _check_delta(mat: np.ndarray) -> None:
    if not np.isfinite(mat).all():
        raise ValueError("distance returned non-finite values")
    if (mat < 0).any():
        raise ValueError("distance returned negative values")
    if not np.allclose(mat, mat.T, rtol=0, atol=1e-12):
        raise ValueError("distance is not symmetric: distance(a, b) != distance(b, a)")
    if np.abs(np.diag(mat)).max(initial=0.0) > 0:
        raise ValueError("distance(a, a) must be 0 for every value a")


# ---------------------------------------------------------------------------------------------
# kernels


@dataclass(frozen=True)
class _Prepared:
    """Per-unit pieces of the pairable units, computed once."""

    counts: np.ndarray  # (U, V) value counts
    inv_m1: np.ndarray  # (U,) 1 / (m_u - 1)
    delta: np.ndarray | None  # (V, V) or None (ordinal)
    d_unit: np.ndarray | None  # (U,) sum_ck O_u delta2 (fixed metrics only)


def _prepare(counts: np.ndarray, delta: np.ndarray | None) -> _Prepared:
    m = counts.sum(axis=1)
    inv_m1 = 1.0 / (m - 1.0)
    d_unit = None
    if delta is not None:
        # diag(delta) is 0 for every metric, so sum_ck O_u delta = n_u' delta n_u / (m_u - 1)
        d_unit = np.einsum("uc,ck,uk->u", counts, delta, counts) * inv_m1
    return _Prepared(counts=counts, inv_m1=inv_m1, delta=delta, d_unit=d_unit)


def _alpha_from_weights(prep: _Prepared, w: np.ndarray) -> np.ndarray:
    """Alpha for each row of unit multiplicities ``w`` (B x U); NaN where D_e = 0."""
    n_b = w @ prep.counts  # (B, V) marginals
    tot = n_b.sum(axis=1)
    if prep.delta is not None:
        do_num = w @ prep.d_unit
        quad = np.einsum("bc,ck,bk->b", n_b, prep.delta, n_b)
    else:
        r = np.cumsum(n_b, axis=1) - n_b / 2.0  # mid-ranks per resample
        r2 = r * r
        a = (n_b * r2).sum(axis=1)  # sum_c n_c r_c^2
        s = prep.counts @ r.T  # (U, B): n_u . r_b
        s2 = prep.counts @ r2.T  # (U, B): sum_c n_uc r_bc^2
        b_term = np.einsum("bu,ub->b", w * prep.inv_m1, s * s - s2)
        do_num = 2.0 * a - 2.0 * b_term
        nr = (n_b * r).sum(axis=1)
        quad = 2.0 * tot * a - 2.0 * nr * nr
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - (tot - 1.0) * do_num / quad
    out[~(quad > 0)] = np.nan
    return out


def _resample_unit_indices(
    rng: np.random.Generator, n_units: int, n_resamples: int, block: int = _BLOCK
) -> Iterator[np.ndarray]:
    """Blocks of bootstrap unit indices (rows = resamples), drawn in a fixed order.

    The unit bootstrap and the benchmark's reference loop both use this generator, so a seed
    gives the same resamples to both.
    """
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        yield rng.integers(0, n_units, size=(size, n_units))
        done += size


def _indices_to_weights(idx: np.ndarray, n_units: int) -> np.ndarray:
    b = idx.shape[0]
    flat = (idx + (np.arange(b) * n_units)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n_units).reshape(b, n_units).astype(np.float64)


def _bootstrap_units(prep: _Prepared, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    n_units = prep.counts.shape[0]
    out = np.empty(n_resamples)
    pos = 0
    for idx in _resample_unit_indices(rng, n_units, n_resamples):
        w = _indices_to_weights(idx, n_units)
        out[pos : pos + len(w)] = _alpha_from_weights(prep, w)
        pos += len(w)
    return out


def _bootstrap_hayes_krippendorff(
    o: np.ndarray, delta: np.ndarray, d_e: float, n_draws: int, n_resamples: int, rng: Any
) -> np.ndarray:
    n = o.sum()
    iu = np.triu_indices(o.shape[0])
    diag = iu[0] == iu[1]
    p = np.where(diag, o[iu], 2.0 * o[iu]) / n
    p = np.clip(p, 0.0, None)
    p = p / p.sum()
    cell_delta = delta[iu]
    draws = rng.multinomial(n_draws, p, size=n_resamples)  # (B, cells)
    boot = 1.0 - (draws @ cell_delta) / (n_draws * d_e)
    boot = np.maximum(boot, -1.0)
    ones = np.flatnonzero(boot == 1.0)
    if ones.size:
        p_diag = np.diag(o) / n
        n_nonzero_diag = int((p_diag > 0).sum())
        if n_nonzero_diag == 1:
            boot[ones] = 0.0
        elif n_nonzero_diag > 1:
            nx = round(n_resamples * float(np.sum(p_diag**n_draws)))
            boot[ones[: min(nx, ones.size)]] = 0.0
    return boot


def _order_statistic_interval(boot: np.ndarray, confidence_level: float) -> ConfidenceInterval:
    """KALPHA's interval: the max(floor(a/2 B), 1)-th and (floor((1-a/2) B) + 1)-th values."""
    s = np.sort(boot)
    b = s.size
    a = 1.0 - confidence_level
    lo = max(int(np.floor(a / 2 * b)), 1)
    hi = min(int(np.floor((1 - a / 2) * b)) + 1, b)
    return ConfidenceInterval(float(s[lo - 1]), float(s[hi - 1]))


# ---------------------------------------------------------------------------------------------
# public function


def krippendorff_alpha(
    data: Any,
    *,
    level: str | None = None,
    distance: str | Callable[[Any, Any], float] | np.ndarray | None = None,
    value_domain: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 0,
    method: str = "units",
    rng: int | np.random.Generator | np.random.SeedSequence | None = None,
    columns: Sequence[Any] = DEFAULT_COLUMNS,
) -> AlphaResult:
    """Krippendorff's alpha for any number of raters, missing ratings and any metric.

    Parameters
    ----------
    data : array_like (raters x units) or pandas.DataFrame (long table)
        Ratings; missing ones are NaN/None. Values may be numbers, strings or other hashable
        objects (frozensets of labels for set-valued distances). A long table has one row per
        rating and the columns named by ``columns``.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Level of measurement; default "nominal" (unless ``distance`` is given). "ordinal" is
        Krippendorff's rank metric: numeric values are ordered numerically, other values by
        ``value_domain``.
    distance : {"masi", "jaccard", "valence_arousal"}, callable or array, optional
        A user metric instead of ``level``: a callable ``delta2(a, b)`` on two values, the name
        of one in :mod:`attunestats.agreement.distances`, or a square matrix indexed like
        ``value_domain``. It must be symmetric, non-negative and 0 on equal values.
    value_domain : sequence, optional
        The possible values in order (needed for ordinal strings and for a distance matrix);
        by default the sorted values observed.
    confidence_level : float, default 0.95
        Level of the bootstrap interval.
    n_resamples : int, default 0
        Number of bootstrap resamples; 0 computes alpha only.
    method : {"units", "hayes-krippendorff"}, default "units"
        Resampling scheme (see the module docstring): a bootstrap over units, or the
        Hayes & Krippendorff (2007) bootstrap of pairable values with ``D_e`` fixed.
    rng : int, numpy.random.Generator or SeedSequence, optional
        Seed or generator (``numpy.random.default_rng(rng)``).
    columns : (unit, rater, value), default ("unit", "rater", "value")
        Column names of a long table; ``unit`` may be a list of columns.

    Returns
    -------
    AlphaResult

    Raises
    ------
    ValueError
        Fewer than two values in the domain, no unit with two ratings, no variation among the
        pairable values, mismatched shapes, invalid options.

    Examples
    --------
    >>> import numpy as np
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(krippendorff_alpha(data, level="ordinal").statistic, 3)
    0.815
    >>> res = krippendorff_alpha(data, level="interval", n_resamples=1000, rng=1)
    >>> res.confidence_interval.low < 0.849 < res.confidence_interval.high
    True
    """
    ratings = _check_ratings(data, columns=columns, value_domain=value_domain)
    confidence_level = _check_unit_interval(confidence_level, "confidence_level")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise TypeError(f"n_resamples must be an integer; got {n_resamples!r}")
    if n_resamples < 0:
        raise ValueError(f"n_resamples must be >= 0; got {n_resamples}")
    n_resamples = int(n_resamples)
    method = _check_choice(method, "method", METHODS)
    if ratings.n_values < 2:
        raise ValueError(
            f"data has a single value in its domain ({ratings.domain.tolist()!r}); alpha is "
            "undefined without variation"
        )
    delta, level_name = _distance_matrix(level, distance, ratings)

    counts_all = ratings.unit_counts()
    m_all = counts_all.sum(axis=1)
    pairable = m_all >= 2
    if not pairable.any():
        raise ValueError(
            "no unit has ratings from two or more raters; alpha needs at least one pairable unit"
        )
    counts = counts_all[pairable]
    n_c = counts.sum(axis=0)
    n = float(n_c.sum())
    if int((n_c > 0).sum()) < 2:
        only = ratings.domain[n_c > 0].tolist()
        raise ValueError(
            f"all pairable ratings have the same value {only!r}: the expected disagreement is 0 "
            "and alpha is undefined"
        )
    m = counts.sum(axis=1)
    inv_m1 = 1.0 / (m - 1.0)
    o = (counts * inv_m1[:, None]).T @ counts - np.diag((counts * inv_m1[:, None]).sum(axis=0))
    delta_fixed = _ordinal_delta(n_c) if delta is None else delta
    d_o = float((o * delta_fixed).sum() / n)
    d_e = float((np.outer(n_c, n_c) - np.diag(n_c)).ravel() @ delta_fixed.ravel() / (n * (n - 1.0)))
    if not d_e > 0:
        raise ValueError(
            "the expected disagreement is 0 (the distance does not separate the values that "
            "occur); alpha is undefined"
        )
    statistic = 1.0 - d_o / d_e
    n_pairs = int(round(float((m * (m - 1.0)).sum() / 2.0)))

    generator = np.random.default_rng(rng)
    boot = np.empty(0)
    ci = ConfidenceInterval(float("nan"), float("nan"))
    se = float("nan")
    n_bad = 0
    if n_resamples > 0:
        if method == "units":
            boot = _bootstrap_units(_prepare(counts, delta), n_resamples, generator)
        else:
            boot = _bootstrap_hayes_krippendorff(
                o, delta_fixed, d_e, n_pairs, n_resamples, generator
            )
        finite = boot[np.isfinite(boot)]
        n_bad = int(boot.size - finite.size)
        if n_bad:
            warnings.warn(
                f"alpha is undefined in {n_bad} of {n_resamples} bootstrap resamples (no "
                "variation among the resampled values); they are left out of the interval",
                AttunestatsWarning,
                stacklevel=2,
            )
        if finite.size >= 2:
            se = float(np.std(finite, ddof=1))
            if method == "units":
                a = 1.0 - confidence_level
                lo, hi = np.quantile(finite, [a / 2, 1 - a / 2])
                ci = ConfidenceInterval(float(lo), float(hi))
            else:
                ci = _order_statistic_interval(finite, confidence_level)

    return AlphaResult(
        statistic=float(statistic),
        confidence_interval=ci,
        standard_error=se,
        level=level_name,
        method=method if n_resamples > 0 else None,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        seed=_seed_of(rng),
        n_units=int(pairable.sum()),
        n_raters=ratings.n_raters,
        n_pairable_values=int(round(n)),
        n_pairs=n_pairs,
        observed_disagreement=d_o,
        expected_disagreement=d_e,
        n_degenerate_resamples=n_bad,
        value_domain=ratings.domain,
        coincidences=o,
        bootstrap_distribution=boot,
    )
