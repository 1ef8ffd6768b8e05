"""Value rules of the AttuneBench file format (spec 1.4 and section 4), as pure functions.

Every function takes one raw JSON value and returns a :class:`Normalized` pair: the value kept and
the names of the report rules that fired (see :data:`attunestats.release.model.REPORT_RULES`); an
empty ``rules`` tuple means the value was already canonical. Values the spec treats as errors (a
non-numeric intensity, PANAS item or score, a value of the wrong JSON type) raise
:class:`NormalizationError`; the loader turns each into a :class:`~attunestats.errors.Problem`
naming the file, the JSON path and the value.

Numbers are returned as ``float`` (the tables store them as ``float64``). Rounding is Python's
``round`` (half to even), as the official Python code presumably does; the TypeScript port rounds
half up, which differs only for values exactly halfway between two integers.

Examples
--------
>>> binary_value("Y")
Normalized(value='yes', rules=('binary_value_normalised',))
>>> mood_intensity("moderate")
Normalized(value=4.0, rules=('intensity_word',))
>>> mood_intensity(9.4)
Normalized(value=7.0, rules=('intensity_rounded', 'intensity_clamped'))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from attunestats.constants import (
    EMOTION_LABELS,
    FOUR_BRANCH_MAX,
    FOUR_BRANCH_MIN,
    MOOD_INTENSITY_MAX,
    MOOD_INTENSITY_MIN,
    MOOD_INTENSITY_WORDS,
    PANAS_DELTA_DEFAULT_ITEM,
    PANAS_ITEM_MAX,
    PANAS_ITEM_MIN,
    PANAS_ITEMS,
    PANAS_NEGATIVE,
    PANAS_POSITIVE,
    PANAS_TOTAL_MAX,
    PANAS_TOTAL_MIDPOINT,
    PANAS_TOTAL_MIN,
)

__all__ = [
    "BINARY_ALIASES",
    "KNOWN_EMOTIONS",
    "NormalizationError",
    "Normalized",
    "PanasBlock",
    "binary_value",
    "emotion_label",
    "first_present",
    "four_branch_score",
    "mood_intensity",
    "pairwise_winner",
    "panas_item",
    "panas_total",
    "parse_panas",
    "rebuild_panas_from_delta",
    "response_label",
]

KNOWN_EMOTIONS: frozenset[str] = frozenset(EMOTION_LABELS)

#: Accepted spellings of binary values, after ``str(value).strip().lower()`` (spec 1.4).
BINARY_ALIASES: Mapping[str, str] = {
    "yes": "yes", "true": "yes", "y": "yes", "1": "yes",
    "no": "no", "false": "no", "n": "no", "0": "no",
    "na": "na", "n/a": "na", "not_applicable": "na",
}  # fmt: skip
_WINNER_ALIASES = {"a": "A", "response_1": "A", "b": "B", "response_2": "B"}
_LABEL_ALIASES = {"alternate1": "alternate", "alternate2": "human"}
#: Strings read as "no value" by the numeric rules (the port's ``'' | 'None'``).
_BLANK = ("", "None")


class NormalizationError(ValueError):
    """A raw value the spec treats as an error.

    Attributes
    ----------
    value : Any
        The offending raw value.
    details : tuple of (str, str, Any)
        For block parsers (:func:`parse_panas`): every problem found, as (JSON path relative to
        the block, e.g. ``".items.Proud"``, message, value). Scalar rules leave it empty.
    """

    def __init__(
        self,
        message: str,
        value: Any = None,
        *,
        details: Sequence[tuple[str, str, Any]] = (),
    ) -> None:
        super().__init__(message)
        self.value = value
        self.details = tuple(details)


class Normalized(NamedTuple):
    """A normalised value and the report rules that fired while normalising it."""

    value: Any
    rules: tuple[str, ...] = ()


def _type_name(value: Any) -> str:
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


def first_present(mapping: Mapping[str, Any], keys: Sequence[str]) -> tuple[Any, str | None]:
    """First non-null value among ``keys`` (canonical name first, then aliases).

    Mirrors ``a ?? b ?? c`` of the reference code: a key holding ``null`` is skipped.

    Returns
    -------
    (value, key)
        ``(None, None)`` when every key is absent or null.
    """
    for key in keys:
        value = mapping.get(key)
        if value is not None:
            return value, key
    return None, None


# --- categorical values ----------------------------------------------------------------------


def binary_value(value: Any) -> Normalized:
    """Normalise a binary judgement value to ``"yes"``, ``"no"``, ``"na"`` or ``None``.

    ``true/yes/y/1 -> yes``, ``false/no/n/0 -> no``, ``na/n/a/not_applicable -> na`` after
    ``str(value).strip().lower()`` (JSON booleans as ``true``/``false``); ``null -> None`` with no
    rule; any other string or number -> ``None`` with rule ``binary_value_unrecognised``.

    Raises
    ------
    NormalizationError
        For an array or object.
    """
    if value is None:
        return Normalized(None)
    if isinstance(value, str):
        if value in ("yes", "no", "na"):
            return Normalized(value)
        text = value.strip().lower()
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int | float):
        text = str(value)
    else:
        raise NormalizationError(
            f"binary value must be a string, boolean, number or null, not {_type_name(value)}",
            value,
        )
    out = BINARY_ALIASES.get(text)
    if out is None:
        return Normalized(None, ("binary_value_unrecognised",))
    return Normalized(out, ("binary_value_normalised",))


def pairwise_winner(value: Any) -> Normalized:
    """Normalise a pairwise winner or EM selection to ``"A"``, ``"B"`` or ``None``.

    ``"A"``/``"B"`` are kept; ``a``/``response_1`` -> A and ``b``/``response_2`` -> B
    (case-insensitive, stripped); ``null`` -> ``None`` with no rule; anything else -> ``None``
    with rule ``winner_unrecognised``.

    Raises
    ------
    NormalizationError
        For an array or object.
    """
    if value is None:
        return Normalized(None)
    if value == "A" or value == "B":
        return Normalized(value)
    if isinstance(value, list | dict):
        raise NormalizationError(
            f"pairwise winner must be a string or null, not {_type_name(value)}", value
        )
    text = value.strip() if isinstance(value, str) else str(value)
    if text in ("A", "B"):
        return Normalized(text, ("winner_normalised",))
    out = _WINNER_ALIASES.get(text.lower())
    if out is None:
        return Normalized(None, ("winner_unrecognised",))
    return Normalized(out, ("winner_normalised",))


def response_label(value: Any) -> Normalized:
    """Normalise a pairwise response label: ``alternate1 -> alternate``, ``alternate2 -> human``.

    The blinded labels are the masked names the EM sees (spec 1.5). Other strings are kept as
    they are (``original``, ``alternate``, ``human`` or anything else).

    Raises
    ------
    NormalizationError
        If the label is not a string.
    """
    if not isinstance(value, str):
        raise NormalizationError(f"response label must be a string, not {_type_name(value)}", value)
    out = _LABEL_ALIASES.get(value)
    if out is None:
        return Normalized(value)
    return Normalized(out, ("label_normalised",))


def emotion_label(value: Any, *, ground_truth: bool) -> Normalized:
    """Normalise an emotion label with ``strip().lower()`` and apply spec 4 to unknown labels.

    A label outside the 20 PANAS items is kept in the ground truth (rule
    ``unknown_emotion_kept``) and dropped from predictions (value ``None``, rule
    ``unknown_emotion_dropped``). A label changed by ``strip().lower()`` adds
    ``emotion_label_normalised``.

    Raises
    ------
    NormalizationError
        If the label is not a string.
    """
    if not isinstance(value, str):
        raise NormalizationError(f"emotion label must be a string, not {_type_name(value)}", value)
    label = value.strip().lower()
    rules: tuple[str, ...] = () if label == value else ("emotion_label_normalised",)
    if label in KNOWN_EMOTIONS:
        return Normalized(label, rules)
    if ground_truth:
        return Normalized(label, (*rules, "unknown_emotion_kept"))
    return Normalized(None, (*rules, "unknown_emotion_dropped"))


# --- numbers ---------------------------------------------------------------------------------


def _number(value: Any, what: str) -> tuple[float | None, tuple[str, ...]]:
    """Read a JSON number (or a numeric string); ``None`` for null/blank. Rejects bools, NaN, inf."""
    if value is None:
        return None, ()
    if isinstance(value, bool):
        raise NormalizationError(f"{what} must be a number, not a boolean", value)
    if isinstance(value, int | float):
        try:
            x = float(value)
        except OverflowError:
            raise NormalizationError(f"{what} must be a finite number", value) from None
        rules: tuple[str, ...] = ()
    elif isinstance(value, str):
        if value.strip() in _BLANK:
            return None, ("blank_value",)
        try:
            x = float(value.strip())
        except ValueError:
            raise NormalizationError(f"{what} must be a number", value) from None
        rules = ("number_from_string",)
    else:
        raise NormalizationError(f"{what} must be a number, not {_type_name(value)}", value)
    if not math.isfinite(x):
        raise NormalizationError(f"{what} must be a finite number", value)
    return x, rules


def mood_intensity(value: Any) -> Normalized:
    """Normalise a mood-tag intensity to ``1..7`` (spec 1.4).

    ``"mild"/"moderate"/"intense"`` -> 2/4/6 (rule ``intensity_word``); numbers (or numeric
    strings) are rounded (``intensity_rounded``) and clamped to 1..7 (``intensity_clamped``);
    ``null``, ``""`` and ``"None"`` -> ``None``.

    Raises
    ------
    NormalizationError
        For a non-numeric string, a boolean, an array, an object, NaN or infinity.
    """
    if isinstance(value, str):
        word = MOOD_INTENSITY_WORDS.get(value.strip().lower())
        if word is not None:
            return Normalized(float(word), ("intensity_word",))
    x, rules = _number(value, "mood intensity")
    if x is None:
        return Normalized(None, rules)
    r = float(round(x))
    if r != x:
        rules = (*rules, "intensity_rounded")
    c = float(min(max(r, MOOD_INTENSITY_MIN), MOOD_INTENSITY_MAX))
    if c != r:
        rules = (*rules, "intensity_clamped")
    return Normalized(c, rules)


def panas_total(value: Any) -> Normalized:
    """Normalise a PANAS total: rounded and clamped to ``10..70`` (rule ``panas_total_clamped``).

    Raises
    ------
    NormalizationError
        For a non-numeric value.
    """
    x, rules = _number(value, "PANAS total")
    if x is None:
        return Normalized(None, rules)
    c = float(min(max(round(x), PANAS_TOTAL_MIN), PANAS_TOTAL_MAX))
    if c != x:
        rules = (*rules, "panas_total_clamped")
    return Normalized(c, rules)


def panas_item(value: Any) -> Normalized:
    """Normalise a PANAS item rating: rounded (rule ``panas_item_rounded``), *not* clamped (spec 4).

    ``null`` and blank strings -> ``None`` (the item counts as not rated).

    Raises
    ------
    NormalizationError
        For a non-numeric value.
    """
    x, rules = _number(value, "PANAS item")
    if x is None:
        return Normalized(None, rules)
    r = float(round(x))
    if r != x:
        rules = (*rules, "panas_item_rounded")
    return Normalized(r, rules)


def judge_score(value: Any) -> Normalized:
    """Read a draft judge score as it is (a number or numeric string; its 1..7 range is checked
    by the schema, not clamped). ``null`` and blank strings -> ``None``.

    Raises
    ------
    NormalizationError
        For a non-numeric value.
    """
    x, rules = _number(value, "judge score")
    return Normalized(x, rules)


def four_branch_score(value: Any) -> Normalized:
    """Normalise a four-branch score: clamped to ``1..7``, *not* rounded (spec 4).

    ``null`` and blank strings -> ``None`` (branch unrated).

    Raises
    ------
    NormalizationError
        For a non-numeric value.
    """
    x, rules = _number(value, "four-branch score")
    if x is None:
        return Normalized(None, rules)
    c = min(max(x, FOUR_BRANCH_MIN), FOUR_BRANCH_MAX)
    if c != x:
        rules = (*rules, "four_branch_clamped")
    return Normalized(float(c), rules)


# --- PANAS blocks ----------------------------------------------------------------------------

#: One report event of a block parser: (JSON path relative to the block, rule, original, result).
Event = tuple[str, str, Any, Any]


@dataclass
class PanasBlock:
    """A parsed PANAS block (``prePanas``, ``postPanas``, ``predicted_post_panas``).

    Attributes
    ----------
    items : dict of str to float
        Item name (as in :data:`attunestats.constants.PANAS_ITEMS`) -> rounded rating.
    positive, negative : float or None
        Totals, clamped to 10..70; derived from the items when absent.
    events : list of (path, rule, original, result)
        What was normalised, with JSON paths relative to the block (``".items.Proud"``).
    """

    items: dict[str, float] = field(default_factory=dict)
    positive: float | None = None
    negative: float | None = None
    events: list[Event] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when the block has neither items nor totals."""
        return not self.items and self.positive is None and self.negative is None


def _json_key(key: str) -> str:
    return f".{key}" if key.isidentifier() else f"[{key!r}]"


def _find_item(source: Mapping[str, Any], lower: dict[str, str], item: str) -> str | None:
    if item in source:
        return item
    return lower.get(item.lower())


def parse_panas(block: Any) -> PanasBlock:
    """Parse a PANAS block: items, totals, ``responses`` nesting and derived totals (spec 1.4, 4).

    Each of the 20 items is read from the block's top-level keys, else from ``items``, else from
    ``responses`` (rule ``panas_items_nested``); keys match exactly or case-insensitively. Items
    are rounded, not clamped; ``null`` items count as not rated (rule ``panas_item_null``). A total
    (``totalPositiveAffect``/``totalNegativeAffect``, at the top level or under ``responses``) is
    rounded and clamped to 10..70; a missing or null total is the sum of the available items of
    its valence (rule ``panas_total_derived``), then clamped, as the reference code does. A block
    that gives some items but not all 20 records ``panas_items_missing`` (with the missing items),
    and a total derived from fewer than the 10 items of its valence ``panas_total_partial``: both
    are warnings of the load report, since they change the scores silently otherwise.

    Parameters
    ----------
    block : object or None
        The raw JSON value. ``None`` gives an empty block.

    Raises
    ------
    NormalizationError
        If the block is not an object or null, or ``items``/``responses`` is not an object or
        null, or any item or total is non-numeric; ``details`` lists every such problem.
    """
    out = PanasBlock()
    if block is None:
        return out
    if not isinstance(block, Mapping):
        raise NormalizationError(
            f"PANAS block must be an object or null, not {_type_name(block)}", block
        )
    errors: list[tuple[str, str, Any]] = []
    sources: list[tuple[str, Mapping[str, Any]]] = [("", block)]
    for name in ("items", "responses"):
        sub = block.get(name)
        if sub is None:
            continue
        if isinstance(sub, Mapping):
            sources.append((f".{name}", sub))
        else:
            errors.append((f".{name}", f"must be an object or null, not {_type_name(sub)}", sub))
    lowers = [{k.lower(): k for k in src if isinstance(k, str)} for _, src in sources]
    for item in PANAS_ITEMS:
        for (prefix, src), lower in zip(sources, lowers):
            key = _find_item(src, lower, item)
            if key is None:
                continue
            path = prefix + _json_key(key)
            raw = src[key]
            try:
                norm = panas_item(raw)
            except NormalizationError as exc:
                errors.append((path, str(exc), raw))
                break
            if norm.value is None:
                out.events.append((path, "panas_item_null", raw, None))
                break
            for rule in norm.rules:
                out.events.append((path, rule, raw, norm.value))
            if prefix == ".responses":
                out.events.append((path, "panas_items_nested", raw, norm.value))
            out.items[item] = norm.value
            break
    not_rated = [item for item in PANAS_ITEMS if item not in out.items]
    if out.items and not_rated:  # some items given, not all: item-level scores lose these
        out.events.append(("", "panas_items_missing", ", ".join(not_rated), None))
    responses = block.get("responses") if isinstance(block.get("responses"), Mapping) else {}
    for attr, key, names in (
        ("positive", "totalPositiveAffect", PANAS_POSITIVE),
        ("negative", "totalNegativeAffect", PANAS_NEGATIVE),
    ):
        raw, path = block.get(key), "." + key
        if raw is None and responses.get(key) is not None:
            raw, path = responses[key], f".responses.{key}"
        if raw is not None:
            try:
                norm = panas_total(raw)
            except NormalizationError as exc:
                errors.append((path, str(exc), raw))
                continue
            for rule in norm.rules:
                out.events.append((path, rule, raw, norm.value))
            if norm.value is not None:
                setattr(out, attr, norm.value)
                continue
        present = [out.items[n] for n in names if n in out.items]
        if present:
            total = float(sum(present))
            out.events.append((path, "panas_total_derived", f"{len(present)} items", total))
            if len(present) < len(names):
                out.events.append(
                    (path, "panas_total_partial", f"{len(present)} of {len(names)}", total)
                )
            clamped = float(min(max(total, PANAS_TOTAL_MIN), PANAS_TOTAL_MAX))
            if clamped != total:
                out.events.append((path, "panas_total_clamped", total, clamped))
            setattr(out, attr, clamped)
    if errors:
        raise NormalizationError(
            f"{len(errors)} invalid value(s) in PANAS block", block, details=errors
        )
    return out


def rebuild_panas_from_delta(delta: Any, pre: PanasBlock | None) -> PanasBlock:
    """Rebuild an absolute post-PANAS prediction from predicted changes (spec 1.6).

    ``totals = clamp(pre_total (default 40) + totalXAffect_change, 10, 70)`` and, when
    ``delta["items"]`` holds item changes, ``item = clamp(pre_item (default 3) + change, 1, 7)``.
    Every value carries the rule ``panas_rebuilt_from_delta``. Returns an empty block when
    ``delta`` holds no change.

    Parameters
    ----------
    delta : object or None
        ``post_conversation.predicted_panas_delta``.
    pre : PanasBlock or None
        The pre-conversation PANAS the runner used (the ground truth's ``prePanas``).

    Raises
    ------
    NormalizationError
        If ``delta`` is not an object or a change is non-numeric; ``details`` lists all.
    """
    out = PanasBlock()
    if delta is None:
        return out
    if not isinstance(delta, Mapping):
        raise NormalizationError(
            f"PANAS delta must be an object or null, not {_type_name(delta)}", delta
        )
    errors: list[tuple[str, str, Any]] = []
    pre = pre if pre is not None else PanasBlock()
    for attr, key in (
        ("positive", "totalPositiveAffect_change"),
        ("negative", "totalNegativeAffect_change"),
    ):
        raw = delta.get(key)
        try:
            change, _ = _number(raw, "PANAS total change")
        except NormalizationError as exc:
            errors.append(("." + key, str(exc), raw))
            continue
        if change is None:
            continue
        base = getattr(pre, attr)
        base = PANAS_TOTAL_MIDPOINT if base is None else base
        value = float(min(max(round(base + change), PANAS_TOTAL_MIN), PANAS_TOTAL_MAX))
        setattr(out, attr, value)
        out.events.append(("." + key, "panas_rebuilt_from_delta", raw, value))
    items = delta.get("items")
    if isinstance(items, Mapping):
        lower = {k.strip().lower(): k for k in items if isinstance(k, str)}
        for item in PANAS_ITEMS:
            key = lower.get(item.lower())
            if key is None:
                continue
            raw = items[key]
            try:
                change, _ = _number(raw, "PANAS item change")
            except NormalizationError as exc:
                errors.append((".items" + _json_key(key), str(exc), raw))
                continue
            if change is None:
                continue
            base = pre.items.get(item, PANAS_DELTA_DEFAULT_ITEM)
            value = float(min(max(base + round(change), PANAS_ITEM_MIN), PANAS_ITEM_MAX))
            out.items[item] = value
            out.events.append((".items" + _json_key(key), "panas_rebuilt_from_delta", raw, value))
    elif items is not None:
        errors.append((".items", f"must be an object or null, not {_type_name(items)}", items))
    if errors:
        raise NormalizationError(
            f"{len(errors)} invalid value(s) in PANAS delta", delta, details=errors
        )
    return out
