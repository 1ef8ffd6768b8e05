"""The documentation site's sources: links resolve, generated pages cover the package.

The full Sphinx build (warnings as errors) runs in `make docs`, which `make test` calls; these
checks are the fast part, run with the test suite.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("attunestats_docs", DOCS / "_ext" /
                                                  "attunestats_docs.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_relative_links_of_readme_and_docs_resolve():
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    pages = [p for p in pages if "_build" not in p.parts and "_generated" not in p.parts]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith(("/", "mailto:")):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_readme_points_to_the_format_in_the_repository():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "../shared/spec" not in text
    assert "docs/release-format.md" in text


def test_paper_map_page_lists_every_artefact_and_output():
    from attunestats.artifacts.registry import REGISTRY

    page = _generator().paper_map_page()
    for artefact in REGISTRY:
        assert f"(`{artefact.id}`)" in page, artefact.id
        module, _, func = artefact.builder_name.partition(":")
        assert f"attunestats.artifacts.builders.{module}.{func}" in page
        for table in artefact.tables:
            assert f"`tables/{table}.csv`, `.json`, `.tex`" in page
        for figure in artefact.figures:
            assert f"`figures/{figure}.png`" in page
        assert f"/_generated/notebooks/{artefact.notebook}.ipynb" in page


def test_metric_and_convention_pages_cover_the_registry():
    from attunestats.metrics.conventions import CONVENTIONS
    from attunestats.metrics.registry import METRICS

    gen = _generator()
    metrics, conventions = gen.metrics_page(), gen.conventions_page()
    for name, spec in METRICS.items():
        assert f"`{name}`" in metrics, name
        if spec.level != "conversation" or not spec.source:
            assert spec.label in metrics, name
    for name in CONVENTIONS:
        assert f"`{name}`" in conventions
    constants = gen.constants_page()
    assert "B505" in constants and "PW15" in constants and "Mostly off-target" in constants


def test_every_how_to_is_in_the_site_index():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in sorted((DOCS / "howto").glob("*.md")):
        assert f"howto/{page.stem}" in index, page.name
