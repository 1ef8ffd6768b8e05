"""Property: a mutated release either loads into well-typed tables or raises ReleaseError.

Hypothesis takes the hand-written fixture (tests/data/release_small/), mutates one or two of its
files at random (delete keys or array elements, change types, insert garbage strings, NaN and
huge numbers, numbers out of range, duplicate turns, truncate the file) and loads the copy. The
loader must never raise anything but :class:`ReleaseError` (whose problems all name a file), the
tables of a successful load must have the dtypes of ``TABLE_SCHEMAS`` and the predictions must
refer only to ground-truth conversations and turns, and the input files must be left unchanged.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attunestats.errors import Problem, ReleaseError
from attunestats.release.load import load_release, release_from_documents
from attunestats.release.model import TABLE_SCHEMAS

# tests/data/release_small/ (the release_small_path fixture of conftest.py): a module constant
# here, because the strategies below need its list of files when the module is imported.
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "release_small"
FILES = sorted(p.relative_to(FIXTURE).as_posix() for p in FIXTURE.rglob("*.json"))
DOCS = {rel: json.loads((FIXTURE / rel).read_text()) for rel in FILES}

SPECIAL_STRINGS = ["", " ", "None", "null", "yes", "Y", "A", "response_2", "mild", "NaN",
                   "1e400", "7.5", "alternate1", "\ud800", "Proud", "conversation_17.json"]  # fmt: skip
SPECIAL_NUMBERS = [-1, 0, 8, 71, 2.5, -3.7, 1e9, -1e9, 10**20, 10**400, float("nan"), float("inf")]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(SPECIAL_STRINGS)
    | st.sampled_from(SPECIAL_NUMBERS)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6) | st.sampled_from(["turnNumber", "emotion", "0"]), children, max_size=3),
    max_leaves=5,
)  # fmt: skip

OPS = ("delete", "replace", "garbage", "out_of_range", "insert_key", "duplicate_turn", "truncate")
mutation = st.tuples(st.sampled_from(OPS), st.integers(min_value=0, max_value=10**6), json_values)


def node_paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Paths (tuples of keys and indices) to every node below the root."""
    out = []
    if isinstance(doc, dict):
        items = doc.items()
    elif isinstance(doc, list):
        items = enumerate(doc)
    else:
        return out
    for k, v in items:
        out.append((*prefix, k))
        out.extend(node_paths(v, (*prefix, k)))
    return out


def parent_of(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate(doc: Any, ops: list[tuple[str, int, Any]]) -> tuple[Any, int | None]:
    """Apply the mutations; returns the document and, for "truncate", where to cut the text."""
    cut = None
    for op, pick, shared in ops:
        value = copy.deepcopy(shared)  # hypothesis may reuse one object in several mutations
        paths = node_paths(doc)
        if op == "truncate":
            cut = pick
            continue
        if op == "duplicate_turn":
            turns = doc.get("turns") if isinstance(doc, dict) else None
            if isinstance(turns, list) and turns:
                turns.append(copy.deepcopy(turns[pick % len(turns)]))
            continue
        if not paths:
            doc = value
            continue
        path = paths[pick % len(paths)]
        parent = parent_of(doc, path)
        key = path[-1]
        if op == "delete":
            del parent[key]
        elif op == "replace":
            parent[key] = value
        elif op == "garbage":
            parent[key] = SPECIAL_STRINGS[pick % len(SPECIAL_STRINGS)]
        elif op == "out_of_range":
            parent[key] = SPECIAL_NUMBERS[pick % len(SPECIAL_NUMBERS)]
        elif op == "insert_key":
            target = parent[key] if isinstance(parent[key], dict) else parent
            if isinstance(target, dict):
                target[f"extra_{pick % 7}"] = value
            else:
                target.insert(pick % (len(target) + 1), value)
    return doc, cut


def check_release(release) -> None:
    assert set(release.tables) == set(TABLE_SCHEMAS)
    for name, schema in TABLE_SCHEMAS.items():
        table = release.tables[name]
        assert list(table.columns) == list(schema), name
        assert {c: str(t) for c, t in table.dtypes.items()} == dict(schema), name
    gt_convs = set(release.conversations["conversation_id"])
    gt_turns = set(zip(release.turns["conversation_id"], release.turns["turn"]))
    assert set(release.runs["conversation_id"]) <= gt_convs
    for name in ("pred_turns", "pred_emotion_tags", "pred_binary", "pred_pairwise"):
        t = release.tables[name]
        assert set(zip(t["conversation_id"], t["turn"])) <= gt_turns, name
    assert release.emotion_tags["intensity"].dropna().between(1, 7).all()
    assert release.pred_emotion_tags["emotion"].isin(
        ["proud", "alert", "inspired", "determined", "attentive", "active", "excited", "strong",
         "enthusiastic", "interested", "irritable", "ashamed", "nervous", "jittery", "distressed",
         "afraid", "upset", "guilty", "scared", "hostile"]
    ).all()  # fmt: skip
    for col in ("pre_pa", "pre_na", "post_pa", "post_na"):
        assert release.conversations[col].dropna().between(10, 70).all()


def check_error(exc: ReleaseError) -> None:
    assert exc.problems
    for p in exc.problems:
        assert isinstance(p, Problem) and p.file and isinstance(p.message, str)
    assert str(exc)  # the message can be built


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    targets=st.lists(st.sampled_from(FILES), min_size=1, max_size=2, unique=True),
    ops=st.lists(mutation, min_size=1, max_size=3),
)
def test_mutated_release_loads_or_raises_release_error(targets, ops):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "release"
        shutil.copytree(FIXTURE, root)
        for rel in targets:
            doc, cut = mutate(copy.deepcopy(DOCS[rel]), ops)
            text = json.dumps(doc)
            if cut is not None:
                text = text[: cut % (len(text) + 1)]
            (root / rel).write_text(text)
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        try:
            release = load_release(root)
        except ReleaseError as exc:
            check_error(exc)
        else:
            check_release(release)
        after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        assert after == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    target=st.sampled_from([f for f in FILES if f != "release.json" and f != "truth.json"]),
    ops=st.lists(mutation.filter(lambda m: m[0] != "truncate"), min_size=1, max_size=3),
)
def test_mutated_documents_in_memory(target, ops):
    conversations = {k: copy.deepcopy(v) for k, v in DOCS.items() if k.startswith("conversations/")}
    runs: dict[str, dict[str, Any]] = {}
    for k, v in DOCS.items():
        if k.startswith("runs/"):
            runs.setdefault(k.split("/")[1], {})[k] = copy.deepcopy(v)
    if target.startswith("conversations/"):
        conversations[target], _ = mutate(conversations[target], ops)
    else:
        runs[target.split("/")[1]][target], _ = mutate(runs[target.split("/")[1]][target], ops)
    mutated = json.dumps([conversations, runs], sort_keys=True, default=repr)
    try:
        release = release_from_documents(conversations, runs, DOCS["release.json"])
    except ReleaseError as exc:
        check_error(exc)
    else:
        check_release(release)
    # the documents are not modified by the loader
    assert json.dumps([conversations, runs], sort_keys=True, default=repr) == mutated
