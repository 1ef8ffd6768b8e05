"""``attunestats reproduce``: execute every notebook, collect tables and figures, write a manifest.

The build is atomic: notebooks run one after the other (each in a fresh kernel, through nbclient,
inside this process) and write into a temporary directory next to the output; only when every
notebook succeeded does the temporary directory replace the output. On failure the error names the
notebook and the cell, the previous outputs stay untouched, and the exit status is 1.

Each notebook receives its parameters in a cell injected after the cell tagged ``parameters``
(papermill's convention, without depending on papermill): ``release``, ``out_dir``, ``fast``,
``seed`` (a child seed derived from the root seed and the notebook's name, so one notebook rebuilt
alone gives the same numbers as in a full build), ``n_resamples``, ``mcmc_draws``, ``mcmc_tune``,
``mcmc_chains``, ``mcmc_seed`` (one seed for every MCMC fit of the build) and ``fit_cache`` (a
directory of finished fits inside the build, see ``hierarchical.fit(cache_dir=...)``: notebooks
fitting the same model with the same seed share the fit; deleted before the manifest).

``MANIFEST.json`` lists every artefact with its sha256, the release checksum and whether it is
simulated, the seeds, and the versions of the package, Python and the main dependencies.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from attunestats._rng import child_seed

#: Resampling and MCMC sizes per build mode.
# Full MCMC: 4 chains x (1,000 tuning + 2,000 draws). With 1,000 draws the paper-sized behaviour
# model failed the gate on one of ~900 parameters (r_hat 1.0105, bulk ESS >= 1,042 everywhere);
# 2,000 draws make R-hat's own noise small enough for the 1.01 threshold across that many.
FULL = {"n_resamples": 10_000, "mcmc_draws": 2_000, "mcmc_tune": 1_000, "mcmc_chains": 4}
FAST = {"n_resamples": 400, "mcmc_draws": 150, "mcmc_tune": 150, "mcmc_chains": 2}

_VERSIONED = (
    "attunestats", "numpy", "scipy", "pandas", "pymc", "pytensor", "arviz", "nutpie",
    "krippendorff", "matplotlib", "nbclient", "pyarrow",
)  # fmt: skip

OUTPUT_README = """# paper_figures

Built by `attunestats reproduce` (the README's main command). Do not edit by hand: the whole
directory is replaced atomically on every successful build.

- `tables/`: every table as CSV (full precision) and LaTeX (rounded for display)
- `figures/`: every figure as PNG and PDF
- `notebooks/`: the executed notebooks, with their outputs
- `MANIFEST.json`: sha256 of every artefact, the release checksum, seeds and versions

When the release is simulated (the default bundled release), every table and figure says so:
those numbers are not findings about real models.
"""


class NotebookFailed(RuntimeError):
    """A notebook cell raised; the message names the notebook and the cell."""

    def __init__(self, notebook: str, cell_number: int, source: str, error: str) -> None:
        self.notebook, self.cell_number, self.source, self.error = (
            notebook,
            cell_number,
            source,
            error,
        )
        first = source.strip().splitlines()[0] if source.strip() else "<empty cell>"
        super().__init__(
            f"notebook {notebook}, cell {cell_number} (counting every cell of the file from 1; "
            f"starts {first!r}) failed:\n{error}"
        )


@dataclass(frozen=True)
class BuildResult:
    """What a build produced: output directory, manifest content, wall time per notebook."""

    out: Path
    manifest: dict[str, Any]
    timings: dict[str, float]


def default_notebooks_dir() -> Path:
    """``notebooks/`` of the repository checkout (next to the package), or of the current directory."""
    here = Path(__file__).resolve().parents[2] / "notebooks"
    return here if here.is_dir() else Path.cwd() / "notebooks"


def list_notebooks(notebooks_dir: Path) -> list[Path]:
    """The numbered notebooks ``NN_*.ipynb``, in order."""
    return sorted(p for p in notebooks_dir.glob("[0-9][0-9]_*.ipynb") if p.is_file())


def _inject_parameters(nb: Any, params: dict[str, Any]) -> Any:
    import nbformat

    lines = ["# Parameters injected by `attunestats reproduce`"]
    lines += [f"{key} = {value!r}" for key, value in params.items()]
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["tags"] = ["injected-parameters"]
    position = 0
    for i, existing in enumerate(nb.cells):
        if "parameters" in existing.get("metadata", {}).get("tags", []):
            position = i + 1
            break
    nb.cells.insert(position, cell)
    nb.metadata["attunestats_injected_cell"] = position
    return nb


def execute_notebook(
    path: Path,
    params: dict[str, Any],
    *,
    save_to: Path | None = None,
    timeout: int = 1800,
    progress: bool = True,
) -> Any:
    """Execute one notebook with injected parameters; raise :class:`NotebookFailed` on error."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = _inject_parameters(nbformat.read(path, as_version=4), params)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    try:
        with client.setup_kernel():
            for k, index in enumerate(code_cells, start=1):
                if progress and sys.stderr.isatty():
                    print(f"\r    cell {k}/{len(code_cells)}", end="", file=sys.stderr, flush=True)
                try:
                    client.execute_cell(nb.cells[index], index)
                except CellExecutionError as exc:
                    # number cells as in the notebook file (from 1, without the injected cell)
                    injected = nb.metadata.get("attunestats_injected_cell", -1)
                    number = index if index > injected else index + 1
                    raise NotebookFailed(
                        path.name, number, nb.cells[index].source, str(exc)
                    ) from exc
    finally:
        if progress and sys.stderr.isatty():
            print("\r" + " " * 30 + "\r", end="", file=sys.stderr, flush=True)
        if save_to is not None:
            save_to.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, save_to)
    return nb


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def build(
    *,
    release: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] = "paper_figures",
    fast: bool = False,
    seed: int = 20260521,
    notebooks_dir: str | os.PathLike[str] | None = None,
    only: list[str] | None = None,
    progress: bool = True,
) -> BuildResult:
    """Execute every notebook into a temporary directory, then replace ``out`` atomically.

    Raises :class:`NotebookFailed` (previous outputs untouched) when a notebook fails.
    """
    from attunestats.release.load import load_release

    nb_dir = Path(notebooks_dir) if notebooks_dir is not None else default_notebooks_dir()
    notebooks = list_notebooks(nb_dir)
    if only:
        notebooks = [p for p in notebooks if any(p.stem.startswith(o) or p.name == o for o in only)]
    if not notebooks:
        raise FileNotFoundError(f"no numbered notebooks (NN_*.ipynb) in {nb_dir}")
    if release is None:
        from attunestats.release.bundled import bundled_release_path

        release_path = bundled_release_path()
    else:
        release_path = Path(release).resolve()
    loaded = load_release(release_path)  # validates before any notebook runs
    out_path = Path(out).resolve()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_path.name}-build-", dir=out_path.parent))
    sizes = FAST if fast else FULL
    timings: dict[str, float] = {}
    seeds: dict[str, int] = {}
    # MCMC fits: one seed for the whole build and a shared cache of finished fits, so notebooks
    # fitting the same model (05, 06, 08) sample it once; removed before the manifest is written
    mcmc_seed = child_seed(seed, "mcmc")
    fit_cache = tmp / ".fit-cache"
    try:
        for k, path in enumerate(notebooks, start=1):
            nb_seed = child_seed(seed, path.stem)
            seeds[path.stem] = nb_seed
            params = {
                "release": str(release_path), "out_dir": str(tmp), "fast": bool(fast),
                "seed": nb_seed, **sizes, "mcmc_seed": mcmc_seed, "fit_cache": str(fit_cache),
            }  # fmt: skip
            if progress:
                print(f"[{k}/{len(notebooks)}] {path.name} ...", file=sys.stderr, flush=True)
            start = time.perf_counter()
            execute_notebook(path, params, save_to=tmp / "notebooks" / path.name, progress=progress)
            timings[path.stem] = time.perf_counter() - start
            if progress:
                print(f"      done in {timings[path.stem]:.1f} s", file=sys.stderr, flush=True)
        shutil.rmtree(fit_cache, ignore_errors=True)
        (tmp / "README.md").write_text(OUTPUT_README, encoding="utf-8")
        artefacts = {
            str(p.relative_to(tmp)): _sha256(p)
            for p in sorted(tmp.rglob("*"))
            if p.is_file() and p.relative_to(tmp).parts[0] != "notebooks"
        }
        manifest = {
            "generator": "attunestats reproduce",
            "mode": "fast" if fast else "full",
            "sizes": sizes,
            "release": {
                "path": str(release_path),
                "checksum": loaded.checksum,
                "simulated": loaded.simulated,
                "name": loaded.info.get("name", ""),
            },
            "root_seed": seed,
            "seeds": {**seeds, "mcmc": mcmc_seed},
            "versions": _versions(),
            "timings_seconds": {k: round(v, 2) for k, v in timings.items()},
            "artefacts": artefacts,
        }
        (tmp / "MANIFEST.json").write_text(
            json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        _replace_dir(tmp, out_path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildResult(out=out_path, manifest=manifest, timings=timings)


def _replace_dir(new: Path, target: Path) -> None:
    """Swap ``new`` into ``target``: rename the old one aside, rename the new one in, delete old."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}-old-{os.getpid()}-{time.time_ns()}")
        os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        if old is not None:
            os.rename(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def reproduce(
    *,
    release: str | None = None,
    out: str = "paper_figures",
    fast: bool = False,
    seed: int = 20260521,
    notebooks_dir: str | None = None,
) -> int:
    """CLI wrapper of :func:`build`: prints a summary, returns an exit status."""
    try:
        result = build(release=release, out=out, fast=fast, seed=seed, notebooks_dir=notebooks_dir)
    except NotebookFailed as exc:
        print(f"reproduce FAILED: {exc}", file=sys.stderr)
        print(f"previous outputs in {out} were left untouched", file=sys.stderr)
        return 1
    total = sum(result.timings.values())
    n = len(result.manifest["artefacts"])
    sim = " (SIMULATED release)" if result.manifest["release"]["simulated"] else ""
    print(f"built {n} artefacts into {result.out} in {total:.1f} s{sim}")
    return 0
