"""The schema of every file of a release, as pydantic v2 models: one model per kind of file.

=========================  ======================================================  ===========
file                       model                                                   spec
=========================  ======================================================  ===========
``conversation_<N>.json``  :class:`GroundTruthConversation` (ground truth)         1.4, 1.5
``runs/<model>/*.json``    :class:`RunOutput` (an evaluated model's run)           1.6
``runs/<rater>/*.json``    :class:`HumanRaterOutput` (a human baseline rater)      1.6
``release.json``           :class:`ReleaseInfo`                                    (package)
=========================  ======================================================  ===========

Every field has a type, a range, its documented aliases (``validation_alias``) and says whether
it is required: *required* fields must be present (under a documented alias or not), and
*nullable* ones may be ``null``. Aliases are those of spec 1.4 (``did_occur`` for
``observedBehavior``, ``response_1`` for ``responseA``, ``Q1`` for ``q1_lookingFor``,
``alternate1`` for ``llmImproved``, ...). Value spellings that spec 1.4 normalises (binary values
``true``/``Y``/``0``/``n/a``, winners ``a``/``response_2``, word intensities ``mild``, numbers
written as strings, PANAS items under ``items`` or ``responses``) are valid here and are
normalised, and recorded, by the loader.

How the validation result is read (:mod:`attunestats.release.check`): every pydantic error is an
**error** of the release, except the error types that start with ``warn_`` and unknown keys
(``extra_forbidden``), which are **warnings**:

- ``warn_unknown_key``: a key no model knows (a likely misspelling; the closest known key is
  suggested); ``metadata`` and ``participant_profile`` accept extra keys (spec 1.4), so there
  only keys close to a known one are reported;
- ``warn_unknown_emotion``: an emotion label outside the 20 PANAS items (scored by the spec 4
  convention: kept in the ground truth with similarity 0, dropped from predictions);
- ``warn_unknown_question``, ``warn_unknown_option``, ``warn_unknown_mode``,
  ``warn_unknown_strategy``: an id or option outside the lists of spec 1.5 (scored as written);
- ``warn_clamped``: a number outside its range that spec 1.4 clamps (mood intensity 1..7, PANAS
  totals 10..70, four-branch scores 1..7).

Numbers without a clamping rule (PANAS items 1..7, judge scores 1..7, turn numbers >= 0, costs
and durations >= 0, PANAS changes -60..60) are errors when out of range.

May import: pydantic, :mod:`attunestats.constants`.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    model_validator,
)
from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from attunestats.constants import (
    BINARY_QUESTION_IDS,
    EMOTION_LABELS,
    FOUR_BRANCH_MAX,
    FOUR_BRANCH_MIN,
    MODES,
    MOOD_INTENSITY_MAX,
    MOOD_INTENSITY_MIN,
    MOOD_INTENSITY_WORDS,
    PAIRWISE_QUESTIONS,
    PANAS_ITEM_MAX,
    PANAS_ITEM_MIN,
    PANAS_ITEMS,
    PANAS_STRATEGIES,
    PANAS_TOTAL_MAX,
    PANAS_TOTAL_MIN,
    Q1_OPTIONS,
    Q2_OPTIONS,
    Q3_OPTIONS,
    RESPONSE_LABELS,
)

__all__ = [
    "FILE_MODELS",
    "GroundTruthConversation",
    "HumanRaterOutput",
    "ReleaseInfo",
    "RunOutput",
    "close_key",
]

_BLANK = ("", "None")
_BINARY_SPELLINGS = r"(?i)^\s*(yes|no|na|true|false|y|n|1|0|n/a|not_applicable)\s*$"
_WINNER_SPELLINGS = r"(?i)^\s*(a|b|response_1|response_2)\s*$"


def _ce(schema: cs.CoreSchema, kind: str, message: str) -> cs.CoreSchema:
    return cs.custom_error_schema(schema, kind, custom_error_message=message)


class _Core:
    """An ``Annotated`` marker that supplies a ready pydantic-core schema."""

    def __init__(self, schema: cs.CoreSchema) -> None:
        self.schema = schema

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return self.schema


def _t(schema: cs.CoreSchema) -> Any:
    return Annotated[Any, _Core(schema)]


#: Labels of the two branches of :func:`_fast` in error locations (dropped, or stripped, by
#: :func:`attunestats.release.check.schema_findings`).
FAST, CHECK = "\u00b7fast", "\u00b7check"


def _fast(schema: cs.CoreSchema, check: Any) -> cs.CoreSchema:
    """``schema`` checked in pydantic-core first; only values it rejects reach ``check``.

    Keeps the common case (a valid value) out of Python while ``check`` words the errors.
    """
    return cs.union_schema(
        [(schema, FAST), (cs.no_info_plain_validator_function(check), CHECK)], mode="left_to_right"
    )


# --- value types ----------------------------------------------------------------------------------


def _unrecognised(what: str) -> Any:
    def check(value: Any) -> Any:
        if isinstance(value, str | int | float):
            raise PydanticCustomError(
                "warn_unrecognised", "not a spelling of {what}: read as null (spec 1.4)",
                {"what": what},
            )  # fmt: skip
        raise PydanticCustomError("value_type", "expected a string or null")

    return check


#: yes / no / na / null, or a spelling spec 1.4 maps to them (true, Y, 0, n/a, ...); another
#: string or number is read as null (a warning), an array or object is an error.
_BINARY = _fast(_ce(cs.union_schema([
    cs.literal_schema(["yes", "no", "na"]), cs.none_schema(),
    cs.str_schema(pattern=_BINARY_SPELLINGS), cs.bool_schema(strict=True),
    cs.int_schema(strict=True, ge=0, le=1),
], mode="left_to_right"), "binary_value", "binary value"),
    _unrecognised("yes, no, na (or true/false, y/n, 1/0, n/a, not_applicable)"))  # fmt: skip
BinaryValue = _t(_BINARY)

#: "A" / "B" / null, or a spelling spec 1.4 maps to them (a, b, response_1, response_2).
_WINNER = _fast(_ce(cs.union_schema([
    cs.literal_schema(["A", "B"]), cs.none_schema(), cs.str_schema(pattern=_WINNER_SPELLINGS),
], mode="left_to_right"), "winner", "winner"),
    _unrecognised("A or B (or a, b, response_1, response_2)"))  # fmt: skip
Winner = _t(_WINNER)

#: original / alternate / human, or the blinded alternate1 / alternate2.
ResponseLabel = _t(_ce(
    cs.literal_schema([*RESPONSE_LABELS, "alternate1", "alternate2"]), "response_label",
    "expected a response label: original, alternate, human (or alternate1, alternate2)"))  # fmt: skip

_KNOWN_EMOTIONS = frozenset(EMOTION_LABELS)


def _emotion(value: Any) -> Any:
    if not isinstance(value, str):
        raise PydanticCustomError("string_type", "expected an emotion label (a string)")
    if value.strip().lower() in _KNOWN_EMOTIONS:
        return value
    raise PydanticCustomError(
        "warn_unknown_emotion",
        "emotion label outside the 20 PANAS items{hint} (scored by the spec 4 convention: "
        "kept in the ground truth with similarity 0, dropped from predictions)",
        {"hint": _hint(value.strip().lower(), EMOTION_LABELS)},
    )


EmotionLabel = _t(_fast(cs.literal_schema(list(EMOTION_LABELS)), _emotion))


def _number(value: Any, what: str, lo: float, hi: float, *, clamp: bool, integer: bool) -> Any:
    """A number (or numeric string, or blank) checked against ``lo..hi``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise PydanticCustomError("number_type", "expected a number (not a boolean)")
    if isinstance(value, str):
        if value.strip() in _BLANK:
            return None
        try:
            x = float(value.strip())
        except ValueError:
            raise PydanticCustomError("number_type", "expected a number") from None
    elif isinstance(value, int | float):
        try:
            x = float(value)
        except OverflowError:
            x = math.inf
    else:
        raise PydanticCustomError("number_type", "expected a number or null")
    if not math.isfinite(x):
        raise PydanticCustomError("finite_number", "expected a finite number")
    if integer:
        x = float(round(x))
    if lo <= x <= hi:
        return value
    if clamp:
        raise PydanticCustomError(
            "warn_clamped", "{what} outside {lo}..{hi}; clamped by the spec 1.4 rule",
            {"what": what, "lo": _fmt(lo), "hi": _fmt(hi)},
        )  # fmt: skip
    raise PydanticCustomError(
        "out_of_range", "{what} out of range: expected {lo}..{hi}",
        {"what": what, "lo": _fmt(lo), "hi": _fmt(hi)},
    )  # fmt: skip


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) else str(x)


def _numeric(what: str, lo: float, hi: float, *, clamp: bool = False, integer: bool = False,
             words: Mapping[str, int] | None = None) -> Any:  # fmt: skip
    """A number type checked by :func:`_number` (one Python call per value)."""

    ilo, ihi = math.ceil(lo), math.floor(hi)

    def check(value: Any) -> Any:
        if type(value) is int and ilo <= value <= ihi:  # the common case, first
            return value
        if words and isinstance(value, str) and value.strip().lower() in words:
            return value
        return _number(value, what, lo, hi, clamp=clamp, integer=integer)

    if integer:
        fast = cs.int_schema(strict=True, ge=ilo, le=ihi)
    else:
        fast = cs.float_schema(strict=True, ge=lo, le=hi, allow_inf_nan=False)
    return _t(_fast(cs.nullable_schema(fast), check))


MoodIntensity = _numeric("mood intensity", MOOD_INTENSITY_MIN, MOOD_INTENSITY_MAX, clamp=True,
                         integer=True, words=MOOD_INTENSITY_WORDS)  # fmt: skip
PanasItem = _numeric("PANAS item", PANAS_ITEM_MIN, PANAS_ITEM_MAX, integer=True)
PanasTotal = _numeric("PANAS total", PANAS_TOTAL_MIN, PANAS_TOTAL_MAX, clamp=True, integer=True)
FourBranchScore = _numeric("four-branch score", FOUR_BRANCH_MIN, FOUR_BRANCH_MAX, clamp=True)
JudgeScore = _numeric("judge score", 1, 7)
PanasItemChange = _numeric("PANAS item change", -6, 6)
PanasTotalChange = _numeric("PANAS total change", -60, 60)
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)] | None


def _option_pattern(options: tuple[str, ...]) -> str:
    # an empty string is an unanswered question (scored as no match), not an unknown option
    return r"(?i)^\s*(" + "|".join(re.escape(o) for o in options) + r"|)\s*$"


def _known(kind: str, what: str, schema: cs.CoreSchema) -> Any:
    return _t(cs.union_schema([cs.none_schema(), _ce(schema, kind, what)], mode="left_to_right",
                              custom_error_type=kind, custom_error_message=what))  # fmt: skip


def _option(options: tuple[str, ...], what: str) -> Any:
    return _known("warn_unknown_option", f"not one of the {what} options of spec 1.5 (scored as "
                  "written: no match)", cs.str_schema(pattern=_option_pattern(options)))  # fmt: skip


Q1Option = _option(Q1_OPTIONS, "Q1 (lookingFor)")
Q2Option = _option(Q2_OPTIONS, "Q2 (emotionClarity)")
Q3Option = _option(Q3_OPTIONS, "Q3 (modelFit)")
Mode = _known("warn_unknown_mode", "not one of the modes of spec 1.5 ("
              + ", ".join(MODES) + ")", cs.literal_schema(list(MODES)))  # fmt: skip
PanasStrategy = _known("warn_unknown_strategy", "not one of the PANAS strategies of spec 1.5 ("
                       + ", ".join(PANAS_STRATEGIES) + ")", cs.literal_schema(list(PANAS_STRATEGIES)))  # fmt: skip
_BINARY_ID = _ce(cs.literal_schema(list(BINARY_QUESTION_IDS)), "warn_unknown_question",
                 "not one of the 36 binary question ids of spec 1.5 (scored as written)")  # fmt: skip


def _binary_question_id(value: Any) -> Any:
    if not isinstance(value, str):
        raise PydanticCustomError("question_id", "expected a question id (a string)")
    raise PydanticCustomError(
        "warn_unknown_question",
        "not one of the 36 binary question ids of spec 1.5{hint} (scored as written)",
        {"hint": _hint(value, BINARY_QUESTION_IDS)},
    )


#: A binary question id of a ground-truth judgement: a string; outside spec 1.5 a warning.
BinaryQuestionId = _t(_fast(cs.literal_schema(list(BINARY_QUESTION_IDS)), _binary_question_id))
_PAIRWISE_ID = r"^(" + "|".join(PAIRWISE_QUESTIONS) + r"|custom:.*)$"
PairwiseQuestionId = _t(_ce(cs.str_schema(pattern=_PAIRWISE_ID), "warn_unknown_question",
                            "not a pairwise question id of spec 1.5 (general, PW1..PW15, "
                            "custom:<text>); scored as written"))  # fmt: skip
#: The answers of one binary task: question id -> value.
BinaryAnswers = _t(
    cs.nullable_schema(cs.dict_schema(keys_schema=_BINARY_ID, values_schema=_BINARY))
)
_INDEX = _ce(cs.str_schema(pattern=r"^[0-9]{1,9}$"), "comparison_key",
             "expected a comparison index: a non-negative integer string")  # fmt: skip
Text = str | None
NonEmptyId = Annotated[str, Field(min_length=1, strict=True)]


# --- model base ---------------------------------------------------------------------------------


class _Model(BaseModel):
    """Unknown keys are reported (as warnings); types are strict (no silent coercion).

    ``expected`` names the optional fields the scorer reads: a missing one is read as null or
    empty, and reported as a warning (``missing_expected``) by
    :func:`attunestats.release.check.schema_findings`.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    expected: ClassVar[tuple[str, ...]] = ()
    #: what the loader does when an expected field is missing, where it is not "read as null"
    when_missing: ClassVar[dict[str, str]] = {}


class _Open(_Model):
    """A block that accepts extra keys (spec 1.4 ``...extra``).

    Extra keys close to a known one are reported as likely misspellings by
    :func:`attunestats.release.check.schema_findings`.
    """

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


def known_keys(model: type[BaseModel]) -> tuple[str, ...]:
    """Every key a model accepts: field names and their aliases."""
    out: list[str] = []
    for name, info in model.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            out += [c for c in alias.choices if isinstance(c, str)]
        elif isinstance(alias, str):
            out.append(alias)
        else:
            out.append(info.alias or name)
    return tuple(out)


@functools.cache
def all_known_keys() -> frozenset[str]:
    """Every key any object of the format accepts (field names and aliases of every model)."""
    keys: set[str] = set()
    for model in _every_model():
        keys.update(known_keys(model))
    return frozenset(keys)


def _every_model() -> list[type[BaseModel]]:
    return [obj for obj in globals().values()
            if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel]  # fmt: skip


def misspelt_key(obj: Mapping[str, Any], names: tuple[str, ...]) -> str | None:
    """A key of ``obj`` that looks like a misspelling of one of ``names`` (close to it, and no
    key of the format itself: ``responseA`` beside a missing ``responseB`` is none), or None."""
    known = all_known_keys()
    return next((k for k in obj if isinstance(k, str) and k not in known
                 and close_key(k, names) is not None), None)  # fmt: skip


def close_key(key: str, known: tuple[str, ...] | list[str], *, cutoff: float = 0.6) -> str | None:
    """The known key closest to ``key`` (difflib, case-insensitive), or None."""
    lower = {k.lower(): k for k in known}
    hits = difflib.get_close_matches(key.lower(), list(lower), n=1, cutoff=cutoff)
    return lower[hits[0]] if hits else None


def _hint(value: str, known: tuple[str, ...]) -> str:
    match = close_key(value, known, cutoff=0.75)
    return f"; did you mean {match!r}?" if match else ""


def _aliases(*names: str, required: bool = False) -> Any:
    if required:
        return Field(validation_alias=AliasChoices(*names))
    return Field(None, validation_alias=AliasChoices(*names))


# --- shared blocks --------------------------------------------------------------------------------


class MoodTag(_Model):
    """One emotion tag (``moodShiftTags[i]``, ``em_emotion_tags[i]``)."""

    emotion: EmotionLabel
    intensity: MoodIntensity = None


_PANAS_LOWER = {item.lower(): item for item in PANAS_ITEMS}
_PANAS_KEYS = frozenset(
    [*PANAS_ITEMS, "items", "responses", "totalPositiveAffect", "totalNegativeAffect"]
)


def _canonical_items(data: Any) -> Any:
    """PANAS item keys matched case-insensitively (as the loader does)."""
    if not isinstance(data, dict) or _PANAS_KEYS.issuperset(data):
        return data
    out = {}
    for key, value in data.items():
        canon = _PANAS_LOWER.get(key.lower()) if isinstance(key, str) else None
        out[canon if canon is not None and canon not in data else key] = value
    return out


class PanasItems(_Model):
    """The 20 PANAS-SF items (``items`` or ``responses``), each 1..7 (rounded, not clamped)."""

    Proud: PanasItem = None
    Alert: PanasItem = None
    Inspired: PanasItem = None
    Determined: PanasItem = None
    Attentive: PanasItem = None
    Active: PanasItem = None
    Excited: PanasItem = None
    Strong: PanasItem = None
    Enthusiastic: PanasItem = None
    Interested: PanasItem = None
    Irritable: PanasItem = None
    Ashamed: PanasItem = None
    Nervous: PanasItem = None
    Jittery: PanasItem = None
    Distressed: PanasItem = None
    Afraid: PanasItem = None
    Upset: PanasItem = None
    Guilty: PanasItem = None
    Scared: PanasItem = None
    Hostile: PanasItem = None

    _canon = model_validator(mode="before")(classmethod(lambda cls, data: _canonical_items(data)))


class PanasResponses(PanasItems):
    """``responses``: the items, and possibly the totals, nested (spec 1.4)."""

    totalPositiveAffect: PanasTotal = None
    totalNegativeAffect: PanasTotal = None


class PanasScores(PanasResponses):
    """A PANAS block (``prePanas``, ``postPanas``, ``predicted_post_panas``, ``pre_panas_shown``).

    Totals 10..70 (clamped, derived from the items when absent); items at the top level, under
    ``items`` or under ``responses``.
    """

    items: PanasItems | None = None
    responses: PanasResponses | None = None


class FourBranchScores(_Model):
    """The participant's (or predicted) 1..7 rating of each branch; null = not rated."""

    perceiving: FourBranchScore = None
    facilitating: FourBranchScore = None
    understanding: FourBranchScore = None
    managing: FourBranchScore = None


class PredictedConversationWide(_Model):
    """``predicted_conversation_wide``: the post-conversation survey as predicted (all optional)."""

    q1_lookingFor: list[Q1Option] | None = _aliases("q1_lookingFor", "Q1")
    q2_emotionClarity: Q2Option = _aliases("q2_emotionClarity", "Q2")
    q3_modelFit: Q3Option = _aliases("q3_modelFit", "Q3")
    q3_followUp_whatFeltOff: list[str] | None = None
    fourBranchScores: FourBranchScores | None = None

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ConversationWideQuestions(PredictedConversationWide):
    """``conversationWideQuestions`` (spec 1.4): the participant's post-conversation survey."""

    expected: ClassVar[tuple[str, ...]] = (
        "q1_lookingFor", "q2_emotionClarity", "q3_modelFit", "q3_followUp_whatFeltOff",
        "fourBranchScores",
    )  # fmt: skip


# --- ground truth (spec 1.4) --------------------------------------------------------------------


class Metadata(_Open):
    """``metadata``: topic (``category``, ``subtopic``), the original model, free extra keys."""

    expected: ClassVar[tuple[str, ...]] = ("category", "model")

    conversationId: Text = None
    model: Text = None
    provider: Text = None
    timestamp: Text = None
    category: Text = None
    subtopic: Text = None
    model_version: Text = None
    text: Text = None
    conversation_visibility: Text = None
    turnCount: Annotated[int, Field(ge=0)] | None = None


def _one_of(kind: str, message: str, *members: cs.CoreSchema) -> Any:
    """A nullable union whose wrong value is one error at the field's path (pydantic would name
    each member, ``$.age.str``, ``$.age.int``, ..., paths that are no keys of the file)."""
    union = cs.union_schema(list(members), custom_error_type=kind, custom_error_message=message)
    return _t(cs.nullable_schema(union))


ParticipantId = _one_of("participant_id_type", "expected a string, an integer or null",
                        cs.str_schema(strict=True), cs.int_schema(strict=True))  # fmt: skip
Age = _one_of("age_type", "expected a string, a number or null", cs.str_schema(strict=True),
              cs.int_schema(strict=True), cs.float_schema(strict=True))  # fmt: skip


class ParticipantProfile(_Open):
    """``participant_profile``: who the participant is; free extra keys."""

    schema_version: Text = None
    participant_id: ParticipantId = None
    responses: dict[str, Any] | None = None
    age: Age = None
    traits: list[str] | None = None
    goals: list[str] | None = None
    extra: dict[str, Any] | None = None


class BinaryJudgement(_Model):
    """One behaviour question answered by the participant (observed vs preferred)."""

    expected: ClassVar[tuple[str, ...]] = ("llmValue", "observedBehavior", "preferredBehavior")

    questionId: BinaryQuestionId
    llmValue: BinaryValue = None
    observedBehavior: BinaryValue = _aliases(
        "observedBehavior", "did_occur", "humanValue", "actualValue"
    )
    preferredBehavior: BinaryValue = _aliases(
        "preferredBehavior", "should_occur", "humanPreference"
    )


class AlternateResponses(_Model):
    """The model-improved and the human-edited replies (blinded: alternate1 / alternate2)."""

    llmImproved: Text = Field(None, validation_alias=AliasChoices("llmImproved", "alternate1"))
    humanEdited: Text = Field(None, validation_alias=AliasChoices("humanEdited", "alternate2"))


class PairwiseComparison(_Model):
    """One preference between two replies."""

    questionId: PairwiseQuestionId
    responseA: ResponseLabel = _aliases("responseA", "response_1", required=True)
    responseB: ResponseLabel = _aliases("responseB", "response_2", required=True)
    winner: Winner = None

    expected: ClassVar[tuple[str, ...]] = ("winner",)


class Annotations(_Model):
    """The participant's annotations of one turn."""

    expected: ClassVar[tuple[str, ...]] = ("binaryJudgements", "pairwiseComparisons")

    binaryJudgements: list[BinaryJudgement] | None = None
    alternateResponses: AlternateResponses | None = None
    pairwiseComparisons: list[PairwiseComparison] | None = None
    selectedPairwiseQuestions: list[PairwiseQuestionId] | None = None


class Turn(_Model):
    """One turn of a conversation: the participant's message, the reply, the annotations."""

    expected: ClassVar[tuple[str, ...]] = (
        "userMessage",
        "llmResponse",
        "moodShiftTags",
        "annotations",
    )

    turnNumber: Annotated[int, Field(ge=0, le=2**31 - 1, strict=True)]
    userMessage: Text = None
    llmResponse: Text = None
    moodShiftTags: list[MoodTag] | None = None
    annotations: Annotations | None = None


class GroundTruthConversation(_Model):
    """A ground-truth file ``conversation_<N>.json`` (spec 1.4): one annotated conversation."""

    turn_model: ClassVar[type[BaseModel]] = Turn

    expected: ClassVar[tuple[str, ...]] = (
        "conversationId", "metadata", "participant_profile", "prePanas", "postPanas",
        "conversationWideQuestions",
    )  # fmt: skip
    when_missing: ClassVar[dict[str, str]] = {
        "conversationId": "the conversation id is taken from the file name (conversation_<N>.json)"
    }

    conversationId: NonEmptyId | None = None
    metadata: Metadata | None = None
    participant_profile: ParticipantProfile | None = None
    prePanas: PanasScores | None = None
    postPanas: PanasScores | None = None
    conversationWideQuestions: ConversationWideQuestions | None = None
    turns: list[Turn]


# --- run outputs (spec 1.6) -------------------------------------------------------------------


class Assignment(_Model):
    """The A/B labels shown to the predictor for one comparison."""

    A: ResponseLabel = None
    B: ResponseLabel = None


class JudgeScores(_Model):
    """The draft judge's four 1..7 scores."""

    overall_score: JudgeScore = None
    emotional_appropriateness: JudgeScore = None
    helpfulness: JudgeScore = None
    tone_match: JudgeScore = None


_Selections = _t(cs.nullable_schema(cs.dict_schema(keys_schema=_INDEX, values_schema=_WINNER)))


class HumanRaterTurn(_Model):
    """One predicted turn; a human baseline rater answers any subset of the tasks."""

    turnNumber: Annotated[int, Field(ge=0, le=2**31 - 1, strict=True)]
    em_emotion_tags: list[MoodTag] | None = None
    em_drafted_response: Text = None
    response_reasoning: Text = None
    emotion_reasoning: Text = None
    pairwise_assignment: dict[Annotated[str, _Core(_INDEX)], Assignment | None] | None = None
    em_binary_om_assessment: BinaryAnswers = None
    em_binary_human_prediction: BinaryAnswers = None
    em_binary_om_assessment_hp: BinaryAnswers = None
    em_binary_human_prediction_hp: BinaryAnswers = None
    em_pairwise_selections: _Selections = None
    em_four_branch_scores: dict[str, Any] | None = None
    em_draft_judge_scores: JudgeScores | None = None
    em_draft_judge_scores_by_model: dict[str, JudgeScores | None] | None = None
    em_draft_binary_assessment: BinaryAnswers = None
    em_draft_binary_assessment_by_model: dict[str, BinaryAnswers] | None = None


class RunTurn(HumanRaterTurn):
    """One turn of an evaluated model's run: the emotion, binary and pairwise predictions expected."""

    expected: ClassVar[tuple[str, ...]] = (
        "em_emotion_tags", "em_binary_om_assessment", "em_binary_human_prediction",
        "em_pairwise_selections",
    )  # fmt: skip


class PanasDelta(_Model):
    """Predicted changes (delta strategies)."""

    totalPositiveAffect_change: PanasTotalChange = None
    totalNegativeAffect_change: PanasTotalChange = None
    items: dict[str, PanasItemChange] | None = None


class PostConversation(_Model):
    """The predictions made after the last turn."""

    panas_strategy: PanasStrategy = None
    pre_panas_shown: PanasScores | None = None
    predicted_post_panas: PanasScores | None = None
    predicted_panas_delta: PanasDelta | None = None
    predicted_conversation_wide: PredictedConversationWide | None = None


class HumanRaterOutput(_Model):
    """A human baseline rater's answers to one conversation, in the run-output shape (spec 1.6).

    Read for the predictors that ``release.json`` marks ``"kind": "human"``: a person doing the
    evaluated model's task answers any subset of the tasks, so every task field is optional.
    """

    turn_model: ClassVar[type[HumanRaterTurn]] = HumanRaterTurn

    conversationId: NonEmptyId | None = None
    source_file: Annotated[str, Field(pattern=r"^conversation_.+\.json$")] | None = None
    em_model: Text = None
    run_timestamp: Text = None
    mode: Mode = None
    turns: list[HumanRaterTurn]
    post_conversation: PostConversation | None = None
    api_cost: NonNegative = None
    duration_seconds: NonNegative = None

    @model_validator(mode="before")
    @classmethod
    def _identified(cls, data: Any) -> Any:
        if (
            isinstance(data, dict)
            and data.get("conversationId") is None
            and data.get("source_file") is None
        ):
            raise PydanticCustomError(
                "missing", "missing required field conversationId (or source_file)"
            )
        return data


class RunOutput(HumanRaterOutput):
    """An evaluated model's run on one conversation (spec 1.6): the per-turn predictions required."""

    turn_model: ClassVar[type[HumanRaterTurn]] = RunTurn
    expected: ClassVar[tuple[str, ...]] = ("em_model", "post_conversation")

    turns: list[RunTurn]


# --- release.json -------------------------------------------------------------------------------


class PredictorInfo(_Model):
    """One predictor directory of ``runs/``."""

    kind: Literal["model", "human"] = "model"
    display_name: Text = None
    mode: Mode = None


class ReleaseInfo(_Model):
    """``release.json``: the release's name, whether it is simulated, its predictors."""

    format: Literal["attunestats-release/1"] | None = None
    name: Text = None
    simulated: bool | None = None
    label: Text = None
    seed: int | None = None
    generator: Text = None
    description: Text = None
    predictors: dict[str, PredictorInfo | None] | None = None


#: The model of each kind of file.
FILE_MODELS: Mapping[str, type[BaseModel]] = {
    "ground_truth": GroundTruthConversation,
    "run": RunOutput,
    "human": HumanRaterOutput,
    "release.json": ReleaseInfo,
}
