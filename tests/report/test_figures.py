"""Figures: saved as PNG and PDF, and the simulated label is inside what is saved."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from attunestats.constants import SIMULATED_LABEL
from attunestats.report import figures as F


def _forest_frame():
    return pd.DataFrame({"predictor": ["a", "b", "c"], "estimate": [0.1, 0.3, 0.2],
                         "ci_low": [0.0, 0.2, 0.1], "ci_high": [0.2, 0.4, 0.3], "kind": ["model"] * 3})  # fmt: skip


@pytest.mark.parametrize("simulated", [True, False])
def test_label_is_inside_the_saved_box(tmp_path, simulated):
    fig = F.forest_plot(_forest_frame(), xlabel="x (units)", simulated=simulated)
    renderer = fig.canvas.get_renderer()
    labels = [t for t in fig.texts if t.get_text() == SIMULATED_LABEL]
    assert len(labels) == (1 if simulated else 0)
    if simulated:
        box = fig.get_tightbbox(renderer)  # inches
        ext = labels[0].get_window_extent(renderer).transformed(fig.dpi_scale_trans.inverted())
        assert box.x0 - 1e-6 <= ext.x0 and ext.y0 >= box.y0 - 1e-6  # inside the saved area
        axes_bottom = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes) / fig.dpi
        assert ext.y1 <= axes_bottom + 1e-6  # below every axis and its labels
    paths = F.save_figure(fig, "forest", tmp_path)
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(
        p.stat().st_size > 0 for p in paths
    )


def test_heatmap_and_phase_lines_render(tmp_path):
    m = pd.DataFrame(np.eye(3), index=list("abc"), columns=list("abc"))
    F.save_figure(
        F.heatmap(m, low=m - 0.1, high=m + 0.1, colorbar_label="r", simulated=True), "h", tmp_path
    )
    rows = [
        (p, "m", ph, e, e - 0.1, e + 0.1)
        for p in ("x", "y")
        for ph, e in zip(("early", "mid", "late"), (0.5, 0.4, 0.3), strict=True)
    ]
    table = pd.DataFrame(
        rows, columns=["predictor", "metric", "phase", "estimate", "ci_low", "ci_high"]
    )
    F.save_figure(F.phase_lines(table, metrics=["m"], simulated=True), "p", tmp_path)
    assert len(list((tmp_path / "figures").iterdir())) == 4
    # one predictor in two modes (a release with verbose runs): one line each, labelled
    modes = pd.concat([table.assign(mode="default"), table.assign(mode="verbose")])
    fig = F.phase_lines(modes, metrics=["m"], simulated=True)
    labels = sorted(t.get_text() for t in fig.legends[0].get_texts())
    assert labels == ["x", "x [verbose]", "y", "y [verbose]"]
    plt.close(fig)


def test_baseline_figures_from_report_layer_save_with_the_label(tmp_path):
    """The human-baseline figures live in attunestats.report.baseline (moved out of baseline/)."""
    from attunestats.report import baseline as RB

    agreement = pd.DataFrame({"annotation": ["pairwise", "q2_emotion_clarity", "four_branch"],
                              "alpha": [0.4, np.nan, 0.7], "ci_low": [0.3, np.nan, 0.6],
                              "ci_high": [0.5, np.nan, 0.8]})  # fmt: skip
    differences = agreement.rename(columns={"alpha": "difference"})
    by_metric = pd.DataFrame({"metric": ["avg_pairwise_accuracy", "q1_looking_for_score"],
                              "pillar": ["preference", None], "difference": [0.1, -0.2],
                              "ci_low": [0.0, -0.3], "ci_high": [0.2, -0.1]})  # fmt: skip
    figs = {
        "agreement": RB.plot_rater_agreement(agreement, simulated=True),
        "participants": RB.plot_rater_vs_participant(differences, simulated=True),
        "humans_models": RB.plot_humans_vs_models(by_metric, simulated=True),
    }
    for name, fig in figs.items():
        assert SIMULATED_LABEL in [t.get_text() for t in fig.texts]
        ax = fig.axes[0]
        assert len(ax.get_yticks()) == 2  # one row each; the NaN row is left out
        F.save_figure(fig, name, tmp_path)
    assert len(list((tmp_path / "figures").iterdir())) == 6


def test_discrimination_intervals_are_drawn_where_the_table_has_them():
    """Hand-built: D = -0.5 with its noncentral-F interval truncated at [0, 0.5] (the estimate
    below the interval, as for hp_perspective_gap in the bundled release) and D = 2 in [1, 3]."""
    disc = pd.DataFrame({"metric": ["gap", "f1"], "discrimination": [-0.5, 2.0],
                         "ci_low": [0.0, 1.0], "ci_high": [0.5, 3.0]})  # fmt: skip
    fig = F.discrimination_plot(disc, simulated=True)
    ax = fig.axes[0]
    segments = [seg for coll in ax.collections for seg in coll.get_segments()]
    drawn = sorted((round(min(s[:, 0]), 9), round(max(s[:, 0]), 9), s[0, 1]) for s in segments)
    assert drawn == [(0.0, 0.5, 0.0), (1.0, 3.0, 1.0)]  # y 0: the lower D
    points = [line for line in ax.lines if line.get_marker() == "o"]
    assert sorted(np.concatenate([p.get_xdata() for p in points])) == [-0.5, 2.0]
    plt.close(fig)


@pytest.mark.parametrize("draw", ["forest_plot", "forest_panels", "hierarchical_forest"])
def test_an_estimate_outside_its_interval_is_drawn_not_refused(draw):
    """Hand-built: a posterior mean (0.05) beside its equal-tailed interval [0.06, 0.4] (a skewed
    variance share), or a bootstrap-t interval that excludes its estimate. matplotlib's xerr
    refuses negative offsets, so the figure (and the whole build) failed; now each interval is
    drawn where the table has it and the point where it is."""
    from attunestats.report import hierarchical as H

    frame = pd.DataFrame({"predictor": ["a", "b"], "metric": "m", "kind": "model",
                          "estimate": [0.05, 0.5], "ci_low": [0.06, 0.4],
                          "ci_high": [0.4, 0.6]})  # fmt: skip
    if draw == "forest_plot":
        fig = F.forest_plot(frame, xlabel="share", simulated=True, sort=False)
    elif draw == "forest_panels":
        fig = F.forest_panels(frame, metrics=["m"], simulated=True, group=None)
    else:
        fig = H.forest(frame, estimate="estimate", low="ci_low", high="ci_high",
                       label="predictor", xlabel="share", simulated=True, sort=False)  # fmt: skip
    ax = fig.axes[0]
    segments = [seg for coll in ax.collections for seg in coll.get_segments()]
    spans = sorted(
        (round(float(s[:, 0].min()), 9), round(float(s[:, 0].max()), 9)) for s in segments
    )
    assert spans == [(0.06, 0.4), (0.4, 0.6)]
    points = np.concatenate([line.get_xdata() for line in ax.lines if line.get_marker() == "o"])
    assert sorted(points) == [0.05, 0.5]
    plt.close(fig)


def test_a_figure_that_fails_while_saving_leaves_the_previous_files_whole(tmp_path, monkeypatch):
    """The PDF fails half-way (disk full, a renderer error): the PNG and PDF of the previous
    save stay as they were, and no half-written file is left in the folder."""
    F.save_figure(F.forest_plot(_forest_frame(), xlabel="x", simulated=True), "f", tmp_path)
    folder = tmp_path / "figures"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    original = plt.Figure.savefig

    def failing(self, fname, *args, **kwargs):
        if kwargs.get("format") == "pdf" or str(fname).endswith(".pdf"):
            with open(fname, "wb") as fh:
                fh.write(b"%PDF-1.4 half")
            raise OSError("No space left on device")
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(plt.Figure, "savefig", failing)
    fig = F.forest_plot(_forest_frame().assign(estimate=[0.15, 0.3, 0.2]), xlabel="x",
                        simulated=True)  # fmt: skip
    with pytest.raises(OSError, match="No space left"):
        F.save_figure(fig, "f", tmp_path)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_a_missing_interval_is_said_not_dropped_silently():
    """Hand-built: b's interval is NaN (e.g. too few participants for a df). Its point is drawn
    and 'no interval' is written beside it; in a heatmap the cell says so instead of [nan, nan]."""
    frame = _forest_frame()
    frame.loc[1, ["ci_low", "ci_high"]] = np.nan
    fig = F.forest_plot(frame, xlabel="x", simulated=False, sort=False)
    notes = [t for t in fig.axes[0].texts if t.get_text() == "no interval"]
    assert len(notes) == 1 and tuple(notes[0].xy) == (0.3, 1.0)
    plt.close(fig)
    m = pd.DataFrame([[1.0, 0.4], [0.4, 1.0]], index=list("ab"), columns=list("ab"))
    low = pd.DataFrame([[np.nan, np.nan], [np.nan, np.nan]], index=list("ab"), columns=list("ab"))
    fig = F.heatmap(m, low=low, high=low, colorbar_label="r", simulated=False)
    cells = [t.get_text() for t in fig.axes[0].texts]
    assert "nan" not in " ".join(cells) and cells.count("0.40\n(no interval)") == 2
    plt.close(fig)


def test_model_check_figures_say_what_their_bars_are():
    """Hand-built PPC (an 80% replicated range) and LOO tables: the PPC's grey bars are the
    replicated range at the table's ci_prob and the LOO bars one SE of the elpd difference (not
    an interval at some level): each x label says which."""
    from attunestats.report import hierarchical as H

    ppc = pd.DataFrame({"outcome": "y", "statistic": ["mean", "sd"], "group": "all",
                        "observed": [0.5, 0.2], "replicated_mean": [0.5, 0.25],
                        "replicated_sd": [0.05, 0.02], "ci_low": [0.44, 0.22],
                        "ci_high": [0.56, 0.28], "ci_prob": 0.8, "diagnostics": "passed"})  # fmt: skip
    fig = H.ppc_plot(ppc, simulated=False)
    assert "80% replicated range" in fig.axes[0].get_xlabel()
    plt.close(fig)
    loo = pd.DataFrame({"outcome": "y", "structure": ["default", "legacy"],
                        "elpd_diff": [0.0, -3.0], "dse": [0.0, 1.5], "diagnostics": "passed"})  # fmt: skip
    fig = H.loo_plot(loo, simulated=False)
    assert "1 SE" in fig.axes[0].get_xlabel()
    plt.close(fig)


def test_panel_labels_do_not_run_into_each_other():
    """The leaderboard's four pillar panels at page width: 'evaluation quality (0-1)' ran into
    'holistic comprehension (0-1)' (one unreadable line)."""
    PILLARS = ["composite_score", "emotion_tracking", "evaluation_quality",
               "holistic_comprehension"]  # fmt: skip
    PILLAR_LABELS = [
        "composite (0-100)",
        "emotion tracking (0-1)",
        "evaluation quality (0-1)",
        "holistic comprehension (0-1)",
    ]  # as the leaderboard builder labels them

    rows = [(p, m, 0.5 + k / 10, 0.4 + k / 10, 0.6 + k / 10) for k, p in enumerate("abc")
            for m in PILLARS]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["predictor", "metric", "estimate", "ci_low", "ci_high"])
    fig = F.forest_panels(frame, metrics=PILLARS, xlabels=PILLAR_LABELS, simulated=False,
                          group=None)  # fmt: skip
    renderer = fig.canvas.get_renderer()
    boxes = [ax.xaxis.label.get_window_extent(renderer) for ax in fig.axes]
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert left.x1 < right.x0, (left, right)
    assert [ax.xaxis.label.get_text().replace("\n", " ") for ax in fig.axes] == PILLAR_LABELS
    plt.close(fig)


def test_distributions_keep_each_prediction_mode_apart():
    """Hand-built conversation composites of m1 in two modes (default around 10, verbose around
    90) and m2: before, m1's box pooled both modes (one box from 10 to 90)."""
    frame = pd.DataFrame({"display_name": ["m1"] * 4 + ["m2"] * 2,
                          "mode": ["default", "default", "verbose", "verbose", "default", "default"],
                          "value": [10.0, 12.0, 88.0, 90.0, 50.0, 52.0]})  # fmt: skip
    fig = F.distributions(frame, by="display_name", xlabel="composite", simulated=False)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["m1", "m2", "m1 [verbose]"]
    means = next(line for line in ax.lines if line.get_label() == "mean").get_xdata()
    assert list(means) == [11.0, 51.0, 89.0]
    plt.close(fig)
