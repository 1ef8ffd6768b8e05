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


@dataclass(frozen=True)
class Summary:
    """Plain-text summary of a result; ``str(summary)`` is the text."""

    title: str
    meta: Mapping[str, str] = field(default_factory=dict)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: Sequence[str] = ()
    simulated: bool = False

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
            lines.append(_format_table(self.table))
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


def _format_table(frame: pd.DataFrame, *, max_rows: int = 60) -> str:
    shown = frame.head(max_rows)
    text = shown.to_string(
        index=False, formatters={c: format_number for c in shown.columns}, max_colwidth=40
    )
    if len(frame) > max_rows:
        text += f"\n... {len(frame) - max_rows} more rows (to_frame() has them all)"
    return text


class ResultMixin:
    """``summary()`` and a short ``__repr__`` for result dataclasses with ``to_frame()``."""

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

    def _summary_meta(self) -> dict[str, str]:
        meta: dict[str, str] = {}
        if self._estimand():
            meta["Estimand"] = self._estimand()
        if self._method():
            meta["Method"] = self._method()
        level = getattr(self, "confidence_level", None)
        if isinstance(level, float | int) and not isinstance(level, bool):
            meta["Confidence level"] = f"{float(level):g}"
        for attr, label in (
            ("n_resamples", "Resamples"),
            ("correction", "Correction"),
            ("seed", "Seed"),
        ):
            value = getattr(self, attr, None)
            if value is not None and value != "":
                meta[label] = str(value)
        return meta

    def _summary_notes(self) -> list[str]:
        return []

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        frame = self.to_frame()
        if self._summary_columns:
            frame = frame[[c for c in self._summary_columns if c in frame.columns]]
        return (
            self._title or type(self).__name__,
            self._summary_meta(),
            frame,
            self._summary_notes(),
        )

    # -- protocol -------------------------------------------------------------------------------
    def summary(self) -> Summary:
        """Plain-text table: estimate, interval, p, method, estimand, units, simulated flag."""
        title, meta, table, notes = self._summary_parts()
        return Summary(title=title, meta=meta, table=table, notes=tuple(notes),
                       simulated=self._simulated())  # fmt: skip

    def __repr__(self) -> str:
        try:
            n_rows = len(self.to_frame())
        except Exception:  # a repr must never raise
            n_rows = -1
        parts = [f"{n_rows} rows" if n_rows >= 0 else "unavailable"]
        if self._estimand():
            parts.append(f"estimand={_shorten(self._estimand())!r}")
        if self._method():
            parts.append(f"method={_shorten(self._method())!r}")
        if self._simulated():
            parts.append("SIMULATED")
        return f"<{type(self).__name__}: {'; '.join(parts)}>"


def _shorten(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
