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
``method="units"`` (default): nonparametric bootstrap over the pairable units (the cluster
bootstrap; units with fewer than two ratings carry no pairs and are left out, so every resample
has as many pairable units as the data). Each unit's contribution is computed once: for fixed
metrics the scalar ``d_u = sum_ck O_u[c, k] delta2_ck`` and the count vector ``n_u``. A
resample is a row ``w`` of unit multiplicities, so ``sum o delta2 = w @ d``, ``n_c = w @ N``
and ``D_e`` follows from the resampled marginals -- a block of resamples is one (B x U)
product. Units with equal count vectors contribute identically, so the kernel works on the
distinct count *patterns* and draws their multiplicities directly, Multinomial(U, freq / U),
which is exactly the distribution of drawing U units with replacement (with few raters and
values there are a few dozen patterns for thousands of units). For the ordinal metric nothing
is held fixed: the mid-ranks are recomputed from each resample's marginals, so every bootstrap
value equals ``krippendorff.alpha`` on the resampled units (tested to 1e-12). Resamples without
variation (alpha undefined) are left out with a warning. Percentile interval (linear
interpolation, as ``scipy.stats.bootstrap``); by simulation (tests/agreement/test_alpha_coverage.py)
its coverage is within Monte Carlo error of the nominal level at 200 units.

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

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.agreement._input import (
    DEFAULT_COLUMNS,
    _check_choice,
    _check_ratings,
    _check_unit_interval,
    _Ratings,
)
from attunestats.agreement._results import ConfidenceInterval
from attunestats.agreement.distances import (
    jaccard_distance,
    masi_distance,
    valence_arousal_distance,
)
from attunestats.errors import AttunestatsWarning, warn

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


@dataclass(frozen=True, repr=False)
class AlphaResult(ResultMixin):
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
    coincidences : scipy.sparse.csr_array
        The observed coincidence matrix ``o`` (sparse; ``.toarray()`` for a dense array).
    bootstrap_distribution : ndarray
        Alpha in each resample, in resample order.
    """

    _title = "Krippendorff's alpha"

    statistic: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    level: str
    method: str | None
    n_resamples: int
    confidence_level: float
    seed: int | str | None
    n_units: int
    n_raters: int
    n_pairable_values: int
    n_pairs: int
    observed_disagreement: float
    expected_disagreement: float
    n_degenerate_resamples: int = 0
    value_domain: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))
    coincidences: sparse.csr_array | None = field(repr=False, default=None)
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
# metrics


@dataclass(frozen=True)
class _Metric:
    """The metric ``delta2`` in the form the kernels use.

    ``kind`` is "nominal", "interval" (``x`` = centred values), "ordinal" (mid-ranks from the
    marginals) or "matrix" (a V x V matrix: ratio and user distances). Only "matrix" stores a
    V x V array, so nominal, interval and ordinal data with thousands of distinct values stay
    cheap.
    """

    kind: str
    name: str
    x: np.ndarray | None = None
    delta: np.ndarray | None = None

    def cell_delta(self, c: np.ndarray, k: np.ndarray, n_c: np.ndarray) -> np.ndarray:
        """``delta2`` of the cells ``(c, k)``; the ordinal metric uses marginals ``n_c``."""
        if self.kind == "nominal":
            return (c != k).astype(np.float64)
        if self.kind == "interval":
            return (self.x[c] - self.x[k]) ** 2
        if self.kind == "ordinal":
            r = np.cumsum(n_c) - n_c / 2.0
            return (r[c] - r[k]) ** 2
        return self.delta[c, k]


def _metric(level: str | None, distance: Any, ratings: _Ratings) -> _Metric:
    domain = ratings.domain
    v = ratings.n_values
    if distance is None:
        lvl = "nominal" if level is None else _check_choice(level, "level", LEVELS)
        if lvl == "nominal":
            return _Metric("nominal", lvl)
        if not ratings.numeric and lvl != "ordinal":
            raise ValueError(
                f"level={lvl!r} needs numeric values; data holds non-numeric values such as "
                f"{domain[0]!r}"
            )
        if lvl == "ordinal":
            return _Metric("ordinal", lvl)
        x = domain.astype(np.float64)
        if lvl == "interval":
            return _Metric("interval", lvl, x=x)
        if (x < 0).any():
            raise ValueError(
                f"level='ratio' needs non-negative values; data holds {x[x < 0][:3].tolist()}"
            )
        tot = x[:, None] + x[None, :]
        diff = x[:, None] - x[None, :]
        mat = np.divide(diff, tot, out=np.zeros_like(tot), where=tot != 0) ** 2
        return _Metric("matrix", lvl, delta=mat)
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
        return _Metric("matrix", "custom", delta=mat)
    mat = np.zeros((v, v))
    values = domain.tolist()
    for i in range(v):
        for j in range(i, v):
            mat[i, j] = float(func(values[i], values[j]))
            if j != i:
                mat[j, i] = float(func(values[j], values[i]))
    _check_delta(mat)
    return _Metric("matrix", name, delta=mat)


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


#: Up to this many values, pattern counts are multiplied as dense arrays, beyond as sparse ones.
_DENSE_MAX_VALUES = 64


def _dot(w: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``w @ f`` without BLAS (einsum's own loops): BLAS threads slow to a crawl when other
    processes load the cores, and these products are small."""
    return np.einsum("bp,pk->bk", w, f)


class _UnitTerms:
    """What alpha needs from the pairable units, computed once and shared by all resamples.

    Units with the same value counts contribute identically, so the units are collapsed to
    their P distinct count *patterns* (sorted, so the order of the units does not matter) with
    multiplicities ``freq``. A resample is a row ``w`` of pattern multiplicities (the original
    data is ``w = freq``) and, for a block of rows W (B x P)::

        sum o delta2 = W @ d,   n_c = W @ N,   n = W @ m

    with ``d_p = sum_ck O_p[c, k] delta2_ck`` and the pattern counts ``N``. ``D_e`` follows
    from the resampled marginals: ``n^2 - sum n_c^2`` (nominal), ``2 (n sum n_c x_c^2 -
    (sum n_c x_c)^2)`` (interval, from two more per-pattern moments), ``n' delta n`` (matrix
    metrics). The ordinal metric is the interval metric on mid-ranks recomputed from each
    resample's ``n_c``, with ``d_p = 2 sum_c N_pc r_c^2 - 2 ((N_p . r)^2 - sum_c N_pc r_c^2) /
    (m_p - 1)``. Only matrix metrics touch V x V arrays.
    """

    def __init__(self, counts: np.ndarray, metric: _Metric) -> None:
        self.metric = metric
        self.n_units = counts.shape[0]
        patterns, freq = np.unique(counts, axis=0, return_counts=True)
        self.patterns = patterns  # (P, V)
        self.freq = freq.astype(np.float64)
        self.n_patterns, self.n_values = patterns.shape
        self.dense = self.n_values <= _DENSE_MAX_VALUES
        self.sparse = sparse.csr_array(patterns)
        self.m = patterns.sum(axis=1)
        self.inv_m1 = 1.0 / (self.m - 1.0)
        # patterns holding a single value contribute exactly 0 observed disagreement (keeps
        # alpha exactly 1 under perfect agreement despite rounding in the moment formulas)
        self.varied = ((patterns > 0).sum(axis=1) > 1).astype(np.float64)
        cols = [self.m]
        if metric.kind == "nominal":
            sq = (patterns * patterns).sum(axis=1)
            cols.append((self.m**2 - sq) * self.inv_m1)
        elif metric.kind == "interval":
            n_c = self.freq @ patterns
            centre = float(n_c @ metric.x / n_c.sum())
            xc = metric.x - centre  # alpha is shift invariant; centring avoids cancellation
            s1 = self.sparse @ xc
            s2 = self.sparse @ (xc * xc)
            cols += [2.0 * (self.m * s2 - s1**2) * self.inv_m1 * self.varied, s1, s2]
        elif metric.kind == "matrix":
            nd = self.sparse @ metric.delta  # (P, V)
            cols.append((nd * patterns).sum(axis=1) * self.inv_m1)  # diag(delta) = 0
        #: per-pattern columns: m, then d_p (and the moments s1, s2 for interval)
        self.columns = np.column_stack(cols)

    def marginals(self, w: np.ndarray) -> np.ndarray:
        """``w @ N`` (B x V)."""
        if self.dense:
            return _dot(w, self.patterns)
        return (self.sparse.T @ w.T).T

    def _pattern_dot(self, r: np.ndarray) -> np.ndarray:
        """``N @ r.T`` (P x B)."""
        if self.dense:
            return np.einsum("pv,bv->pb", self.patterns, r)
        return self.sparse @ r.T

    def alpha(self, w: np.ndarray) -> np.ndarray:
        """Alpha for each row of pattern multiplicities ``w`` (B x P); NaN where D_e = 0."""
        kind = self.metric.kind
        sums = _dot(w, self.columns)
        tot = sums[:, 0]
        if kind == "interval":
            do_num, s1, s2 = sums[:, 1], sums[:, 2], sums[:, 3]
            quad = 2.0 * (tot * s2 - s1 * s1)
        elif kind == "nominal":
            do_num = sums[:, 1]
            n_b = self.marginals(w)
            quad = tot * tot - (n_b * n_b).sum(axis=1)
        elif kind == "matrix":
            do_num = sums[:, 1]
            n_b = self.marginals(w)
            quad = np.einsum("bc,ck,bk->b", n_b, self.metric.delta, n_b)
        else:  # ordinal: the interval metric on each resample's own mid-ranks
            n_b = self.marginals(w)
            r = np.cumsum(n_b, axis=1) - n_b / 2.0
            r2 = r * r
            a = (n_b * r2).sum(axis=1)
            s = self._pattern_dot(r)  # (P, B): N_p . r_b
            s2 = self._pattern_dot(r2)  # (P, B): sum_c N_pc r_bc^2
            per_pattern = 2.0 * (s2 - (s * s - s2) * self.inv_m1[:, None])
            do_num = np.einsum("bp,pb->b", w * self.varied, per_pattern)
            nr = (n_b * r).sum(axis=1)
            quad = 2.0 * tot * a - 2.0 * nr * nr
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - (tot - 1.0) * do_num / quad
        out[~(quad > 1e-12 * tot * tot)] = np.nan
        return out

    def disagreements(self) -> tuple[float, float]:
        """``(D_o, D_e)`` of the data, from the coincidence matrix (not the resampling kernel)."""
        o = self.coincidences()
        c, k = o.coords
        n_c = self.freq @ self.patterns
        n = float(n_c.sum())
        d_o = float((o.data * self.metric.cell_delta(c, k, n_c)).sum() / n)
        kind = self.metric.kind
        if kind == "nominal":
            quad = n * n - float(n_c @ n_c)
        elif kind == "matrix":
            quad = float(n_c @ self.metric.delta @ n_c)
        else:
            x = self.metric.x if kind == "interval" else np.cumsum(n_c) - n_c / 2.0
            x = x - float(n_c @ x) / n
            quad = 2.0 * n * float(n_c @ (x * x)) - 2.0 * float(n_c @ x) ** 2
        return d_o, quad / (n * (n - 1.0))

    def coincidences(self) -> sparse.coo_array:
        """The observed coincidence matrix ``o`` (sparse, V x V)."""
        c = self.sparse
        weight = self.freq * self.inv_m1
        o = (c.T @ sparse.diags_array(weight) @ c).tocsr()
        o = o - sparse.diags_array(c.T @ weight)
        o = sparse.coo_array(o)
        o.eliminate_zeros()
        o.sum_duplicates()
        return o


def _resample_pattern_counts(
    rng: np.random.Generator, freq: np.ndarray, n_resamples: int, block: int = _BLOCK
) -> Iterator[np.ndarray]:
    """Blocks (rows = resamples) of bootstrap multiplicities of the unit patterns.

    Drawing ``U`` units uniformly with replacement makes the pattern multiplicities
    Multinomial(U, freq / U), drawn directly when there are fewer patterns than half the units
    (cost O(B P)); otherwise unit indices are drawn and counted per pattern (cost O(B U)). Both
    give exactly the bootstrap over units. The benchmark's reference loop expands these blocks
    back to units, so a seed gives the same resamples to both.
    """
    n_units = int(freq.sum())
    n_patterns = freq.size
    p = freq / n_units
    unit_pattern = np.repeat(np.arange(n_patterns), freq.astype(np.int64))
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        if 2 * n_patterns <= n_units:
            w = rng.multinomial(n_units, p, size=size)
        else:
            idx = unit_pattern[rng.integers(0, n_units, size=(size, n_units))]
            flat = (idx + (np.arange(size) * n_patterns)[:, None]).ravel()
            w = np.bincount(flat, minlength=size * n_patterns).reshape(size, n_patterns)
        yield w.astype(np.float64)
        done += size


def _bootstrap_units(terms: _UnitTerms, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(n_resamples)
    pos = 0
    for w in _resample_pattern_counts(rng, terms.freq, n_resamples):
        out[pos : pos + w.shape[0]] = terms.alpha(w)
        pos += w.shape[0]
    return out


def _bootstrap_hayes_krippendorff(
    o: sparse.coo_array,
    metric: _Metric,
    n_c: np.ndarray,
    d_e: float,
    n_draws: int,
    n_resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Krippendorff's bootstrap of pairable values (see the module docstring)."""
    c, k = o.coords
    upper = c <= k
    c, k, val = c[upper], k[upper], o.data[upper]
    n = float(o.data.sum())
    p = np.where(c == k, val, 2.0 * val) / n
    p = np.clip(p, 0.0, None)
    p = p / p.sum()
    cell_delta = metric.cell_delta(c, k, n_c)  # ordinal: original marginals, held fixed
    draws = rng.multinomial(n_draws, p, size=n_resamples)  # (B, non-empty cells)
    boot = 1.0 - (draws @ cell_delta) / (n_draws * d_e)
    boot = np.maximum(boot, -1.0)
    ones = np.flatnonzero(boot == 1.0)
    if ones.size:
        p_diag = p[c == k]
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
    rng: RNGLike = None,
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
    generator = check_rng(rng)
    if ratings.n_values < 2:
        raise ValueError(
            f"data has a single value in its domain ({ratings.domain.tolist()!r}); alpha is "
            "undefined without variation"
        )
    if level == "ordinal" and not ratings.numeric and value_domain is None:
        raise ValueError(
            "level='ordinal' with non-numeric values needs an ordered value_domain (the "
            f"values, e.g. {ratings.domain[0]!r}, have no order of their own)"
        )
    metric = _metric(level, distance, ratings)

    counts_all = ratings.unit_counts()
    pairable = counts_all.sum(axis=1) >= 2
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
    terms = _UnitTerms(counts, metric)
    d_o, d_e = terms.disagreements()
    if not d_e > 0:
        raise ValueError(
            "the expected disagreement is 0 (the distance does not separate the values that "
            "occur); alpha is undefined"
        )
    statistic = 1.0 - d_o / d_e
    m = counts.sum(axis=1)
    n_pairs = int(round(float((m * (m - 1.0)).sum() / 2.0)))
    o = terms.coincidences()

    boot = np.empty(0)
    ci = ConfidenceInterval(float("nan"), float("nan"))
    se = float("nan")
    n_bad = 0
    if n_resamples > 0:
        if method == "units":
            boot = _bootstrap_units(terms, n_resamples, generator)
        else:
            boot = _bootstrap_hayes_krippendorff(
                o, metric, n_c, d_e, n_pairs, n_resamples, generator
            )
        finite = boot[np.isfinite(boot)]
        n_bad = int(boot.size - finite.size)
        if n_bad:
            warn(
                f"alpha is undefined in {n_bad} of {n_resamples} bootstrap resamples (no "
                "variation among the resampled values); they are left out of the interval",
                AttunestatsWarning,
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
        level=metric.name,
        method=method if n_resamples > 0 else None,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        seed=seed_record(rng),
        n_units=int(pairable.sum()),
        n_raters=ratings.n_raters,
        n_pairable_values=int(round(n)),
        n_pairs=n_pairs,
        observed_disagreement=d_o,
        expected_disagreement=d_e,
        n_degenerate_resamples=n_bad,
        value_domain=ratings.domain,
        coincidences=sparse.csr_array(o),
        bootstrap_distribution=boot,
    )
