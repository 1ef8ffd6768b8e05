"""What the README says ``attunestats power`` subcommands accept, they accept.

Every clause of the README (split at ``;`` and at the end of sentences, code spans kept whole)
that names power subcommands (```attunestats power analytic|curve ...```, or backticked
subcommand names in a paragraph about ``attunestats power``) and options (```--figure DIR```)
claims that each named subcommand takes each option; so does every ``attunestats power ...``
line of a code block. ``--help`` of the subcommand must list the option.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from attunestats.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
ACTIONS = ("analytic", "curve", "release", "sample-size", "independence")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")


@cache
def _options(action: str) -> frozenset[str]:
    """The options ``attunestats power ACTION --help`` lists."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["power", action, "--help"])
    listed = out.getvalue().split("options:", 1)[1]
    return frozenset(re.findall(r"^\s+(?:-\w[^,]*, )?(--[\w-]+)", listed, flags=re.M))


def _actions_of(span: str) -> list[str]:
    """Subcommands a code span ```attunestats power ...``` names ([] when it names none)."""
    m = re.match(r"`?(?:attunestats )?power(?: (\S+))?", span)
    if not m:
        return []
    first = m.group(1) or ""
    if first.startswith("-"):
        return ["sample-size"]  # `attunestats power --target-power ...` means sample-size
    names = first.split("|")
    return names if all(n in ACTIONS for n in names) else []


def readme_claims(text: str) -> list[tuple[str, list[str], list[str]]]:
    """(where, subcommands, options) of every README clause or code line about power."""
    claims = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.splitlines():
            if line.startswith("attunestats power"):
                command = line.split("#", 1)[0]
                claims.append((line, _actions_of(command), _OPTION.findall(command)))
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for paragraph in re.split(r"\n\s*\n", prose):
        paragraph = " ".join(paragraph.split())
        if "`attunestats power" not in paragraph:
            continue
        spans: list[str] = []

        def hold(m: re.Match[str], spans: list[str] = spans) -> str:
            spans.append(m.group(0))
            return f"\0{len(spans) - 1}\0"

        held = re.sub(r"`[^`]*`", hold, paragraph)
        for clause in re.split(r";|\.\s", held):
            codes = [spans[int(i)] for i in re.findall(r"\0(\d+)\0", clause)]
            bare = [c.strip("`") for c in codes if c.strip("`") in ACTIONS]
            named = bare or [a for c in codes for a in _actions_of(c)]
            options = [o for c in codes if c.startswith("`--") or _actions_of(c)
                       for o in _OPTION.findall(c)]  # fmt: skip
            if named and options:
                shown = re.sub(r"\0(\d+)\0", lambda m, s=spans: s[int(m.group(1))], clause)
                claims.append((shown.strip(), named, options))
    return claims


def test_the_checker_catches_the_old_claim():
    old = ("`attunestats power analytic|curve|release ...` on the command line (`--figure DIR` "
           "draws power against conversations and participants).")  # fmt: skip
    ((where, named, options),) = readme_claims(old)
    assert named == ["analytic", "curve", "release"] and options == ["--figure"]
    assert "--figure" not in _options("analytic") and "--figure" in _options("curve")


def test_every_power_option_the_readme_names_is_accepted():
    claims = readme_claims(README.read_text(encoding="utf-8"))
    assert any("--figure" in options for _, _, options in claims)  # the checker sees them
    wrong = [
        f"{action} {option}: {where}"
        for where, named, options in claims
        for action in named
        for option in options
        if option not in _options(action)
    ]
    assert not wrong, "\n".join(wrong)
