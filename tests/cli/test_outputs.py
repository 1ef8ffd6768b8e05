"""Every output the CLI writes, written safely (issue 19, item 3).

- modes: files 0666 and directories 0777 less the umask (0644/0755 under umask 022, 0600/0700
  under 077) for ``score``, ``simulate`` and ``reproduce --only topics`` (one cheap artefact);
- a file where a directory is expected, and the reverse, is refused with one line naming the
  option, exit status 2, nothing written and nothing left behind;
- an unwritable destination gives one line, an exit status other than 0 and no traceback: a
  directory of mode 0500 (skipped as root: root ignores permissions), a path under an existing
  file and a path in ``/proc`` (both fail for root too);
- kill-safety: ``reproduce`` started in a subprocess and SIGKILLed at several moments (0.5, 1 and
  2 s after the start, as soon as its hidden build directory appears, and as soon as the build
  directory holds its MANIFEST.json, i.e. just before the exchange) leaves at ``--out`` either
  the old complete output or the new one (every file of MANIFEST.json present with its hash,
  nothing else); the next complete run removes the leftovers of the killed ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from attunestats.cli import main

SIM_ARGS = ["--seed", "1", "--n-conversations", "3", "--n-models", "1", "--n-human-raters", "1",
            "--n-topics", "2"]  # fmt: skip
IS_ROOT = os.geteuid() == 0


@pytest.fixture
def umask(request) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _modes(root: Path) -> dict[str, str]:
    """Mode of every directory and file under root (root included), as octal strings."""
    out = {".": oct(root.stat().st_mode & 0o777)}
    for p in sorted(root.rglob("*")):
        out[p.relative_to(root).as_posix()] = oct(p.stat().st_mode & 0o777)
    return out


def _expected(root: Path, mask: int) -> dict[str, str]:
    return {
        rel: oct((0o777 if (root / rel).is_dir() else 0o666) & ~mask)
        for rel in _modes(root)
    }  # fmt: skip


@pytest.mark.parametrize("umask", [0o022, 0o077], indirect=True, ids=["022", "077"])
def test_modes_follow_the_umask(tmp_path, capsys, release_small_path, umask):
    # score: the table and its companions, in an existing directory
    scores = tmp_path / "scores"
    scores.mkdir()
    assert main(["score", str(release_small_path), "--out", str(scores / "s.csv"), "--quiet"]) == 0
    files = sorted(p.name for p in scores.iterdir())
    assert (
        "s.csv" in files and "s_summary.json" in files and not any(f.startswith(".") for f in files)
    )
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in scores.iterdir()} == {
        name: oct(0o666 & ~umask) for name in files
    }
    # simulate: a release directory (its root too), created under a new parent
    sim = tmp_path / "new" / "sim"
    assert main(["simulate", str(sim), *SIM_ARGS]) == 0
    assert _modes(sim) == _expected(sim, umask)
    assert oct((tmp_path / "new").stat().st_mode & 0o777) == oct(0o777 & ~umask)
    # reproduce: one cheap artefact, then again over the existing output
    out = tmp_path / "rep"
    args = ["reproduce", "--release", str(release_small_path), "--out", str(out), "--fast",
            "--only", "topics"]  # fmt: skip
    assert main(args) == 0
    assert _modes(out) == _expected(out, umask)
    os.chmod(out / "README.md", 0o600)  # an older output's odd mode does not survive a rebuild
    assert main(args) == 0
    assert _modes(out) == _expected(out, umask)
    assert (out / "tables" / "01_topics.csv").exists()
    capsys.readouterr()


def _one_line_error(capsys, *words: str) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith(("  ", "[", "warnings"))]
    last = lines[-1]
    assert all(w in last for w in words), err
    return last


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_file_versus_directory_is_refused(tmp_path, capsys, release_small_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me")
    a_dir = tmp_path / "a_dir"
    a_dir.mkdir()
    before = _tree(tmp_path)
    rel = str(release_small_path)
    assert main(["score", rel, "--out", str(a_dir), "--quiet"]) == 2
    _one_line_error(capsys, "--out", "is a directory")
    assert main(["reproduce", "--release", rel, "--out", str(a_file), "--fast",
                 "--only", "topics"]) == 2  # fmt: skip
    _one_line_error(capsys, "--out", "is a file")
    assert main(["simulate", str(a_file), *SIM_ARGS]) == 2
    _one_line_error(capsys, "OUT", "is a file")
    assert _tree(tmp_path) == before  # nothing written, no temporary file left
    assert a_file.read_text() == "keep me"


def _unwritable_commands(dest: Path, release: Path) -> list[tuple[list[str], str]]:
    return [
        (["score", str(release), "--out", str(dest / "s.csv"), "--quiet"], "--out"),
        (["reproduce", "--release", str(release), "--out", str(dest / "rep"), "--fast",
          "--only", "topics"], "--out"),
        (["simulate", str(dest / "sim"), *SIM_ARGS], "OUT"),
    ]  # fmt: skip


@pytest.mark.parametrize("where", ["under a file", "in /proc"])
def test_unwritable_destination_is_one_line(tmp_path, capsys, release_small_path, where):
    if where == "under a file":
        dest = tmp_path / "a_file"
        dest.write_text("")
    else:
        dest = Path("/proc")
    for argv, option in _unwritable_commands(dest, release_small_path):
        assert main(argv) != 0, argv
        _one_line_error(capsys, option, str(dest))
    assert _tree(tmp_path) == (["a_file"] if where == "under a file" else [])


@pytest.mark.skipif(IS_ROOT, reason="root ignores permissions")
def test_read_only_directory_is_one_line(tmp_path, capsys, release_small_path):
    dest = tmp_path / "ro"
    dest.mkdir()
    os.chmod(dest, 0o500)
    try:
        for argv, option in _unwritable_commands(dest, release_small_path):
            assert main(argv) != 0, argv
            _one_line_error(capsys, option, "ermission denied")
        assert list(dest.iterdir()) == []
    finally:
        os.chmod(dest, 0o700)


# --- kill-safety of reproduce -------------------------------------------------------------------

CLI = [sys.executable, "-c", "import sys; from attunestats.cli import main; sys.exit(main())"]


def _reproduce(release: Path, out: Path, seed: int) -> subprocess.Popen:
    args = ["reproduce", "--release", str(release), "--out", str(out), "--fast", "--seed",
            str(seed), "--only", "topics"]  # fmt: skip
    return subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _complete_seed(out: Path) -> int:
    """The root seed of the complete output at ``out`` (asserts that it is complete)."""
    manifest = json.loads((out / "MANIFEST.json").read_text())
    listed = manifest["artefacts"]
    for rel, sha in listed.items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == sha, rel
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == set(listed) | {"MANIFEST.json", manifest["build_log"]}
    seeds = {entry["root_seed"] for entry in manifest["outputs"].values()}
    assert len(seeds) == 1
    return seeds.pop()


def _building(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.*"))


def _kill_when(proc: subprocess.Popen, ready, timeout: float = 60.0) -> bool:
    """SIGKILL ``proc`` as soon as ``ready()``; False if it ended first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if ready():
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    proc.kill()
    raise AssertionError("timed out")


def test_sigkill_at_any_moment_leaves_the_old_or_the_new_output(tmp_path, release_small_path):
    out = tmp_path / "rep"
    first = _reproduce(release_small_path, out, seed=1)
    assert first.wait() == 0, first.stderr.read().decode()
    assert _complete_seed(out) == 1
    seen_leftovers = []
    moments = [0.5, 1.0, 2.0, "build directory", "manifest written"]
    outcomes, before = {}, {}
    for moment in moments:
        before[moment] = _complete_seed(out)  # 1, or 2 once an earlier run got through
        old = set(_building(out))  # leftovers of earlier kills are not this run's build

        def new_builds(old=old):
            return [p for p in _building(out) if p not in old]

        proc = _reproduce(release_small_path, out, seed=2)
        if isinstance(moment, float):
            ready_at = time.monotonic() + moment
            killed = _kill_when(proc, lambda t=ready_at: time.monotonic() >= t)
        elif moment == "build directory":
            killed = _kill_when(proc, lambda: bool(new_builds()))
        else:
            killed = _kill_when(
                proc, lambda: any((p / "MANIFEST.json").exists() for p in new_builds())
            )
        if moment in ("build directory", "manifest written"):
            assert killed, f"the build ended before the kill ({moment})"
        outcomes[moment] = _complete_seed(out) if killed else None  # old (1) or new (2)
        assert outcomes[moment] in (1, 2, None)
        seen_leftovers += _building(out)
        if not killed:
            assert proc.returncode == 0
    # a kill inside the build leaves the output as it was (the exchange had not happened)
    assert outcomes["build directory"] == before["build directory"]
    assert seen_leftovers, "no kill left a build directory behind: the test did not test it"
    # the next complete run cleans every leftover and puts the new output in place
    last = _reproduce(release_small_path, out, seed=2)
    assert last.wait() == 0, last.stderr.read().decode()
    assert _building(out) == []
    assert _complete_seed(out) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
