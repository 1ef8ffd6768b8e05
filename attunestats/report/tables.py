"""Writing tables users can drop into a paper: CSV + sidecar JSON + LaTeX (and HTML for the docs).

``write_table(frame, name, out_dir, simulated=...)`` writes, under ``<out_dir>/tables/``:

``<name>.csv``
    Every value at full precision, a plain header and nothing else, so ``pandas.read_csv(path)``
    reads it with no options (no comment line: the metadata is in the sidecar and the manifest).
``<name>.json``
    The sidecar: ``simulated`` and its label, the caption, the number of rows, and for every column
    its dtype and display name (what the LaTeX prints), the significance marks used, and how to
    read the CSV. ``reproduce`` also records ``simulated`` per output in ``MANIFEST.json``.
``<name>.tex``
    A booktabs table for a paper: numbers rounded for display (the scorer's rounding rule),
    metric names as their registry display names ("Emotion F1", "Pairwise accuracy"), every
    interval as one ``[lo, hi]`` column, significance marks on differences and estimates with
    their meaning in the caption, the settings that are the same in every row (method, estimand,
    confidence level, correction) stated once in the caption, and the simulated label.

:func:`to_html` renders the same display for the documentation and notebooks.

Writes are safe (:mod:`attunestats._io`: temporary siblings, then renames; byte-identical on
reruns with the same inputs).
"""

from __future__ import annotations

import html
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from attunestats._io import atomic_write_text
from attunestats.constants import SIMULATED_LABEL
from attunestats.errors import AttunestatsWarning, warn
from attunestats.metrics.conventions import round_display

__all__ = [
    "SIGNIFICANCE_MARKS",
    "display_table",
    "latex_escape",
    "read_back_differences",
    "round_half",
    "table_metadata",
    "to_html",
    "to_latex",
    "write_table",
]

_LATEX_SPECIAL = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
    "<": r"\textless{}", ">": r"\textgreater{}",
}  # fmt: skip

#: (threshold, mark) from the strictest: a p-value below the threshold gets the mark.
SIGNIFICANCE_MARKS: tuple[tuple[float, str], ...] = ((0.001, "***"), (0.01, "**"), (0.05, "*"))

#: columns whose cells are metric names (shown as registry display names)
_METRIC_COLUMNS = ("metric", "metric_a", "metric_b", "source_metric")
#: settings stated once in the caption when they are the same in every row
_SETTING_COLUMNS = {
    "method": "method",
    "estimand": "estimand",
    "correction": "correction",
    "family": "family",
    "interval": "intervals",
    "unit": "unit",
    "alternative": "alternative",
    "n_resamples": "resamples",
}
_HIDDEN_CONSTANT = ("confidence_level", "simulated", "alpha")
#: never printed in the LaTeX (the CSV, sidecar and manifest keep them)
_HIDDEN_ALWAYS = ("seed",)
#: hidden when every row has the default mode
_MODE_COLUMNS = ("mode", "mode_a", "mode_b")
_PVALUE_COLUMNS = ("pvalue", "pvalue_adjusted", "pvalue_holm", "p_value")
#: display names of common columns (anything else: underscores to spaces, first letter capital)
_HEADERS = {
    "predictor": "Predictor", "display_name": "Predictor", "mode": "Mode", "metric": "Metric",
    "estimate": "Estimate", "standard_error": "SE", "df": "df", "pvalue": "p",
    "pvalue_adjusted": "adj. p", "difference": "Difference", "predictor_a": "A",
    "predictor_b": "B", "estimate_a": "Estimate A", "estimate_b": "Estimate B", "n": "n", "rank": "Rank",
    "composite_points": "Composite points", "standardized_effect": "Standardized effect",
    "rank_sim": "Simultaneous rank", "interval_level": "Interval level",
    "significant": "Significant", "verdict": "Verdict", "claim": "Claim", "statistic": "Statistic",
    "n_units": "Units", "n_participants": "Participants", "n_conversations": "Conversations",
}  # fmt: skip
#: ``<stem>_low``/``<stem>_high`` pairs that are bounds, not interval estimates: shown as one
#: ``[low, high]`` column under this header, never called a CI or given a level
_BOUNDS = {"range": "Range"}
#: columns that receive the significance marks (the first present)
_MARKED = ("difference", "estimate", "statistic")


def round_half(value: float, digits: int = 2, *, mode: str = "half_even") -> float:
    """Round for display exactly as the two candidate official scorers do.

    ``"half_even"`` is Python's ``round(value, digits)`` (the official Python scorer, presumably);
    ``"half_up"`` is the JavaScript port's ``Math.round(value * 10**digits) / 10**digits``. Both act
    on the binary value, as those implementations do (spec section 4).

    Examples
    --------
    >>> round_half(0.125, 2, mode="half_even"), round_half(0.125, 2, mode="half_up")
    (0.12, 0.13)
    >>> round_half(62.675, 2)  # 62.675 is stored as 62.67499999...
    62.67
    """
    if value is None:
        return float("nan")
    # one rounding rule for the package: the scorer's composite_rounding convention
    return float(round_display(float(value), digits, method=mode))


def latex_escape(text: object) -> str:
    """Escape LaTeX special characters in a cell."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _header(name: str) -> str:
    from attunestats.metrics.registry import METRICS, display_name

    if name in _HEADERS:
        return _HEADERS[name]
    if name in METRICS:
        return display_name(name)
    words = str(name).replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else str(name)


def _interval_pairs(columns: Sequence[str]) -> list[tuple[str, str, str]]:
    """(low, high, stem) column pairs: ``ci_low``/``ci_high`` and ``<x>_low``/``<x>_high``."""
    cols = list(columns)
    out = []
    for low in cols:
        for lo_suffix, hi_suffix in (("ci_low", "ci_high"), ("_ci_low", "_ci_high"),
                                     ("_low", "_high")):  # fmt: skip
            if low.endswith(lo_suffix):
                stem = low[: len(low) - len(lo_suffix)]
                high = stem + hi_suffix
                if high in cols:
                    out.append((low, high, stem.rstrip("_")))
                    break
    return out


def _number(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float | np.floating) and math.isnan(float(value))):
        return "--"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{round_half(v, digits):.{digits}f}"
    return str(value)


def _pvalue(value: Any) -> str:
    """A p-value for display: three decimals, ``<0.001`` below."""
    if _missing(value):
        return "--"
    v = float(value)
    return "<0.001" if v < 0.001 else f"{round_half(v, 3):.3f}"


def _mark(p: Any) -> str:
    try:
        pv = float(p)
    except (TypeError, ValueError):
        return ""
    if math.isnan(pv):
        return ""
    for threshold, mark in SIGNIFICANCE_MARKS:
        if pv < threshold:
            return mark
    return ""


@dataclass(frozen=True)
class DisplayTable:
    """A table prepared for display: headers, cell strings, column kinds and caption notes."""

    headers: list[str]
    cells: list[list[str]]
    numeric: list[bool]
    notes: list[str]
    marks: bool
    source_columns: list[str]

    def to_frame(self) -> pd.DataFrame:
        """The display as a DataFrame of strings."""
        return pd.DataFrame(self.cells, columns=self.headers)


def display_table(
    df: pd.DataFrame, *, digits: int | Mapping[str, int] = 3, marks: bool = True
) -> DisplayTable:
    """The display of a result table for a paper (what :func:`to_latex` and :func:`to_html` print).

    - Settings that are the same in every row (``method``, ``estimand``, ``correction``, ...) are
      dropped from the body and stated once in the notes; ``confidence_level`` names the
      interval column; ``simulated`` and ``seed`` go to the sidecar.
    - Each interval (``ci_low``/``ci_high``, ``<x>_low``/``<x>_high``) becomes one ``[lo, hi]``
      column where its low end was. An interval ``<x>`` with its own level column
      ``<x>_level`` is not at the table's level: its header gives that level (when the same in
      every row) and the notes say so. When some row's ``interval_level`` is below the
      table's ``confidence_level``, no interval is labelled at the table's level: each is at
      the level of its row.
    - Ranks and counts (``rank*``, ``n_*``) stored as floats print with no decimals when they are
      whole numbers, one when some are halves (tied ranks).
    - Cells of metric-name columns and headers that are metric names show the registry's
      display names; other headers are humanised (``standard_error`` -> "SE").
    - With a p-value column (``pvalue_adjusted`` if present, else ``pvalue``) the first of
      ``difference``, ``estimate``, ``statistic`` gets significance marks (``*`` p < 0.05, ``**``
      p < 0.01, ``***`` p < 0.001), explained in the notes.

    Examples
    --------
    >>> t = pd.DataFrame({"metric": ["avg_emotion_f1"], "difference": [0.0512],
    ...                   "ci_low": [0.01], "ci_high": [0.0924], "pvalue": [0.012],
    ...                   "confidence_level": [0.95], "method": ["participant jackknife"]})
    >>> d = display_table(t)
    >>> d.headers, d.cells
    (['Metric', 'Difference', '95% CI', 'p'], [['Emotion F1', '0.051*', '[0.010, 0.092]', '0.012']])
    >>> d.notes[0]
    'Method: participant jackknife.'
    """
    from attunestats.metrics.registry import display_name

    frame = df.reset_index(drop=True)

    def ndig(col: str) -> int:
        if isinstance(digits, Mapping) and col in digits:
            return int(digits[col])
        few = _few_digits(col, frame[col])
        if few is not None:
            return few  # ranks and counts stored as floats print as 2, or as 2.5 with ties
        return int(digits.get(col, 3)) if isinstance(digits, Mapping) else int(digits)

    notes: list[str] = []
    constant = {c for c in frame.columns if len(frame) and frame[c].nunique(dropna=False) == 1}
    level = None
    if "confidence_level" in frame.columns and "confidence_level" in constant:
        with np.errstate(all="ignore"):
            level = float(frame["confidence_level"].iloc[0])
    # rows whose interval was computed at a level below the table's (``interval_level``: claim
    # (a)'s intersection-union parts at 90% in a 95% audit) are not 95% intervals in any sense
    # (adjusted ones, at or above it, keep the family's level): no header or note claims it
    rows_below = (
        level is not None
        and "interval_level" in frame.columns
        and bool((pd.to_numeric(frame["interval_level"], errors="coerce") < level - 1e-9).any())
    )
    settings = [c for c in _SETTING_COLUMNS if c in constant]
    for c in settings:
        value = frame[c].iloc[0]
        if value is not None and str(value) not in ("", "nan"):
            notes.append(f"{_SETTING_COLUMNS[c].capitalize()}: {value}.")
    drop = set(settings) | {c for c in _HIDDEN_CONSTANT if c in constant}
    drop |= {c for c in _HIDDEN_ALWAYS if c in frame.columns}
    drop |= {c for c in _MODE_COLUMNS if c in constant and str(frame[c].iloc[0]) == "default"}
    pcol = next((c for c in ("pvalue_adjusted", "pvalue") if c in frame.columns), None)
    target = next((c for c in _MARKED if c in frame.columns), None) if marks and pcol else None
    if target is not None and "significant" in frame.columns:
        drop.add("significant")  # the marks say it
    pairs = _interval_pairs([c for c in frame.columns if c not in drop])
    # an interval with its own level column (``verdict_ci_*`` and ``verdict_level``) is not at
    # the table's confidence level: its header names its own level (the column goes when constant)
    own_level = {stem: f"{stem}_level" for _, _, stem in pairs
                 if stem and f"{stem}_level" in frame.columns}  # fmt: skip
    drop |= {c for c in own_level.values() if c in constant}
    lows = {lo: (hi, stem) for lo, hi, stem in pairs}
    highs = {hi for _, hi, _ in pairs}

    headers: list[str] = []
    columns: list[list[str]] = []
    numeric: list[bool] = []
    sources: list[str] = []
    for col in frame.columns:
        if col in drop or col in highs:
            continue
        if col in lows:
            hi, stem = lows[col]
            d = ndig(col)
            cells = [f"[{_number(a, d)}, {_number(b, d)}]" if not (_missing(a) and _missing(b))
                     else "--" for a, b in zip(frame[col], frame[hi], strict=True)]  # fmt: skip
            if stem in _BOUNDS:  # a [low, high] that is no interval estimate
                name = _BOUNDS[stem]
            elif stem in own_level and own_level[stem] in constant:
                with np.errstate(all="ignore"):
                    own = float(frame[own_level[stem]].iloc[0])
                name = f"{_header(stem)} CI ({100 * own:g}%)"
            elif stem:
                name = f"{_header(stem)} CI"
            elif level is not None and not rows_below:
                name = f"{100 * level:g}% CI"
            else:
                name = "CI"
            headers.append(name)
            columns.append(cells)
            numeric.append(True)
            sources.append(f"{col}, {hi}")
            continue
        values = frame[col]
        if col in _METRIC_COLUMNS:
            cells = [display_name(str(v)) if isinstance(v, str) else _number(v, 3) for v in values]
            is_num = False
        elif col in _PVALUE_COLUMNS:
            cells = [_pvalue(v) for v in values]
            is_num = True
        elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            d = ndig(col)
            cells = [_number(v, d) for v in values]
            is_num = True
        else:
            cells = [_number(v, 3) if not isinstance(v, str) else v for v in values]
            is_num = False
        if col == target:
            cells = [
                c + _mark(p) if c != "--" else c for c, p in zip(cells, frame[pcol], strict=True)
            ]
        # the display name shows as "Predictor": the id beside it is the "Predictor id"
        both = col == "predictor" and "display_name" in frame.columns and "display_name" not in drop
        headers.append("Predictor id" if both else _header(col))
        columns.append(cells)
        numeric.append(is_num)
        sources.append(col)
    if target is not None:
        which = "adjusted p-value" if pcol == "pvalue_adjusted" else "p-value"
        notes.append(
            f"{_header(target)}: * {which} < 0.05, ** < 0.01, *** < 0.001"
            + (" (after the correction stated)." if pcol == "pvalue_adjusted" else ".")
        )
    if any(stem not in _BOUNDS for _, _, stem in pairs):
        at = f" at {100 * level:g}% confidence" if level is not None else ""
        if rows_below:
            at = (f", each at the level of its row ({_header('interval_level')}; the "
                  f"table's is {100 * level:g}%)")  # fmt: skip
        if at and own_level:
            shown_own = ", ".join(f"{_header(s)} CI" for s in own_level)
            at += f" ({shown_own}: at the level given with it)"
        notes.append(f"Intervals as [lower, upper]{at}.")
    cells_by_row = [list(row) for row in zip(*columns, strict=True)] if columns else []
    return DisplayTable(headers, cells_by_row, numeric, notes, target is not None, sources)


#: float columns shown with as few decimals as their values need (ranks, counts; ties as x.5)
_WHOLE_PREFIXES = ("rank", "n_")


def _few_digits(col: str, values: pd.Series) -> int | None:
    """0 or 1 for rank and count columns whose values are whole (or halves); else None."""
    if not str(col).startswith(_WHOLE_PREFIXES) or not pd.api.types.is_float_dtype(values):
        return None
    finite = values.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return None
    for d in (0, 1):
        if np.all(finite * 10**d == np.round(finite * 10**d)):
            return d
    return None


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(float(value)))


def to_latex(
    df: pd.DataFrame,
    *,
    digits: int | Mapping[str, int] = 3,
    caption: str = "",
    label: str = "",
    simulated: bool = False,
    marks: bool = True,
) -> str:
    """A booktabs LaTeX table of :func:`display_table` (rounded for display only).

    The caption is ``caption`` followed by the notes of the display (settings, the meaning of the
    significance marks, the interval level) and, for a simulated release, the simulated label.
    """
    shown = display_table(df, digits=digits, marks=marks)
    align = "".join("r" if n else "l" for n in shown.numeric)
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in shown.headers) + r" \\",
        r"\midrule",
    ]
    for row in shown.cells:
        cells = [_latex_cell(c) for c in row]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    text = _caption_text(caption, shown.notes, simulated)
    if text:
        lines.append(rf"\caption{{{_latex_caption(text)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _caption_text(caption: str, notes: Sequence[str], simulated: bool) -> str:
    parts = []
    if caption.strip():
        first = caption.strip()
        parts.append(first if first.endswith((".", "!", "?")) else first + ".")
    parts += list(notes)
    if simulated:
        parts.append(f"{SIMULATED_LABEL}.")
    return " ".join(parts)


def _latex_cell(cell: str) -> str:
    """Escape a cell; trailing significance stars become a superscript."""
    stars = len(cell) - len(cell.rstrip("*"))
    if stars and cell.rstrip("*"):
        return latex_escape(cell[:-stars]) + r"$^{" + "*" * stars + "}$"
    return latex_escape(cell)


def _latex_caption(text: str) -> str:
    """Escape a caption; the marks ``*``, ``**``, ``***`` are shown as superscripts."""
    out = latex_escape(text)
    for mark in ("***", "**", "*"):
        out = out.replace(f" {mark} ", f" $^{{{mark}}}$ ")
    return out


def to_html(
    df: pd.DataFrame,
    *,
    digits: int | Mapping[str, int] = 3,
    caption: str = "",
    simulated: bool = False,
    marks: bool = True,
) -> str:
    """The display of :func:`display_table` as an HTML table (docs, notebooks)."""
    shown = display_table(df, digits=digits, marks=marks)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in shown.headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="text-align:{"right" if n else "left"}">{html.escape(c)}</td>'
            for c, n in zip(row, shown.numeric, strict=True)
        )
        + "</tr>"
        for row in shown.cells
    )
    text = _caption_text(caption, shown.notes, simulated)
    cap = f"<caption>{html.escape(text)}</caption>" if text else ""
    return (
        f'<table class="attunestats-table">{cap}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def table_metadata(
    df: pd.DataFrame,
    name: str,
    *,
    simulated: bool,
    caption: str = "",
    digits: int | Mapping[str, int] = 3,
) -> dict[str, Any]:
    """The sidecar JSON of a table: what the CSV holds and how the LaTeX shows it."""
    from attunestats.metrics.registry import METRICS, display_name

    shown = display_table(df, digits=digits)
    columns = []
    for col in df.columns:
        entry: dict[str, Any] = {"name": str(col), "dtype": str(df[col].dtype),
                                 "display_name": _header(str(col))}  # fmt: skip
        if col in METRICS:
            entry["metric"] = True
        if col in _METRIC_COLUMNS:
            entry["values_display"] = {
                str(v): display_name(str(v)) for v in pd.unique(df[col]) if isinstance(v, str)
            }
        columns.append(entry)
    return {
        "format": "attunestats-table/1",
        "table": name,
        "csv": f"{name}.csv",
        "latex": f"{name}.tex",
        "read_with": "pandas.read_csv(path)",
        "simulated": bool(simulated),
        "label": SIMULATED_LABEL if simulated else "",
        "caption": caption,
        "n_rows": int(len(df)),
        "columns": columns,
        "latex_notes": shown.notes,
        "significance_marks": (
            {mark: f"p < {threshold:g}" for threshold, mark in SIGNIFICANCE_MARKS}
            if shown.marks
            else {}
        ),
    }


def read_back_differences(df: pd.DataFrame, csv_text: str) -> list[dict[str, Any]]:
    """The cells of ``df`` that ``pandas.read_csv`` (no options) does not read back from its CSV.

    Numbers, booleans and ordinary text come back exactly; what does not is text pandas takes
    for a missing value (``""``, ``"NA"``, ``"None"``, ``"nan"``, ...) or a text column whose
    every value looks like a number. One entry per differing cell (at most 20): ``column``,
    ``row``, ``written`` and ``read`` (``None`` for missing), as strings.

    Examples
    --------
    >>> frame = pd.DataFrame({"predictor": ["model-a", "NA"], "estimate": [0.1, 0.2]})
    >>> read_back_differences(frame, frame.to_csv(index=False))
    [{'column': 'predictor', 'row': 1, 'written': 'NA', 'read': None}]
    """
    back = pd.read_csv(io.StringIO(csv_text))
    frame = df.reset_index(drop=True)
    out: list[dict[str, Any]] = []
    for col in frame.columns:
        if col not in back.columns:  # pragma: no cover - to_csv writes every column
            continue
        a, b = frame[col], back[col]
        try:
            pd.testing.assert_series_equal(b, a, check_dtype=False, check_names=False,
                                           check_exact=True)  # fmt: skip
            continue
        except (AssertionError, TypeError, ValueError):
            pass
        for row, (x, y) in enumerate(zip(a, b, strict=True)):
            if not _same_cell(x, y):
                out.append({"column": str(col), "row": row,
                            "written": None if _missing_cell(x) else str(x),
                            "read": None if _missing_cell(y) else str(y)})  # fmt: skip
                if len(out) >= 20:
                    return out
    return out


def _same_cell(written: Any, read: Any) -> bool:
    if _missing_cell(written) or _missing_cell(read):
        return _missing_cell(written) and _missing_cell(read)
    if isinstance(written, str) or isinstance(read, str):
        return isinstance(written, str) and isinstance(read, str) and written == read
    try:
        return bool(written == read)
    except (TypeError, ValueError):
        return str(written) == str(read)


def _missing_cell(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def write_table(
    df: pd.DataFrame,
    name: str,
    out_dir: str | os.PathLike[str],
    *,
    simulated: bool,
    caption: str = "",
    digits: int | Mapping[str, int] = 3,
) -> list[Path]:
    """Write ``<out_dir>/tables/<name>.csv`` (full precision), ``.json`` (metadata), ``.tex``.

    ``pandas.read_csv(path)`` reads the CSV with no options. A table from a simulated release
    says so in its own rows (a column ``simulated``, all true, is added when the frame has none),
    in the sidecar JSON, in the LaTeX caption and in ``MANIFEST.json`` after ``reproduce``.
    Returns the paths written (CSV, JSON, LaTeX).

    Examples
    --------
    >>> import tempfile
    >>> frame = pd.DataFrame({"metric": ["avg_pairwise_accuracy"], "estimate": [0.81234]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     csv, meta, tex = write_table(frame, "demo", tmp, simulated=True)
    ...     back = pd.read_csv(csv)
    ...     sidecar = json.loads(meta.read_text())
    >>> back.drop(columns="simulated").equals(frame), back["simulated"].tolist()
    (True, [True])
    >>> sidecar["simulated"], sidecar["columns"][0]["values_display"]
    (True, {'avg_pairwise_accuracy': 'Pairwise accuracy'})
    """
    if not name or any(ch in name for ch in "/\\"):
        raise ValueError(f"table name must be a plain file stem; got {name!r}")
    if simulated and "simulated" not in df.columns:
        # the label travels with the CSV alone, not only in the sidecar and the caption
        df = df.assign(simulated=True)
    folder = Path(out_dir) / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = folder / f"{name}.csv"
    json_path = folder / f"{name}.json"
    tex_path = folder / f"{name}.tex"
    csv_text = df.to_csv(index=False, lineterminator="\n")
    meta = table_metadata(df, name, simulated=simulated, caption=caption, digits=digits)
    lost = read_back_differences(df, csv_text)
    if lost:
        meta["read_back_differs"] = lost
        shown = "; ".join(
            f"column {d['column']!r} row {d['row']}: {d['written']!r} reads as {d['read']!r}"
            for d in lost[:3]
        )
        warn(
            f"{csv_path}: pandas.read_csv(path) does not read back {len(lost)} cell(s) as "
            f"written ({shown}); the sidecar {json_path.name} lists them under "
            "'read_back_differs'",
            AttunestatsWarning,
        )
    meta_text = json.dumps(meta, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"
    tex = to_latex(df, digits=digits, caption=caption, label=f"tab:{name}", simulated=simulated)
    # safe writes (attunestats._io): temporary siblings, then renames; 0666 less the umask
    atomic_write_text(csv_path, csv_text)
    atomic_write_text(json_path, meta_text)
    atomic_write_text(tex_path, tex)
    return [csv_path, json_path, tex_path]
