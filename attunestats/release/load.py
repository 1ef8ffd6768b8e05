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

Other files (``truth.json``, READMEs) are ignored.

What is an error (a :class:`~attunestats.errors.Problem`; all are raised together in one
:class:`~attunestats.errors.ReleaseError`)
-------------------------------------------------------------------------------------------
Unreadable JSON; a file that is not a JSON object; missing required fields (``turns`` and each
turn's ``turnNumber``; each tag's ``emotion``; each judgement's and comparison's ``questionId``;
each comparison's two response labels; a run's ``conversationId``/``source_file``); a value of
the wrong JSON type anywhere the loader reads; non-numeric or non-finite numbers; duplicate turn
numbers, conversation ids or (predictor, mode, conversation) keys; a run for a conversation or a
turn the ground truth lacks; a predictor with no run files (including one named only in
``release.json``); an empty release; text with unpaired UTF-16 surrogates.

Everything else that is changed is recorded in ``release.report`` (rules in
:data:`~attunestats.release.model.REPORT_RULES`): aliases, normalised spellings, rounding,
clamping, derived totals, unknown emotion labels (kept in the ground truth with
``known=False``, dropped from predictions), duplicate question ids (last kept), ground-truth turns
a run lacks, ignored fields.

Row order of the tables
-----------------------
Conversations in natural id order (``"5" < "17" < "abc"``); predictors, then modes, sorted as
strings; turns ascending; tags, comparisons and positions ascending; PANAS items in
``constants.PANAS_ITEMS`` order (``pre`` before ``post``); binary tasks in the order
``om, human, om_hp, human_hp, draft``; question ids in file order.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import math
import os
import re
import reprlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from attunestats.constants import FOUR_BRANCHES, PANAS_ITEMS, SUBSETS
from attunestats.errors import Problem, ReleaseError
from attunestats.release import normalize as nz
from attunestats.release.model import (
    TABLE_SCHEMAS,
    LoadReport,
    Release,
    coerce_table,
)

__all__ = [
    "RELEASE_FORMAT",
    "diagnosis_group",
    "load_release",
    "release_from_documents",
    "validate_release",
]

RELEASE_FORMAT = "attunestats-release/1"
_CONV_FILE = re.compile(r"^conversation_(.+)\.json$")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_MAX_INDEX = 2**31 - 1
_REPR = reprlib.Repr(maxstring=60, maxother=60, maxlist=4, maxdict=4, maxlevel=2)
_CANON_BINARY = frozenset({"yes", "no", "na"})
_BINARY_TASKS = (
    ("om", "em_binary_om_assessment"),
    ("human", "em_binary_human_prediction"),
    ("om_hp", "em_binary_om_assessment_hp"),
    ("human_hp", "em_binary_human_prediction_hp"),
    ("draft", "em_draft_binary_assessment"),
)
_TASK_NAMES = [t for t, _ in _BINARY_TASKS]
_JUDGE_KEYS = ("overall_score", "emotional_appropriateness", "helpfulness", "tone_match")
_IGNORED_TURN_FIELDS = (
    "em_draft_judge_scores_by_model",
    "em_draft_binary_assessment_by_model",
    "em_four_branch_scores",
    "response_reasoning",
    "emotion_reasoning",
)
_BLINDED_LABELS = {"alternate1": "alternate", "alternate2": "human"}
_OBSERVED = ("observedBehavior", "did_occur", "humanValue", "actualValue")
_PREFERRED = ("preferredBehavior", "should_occur", "humanPreference")

# --- diagnosis groups --------------------------------------------------------------------------

#: Keyword rule of :func:`diagnosis_group`: substrings (of lower-cased traits) per group.
DIAGNOSIS_KEYWORDS: Mapping[str, tuple[str, ...]] = {
    "anxiety_depression": ("anxi", "depress", "panic", "dysthymi"),
    "asd_adhd": ("autis", "asperger", "adhd", "attention deficit", "attention-deficit"),
}
#: Whole-word abbreviations per group.
DIAGNOSIS_WORDS: Mapping[str, frozenset[str]] = {
    "anxiety_depression": frozenset({"gad", "mdd"}),
    "asd_adhd": frozenset({"asd"}),
}
_NEGATION_PREFIXES = ("no ", "not ", "non-", "non ", "without ", "none")
_WORD = re.compile(r"[a-z]+")


def diagnosis_group(traits: Sequence[str] | None) -> str:
    """Diagnosis group of a participant from the ``traits`` of the profile.

    The rule, applied to each trait lower-cased and stripped:

    - a trait starting with ``no``, ``not``, ``non-``, ``without`` or ``none`` is ignored
      (``"no diagnosis"``, ``"non-anxious"``);
    - it signals **anxiety/depression** if it contains ``anxi``, ``depress``, ``panic`` or
      ``dysthymi``, or the word ``gad`` or ``mdd``;
    - it signals **ASD/ADHD** if it contains ``autis``, ``asperger``, ``adhd``,
      ``attention deficit``/``attention-deficit``, or the word ``asd``, or is exactly ``add``.

    Parameters
    ----------
    traits : sequence of str or None
        ``participant_profile.traits``; ``None`` when the profile or the field is missing.

    Returns
    -------
    str
        ``"unknown"`` if ``traits`` is ``None``; ``"multiple"`` if both groups are signalled;
        ``"anxiety_depression"`` or ``"asd_adhd"`` if one is; ``"none"`` otherwise (including
        an empty list). Display labels are in ``constants.DIAGNOSIS_GROUPS``.

    Examples
    --------
    >>> diagnosis_group(["Generalized anxiety disorder", "left-handed"])
    'anxiety_depression'
    >>> diagnosis_group(["ADHD", "Depression"])
    'multiple'
    >>> diagnosis_group(["no diagnosis"])
    'none'
    """
    if traits is None:
        return "unknown"
    if isinstance(traits, str):
        raise TypeError(f"traits must be a sequence of strings, not a string: {traits!r}")
    found: set[str] = set()
    for trait in traits:
        if not isinstance(trait, str):
            raise TypeError(f"traits must hold strings, got {trait!r}")
        text = trait.strip().lower()
        if not text or text.startswith(_NEGATION_PREFIXES):
            continue
        words = set(_WORD.findall(text))
        for group, keys in DIAGNOSIS_KEYWORDS.items():
            if any(k in text for k in keys) or words & DIAGNOSIS_WORDS[group]:
                found.add(group)
        if text == "add":  # attention deficit disorder; "add" inside a trait is the verb
            found.add("asd_adhd")
    if len(found) == 2:
        return "multiple"
    if found:
        return found.pop()
    return "none"


# --- small helpers -----------------------------------------------------------------------------


_PLAIN = (int, float, bool, type(None))


def _short(value: Any) -> str:
    """A short ``repr`` of a value read from a file (containers and long strings abbreviated)."""
    if (type(value) is str and len(value) <= 60) or type(value) in _PLAIN:
        if type(value) is int and not -(10**18) < value < 10**18:
            return _REPR.repr(value)
        return repr(value)
    return _REPR.repr(value)


def _key(path: str, key: str) -> str:
    """JSON path of ``key`` under ``path``: ``$.a.b`` or ``$.a["odd key"]``."""
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


#: A JSON path is built only when a problem or an event is recorded: either a string or a
#: ``(parent, key_or_index)`` pair whose parent is again a path.
JPath = str | tuple[Any, str | int]


def _resolve(path: JPath) -> str:
    if isinstance(path, str):
        return path
    parent, key = path
    base = _resolve(parent)
    if isinstance(key, int):
        return f"{base}[{key}]"
    return _key(base, key)


def _natural(cid: str) -> tuple[int, int, str]:
    if cid.isascii() and cid.isdigit():
        return (0, int(cid), cid)
    return (1, 0, cid)


def _id_from_name(name: str) -> str | None:
    m = _CONV_FILE.match(os.path.basename(name))
    return m.group(1) if m else None


def _type_name(value: Any) -> str:
    return nz._type_name(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_MISSING = object()


@dataclass
class _GroundTruth:
    """What the run checks need to know about one loaded conversation."""

    turns: frozenset[int]
    pre: nz.PanasBlock


class _Columns:
    """Column-wise row accumulator for one table."""

    def __init__(self, names: Sequence[str]) -> None:
        self.cols: dict[str, list[Any]] = {n: [] for n in names}

    def add(self, *values: Any) -> None:
        for col, v in zip(self.cols.values(), values):
            col.append(v)


# --- the loader --------------------------------------------------------------------------------


class _Loader:
    """Walks the documents once, recording problems and report events, building columns."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.ev: list[tuple[str, JPath, str, Any, Any]] = []
        self.file = ""
        g = TABLE_SCHEMAS
        self.conversations = _Columns(g["conversations"])
        self.panas_items = _Columns(g["panas_items"])
        self.survey = _Columns(g["survey_choices"])
        self.turns = _Columns(g["turns"])
        self.tags = _Columns(g["emotion_tags"])
        self.judgements = _Columns(g["binary_judgements"])
        self.pairwise = _Columns(g["pairwise_comparisons"])
        self.participants: dict[str, list[Any]] = {}
        self.gt: dict[str, _GroundTruth] = {}
        # predictions: run-level rows, and per-run row blocks of the long tables
        self.runs = _Columns(
            [c for c in g["runs"] if c not in ("predictor", "mode", "conversation_id")]
        )
        self.run_keys: list[tuple[str, str, str]] = []
        self.pp_run: list[int] = []
        self.pp_item: list[str] = []
        self.pp_value: list[float] = []
        self.ps_run: list[int] = []
        self.ps = _Columns(["question", "position", "value"])
        self.pt_run: list[int] = []
        self.pt = _Columns(
            [c for c in g["pred_turns"] if c not in ("predictor", "mode", "conversation_id")]
        )
        self.pe_run: list[int] = []
        self.pe = _Columns(["turn", "position", "emotion", "intensity"])
        self.pb_block_run: list[int] = []
        self.pb_block_turn: list[int] = []
        self.pb_block_task: list[int] = []
        self.pb_block_n: list[int] = []
        self.pb_qid: list[str] = []
        self.pb_value: list[Any] = []
        self.pw_run: list[int] = []
        self.pw = _Columns(["turn", "comparison", "selection", "assigned_a", "assigned_b"])

    # -- recording -----------------------------------------------------------------------------
    def problem(self, path: JPath, message: str, value: Any = _MISSING) -> None:
        shown = "" if value is _MISSING else _short(value)
        self.problems.append(Problem(self.file, _resolve(path), message, shown))

    def event(self, path: JPath, rule: str, original: Any, result: Any) -> None:
        # kept raw; paths and reprs are built once, in _report
        self.ev.append((self.file, path, rule, original, result))

    def events(self, path: JPath, rules: tuple[str, ...], original: Any, result: Any) -> None:
        for rule in rules:
            self.ev.append((self.file, path, rule, original, result))

    def normalized(self, fn: Any, raw: Any, path: JPath, *args: Any, **kw: Any) -> Any:
        """Apply a normalize.* rule, recording its events, or a problem (then return None)."""
        try:
            norm = fn(raw, *args, **kw)
        except nz.NormalizationError as exc:
            self.problem(path, str(exc), raw)
            return None
        if norm.rules:
            self.events(path, norm.rules, raw, norm.value)
        return norm.value

    # -- typed accessors ------------------------------------------------------------------------
    def obj(self, value: Any, path: JPath) -> dict[str, Any] | None:
        if value is None or isinstance(value, dict):
            return value
        self.problem(path, f"must be an object or null, not {_type_name(value)}", value)
        return None

    def array(self, value: Any, path: JPath) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self.problem(path, f"must be an array or null, not {_type_name(value)}", value)
        return []

    def text(self, obj: Mapping[str, Any], key: str, path: JPath) -> str | None:
        value = obj.get(key)
        if value is None or isinstance(value, str):
            return value
        self.problem((path, key), f"must be a string or null, not {_type_name(value)}", value)
        return None

    def text_value(self, value: Any, path: JPath) -> str | None:
        if value is None or isinstance(value, str):
            return value
        self.problem(path, f"must be a string or null, not {_type_name(value)}", value)
        return None

    def number(self, obj: Mapping[str, Any], key: str, path: JPath) -> float:
        value = obj.get(key)
        if value is None:
            return math.nan
        if _is_int(value) or isinstance(value, float):
            try:
                x = float(value)
            except OverflowError:
                x = math.inf
            if math.isfinite(x):
                return x
            self.problem((path, key), "must be a finite number", value)
            return math.nan
        self.problem((path, key), f"must be a number or null, not {_type_name(value)}", value)
        return math.nan

    def string_list(self, value: Any, path: JPath) -> list[str]:
        out = []
        for i, item in enumerate(self.array(value, path)):
            if isinstance(item, str):
                out.append(item)
            else:
                self.problem((path, i), f"must be a string, not {_type_name(item)}", item)
        return out

    def aliased(self, obj: Mapping[str, Any], names: Sequence[str], path: JPath) -> Any:
        """First non-null of ``names``; records ``alias_field`` when an alias was used."""
        value = obj.get(names[0])
        if value is not None:
            return value
        value, used = nz.first_present(obj, names[1:])
        if used is not None:
            self.event((path, used), "alias_field", used, names[0])
        return value

    def turn_number(self, turn: Any, path: JPath) -> int | None:
        if not isinstance(turn, dict):
            self.problem(path, f"turn must be an object, not {_type_name(turn)}", turn)
            return None
        if "turnNumber" not in turn or turn["turnNumber"] is None:
            self.problem((path, "turnNumber"), "missing required field turnNumber")
            return None
        n = turn["turnNumber"]
        if not _is_int(n) or not 0 <= n <= _MAX_INDEX:
            self.problem((path, "turnNumber"), "turnNumber must be a non-negative integer", n)
            return None
        return n

    def sorted_turns(
        self, raw_turns: list[Any], path: JPath
    ) -> list[tuple[int, str, dict[str, Any]]]:
        seen: dict[int, JPath] = {}
        out = []
        for i, turn in enumerate(raw_turns):
            tpath = (path, i)
            n = self.turn_number(turn, tpath)
            if n is None:
                continue
            if n in seen:
                self.problem(
                    (tpath, "turnNumber"), f"duplicate turn number (also at {_resolve(seen[n])})", n
                )
                continue
            seen[n] = tpath
            out.append((n, tpath, turn))
        out.sort(key=lambda x: x[0])
        return out

    def panas(self, raw: Any, path: JPath) -> nz.PanasBlock:
        try:
            block = nz.parse_panas(raw)
        except nz.NormalizationError as exc:
            where = _resolve(path)
            for sub, message, value in exc.details or (("", str(exc), raw),):
                self.problem(where + sub, message, value)
            return nz.PanasBlock()
        if block.events:
            where = _resolve(path)
            for sub, rule, original, result in block.events:
                self.event(where + sub, rule, original, result)
        return block

    def survey_block(
        self, raw: Any, path: JPath
    ) -> tuple[list[str], str | None, str | None, list[str], dict[str, float]]:
        cw = self.obj(raw, path)
        if cw is None:
            return [], None, None, [], {}
        q1_raw = self.aliased(cw, ("q1_lookingFor", "Q1"), path)
        q1 = self.string_list(q1_raw, (path, "q1_lookingFor"))
        q2 = self.text_value(
            self.aliased(cw, ("q2_emotionClarity", "Q2"), path), (path, "q2_emotionClarity")
        )
        q3 = self.text_value(self.aliased(cw, ("q3_modelFit", "Q3"), path), (path, "q3_modelFit"))
        q3f = self.string_list(cw.get("q3_followUp_whatFeltOff"), (path, "q3_followUp_whatFeltOff"))
        fb_path = (path, "fourBranchScores")
        fb_raw = self.obj(cw.get("fourBranchScores"), fb_path) or {}
        fb: dict[str, float] = {}
        for branch in FOUR_BRANCHES:
            if branch in fb_raw:
                value = self.normalized(nz.four_branch_score, fb_raw[branch], (fb_path, branch))
                if value is not None:
                    fb[branch] = value
        return q1, q2, q3, q3f, fb

    def label(self, raw: Any, path: JPath) -> str | None:
        """A pairwise response label; blinded names mapped (fast path of nz.response_label)."""
        if type(raw) is str:
            out = _BLINDED_LABELS.get(raw)
            if out is None:
                return raw
            self.ev.append((self.file, path, "label_normalised", raw, out))
            return out
        return self.normalized(nz.response_label, raw, path)

    def binary(self, raw: Any, path: JPath) -> str | None:
        if raw is None or (isinstance(raw, str) and raw in _CANON_BINARY):
            return raw
        return self.normalized(nz.binary_value, raw, path)

    def emotion_tag(self, tag: Any, path: JPath, *, ground_truth: bool) -> tuple[Any, ...] | None:
        if not isinstance(tag, dict):
            self.problem(path, f"emotion tag must be an object, not {_type_name(tag)}", tag)
            return None
        if tag.get("emotion") is None:
            self.problem((path, "emotion"), "missing required field emotion")
            return None
        raw = tag["emotion"]
        if isinstance(raw, str) and raw in nz.KNOWN_EMOTIONS:
            label, known = raw, True
        else:
            try:
                norm = nz.emotion_label(raw, ground_truth=ground_truth)
            except nz.NormalizationError as exc:
                self.problem((path, "emotion"), str(exc), raw)
                return None
            label = norm.value
            known = label in nz.KNOWN_EMOTIONS
            self.events((path, "emotion"), norm.rules, raw, label)
        raw_i = tag.get("intensity")
        if raw_i is None:
            intensity = math.nan
        elif _is_int(raw_i) and 1 <= raw_i <= 7:
            intensity = float(raw_i)
        else:
            value = self.normalized(nz.mood_intensity, raw_i, (path, "intensity"))
            intensity = math.nan if value is None else value
        if label is None:
            return None
        return label, intensity, known

    # -- ground truth ---------------------------------------------------------------------------
    def conversation(self, file: str, cid: str, doc: dict[str, Any]) -> None:
        self.file = file
        meta = self.obj(doc.get("metadata"), "$.metadata") or {}
        topic = self.text(meta, "category", "$.metadata")
        subtopic = self.text(meta, "subtopic", "$.metadata")
        om = self.text(meta, "model", "$.metadata")
        provider = self.text(meta, "provider", "$.metadata")

        profile = self.obj(doc.get("participant_profile"), "$.participant_profile")
        pid: str | None = None
        age: str | None = None
        traits: list[str] | None = None
        if profile is not None:
            raw_pid = profile.get("participant_id")
            if isinstance(raw_pid, str) and raw_pid.strip():
                pid = raw_pid
            elif _is_int(raw_pid):
                pid = str(raw_pid)
            elif raw_pid is not None and not isinstance(raw_pid, str):
                self.problem("$.participant_profile.participant_id",
                             f"must be a string, integer or null, not {_type_name(raw_pid)}", raw_pid)  # fmt: skip
            raw_age = profile.get("age")
            if isinstance(raw_age, str):
                age = raw_age
            elif _is_int(raw_age) or isinstance(raw_age, float):
                age = str(raw_age)
            elif raw_age is not None:
                self.problem("$.participant_profile.age",
                             f"must be a string, number or null, not {_type_name(raw_age)}", raw_age)  # fmt: skip
            if profile.get("traits") is not None:
                traits = self.string_list(profile["traits"], "$.participant_profile.traits")
        if pid is None:
            pid = f"anon-{cid}"
            self.event("$.participant_profile.participant_id", "participant_anonymous", None, pid)
        joined = None if traits is None else "; ".join(traits)
        if pid in self.participants:
            row = self.participants[pid]
            row[4] += 1
            if (age, joined) != (row[2], row[3]):
                # the first conversation (in id order) gives the participant's profile
                self.event("$.participant_profile", "participant_conflict", (age, joined),
                           (row[2], row[3]))  # fmt: skip
        else:
            self.participants[pid] = [pid, diagnosis_group(traits), age, joined, 1]
        group = self.participants[pid][1]

        pre = self.panas(doc.get("prePanas"), "$.prePanas")
        post = self.panas(doc.get("postPanas"), "$.postPanas")
        for time, block in (("pre", pre), ("post", post)):
            for item in PANAS_ITEMS:
                if item in block.items:
                    self.panas_items.add(cid, time, item, block.items[item])
        q1, q2, q3, q3f, fb = self.survey_block(
            doc.get("conversationWideQuestions"), "$.conversationWideQuestions"
        )
        for question, values in (("q1_looking_for", q1), ("q3_follow_up", q3f)):
            for pos, value in enumerate(values):
                self.survey.add(cid, question, pos, value)

        turn_numbers = []
        if doc.get("turns") is None:
            self.problem("$.turns", "missing required field turns")
        raw_turns = self.array(doc.get("turns"), "$.turns")
        for n, tpath, turn in self.sorted_turns(raw_turns, "$.turns"):
            turn_numbers.append(n)
            self.gt_turn(cid, n, tpath, turn)
        self.gt[cid] = _GroundTruth(frozenset(turn_numbers), pre)
        self.conversations.add(
            cid, file, pid, group, topic, subtopic, om, provider, len(turn_numbers),
            _nan(pre.positive), _nan(pre.negative), _nan(post.positive), _nan(post.negative),
            q2, q3, *(fb.get(b, math.nan) for b in FOUR_BRANCHES),
        )  # fmt: skip

    def gt_turn(self, cid: str, n: int, path: JPath, turn: dict[str, Any]) -> None:
        user = self.text(turn, "userMessage", path)
        reply = self.text(turn, "llmResponse", path)
        tags_path = (path, "moodShiftTags")
        for pos, tag in enumerate(self.array(turn.get("moodShiftTags"), tags_path)):
            parsed = self.emotion_tag(tag, (tags_path, pos), ground_truth=True)
            if parsed is not None:
                self.tags.add(cid, n, pos, *parsed)
        apath = (path, "annotations")
        ann = self.obj(turn.get("annotations"), apath) or {}

        # binary judgements (last of a repeated questionId kept, as a dict would)
        bpath = (apath, "binaryJudgements")
        rows: dict[str, tuple[str | None, str | None, str | None]] = {}
        for i, bj in enumerate(self.array(ann.get("binaryJudgements"), bpath)):
            jpath = (bpath, i)
            if not isinstance(bj, dict):
                self.problem(jpath, f"binary judgement must be an object, not {_type_name(bj)}", bj)
                continue
            qid = bj.get("questionId")
            if qid is None:
                self.problem((jpath, "questionId"), "missing required field questionId")
                continue
            if not isinstance(qid, str):
                self.problem((jpath, "questionId"), f"must be a string, not {_type_name(qid)}", qid)
                continue
            llm = self.binary(bj.get("llmValue"), (jpath, "llmValue"))
            obs_raw = self.aliased(bj, _OBSERVED, jpath)
            obs = self.binary(obs_raw, (jpath, "observedBehavior"))
            pref_raw = self.aliased(bj, _PREFERRED, jpath)
            pref = self.binary(pref_raw, (jpath, "preferredBehavior"))
            if qid in rows:
                self.event((jpath, "questionId"), "duplicate_question", qid, qid)
                del rows[qid]
            rows[qid] = (llm, obs, pref)
        for qid, (llm, obs, pref) in rows.items():
            self.judgements.add(cid, n, qid, llm, obs, pref)

        # alternate responses
        alt_path = (apath, "alternateResponses")
        alt = self.obj(ann.get("alternateResponses"), alt_path) or {}
        improved = self.text_value(
            self.aliased(alt, ("llmImproved", "alternate1"), alt_path),
            (alt_path, "llmImproved"),
        )
        edited = self.text_value(
            self.aliased(alt, ("humanEdited", "alternate2"), alt_path),
            (alt_path, "humanEdited"),
        )

        # pairwise comparisons
        ppath = (apath, "pairwiseComparisons")
        for i, pw in enumerate(self.array(ann.get("pairwiseComparisons"), ppath)):
            cpath = (ppath, i)
            if not isinstance(pw, dict):
                self.problem(
                    cpath, f"pairwise comparison must be an object, not {_type_name(pw)}", pw
                )
                continue
            qid = pw.get("questionId")
            if qid is None:
                self.problem((cpath, "questionId"), "missing required field questionId")
                continue
            if not isinstance(qid, str):
                self.problem((cpath, "questionId"), f"must be a string, not {_type_name(qid)}", qid)
                continue
            labels = []
            for names in (("responseA", "response_1"), ("responseB", "response_2")):
                raw = self.aliased(pw, names, cpath)
                if raw is None:
                    self.problem((cpath, names[0]), f"missing required field {names[0]}")
                    labels.append(None)
                    continue
                labels.append(self.label(raw, (cpath, names[0])))
            winner = pw.get("winner")
            if winner is not None and winner != "A" and winner != "B":
                winner = self.normalized(nz.pairwise_winner, winner, (cpath, "winner"))
            self.pairwise.add(cid, n, i, qid, labels[0], labels[1], winner)

        selected = ann.get("selectedPairwiseQuestions")
        sel_path = (apath, "selectedPairwiseQuestions")
        selected_text = (
            None if selected is None else "; ".join(self.string_list(selected, sel_path))
        )
        self.turns.add(cid, n, user, reply, improved, edited, selected_text)

    # -- predictions ----------------------------------------------------------------------------
    def run(self, run_idx: int, file: str, doc: dict[str, Any], cid: str) -> None:
        self.file = file
        gt = self.gt[cid]
        em_model = self.text(doc, "em_model", "$")
        stamp = self.text(doc, "run_timestamp", "$")
        api_cost = self.number(doc, "api_cost", "$")
        duration = self.number(doc, "duration_seconds", "$")

        if doc.get("turns") is None:
            self.problem("$.turns", "missing required field turns")
        raw_turns = self.array(doc.get("turns"), "$.turns")
        present = set()
        ignored: dict[str, int] = {}
        for n, tpath, turn in self.sorted_turns(raw_turns, "$.turns"):
            if n not in gt.turns:
                self.problem(
                    (tpath, "turnNumber"),
                    f"prediction for turn {n}, which conversation {cid!r} of the ground truth lacks",
                    n,
                )
                continue
            present.add(n)
            self.run_turn(run_idx, n, tpath, turn)
            for name in _IGNORED_TURN_FIELDS:
                if turn.get(name):
                    ignored[name] = ignored.get(name, 0) + 1
        for n in sorted(gt.turns - present):
            self.event("$.turns", "ground_truth_turn_not_in_run", n, None)
        for name, count in ignored.items():
            self.event(f"$.turns[*].{name}", "ignored_field", f"{count} turn(s)", None)

        post_path = "$.post_conversation"
        post = self.obj(doc.get("post_conversation"), post_path) or {}
        strategy = self.text(post, "panas_strategy", post_path)
        pred = self.panas(post.get("predicted_post_panas"), (post_path, "predicted_post_panas"))
        delta_raw = post.get("predicted_panas_delta")
        delta_path = (post_path, "predicted_panas_delta")
        if pred.empty and delta_raw:
            try:
                pred = nz.rebuild_panas_from_delta(delta_raw, gt.pre)
            except nz.NormalizationError as exc:
                for sub, message, value in exc.details or (("", str(exc), delta_raw),):
                    self.problem(_resolve(delta_path) + sub, message, value)
            for sub, rule, original, result in pred.events:
                self.event(_resolve(delta_path) + sub, rule, original, result)
        elif delta_raw:
            self.event(delta_path, "ignored_field", delta_raw, None)
        if post.get("pre_panas_shown"):
            self.event((post_path, "pre_panas_shown"), "ignored_field", "pre_panas_shown", None)
        for item in PANAS_ITEMS:
            if item in pred.items:
                self.pp_run.append(run_idx)
                self.pp_item.append(item)
                self.pp_value.append(pred.items[item])
        q1, q2, q3, q3f, fb = self.survey_block(
            post.get("predicted_conversation_wide"), (post_path, "predicted_conversation_wide")
        )
        for question, values in (("q1_looking_for", q1), ("q3_follow_up", q3f)):
            for pos, value in enumerate(values):
                self.ps_run.append(run_idx)
                self.ps.add(question, pos, value)
        self.runs.add(
            file, em_model, stamp, strategy, _nan(pred.positive), _nan(pred.negative), q2, q3,
            *(fb.get(b, math.nan) for b in FOUR_BRANCHES), api_cost, duration,
        )  # fmt: skip

    def run_turn(self, run_idx: int, n: int, path: JPath, turn: dict[str, Any]) -> None:
        # emotion tags (unknown labels dropped, positions kept)
        tags_path = (path, "em_emotion_tags")
        for pos, tag in enumerate(self.array(turn.get("em_emotion_tags"), tags_path)):
            parsed = self.emotion_tag(tag, (tags_path, pos), ground_truth=False)
            if parsed is not None:
                self.pe_run.append(run_idx)
                self.pe.add(n, pos, parsed[0], parsed[1])

        # binary answers: the hot loop of the loader
        for code, (_, field) in enumerate(_BINARY_TASKS):
            answers = turn.get(field)
            if not answers:
                if answers is not None and not isinstance(answers, dict):
                    self.obj(answers, (path, field))
                continue
            if not isinstance(answers, dict):
                self.obj(answers, (path, field))
                continue
            values = list(answers.values())
            try:
                canonical = _CANON_BINARY.issuperset(values)
            except TypeError:  # unhashable values (arrays, objects)
                canonical = False
            if not canonical:
                fpath = (path, field)
                values = [self.binary(v, (fpath, q)) for q, v in answers.items()]
            self.pb_block_run.append(run_idx)
            self.pb_block_turn.append(n)
            self.pb_block_task.append(code)
            self.pb_block_n.append(len(values))
            self.pb_qid.extend(answers)
            self.pb_value.extend(values)

        # pairwise selections, with the A/B assignment shown to the EM
        spath = (path, "em_pairwise_selections")
        selections = self.obj(turn.get("em_pairwise_selections"), spath) or {}
        apath = (path, "pairwise_assignment")
        assignment = self.obj(turn.get("pairwise_assignment"), apath) or {}
        rows = []
        for key, raw in selections.items():
            kpath = (spath, key)
            if not (key.isascii() and key.isdigit() and len(key) <= 9):
                self.problem(kpath, "comparison key must be a non-negative integer string", key)
                continue
            selection = raw
            if raw != "A" and raw != "B":
                selection = self.normalized(nz.pairwise_winner, raw, kpath)
            a = b = None
            shown = assignment.get(key)
            if shown is not None:
                shown = self.obj(shown, (apath, key)) or {}
                a, b = shown.get("A"), shown.get("B")
                if a is not None:
                    a = self.label(a, ((apath, key), "A"))
                if b is not None:
                    b = self.label(b, ((apath, key), "B"))
            rows.append((int(key), selection, a, b))
        rows.sort(key=lambda r: r[0])
        for i, selection, a, b in rows:
            self.pw_run.append(run_idx)
            self.pw.add(n, i, selection, a, b)

        # draft and judge
        draft = self.text(turn, "em_drafted_response", path)
        jpath = (path, "em_draft_judge_scores")
        judge = self.obj(turn.get("em_draft_judge_scores"), jpath) or {}
        self.pt_run.append(run_idx)
        self.pt.add(n, draft, *(self.number(judge, k, jpath) for k in _JUDGE_KEYS))


def _nan(x: float | None) -> float:
    return math.nan if x is None else x


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
        problems.append(Problem("release.json", "$.simulated", "must be true or false",
                                _short(info["simulated"])))  # fmt: skip
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


def _build(
    conversations: Mapping[str, Any],
    runs: Mapping[str, Mapping[str, Any]],
    info: Any,
    *,
    root: Path | None,
    checksum: str,
    problems: list[Problem],
    events: list[tuple[str, str, str, str, str]],
    keep_ids: frozenset[str] | None = None,
    gt_where: str = "conversations/",
    gt_unreadable: bool = False,
    unreadable_predictors: frozenset[str] = frozenset(),
) -> Release:
    info = _check_info(info, problems)
    ld = _Loader()
    ld.problems = problems

    # ground truth: identify, check ids, order naturally
    n_problems = len(problems)
    by_id: dict[str, str] = {}
    excluded: set[str] = set()
    order = []
    for name, doc in conversations.items():
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
        order.append((_natural(cid), cid, name, doc))
    order.sort(key=lambda x: x[0])
    if not order and not gt_unreadable and len(problems) == n_problems:
        what = "no ground-truth conversation files"
        if conversations:
            what = "no ground-truth conversation of the requested subset"
        problems.append(Problem(gt_where, "", f"empty release: {what}"))
    for _, cid, name, doc in order:
        ld.conversation(name, cid, doc)

    # predictions: identify every run, check keys, then load in key order
    predictor_rows = []
    keyed = []
    seen_keys: dict[tuple[str, str, str], str] = {}
    listed = info.get("predictors") if isinstance(info.get("predictors"), dict) else {}
    for predictor in sorted(runs):
        files = runs[predictor]
        spec = _predictor_spec(info, predictor)
        kind = spec.get("kind") if spec.get("kind") in ("model", "human") else "model"
        display = (
            spec.get("display_name") if isinstance(spec.get("display_name"), str) else predictor
        )
        default_mode = spec.get("mode") if isinstance(spec.get("mode"), str) else "default"
        if not files and predictor not in unreadable_predictors:
            problems.append(Problem(f"runs/{predictor}", "", "predictor has no run files"))
        n_loaded = 0
        for name, doc in files.items():
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
                        "$.source_file",
                        "source_file is not conversation_<N>.json",
                        doc["source_file"],
                    )
                continue
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
                    ld.problem(where, "prediction for a conversation the ground truth lacks", cid)
                continue
            mode = (
                doc.get("mode")
                if isinstance(doc.get("mode"), str) and doc["mode"]
                else default_mode
            )
            key = (predictor, mode, cid)
            if key in seen_keys:
                ld.problem("$", f"duplicate run for predictor {predictor!r}, mode {mode!r}, conversation {cid!r} (also in {seen_keys[key]})")  # fmt: skip
                continue
            seen_keys[key] = name
            keyed.append(((predictor, mode, _natural(cid)), key, name, doc))
            n_loaded += 1
        predictor_rows.append((predictor, kind, display, n_loaded))
    for name in listed:
        if name not in runs:
            problems.append(Problem("release.json", _key("$.predictors", name), "predictor listed in release.json has no run files", _short(name)))  # fmt: skip
    keyed.sort(key=lambda x: x[0])
    for run_idx, (_, key, name, doc) in enumerate(keyed):
        ld.run_keys.append(key)
        ld.run(run_idx, name, doc, key[2])

    if problems:
        raise ReleaseError(problems)
    try:
        tables = _tables(ld, predictor_rows)
        report = _report(ld, events)
    except UnicodeEncodeError as exc:
        # text that is not valid Unicode: unpaired UTF-16 surrogates, e.g. from "\ud800" in JSON
        bad = _surrogate_problems(conversations, runs)
        if not bad:
            raise
        raise ReleaseError(bad) from exc
    return Release(root=root, tables=tables, report=report, info=dict(info), checksum=checksum)


# --- columns -> tables -------------------------------------------------------------------------


def _str_array(values: Sequence[Any]) -> pd.api.extensions.ExtensionArray:
    return pd.array(pa.array(values, type=pa.large_string()), dtype="str")


def _frame(name: str, cols: Mapping[str, Any]) -> pd.DataFrame:
    schema = TABLE_SCHEMAS[name]
    data = {}
    for col, dtype in schema.items():
        values = cols[col]
        if dtype == "str":
            data[col] = (
                values
                if isinstance(values, pd.api.extensions.ExtensionArray)
                else _str_array(values)
            )
        elif dtype == "int64":
            data[col] = np.asarray(values, dtype=np.int64)
        elif dtype == "float64":
            data[col] = np.asarray(values, dtype=np.float64)
        else:
            data[col] = np.asarray(values, dtype=dtype)
    return coerce_table(name, pd.DataFrame(data))


def _take(dictionary: pa.Array, indices: np.ndarray) -> pd.api.extensions.ExtensionArray:
    return pd.array(pc.take(dictionary, pa.array(indices)), dtype="str")


def _keyed(
    ld: _Loader, name: str, run_idx: Sequence[int] | np.ndarray, cols: Mapping[str, Any]
) -> pd.DataFrame:
    idx = np.asarray(run_idx, dtype=np.int64)
    keys = list(zip(*ld.run_keys)) if ld.run_keys else [(), (), ()]
    full = dict(cols)
    for col, values in zip(("predictor", "mode", "conversation_id"), keys):
        full[col] = _take(pa.array(list(values), type=pa.large_string()), idx)
    return _frame(name, full)


def _tables(
    ld: _Loader, predictor_rows: list[tuple[str, str, str, int]]
) -> dict[str, pd.DataFrame]:
    t: dict[str, pd.DataFrame] = {}
    parts = sorted(ld.participants.values(), key=lambda r: _natural(r[0]))
    t["participants"] = _frame(
        "participants", dict(zip(TABLE_SCHEMAS["participants"], zip(*parts) if parts else [[]] * 5))
    )
    t["conversations"] = _frame("conversations", ld.conversations.cols)
    t["panas_items"] = _frame("panas_items", ld.panas_items.cols)
    t["survey_choices"] = _frame("survey_choices", ld.survey.cols)
    t["turns"] = _frame("turns", ld.turns.cols)
    t["emotion_tags"] = _frame("emotion_tags", ld.tags.cols)
    t["binary_judgements"] = _frame("binary_judgements", ld.judgements.cols)
    t["pairwise_comparisons"] = _frame("pairwise_comparisons", ld.pairwise.cols)

    t["predictors"] = _frame(
        "predictors",
        dict(
            zip(TABLE_SCHEMAS["predictors"], zip(*predictor_rows) if predictor_rows else [[]] * 4)
        ),
    )
    t["runs"] = _keyed(ld, "runs", np.arange(len(ld.run_keys)), ld.runs.cols)
    t["pred_panas_items"] = _keyed(
        ld, "pred_panas_items", ld.pp_run, {"item": ld.pp_item, "value": ld.pp_value}
    )
    t["pred_survey_choices"] = _keyed(ld, "pred_survey_choices", ld.ps_run, ld.ps.cols)
    t["pred_turns"] = _keyed(ld, "pred_turns", ld.pt_run, ld.pt.cols)
    t["pred_emotion_tags"] = _keyed(ld, "pred_emotion_tags", ld.pe_run, ld.pe.cols)
    counts = np.asarray(ld.pb_block_n, dtype=np.int64)
    tasks = pa.array(_TASK_NAMES, type=pa.large_string())
    t["pred_binary"] = _keyed(
        ld,
        "pred_binary",
        np.repeat(np.asarray(ld.pb_block_run, dtype=np.int64), counts),
        {
            "turn": np.repeat(np.asarray(ld.pb_block_turn, dtype=np.int64), counts),
            "task": _take(tasks, np.repeat(np.asarray(ld.pb_block_task, dtype=np.int64), counts)),
            "question_id": ld.pb_qid,
            "value": ld.pb_value,
        },
    )
    t["pred_pairwise"] = _keyed(ld, "pred_pairwise", ld.pw_run, ld.pw.cols)
    return t  # fmt: skip


def _report(ld: _Loader, pre_events: list[tuple[str, str, str, str, str]]) -> LoadReport:
    files, paths, rules, origs, results = (
        (list(c) for c in zip(*pre_events)) if pre_events else ([], [], [], [], [])
    )
    for file, path, rule, original, result in ld.ev:
        files.append(file)
        paths.append(_resolve(path))
        rules.append(rule)
        origs.append(_short(original))
        results.append("" if result is None else _short(result))
    frame = pd.DataFrame({
        "file": pd.Series(files, dtype="str"),
        "path": pd.Series(paths, dtype="str"),
        "rule": pd.Series(rules, dtype="str"),
        "original": pd.Series(origs, dtype="str"),
        "result": pd.Series(results, dtype="str"),
    })  # fmt: skip
    return LoadReport(events=frame)


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

    Returns
    -------
    Release
        Its ``checksum`` is the SHA-256 over the sorted file names and the canonical JSON
        (``sort_keys=True``) of every document.

    Raises
    ------
    ReleaseError
        With every problem found (see the module docstring).
    """
    runs = {} if runs is None else runs
    with _gc_paused():
        checksum = _canonical_checksum(conversations, runs, info)
        return _build(conversations, runs, info, root=root, checksum=checksum, problems=[],
                      events=[], gt_where="conversations")  # fmt: skip


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


def load_release(path: str | os.PathLike[str], *, subset: str | None = None) -> Release:
    """Read and validate an AttuneBench release directory.

    Parameters
    ----------
    path : str or os.PathLike
        The release root (see the module docstring for the layout).
    subset : str, optional
        An official subset (``"Sample200"``, ``"Subsample100"``, ``"Subsample50"``,
        ``"Subsample25"``, ``"Subsample20"``; see ``constants.SUBSETS``). With
        ``conversations/`` it filters the ground truth (and the runs) to the subset's ids; with
        ``Test Samples/`` it picks the directory (default ``Sample200``).

    Returns
    -------
    Release
        Tidy tables (``release.conversations``, ``release.pred_binary``, ...) with the columns
        of :data:`~attunestats.release.model.TABLE_SCHEMAS`, ``release.report`` (everything
        normalised, clamped, derived or dropped), ``release.info`` (``release.json``) and
        ``release.checksum`` (SHA-256 over the sorted relative paths and bytes of every file
        read).

    Raises
    ------
    ReleaseError
        Listing every problem found, each naming the file, JSON path and value.
    ValueError
        If ``subset`` is not an official subset (``conversations/`` layout) or has no
        directory (``Test Samples/`` layout).

    Examples
    --------
    >>> release = load_release("path/to/release")  # doctest: +SKIP
    >>> release.summary()  # doctest: +SKIP
    """
    root = Path(path)
    if not root.is_dir():
        raise ReleaseError([Problem(str(path), "", "release directory not found")])
    with _gc_paused():
        return _load(root, subset)


def _load(root: Path, subset: str | None) -> Release:
    gt_dir, keep_ids, listed, problems = _pick_ground_truth(root, subset)

    # every file to read, by relative path
    to_read: list[tuple[str, Path, str, str]] = []  # (rel, path, kind, predictor)
    if (root / "release.json").is_file():
        to_read.append(("release.json", root / "release.json", "info", ""))
    if gt_dir is not None:
        for p in gt_dir.iterdir():
            if _CONV_FILE.match(p.name) and p.is_file():
                to_read.append((p.relative_to(root).as_posix(), p, "gt", ""))
    run_dirs: list[str] = []
    runs_root = root / "runs"
    if runs_root.is_dir():
        for d in sorted(runs_root.iterdir()):
            if not d.is_dir() or d.name.startswith("."):
                continue
            run_dirs.append(d.name)
            for p in d.rglob("*.json"):
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(d).parts):
                    rel = p.relative_to(root).as_posix()
                    to_read.append((rel, p, "run", d.name))
    to_read.sort(key=lambda e: e[0])

    h = hashlib.sha256()
    info: Any = None
    conversations: dict[str, Any] = {}
    runs: dict[str, dict[str, Any]] = {name: {} for name in run_dirs}
    gt_unreadable = False
    unreadable_predictors: set[str] = set()
    for rel, p, kind, predictor in to_read:
        try:
            data = p.read_bytes()
        except OSError as exc:
            problems.append(Problem(rel, "", f"cannot read file: {exc.strerror or exc}"))
            gt_unreadable |= kind == "gt"
            if kind == "run":
                unreadable_predictors.add(predictor)
            continue
        _hash_entry(h, rel, data)
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError) as exc:
            problems.append(Problem(rel, "", f"unreadable JSON: {exc}"))
            gt_unreadable |= kind == "gt"
            if kind == "run":
                unreadable_predictors.add(predictor)
            continue
        if _SURROGATE_ESCAPE.search(data):
            bad = _scan_surrogates(doc)
            for jpath, value in bad:
                problems.append(
                    Problem(rel, jpath, "text holds an unpaired UTF-16 surrogate", _short(value))
                )
            if bad:
                gt_unreadable |= kind == "gt"
                if kind == "run":
                    unreadable_predictors.add(predictor)
                continue
        if kind == "info":
            info = doc
        elif kind == "gt":
            conversations[rel] = doc
        else:
            runs[predictor][rel] = doc

    events: list[tuple[str, str, str, str, str]] = []
    gt_where = "."
    if gt_dir is not None:
        gt_where = gt_dir.relative_to(root).as_posix() + "/"
    if listed is not None:
        have = {_doc_id(name, doc) for name, doc in conversations.items()}
        for i in listed:
            if str(i) not in have:
                events.append((gt_where, "", "subset_id_missing", repr(str(i)), ""))
    return _build(
        conversations, runs, info, root=root, checksum=h.hexdigest(), problems=problems,
        events=events, keep_ids=keep_ids, gt_where=gt_where, gt_unreadable=gt_unreadable,
        unreadable_predictors=frozenset(unreadable_predictors),
    )  # fmt: skip


def validate_release(path: str | os.PathLike[str], *, subset: str | None = None) -> list[Problem]:
    """Every problem of a release directory; ``[]`` when it loads.

    Used by ``attunestats validate DIR``. A ``subset`` that is not official (``conversations/``
    layout) or has no directory (``Test Samples/`` layout) is reported as a problem too.

    Examples
    --------
    >>> for problem in validate_release("path/to/release"):  # doctest: +SKIP
    ...     print(problem)
    """
    try:
        load_release(path, subset=subset)
    except ReleaseError as exc:
        return list(exc.problems)
    except ValueError as exc:
        if subset is None or "subset=" not in str(exc):
            raise
        return [Problem(str(path), "", str(exc), _short(subset))]
    return []
