"""Diagnosis group of a participant from the ``traits`` of the profile (:func:`diagnosis_group`).

Re-exported by :mod:`attunestats.release.load`, which applies it to every participant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["DIAGNOSIS_KEYWORDS", "DIAGNOSIS_WORDS", "diagnosis_group"]

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
