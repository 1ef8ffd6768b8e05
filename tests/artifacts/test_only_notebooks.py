"""``--only`` into an output built with ``--notebooks``: the executed notebook of a rebuilt
artefact showed the old numbers next to the new tables, and MANIFEST.json listed no notebook
while notebooks/ held them. Now a rebuilt artefact's notebook goes (unless executed again) and
the manifest lists the notebooks the output holds (with their stops)."""

from __future__ import annotations

import pandas as pd

from attunestats.artifacts.registry import Artefact
from attunestats.artifacts.reproduce import build

NOTEBOOK = """# %% tags=["parameters"]
release = None
fast = False
rng = 0
fit_cache = None
memo_dir = None

# %%
print("executed with root seed", rng)
"""
STOPS = (
    NOTEBOOK
    + """
# %%
from attunestats.errors import NotApplicable
raise NotApplicable("the release has 1 human rater(s)")
"""
)


def _table(name: str):
    def builder(ctx):
        frame = pd.DataFrame({"seed": [ctx.seed]})
        return ctx.built(ctx.table(name, frame, "the artefact's seed"))

    return builder


def test_only_drops_the_stale_notebook_and_the_manifest_lists_those_kept(tmp_path,
                                                                        release_small_path):  # fmt: skip
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "01_first.py").write_text(NOTEBOOK, encoding="utf-8")
    (nbs / "04_second.py").write_text(STOPS, encoding="utf-8")
    registry = [
        Artefact(id="first", title="t", paper_ref="p", builder=_table("01_first"),
                 notebook="01_first", inputs=("release",), tables=("01_first",)),
        Artefact(id="second", title="t", paper_ref="p", builder=_table("04_second"),
                 notebook="04_second", inputs=("release",), tables=("04_second",)),
    ]  # fmt: skip
    out = tmp_path / "out"
    first = build(release=release_small_path, out=out, fast=True, rng=7, registry=registry,
                  notebooks=True, notebooks_dir=nbs, progress=False)  # fmt: skip
    assert first.manifest["notebooks"] == ["01_first", "04_second"]
    assert list(first.manifest["notebooks_stopped"]) == ["04_second"]
    # rebuild the first artefact with another seed, without notebooks
    again = build(release=release_small_path, out=out, fast=True, rng=8, registry=registry,
                  only=["first"], progress=False)  # fmt: skip
    assert not (out / "notebooks" / "01_first.ipynb").exists()  # it showed root seed 7
    assert (out / "notebooks" / "04_second.ipynb").is_file()
    assert again.manifest["notebooks"] == ["04_second"]
    assert again.manifest["notebooks_stopped"] == first.manifest["notebooks_stopped"]
    assert not again.manifest["consistent"]  # seeds 7 and 8
    # and with notebooks: executed again with the new seed, listed again
    third = build(release=release_small_path, out=out, fast=True, rng=8, registry=registry,
                  only=["first"], notebooks=True, notebooks_dir=nbs, progress=False)  # fmt: skip
    assert third.manifest["notebooks"] == ["01_first", "04_second"]
    assert "root seed 8" in (out / "notebooks" / "01_first.ipynb").read_text()
