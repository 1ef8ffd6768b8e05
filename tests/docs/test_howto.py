"""The how-to "check a significance claim" (docs/howto/check-a-claim.md): from a row of the
paper's table of paired differences to the exact interval, p-value and method with one
documented call. The table is built by ``reproduce`` (the builder of the paper map), the
documented block runs as written, and its recomputation equals the CSV to the last digit."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd

from attunestats.errors import AttunestatsWarning

HOWTO = Path(__file__).resolve().parents[2] / "docs" / "howto" / "check-a-claim.md"
TABLE = "tables/03_paired_differences.csv"


def _block(text: str, needle: str) -> str:
    blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.M | re.S)
    found = [b for b in blocks if needle in b]
    assert len(found) == 1, f"one python block of {HOWTO.name} should contain {needle!r}"
    return found[0]


def test_a_table_row_is_one_documented_call_away(tmp_path, monkeypatch, capsys):
    from attunestats.artifacts.reproduce import build

    out = tmp_path / "paper_figures"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AttunestatsWarning)  # the bundled release's load report
        build(out=out, fast=True, only=["paired-differences"], progress=False)
        code = _block(HOWTO.read_text(encoding="utf-8"), TABLE)
        monkeypatch.chdir(tmp_path)  # the block reads paper_figures/ as written in the page
        namespace: dict = {}
        exec(compile(code, str(HOWTO), "exec"), namespace)
    row, cmp = namespace["row"], namespace["cmp"]
    assert len(row) == 1
    # the recomputation is the table, every column to the last bit
    written = pd.read_csv(out / TABLE)
    pd.testing.assert_frame_equal(written, cmp.pairs.reset_index(drop=True), check_exact=True)
    # and the summary printed by the documented call shows that row's numbers
    shown = capsys.readouterr().out
    r = row.iloc[0]
    assert f"[{r.ci_low:.4f}, {r.ci_high:.4f}]" in shown and f"{r.difference:.4f}" in shown
    assert f"{r.pvalue_adjusted:.4f}" in shown and r.method in shown and "maxt" in shown
    assert "population of participants" in shown and "SIMULATED DATA" in shown
