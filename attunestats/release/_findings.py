"""Putting the findings of a load together (private helper of ``release/load.py``).

``_gt_checks`` and ``_run_checks`` are the checks across fields of one file (ids against file
names and metadata, turn counts) that the loader adds to each document's schema findings
(:func:`~attunestats.release.check.schema_findings`). :func:`merge` joins them with the
loader's own problems (one message per file and JSON path: the loader's wording wins where both
name the same field) and turns the loader's report events that are warnings into findings.
:func:`raise_release_error` raises the :class:`~attunestats.errors.ReleaseError` with the whole
load report attached (``exc.report``), so a refused release still shows its warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NoReturn

from attunestats.errors import Problem, ReleaseError
from attunestats.release._loader import _id_from_name, _key, _resolve, _short
from attunestats.release._tables import _report
from attunestats.release.check import Finding, in_ground_truth

_EVENT_WARNINGS = {
    "ground_truth_turn_not_in_run": (
        "turn_not_in_run", "ground-truth turn {orig} has no run turn; it is skipped in the averages"),
    "participant_anonymous": (
        "participant_anonymous", "no participant_id: the conversation counts as its own participant"),
    "participant_conflict": (
        "participant_conflict", "age and traits {orig} differ from those of the participant's "
        "first conversation, {kept_file}, which are kept (age and traits {kept}); if that one is "
        "wrong, correct it there"),
    "subset_id_missing": (
        "subset_id_missing", "conversation {orig} of the requested subset has no file"),
    "panas_items_missing": (
        "panas_items_missing", "PANAS block without item(s) {orig}: they count as not rated (the "
        "item-level scores leave them out)"),
    "panas_total_partial": (
        "panas_total_partial", "total derived from {orig} items of its valence (the reference code "
        "sums the items given; the missing ones lower it)"),
    "duplicate_emotion": (
        "duplicate_emotion", "emotion {orig} is tagged more than once in this turn (each tag is "
        "scored as written)"),
    "unknown_comparison": (
        "unknown_comparison", "comparison {orig}: the ground truth ({gt_file}) {compared}; not "
        "scored"),
    "judge_score_null": (
        "judge_score_null", "judge score given as null or blank: the turn's draft judge score is "
        "the mean of the other judge scores given (the turn is not scored if none is)"),
    "comparison_key_not_index": (
        "unknown_comparison", "selection key {orig} is not a comparison index as the runner "
        "writes it (str(i), no leading zero): the scorer reads selection[str(i)] only; not scored"),
    "mode_defaulted": (
        "mode_defaulted", "no mode in the run file and none for its predictor in release.json: "
        "read as mode 'default' (runs of another mode would be scored as default runs)"),
    "duplicate_question": (
        "duplicate_question", "questionId {orig} repeats in this turn; the last one is kept (as "
        "the official dict does)"),
}  # fmt: skip
#: rules whose original value is words, shown as they are (not as a repr) in the message
_PLAIN_ORIGINAL = frozenset({"subset_id_missing", "panas_items_missing", "panas_total_partial",
                             "unknown_comparison"})  # fmt: skip
#: rules whose message already holds the value (no "(got ...)" after it)
_NO_VALUE = frozenset({"panas_items_missing", "panas_total_partial", "participant_conflict",
                       "unknown_comparison"})  # fmt: skip


def _run_kind(info: Mapping[str, Any], predictor: str) -> str:
    preds = info.get("predictors") if isinstance(info, Mapping) else None
    spec = preds.get(predictor) if isinstance(preds, Mapping) else None
    kind = spec.get("kind") if isinstance(spec, Mapping) else None
    return "human" if kind == "human" else "run"


def _gt_checks(name: str, doc: dict[str, Any]) -> list[Finding]:
    out = []
    cid = doc.get("conversationId")
    from_name = _id_from_name(name)
    if isinstance(cid, str) and cid and from_name is not None and from_name != cid:
        out.append(Finding(name, "$.conversationId", f"conversationId {cid!r} does not match the "
                           f"id {from_name!r} of the file name (conversation_<id>.json)",
                           _short(cid), "id_mismatch"))  # fmt: skip
    meta = doc.get("metadata")
    if isinstance(meta, dict):
        mid = meta.get("conversationId")
        if isinstance(mid, str) and isinstance(cid, str) and cid and mid != cid:
            out.append(Finding(name, "$.metadata.conversationId", f"differs from conversationId "
                               f"{cid!r}", _short(mid), "id_mismatch"))  # fmt: skip
        count, turns = meta.get("turnCount"), doc.get("turns")
        if type(count) is int and isinstance(turns, list) and count != len(turns):
            out.append(Finding(name, "$.metadata.turnCount", f"turnCount {count} differs from "
                               f"the {len(turns)} turn(s) in the file", _short(count),
                               "turn_count_mismatch", "warning"))  # fmt: skip
    return out


def _run_checks(name: str, doc: dict[str, Any]) -> list[Finding]:
    out = []
    cid, source = doc.get("conversationId"), doc.get("source_file")
    if isinstance(cid, str) and cid and isinstance(source, str):
        sid = _id_from_name(source)
        if sid is not None and sid != cid:
            out.append(Finding(name, "$.source_file", f"source_file names conversation {sid!r}, "
                               f"conversationId is {cid!r}", _short(source), "id_mismatch"))  # fmt: skip
    from_name = _id_from_name(name)
    if isinstance(cid, str) and cid and from_name is not None and from_name != cid:
        out.append(Finding(name, "$.conversationId", f"conversationId {cid!r} does not match the "
                           f"id {from_name!r} of the file name (conversation_<id>.json)",
                           _short(cid), "id_mismatch"))  # fmt: skip
    return out


def missing_runs(run_keys: list[tuple[str, str, str]], conversations: list[str]) -> list[Finding]:
    """A warning per evaluated model and mode without a run for some ground-truth conversations:
    it is scored on the conversations it has (a file skipped by the reader, or never written).
    Human raters are left out: they rate a share of the conversations by design."""
    have: dict[tuple[str, str], set[str]] = {}
    for predictor, mode, cid in run_keys:
        have.setdefault((predictor, mode), set()).add(cid)
    out = []
    for (predictor, mode), cids in sorted(have.items()):
        lacking = [c for c in conversations if c not in cids]
        if lacking:
            shown = ", ".join(lacking[:10]) + (", ..." if len(lacking) > 10 else "")
            out.append(Finding(f"runs/{predictor}", "", f"mode {mode!r}: no run for {len(lacking)} "
                               f"of {len(conversations)} ground-truth conversations ({shown}); "
                               "this predictor is scored on the conversations it has", "",
                               "run_missing", "warning"))  # fmt: skip
    return out


def info_defaults(info: Mapping[str, Any], predictors: list[str]) -> list[Finding]:
    """Warnings for what a present ``release.json`` leaves to a default that changes results:
    no ``simulated`` flag (the results are not labelled SIMULATED) and predictors without a
    ``kind`` (evaluated models, never human raters)."""
    out = []
    # a value that is not a boolean is an error of its own (_check_info): one message per defect
    if info.get("simulated") is None:
        what = "missing" if "simulated" not in info else "null"
        out.append(Finding("release.json", "$.simulated", f"{what}: the release is read as real "
                           "data (results are not labelled SIMULATED); set true or false", "",
                           "info_default", "warning"))  # fmt: skip
    listed = info.get("predictors")
    if not isinstance(listed, Mapping):
        if predictors:
            out.append(Finding("release.json", "$.predictors", "missing: every folder under "
                               f"runs/ ({len(predictors)}) is read as an evaluated model, none "
                               "as a human rater", "", "info_default", "warning"))  # fmt: skip
        return out
    for name in predictors:
        spec = listed.get(name)
        if not isinstance(spec, Mapping) or "kind" not in spec:
            where = "not listed" if name not in listed else "no kind"
            out.append(Finding("release.json", _key("$.predictors", name), f"{where}: runs/{name} "
                               "is read as an evaluated model (kind 'model')", "",
                               "info_default", "warning"))  # fmt: skip
    return out


def _event_warnings(
    ev: list[tuple[Any, ...]], pre: list[tuple[str, str, str, str, str]]
) -> list[Finding]:
    out = []
    for file, path, rule, original, result in [*pre, *ev]:
        if rule not in _EVENT_WARNINGS:
            continue
        kind, template = _EVENT_WARNINGS[rule]
        extra = {}
        if rule == "participant_conflict" and isinstance(result, tuple) and len(result) == 3:
            extra = {"kept": _short(result[:2]), "kept_file": result[2]}
        elif rule == "unknown_comparison":
            gt_file, n = result if isinstance(result, tuple) else ("?", 0)
            extra = {"gt_file": gt_file, "compared": (
                f"has comparisons 0-{n - 1} only in this turn" if n else "has no pairwise "
                "comparisons in this turn (pairwiseComparisons is empty, null or missing)")}  # fmt: skip
        plain = isinstance(original, str) and rule in _PLAIN_ORIGINAL
        shown = original if plain else _short(original)
        value = "" if original is None or rule in _NO_VALUE else shown
        out.append(Finding(file, _resolve(path), template.format(orig=shown, **extra), value, kind,
                           "warning"))  # fmt: skip
    return out


def _nested(a: str, b: str) -> bool:
    """Whether JSON path ``a`` is ``b``, or one is a parent of the other."""
    short, long = sorted((a, b), key=len)
    return long == short or (long.startswith(short) and long[len(short)] in ".[")


def merge(problems: list[Problem], findings: list[Finding], ld: Any,
          pre_events: list[tuple[str, str, str, str, str]]) -> tuple[list[Finding], list[Finding]]:  # fmt: skip
    """(errors, warnings): the loader's problems and the findings, one message per field."""
    errors = [Finding.of(p) for p in problems]
    named = {(f.file, f.path) for f in errors}
    said: dict[tuple[str, str], list[str]] = {}  # (file, message) -> paths
    for e in errors:
        said.setdefault((e.file, e.message), []).append(e.path)
    for f in findings:
        if f.severity != "error" or (f.file, f.path) in named:
            continue
        # the same message at this path's parent or child (the loader at $.conversationId,
        # the schema at $): once is enough
        paths = said.setdefault((f.file, f.message), [])
        if any(_nested(p, f.path) for p in paths):
            continue
        errors.append(f)
        named.add((f.file, f.path))
        paths.append(f.path)
    warnings = [f for f in findings if f.severity == "warning"]
    warnings += _event_warnings(ld.ev, pre_events)
    # one defect, one message: no warning about a field an error already names
    warnings = [w for w in warnings if not w.path or (w.file, w.path) not in named]
    return errors, warnings


def order_errors(errors: list[Finding], gt_ids: Mapping[str, str | None],
                 run_ids: Mapping[str, str]) -> list[Finding]:  # fmt: skip
    """The errors with those of the ground truth first and the follow-on errors last.

    A follow-on error is a run output's reference to what the ground truth lacks
    (``unknown_reference``: a turn, or the conversation) for a conversation whose ground-truth
    file has an error: its ``cause`` names that file. ``gt_ids`` maps the ground-truth files
    read to their conversation ids, ``run_ids`` the run files to theirs.
    """
    defective: dict[str, str] = {}  # conversation id -> ground-truth file with an error
    for e in errors:
        if e.file in run_ids or not in_ground_truth(e) or e.file == "release.json":
            continue
        for cid in (gt_ids.get(e.file), _id_from_name(e.file)):
            if cid is not None:
                defective.setdefault(cid, e.file)
    out = []
    for e in errors:
        cause = defective.get(run_ids.get(e.file, "")) if e.rule == "unknown_reference" else None
        out.append(replace(e, cause=cause) if cause and not in_ground_truth(e) else e)
    return sorted(out, key=lambda e: 2 if e.cause else 0 if in_ground_truth(e) else 1)


def counts(ld: Any, predictor_rows: list[tuple[str, str, str, int]]) -> dict[str, int]:
    """What was read, by the loader's count."""
    return {
        "conversations": len(ld.gt),
        "turns": sum(len(g.turns) for g in ld.gt.values()),
        "participants": len(ld.participants),
        "predictors": len(predictor_rows),
        "runs": len(ld.run_keys),
        "predicted turns": len(ld.pt_run),
    }


def raise_release_error(errors: list[Finding], warnings: list[Finding], ld: Any,
                        pre_events: list[tuple[str, str, str, str, str]], read: dict[str, int],
                        cause: BaseException | None = None) -> NoReturn:  # fmt: skip
    """Raise :class:`ReleaseError` with the load report (``exc.report``) attached."""
    try:
        report = _report(ld, pre_events)
    except UnicodeEncodeError:  # surrogates in values: keep the report without its events
        report = _report(type(ld)(), pre_events)
    report = replace(report, errors=tuple(errors), warnings=tuple(warnings), read=dict(read))
    exc = ReleaseError(errors)
    exc.report = report  # type: ignore[attr-defined]
    raise exc from cause
