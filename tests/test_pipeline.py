"""Tests of the atomic notebook build (`attunestats reproduce`) on tiny throwaway notebooks."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from attunestats.artifacts.reproduce import NotebookFailed, build

RELEASE = Path(__file__).parent / "data" / "release_small"

PARAMS = """release = None
out_dir = "."
fast = True
seed = 1
n_resamples = 10
mcmc_draws = 10
mcmc_tune = 10
mcmc_chains = 1
mcmc_seed = 1
fit_cache = None"""


def _write_notebook(folder: Path, name: str, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell(PARAMS)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in cells]
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


GOOD = [
    "import numpy as np, pandas as pd\nimport attunestats as at\nfrom attunestats.report import tables",
    "rel = at.load_release(release)\nrng = np.random.default_rng(seed)\n"
    "df = pd.DataFrame({'x': rng.normal(size=5), 'n': len(rel.conversations)})",
    "tables.write_table(df, 'nb_table', out_dir, simulated=rel.simulated, caption='t')",
    "import pathlib\npathlib.Path(fit_cache).mkdir(parents=True, exist_ok=True)\n"
    "(pathlib.Path(fit_cache) / 'fit-x.pkl').write_text(str(mcmc_seed))",
]


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("nbs")
    _write_notebook(folder, "01_good", GOOD)
    return folder


def test_build_writes_artefacts_manifest_and_is_reproducible(notebooks, tmp_path):
    out = tmp_path / "figs"
    first = build(release=RELEASE, out=out, fast=True, seed=7, notebooks_dir=notebooks, progress=False)
    csv = out / "tables" / "nb_table.csv"
    assert csv.exists() and (out / "tables" / "nb_table.tex").exists()
    assert (out / "notebooks" / "01_good.ipynb").exists()
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["artefacts"]["tables/nb_table.csv"] == first.manifest["artefacts"]["tables/nb_table.csv"]
    assert len(manifest["release"]["checksum"]) == 64
    assert manifest["versions"]["python"]
    assert set(manifest["seeds"]) == {"01_good", "mcmc"}
    # the build's fit cache is gone; nothing but artefacts and executed notebooks remains
    assert not list(out.rglob(".fit-cache")) and not any(k.startswith(".") for k in manifest["artefacts"])
    content = csv.read_text()
    # same release and seed -> identical CSV; another root seed -> a different one
    build(release=RELEASE, out=out, fast=True, seed=7, notebooks_dir=notebooks, progress=False)
    assert csv.read_text() == content
    build(release=RELEASE, out=out, fast=True, seed=8, notebooks_dir=notebooks, progress=False)
    assert csv.read_text() != content
    # no temporary build directories are left behind
    assert [p.name for p in tmp_path.iterdir()] == ["figs"]


def test_failure_names_notebook_and_cell_and_keeps_previous_outputs(notebooks, tmp_path):
    out = tmp_path / "figs"
    build(release=RELEASE, out=out, fast=True, seed=7, notebooks_dir=notebooks, progress=False)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    broken = tmp_path / "broken"
    broken.mkdir()
    _write_notebook(broken, "01_good", GOOD)
    _write_notebook(broken, "02_bad", ["x = 1", "raise RuntimeError('boom in cell two')"])
    with pytest.raises(NotebookFailed, match=r"(?s)notebook 02_bad.ipynb, cell 3 .*boom in cell two"):
        build(release=RELEASE, out=out, fast=True, seed=7, notebooks_dir=broken, progress=False)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "figs"]


def test_cli_reproduce_exit_status(notebooks, tmp_path, capsys):
    from attunestats.cli import main

    bad = tmp_path / "bad"
    bad.mkdir()
    _write_notebook(bad, "01_bad", ["1/0"])
    args = ["reproduce", "--release", str(RELEASE), "--out", str(tmp_path / "o")]
    assert main([*args, "--notebooks", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "01_bad.ipynb, cell 2" in err and "ZeroDivisionError" in err and "left untouched" in err
    assert not (tmp_path / "o").exists()
    assert main([*args, "--notebooks", str(notebooks), "--fast"]) == 0
    assert (tmp_path / "o" / "tables" / "nb_table.csv").exists()
