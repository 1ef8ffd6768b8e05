"""Input handling shared by every agreement statistic: one validator, one internal layout.

Every public function of :mod:`attunestats.agreement` accepts the same two layouts:

* a **raters x units** array (list of lists, :class:`numpy.ndarray`); missing ratings are
  ``NaN``, ``None`` or ``pandas.NA`` (in a NumPy *string* array the text ``"nan"`` also means
  missing, as in the ``krippendorff`` package); values may be numbers or, for nominal data, any
  hashable objects (strings, frozensets of emotion tags, ...);
* a **long table** (:class:`pandas.DataFrame`) with one row per rating and columns naming the
  unit, the rater and the value (``columns=("unit", "rater", "value")`` by default; the unit may
  be a list of columns, e.g. ``["conversation_id", "turn"]``).

Both are turned into :class:`_Ratings`: an integer code matrix (raters x units, ``-1`` =
missing) plus the ordered value domain, unit ids and rater ids. Units and raters of a long table
are sorted, so shuffling its rows never changes a result.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

DEFAULT_COLUMNS: tuple[str, str, str] = ("unit", "rater", "value")


@dataclass(frozen=True)
class _Ratings:
    """Ratings in canonical form.

    Attributes
    ----------
    codes : ndarray of int64, shape (n_raters, n_units)
        Index into ``domain`` of each rating; ``-1`` where the rating is missing.
    domain : ndarray, shape (n_values,)
        The ordered value domain (float64 when numeric, object otherwise).
    numeric : bool
        Whether ``domain`` is numeric.
    unit_ids, rater_ids : pandas.Index
        Labels of the units (columns of ``codes``) and raters (rows).
    """

    codes: np.ndarray
    domain: np.ndarray
    numeric: bool
    unit_ids: pd.Index
    rater_ids: pd.Index

    @property
    def n_raters(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_units(self) -> int:
        return int(self.codes.shape[1])

    @property
    def n_values(self) -> int:
        return int(self.domain.shape[0])

    def unit_counts(self) -> np.ndarray:
        """Value counts per unit, shape (n_units, n_values), float64."""
        valid = self.codes >= 0
        units = np.broadcast_to(np.arange(self.n_units), self.codes.shape)[valid]
        flat = units * self.n_values + self.codes[valid]
        counts = np.bincount(flat, minlength=self.n_units * self.n_values)
        return counts.reshape(self.n_units, self.n_values).astype(np.float64)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _missing_mask(values: np.ndarray) -> np.ndarray:
    """Elementwise missing indicator for a numeric or object array."""
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind in "iub":
        return np.zeros(values.shape, dtype=bool)
    if values.dtype.kind in "US":
        return values == values.dtype.type("nan")
    mask = np.asarray(pd.isna(values), dtype=bool)
    if mask.shape != values.shape:  # pragma: no cover - defensive (pd.isna on odd objects)
        raise TypeError("could not determine which ratings are missing")
    return mask


def _as_matrix(data: Any, name: str) -> np.ndarray:
    """A raters x units array from array-like input (no long tables here)."""
    if isinstance(data, np.ndarray):
        arr = data
    else:
        try:
            arr = np.asarray(data)
        except ValueError as exc:  # ragged lists
            raise ValueError(
                f"{name} must be a rectangular raters x units array; rows of different lengths "
                f"were given ({exc})"
            ) from None
        if arr.dtype.kind == "U" and _contains_missing_object(data):
            arr = np.asarray(data, dtype=object)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (raters x units) or a long DataFrame; "
            f"got an array of shape {arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iufcUSO":
        raise TypeError(f"{name} has unsupported dtype {arr.dtype}")
    return arr


def _contains_missing_object(data: Any) -> bool:
    """True if nested lists hold None/NaN next to strings (numpy would coerce NaN to 'nan')."""
    try:
        return any(
            (v is None) or (isinstance(v, float) and np.isnan(v)) for row in data for v in row
        )
    except TypeError:
        return False


def _long_to_matrix(
    df: pd.DataFrame, columns: Sequence[Any], name: str
) -> tuple[np.ndarray, pd.Index, pd.Index]:
    if not isinstance(columns, (tuple, list)) or len(columns) != 3:
        raise ValueError(
            f"columns must be a (unit, rater, value) triple of column names; got {columns!r}"
        )
    unit_col, rater_col, value_col = columns
    unit_cols = list(unit_col) if isinstance(unit_col, (list, tuple)) else [unit_col]
    needed = [*unit_cols, rater_col, value_col]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(
            f"{name} is a DataFrame, read as a long table with columns {needed}, but lacks "
            f"column(s) {missing}; available columns: {list(df.columns)}. Pass columns=(unit, "
            "rater, value) to name them, or a raters x units array."
        )
    if len(df) == 0:
        raise ValueError(f"{name} has no rows")
    keys = df[[*unit_cols, rater_col]]
    if keys.isna().to_numpy().any():
        raise ValueError(
            f"{name} has missing unit or rater ids in columns {[*unit_cols, rater_col]}"
        )
    dup = keys.duplicated(keep=False)
    if dup.any():
        first = keys[dup].iloc[0].tolist()
        raise ValueError(
            f"{name} has {int(dup.sum())} rows sharing a (unit, rater) pair, e.g. {first}; each "
            "rater may rate each unit at most once"
        )
    if len(unit_cols) == 1:
        unit_key: Any = df[unit_cols[0]]
    else:
        unit_key = pd.MultiIndex.from_frame(df[unit_cols])
    unit_codes, unit_ids = _factorize_sorted(unit_key)
    rater_codes, rater_ids = _factorize_sorted(df[rater_col])
    values = df[value_col].to_numpy()
    if values.dtype.kind in "fiub":
        mat = np.full((len(rater_ids), len(unit_ids)), np.nan)
        mat[rater_codes, unit_codes] = values.astype(np.float64)
    else:
        mat = np.full((len(rater_ids), len(unit_ids)), None, dtype=object)
        obj = values.astype(object)
        # lists/sets/tuples of labels (emotion tags) become frozensets so they are hashable
        obj = np.array(
            [frozenset(v) if isinstance(v, (list, set, tuple, np.ndarray)) else v for v in obj],
            dtype=object,
        )
        mat[rater_codes, unit_codes] = obj
    if isinstance(unit_ids, pd.MultiIndex):
        unit_ids.names = unit_cols
    else:
        unit_ids = pd.Index(unit_ids, name=unit_cols[0])
    rater_ids = pd.Index(rater_ids, name=rater_col)
    return mat, unit_ids, rater_ids


def _factorize_sorted(key: Any) -> tuple[np.ndarray, pd.Index]:
    try:
        codes, uniques = pd.factorize(key, sort=True)
    except TypeError:  # mixed, unorderable ids: keep order of first appearance
        codes, uniques = pd.factorize(key, sort=False)
    return np.asarray(codes), pd.Index(uniques)


def _encode(mat: np.ndarray, value_domain: Any, name: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """Integer codes (-1 = missing) and the ordered domain of a raters x units value matrix."""
    missing = _missing_mask(mat)
    if value_domain is not None:
        domain = np.asarray(list(value_domain), dtype=object)
        if domain.ndim != 1:
            raise ValueError(f"value_domain must be one-dimensional; got shape {domain.shape}")
        try:
            lookup = {v: i for i, v in enumerate(domain.tolist())}
        except TypeError:
            raise TypeError("value_domain holds unhashable values") from None
        if len(lookup) != len(domain):
            raise ValueError(f"value_domain has repeated values: {domain.tolist()!r}")
        numeric = all(_is_number(v) for v in lookup)
        if numeric:
            domain = domain.astype(np.float64)
        codes = np.full(mat.shape, -1, dtype=np.int64)
        present = mat[~missing]
        if numeric and present.dtype.kind in "iuf":
            order = np.argsort(domain)
            pos = np.searchsorted(domain[order], present.astype(np.float64))
            pos = np.clip(pos, 0, len(domain) - 1)
            found = domain[order][pos] == present
            if not found.all():
                bad = np.unique(present[~found])[:5].tolist()
                raise ValueError(f"{name} contains values outside value_domain, e.g. {bad}")
            codes[~missing] = order[pos]
        else:
            out: list[int] = []
            for v in present.tolist():
                try:
                    out.append(lookup[v])
                except (KeyError, TypeError):
                    raise ValueError(
                        f"{name} contains a value outside value_domain: {v!r}"
                    ) from None
            codes[~missing] = np.asarray(out, dtype=np.int64)
        return codes, domain, numeric

    present = mat[~missing]
    if present.size == 0:
        raise ValueError(f"{name} has no non-missing ratings")
    codes = np.full(mat.shape, -1, dtype=np.int64)
    if present.dtype.kind in "iuf":
        domain, inverse = np.unique(present.astype(np.float64), return_inverse=True)
        codes[~missing] = inverse
        return codes, domain, True
    values = present.tolist()
    try:
        uniques = set(values)
    except TypeError:
        raise TypeError(
            f"{name} holds unhashable values (e.g. lists); use frozensets for sets of labels"
        ) from None
    if all(_is_number(v) for v in uniques):
        ordered: list[Hashable] = sorted(uniques)  # type: ignore[type-var]
        numeric = True
    elif all(isinstance(v, str) for v in uniques):
        ordered = sorted(uniques)  # type: ignore[type-var]
        numeric = False
    else:  # frozensets, mixed types: order of first appearance (irrelevant for nominal data)
        ordered = list(dict.fromkeys(values))
        numeric = False
    lookup = {v: i for i, v in enumerate(ordered)}
    codes[~missing] = np.fromiter((lookup[v] for v in values), dtype=np.int64, count=len(values))
    domain = np.asarray(ordered, dtype=np.float64 if numeric else object)
    if not numeric and domain.ndim != 1:  # frozensets of equal size may broadcast oddly
        domain = np.empty(len(ordered), dtype=object)
        domain[:] = ordered
    return codes, domain, numeric


def _check_ratings(
    data: Any,
    *,
    columns: Sequence[Any] = DEFAULT_COLUMNS,
    value_domain: Any = None,
    name: str = "data",
) -> _Ratings:
    """Validate ``data`` (raters x units array or long DataFrame) and encode it.

    Raises
    ------
    ValueError
        Ragged or non-2-D arrays, empty data, long tables lacking the named columns or repeating
        a (unit, rater) pair, values outside ``value_domain``.
    TypeError
        Unhashable values or unsupported dtypes.
    """
    if isinstance(data, pd.DataFrame):
        mat, unit_ids, rater_ids = _long_to_matrix(data, columns, name)
    elif isinstance(data, pd.Series):
        raise TypeError(
            f"{name} is a pandas Series; pass a raters x units array or a long DataFrame"
        )
    else:
        mat = _as_matrix(data, name)
        unit_ids = pd.RangeIndex(mat.shape[1], name="unit")
        rater_ids = pd.RangeIndex(mat.shape[0], name="rater")
    codes, domain, numeric = _encode(mat, value_domain, name)
    return _Ratings(
        codes=codes, domain=domain, numeric=numeric, unit_ids=unit_ids, rater_ids=rater_ids
    )


def _check_unit_interval(value: Any, name: str) -> float:
    """A float strictly between 0 and 1 (confidence levels)."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number in (0, 1); got {value!r}") from None
    if not 0.0 < out < 1.0:
        raise ValueError(f"{name} must be in (0, 1); got {value!r}")
    return out


def _check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {value!r}")
    return value
