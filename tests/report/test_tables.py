"""Tables for a paper (attunestats/report/tables.py): CSV readable with no options and identical
to the frame, a sidecar JSON with the metadata, LaTeX with booktabs, display names from the
metric registry, intervals as [lo, hi], significance marks explained in the caption."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from attunestats.constants import SIMULATED_LABEL
from attunestats.metrics.registry import display_name
from attunestats.report.tables import display_table, to_html, to_latex, write_table


def _comparisons() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["avg_emotion_f1", "avg_pairwise_accuracy", "composite_score"],
            "predictor_a": ["m1", "m1", "m2"],
            "predictor_b": ["m2", "m3", "m3"],
            "difference": [0.0512, -0.2, 1.23456],
            "ci_low": [0.0101, -0.31, -0.5],
            "ci_high": [0.0923, -0.09, 2.9],
            "pvalue": [0.004, 0.0002, 0.2],
            "pvalue_adjusted": [0.012, 0.0006, 0.4],
            "standardized_effect": [0.8, -1.9, 0.3],
            "standardized_effect_low": [0.1, -3.0, -0.2],
            "standardized_effect_high": [1.5, -0.8, 0.9],
            "significant": [True, True, False],
            "method": "participant jackknife, t tests",
            "estimand": "participants",
            "correction": "holm",
            "confidence_level": 0.95,
            "simulated": True,
            "seed": 123456789012,
        }
    )


def test_csv_reads_back_with_no_options_and_the_sidecar_has_the_metadata(tmp_path):
    frame = _comparisons()
    frame.loc[1, "difference"] = np.nextafter(-0.2, 0)  # full precision must survive
    csv, meta_path, tex = write_table(frame, "03_pairs", tmp_path, simulated=True,
                                      caption="Paired differences")  # fmt: skip
    assert [p.name for p in (csv, meta_path, tex)] == ["03_pairs.csv", "03_pairs.json",
                                                       "03_pairs.tex"]  # fmt: skip
    assert not csv.read_text(encoding="utf-8").startswith("#")
    back = pd.read_csv(csv)
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)
    assert back.loc[1, "difference"] == frame.loc[1, "difference"]
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert meta["simulated"] is True and meta["label"] == SIMULATED_LABEL
    assert meta["n_rows"] == 3 and meta["read_with"] == "pandas.read_csv(path)"
    assert [c["name"] for c in meta["columns"]] == list(frame.columns)
    metric = next(c for c in meta["columns"] if c["name"] == "metric")
    assert metric["values_display"]["avg_pairwise_accuracy"] == "Pairwise accuracy"
    assert meta["significance_marks"] == {"***": "p < 0.001", "**": "p < 0.01", "*": "p < 0.05"}
    # a real release: no label anywhere
    csv2, meta2, tex2 = write_table(frame, "real", tmp_path, simulated=False)
    assert json.loads(meta2.read_text())["label"] == ""
    assert "SIMULATED" not in tex2.read_text()
    # byte-identical on rewrite
    before = [p.read_bytes() for p in (csv, meta_path, tex)]
    write_table(frame, "03_pairs", tmp_path, simulated=True, caption="Paired differences")
    assert [p.read_bytes() for p in (csv, meta_path, tex)] == before


def test_latex_display_names_intervals_marks_and_caption():
    tex = to_latex(_comparisons(), caption="Paired differences", label="tab:x", simulated=True)
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert "avg\\_emotion\\_f1" not in tex and "avg_emotion_f1" not in tex
    for name in ("avg_emotion_f1", "avg_pairwise_accuracy", "composite_score"):
        assert display_name(name) in tex
    assert "Emotion F1" in tex and "Pairwise accuracy" in tex
    # intervals [lo, hi] in one column, at the level of the table
    assert "95\\% CI" in tex and "[0.010, 0.092]" in tex and "[-0.310, -0.090]" in tex
    assert "Standardized effect CI" in tex and "[0.100, 1.500]" in tex
    # marks from the adjusted p-values: 0.012 -> *, 0.0006 -> ***, 0.4 -> none
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    rows = [r for r in body.splitlines() if r.endswith(r"\\")]
    assert "0.051$^{*}$" in rows[0] and "-0.200$^{***}$" in rows[1] and "1.235 &" in rows[2]
    caption = tex.split(r"\caption{")[1]
    assert "adjusted p-value" in caption and "$^{*}$" in caption and "0.05" in caption
    assert "Correction: holm" in caption and "Method: participant jackknife" in caption
    assert "95\\% confidence" in caption and SIMULATED_LABEL in caption
    # settings stated once, not per row; the seed stays in the CSV
    assert "holm" not in body and "123456789012" not in tex and "Significant" not in tex
    assert r"\label{tab:x}" in tex


def test_display_without_p_values_has_no_marks_and_keeps_varying_settings():
    frame = pd.DataFrame({"metric": ["avg_emotion_f1", "x_custom"], "estimate": [0.5, 0.6],
                          "ci_low": [0.4, 0.5], "ci_high": [0.6, 0.7],
                          "method": ["jackknife", "cr2"]})  # fmt: skip
    shown = display_table(frame)
    assert shown.headers == ["Metric", "Estimate", "CI", "Method"]
    assert shown.cells[1] == ["X custom", "0.600", "[0.500, 0.700]", "cr2"]
    assert not shown.marks and not any("p-value" in n for n in shown.notes)
    html = to_html(frame, caption="Two metrics", simulated=True)
    assert "<table" in html and "Emotion F1" in html and "[0.400, 0.600]" in html
    assert SIMULATED_LABEL in html


def test_bad_table_name():
    with pytest.raises(ValueError, match="plain file stem"):
        write_table(pd.DataFrame({"a": [1]}), "../x", ".", simulated=False)
