"""Tables for a paper (attunestats/report/tables.py): CSV readable with no options and identical
to the frame, a sidecar JSON with the metadata, LaTeX with booktabs, display names from the
metric registry, intervals as [lo, hi], significance marks explained in the caption."""

from __future__ import annotations

import json
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from attunestats.constants import SIMULATED_LABEL
from attunestats.errors import AttunestatsWarning
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


# --- tables written from real results, checked by parsing the files (not by re-formatting) ----

_MARK_RULE = ((0.001, "***"), (0.01, "**"), (0.05, "*"))  # the rule the issue asks for


def _stars(p: float) -> str:
    return next((mark for threshold, mark in _MARK_RULE if p < threshold), "")


def _parse_latex(tex: str) -> dict:
    """Headers, rows and caption of a booktabs table, read from the text with regexes."""
    assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
    assert r"\hline" not in tex  # booktabs rules only
    align = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", tex).group(1)
    split = re.compile(r"(?<!\\)&")

    def cells(line: str) -> list[str]:
        assert line.endswith(r"\\"), line
        return [c.strip() for c in split.split(line[:-2])]

    head = tex.split(r"\toprule")[1].split(r"\midrule")[0].strip()
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    caption = re.search(r"\\caption\{(.*)\}\n", tex)
    return {"align": align, "headers": cells(head), "rows": [cells(r) for r in body],
            "caption": caption.group(1) if caption else ""}  # fmt: skip


def _unlatex(cell: str) -> str:
    """A LaTeX cell as plain text (what the HTML shows)."""
    cell = re.sub(r"\$\^\{(\*+)\}\$", r"\1", cell).replace(r"\textless{}", "<")
    return re.sub(r"\\([%&_#$])", r"\1", cell)


class _HTMLTable(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.caption = ""
        self._cell: list[str] | None = None
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "caption":
            self._in_caption = True

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "caption":
            self._in_caption = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        elif self._in_caption:
            self.caption += data


@pytest.fixture(scope="module")
def comparison(small_simulated_scores):
    from attunestats import compare_models

    return compare_models(small_simulated_scores, correction="holm")


@pytest.fixture(scope="module")
def written(comparison, small_simulated_scores, tmp_path_factory):
    """Three real tables (paired differences, rank sets, estimates) written by write_table."""
    from attunestats import infer_scores

    out = tmp_path_factory.mktemp("tables")
    frames = {"pairs": comparison.pairs, "ranks": comparison.ranks,
              "estimates": infer_scores(small_simulated_scores).to_frame()}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is lost on the way back
        paths = {k: write_table(f, k, out, simulated=True, caption=f"The {k}")
                 for k, f in frames.items()}  # fmt: skip
    return frames, paths


@pytest.mark.parametrize("name", ["pairs", "ranks", "estimates"])
def test_real_tables_read_back_exactly_with_no_options(written, name):
    frames, paths = written
    frame = frames[name].reset_index(drop=True)
    csv, meta_path, _ = paths[name]
    back = pd.read_csv(csv)
    # every column, same dtype, every float to the last bit (unrounded, as promised)
    pd.testing.assert_frame_equal(back, frame, check_dtype=True, check_exact=True)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert "read_back_differs" not in meta
    assert meta["simulated"] is True and meta["label"] == SIMULATED_LABEL
    assert meta["n_rows"] == len(frame)
    assert [c["name"] for c in meta["columns"]] == list(back.columns)
    for entry in meta["columns"]:
        assert entry["dtype"] == str(back[entry["name"]].dtype), entry
        assert entry["display_name"] and "_" not in entry["display_name"], entry
    for entry in meta["columns"]:
        if entry["name"] == "metric":  # every metric of the table has its display name
            assert set(entry["values_display"]) == set(back["metric"])
            assert not any("_" in v for v in entry["values_display"].values())


def test_real_latex_is_booktabs_with_display_names_intervals_and_explained_marks(written):
    frames, paths = written
    back = pd.read_csv(paths["pairs"][0])
    tex = _parse_latex(paths["pairs"][2].read_text(encoding="utf-8"))
    width = len(tex["align"])
    assert len(tex["headers"]) == width and all(len(r) == width for r in tex["rows"])
    assert len(tex["rows"]) == len(back)
    # no snake_case anywhere in the headers or the body (LaTeX escapes _ as \_)
    flat = tex["headers"] + [c for r in tex["rows"] for c in r]
    assert not [c for c in flat if "\\_" in c or "_" in c]
    col = {h: i for i, h in enumerate(tex["headers"])}
    metric_cells = {r[col["Metric"]] for r in tex["rows"]}
    assert "Emotion F1" in metric_cells and "Composite score" in metric_cells
    assert not metric_cells & set(back["metric"])
    # the interval column: [lo, hi] with lo <= hi, the CSV's values to 3 decimals
    ci = col["95\\% CI"]
    for row, (_, rec) in zip(tex["rows"], back.iterrows(), strict=True):
        m = re.fullmatch(r"\[(-?\d+\.\d{3}), (-?\d+\.\d{3})\]", row[ci])
        assert m, row[ci]
        assert (m.group(1), m.group(2)) == (f"{rec.ci_low:.3f}", f"{rec.ci_high:.3f}")
        assert float(m.group(1)) <= float(m.group(2))
        # significance marks from the adjusted p-values, by the rule above
        cell = row[col["Difference"]]
        stars = re.fullmatch(r"(-?\d+\.\d{3})(?:\$\^\{(\*+)\}\$)?", cell)
        assert stars, cell
        assert (stars.group(2) or "") == _stars(rec.pvalue_adjusted), (cell, rec.pvalue_adjusted)
        assert stars.group(1) == f"{rec.difference:.3f}"
    assert any("$^{" in r[col["Difference"]] for r in tex["rows"])  # the test can see marks
    # the caption explains every mark, the adjustment and the interval level; simulated label
    cap = tex["caption"]
    for mark, threshold in (("*", "0.05"), ("**", "0.01"), ("***", "0.001")):
        assert re.search(rf"\$\^\{{{re.escape(mark)}\}}\$ [^$]*{re.escape(threshold)}", cap), mark
    assert "adjusted p-value" in cap and "95\\% confidence" in cap and SIMULATED_LABEL in cap


def test_rank_sets_print_as_whole_numbers_and_tables_without_p_have_no_marks(written):
    tex = _parse_latex(written[1]["ranks"][2].read_text(encoding="utf-8"))
    col = {h: i for i, h in enumerate(tex["headers"])}
    assert "Rank CI" in col and "Simultaneous rank CI" in col
    back = pd.read_csv(written[1]["ranks"][0])
    assert (back["rank"] % 1 == 0.5).any()  # ties: one decimal for every rank
    for row, rank, lo, hi in zip(tex["rows"], back["rank"], back["rank_ci_low"],
                                 back["rank_ci_high"], strict=True):  # fmt: skip
        assert row[col["Rank"]] == f"{rank:.1f}"
        assert row[col["Rank CI"]] == f"[{lo:.0f}, {hi:.0f}]" and lo % 1 == 0 and hi % 1 == 0
    assert "$^{" not in "".join(c for r in tex["rows"] for c in r)
    assert "p-value" not in tex["caption"]


def test_html_rendering_shows_the_same_cells_as_the_latex(written):
    frames, paths = written
    tex = _parse_latex(paths["pairs"][2].read_text(encoding="utf-8"))
    parser = _HTMLTable()
    parser.feed(to_html(frames["pairs"], caption="The pairs", simulated=True))
    assert parser.rows[0] == [_unlatex(h) for h in tex["headers"]]
    assert parser.rows[1:] == [[_unlatex(c) for c in r] for r in tex["rows"]]
    assert SIMULATED_LABEL in parser.caption and "adjusted p-value" in parser.caption


def test_text_that_pandas_reads_as_missing_is_reported(tmp_path):
    frame = pd.DataFrame({"predictor": ["model-a", "NA"], "note": ["", "ok"],
                          "estimate": [0.5, 0.25]})  # fmt: skip
    with pytest.warns(AttunestatsWarning, match=r"x\.csv.*'predictor' row 1: 'NA' reads as None"):
        csv, meta_path, _ = write_table(frame, "x", tmp_path, simulated=False)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert meta["read_back_differs"] == [
        {"column": "predictor", "row": 1, "written": "NA", "read": None},
        {"column": "note", "row": 0, "written": "", "read": None},
    ]
    assert pd.read_csv(csv)["predictor"].isna().tolist() == [False, True]  # what the user gets


def test_a_simulated_table_says_so_in_its_own_rows(tmp_path):
    # a CSV taken alone (without its sidecar or caption) still says it is simulated
    frame = pd.DataFrame({"predictor": ["a", "b"], "estimate": [0.1, 0.2]})
    csv, meta, _ = write_table(frame, "sim", tmp_path, simulated=True)
    back = pd.read_csv(csv)
    assert back["simulated"].tolist() == [True, True]
    assert [c["name"] for c in json.loads(meta.read_text())["columns"]][-1] == "simulated"
    real, _, _ = write_table(frame, "real", tmp_path, simulated=False)
    assert "simulated" not in pd.read_csv(real).columns
    assert "simulated" not in frame.columns  # the caller's frame is left alone


def test_an_interval_with_its_own_level_is_not_labelled_at_the_tables_level():
    """Hand-built: a 95% table whose verdict intervals are Bonferroni ones at 99.5% (as the
    capability-independence table): the LaTeX must not say they are at 95%."""
    frame = pd.DataFrame({"capability_a": ["emotion", "emotion"], "capability_b": ["behaviour", "preference"],
                          "corrected": [0.5, 0.4], "corrected_ci_low": [-0.1, -0.2],
                          "corrected_ci_high": [0.8, 0.7], "verdict_level": [0.995, 0.995],
                          "verdict_ci_low": [-0.3, -0.4], "verdict_ci_high": [0.9, 0.85],
                          "confidence_level": [0.95, 0.95]})  # fmt: skip
    shown = display_table(frame)
    assert "Corrected CI" in shown.headers and "Verdict CI (99.5%)" in shown.headers
    assert "Verdict level" not in shown.headers  # said in the header
    note = next(n for n in shown.notes if n.startswith("Intervals as"))
    assert "95% confidence" in note and "Verdict CI: at the level given with it" in note
    # a level that differs between rows stays a column, and the header claims no level
    varying = display_table(frame.assign(verdict_level=[0.995, 0.99]))
    assert "Verdict CI" in varying.headers and "Verdict level" in varying.headers


def test_intervals_below_the_tables_level_are_not_labelled_at_it():
    """Hand-built claims audit at 95%: claim (a)'s parts are 90% intervals (each pair tested at
    alpha, one-sided), claim (b)'s Holm-adjusted ones 97.5%. Neither the header nor the caption
    may say the intervals are 95% ones; tables whose rows are all at or above it keep '95% CI'."""
    frame = pd.DataFrame({"claim": ["a", "b"], "estimate": [0.5, 2.0], "ci_low": [0.4, 1.0],
                          "ci_high": [0.6, 3.0], "interval_level": [0.90, 0.975],
                          "pvalue": [0.01, 0.02], "confidence_level": [0.95, 0.95]})  # fmt: skip
    shown = display_table(frame)
    assert "95% CI" not in shown.headers and "CI" in shown.headers
    note = next(n for n in shown.notes if n.startswith("Intervals as"))
    assert "at 95% confidence" not in note and "each at the level of its row" in note
    tex = to_latex(frame, caption="Claims audit")
    assert "95\\% CI" not in tex and "at 95\\% confidence" not in tex
    adjusted = display_table(frame.assign(interval_level=[0.95, 0.975]))
    assert "95% CI" in adjusted.headers


def test_a_metrics_range_is_not_captioned_as_a_confidence_interval():
    """The metric registry's range_low/range_high (a metric's possible values, e.g. [0, 1]) was
    headed 'Range CI' and captioned 'Intervals as [lower, upper]'."""
    frame = pd.DataFrame({"name": ["avg_emotion_f1", "panas_mae"], "range_low": [0.0, 0.0],
                          "range_high": [1.0, 60.0], "higher_is_better": [True, False]})  # fmt: skip
    shown = display_table(frame)
    assert shown.headers == ["Name", "Range", "Higher is better"]
    assert shown.cells[1][1] == "[0.000, 60.000]"
    assert not any(n.startswith("Intervals") for n in shown.notes)
    # next to a real interval, only that one is one
    both = display_table(frame.assign(estimate=[0.5, 3.0], ci_low=[0.4, 2.0], ci_high=[0.6, 4.0],
                                       confidence_level=0.95))  # fmt: skip
    assert "Range" in both.headers and "95% CI" in both.headers


def test_predictor_id_and_display_name_get_different_headers():
    """The leaderboards hold both the predictor id and its display name: the LaTeX headed both
    'Predictor', so a reader could not tell the columns apart."""
    frame = pd.DataFrame({"metric": ["avg_emotion_f1"], "predictor": ["sim-model-01"],
                          "display_name": ["Simulated model 01"], "estimate": [0.5]})  # fmt: skip
    headers = display_table(frame).headers
    assert len(set(headers)) == len(headers)
    assert headers[1:3] == ["Predictor id", "Predictor"]
    assert display_table(frame.drop(columns="display_name")).headers[1] == "Predictor"
