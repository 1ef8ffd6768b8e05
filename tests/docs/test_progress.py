"""Progress bars (attunestats/_progress.py): tqdm on a terminal, silent elsewhere and when quiet."""

from __future__ import annotations

import io

from attunestats._progress import progress_bar, should_show
from attunestats.design.power import ContrastModel, power_curve
from attunestats.design.studies.runner import _Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_on_a_terminal_and_silent_elsewhere(monkeypatch):
    monkeypatch.delenv("ATTUNESTATS_QUIET", raising=False)
    tty, log = _Terminal(), io.StringIO()
    assert should_show(None, tty) and not should_show(None, log)
    bar = progress_bar(4, desc="resamples", stream=tty)
    for _ in range(4):
        bar.update()
    bar.close()
    text = tty.getvalue()
    assert "resamples" in text and "4/4" in text and "100%" in text
    quiet = progress_bar(4, desc="resamples", stream=log)
    quiet.update()
    quiet.close()
    assert log.getvalue() == "" and quiet.n == 1
    # --quiet / ATTUNESTATS_QUIET wins over a terminal, and enabled=False too
    monkeypatch.setenv("ATTUNESTATS_QUIET", "1")
    assert not should_show(None, tty) and not should_show(True, tty)
    monkeypatch.delenv("ATTUNESTATS_QUIET")
    assert not should_show(False, tty)


def test_study_runner_uses_the_bar_on_a_terminal(monkeypatch):
    monkeypatch.delenv("ATTUNESTATS_QUIET", raising=False)
    tty = _Terminal()
    bar = _Progress("coverage", total=10, resumed=4, enabled=True, stream=tty)
    for _ in range(6):
        bar.update()
    bar.close()
    assert "coverage" in tty.getvalue() and "10/10" in tty.getvalue()
    # logs keep the periodic plain lines
    log = io.StringIO()
    plain = _Progress("coverage", total=10, resumed=0, enabled=True, stream=log)
    for _ in range(10):
        plain.update()
    assert "coverage: 10/10 replicates" in log.getvalue() and "\r" not in log.getvalue()


def test_a_simulation_study_is_silent_when_not_watched(capsys, tmp_path):
    model = ContrastModel(design="paired", effect=0.2, sd=1.0, icc=0.1)
    power_curve(model, n_conversations=[40], n_participants=[8], n_simulations=20, rng=1)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
