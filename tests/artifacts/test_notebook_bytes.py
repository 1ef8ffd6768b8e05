"""Executed notebooks are outputs of ``reproduce --notebooks``: with the same parameters they
are saved byte for byte the same (nbclient stamped every cell with wall-clock times, and
jupytext / nbformat gave the cells random ids)."""

from __future__ import annotations

from attunestats.artifacts.notebooks import execute_notebook

NOTEBOOK = """# %% tags=["parameters"]
rng = 0

# %%
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.plot([1, 2], [rng, 1])
print("root seed", rng)
"""


def test_a_notebook_executed_twice_is_saved_with_the_same_bytes(tmp_path):
    source = tmp_path / "01_tiny.py"
    source.write_text(NOTEBOOK, encoding="utf-8")
    saved = [tmp_path / f"run{k}.ipynb" for k in (1, 2)]
    for path in saved:
        execute_notebook(source, {"rng": 3}, save_to=path, progress=False)
    first, second = (p.read_bytes() for p in saved)
    assert b"root seed 3" in first  # it ran, with the injected parameter
    assert first == second


def test_reproduce_saves_the_same_notebook_bytes_on_every_build(tmp_path, release_small_path):
    """Two builds with the same parameters: the executed notebook is the same file (the build's
    staging folder, named with a pid and a random token, was in its injected parameters)."""
    import pandas as pd

    from attunestats.artifacts.registry import Artefact
    from attunestats.artifacts.reproduce import build

    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "01_tiny.py").write_text(NOTEBOOK + "print(fit_cache, memo_dir)\n", encoding="utf-8")

    def builder(ctx):
        return ctx.built(ctx.table("01_tiny", pd.DataFrame({"seed": [ctx.seed]}), "seed"))

    tiny = Artefact(id="tiny", title="t", paper_ref="p", builder=builder, notebook="01_tiny",
                    inputs=("release",), tables=("01_tiny",))  # fmt: skip
    out = tmp_path / "out"
    runs = []
    for _ in range(2):
        build(release=release_small_path, out=out, fast=True, rng=3, registry=[tiny],
              notebooks=True, notebooks_dir=nbs, progress=False)  # fmt: skip
        runs.append((out / "notebooks" / "01_tiny.ipynb").read_bytes())
    assert b".fit-cache" in runs[0] and b".tmp-" not in runs[0]
    assert runs[0] == runs[1]
