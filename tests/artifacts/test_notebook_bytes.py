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
