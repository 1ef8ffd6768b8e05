"""Every Python code block of the README runs, in order, in a fresh interpreter (as a reader
would paste them), and the README's fences are well formed.

A block preceded by ``<!-- readme-test: skip: REASON -->`` is not run; the reason is required and
shown. The blocks share one namespace (later blocks use ``at``, ``release``, ``scores`` of the
quick start), run in a subprocess (a registered custom metric must not leak into other tests)
with the non-interactive matplotlib backend, in a temporary working directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
_FENCE = re.compile(r"^(`{2,})([A-Za-z]*)\s*$")
_SKIP = re.compile(r"<!--\s*readme-test:\s*skip:\s*(.+?)\s*-->")


def readme_blocks(text: str) -> list[dict]:
    """Code blocks of a Markdown text: language, code, first line, skip reason."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        if len(m.group(1)) != 3:
            raise AssertionError(f"README line {i + 1}: malformed code fence {lines[i]!r}")
        start, lang = i, m.group(2)
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise AssertionError(f"README line {start + 1}: unclosed code fence")
        before = "\n".join(lines[max(0, start - 3) : start])
        skip = _SKIP.search(before)
        blocks.append({"lang": lang, "code": "\n".join(body), "line": start + 1,
                       "skip": skip.group(1) if skip else None})  # fmt: skip
        i += 1
    return blocks


def test_fences_are_well_formed_and_skips_give_a_reason():
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    python = [b for b in blocks if b["lang"] == "python"]
    assert len(python) >= 4
    skipped = [b for b in python if b["skip"]]
    assert len(skipped) <= 1, "keep README code runnable: skip only what CI cannot afford"
    for b in skipped:
        assert len(b["skip"]) > 20, f"README line {b['line']}: give the reason for skipping"
    assert "<!-- readme-test: skip -->" not in README.read_text(encoding="utf-8")


def test_every_python_block_of_the_readme_runs(tmp_path):
    blocks = [b for b in readme_blocks(README.read_text(encoding="utf-8"))
              if b["lang"] == "python" and not b["skip"]]  # fmt: skip
    parts = ["import sys"]
    for b in blocks:
        parts.append(f"print('=== README block at line {b['line']}', file=sys.stderr, flush=True)")
        parts.append(b["code"])
    script = tmp_path / "readme_blocks.py"
    script.write_text("\n".join(parts) + "\n", encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1200)  # fmt: skip
    if proc.returncode != 0:
        where = [ln for ln in proc.stderr.splitlines() if ln.startswith("=== README block")]
        pytest.fail(
            f"README code failed in {where[-1] if where else 'the first block'}:\n"
            + textwrap.indent(proc.stderr[-4000:], "    ")
        )
