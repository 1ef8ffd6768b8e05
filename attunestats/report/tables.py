"""Writing tables: CSV with full precision, LaTeX rounded for display (by the scorer's rounding rule).

Every table written for a simulated release carries the simulated label: a leading ``#`` comment
line in the CSV and a caption note in the LaTeX.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from attunestats._io import atomic_write_text
from attunestats.constants import SIMULATED_LABEL
from attunestats.metrics.conventions import round_display

_LATEX_SPECIAL = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
}  # fmt: skip


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


def to_latex(
    df: pd.DataFrame,
    *,
    digits: int | Mapping[str, int] = 3,
    caption: str = "",
    label: str = "",
    simulated: bool = False,
) -> str:
    """A booktabs LaTeX table with numbers rounded for display (half even)."""

    def fmt(col: str, value: object) -> str:
        if isinstance(value, bool | np.bool_):
            return "yes" if value else "no"
        if isinstance(value, int | np.integer):
            return str(int(value))
        if isinstance(value, float | np.floating):
            if np.isnan(value):
                return "--"
            d = digits.get(col, 3) if isinstance(digits, Mapping) else digits
            return f"{round_half(float(value), d):.{d}f}"
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "--"
        return latex_escape(value)

    cols = list(df.columns)
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in cols)
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
    ]
    lines.append(" & ".join(latex_escape(c) for c in cols) + r" \\")
    lines.append(r"\midrule")
    for row in df.itertuples(index=False):
        lines.append(" & ".join(fmt(c, v) for c, v in zip(cols, row, strict=True)) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    note = f" {SIMULATED_LABEL}." if simulated else ""
    if caption or note:
        lines.append(rf"\caption{{{latex_escape(caption)}{latex_escape(note)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def write_table(
    df: pd.DataFrame,
    name: str,
    out_dir: str | os.PathLike[str],
    *,
    simulated: bool,
    caption: str = "",
    digits: int | Mapping[str, int] = 3,
) -> list[Path]:
    """Write ``<out_dir>/tables/<name>.csv`` (full precision) and ``.tex`` (rounded).

    The CSV of a simulated release starts with ``# SIMULATED DATA ...``; read it back with
    ``pandas.read_csv(path, comment="#")``. Returns the paths written.
    """
    if not name or any(ch in name for ch in "/\\"):
        raise ValueError(f"table name must be a plain file stem; got {name!r}")
    folder = Path(out_dir) / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = folder / f"{name}.csv"
    tex_path = folder / f"{name}.tex"
    buf = io.StringIO()
    if simulated:
        buf.write(f"# {SIMULATED_LABEL}\n")
    df.to_csv(buf, index=False, lineterminator="\n")
    tex = to_latex(df, digits=digits, caption=caption, label=f"tab:{name}", simulated=simulated)
    # safe writes (attunestats._io): temporary siblings, then renames; 0666 less the umask
    atomic_write_text(csv_path, buf.getvalue())
    atomic_write_text(tex_path, tex)
    return [csv_path, tex_path]
