"""Scoring conventions: the readings of spec section 4 where the sources disagree.

Each convention is one named field of :class:`ScoringOptions` with the spec's default. The options
object travels with every output (``Scores.options``, the summary JSON written by
``write_scores``, ``DataFrame.attrs["scoring_options"]``), and
:func:`attunestats.metrics.sensitivity.convention_sensitivity` shows how much each alternative
moves every predictor's composite.

Fixed readings (spec 4, no alternative offered): unknown *predicted* emotion labels are dropped;
PANAS item values are read by the loader (rounded, not clamped); four-branch scores are clamped to
1..7, not rounded, null = unrated; Kendall tau is computed when the ground truth has no decided
winner (the ground-truth ranking falls back to alphabetical order); ground-truth turns missing from a
run are skipped in the averages, while run turns or run files the ground truth lacks are errors.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Convention:
    """Description of one scoring convention (one field of :class:`ScoringOptions`)."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    description: str
    where: str
    default_source: str


#: Every convention of spec section 4 that can be switched, by field name.
CONVENTIONS: Mapping[str, Convention] = MappingProxyType(
    {
        "unknown_gt_emotion": Convention(
            "unknown_gt_emotion", "keep", ("keep", "drop"),
            "ground-truth emotion labels outside the 20 PANAS items: 'keep' counts them in the "
            "ground-truth set (never matched, VA similarity 0); 'drop' removes them before scoring "
            "(a turn tagged only with such labels then counts as untagged)",
            "emotion metrics of turns tagged e.g. 'neutral'", "port",
        ),
        "f1_intensity_both_empty": Convention(
            "f1_intensity_both_empty", 1.0, (1.0, 0.0),
            "emotion F1 x intensity of a turn where both tag lists are empty",
            "neutral turns", "port",
        ),
        "hp_accuracy_no_judgements": Convention(
            "hp_accuracy_no_judgements", 0.0, (0.0, 1.0),
            "HP-wording binary accuracies (_hp) of a turn without binary judgements (the main "
            "pair always gets 1)", "_hp variants, perspective gap", "port",
        ),
        "pairwise_none_vs_missing": Convention(
            "pairwise_none_vs_missing", "wrong", ("wrong", "right"),
            "a comparison with no ground-truth winner and no predicted selection: 'wrong' (port) "
            "or 'right' (Python None == None)", "pairwise accuracy", "port",
        ),
        "va_matching": Convention(
            "va_matching", "optimal", ("optimal", "greedy"),
            "one-to-one matching of ground-truth and predicted tags for the valence-arousal "
            "score: optimal assignment (scipy.optimize.linear_sum_assignment) or the port's "
            "greedy lowest-cost-first matching", "VA scores of turns with 2+ tags",
            "official (per the port's comment)",
        ),
        "composite_rounding": Convention(
            "composite_rounding", "half_even", ("half_even", "half_up"),
            "rounding of displayed composites to 2 decimals: Python round (half to even on the "
            "binary value) or the port's Math.round(100 x) / 100 (half up)",
            "displayed composite only (values are never rounded)", "official Python (presumed)",
        ),
        "perspective_alignment_mcc": Convention(
            "perspective_alignment_mcc", "positive_only", ("positive_only", "nonzero_denominator"),
            "hp_perspective_alignment_mcc is 0 unless the pooled human MCC is positive "
            "('positive_only', port) or only when it is 0 ('nonzero_denominator')",
            "perspective alignment (MCC)", "port",
        ),
    }
)  # fmt: skip


@dataclass(frozen=True)
class ScoringOptions:
    """The scoring conventions of spec section 4 (defaults as given there).

    Parameters
    ----------
    unknown_gt_emotion : {"keep", "drop"}
        Ground-truth emotion labels outside the PANAS vocabulary.
    f1_intensity_both_empty : {1.0, 0.0}
        Emotion F1 x intensity when both tag lists are empty.
    hp_accuracy_no_judgements : {0.0, 1.0}
        ``_hp`` binary accuracies on a turn with no judgements.
    pairwise_none_vs_missing : {"wrong", "right"}
        Comparison with no ground-truth winner and no prediction.
    va_matching : {"optimal", "greedy"}
        Valence-arousal tag matching.
    composite_rounding : {"half_even", "half_up"}
        Rounding of displayed composites (display only).
    perspective_alignment_mcc : {"positive_only", "nonzero_denominator"}
        Zero rule of the MCC perspective alignment.

    Examples
    --------
    >>> ScoringOptions(va_matching="greedy").to_dict()["va_matching"]
    'greedy'
    """

    unknown_gt_emotion: Literal["keep", "drop"] = "keep"
    f1_intensity_both_empty: float = 1.0
    hp_accuracy_no_judgements: float = 0.0
    pairwise_none_vs_missing: Literal["wrong", "right"] = "wrong"
    va_matching: Literal["optimal", "greedy"] = "optimal"
    composite_rounding: Literal["half_even", "half_up"] = "half_even"
    perspective_alignment_mcc: Literal["positive_only", "nonzero_denominator"] = "positive_only"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            conv = CONVENTIONS[f.name]
            if isinstance(conv.default, float):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise TypeError(f"{f.name} must be a number in {conv.choices}, got {value!r}")
                if float(value) not in conv.choices:
                    raise ValueError(f"{f.name} must be one of {conv.choices}, got {value!r}")
                object.__setattr__(self, f.name, float(value))
            elif value not in conv.choices:
                raise ValueError(f"{f.name} must be one of {conv.choices}, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (field -> value)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> ScoringOptions:
        """Rebuild options from :meth:`to_dict` output; unknown keys are an error."""
        unknown = sorted(set(values) - set(CONVENTIONS))
        if unknown:
            raise ValueError(f"values has unknown scoring conventions {unknown}")
        return cls(**dict(values))

    def replace(self, **changes: Any) -> ScoringOptions:
        """A copy with some conventions changed."""
        return dataclasses.replace(self, **changes)

    def is_default(self) -> bool:
        """True when every convention has the spec's default."""
        return self == ScoringOptions()

    def alternatives(self) -> list[tuple[str, Any]]:
        """Every (convention, value) pair that differs from this object's setting."""
        return [
            (name, choice)
            for name, conv in CONVENTIONS.items()
            for choice in conv.choices
            if choice != getattr(self, name)
        ]

    def describe(self) -> pd.DataFrame:
        """One row per convention: ``convention``, ``value``, ``default``, ``is_default``,
        ``choices``, ``where`` (what it affects), ``description``."""
        rows = []
        for name, conv in CONVENTIONS.items():
            value = getattr(self, name)
            rows.append({
                "convention": name,
                "value": str(value),
                "default": str(conv.default),
                "is_default": value == conv.default,
                "choices": " | ".join(str(c) for c in conv.choices),
                "where": conv.where,
                "description": conv.description,
            })  # fmt: skip
        return pd.DataFrame(rows)


def round_display(values: Any, decimals: int = 2, *, method: str = "half_even") -> Any:
    """Round values for display, following the ``composite_rounding`` convention.

    ``"half_even"`` is Python's ``round(x, decimals)`` (correctly rounded; ties, which are rare in
    binary floating point, go to even). ``"half_up"`` is the port's ``Math.round(x * 10**d) / 10**d``
    (ties toward +infinity). NaN stays NaN. Scalars give floats, arrays give arrays.

    Examples
    --------
    >>> round_display(62.675, method="half_even"), round_display(62.675, method="half_up")
    (62.67, 62.68)
    """
    if method not in ("half_even", "half_up"):
        raise ValueError(f"method must be 'half_even' or 'half_up', got {method!r}")
    arr = np.asarray(values, dtype=np.float64)
    scale = 10.0**decimals
    if method == "half_up":
        out = np.floor(arr * scale + 0.5) / scale
    else:
        flat = [v if math.isnan(v) else round(v, decimals) for v in arr.ravel().tolist()]
        out = np.asarray(flat, dtype=np.float64).reshape(arr.shape)
    return float(out) if out.ndim == 0 else out
