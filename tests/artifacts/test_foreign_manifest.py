"""A folder is replaced by ``reproduce`` only when it is an earlier build: a MANIFEST.json of
another tool (a web bundle's, a data package's) does not make it one. Before, any file named
MANIFEST.json did, and the folder and the user's files in it were replaced as a whole."""

from __future__ import annotations

import pytest

from attunestats._io import OutputError
from attunestats.artifacts.reproduce import build


@pytest.mark.parametrize("manifest", ['{"name": "my-web-app", "files": ["main.js"]}',
                                      "not json at all", "[1, 2]"])  # fmt: skip
def test_a_folder_with_another_tools_manifest_is_refused_and_left_whole(tmp_path, manifest,
                                                                        release_small_path):  # fmt: skip
    out = tmp_path / "site"
    out.mkdir()
    (out / "MANIFEST.json").write_text(manifest, encoding="utf-8")
    (out / "thesis.txt").write_text("three years of work\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(OutputError, match="not an attunestats build"):
        build(release=release_small_path, out=out, fast=True, only=["metric-registry"],
              progress=False)  # fmt: skip
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_an_earlier_build_is_still_replaced(tmp_path, release_small_path):
    out = tmp_path / "figs"
    build(release=release_small_path, out=out, fast=True, only=["metric-registry"],
          progress=False)  # fmt: skip
    result = build(release=release_small_path, out=out, fast=True, only=["metric-registry"],
                   progress=False)  # fmt: skip
    assert result.manifest["generator"] == "attunestats reproduce"
