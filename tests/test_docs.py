"""The README documents every registered metric and starts with the two commands."""

from __future__ import annotations

import re
from pathlib import Path

from attunestats.metrics.registry import METRICS

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_lists_every_builtin_metric():
    text = README.read_text(encoding="utf-8")
    missing = [name for name in METRICS if f"`{name}`" not in text]
    assert not missing, f"README lacks metrics {missing}"


def test_readme_opens_with_the_two_commands_and_ci_runs_the_test_one():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    commands = [ln.split("#")[0].strip() for ln in block.strip().splitlines()]
    assert commands == ["make reproduce", "make test"]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "make test" in ci


def test_lazy_exports_resolve():
    import attunestats

    for name in attunestats.__all__:
        assert getattr(attunestats, name) is not None
