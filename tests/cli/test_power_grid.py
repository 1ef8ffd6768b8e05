"""``attunestats power analytic|curve|release``: ``--conversations`` is the total number of
conversations, so grid cells with fewer conversations than participants cannot be computed; they
are skipped with a note on stderr that names them, and a grid with no cell left is an error (exit
2, nothing computed or written), not an empty table with status 0."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from attunestats.cli import main

_ANALYTIC = ["power", "analytic", "--effect", "0.03", "--sd", "0.15", "--icc", "0.1"]


def test_analytic_names_the_skipped_cells_and_why(tmp_path, capsys):
    out = tmp_path / "grid.csv"
    argv = [*_ANALYTIC, "--conversations", "6", "12", "--participants", "11", "20",
            "--out-csv", str(out)]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    frame = pd.read_csv(out)
    assert list(zip(frame["n_conversations"], frame["n_participants"], strict=True)) == [(12, 11)]
    notes = [line for line in captured.err.splitlines() if line]
    assert len(notes) == 1, captured.err
    note = notes[0]
    assert note.startswith("attunestats power: note: skipped 3 of 4 cells")
    # every skipped cell is named, with the reason
    assert "--conversations 6 with --participants 11, 20" in note
    assert "--conversations 12 with --participants 20" in note
    assert "fewer conversations than participants" in note and "total number" in note
    assert not re.search(r"--conversations 12 with --participants [\d, ]*\b11\b", note)


def test_analytic_with_no_cell_left_is_an_error_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "e.csv"
    argv = [*_ANALYTIC, "--conversations", "5", "--participants", "11", "--out-csv", str(out)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no header, no "Empty DataFrame", no "wrote ..."
    err = captured.err.strip()
    assert err.startswith("attunestats power: error: ") and "\n" not in err
    assert "--conversations 5 with --participants 11" in err and "total number" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("action", ["curve", "release"])
def test_the_simulations_refuse_an_empty_grid_before_any_work(capsys, monkeypatch, action):
    import attunestats.design.power as power

    def fail(*args, **kwargs):
        raise AssertionError("the simulation ran on an empty grid")

    monkeypatch.setattr(power, "power_curve", fail)
    monkeypatch.setattr(power, "release_power", fail)
    model = (["--effect", "0.03", "--sd", "0.15"] if action == "curve"
             else ["--metric", "avg_pairwise_accuracy"])  # fmt: skip
    argv = ["power", action, *model, "--conversations", "5", "--participants", "11",
            "--simulations", "2"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "attunestats power: error: no cell of the grid is left" in err


def test_help_says_conversations_is_the_total(capsys):
    for action in ("analytic", "curve", "release"):
        with pytest.raises(SystemExit) as excinfo:
            main(["power", action, "--help"])
        assert excinfo.value.code == 0
        options = capsys.readouterr().out.split("options:", 1)[1]  # not the usage line
        text = " ".join(options.split())
        help_line = re.search(r"--conversations N \[N \.\.\.\] (.*?)--participants", text)
        assert help_line and "total number" in help_line.group(1), (action, text)
