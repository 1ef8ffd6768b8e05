"""Write the intersphinx inventories of ``docs/_inventories`` without network access.

The docs link names such as :class:`pandas.DataFrame` or :func:`scipy.stats.bootstrap` to the
projects' own documentation (intersphinx). CI and the development machines cannot download
``objects.inv`` files, so this script writes small inventories for the objects the package's
docstrings and the docs pages mention: every dotted name of numpy, scipy, pandas, PyMC and ArviZ
found in ``attunestats/`` and ``docs/`` that imports, with the documented URL pattern of each
project (checked by hand on one object of each). Rerun after adding references:

    python docs/_ext/make_inventories.py
"""

from __future__ import annotations

import importlib
import inspect
import re
import zlib
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
OUT = DOCS / "_inventories"

#: project -> (module prefix, URL of an object relative to the project's base URL)
PROJECTS = {
    "numpy": ("numpy", "reference/generated/{name}.html#{name}"),
    "scipy": ("scipy", "reference/generated/{name}.html#{name}"),
    "pandas": ("pandas", "reference/api/{name}.html#{name}"),
    "pymc": ("pymc", "api/generated/{name}.html#{name}"),
    "arviz": ("arviz", "api/generated/{name}.html#{name}"),
}
#: the standard library: a few names the docstrings use
PYTHON = {
    "int": ("py:class", "library/functions.html#int"),
    "float": ("py:class", "library/functions.html#float"),
    "str": ("py:class", "library/stdtypes.html#str"),
    "bool": ("py:class", "library/functions.html#bool"),
    "dict": ("py:class", "library/stdtypes.html#dict"),
    "list": ("py:class", "library/stdtypes.html#list"),
    "tuple": ("py:class", "library/stdtypes.html#tuple"),
    "pathlib.Path": ("py:class", "library/pathlib.html#pathlib.Path"),
    "os.PathLike": ("py:class", "library/os.html#os.PathLike"),
    "collections.abc.Sequence": ("py:class", "library/collections.abc.html#collections.abc.Sequence"),
    "collections.abc.Mapping": ("py:class", "library/collections.abc.html#collections.abc.Mapping"),
}

_NAME = re.compile(r"\b((?:numpy|scipy|pandas|pymc|arviz)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def _resolve(name: str) -> object | None:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _role(obj: object) -> str:
    if inspect.ismodule(obj):
        return "py:module"
    if inspect.isclass(obj):
        return "py:class"
    if callable(obj):
        return "py:function"
    return "py:data"


def _write(project: str, version: str, entries: list[tuple[str, str, str]]) -> Path:
    head = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode()
    body = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in sorted(entries))
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{project}.inv"
    path.write_bytes(head + zlib.compress(body.encode("utf-8"), 9))
    return path


def main() -> None:
    names: set[str] = set()
    for folder in (ROOT / "attunestats", DOCS):
        for path in folder.rglob("*"):
            if path.suffix in (".py", ".md") and "_build" not in path.parts:
                names.update(_NAME.findall(path.read_text(encoding="utf-8", errors="ignore")))
    # the names intersphinx most often needs, whether or not a docstring spells them out
    names.update({"numpy.ndarray", "numpy.random.Generator", "numpy.random.SeedSequence",
                  "pandas.DataFrame", "pandas.Series", "scipy.stats.bootstrap",
                  "scipy.stats.ttest_1samp", "pymc.Model", "pymc.sample", "arviz.summary"})  # fmt: skip
    for project, (prefix, pattern) in PROJECTS.items():
        entries = []
        for name in sorted(n for n in names if n.split(".")[0] == prefix):
            obj = _resolve(name)
            if obj is None:
                continue
            if inspect.ismodule(obj):
                continue  # module pages follow no common pattern
            entries.append((name, _role(obj), pattern.format(name=name)))
        module = importlib.import_module(prefix)
        path = _write(project, str(getattr(module, "__version__", "")), entries)
        print(f"{path}: {len(entries)} objects")
    py = [(name, role, uri) for name, (role, uri) in PYTHON.items()]
    print(f"{_write('python', '3', py)}: {len(py)} objects")


if __name__ == "__main__":
    main()
