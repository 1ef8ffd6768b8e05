"""Read an AttuneBench release (official JSON files) into a validated :class:`Release`.

Layout of a release directory
-----------------------------
``<root>/release.json``
    Optional: ``{"format": "attunestats-release/1", "name", "simulated", "seed", "predictors":
    {"<dir>": {"kind": "model" | "human", "display_name", "mode"}}}``.
``<root>/conversations/conversation_<N>.json``, or an official checkout's
``<root>/Test Samples/<Subset>/conversation_<N>.json``
    Ground truth, one file per conversation (spec 1.3-1.5). ``conversations/`` wins when both
    exist. With ``conversations/`` and ``subset=``, only the ids of ``constants.SUBSETS[subset]``
    are kept; with ``Test Samples/``, ``subset=`` picks the directory (default ``Sample200``, or
    the only one). Listed ids without a file are reported (``subset_id_missing``).
``<root>/runs/<predictor>/**/*.json``
    Run outputs in the official EM shape (spec 1.6), one file per conversation and mode. A run
    file links to its conversation by ``conversationId``, else by ``source_file``; its mode is
    ``mode``, else the predictor's mode in ``release.json``, else ``"default"``.

Other files (``truth.json``, READMEs) are ignored. Inside ``conversations/`` (or the subset
directory) and ``runs/``, every entry that is not read is a warning naming it: hidden files,
backup files, wrong names or extensions (``conversation_5.JSON``), symbolic links (never
followed), FIFOs, sockets and devices (never opened), directories where files are expected,
files directly under ``runs/``.

Errors and warnings
-------------------
Every file is checked against its schema (:mod:`attunestats.release.schema`: one pydantic model
per kind of file) and read by the loader; all findings of a release come at once, each a
:class:`~attunestats.release.check.Finding` naming the file, the JSON path, the value and what
was expected, with a ``rule`` (its group) and a ``severity``.

**Errors** (the release is refused: :class:`~attunestats.errors.ReleaseError`, whose ``report``
holds the warnings too): unreadable files (not JSON, not UTF-8/16/32 text, unpaired UTF-16
surrogates, names that are not UTF-8); a key twice in one JSON object; missing required fields
(a ground-truth ``conversationId`` when the file name gives none, ``turns``, ``turnNumber``, a
tag's ``emotion``, a judgement's or comparison's ``questionId``, a comparison's two response
labels, a run's ``conversationId``/``source_file``); values of the wrong JSON type; values out of
range without a clamping rule (PANAS items, judge scores, negative costs or durations, turn
numbers); values outside a closed set (response labels, ``release.json`` ``format`` and
``kind``); duplicate turn numbers, conversation ids or (predictor, mode, conversation) keys; ids
that disagree (``conversationId`` vs the file name, ``metadata.conversationId``,
``source_file``); a run for a conversation or a turn the ground truth lacks; a predictor with no
run files (including one named only in ``release.json``); an empty release.

**Warnings** (the release loads; ``release.report.warnings``, one
:class:`~attunestats.release.check.ReleaseWarning` summarises them; ``strict=True`` makes them
errors): unknown keys (likely misspellings; the closest known key is suggested); missing fields
the scorer reads (read as null or empty); emotion labels outside the PANAS vocabulary (scored by
the spec 4 convention); question ids, survey options, modes and PANAS strategies outside spec 1.5;
values that are no spelling of spec 1.4 (read as null); numbers clamped by the spec 1.4 rules
(intensities, PANAS totals, four-branch scores); ``metadata.turnCount`` differing from the turns;
ground-truth turns a run lacks; run files without a mode (read as ``"default"`` when
``release.json`` gives none either); repeated question ids in a turn (the last kept); conversations
without a participant id; participants whose profile differs between conversations; subset ids
without a file; skipped files; byte order marks and UTF-16/32 files (read correctly).

Everything the loader changes is also recorded in ``release.report.events`` (rules in
:data:`~attunestats.release.model.REPORT_RULES`): aliases, normalised spellings, rounding,
clamping, derived totals, unknown emotion labels (kept in the ground truth with
``known=False``, dropped from predictions), ignored fields.

Row order of the tables
-----------------------
Conversations in natural id order (``"5" < "17" < "abc"``); predictors, then modes, sorted as
strings; turns ascending; tags, comparisons and positions ascending; PANAS items in
``constants.PANAS_ITEMS`` order (``pre`` before ``post``); binary tasks in the order
``om, human, om_hp, human_hp, draft``; question ids in file order.

Where the code lives
--------------------
This module holds the public functions. ``release/_files.py`` finds the files (and the entries
it skips) and decodes them; ``release/schema.py`` and ``release/check.py`` validate each
document; ``release/_findings.py`` joins the findings; the single pass over the documents
(problems, report events, columns) is ``release/_loader.py``, the columns become typed tables in
``release/_tables.py``, and :func:`diagnosis_group` is defined in ``release/_diagnosis.py``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from attunestats._arrow import release_free_memory
from attunestats.constants import SUBSETS
from attunestats.errors import Problem, ReleaseError
from attunestats.errors import warn as emit_warning
from attunestats.release._diagnosis import DIAGNOSIS_KEYWORDS, DIAGNOSIS_WORDS, diagnosis_group
from attunestats.release._files import conversation_id_of_skipped, parse, scan
from attunestats.release._findings import (
    _gt_checks,
    _run_checks,
    _run_kind,
    counts,
    info_defaults,
    merge,
    missing_runs,
    order_errors,
    raise_release_error,
)
from attunestats.release._loader import (
    _id_from_name,
    _key,
    _Loader,
    _natural,
    _short,
    _type_name,
)
from attunestats.release._tables import _report, _tables
from attunestats.release.check import Finding, ReleaseWarning, schema_findings
from attunestats.release.model import LoadReport, Release

__all__ = [
    "DIAGNOSIS_KEYWORDS",
    "DIAGNOSIS_WORDS",
    "RELEASE_FORMAT",
    "diagnosis_group",
    "load_release",
    "check_release",
    "release_from_documents",
    "validate_release",
]

RELEASE_FORMAT = "attunestats-release/1"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

# --- documents -> Release ----------------------------------------------------------------------


def _doc_id(name: str, doc: Any) -> str | None:
    """Conversation id of a ground-truth document (``conversationId``, else the file name)."""
    if isinstance(doc, dict):
        cid = doc.get("conversationId")
        if isinstance(cid, str) and cid:
            return cid
        if cid is not None:
            return None
    return _id_from_name(name)


def _run_id(doc: dict[str, Any]) -> str | None:
    cid = doc.get("conversationId")
    if isinstance(cid, str) and cid:
        return cid
    source = doc.get("source_file")
    if isinstance(source, str):
        return _id_from_name(source)
    return None


def _scan_surrogates(doc: Any) -> list[tuple[str, str]]:
    """JSON paths of strings (or keys) holding unpaired UTF-16 surrogates."""
    found = []
    stack: list[tuple[str, Any]] = [("$", doc)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                found.append((path, value))
        elif isinstance(value, dict):
            for k, v in value.items():
                try:
                    k.encode("utf-8")
                except UnicodeEncodeError:
                    found.append((path, k))
                    continue
                stack.append((_key(path, k), v))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(value))
    return found


def _surrogate_problems(
    conversations: Mapping[str, Any], runs: Mapping[str, Mapping[str, Any]]
) -> list[Problem]:
    docs = list(conversations.items()) + [(n, d) for f in runs.values() for n, d in f.items()]
    out = []
    for name, doc in docs:
        shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
        if shown != name:
            out.append(Problem(shown, "", "file name is not valid Unicode"))
        for path, value in _scan_surrogates(doc):
            out.append(
                Problem(shown, path, "text holds an unpaired UTF-16 surrogate", _short(value))
            )
    return out


def _check_info(info: Any, problems: list[Problem]) -> dict[str, Any]:
    if info is None:
        return {}
    if not isinstance(info, dict):
        problems.append(
            Problem("release.json", "$", f"must be an object, not {_type_name(info)}", _short(info))
        )
        return {}
    if info.get("simulated") is not None and not isinstance(info["simulated"], bool):
        problems.append(Finding("release.json", "$.simulated", "must be true or false",
                                _short(info["simulated"]), "wrong_type"))  # fmt: skip
    fmt = info.get("format")
    if fmt is not None and fmt != RELEASE_FORMAT:
        problems.append(
            Problem(
                "release.json",
                "$.format",
                f"unknown format (expected {RELEASE_FORMAT!r})",
                _short(fmt),
            )
        )
    preds = info.get("predictors")
    if preds is None:
        return info
    if not isinstance(preds, dict):
        problems.append(
            Problem(
                "release.json",
                "$.predictors",
                f"must be an object, not {_type_name(preds)}",
                _short(preds),
            )
        )
        return info
    for name, spec in preds.items():
        path = _key("$.predictors", name)
        if not isinstance(spec, dict):
            problems.append(
                Problem(
                    "release.json", path, f"must be an object, not {_type_name(spec)}", _short(spec)
                )
            )
            continue
        kind = spec.get("kind")
        if kind is not None and kind not in ("model", "human"):
            problems.append(
                Problem(
                    "release.json",
                    _key(path, "kind"),
                    "kind must be 'model' or 'human'",
                    _short(kind),
                )
            )
        for key in ("display_name", "mode"):
            value = spec.get(key)
            if value is not None and not isinstance(value, str):
                problems.append(
                    Problem(
                        "release.json",
                        _key(path, key),
                        f"must be a string, not {_type_name(value)}",
                        _short(value),
                    )
                )
    return info  # fmt: skip


def _predictor_spec(info: Mapping[str, Any], name: str) -> dict[str, Any]:
    preds = info.get("predictors")
    spec = preds.get(name) if isinstance(preds, dict) else None
    return spec if isinstance(spec, dict) else {}


@dataclass
class _Unreadable:
    """Files a streaming reader could not read (set while the documents are consumed)."""

    gt: bool = False
    predictors: set[str] = field(default_factory=set)


def _build(
    gt: Iterable[tuple[str, Any]],
    runs: Iterable[tuple[str, str, Any]],
    predictors: Sequence[str],
    info: Any,
    *,
    root: Path | None,
    checksum: Callable[[], str],
    problems: list[Problem],
    events: list[tuple[str, str, str, str, str]],
    keep_ids: frozenset[str] | None = None,
    listed: Sequence[Any] | None = None,
    gt_where: str = "conversations/",
    unreadable: _Unreadable | None = None,
    findings: list[Finding] | None = None,
    strict: bool = False,
    read: dict[str, int] | None = None,
    documents: tuple[Mapping[str, Any], Mapping[str, Mapping[str, Any]]] | None = None,
) -> Release:
    """One pass over the documents, each validated, loaded and dropped before the next.

    ``gt`` yields (file, document) in natural id order of the file names (ids that disagree with
    their file name are errors, so a release that loads has its conversations in id order);
    ``runs`` yields (predictor, file, document) in any order (the loader puts the runs in key
    order at the end). Only one parsed document is alive at a time: a 10,000-turn conversation
    is about 50 MB of parsed JSON per file. ``checksum`` is called once the documents are
    consumed; ``documents`` (the in-memory path) lets the error for unpaired surrogates name
    where they are (the file reader checked them already).
    """
    unreadable = _Unreadable() if unreadable is None else unreadable
    findings = [] if findings is None else findings
    has_info = isinstance(info, dict)
    if info is not None:
        findings += schema_findings("release.json", "release.json", info)
    info = _check_info(info, problems)
    ld = _Loader()
    ld.problems = problems

    # ground truth: check each document and its id, then load it
    n_problems = len(problems)
    by_id: dict[str, str] = {}
    # ground-truth files the reader skipped (odd names, links, FIFOs), by the id in their name
    skipped_gt = {cid: f.file for f in findings if f.rule == "skipped_file"
                  and (cid := conversation_id_of_skipped(f.file)) is not None}  # fmt: skip
    excluded: set[str] = set()
    have: set[str | None] = set()
    n_docs = 0
    for name, doc in gt:
        n_docs += 1
        findings += schema_findings("ground_truth", name, doc)
        if isinstance(doc, dict):
            findings += _gt_checks(name, doc)
        have.add(_doc_id(name, doc))
        ld.file = name
        if not isinstance(doc, dict):
            ld.problem(
                "$", f"conversation file must hold a JSON object, not {_type_name(doc)}", doc
            )
            continue
        raw = doc.get("conversationId")
        if raw is not None and not (isinstance(raw, str) and raw):
            ld.problem("$.conversationId", "conversationId must be a non-empty string", raw)
            continue
        cid = _doc_id(name, doc)
        if cid is None:
            ld.problem("$.conversationId", "missing required field conversationId (and the file name is not conversation_<N>.json)")  # fmt: skip
            continue
        if keep_ids is not None and cid not in keep_ids:
            excluded.add(cid)
            continue
        if cid in by_id:
            ld.problem("$.conversationId", f"duplicate conversation id (also in {by_id[cid]})", cid)
            continue
        by_id[cid] = name
        ld.conversation(name, cid, doc)
    doc = None
    if not by_id and not unreadable.gt and len(problems) == n_problems:
        what = "no ground-truth conversation files"
        if n_docs:
            what = "no ground-truth conversation of the requested subset"
        problems.append(Problem(gt_where, "", f"empty release: {what}"))
    for i in listed or ():
        if str(i) not in have:
            events.append((gt_where, "", "subset_id_missing", repr(str(i)), ""))

    # predictions: check each run and its key, load it; key order at the end
    seen_keys: dict[tuple[str, str, str], str] = {}
    n_loaded: dict[str, int] = dict.fromkeys(predictors, 0)
    n_files: dict[str, int] = dict.fromkeys(predictors, 0)
    run_ids: dict[str, str] = {}  # run file -> its conversation id
    listed_predictors = info.get("predictors") if isinstance(info.get("predictors"), dict) else {}
    for predictor, name, doc in runs:
        n_loaded.setdefault(predictor, 0)
        n_files[predictor] = n_files.get(predictor, 0) + 1
        findings += schema_findings(_run_kind(info, predictor), name, doc)
        if isinstance(doc, dict):
            findings += _run_checks(name, doc)
        ld.file = name
        if not isinstance(doc, dict):
            ld.problem("$", f"run file must hold a JSON object, not {_type_name(doc)}", doc)
            continue
        for key in ("conversationId", "source_file", "mode"):
            if doc.get(key) is not None and not isinstance(doc[key], str):
                ld.problem(
                    _key("$", key), f"must be a string, not {_type_name(doc[key])}", doc[key]
                )
        cid = _run_id(doc)
        if cid is None:
            if doc.get("conversationId") is None and doc.get("source_file") is None:
                ld.problem(
                    "$.conversationId", "missing required field conversationId (or source_file)"
                )
            elif isinstance(doc.get("source_file"), str) and doc.get("conversationId") is None:
                ld.problem(
                    "$.source_file", "source_file is not conversation_<N>.json", doc["source_file"]
                )
            continue
        run_ids[name] = cid
        if not (isinstance(doc.get("conversationId"), str) and doc["conversationId"]):
            ld.event("$.source_file", "run_id_from_source_file", doc.get("source_file"), cid)
        if cid in excluded:
            ld.event("$.conversationId", "run_outside_subset", cid, None)
            continue
        if cid not in ld.gt:
            if cid not in by_id:
                where = (
                    "$.conversationId"
                    if isinstance(doc.get("conversationId"), str)
                    else "$.source_file"
                )
                skipped = skipped_gt.get(cid)
                hint = f" ({skipped} was skipped: see the warnings)" if skipped else ""
                ld.problem(
                    where, f"prediction for a conversation the ground truth lacks{hint}", cid
                )
            continue
        mode = ld.run_mode(doc, _predictor_spec(info, predictor))  # file, release.json, default
        key = (predictor, mode, cid)
        if key in seen_keys:
            ld.problem("$", f"duplicate run for predictor {predictor!r}, mode {mode!r}, conversation {cid!r} (also in {seen_keys[key]})")  # fmt: skip
            continue
        seen_keys[key] = name
        ld.run_keys.append(key)
        ld.run(len(ld.run_keys) - 1, name, doc, cid)
        n_loaded[predictor] += 1
    doc = None
    release_free_memory()
    ld.sort_runs()
    predictor_rows = []
    for predictor in sorted(n_loaded):
        spec = _predictor_spec(info, predictor)
        kind = spec.get("kind") if spec.get("kind") in ("model", "human") else "model"
        display = (
            spec.get("display_name") if isinstance(spec.get("display_name"), str) else predictor
        )
        if not n_files[predictor] and predictor not in unreadable.predictors:
            problems.append(Problem(f"runs/{predictor}", "", "predictor has no run files"))
        predictor_rows.append((predictor, kind, display, n_loaded[predictor]))
    humans = {p for p, kind, _, _ in predictor_rows if kind == "human"}
    findings += missing_runs([k for k in ld.run_keys if k[0] not in humans], list(ld.gt))
    if has_info:
        findings += info_defaults(info, sorted(n_loaded))
    for name in listed_predictors:
        if name not in n_loaded:
            problems.append(Problem("release.json", _key("$.predictors", name), "predictor listed in release.json has no run files", _short(name)))  # fmt: skip

    errors, warnings = merge(problems, findings, ld, events)
    if strict and warnings:
        errors += [Finding.of(w, severity="error") for w in warnings]
        warnings = []
    errors = order_errors(errors, {n: c for c, n in by_id.items()}, run_ids)  # ground truth 1st
    read = dict(read or {})
    read.update(counts(ld, predictor_rows))
    if errors:
        raise_release_error(errors, warnings, ld, events, read)
    try:
        tables = _tables(ld, predictor_rows)
        report = _report(ld, events)
    except UnicodeEncodeError as exc:
        # text that is not valid Unicode: unpaired UTF-16 surrogates, e.g. from "\ud800" in JSON
        bad = _surrogate_problems(*documents) if documents is not None else []
        if not bad:
            raise
        raise_release_error([Finding.of(p, rule="unreadable") for p in bad], warnings, ld, events,
                            read, exc)  # fmt: skip
    report = replace(report, warnings=tuple(warnings), read=read)
    return Release(root=root, tables=tables, report=report, info=dict(info), checksum=checksum())


# --- public API --------------------------------------------------------------------------------


def _canonical_checksum(
    conversations: Mapping[str, Any], runs: Mapping[str, Mapping[str, Any]], info: Any
) -> str:
    entries = [(name, doc) for name, doc in conversations.items()]
    entries += [(name, doc) for files in runs.values() for name, doc in files.items()]
    if info is not None:
        entries.append(("release.json", info))
    h = hashlib.sha256()
    for name, doc in sorted(entries, key=lambda e: e[0]):
        data = json.dumps(doc, sort_keys=True, allow_nan=True, default=str).encode(
            "utf-8", "surrogatepass"
        )
        _hash_entry(h, name, data)
    return h.hexdigest()


def _hash_entry(h: Any, rel: str, data: bytes) -> None:
    name = rel.encode("utf-8", "surrogatepass")
    h.update(len(name).to_bytes(8, "little"))
    h.update(name)
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def release_from_documents(
    conversations: Mapping[str, Mapping[str, Any]],
    runs: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
    info: Mapping[str, Any] | None = None,
    *,
    root: Path | None = None,
    strict: bool = False,
) -> Release:
    """Build a :class:`Release` from parsed JSON documents (no files).

    The in-memory twin of :func:`load_release` (which reads the files and calls the same code):
    used by simulation studies that never write files.

    Parameters
    ----------
    conversations : mapping of str to dict
        File name (e.g. ``"conversation_17.json"``; shown in the ``file`` column and in
        problems) -> parsed ground-truth document.
    runs : mapping of str to (mapping of str to dict), optional
        Predictor -> file name -> parsed run-output document.
    info : mapping, optional
        Content of ``release.json``.
    root : pathlib.Path, optional
        Recorded as ``Release.root``.
    strict : bool
        Warnings are errors.

    Returns
    -------
    Release
        Its ``checksum`` is the SHA-256 over the sorted file names and the canonical JSON
        (``sort_keys=True``) of every document; ``report`` holds the warnings (no
        :class:`ReleaseWarning` is emitted: simulation studies build many releases).

    Raises
    ------
    ReleaseError
        With every problem found (see the module docstring).
    """
    runs = {} if runs is None else runs
    with _gc_paused():
        read = {"ground-truth files": len(conversations),
                "run files": sum(len(f) for f in runs.values())}  # fmt: skip
        gt = sorted(conversations.items(), key=lambda e: _natural(_doc_id(*e) or ""))
        docs = ((p, n, d) for p, files in sorted(runs.items()) for n, d in files.items())
        return _build(gt, docs, sorted(runs), info, root=root,
                      checksum=lambda: _canonical_checksum(conversations, runs, info),
                      problems=[], events=[], gt_where="conversations", strict=strict, read=read,
                      documents=(conversations, runs))  # fmt: skip


def _pick_ground_truth(
    root: Path, subset: str | None
) -> tuple[Path | None, frozenset[str] | None, tuple[int, ...] | None, list[Problem]]:
    """Directory of the ground-truth files, ids to keep, ids listed for the subset."""
    conv_dir = root / "conversations"
    samples = root / "Test Samples"
    if conv_dir.is_dir():
        if subset is None:
            return conv_dir, None, None, []
        if subset not in SUBSETS:
            raise ValueError(
                f"subset={subset!r} is not an official subset; expected one of {sorted(SUBSETS)}"
            )
        ids = SUBSETS[subset]
        return conv_dir, frozenset(str(i) for i in ids), ids, []
    if samples.is_dir():
        available = sorted(d.name for d in samples.iterdir() if d.is_dir())
        if subset is None:
            if "Sample200" in available:
                subset = "Sample200"
            elif len(available) == 1:
                subset = available[0]
            else:
                return None, None, None, [Problem(
                    "Test Samples", "", "several subsets and no subset= given; pass one of them",
                    _short(available),
                )]  # fmt: skip
        elif subset not in available:
            raise ValueError(
                f"subset={subset!r} has no directory under {samples}; available: {available}"
            )
        return samples / subset, None, SUBSETS.get(subset), []
    return None, None, None, [Problem(
        ".", "", "no ground truth: neither conversations/ nor 'Test Samples/<Subset>/' exists"
    )]  # fmt: skip


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building (acyclic) documents and columns.

    With millions of small objects alive, every generation-2 collection walks them all; pausing
    it makes loading a paper-sized release about a third faster (benchmarks/bench_load.py).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_release(
    path: str | os.PathLike[str], *, subset: str | None = None, strict: bool = False,
    warn: bool = True,
) -> Release:  # fmt: skip
    """Read and validate an AttuneBench release directory.

    Every file is checked against its schema (:mod:`attunestats.release.schema`) and read by the
    loader; all problems are reported at once. Errors refuse the release; warnings (unknown keys,
    labels and options, clamped values, skipped files, ...) are kept in ``release.report`` and
    summarised in one :class:`~attunestats.release.check.ReleaseWarning`.

    Parameters
    ----------
    path : str or os.PathLike
        The release root (see the module docstring for the layout).
    subset : str, optional
        An official subset (``"Sample200"``, ``"Subsample100"``, ``"Subsample50"``,
        ``"Subsample25"``, ``"Subsample20"``; see ``constants.SUBSETS``). With
        ``conversations/`` it filters the ground truth (and the runs) to the subset's ids; with
        ``Test Samples/`` it picks the directory (default ``Sample200``).
    strict : bool
        Warnings are errors (the release is refused if it has any).
    warn : bool
        Emit the summarising :class:`~attunestats.release.check.ReleaseWarning` when the
        release has warnings (the CLI prints the report instead).

    Returns
    -------
    Release
        Tidy tables (``release.conversations``, ``release.pred_binary``, ...) with the columns
        of :data:`~attunestats.release.model.TABLE_SCHEMAS`, ``release.report`` (warnings, what
        was read, everything normalised, clamped, derived or dropped), ``release.info``
        (``release.json``) and ``release.checksum`` (SHA-256 over the sorted relative paths of
        the files read, each followed by the SHA-256 of its bytes).

    Raises
    ------
    ReleaseError
        Listing every error found, each naming the file, JSON path and value; its ``report``
        attribute is the whole :class:`~attunestats.release.model.LoadReport` (warnings too).
    ValueError
        If ``subset`` is not an official subset (``conversations/`` layout) or has no
        directory (``Test Samples/`` layout).

    Examples
    --------
    The bundled simulated release, read like any other (its warnings are the simulator's
    deliberate messiness):

    >>> import attunestats as at
    >>> release = at.load_release(at.bundled_release_path())
    >>> release  # doctest: +ELLIPSIS
    <Release: 200 conversations, 1474 turns, 11 participants, 14 predictors (11 models, 3 human raters); 711 load warning(s); SIMULATED; ...>
    >>> release.report.summary_line()
    '711 warnings (623 emotion labels outside the 20 PANAS items; 73 ground-truth turns a run lacks; 15 numbers outside their range, clamped by the spec 1.4 rule)'
    >>> print(release.report.text())  # every warning by file and JSON path  # doctest: +SKIP
    """
    root = Path(path)
    if not root.is_dir():
        raise ReleaseError(
            [Finding(str(path), "", "release directory not found", "", "unreadable")]
        )
    with _gc_paused():
        release = _load(root, subset, strict)
    if warn and release.report.warnings:
        emit_warning(f"{root}: {release.report.summary_line()}; see release.report",
                     ReleaseWarning)  # fmt: skip
    return release


def _load(root: Path, subset: str | None, strict: bool = False) -> Release:
    gt_dir, keep_ids, listed, problems = _pick_ground_truth(root, subset)
    to_read, run_dirs, findings = scan(root, gt_dir)
    if gt_dir is not None and gt_dir.parent == root and (root / "Test Samples").is_dir():
        findings.append(Finding("Test Samples", "", "not read: conversations/ is the ground truth "
                                "when both exist", "", "ignored_entry", "warning"))  # fmt: skip
    digests: dict[str, bytes] = {}
    unreadable = _Unreadable()

    def read(entry: Any) -> tuple[bool, Any]:
        # one file: read, hash, decode, parse; its errors and warnings recorded in reading order
        rel = entry.rel
        try:
            data = entry.path.read_bytes()
        except OSError as exc:
            problems.append(Finding(rel, "", f"cannot read file: {exc.strerror or exc}", "",
                                    "unreadable"))  # fmt: skip
            ok, doc = False, None
        else:
            digests[rel] = hashlib.sha256(data).digest()
            doc, found, ok = parse(rel, data)
            for f in found:
                (problems if f.severity == "error" else findings).append(f)
            if ok and _SURROGATE_ESCAPE.search(data):
                bad = _scan_surrogates(doc)
                for jpath, value in bad:
                    problems.append(Finding(rel, jpath, "text holds an unpaired UTF-16 surrogate",
                                            _short(value), "unreadable"))  # fmt: skip
                ok = not bad
        if not ok:
            unreadable.gt |= entry.kind == "gt"
            if entry.kind == "run":
                unreadable.predictors.add(entry.predictor)
        return ok, doc

    info: Any = None
    for entry in to_read:
        if entry.kind == "info":
            ok, doc = read(entry)
            info = doc if ok else None
    gt_entries = sorted((e for e in to_read if e.kind == "gt"),
                        key=lambda e: _natural(_id_from_name(e.rel) or ""))  # fmt: skip

    def gt_docs() -> Iterator[tuple[str, Any]]:
        for entry in gt_entries:
            ok, doc = read(entry)
            if ok:
                yield entry.rel, doc

    def run_docs() -> Iterator[tuple[str, str, Any]]:
        for entry in to_read:
            if entry.kind == "run":
                ok, doc = read(entry)
                if ok:
                    yield entry.predictor, entry.rel, doc

    def checksum() -> str:
        # SHA-256 over the sorted relative paths and the SHA-256 of each file's bytes
        h = hashlib.sha256()
        for entry in to_read:
            if entry.rel in digests:
                _hash_entry(h, entry.rel, digests[entry.rel])
        return h.hexdigest()

    gt_where = "."
    if gt_dir is not None:
        gt_where = gt_dir.relative_to(root).as_posix() + "/"
    counted = {
        "files read": len(to_read),
        "ground-truth files": sum(e.kind == "gt" for e in to_read),
        "run files": sum(e.kind == "run" for e in to_read),
        "entries skipped": sum(f.rule in ("skipped_file", "ignored_entry") for f in findings),
    }
    return _build(
        gt_docs(), run_docs(), run_dirs, info, root=root, checksum=checksum, problems=problems,
        events=[], keep_ids=keep_ids, listed=listed, gt_where=gt_where, unreadable=unreadable,
        findings=findings, strict=strict, read=counted,
    )  # fmt: skip


def check_release(
    path: str | os.PathLike[str], *, subset: str | None = None, strict: bool = False
) -> LoadReport:
    """The load report of a release directory, whether it loads or not (never raises for defects).

    Used by ``attunestats validate DIR``: ``report.errors`` (empty when the release loads),
    ``report.warnings``, ``report.read`` and the normalisation events; ``report.text()`` is what
    the command prints. With ``strict``, warnings are errors.

    Examples
    --------
    >>> report = check_release("path/to/release")  # doctest: +SKIP
    >>> print(report.text())  # doctest: +SKIP
    """
    try:
        return load_release(path, subset=subset, strict=strict, warn=False).report
    except ReleaseError as exc:
        report = getattr(exc, "report", None)
        if report is None:
            errors = tuple(Finding.of(p) for p in exc.problems)
            report = LoadReport(events=_empty_events(), errors=errors)
        return report
    except ValueError as exc:
        if subset is None or "subset=" not in str(exc):
            raise
        error = Finding(str(path), "", str(exc), _short(subset), "bad_value")
        return LoadReport(events=_empty_events(), errors=(error,))


def _empty_events() -> Any:
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype="str") for c in
                         ("file", "path", "rule", "original", "result")})  # fmt: skip


def validate_release(
    path: str | os.PathLike[str], *, subset: str | None = None, strict: bool = False
) -> list[Problem]:
    """Every error of a release directory (warnings too with ``strict``); ``[]`` when it loads.

    A ``subset`` that is not official (``conversations/`` layout) or has no directory
    (``Test Samples/`` layout) is reported as a problem too. :func:`check_release` gives the
    whole report (warnings, what was read).

    Examples
    --------
    >>> for problem in validate_release("path/to/release"):  # doctest: +SKIP
    ...     print(problem)
    """
    return list(check_release(path, subset=subset, strict=strict).errors)
