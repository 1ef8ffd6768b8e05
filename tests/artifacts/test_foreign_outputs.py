"""Directory outputs replace only what this package wrote (a reviewer lost a file to
``attunestats simulate DIR --overwrite`` and to ``reproduce --out DIR``: both replaced the whole
folder). A non-empty folder that is not an earlier output of the same kind is refused before any
work, with one line naming it, and left byte for byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attunestats._io import OutputError
from attunestats.artifacts.reproduce import OUTPUT_README, build
from attunestats.cli import main
from attunestats.release.simulate import simulate_release


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _precious(root: Path) -> dict[str, bytes]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "thesis.txt").write_text("three years of work\n", encoding="utf-8")
    return _files(root)


def test_simulate_overwrite_refuses_a_folder_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "precious"
    before = _precious(out)
    with pytest.raises(OutputError, match="not a release written by the simulator"):
        simulate_release(out, rng=1, n_conversations=2, overwrite=True)
    assert _files(out) == before
    code = main(["simulate", str(out), "--seed", "1", "--n-conversations", "2", "--overwrite"])
    assert code == 2 and _files(out) == before
    err = capsys.readouterr().err
    assert "precious" in err and "Traceback" not in err


def test_simulate_overwrite_refuses_a_real_release(tmp_path):
    # a release that is not simulated (here a simulated one relabelled, without truth.json)
    out = tmp_path / "release"
    simulate_release(out, rng=1, n_conversations=2)
    info = json.loads((out / "release.json").read_text(encoding="utf-8"))
    info["simulated"] = False
    (out / "release.json").write_text(json.dumps(info), encoding="utf-8")
    (out / "truth.json").unlink()
    before = _files(out)
    with pytest.raises(OutputError, match="not a release written by the simulator"):
        simulate_release(out, rng=2, n_conversations=2, overwrite=True)
    assert _files(out) == before


def test_simulate_overwrite_replaces_its_own_release_and_fills_an_empty_folder(tmp_path):
    out = tmp_path / "sim"
    simulate_release(out, rng=1, n_conversations=2)
    first = _files(out)
    simulate_release(out, rng=2, n_conversations=2, overwrite=True)
    assert _files(out) != first and (out / "truth.json").is_file()
    empty = tmp_path / "empty"
    empty.mkdir()
    simulate_release(empty, rng=1, n_conversations=2)
    assert _files(empty) == first


def test_reproduce_refuses_a_folder_that_is_not_a_build(tmp_path, release_small_path):
    for only in (None, ["metric-registry"]):
        out = tmp_path / f"precious-{only is None}"
        before = _precious(out)
        with pytest.raises(OutputError, match="not an attunestats build"):
            build(release=release_small_path, out=out, fast=True, only=only, progress=False)
        assert _files(out) == before


def test_reproduce_replaces_a_build_and_the_fresh_checkouts_folder(tmp_path, release_small_path):
    out = tmp_path / "paper_figures"
    out.mkdir()
    (out / "README.md").write_text(OUTPUT_README, encoding="utf-8")  # as in a fresh clone
    build(release=release_small_path, out=out, fast=True, only=["metric-registry"],
          progress=False)  # fmt: skip
    assert (out / "MANIFEST.json").is_file()
    # an earlier build is replaced
    build(release=release_small_path, out=out, fast=True, only=["metric-registry"],
          progress=False)  # fmt: skip
    # a README.md that is not the build's own is a user's file
    other = tmp_path / "other"
    other.mkdir()
    (other / "README.md").write_text("my notes\n", encoding="utf-8")
    with pytest.raises(OutputError, match="not an attunestats build"):
        build(release=release_small_path, out=other, fast=True, only=["metric-registry"],
              progress=False)  # fmt: skip
    assert (other / "README.md").read_text(encoding="utf-8") == "my notes\n"


def test_a_small_simulated_release_describes_what_it_holds(tmp_path):
    # participants and topics are drawn per conversation: 2 conversations cannot hold 5
    # participants and 50 topics; release.json says how many it has, and a warning says why
    import warnings

    from attunestats import load_release

    out = tmp_path / "small"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simulate_release(out, rng=1, n_conversations=2, n_participants=5)
    msgs = [str(w.message) for w in caught if "configured participants" in str(w.message)]
    assert len(msgs) == 1
    release = load_release(out, warn=False)
    n_part = release.conversations["participant_id"].nunique()
    n_top = release.conversations["topic"].nunique()
    assert n_part < 5
    desc = json.loads((out / "release.json").read_text(encoding="utf-8"))["description"]
    assert f"{n_part} participants, {n_top} topics" in desc
    assert f"{n_part} of the 5 configured participants" in msgs[0]
