"""Value rules of spec 1.4 / section 4 (attunestats.release.normalize), against hand-written cases.

Expected values are read off the spec text (1.4: "binary values: true/yes/y/1->yes, ...";
section 4: PANAS items rounded not clamped, four-branch clamped not rounded, unknown labels kept in
the ground truth and dropped from predictions), not computed by the code under test.
"""

from __future__ import annotations

import math

import pytest

from attunestats.release import normalize as nz

# --- binary values -----------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["yes", "no", "na"])
def test_binary_canonical_values_pass_without_event(raw):
    assert nz.binary_value(raw) == (raw, ())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("true", "yes"), ("True", "yes"), ("YES", "yes"), (" y ", "yes"), ("1", "yes"),
        (True, "yes"), (1, "yes"),
        ("false", "no"), ("No", "no"), ("n", "no"), ("0", "no"), (False, "no"), (0, "no"),
        ("NA", "na"), ("n/a", "na"), ("N/A", "na"), ("not_applicable", "na"),
    ],
)  # fmt: skip
def test_binary_spellings_map_to_canonical(raw, expected):
    assert nz.binary_value(raw) == (expected, ("binary_value_normalised",))


def test_binary_null_is_missing_without_event():
    assert nz.binary_value(None) == (None, ())


@pytest.mark.parametrize("raw", ["maybe", "", "  ", 2, 1.5, "yess"])
def test_binary_unrecognised_values_become_missing(raw):
    assert nz.binary_value(raw) == (None, ("binary_value_unrecognised",))


@pytest.mark.parametrize("raw", [[], {"a": 1}, ["yes"]])
def test_binary_containers_are_errors(raw):
    with pytest.raises(nz.NormalizationError, match="binary value must be"):
        nz.binary_value(raw)


# --- pairwise winners and labels --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected", "rules"),
    [
        ("A", "A", ()), ("B", "B", ()), (None, None, ()),
        (" A ", "A", ("winner_normalised",)), ("a", "A", ("winner_normalised",)),
        ("response_1", "A", ("winner_normalised",)), ("RESPONSE_1", "A", ("winner_normalised",)),
        ("b", "B", ("winner_normalised",)), ("response_2", "B", ("winner_normalised",)),
        ("C", None, ("winner_unrecognised",)), ("", None, ("winner_unrecognised",)),
        ("tie", None, ("winner_unrecognised",)), (1, None, ("winner_unrecognised",)),
    ],
)  # fmt: skip
def test_pairwise_winner(raw, expected, rules):
    assert nz.pairwise_winner(raw) == (expected, rules)


def test_pairwise_winner_container_is_error():
    with pytest.raises(nz.NormalizationError, match="pairwise winner must be"):
        nz.pairwise_winner(["A"])


@pytest.mark.parametrize(
    ("raw", "expected", "rules"),
    [
        ("original", "original", ()), ("alternate", "alternate", ()), ("human", "human", ()),
        ("alternate1", "alternate", ("label_normalised",)),
        ("alternate2", "human", ("label_normalised",)),
        ("something", "something", ()),
    ],
)  # fmt: skip
def test_response_label(raw, expected, rules):
    assert nz.response_label(raw) == (expected, rules)


def test_response_label_must_be_string():
    with pytest.raises(nz.NormalizationError, match="response label must be a string"):
        nz.response_label(3)


# --- emotion labels -------------------------------------------------------------------------


def test_emotion_label_known_lowercase_unchanged():
    assert nz.emotion_label("afraid", ground_truth=True) == ("afraid", ())
    assert nz.emotion_label("afraid", ground_truth=False) == ("afraid", ())


def test_emotion_label_strip_lower():
    assert nz.emotion_label("  Nervous ", ground_truth=False) == (
        "nervous",
        ("emotion_label_normalised",),
    )


def test_unknown_emotion_kept_in_ground_truth():
    assert nz.emotion_label("neutral", ground_truth=True) == ("neutral", ("unknown_emotion_kept",))
    assert nz.emotion_label(" Calm", ground_truth=True) == (
        "calm",
        ("emotion_label_normalised", "unknown_emotion_kept"),
    )


def test_unknown_emotion_dropped_from_predictions():
    assert nz.emotion_label("neutral", ground_truth=False) == (None, ("unknown_emotion_dropped",))


def test_emotion_label_must_be_string():
    with pytest.raises(nz.NormalizationError, match="emotion label must be a string"):
        nz.emotion_label(None, ground_truth=True)


# --- mood intensity -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected", "rules"),
    [
        (1, 1.0, ()), (7, 7.0, ()), (4.0, 4.0, ()),
        ("mild", 2.0, ("intensity_word",)), ("Moderate", 4.0, ("intensity_word",)),
        (" intense ", 6.0, ("intensity_word",)),
        (3.4, 3.0, ("intensity_rounded",)), (5.6, 6.0, ("intensity_rounded",)),
        # Python rounding, half to even (the TypeScript port would give 3 and 5)
        (2.5, 2.0, ("intensity_rounded",)), (4.5, 4.0, ("intensity_rounded",)),
        (0, 1.0, ("intensity_clamped",)), (-3, 1.0, ("intensity_clamped",)),
        (12, 7.0, ("intensity_clamped",)), (9.4, 7.0, ("intensity_rounded", "intensity_clamped")),
        ("5", 5.0, ("number_from_string",)),
        (None, None, ()), ("", None, ("blank_value",)), ("None", None, ("blank_value",)),
    ],
)  # fmt: skip
def test_mood_intensity(raw, expected, rules):
    assert nz.mood_intensity(raw) == (expected, rules)


@pytest.mark.parametrize(
    "raw", ["strong", "very", True, [3], {"v": 3}, math.nan, math.inf, 10**400]
)
def test_mood_intensity_errors(raw):
    with pytest.raises(nz.NormalizationError, match="mood intensity must be"):
        nz.mood_intensity(raw)


# --- PANAS totals, items, four-branch -------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected", "rules"),
    [
        (10, 10.0, ()), (70, 70.0, ()), (35, 35.0, ()),
        (35.4, 35.0, ("panas_total_clamped",)), (75.4, 70.0, ("panas_total_clamped",)),
        (3, 10.0, ("panas_total_clamped",)), ("9", 10.0, ("number_from_string", "panas_total_clamped")),
        (None, None, ()),
    ],
)  # fmt: skip
def test_panas_total_rounded_and_clamped(raw, expected, rules):
    assert nz.panas_total(raw) == (expected, rules)


@pytest.mark.parametrize(
    ("raw", "expected", "rules"),
    [
        (3, 3.0, ()), (3.6, 4.0, ("panas_item_rounded",)),
        # not clamped (spec 4): out-of-range items are kept
        (9, 9.0, ()), (0, 0.0, ()), (-2.2, -2.0, ("panas_item_rounded",)),
        ("4", 4.0, ("number_from_string",)), (None, None, ()),
    ],
)  # fmt: skip
def test_panas_item_rounded_not_clamped(raw, expected, rules):
    assert nz.panas_item(raw) == (expected, rules)


@pytest.mark.parametrize("fn", [nz.panas_total, nz.panas_item, nz.four_branch_score])
@pytest.mark.parametrize("raw", ["high", False, [1], {}])
def test_numeric_rules_reject_non_numbers(fn, raw):
    with pytest.raises(nz.NormalizationError, match="must be a number"):
        fn(raw)


@pytest.mark.parametrize(
    ("raw", "expected", "rules"),
    [
        (5, 5.0, ()), (4.5, 4.5, ()),  # not rounded
        (9, 7.0, ("four_branch_clamped",)), (0.5, 1.0, ("four_branch_clamped",)),
        (None, None, ()),
    ],
)  # fmt: skip
def test_four_branch_clamped_not_rounded(raw, expected, rules):
    assert nz.four_branch_score(raw) == (expected, rules)


# --- PANAS blocks ---------------------------------------------------------------------------

_POS = ("Proud", "Alert", "Inspired", "Determined", "Attentive",
        "Active", "Excited", "Strong", "Enthusiastic", "Interested")  # fmt: skip
_NEG = ("Irritable", "Ashamed", "Nervous", "Jittery", "Distressed",
        "Afraid", "Upset", "Guilty", "Scared", "Hostile")  # fmt: skip


def test_panas_block_totals_only():
    block = nz.parse_panas({"totalPositiveAffect": 30, "totalNegativeAffect": 25})
    assert (block.items, block.positive, block.negative, block.events) == ({}, 30.0, 25.0, [])


def test_panas_block_null_is_empty():
    block = nz.parse_panas(None)
    assert block.empty and block.events == []


def test_panas_block_items_derive_totals():
    items = dict.fromkeys(_POS, 2) | dict.fromkeys(_NEG, 3)
    block = nz.parse_panas({"items": items})
    assert block.items == {k: float(v) for k, v in items.items()}
    assert (block.positive, block.negative) == (20.0, 30.0)
    assert block.events == [
        (".totalPositiveAffect", "panas_total_derived", "10 items", 20.0),
        (".totalNegativeAffect", "panas_total_derived", "10 items", 30.0),
    ]


def test_panas_block_partial_items_sum_available_items():
    # the reference code sums the items present (here 2 positive items, no negative ones)
    block = nz.parse_panas({"items": {"Proud": 4, "Alert": 5}})
    assert (block.positive, block.negative) == (10.0, None)


def test_panas_block_responses_nesting():
    block = nz.parse_panas({"responses": {"Proud": 4, "Upset": 2}})
    assert block.items == {"Proud": 4.0, "Upset": 2.0}
    nested = [e for e in block.events if e[1] == "panas_items_nested"]
    assert nested == [
        (".responses.Proud", "panas_items_nested", 4, 4.0),
        (".responses.Upset", "panas_items_nested", 2, 2.0),
    ]
    # derived totals from one item each, clamped up to 10
    assert (block.positive, block.negative) == (10.0, 10.0)


def test_panas_block_precedence_top_level_then_items_then_responses():
    block = nz.parse_panas(
        {
            "Proud": 1,
            "items": {"Proud": 2, "Alert": 3},
            "responses": {"Proud": 5, "Alert": 6, "Upset": 7},
        }
    )
    assert block.items == {"Proud": 1.0, "Alert": 3.0, "Upset": 7.0}


def test_panas_block_case_insensitive_keys():
    block = nz.parse_panas({"items": {"proud": 3, "UPSET": 4}})
    assert block.items == {"Proud": 3.0, "Upset": 4.0}


def test_panas_block_explicit_total_wins_over_items():
    block = nz.parse_panas({"totalPositiveAffect": 50, "items": {"Proud": 7}})
    assert block.positive == 50.0


def test_panas_block_null_total_is_derived():
    block = nz.parse_panas({"totalPositiveAffect": None, "items": dict.fromkeys(_POS, 7)})
    assert block.positive == 70.0


def test_panas_block_items_not_clamped_but_total_is():
    block = nz.parse_panas({"items": dict.fromkeys(_POS, 9)})
    assert block.items["Proud"] == 9.0
    assert block.positive == 70.0
    assert ("" + ".totalPositiveAffect", "panas_total_clamped", 90.0, 70.0) in block.events


def test_panas_block_null_item_not_rated():
    block = nz.parse_panas({"items": {"Proud": None, "Alert": 4}})
    assert block.items == {"Alert": 4.0}
    assert (".items.Proud", "panas_item_null", None, None) in block.events


def test_panas_block_collects_every_error():
    with pytest.raises(nz.NormalizationError) as info:
        nz.parse_panas({"items": {"Proud": "high", "Alert": [1]}, "totalNegativeAffect": "x"})
    paths = sorted(d[0] for d in info.value.details)
    assert paths == [".items.Alert", ".items.Proud", ".totalNegativeAffect"]


def test_panas_block_must_be_object():
    with pytest.raises(nz.NormalizationError, match="PANAS block must be an object"):
        nz.parse_panas([1, 2])


# --- delta rebuild --------------------------------------------------------------------------


def test_rebuild_from_delta_uses_pre_totals_and_clamps():
    pre = nz.PanasBlock(items={"Proud": 6.0}, positive=23.0, negative=66.0)
    out = nz.rebuild_panas_from_delta(
        {"totalPositiveAffect_change": 5, "totalNegativeAffect_change": 10,
         "items": {"Proud": 3, "upset": -4}},
        pre,
    )  # fmt: skip
    # 23 + 5 = 28; 66 + 10 = 76 -> 70; Proud 6 + 3 = 9 -> 7; Upset default 3 - 4 = -1 -> 1
    assert (out.positive, out.negative) == (28.0, 70.0)
    assert out.items == {"Proud": 7.0, "Upset": 1.0}
    assert {e[1] for e in out.events} == {"panas_rebuilt_from_delta"}
    assert len(out.events) == 4


def test_rebuild_from_delta_defaults_to_midpoint():
    out = nz.rebuild_panas_from_delta({"totalNegativeAffect_change": -12}, None)
    assert (out.positive, out.negative) == (None, 28.0)


def test_rebuild_from_delta_bad_change():
    with pytest.raises(nz.NormalizationError) as info:
        nz.rebuild_panas_from_delta({"totalPositiveAffect_change": "up"}, None)
    assert info.value.details[0][0] == ".totalPositiveAffect_change"


def test_first_present_skips_nulls():
    assert nz.first_present({"a": None, "b": 0, "c": 1}, ["a", "b", "c"]) == (0, "b")
    assert nz.first_present({"a": None}, ["a", "z"]) == (None, None)
