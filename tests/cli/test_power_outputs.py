"""``attunestats power`` writes its files safely (attunestats._io, as ``score`` does): every
destination checked before any work, temporary siblings renamed into place, 0666 less the umask,
the PNG and PDF of a figure replaced together or not at all."""

from __future__ import annotations

import os
import stat

import matplotlib.figure
import pandas as pd
import pytest

from attunestats.cli.power import power_command

_ARGS = ["--target-power", "0.8", "--effect", "0.03", "--sd", "0.15", "--icc", "0.1",
         "--per-participant", "18", "--participants", "11"]  # fmt: skip


def _no_work(monkeypatch):
    """Make the solver fail loudly: a destination error must come before any work."""
    import attunestats.design.power as power

    def fail(*args, **kwargs):
        raise AssertionError("the solver ran before the destination was checked")

    monkeypatch.setattr(power, "sample_size", fail)
    monkeypatch.setattr(power, "power_curve", fail)


def _a_file(path):
    path.write_text("x", encoding="utf-8")
    return path


def test_outputs_are_written_whole_with_the_usual_modes_and_identical_on_rerun(tmp_path, capsys):
    out, fig = tmp_path / "n.csv", tmp_path / "fig"
    assert power_command([*_ARGS, "--out-csv", str(out), "--figure", str(fig)]) == 0
    printed = capsys.readouterr().out
    png, pdf = fig / "figures" / "sample_size.png", fig / "figures" / "sample_size.pdf"
    for path in (out, png, pdf):
        assert f"wrote {path}" in printed
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and pdf.read_bytes()[:5] == b"%PDF-"
    frame = pd.read_csv(out)
    assert frame.query("solve_for == 'participants'")["n_participants"].tolist() == [32]
    umask = os.umask(0)
    os.umask(umask)
    for path in (out, png, pdf):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path
    assert sorted(p.name for p in (fig / "figures").iterdir()) == ["sample_size.pdf",
                                                                   "sample_size.png"]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig", "n.csv"]  # no temporaries left
    before = [p.read_bytes() for p in (out, png, pdf)]
    assert power_command([*_ARGS, "--out-csv", str(out), "--figure", str(fig)]) == 0
    assert [p.read_bytes() for p in (out, png, pdf)] == before


@pytest.mark.parametrize(
    ("option", "make", "message"),
    [
        ("--out-csv", lambda t: t / "missing" / "n.csv", "does not exist"),
        ("--out-csv", lambda t: t, "is a directory"),
        ("--figure", lambda t: _a_file(t / "f"), "is a file"),
    ],
)
def test_a_bad_destination_is_one_line_before_any_work(tmp_path, capsys, monkeypatch, option,
                                                       make, message):  # fmt: skip
    _no_work(monkeypatch)
    target = make(tmp_path)
    assert power_command([*_ARGS, option, str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("attunestats power: error: ") and option in err and message in err
    assert "\n" not in err and "Traceback" not in err
    # the curve command too (simulations are not started)
    curve = ["curve", "--effect", "0.03", "--sd", "0.15", "--conversations", "40",
             "--simulations", "5"]  # fmt: skip
    assert power_command([*curve, option, str(target)]) == 2
    assert option in capsys.readouterr().err


def test_a_failed_figure_leaves_the_previous_files(tmp_path, capsys, monkeypatch):
    fig = tmp_path / "fig"
    assert power_command([*_ARGS, "--figure", str(fig)]) == 0
    folder = fig / "figures"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    real = matplotlib.figure.Figure.savefig

    def broken(self, fname, *args, **kwargs):
        if kwargs.get("format") == "pdf":
            raise OSError(28, "No space left on device")
        return real(self, fname, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)
    assert power_command([*_ARGS, "--effect", "0.05", "--figure", str(fig)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    # neither file replaced (the new PNG was written but not renamed), nothing left behind
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
