"""Property: every defect put into a valid release is refused or warned, naming file and field.

Hypothesis walks the JSON tree of any file of a small clean simulated release (2 conversations, a
model and a human rater; it loads with no error and no warning) and puts in one defect:

- ``drop``: delete a field the format requires (the fields marked **R** in
  ``docs/release-format.md``: turns and their turn numbers, a tag's emotion, a judgement's or a
  comparison's question id, a comparison's response labels);
- ``rename``: misspell a key anywhere (``key`` -> ``keyx``; question ids too: ``B4x`` is no
  question of the catalogue);
- ``retype``: a scalar becomes an object, an object or a list becomes a number;
- ``duplicate``: the key of any object appears twice in the text, or a turn is repeated;
- ``corrupt``: any number becomes -1000 (out of range for every numeric field of the format).

The only fields left out are those the format leaves free (documented as free-form): the intake
answers under ``participant_profile.responses``, the judge names of the ``*_by_model`` maps, and
``release.json``'s ``seed``, ``name``, ``label``, ``generator`` and ``description`` (informational).

Asserted for each mutant: ``load_release`` either raises ``ReleaseError`` or returns with warnings
(and emits one ``ReleaseWarning``), never any other exception; a finding names the mutated file and
the mutated field (its JSON path, or the path of the object or array holding it); the input files
are byte-identical afterwards; ``attunestats validate`` (through ``main()``) exits non-zero exactly
when the report has errors, and prints no traceback.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attunestats.cli import main
from attunestats.errors import ReleaseError
from attunestats.release.check import ReleaseWarning
from attunestats.release.load import load_release

OPS = ("drop", "rename", "retype", "duplicate", "corrupt")
# generic paths ("*" for any array index) of the required fields (docs/release-format.md, **R**)
REQUIRED = {
    "gt": {("turns",), ("turns", "*", "turnNumber"), ("turns", "*", "moodShiftTags", "*", "emotion"),
           ("turns", "*", "annotations", "binaryJudgements", "*", "questionId"),
           ("turns", "*", "annotations", "pairwiseComparisons", "*", "questionId"),
           ("turns", "*", "annotations", "pairwiseComparisons", "*", "responseA"),
           ("turns", "*", "annotations", "pairwiseComparisons", "*", "responseB")},
    "run": {("turns", "*", "turnNumber"), ("turns", "*", "em_emotion_tags", "*", "emotion")},
    "info": set(),
}  # fmt: skip
FREE_INFO = {"seed", "name", "label", "generator", "description"}


def _kind(rel: str) -> str:
    return "info" if rel == "release.json" else "gt" if rel.startswith("conversations/") else "run"


def _free(kind: str, path: tuple) -> bool:
    """Fields the format leaves free-form (any key, any value)."""
    if kind == "info":
        return len(path) >= 1 and path[0] in FREE_INFO
    if kind == "gt":
        return path[:2] == ("participant_profile", "responses") and len(path) > 2
    return any(isinstance(k, str) and k.endswith("_by_model") for k in path[:-1]) and (
        len(path) > 2 and str(path[2]).endswith("_by_model") and len(path) == 4
    )


def _generic(path: tuple) -> tuple:
    return tuple("*" if isinstance(k, int) else k for k in path)


def _nodes(doc: Any, prefix: tuple = ()) -> list[tuple[tuple, Any]]:
    out = []
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    for k, v in items:
        out.append(((*prefix, k), v))
        out.extend(_nodes(v, (*prefix, k)))
    return out


def _eligible(rel: str, doc: Any, op: str) -> list[tuple]:
    kind = _kind(rel)
    out = []
    for path, value in _nodes(doc):
        if _free(kind, path):
            continue
        key = path[-1]
        if op == "drop":
            ok = _generic(path) in REQUIRED[kind]
        elif op in ("rename", "duplicate"):
            ok = isinstance(key, str)
        elif op == "corrupt":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = True
        if ok:
            out.append(path)
    if op == "duplicate" and kind != "info":
        out += [("turns", i, "<turn>") for i in range(len(doc.get("turns") or []))]
    return out


def _jpath(path: tuple) -> str:
    s = "$"
    for k in path:
        if isinstance(k, int):
            s += f"[{k}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            s += f".{k}"
        else:
            s += f"[{json.dumps(k)}]"
    return s


def _mutate(doc: Any, op: str, path: tuple) -> tuple[str, list[tuple]]:
    """Apply the mutation; the new text and the paths a finding may name."""
    if op == "duplicate" and path[-1] == "<turn>":
        turns = doc["turns"]
        turns.append(json.loads(json.dumps(turns[path[1]])))
        return json.dumps(doc), [("turns", len(turns) - 1, "turnNumber"), ("turns",)]
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if op == "drop":
        del parent[key]
        return json.dumps(doc), [path]
    if op == "rename":
        items = list(parent.items())
        parent.clear()
        parent.update((f"{k}x" if k == key else k, v) for k, v in items)
        return json.dumps(doc), [(*path[:-1], f"{key}x"), path]
    if op == "retype":
        value = parent[key]
        parent[key] = 7 if isinstance(value, dict | list) else {"x": [1]}
        return json.dumps(doc), [path]
    if op == "corrupt":
        parent[key] = -1000
        return json.dumps(doc), [path]
    # duplicate a key in the text: the same key again, with another value, in the same object
    marker = "\u0000dup\u0000"
    items = list(parent.items())
    parent.clear()
    parent.update((marker if k == key else k, v) for k, v in items)
    text = json.dumps(doc)
    name = json.dumps(key)
    text = text.replace(json.dumps(marker), f"{name}: 0, {name}", 1)
    return text, [path]


def _related(found: str, wanted: list[tuple]) -> bool:
    """A finding's path names the field: the same path, one inside it, or one holding it."""
    for path in wanted:
        want = _jpath(path)
        if found == want or found.startswith((want + ".", want + "[")):
            return True
        if want.startswith((found + ".", found + "[")) and found != "$":
            return True
    return False


def _hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


class _Clean(tuple):
    def __repr__(self) -> str:  # hypothesis prints the arguments of a failing example
        return f"<clean release {self[0]}>"


@pytest.fixture(scope="module")
def clean(make_tmp_release) -> tuple[Path, dict[str, Any]]:
    root = make_tmp_release(
        rng=3, n_conversations=2, n_participants=2, n_topics=1, n_models=1, n_human_raters=1,
        n_turns_range=(2, 3), messiness=0.0,
    )  # fmt: skip
    files = {p.relative_to(root).as_posix(): p for p in root.rglob("*.json")}
    docs = {
        rel: json.loads(p.read_text()) for rel, p in sorted(files.items()) if rel != "truth.json"
    }
    return _Clean((root, docs))


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_every_mutant_is_refused_or_warned(clean, capsys, data):
    src, docs = clean
    rel = data.draw(st.sampled_from(sorted(docs)), label="file")
    op = data.draw(st.sampled_from(OPS), label="op")
    doc = json.loads(json.dumps(docs[rel]))
    candidates = _eligible(rel, doc, op)
    if not candidates:
        op, candidates = "retype", _eligible(rel, doc, "retype")
    path = data.draw(st.sampled_from(candidates), label="path")
    text, wanted = _mutate(doc, op, path)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "release"
        shutil.copytree(src, root)
        (root / rel).write_text(text)
        before = _hashes(root)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                report = load_release(root).report
                refused = False
            except ReleaseError as exc:
                report, refused = exc.report, True
        ours = [w for w in caught if issubclass(w.category, ReleaseWarning)]
        findings = [*report.errors, *report.warnings]
        where = f"{op} {rel} {_jpath(path)}"
        assert refused == bool(report.errors), where
        assert refused or (report.warnings and len(ours) == 1), f"silent: {where}"
        assert all(w.filename == __file__ for w in ours), "the warning points inside the package"
        assert any(f.file == rel and _related(f.path, wanted) for f in findings), (
            f"no finding names {where}:\n{report.text()}"
        )
        capsys.readouterr()
        code = main(["validate", str(root)])
        out = capsys.readouterr()
        assert (code != 0) == refused, where
        assert "Traceback" not in out.err and rel in out.err
        assert _hashes(root) == before, f"input changed: {where}"
