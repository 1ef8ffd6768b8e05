"""The one small protocol every public result object of attunestats follows.

A result is a frozen dataclass (declared with ``repr=False`` so that the readable ``__repr__``
below is kept) that inherits :class:`ResultMixin` and provides:

``to_frame()``
    A tidy :class:`pandas.DataFrame` (one row per estimate, unrounded).
``summary()``
    A plain-text table in the manner of statsmodels' summaries: a title, the estimand and the
    method in words, the numbers of units, the settings, ``SIMULATED DATA`` when the release was
    simulated, the table (rounded for display only) and notes. It returns a :class:`Summary`,
    which prints as text and renders as ``<pre>`` in notebooks.
``__repr__``
    One short line: the class, the number of rows, the estimand and the method.
``plot()``
    Only on the results that hold a figure (:data:`PLOTTABLE`: comparisons, score estimates,
    power curves, sample sizes, the independence report, the human-baseline agreement and
    comparisons): a matplotlib figure drawn by :mod:`attunestats.report.plots`, which is
    imported inside the method (the one upward reference allowed; ARCHITECTURE.md).

``summary()`` shows intervals as ``[lo, hi]`` in one column (``ci_low``/``ci_high`` and every
``<name>_low``/``<name>_high`` pair, e.g. the effect sizes of :func:`attunestats.compare_models`),
a result with one to three rows as a vertical list of every field (so one comparison,
``cmp.summary(pair=("a", "b"), metric="composite_score")``, reads like a test report), and
accepts keyword filters on the columns of ``to_frame()`` (``res.summary(metric="composite_score")``).
The header names the estimand, the method, the units (participants, conversations), the scoring
conventions when the result records them, and ``SIMULATED DATA`` for simulated releases.

Subclasses describe themselves by overriding :meth:`ResultMixin._summary_parts` (or only the
class attributes ``_title`` and ``_summary_columns``); the estimand, method and simulated flag
are read from attributes of those names when they exist.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attunestats.constants import SIMULATED_LABEL

_WIDTH = 96
#: results with at most this many rows and more than _VERTICAL_COLUMNS columns print vertically
_VERTICAL_ROWS = 3
_VERTICAL_COLUMNS = 8
#: columns of to_frame() that describe the settings rather than an estimate: shown in the
#: header when constant, not as table columns
_SETTING_COLUMNS = ("method", "estimand", "confidence_level", "simulated", "correction", "family",
                    "interval", "unit", "n_units", "alternative", "alpha")  # fmt: skip


@dataclass(frozen=True)
class Summary:
    """Plain-text summary of a result; ``str(summary)`` is the text."""

    title: str
    meta: Mapping[str, str] = field(default_factory=dict)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: Sequence[str] = ()
    simulated: bool = False
    #: confidence level of the ``ci_low``/``ci_high`` columns (names the merged interval column)
    confidence_level: float | None = None

    def as_text(self) -> str:
        """The summary as plain text (fixed-width table)."""
        rule = "=" * _WIDTH
        lines = [rule]
        head = self.title
        if self.simulated:
            tag = "SIMULATED DATA"
            head = f"{head:<{max(_WIDTH - len(tag) - 1, len(head) + 1)}}{tag}"
        lines.append(head)
        lines.append(rule)
        for key, value in self.meta.items():
            lines.extend(_wrap(f"{key + ':':<18}{value}", indent=18))
        if not self.table.empty:
            lines.append("-" * _WIDTH)
            table = merge_intervals(self.table, confidence_level=self.confidence_level)
            if len(table) <= _VERTICAL_ROWS and table.shape[1] > _VERTICAL_COLUMNS:
                lines.append(_format_vertical(table))
            else:
                lines.append(_format_table(table))
        lines.append(rule)
        if self.simulated:
            lines.extend(_wrap(f"{SIMULATED_LABEL}.", indent=0))
        for note in self.notes:
            lines.extend(_wrap(f"Note: {note}", indent=6))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(self.as_text())}</pre>"


def _wrap(text: str, *, indent: int) -> list[str]:
    import textwrap

    return textwrap.wrap(
        text, width=_WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False
    ) or [""]


def format_number(value: Any, digits: int = 4) -> str:
    """A number for display: ``digits`` significant decimals, ``<1e-4`` style for small p."""
    if value is None:
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isnan(v):
            return "-"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v != 0 and abs(v) < 10 ** (-digits):
            return f"{v:.{max(digits - 2, 1)}e}"
        return f"{v:.{digits}f}"
    return str(value)


def format_interval(low: Any, high: Any, digits: int = 4) -> str:
    """``[lo, hi]`` for display (``-`` when both ends are missing)."""
    lo, hi = format_number(low, digits), format_number(high, digits)
    if lo in ("", "-") and hi in ("", "-"):
        return "-"
    return f"[{lo}, {hi}]"


def _interval_pairs(columns: Sequence[str]) -> list[tuple[str, str, str]]:
    """(low, high, label) column pairs: ci_low/ci_high and <x>_low/<x>_high (or _ci_low)."""
    cols = list(columns)
    out = []
    for low in cols:
        for suffix_lo, suffix_hi in (("ci_low", "ci_high"), ("_low", "_high"),
                                     ("_ci_low", "_ci_high"), ("_lo", "_hi")):  # fmt: skip
            if low.endswith(suffix_lo):
                high = low[: len(low) - len(suffix_lo)] + suffix_hi
                if high in cols:
                    stem = low[: len(low) - len(suffix_lo)].rstrip("_")
                    out.append((low, high, stem))
                    break
    return out


def merge_intervals(frame: pd.DataFrame, *, confidence_level: float | None = None) -> pd.DataFrame:
    """Display copy of ``frame`` with each interval's two columns merged into one ``[lo, hi]``.

    ``ci_low``/``ci_high`` become a column named ``95% CI`` (from ``confidence_level``, else
    ``CI``), placed where ``ci_low`` was; ``<name>_low``/``<name>_high`` become ``<name> CI``.
    Values are rounded for display only (the result keeps full precision).

    Examples
    --------
    >>> f = pd.DataFrame({"estimate": [0.5], "ci_low": [0.41], "ci_high": [0.6]})
    >>> merge_intervals(f, confidence_level=0.95).columns.tolist()
    ['estimate', '95% CI']
    >>> merge_intervals(f)["CI"].iloc[0]
    '[0.4100, 0.6000]'
    """
    pairs = _interval_pairs(frame.columns)
    if not pairs:
        return frame
    out = frame.copy()
    for low, high, stem in pairs:
        if stem:
            name = f"{stem} CI"
        elif confidence_level is not None:
            name = f"{100 * float(confidence_level):g}% CI"
        else:
            name = "CI"
        merged = [format_interval(a, b) for a, b in zip(out[low], out[high], strict=True)]
        position = list(out.columns).index(low)
        out = out.drop(columns=[low, high])
        out.insert(min(position, len(out.columns)), name, merged)
    return out


def _format_vertical(frame: pd.DataFrame) -> str:
    """One block per row: ``field  value`` lines (for one to three rows with many fields)."""
    blocks = []
    width = max(len(str(c)) for c in frame.columns) + 2
    for _, row in frame.iterrows():
        lines = [f"{str(c):<{width}}{format_number(v)}" for c, v in row.items()]
        blocks.append("\n".join(lines))
    return ("\n" + "-" * _WIDTH + "\n").join(blocks)


def _format_table(frame: pd.DataFrame, *, max_rows: int = 60) -> str:
    shown = frame.head(max_rows)
    text = shown.to_string(
        index=False, formatters={c: format_number for c in shown.columns}, max_colwidth=40
    )
    if len(frame) > max_rows:
        text += f"\n... {len(frame) - max_rows} more rows (to_frame() has them all)"
    return text


#: result classes (``module.QualName``) that hold a figure: they have ``.plot()``, drawn by
#: :data:`attunestats.report.plots.PLOTS` (the two lists are checked to agree)
PLOTTABLE: frozenset[str] = frozenset({
    "attunestats.inference.compare.ComparisonResult",
    "attunestats.inference.participants.ScoreInference",
    "attunestats.design.power.curve.PowerResult",
    "attunestats.design.power.required.SampleSizeResult",
    "attunestats.independence.report.IndependenceReport",
    "attunestats.baseline.agreement.RaterAgreementResult",
    "attunestats.baseline.agreement.ParticipantAgreementResult",
    "attunestats.baseline.comparison.HumansVsModelsResult",
    "attunestats.baseline.claim.ClaimFResult",
})  # fmt: skip


def _plottable(cls: type) -> bool:
    return any(f"{c.__module__}.{c.__qualname__}" in PLOTTABLE for c in cls.__mro__)


def plot(self: Any, **kwargs: Any) -> Any:
    """Draw this result: a :class:`matplotlib.figure.Figure` ("SIMULATED" marked when it is).

    The drawing function is the report layer's (:data:`attunestats.report.plots.PLOTS`);
    ``kwargs`` go to it (e.g. ``metric=``, ``kind=`` for comparisons, ``target=`` for power).
    Save the figure with :func:`attunestats.report.figures.save_figure`.
    """
    # the single allowed upward reference of the package (ARCHITECTURE.md): statistics never
    # import report, except this function-level import inside a method named ``plot``
    from attunestats.report.plots import plot_result

    return plot_result(self, **kwargs)


class _PlotDescriptor:
    """``plot`` exists only on the result classes named in :data:`PLOTTABLE`."""

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        cls = type(obj) if cls is None else cls
        if not _plottable(cls):
            raise AttributeError(
                f"{cls.__name__!r} object has no attribute 'plot' (this result holds no figure)"
            )
        return plot if obj is None else plot.__get__(obj, cls)


class PlotMixin:
    """Gives ``.plot(**kwargs)`` to the results that hold a figure (see :data:`PLOTTABLE`).

    The figure is drawn by the report layer, imported inside the method only, so that the
    statistics folders stay free of report imports (ARCHITECTURE.md, "the one upward call").
    """

    plot = _PlotDescriptor()


class ResultMixin(PlotMixin):
    """``summary()``, a short ``__repr__`` and, for results holding a figure, ``plot()``, for
    result dataclasses with ``to_frame()``."""

    _title: str = ""
    #: columns of ``to_frame()`` shown by ``summary()`` (all when empty)
    _summary_columns: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    # -- description --------------------------------------------------------------------------
    def _estimand(self) -> str:
        return str(getattr(self, "estimand", "") or "")

    def _method(self) -> str:
        return str(getattr(self, "method", "") or "")

    def _simulated(self) -> bool:
        return bool(getattr(self, "simulated", False))

    def _confidence_level(self) -> float | None:
        level = getattr(self, "confidence_level", None)
        if isinstance(level, float | int) and not isinstance(level, bool):
            return float(level)
        return None

    def _conventions(self) -> str:
        """The scoring conventions the result records (``scoring_options``, ``options``)."""
        found: Any = None
        for attr in ("scoring_options", "options", "conventions"):
            value = getattr(self, attr, None)
            if value is not None and (hasattr(value, "to_dict") or isinstance(value, Mapping)):
                found = value
                break
        if found is None:
            for attr in ("labels", "table"):
                frame = getattr(self, attr, None)
                if isinstance(frame, pd.DataFrame) and "scoring_options" in frame.attrs:
                    found = frame.attrs["scoring_options"]
                    break
        if found is None:
            return ""
        return describe_conventions(found)

    def _summary_meta(self) -> dict[str, str]:
        meta: dict[str, str] = {}
        if self._estimand():
            meta["Estimand"] = self._estimand()
        if self._method():
            meta["Method"] = self._method()
        level = self._confidence_level()
        if level is not None:
            meta["Confidence level"] = f"{level:g}"
        for attr, label in (
            ("n_resamples", "Resamples"),
            ("correction", "Correction"),
            ("seed", "Seed"),
        ):
            value = getattr(self, attr, None)
            if value is not None and value != "":
                meta[label] = str(value)
        units = self._units()
        if units:
            meta["Units"] = units
        conventions = self._conventions()
        if conventions:
            meta["Conventions"] = conventions
        return meta

    def _units(self) -> str:
        """Numbers of units from attributes or constant columns (participants, conversations)."""
        parts = []
        try:
            frame = self.to_frame()
        except Exception:  # the header must not fail because of the table
            frame = pd.DataFrame()
        for name in ("n_participants", "n_conversations", "n_units"):
            value = getattr(self, name, None)
            if value is None and name in frame.columns and frame[name].nunique() == 1:
                value = frame[name].iloc[0]
            if isinstance(value, int | np.integer) and not isinstance(value, bool):
                word = name[2:]
                if name == "n_units":
                    unit = getattr(self, "unit", None)
                    if unit is None and "unit" in frame.columns and frame["unit"].nunique() == 1:
                        unit = frame["unit"].iloc[0]
                    word = str(unit) if unit else "units"
                if int(value) >= 0:
                    parts.append(f"{int(value)} {word}")
        return ", ".join(parts)

    def _summary_notes(self) -> list[str]:
        return []

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        frame = self.to_frame()
        if self._summary_columns:
            frame = _with_interval_columns(frame, self._summary_columns)
        else:
            frame = _drop_settings(frame)
        return (
            self._title or type(self).__name__,
            self._summary_meta(),
            frame,
            self._summary_notes(),
        )

    # -- protocol -------------------------------------------------------------------------------
    def summary(self, *, pair: tuple[str, str] | None = None, **where: Any) -> Summary:
        """Plain-text table: estimate, interval, p, method, estimand, units, simulated flag.

        Parameters
        ----------
        pair : (str, str), optional
            For results with a ``pair(a, b, metric)`` method (:class:`~attunestats.inference.
            compare.ComparisonResult`): only the comparison ``a - b``, every field shown
            (difference, interval, p-values, effect sizes with intervals, df, method).
        **where
            Keep only the rows whose columns equal these values (a value may be a list), e.g.
            ``summary(metric="composite_score")`` or ``summary(predictor=["a", "b"])``.

        Examples
        --------
        >>> import attunestats as at
        >>> cmp = at.compare_models(scores, correction="maxt")          # doctest: +SKIP
        >>> print(cmp.summary(pair=("sim-model-01", "sim-model-02"),
        ...                   metric="composite_score"))                # doctest: +SKIP
        """
        title, meta, table, notes = self._summary_parts()
        if pair is not None:
            if not hasattr(self, "pair"):
                raise TypeError(f"{type(self).__name__} has no pair(); summary(pair=...) needs one")
            a, b = pair
            metric = where.pop("metric", None)
            table = _drop_settings(self.pair(a, b, metric=metric))  # type: ignore[attr-defined]
            title = f"{title}: {a} - {b}" + (f" on {metric}" if metric else "")
        if where:
            table = _select(table if pair is not None else self.to_frame(), where)
            if pair is None and self._summary_columns:
                table = _with_interval_columns(table, self._summary_columns)
            elif pair is None:
                table = _drop_settings(table)
        return Summary(title=title, meta=meta, table=table, notes=tuple(notes),
                       simulated=self._simulated(),
                       confidence_level=self._confidence_level())  # fmt: skip

    def _repr_html_(self) -> str:
        """Notebooks show the summary."""
        return self.summary()._repr_html_()

    def __repr__(self) -> str:
        try:
            n_rows = len(self.to_frame())
        except Exception:  # a repr must never raise
            n_rows = -1
        parts = [f"{n_rows} row{'' if n_rows == 1 else 's'}" if n_rows >= 0 else "unavailable"]
        if self._estimand():
            parts.append(f"estimand={_shorten(self._estimand())!r}")
        if self._method():
            parts.append(f"method={_shorten(self._method())!r}")
        if self._simulated():
            parts.append("SIMULATED")
        return f"<{type(self).__name__}: {'; '.join(parts)}>"


def describe_conventions(options: Any) -> str:
    """The scoring conventions in words: "spec defaults" or the ones that differ."""
    values = options.to_dict() if hasattr(options, "to_dict") else dict(options)
    try:
        from attunestats.metrics.conventions import CONVENTIONS
    except ImportError:  # pragma: no cover - metrics is part of the package
        CONVENTIONS = {}
    changed = [
        f"{name}={value}"
        for name, value in values.items()
        if name in CONVENTIONS and str(value) != str(CONVENTIONS[name].default)
    ]
    return "spec defaults" if not changed else "non-default: " + ", ".join(changed)


def _select(frame: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    keep = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        if column not in frame.columns:
            raise KeyError(
                f"summary() filter {column!r} is not a column; have {list(frame.columns)}"
            )
        values = list(value) if isinstance(value, list | tuple | set) else [value]
        match = frame[column].isin(values).to_numpy()
        if not match.any():
            have = list(dict.fromkeys(frame[column].dropna().tolist()))
            shown = ", ".join(map(repr, have[:20])) + (f", ... ({len(have)} in all)"
                                                       if len(have) > 20 else "")  # fmt: skip
            raise KeyError(f"summary() filter {column}={value!r} matches no row; {column} has: "
                           f"{shown}")  # fmt: skip
        keep &= match
    out = frame[keep].reset_index(drop=True)
    if out.empty:
        raise KeyError(
            f"no rows with {dict(where)!r} (each filter matches some rows, not together)"
        )
    return out


def _with_interval_columns(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The listed columns, each followed by its interval columns when the frame has them."""
    chosen: list[str] = []
    for c in columns:
        if c in frame.columns and c not in chosen:
            chosen.append(c)
            for low, high in ((f"{c}_low", f"{c}_high"), (f"{c}_ci_low", f"{c}_ci_high")):
                if low in frame.columns and high in frame.columns and low not in columns:
                    chosen.extend([low, high])
    return frame[chosen]


def _drop_settings(frame: pd.DataFrame) -> pd.DataFrame:
    """Drop setting columns that are constant (the header states them)."""
    drop = [
        c for c in _SETTING_COLUMNS if c in frame.columns and frame[c].nunique(dropna=False) <= 1
    ]
    return frame.drop(columns=drop)


def _shorten(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
