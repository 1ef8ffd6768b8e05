"""Every table with uncertainty says which estimand and method it used (the design's rule):
the rank sets and the discrimination of notebook 03 (population of participants, from the
participant inference) and the official scorer's summary (its SE treats conversations as
independent), whose tables had neither."""

from __future__ import annotations

import json

from attunestats.artifacts.reproduce import build

TABLES = {
    "03_rank_intervals": ("population of participants", "participant jackknife", "Mogstad"),
    "03_discrimination": ("population of participants", "participant jackknife", "noncentral-F"),
    "02_predictor_summary_official": ("treated as independent", "SD / sqrt(n)", "official"),
}


def test_tables_without_estimand_now_state_it(tmp_path, release_small_path):
    build(release=release_small_path, out=tmp_path / "out", fast=True, progress=False,
          only=["rank-intervals", "discrimination", "predictor-summary-official"])  # fmt: skip
    for name, (estimand, *method) in TABLES.items():
        meta = json.loads((tmp_path / "out" / "tables" / f"{name}.json").read_text())
        notes = {n.split(":", 1)[0]: n for n in meta["latex_notes"]}
        assert estimand in notes.get("Estimand", ""), (name, meta["latex_notes"])
        assert all(m in notes.get("Method", "") for m in method), (name, meta["latex_notes"])
        tex = (tmp_path / "out" / "tables" / f"{name}.tex").read_text()
        assert "Estimand:" in tex and "Method:" in tex
