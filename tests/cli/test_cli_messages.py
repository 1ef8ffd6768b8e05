"""What the command line says: warnings as one formatted line (never Python's ``file:line:
Category: message`` form), errors that name the right argument and the reason, checked before
any slow work, and nothing printed before an error."""

from __future__ import annotations

import re
import warnings

import pytest

from attunestats.cli import main

_PYTHON_FORM = re.compile(r"^\S+:\d+: \w+Warning: ", re.M)  # path:line: Category: message


# --- warnings ---------------------------------------------------------------------------------


def test_a_release_warning_is_one_formatted_line(tmp_path, capsys, release_small_path):
    # reproduce reads the release (which has load warnings) through load_release(warn=True)
    argv = ["reproduce", "--release", str(release_small_path), "--out", str(tmp_path / "rep"),
            "--fast", "--only", "topics", "--quiet"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # as a command line user sees them
        assert main(argv) == 0
    err = capsys.readouterr().err
    assert not _PYTHON_FORM.search(err) and "sys.exit(main())" not in err, err
    lines = [line for line in err.splitlines() if "warning" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("attunestats reproduce: warning: ")
    assert re.search(r"\d+ warnings", lines[0]) and str(release_small_path) in lines[0]
    assert "release.report" not in lines[0] and "attunestats validate" in lines[0]


def test_any_warning_of_a_command_is_formatted(capsys, monkeypatch):
    import attunestats.cli.power as power_cli
    from attunestats.errors import warn

    def noisy(args):
        warn("first line\n   and its continuation")
        warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(power_cli, "_cmd_analytic", noisy)
    argv = ["power", "analytic", "--effect", "0.03", "--sd", "0.15", "--conversations", "12"]
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        assert main(argv) == 0
    assert capsys.readouterr().err.splitlines() == [
        "attunestats power: warning: first line and its continuation",
        "attunestats power: warning: RuntimeWarning: invalid value encountered in divide",
    ]
    # the warning filters still apply, and Python's own display is back after the command
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    assert capsys.readouterr().err == ""
    assert warnings.showwarning.__module__ == "warnings"


# --- study summary ----------------------------------------------------------------------------


def test_study_summary_of_a_missing_file_names_it_with_the_reason(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a bare relative name, no "/" in it
    assert main(["study", "summary", "nosuch.parquet"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "attunestats study: error: No such file or directory: 'nosuch.parquet'\n"
    )


def test_study_summary_of_an_empty_directory_is_one_error_and_nothing_else(tmp_path, capsys,
                                                                           monkeypatch):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "emptydir").mkdir()
    assert main(["study", "summary", "emptydir"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no "?, ? replicates", no SIMULATED banner
    err = captured.err.strip()
    assert err.startswith("attunestats study: error: ") and "\n" not in err
    assert "'emptydir'" in err and "empty directory" in err


# --- errors that name the right thing ---------------------------------------------------------


def _usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as excinfo:
        main(argv)
    assert excinfo.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "OUT", "--seed", "-1"],
        ["study", "run", "coverage", "--replicates", "1", "--seed", "-1", "--out", "s.parquet"],
        ["reproduce", "--seed", "-5", "--fast", "--only", "topics"],
        [
            "power",
            "curve",
            "--effect",
            "0.03",
            "--sd",
            "0.15",
            "--conversations",
            "12",
            "--seed",
            "-2",
        ],  # fmt: skip
    ],
    ids=["simulate", "study run", "reproduce", "power curve"],
)
def test_a_negative_seed_names_the_option_before_any_work(tmp_path, capsys, monkeypatch, argv):
    import attunestats.artifacts.reproduce as reproduce_module
    import attunestats.release.load as load_module

    def fail(*args, **kwargs):
        raise AssertionError("work started before --seed was checked")

    monkeypatch.setattr(reproduce_module, "reproduce", fail)
    monkeypatch.setattr(load_module, "load_release", fail)
    monkeypatch.chdir(tmp_path)
    line = _usage_error(capsys, argv)
    assert "argument --seed: must be a non-negative integer" in line, line
    assert "rng" not in line
    assert list(tmp_path.iterdir()) == []


def test_list_of_an_unknown_id_does_not_mention_only(capsys):
    assert main(["list", "nonexistent"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("attunestats list: error: ID 'nonexistent' matches no artefact")
    assert "--only" not in err


@pytest.mark.parametrize("target", [".", "..", "{cwd}"])
def test_simulate_into_the_current_directory_is_refused_in_plain_words(tmp_path, capsys,
                                                                        monkeypatch, target):  # fmt: skip
    here = tmp_path / "here"
    here.mkdir()
    (here / "keep.txt").write_text("keep me")
    monkeypatch.chdir(here)
    out = target.format(cwd=here)
    assert main(["simulate", out, "--seed", "1", "--overwrite"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("attunestats simulate: error: OUT ") and "\n" not in err
    assert "current directory" in err and "PosixPath" not in err and "empty name" not in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["here", "keep.txt"]


def test_simulate_scenario_is_a_choice_listed_in_help(capsys):
    from attunestats.cli._common import SCENARIO_NAMES
    from attunestats.release.simulate import SCENARIOS

    assert sorted(SCENARIO_NAMES) == sorted(SCENARIOS)
    line = _usage_error(capsys, ["simulate", "OUT", "--seed", "1", "--scenario", "foo"])
    assert line.startswith("attunestats simulate: error: argument --scenario: invalid choice")
    for name in SCENARIOS:
        assert repr(name) in line
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = capsys.readouterr().out
    assert "--scenario {" + ",".join(SCENARIO_NAMES) + "}" in text
