"""The notebooks: finding them, reading them (jupytext percent ``.py``, paired with ``.ipynb``)
and executing them with injected parameters (``attunestats reproduce --notebooks`` and CI).

A notebook is ``notebooks/NN_name.py`` in jupytext's percent format, the source edited by hand;
``NN_name.ipynb`` is its paired copy (``make notebooks`` syncs them). Execution reads the ``.py``
(so what runs is what is reviewed), in a fresh kernel through nbclient, inside this process.
Parameters are injected in a cell after the cell tagged ``parameters`` (papermill's convention,
without depending on papermill).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


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


def default_notebooks_dir() -> Path:
    """``notebooks/`` of the repository checkout (next to the package), or of the current directory."""
    here = Path(__file__).resolve().parents[2] / "notebooks"
    return here if here.is_dir() else Path.cwd() / "notebooks"


def list_notebooks(notebooks_dir: str | Path) -> list[Path]:
    """The numbered notebooks ``NN_*.py`` (or ``NN_*.ipynb`` without a ``.py``), in order."""
    folder = Path(notebooks_dir)
    found = {p.stem: p for p in folder.glob("[0-9][0-9]_*.ipynb") if p.is_file()}
    found.update({p.stem: p for p in folder.glob("[0-9][0-9]_*.py") if p.is_file()})
    return [found[stem] for stem in sorted(found)]


def find_notebook(notebooks_dir: str | Path, stem: str) -> Path:
    """The notebook ``stem`` (``.py`` preferred over ``.ipynb``) in ``notebooks_dir``."""
    for suffix in (".py", ".ipynb"):
        path = Path(notebooks_dir) / f"{stem}{suffix}"
        if path.is_file():
            return path
    raise FileNotFoundError(f"no notebook {stem}.py or {stem}.ipynb in {notebooks_dir}")


def read_notebook(path: str | Path) -> Any:
    """The notebook at ``path`` as an nbformat v4 notebook (``.py`` read with jupytext)."""
    path = Path(path)
    if path.suffix == ".py":
        import jupytext

        return jupytext.read(path, fmt="py:percent")
    import nbformat

    return nbformat.read(path, as_version=4)


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
    _stable_ids(nb)
    return nb


def _stable_ids(nb: Any) -> None:
    """Cell ids from the cells' positions (jupytext and nbformat draw random ones), so that a
    notebook executed twice with the same parameters is saved byte for byte the same."""
    for i, cell in enumerate(nb.cells):
        if "id" in cell or nb.nbformat_minor >= 5:
            cell["id"] = f"cell-{i}"


def execute_notebook(
    path: str | Path,
    params: dict[str, Any],
    *,
    save_to: Path | None = None,
    timeout: int = 1800,
    progress: bool = True,
) -> Any:
    """Execute one notebook with injected parameters; raise :class:`NotebookFailed` on error.

    A cell that raises :class:`~attunestats.errors.NotApplicable` (it shows an output the
    release cannot support, e.g. the human baseline of a release without human raters) stops
    the notebook without failing it: a markdown cell after it says why, and the notebook's
    metadata ``attunestats_not_applicable`` holds the reason.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    nb = _inject_parameters(read_notebook(path), params)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,  # wall-clock stamps per cell: never the same bytes twice
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
                    if exc.ename == "NotApplicable":
                        reason = str(exc.evalue)
                        nb.metadata["attunestats_not_applicable"] = reason
                        nb.cells.insert(index + 1, nbformat.v4.new_markdown_cell(
                            f"**Stopped here: not applicable to this release.** {reason}"))  # fmt: skip
                        _stable_ids(nb)
                        break
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
