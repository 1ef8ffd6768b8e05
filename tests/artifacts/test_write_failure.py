"""A failure while an artefact's outputs are written (a full disk, a figure that cannot be
saved) names the artefact and its builder, as a failing builder does, and leaves the previous
output untouched; before, the bare OSError came out, naming neither, and ``reproduce`` (which
reports ArtefactFailed with 'previous outputs left untouched') did not catch it."""

from __future__ import annotations

import pytest

from attunestats.artifacts import context
from attunestats.artifacts.registry import get_artefact
from attunestats.artifacts.reproduce import ArtefactFailed, build


def test_an_output_that_cannot_be_written_names_its_artefact(tmp_path, monkeypatch,
                                                             release_small_path):  # fmt: skip
    out = tmp_path / "out"
    build(release=release_small_path, out=out, fast=True, only=["panas-trajectories"],
          progress=False)  # fmt: skip
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def full_disk(self, out_dir):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(context.FigureOutput, "write", full_disk)
    with pytest.raises(ArtefactFailed, match=r"(?s)artefact panas-trajectories .*No space left"):
        build(release=release_small_path, out=out, fast=True, progress=False,
              registry=[get_artefact("panas-trajectories")])  # fmt: skip
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left
