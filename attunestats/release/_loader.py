"""The loader's single pass over the documents: :class:`_Loader` and its small helpers.

Private helper of :mod:`attunestats.release.load`. :class:`_Loader` walks the parsed ground-truth
and run documents once, records every problem (:class:`~attunestats.errors.Problem`) and every
report event (rules of :data:`~attunestats.release.model.REPORT_RULES`), and fills the columns
that :mod:`attunestats.release._tables` turns into tables. The rules are those of the
:mod:`attunestats.release.load` docstring.
"""

from __future__ import annotations

import json
import math
import os
import re
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

import numpy as np

from attunestats.constants import FOUR_BRANCHES, PANAS_ITEMS
from attunestats.errors import Problem
from attunestats.release import normalize as nz
from attunestats.release._diagnosis import diagnosis_group
from attunestats.release.model import TABLE_SCHEMAS

_CONV_FILE = re.compile(r"^conversation_(.+)\.json$")
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
_IGNORED_TURN_FIELDS = ("em_draft_judge_scores_by_model", "em_draft_binary_assessment_by_model",
                        "em_four_branch_scores", "response_reasoning", "emotion_reasoning")  # fmt: skip
_BLINDED_LABELS = {"alternate1": "alternate", "alternate2": "human"}
_OBSERVED = ("observedBehavior", "did_occur", "humanValue", "actualValue")
_PREFERRED = ("preferredBehavior", "should_occur", "humanPreference")

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


def _missing(obj: Any, field: str, *aliases: str) -> str:
    """The message for a missing required field, naming a key of ``obj`` that looks like a
    misspelling of it (:func:`attunestats.release.schema.misspelt_key`)."""
    from attunestats.release.schema import misspelt_key

    msg = f"missing required field {field}"
    near = misspelt_key(obj, (field, *aliases)) if isinstance(obj, dict) else None
    if near is not None:
        msg += f"; the object has {near!r}: a misspelling?"
    return msg


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
    #: turn -> positions of its pairwise comparisons (the keys runs' selections refer to)
    comparisons: dict[int, frozenset[int]] = dc_field(default_factory=dict)
    file: str = ""  # the ground-truth file (named by warnings about runs)


class _Columns:
    """Column-wise row accumulator for one table."""

    def __init__(self, names: Sequence[str]) -> None:
        self.cols: dict[str, list[Any]] = {n: [] for n in names}

    def add(self, *values: Any) -> None:
        for col, v in zip(self.cols.values(), values):
            col.append(v)


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
        #: the file whose participant profile is kept (the participant's first conversation)
        self.profile_file: dict[str, str] = {}
        self.gt: dict[str, _GroundTruth] = {}
        self._comparisons: dict[int, frozenset[int]] = {}  # of the conversation being read
        # predictions: run-level rows, and per-run row blocks of the long tables
        self.runs = _Columns(
            [c for c in g["runs"] if c not in ("predictor", "mode", "conversation_id")]
        )
        self.run_keys: list[tuple[str, str, str]] = []
        self.mode_guessed = False  # set by run_mode for the run being read
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

    def normalized(self, fn: Any, raw: Any, path: JPath, *args: Any,
                   missing_rule: str | None = None, **kw: Any) -> Any:  # fmt: skip
        """Apply a normalize.* rule, recording its events, or a problem (then return None).

        ``missing_rule``: the event recorded when the value reads as missing (null or blank), in
        place of ``blank_value`` (one event per value).
        """
        try:
            norm = fn(raw, *args, **kw)
        except nz.NormalizationError as exc:
            self.problem(path, str(exc), raw)
            return None
        rules = norm.rules
        if missing_rule is not None and norm.value is None:
            rules = (*(r for r in rules if r != "blank_value"), missing_rule)
        if rules:
            self.events(path, rules, raw, norm.value)
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

    def judge(self, obj: Mapping[str, Any], key: str, path: JPath) -> float:
        """A judge score: a number, or a number written as a string (format doc)."""
        value = obj.get(key)
        if type(value) is int or type(value) is float:
            return self.number(obj, key, path)
        # given, but null or blank: the turn's mean omits it (a warning, not only blank_value)
        out = self.normalized(nz.judge_score, value, (path, key),
                              missing_rule="judge_score_null" if key in obj else None)  # fmt: skip
        return math.nan if out is None else out

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
            self.problem((path, "turnNumber"), _missing(turn, "turnNumber"))
            return None
        n = turn["turnNumber"]
        if not _is_int(n):
            self.problem((path, "turnNumber"),
                         f"turnNumber must be an integer, not {_type_name(n)}", n)  # fmt: skip
            return None
        if not 0 <= n <= _MAX_INDEX:
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
            self.problem((path, "emotion"), _missing(tag, "emotion"))
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

    def _repeated(self, label: str, seen: set[str], path: JPath) -> None:
        """Record ``duplicate_emotion`` when ``label`` was already tagged in this turn."""
        if label in seen:
            self.event((path, "emotion"), "duplicate_emotion", label, label)
        seen.add(label)

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
                           (row[2], row[3], self.profile_file[pid]))  # fmt: skip
        else:
            self.participants[pid] = [pid, diagnosis_group(traits), age, joined, 1]
            self.profile_file[pid] = file
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
        self._comparisons = {}
        if doc.get("turns") is None:
            self.problem("$.turns", _missing(doc, "turns"))
        raw_turns = self.array(doc.get("turns"), "$.turns")
        for n, tpath, turn in self.sorted_turns(raw_turns, "$.turns"):
            turn_numbers.append(n)
            self.gt_turn(cid, n, tpath, turn)
        self.gt[cid] = _GroundTruth(frozenset(turn_numbers), pre, self._comparisons, file)
        self.conversations.add(
            cid, file, pid, group, topic, subtopic, om, provider, len(turn_numbers),
            _nan(pre.positive), _nan(pre.negative), _nan(post.positive), _nan(post.negative),
            q2, q3, *(fb.get(b, math.nan) for b in FOUR_BRANCHES),
        )  # fmt: skip

    def gt_turn(self, cid: str, n: int, path: JPath, turn: dict[str, Any]) -> None:
        user = self.text(turn, "userMessage", path)
        reply = self.text(turn, "llmResponse", path)
        tags_path = (path, "moodShiftTags")
        seen: set[str] = set()
        for pos, tag in enumerate(self.array(turn.get("moodShiftTags"), tags_path)):
            parsed = self.emotion_tag(tag, (tags_path, pos), ground_truth=True)
            if parsed is not None:
                self._repeated(parsed[0], seen, (tags_path, pos))
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
                self.problem((jpath, "questionId"), _missing(bj, "questionId"))
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
        compared = self.array(ann.get("pairwiseComparisons"), ppath)
        self._comparisons[n] = frozenset(range(len(compared)))
        for i, pw in enumerate(compared):
            cpath = (ppath, i)
            if not isinstance(pw, dict):
                self.problem(
                    cpath, f"pairwise comparison must be an object, not {_type_name(pw)}", pw
                )
                continue
            qid = pw.get("questionId")
            if qid is None:
                self.problem((cpath, "questionId"), _missing(pw, "questionId"))
                continue
            if not isinstance(qid, str):
                self.problem((cpath, "questionId"), f"must be a string, not {_type_name(qid)}", qid)
                continue
            labels = []
            for names in (("responseA", "response_1"), ("responseB", "response_2")):
                raw = self.aliased(pw, names, cpath)
                if raw is None:
                    self.problem((cpath, names[0]), _missing(pw, *names))
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
    def sort_runs(self) -> None:
        """Put the runs, loaded in file order, in key order (predictor, mode, natural id).

        Runs are loaded as their files are read, one document at a time; this stable reorder of
        the run-indexed columns gives the tables the row order of the module docstring of
        :mod:`attunestats.release.load` (each run's rows together and in their own order).
        """
        keys = self.run_keys
        order = sorted(range(len(keys)), key=lambda i: (keys[i][0], keys[i][1], _natural(keys[i][2])))  # fmt: skip
        if order == list(range(len(keys))):
            return
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        self.run_keys = [keys[i] for i in order]
        for name, col in self.runs.cols.items():
            self.runs.cols[name] = [col[i] for i in order]

        def perm_of(run: list[int]) -> tuple[list[int], np.ndarray]:
            new = rank[np.asarray(run, dtype=np.int64)]
            perm = np.argsort(new, kind="stable")
            return new[perm].tolist(), perm

        def take(values: list[Any], perm: np.ndarray) -> list[Any]:
            return [values[i] for i in perm.tolist()]

        self.pp_run, perm = perm_of(self.pp_run)
        self.pp_item, self.pp_value = take(self.pp_item, perm), take(self.pp_value, perm)
        for run_name, cols in (("ps_run", self.ps), ("pt_run", self.pt), ("pe_run", self.pe),
                               ("pw_run", self.pw)):  # fmt: skip
            reordered, perm = perm_of(getattr(self, run_name))
            setattr(self, run_name, reordered)
            for name, col in cols.cols.items():
                cols.cols[name] = take(col, perm)
        # binary answers: blocks (one per run, turn and task), then the answers of each block
        sizes = np.asarray(self.pb_block_n, dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.pb_block_run, perm = perm_of(self.pb_block_run)
        self.pb_block_turn = take(self.pb_block_turn, perm)
        self.pb_block_task = take(self.pb_block_task, perm)
        self.pb_block_n = sizes[perm].tolist()
        new_sizes = sizes[perm]
        new_starts = np.concatenate([[0], np.cumsum(new_sizes)[:-1]]).astype(np.int64)
        flat = np.repeat(starts[perm] - new_starts, new_sizes) + np.arange(int(sizes.sum()))
        self.pb_qid, self.pb_value = take(self.pb_qid, flat), take(self.pb_value, flat)

    def run_mode(self, doc: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
        """The mode of a run: its ``mode``, else its predictor's in ``release.json``, else
        ``"default"`` (then :meth:`run` records ``mode_defaulted``, a warning)."""
        self.mode_guessed = False
        if isinstance(doc.get("mode"), str) and doc["mode"]:
            return doc["mode"]
        if isinstance(spec.get("mode"), str):
            return spec["mode"]
        self.mode_guessed = True
        return "default"

    def run(self, run_idx: int, file: str, doc: dict[str, Any], cid: str) -> None:
        self.file = file
        gt = self.gt[cid]
        em_model = self.text(doc, "em_model", "$")
        stamp = self.text(doc, "run_timestamp", "$")
        api_cost = self.number(doc, "api_cost", "$")
        duration = self.number(doc, "duration_seconds", "$")
        if self.mode_guessed:  # neither the file nor release.json gives the mode
            self.event("$.mode", "mode_defaulted", doc.get("mode"), self.run_keys[run_idx][1])

        if doc.get("turns") is None:
            self.problem("$.turns", _missing(doc, "turns"))
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
            self.run_turn(run_idx, n, tpath, turn, gt.comparisons.get(n, frozenset()), gt.file)
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

    def run_turn(
        self,
        run_idx: int,
        n: int,
        path: JPath,
        turn: dict[str, Any],
        compared: frozenset[int],
        gt_file: str,
    ) -> None:
        # emotion tags (unknown labels dropped, positions kept)
        tags_path = (path, "em_emotion_tags")
        seen: set[str] = set()
        for pos, tag in enumerate(self.array(turn.get("em_emotion_tags"), tags_path)):
            parsed = self.emotion_tag(tag, (tags_path, pos), ground_truth=False)
            if parsed is not None:
                self._repeated(parsed[0], seen, (tags_path, pos))
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
            if key != str(int(key)):  # "07": not str(i), the only key the scorer reads (2.3)
                self.event(kpath, "comparison_key_not_index", key, str(int(key)))
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
            if int(key) not in compared:
                self.event(kpath, "unknown_comparison", key, (gt_file, len(compared)))
            rows.append((int(key), selection, a, b))
        for key in assignment:
            if key not in selections and not (key.isdigit() and int(key) in compared):
                self.event((apath, key), "unknown_comparison", key, (gt_file, len(compared)))
        rows.sort(key=lambda r: r[0])
        for i, selection, a, b in rows:
            self.pw_run.append(run_idx)
            self.pw.add(n, i, selection, a, b)

        # draft and judge
        draft = self.text(turn, "em_drafted_response", path)
        jpath = (path, "em_draft_judge_scores")
        judge = self.obj(turn.get("em_draft_judge_scores"), jpath) or {}
        self.pt_run.append(run_idx)
        self.pt.add(n, draft, *(self.judge(judge, k, jpath) for k in _JUDGE_KEYS))


def _nan(x: float | None) -> float:
    return math.nan if x is None else x
