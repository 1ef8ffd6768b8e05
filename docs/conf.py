"""Sphinx configuration of the attunestats documentation (``make docs``; CI: warnings are errors).

Pages are MyST Markdown. The paper map, the metric table, the constants of the release format,
the scoring conventions and the command-line help are generated from the package itself at
build time (``docs/_ext/attunestats_docs.py``), so they cannot drift from the code. Notebooks are
rendered by myst-nb from executed copies (``make docs`` runs them on the bundled simulated
release in fast mode; ``nb_execution_mode = "off"`` here: the docs never re-execute them).
Intersphinx reads inventories shipped in ``docs/_inventories`` (no network at build time).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import attunestats  # noqa: E402

project = "attunestats"
author = "attunestats developers"
copyright = "2026, attunestats developers"  # noqa: A001
release = attunestats.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "attunestats_docs",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "_inventories", "_ext", "_generated/*.md", "**.ipynb_checkpoints",
                    "jupyter_execute"]
templates_path: list[str] = []

# -- MyST / myst-nb ---------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # notebooks are executed by `make docs` (fast mode) before the build
nb_merge_streams = True

# -- autodoc / numpydoc -----------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"
autodoc_mock_imports: list[str] = []
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False

# -- intersphinx (offline: inventories shipped in docs/_inventories) ---------------------------
_INV = HERE / "_inventories"
intersphinx_mapping = {
    name: (url, str(_INV / f"{name}.inv"))
    for name, url in {
        "python": "https://docs.python.org/3/",
        "numpy": "https://numpy.org/doc/stable/",
        "scipy": "https://docs.scipy.org/doc/scipy/",
        "pandas": "https://pandas.pydata.org/docs/",
        "pymc": "https://www.pymc.io/projects/docs/en/stable/",
        "arviz": "https://python.arviz.org/en/stable/",
    }.items()
}
intersphinx_disabled_reftypes = ["*"]  # only explicit `name:` references go to other projects
intersphinx_timeout = 1

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"attunestats {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path: list[str] = []
html_last_updated_fmt = None
html_copy_source = False

nitpicky = False
suppress_warnings = [
    # the notebooks are rendered from executed copies: their Markdown headings may skip levels
    "myst.header",
]

os.environ.setdefault("MPLBACKEND", "Agg")
