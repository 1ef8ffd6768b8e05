"""The command line: simulate -> validate -> summary -> score, and errors with exit codes."""

from __future__ import annotations

import json

import pandas as pd

from attunestats.cli import main


def test_simulate_validate_summary_score(tmp_path, capsys):
    out = tmp_path / "rel"
    args = ["simulate", str(out), "--seed", "1", "--n-conversations", "12", "--n-models", "2",
            "--n-human-raters", "1", "--n-topics", "5"]  # fmt: skip
    assert main(args) == 0
    assert (out / "truth.json").exists() and (out / "release.json").exists()
    assert main(["validate", str(out)]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["summary", str(out)]) == 0
    text = capsys.readouterr().out
    assert "SIMULATED DATA" in text and "conversations" in text
    table = tmp_path / "scores.csv"
    assert main(["score", str(out), "--out", str(table)]) == 0
    frame = pd.read_csv(table)
    assert {"predictor", "conversation_id", "metric", "value"} <= set(frame.columns)
    assert frame["simulated"].all()  # the CSV alone says it is simulated, and so does the command
    assert "SIMULATED release" in capsys.readouterr().out
    summary = json.loads((tmp_path / "scores_summary.json").read_text())
    assert summary  # the per-predictor summary JSON is written next to the table
    # same seed, same bytes: a second simulation into another directory is identical
    other = tmp_path / "rel2"
    assert main(["simulate", str(other), *args[2:]]) == 0
    for path in sorted(out.rglob("*.json")):
        assert path.read_bytes() == (other / path.relative_to(out)).read_bytes()
    # refusing to overwrite a non-empty directory is an error message, not a traceback
    assert main(args) == 2
    assert "is not empty" in capsys.readouterr().err


def test_validate_reports_problems_and_exits_nonzero(tmp_path, capsys):
    root = tmp_path / "bad"
    (root / "conversations").mkdir(parents=True)
    (root / "conversations" / "conversation_5.json").write_text("{not json")
    assert main(["validate", str(root)]) == 1
    captured = capsys.readouterr()
    assert "1 error" in captured.out  # the verdict on stdout
    assert "conversations/conversation_5.json: unreadable JSON" in captured.err  # the report


def test_power_and_study_commands_pass_their_arguments_through(capsys):
    import pytest

    with pytest.raises(SystemExit) as excinfo:
        main(["power", "--help"])
    assert excinfo.value.code == 0
    assert "analytic" in capsys.readouterr().out
    assert main(["study", "kinds"]) == 0
    assert "coverage" in capsys.readouterr().out


def test_a_closed_pipe_stops_the_command_quietly():
    # `attunestats list | head -1`: the reader goes away; no "Broken pipe" error line, no
    # traceback, the status of a command stopped by SIGPIPE (128 + 13)
    import subprocess
    import sys

    code = "import sys; from attunestats.cli import main; sys.exit(main(['list']))"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    proc.stdout.close()  # before the command writes anything
    err = proc.stderr.read().decode()
    assert proc.wait() == 141 and err == "", err


def test_a_missing_study_file_is_one_line_with_its_reason(tmp_path, capsys):
    missing = tmp_path / "missing.parquet"
    assert main(["study", "summary", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"No such file or directory: '{missing}'" in err and "Traceback" not in err


def test_power_with_a_broken_release_exits_1_with_the_load_report(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ["power", "curve", "--release", str(empty), "--metric", "composite_score",
            "--predictors", "a", "b", "--conversations", "10"]  # fmt: skip
    assert main(args) == 1  # as validate, summary, score and reproduce
    err = capsys.readouterr().err
    assert "no ground truth" in err and "the release has 2 error(s)" in err
