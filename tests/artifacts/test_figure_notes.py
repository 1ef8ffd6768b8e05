"""Every figure of the build says which estimand and method it shows, and at which interval
level, under the figure (as every table does in its caption): before, a PNG alone named neither.

The notes come from the columns of the table a figure draws (``figure_note``), so a figure and
its table cannot disagree; checked on the cheap figures of a small release, where the design
says what must appear (the participant jackknife, 95% t intervals, population of participants)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from attunestats.artifacts.builders.hierarchical import posterior_note
from attunestats.artifacts.context import BuildContext
from attunestats.constants import SIMULATED_LABEL
from attunestats.report import figures as F

# artefact id -> what its figure's note must say
EXPECTED = {
    "panas-trajectories": ("95% t intervals over conversations", "descriptive"),
    "leaderboard-pillars": ("Estimand: participants", "Method: jackknife", "95% confidence"),
    "composite-distributions": ("Descriptive", "no inference"),
    "paired-differences-composite": ("Estimand: participants", "participant jackknife",
                                     "Correction: maxt", "adjusted p < 0.05"),
    "rank-intervals-composite": ("population of participants", "Mogstad", "95% confidence"),
    "discrimination": ("population of participants", "noncentral-F", "95% confidence"),
}  # fmt: skip


def _note(fig) -> str:
    texts = [t.get_text() for t in fig.texts if t.get_text() != SIMULATED_LABEL]
    return " ".join(t.replace("\n", " ") for t in texts)


def test_each_figure_names_its_estimand_method_and_level(release_small_path):
    ctx = BuildContext(release=release_small_path, fast=True, rng=3)
    for artefact, needed in EXPECTED.items():
        fig = ctx.build(artefact).figure()
        note = _note(fig)
        for phrase in needed:
            assert phrase in note, (artefact, phrase, note)
        plt.close(fig)


def test_the_note_is_under_the_simulated_label_inside_the_saved_box():
    frame = pd.DataFrame({"predictor": ["a", "b"], "estimate": [0.1, 0.2],
                          "ci_low": [0.0, 0.1], "ci_high": [0.2, 0.3],
                          "method": "participant jackknife", "estimand": "participants",
                          "confidence_level": 0.95})  # fmt: skip
    fig = F.forest_plot(frame, xlabel="x", simulated=True)
    note = F.figure_note(frame)
    assert note == ("Method: participant jackknife. Estimand: participants. Intervals as "
                    "[lower, upper] at 95% confidence.")  # fmt: skip
    F.add_note(fig, note)
    renderer = fig.canvas.get_renderer()
    label = next(t for t in fig.texts if t.get_text() == SIMULATED_LABEL)
    written = next(t for t in fig.texts if t.get_text().startswith("Method:"))
    box = fig.get_tightbbox(renderer)
    inches = fig.dpi_scale_trans.inverted()
    lab, nt = (t.get_window_extent(renderer).transformed(inches) for t in (label, written))
    assert nt.y1 <= lab.y0 + 1e-6 and nt.y0 >= box.y0 - 1e-6  # below the label, inside the box
    with pytest.raises(ValueError, match="estimand and method"):
        F.add_note(fig, " ")
    plt.close(fig)


def test_posterior_notes_give_the_level_of_the_intervals_drawn():
    note = posterior_note(pd.DataFrame({"mean": [0.1], "ci_prob": [0.94]}))
    assert "94% equal-tailed posterior intervals" in note and "Estimand:" in note
