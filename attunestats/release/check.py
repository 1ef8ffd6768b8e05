"""Checking each file of a release against its schema: errors and warnings, as :class:`Finding`.

A :class:`Finding` is a :class:`~attunestats.errors.Problem` (file, JSON path, message, value)
with a ``severity`` (``"error"`` or ``"warning"``) and a ``rule`` (what kind of defect: the
groups in which the load report counts them). :func:`schema_findings` validates one parsed
document with its model of :mod:`attunestats.release.schema` and turns every pydantic error into
a finding; :data:`WARNING_RULES` says which are warnings (see the schema module for the list).

Which rule is what
------------------
Errors: ``missing_field``, ``wrong_type``, ``out_of_range``, ``bad_value`` (a value outside its
closed set: binary values, winners, response labels, ``format``, ``kind``), ``duplicate_key``
(a key twice in one JSON object), ``duplicate_id``, ``id_mismatch`` (``conversationId`` vs file
name, ``metadata.conversationId``, ``source_file``), ``unknown_reference`` (a run for a
conversation or turn the ground truth lacks), ``unreadable`` (not JSON, not UTF-8/16/32 text),
``other``.

Warnings: ``unknown_key`` (with the closest known key), ``unknown_emotion``,
``unknown_question``, ``unknown_option``, ``unknown_mode``, ``unknown_strategy``, ``clamped``,
``turn_count_mismatch``, ``turn_not_in_run``, ``skipped_file``, ``encoding``,
``participant_anonymous``, ``participant_conflict``, ``subset_id_missing``, ``run_missing``,
``unknown_comparison``, ``info_default``, ``panas_items_missing``, ``panas_total_partial``,
``duplicate_emotion``, ``judge_score_null``, ``ignored_entry``, ``mode_defaulted``.
"""

from __future__ import annotations

import json
import reprlib
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from attunestats.errors import AttunestatsWarning, Problem
from attunestats.release import schema as sc

__all__ = [
    "ERROR_RULES",
    "RULE_TITLES",
    "WARNING_RULES",
    "Finding",
    "ReleaseWarning",
    "format_findings",
    "json_path",
    "schema_findings",
]


class ReleaseWarning(AttunestatsWarning):
    """A release loaded with warnings; the message counts them, ``release.report`` lists them."""


#: Every rule, with the heading the load report prints over its group.
RULE_TITLES: dict[str, str] = {
    # errors (unreadable files first: what else is reported often follows from them)
    "unreadable": "unreadable files",
    "missing_field": "missing required fields",
    "wrong_type": "values of the wrong type",
    "out_of_range": "values out of range",
    "bad_value": "values outside their allowed set",
    "duplicate_key": "duplicate JSON keys",
    "duplicate_id": "duplicate ids",
    "id_mismatch": "id / file-name mismatches",
    "unknown_reference": "references to unknown conversations or turns",
    "other": "other errors",
    # warnings
    "missing_expected": "missing fields the scorer reads (read as null or empty)",
    "unrecognised": "values that are no spelling of spec 1.4 (read as null)",
    "unknown_key": "unknown keys (likely misspellings; the closest known key is suggested)",
    "unknown_emotion": "emotion labels outside the 20 PANAS items (scored by the spec 4 convention)",
    "unknown_question": "question ids outside spec 1.5 (scored as written)",
    "unknown_option": "survey answers outside the options of spec 1.5 (scored as no match)",
    "unknown_mode": "modes outside spec 1.5",
    "unknown_strategy": "PANAS strategies outside spec 1.5",
    "clamped": "numbers outside their range, clamped by the spec 1.4 rule",
    "turn_count_mismatch": "metadata.turnCount differs from the number of turns",
    "turn_not_in_run": "ground-truth turns a run lacks (skipped in the averages)",
    "skipped_file": "files and directories the reader skipped",
    "encoding": "files not in plain UTF-8 (read correctly)",
    "duplicate_question": "question ids repeated within one turn (the last one is kept)",
    "participant_anonymous": "conversations without a participant id (each its own participant)",
    "participant_conflict": "participants whose age or traits differ between conversations",
    "subset_id_missing": "conversation ids of the requested subset without a file",
    "run_missing": "predictors without a run for some ground-truth conversations",
    "unknown_comparison": "pairwise selections for comparisons the ground-truth turn lacks",
    "info_default": "release.json settings left to a default (simulated flag, predictor kinds)",
    "panas_items_missing": "PANAS blocks with some items missing (they count as not rated)",
    "panas_total_partial": "PANAS totals derived from fewer than the 10 items of their valence",
    "duplicate_emotion": "emotion labels tagged more than once in one turn",
    "judge_score_null": "draft judge scores given as null or blank (left out of the turn's mean)",
    "ignored_entry": "entries of the release directory that are not read",
    "mode_defaulted": "run files without a mode read as mode 'default' (none in release.json)",
}
WARNING_RULES = frozenset(list(RULE_TITLES)[list(RULE_TITLES).index("missing_expected") :])
ERROR_RULES = frozenset(RULE_TITLES) - WARNING_RULES

_REPR = reprlib.Repr(maxstring=60, maxother=60, maxlist=4, maxdict=4, maxlevel=2)


def short(value: Any) -> str:
    """A short ``repr`` of a value read from a file."""
    if isinstance(value, str) and len(value) <= 60:
        return repr(value)
    return _REPR.repr(value)


@dataclass(frozen=True)
class Finding(Problem):
    """A problem with its ``severity`` (``"error"`` or ``"warning"``) and ``rule``.

    ``cause`` is set on a follow-on error: a run output that refers to what a defective
    ground-truth file lacks (a turn of a conversation whose file has an error). It names that
    file; the load report lists follow-on errors last, under that file (fix it first).
    """

    rule: str = "other"
    severity: str = "error"
    cause: str = ""

    @classmethod
    def of(
        cls, problem: Problem, *, rule: str | None = None, severity: str | None = None
    ) -> Finding:
        """A finding from a plain :class:`Problem` (an error of rule ``other`` by default)."""
        if isinstance(problem, Finding) and rule is None and severity is None:
            return problem
        rule = rule or getattr(problem, "rule", None) or _rule_of_message(problem.message)
        severity = severity or ("warning" if rule in WARNING_RULES else "error")
        return cls(problem.file, problem.path, problem.message, problem.value, rule, severity)


def _rule_of_message(message: str) -> str:
    """The rule of a loader problem, read from its wording."""
    m = message.lower()
    if "missing required" in m:
        return "missing_field"
    if "duplicate" in m:
        return "duplicate_id"
    if "lacks" in m:
        return "unknown_reference"
    if "must be" in m and ("not " in m or "a number" in m or "an object" in m):
        return "wrong_type"
    if "unreadable" in m or "cannot read" in m or "surrogate" in m or "unicode" in m:
        return "unreadable"
    if "finite" in m or "non-negative" in m or "range" in m:
        return "out_of_range"
    return "other"


def json_path(loc: tuple[Any, ...] | list[Any], root: str = "$") -> str:
    """``$.turns[3].annotations`` from a location tuple; odd keys as ``["odd key"]``."""
    out = root
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


# --- pydantic errors -> findings ------------------------------------------------------------------

_TYPE_RULES = {
    "missing": "missing_field",
    "extra_forbidden": "unknown_key",
    "greater_than_equal": "out_of_range",
    "less_than_equal": "out_of_range",
    "greater_than": "out_of_range",
    "less_than": "out_of_range",
    "finite_number": "out_of_range",
    "out_of_range": "out_of_range",
    "too_short": "out_of_range",
    "string_too_short": "bad_value",
    "literal_error": "bad_value",
    "binary_value": "bad_value",
    "winner": "bad_value",
    "response_label": "bad_value",
    "comparison_key": "bad_value",
    "string_pattern_mismatch": "bad_value",
}
_KIND_NAMES = {"dict": "an object", "list": "an array", "str": "a string", "int": "an integer",
               "float": "a number", "bool": "true or false", "NoneType": "null"}  # fmt: skip


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _unwrap(tp: Any) -> list[Any]:
    """The candidate inner types of an annotation (Optional, Annotated, unions)."""
    origin = get_origin(tp)
    if origin is None:
        return [tp]
    if origin is Annotated:
        return _unwrap(get_args(tp)[0])
    if origin in (list, dict):
        return [tp]
    out: list[Any] = []
    for arg in get_args(tp):
        out += _unwrap(arg)
    return out


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model that reads the object at ``loc`` (None where no model is known)."""
    current: Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = next((f for name, f in current.model_fields.items() if part in
                          (name, *_alias_names(f))), None)  # fmt: skip
            if field is None:
                return None
            current = field.annotation
            continue
        nxt = None
        for cand in _unwrap(current):
            origin = get_origin(cand)
            if origin is list and isinstance(part, int):
                nxt = get_args(cand)[0]
            elif origin is dict and isinstance(part, str):
                nxt = get_args(cand)[1]
            elif isinstance(cand, type) and issubclass(cand, BaseModel):
                nxt = cand
                # the part is a field of this model: resolve on the next loop turn
                current = cand
                break
            if nxt is not None:
                break
        else:
            return None
        if nxt is current:
            field = next((f for name, f in current.model_fields.items() if part in
                          (name, *_alias_names(f))), None)  # fmt: skip
            if field is None:
                return None
            current = field.annotation
        else:
            current = nxt
    for cand in _unwrap(current):
        if isinstance(cand, type) and issubclass(cand, BaseModel):
            return cand
    return None


def _alias_names(field: Any) -> tuple[str, ...]:
    alias = field.validation_alias
    if alias is None:
        return ()
    if isinstance(alias, str):
        return (alias,)
    return tuple(c for c in getattr(alias, "choices", ()) if isinstance(c, str))


def _message(err: dict[str, Any], model: type[BaseModel]) -> tuple[str, str]:
    """(rule, message) of one pydantic error."""
    kind, loc, value = err["type"], err["loc"], err.get("input")
    if kind.startswith("warn_"):
        return kind[5:], err["msg"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        parent = _model_at(model, tuple(loc[:-1]))
        known = sc.known_keys(parent) if parent is not None else ()
        match = sc.close_key(key, known) if known else None
        if match is not None:
            return "unknown_key", f"unknown key {key!r}, not read; did you mean {match!r}?"
        shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        return "unknown_key", f"unknown key {key!r}, not read (known keys: {shown})"
    if kind == "missing":
        field = str(loc[-1]) if loc else "?"
        parent = _model_at(model, tuple(loc[:-1]))
        aliases: tuple[str, ...] = ()
        if parent is not None and field in parent.model_fields:
            aliases = tuple(a for a in _alias_names(parent.model_fields[field]) if a != field)
        msg = err["msg"]
        if msg == "Field required":
            msg = f"missing required field {field}"
            if aliases:
                msg += f" (or its alias{'es' if len(aliases) > 1 else ''} {', '.join(aliases)})"
            near = sc.misspelt_key(value, (field, *aliases)) if isinstance(value, dict) else None
            if near is not None:  # the object lacking the field has a key close to it
                msg += f"; the object has {near!r}: a misspelling?"
        return "missing_field", msg
    rule = _TYPE_RULES.get(kind)
    msg = err["msg"].replace("Input should be", "expected")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        msg = "expected an object"
    if rule is None:
        rule = "wrong_type" if kind.endswith("_type") or kind.endswith("_parsing") else "other"
    if rule == "wrong_type" and "got" not in msg:
        msg += f", got {_json_type(value)}"
    return rule, msg


def _validate(model: type[BaseModel], doc: Any) -> list[dict[str, Any]]:
    """Every pydantic error of ``doc``; the turns one at a time (memory stays flat in turns).

    pydantic builds the validated objects; validating a file's head and then each turn on its
    own keeps only one turn's objects alive, so a 10,000-turn conversation costs no more memory
    than a short one.
    """
    turn_model = getattr(model, "turn_model", None)
    turns = doc.get("turns") if isinstance(doc, dict) else None
    if turn_model is None or not isinstance(turns, list):
        try:
            model.model_validate(doc)
        except ValidationError as exc:
            return exc.errors(include_url=False)
        return []
    errors: list[dict[str, Any]] = []
    try:
        model.model_validate({**doc, "turns": []})
    except ValidationError as exc:
        errors += exc.errors(include_url=False)
    validate = turn_model.model_validate
    for i, turn in enumerate(turns):
        try:
            validate(turn)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                err["loc"] = ("turns", i, *err["loc"])
                errors.append(err)
    return errors


def schema_findings(kind: str, file: str, doc: Any) -> list[Finding]:
    """Validate one parsed document with the model of its ``kind`` (see ``schema.FILE_MODELS``).

    Returns every error and warning, each naming ``file``, the JSON path, the value and what was
    expected. A document that is not a JSON object gives one ``wrong_type`` error.
    """
    model = sc.FILE_MODELS[kind]
    out = _open_block_warnings(file, doc) if kind == "ground_truth" else []
    if isinstance(doc, dict):
        _missing_expected(model, doc, (), file, out)
    errors = _validate(model, doc)
    if not errors:
        return out
    seen: set[tuple[str, str]] = set()
    for err in errors:
        loc = tuple(err["loc"])
        if sc.FAST in loc:  # the fast branch of a value checked again in Python
            continue
        if sc.CHECK in loc:
            loc = tuple(p for p in loc if p != sc.CHECK)
        if loc and loc[-1] == "[key]":  # a dict key itself
            loc = loc[:-1]
        rule, message = _message(err, model)
        path = json_path(loc)
        if (path, rule) in seen:
            continue
        seen.add((path, rule))
        shown = "" if rule in ("missing_field", "unknown_key") else short(err.get("input"))
        severity = "warning" if rule in WARNING_RULES else "error"
        out.append(Finding(file, path, message, shown, rule, severity))
    return out


def _open_block_warnings(file: str, doc: Any) -> list[Finding]:
    """Near misses of known keys in the blocks that accept extra keys (spec 1.4 ``...extra``)."""
    out = []
    if not isinstance(doc, dict):
        return out
    for name, model in (("metadata", sc.Metadata), ("participant_profile", sc.ParticipantProfile)):
        block = doc.get(name)
        if not isinstance(block, dict):
            continue
        known = sc.known_keys(model)
        for key in block:
            if isinstance(key, str) and key not in known:
                match = sc.close_key(key, known, cutoff=0.8)
                if match is not None and match not in block:
                    out.append(Finding(
                        file, json_path((name, key)),
                        f"unknown key {key!r}, kept as an extra key; did you mean {match!r}?",
                        "", "unknown_key", "warning",
                    ))  # fmt: skip
    return out


#: the group of the follow-on errors (findings with a ``cause``) in the load report
FOLLOW_ON = "follow_on"
FOLLOW_ON_TITLE = (
    "follow-on errors of run outputs (they follow from the ground-truth errors above: fix those "
    "first)"
)
#: follow-on errors listed per ground-truth file by default (``max_per_group=None``: all)
_FOLLOW_ON_SHOWN = 3


def rule_title(rule: str) -> str:
    """The heading of a group of the load report (a rule, or :data:`FOLLOW_ON`)."""
    return FOLLOW_ON_TITLE if rule == FOLLOW_ON else RULE_TITLES.get(rule, rule)


def in_ground_truth(finding: Any) -> bool:
    """Whether a finding is about the ground truth or ``release.json`` (not under ``runs/``)."""
    file = str(finding.file)
    return not (file == "runs" or file.startswith("runs/"))


def group_counts(findings: Any) -> list[tuple[str, int]]:
    """(rule, count) of the findings, most frequent first; follow-on errors (those with a
    ``cause``) are one group, :data:`FOLLOW_ON`, counted last."""
    counts: dict[str, int] = {}
    follow_on = 0
    for f in findings:
        if getattr(f, "cause", ""):
            follow_on += 1
        else:
            counts[f.rule] = counts.get(f.rule, 0) + 1
    out = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return out + ([(FOLLOW_ON, follow_on)] if follow_on else [])


def format_findings(findings: Any, heading: str, *, max_per_group: int | None = 10) -> list[str]:
    """Lines of one severity: the heading with the count, then each group with its count.

    The groups holding a finding of the ground truth (or ``release.json``) come first, then those
    of run outputs only (each by size), and in each group the ground-truth findings first: what
    else is reported often follows from them. Follow-on errors (a ``cause``) come last, listed
    under the ground-truth file they follow from.
    """
    findings = list(findings)
    if not findings:
        return []
    unlimited = max_per_group is None or max_per_group <= 0
    lines = [f"{heading} ({len(findings)}):"]
    primary = [f for f in findings if not getattr(f, "cause", "")]
    groups = group_counts(primary)
    has_truth = {f.rule for f in primary if in_ground_truth(f)}
    for rule, n in sorted(groups, key=lambda g: g[0] not in has_truth):  # stable: by size
        lines.append(f"  {rule_title(rule)}: {n}")
        shown = sorted((f for f in primary if f.rule == rule), key=lambda f: not in_ground_truth(f))
        limit = len(shown) if unlimited else max_per_group
        lines += [f"    {f}" for f in shown[:limit]]
        if len(shown) > limit:
            lines.append(f"    ... and {len(shown) - limit} more (--all lists every one)")
    by_cause: dict[str, list[Any]] = {}
    for f in findings:
        if getattr(f, "cause", ""):
            by_cause.setdefault(f.cause, []).append(f)
    if by_cause:
        lines.append(f"  {FOLLOW_ON_TITLE}: {len(findings) - len(primary)}")
        causes = list(by_cause.items())
        n_causes = len(causes) if unlimited else max_per_group
        for cause, found in causes[:n_causes]:
            n_files = len({f.file for f in found})
            verb = "follows" if len(found) == 1 else "follow"
            lines.append(f"    {len(found)} {verb} from {cause} (in {n_files} run "
                         f"file{'s' if n_files != 1 else ''}):")  # fmt: skip
            limit = len(found) if unlimited else min(_FOLLOW_ON_SHOWN, max_per_group)
            lines += [f"      {f}" for f in found[:limit]]
            if len(found) > limit:
                lines.append(f"      ... and {len(found) - limit} more (--all lists every one)")
        if len(causes) > n_causes:
            lines.append(f"    ... and {len(causes) - n_causes} more ground-truth files "
                         "(--all lists every one)")  # fmt: skip
    return lines


_PLAN: dict[type[BaseModel], tuple[Any, Any, frozenset[str]]] = {}


def _plan(model: type[BaseModel]) -> tuple[Any, Any, frozenset[str]]:
    """(expected fields with their aliases, children that hold expected fields, the expected
    names) of a model."""
    if model in _PLAN:
        return _PLAN[model]
    _PLAN[model] = ((), (), frozenset())  # recursion guard
    fields = model.model_fields
    expected = tuple((name, (name, *_alias_names(fields[name]))) for name in model.expected)
    children = []
    for name, info in fields.items():
        for cand in _unwrap(info.annotation):
            origin = get_origin(cand)
            container, child = None, cand
            if origin in (list, dict):
                container, child = origin, get_args(cand)[-1]
                child = next((c for c in _unwrap(child) if isinstance(c, type)
                              and issubclass(c, BaseModel)), None)  # fmt: skip
            if isinstance(child, type) and issubclass(child, BaseModel):
                sub = _plan(child)
                if sub[0] or sub[1]:
                    children.append(((name, *_alias_names(info)), child, container))
                break
    _PLAN[model] = (expected, tuple(children), frozenset(model.expected))
    return _PLAN[model]


def _missing_expected(model: type[BaseModel], doc: dict[str, Any], loc: tuple[Any, ...],
                      file: str, out: list[Finding]) -> None:  # fmt: skip
    """A ``missing_expected`` warning for every expected field absent from ``doc`` (recursive)."""
    expected, children, canonical = _plan(model)
    if canonical <= doc.keys():
        expected = ()  # the common case: every expected field under its own name
    for name, names in expected:
        if not any(n in doc for n in names):
            alias = f" (or {', '.join(names[1:])})" if len(names) > 1 else ""
            means = getattr(model, "when_missing", {}).get(name, "read as null or empty")
            out.append(Finding(file, json_path((*loc, name)), f"missing field {name}{alias}: "
                               f"{means}", "", "missing_expected", "warning"))  # fmt: skip
    for names, child, container in children:
        key = next((n for n in names if n in doc), None)
        if key is None:
            continue
        value = doc[key]
        if container is None:
            if isinstance(value, dict):
                _missing_expected(child, value, (*loc, key), file, out)
        elif container is list and isinstance(value, list):
            sub_expected, sub_children, sub_canonical = _plan(child)
            for i, item in enumerate(value):
                # leaves with every expected key under its own name need no call
                if type(item) is dict and (sub_children or not sub_canonical <= item.keys()):
                    _missing_expected(child, item, (*loc, key, i), file, out)
        elif container is dict and isinstance(value, dict):
            for k, item in value.items():
                if isinstance(item, dict):
                    _missing_expected(child, item, (*loc, key, k), file, out)
