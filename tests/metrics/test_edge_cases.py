"""Hand-computed values for every edge case of spec sections 2-4 (one small release per case).

Expected values are worked out in the comments from the spec's definitions, never taken from the
code under test. Worked values printed in the spec (VA similarities, composite 62.68 / 62.08, PANAS
baseline-adjusted 0.667 / 0 / -0.667) are asserted as printed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from metrics_support import conv_value, tiny_release, turn_value

from attunestats.metrics import ScoringOptions, composite_components, score
from attunestats.metrics.turn import va_similarity

NAN = float("nan")
# valence-arousal coordinates copied from the spec table (section 1.5)
VA = {
    "afraid": (0.073, 0.84), "scared": (0.083, 0.82), "upset": (0.167, 0.65),
    "excited": (0.8, 0.85), "nervous": (0.188, 0.72), "interested": (0.65, 0.6),
    "inspired": (0.9, 0.7), "strong": (0.75, 0.7), "guilty": (0.15, 0.6),
}  # fmt: skip


def sim(a: str, b: str) -> float:
    (v1, a1), (v2, a2) = VA[a], VA[b]
    return round(1 - math.sqrt((v1 - v2) ** 2 + (a1 - a2) ** 2) / math.sqrt(2), 4)


# --------------------------------------------------------------------------------------------
# emotion tracking


@pytest.mark.parametrize(
    ("e1", "e2", "value"),
    [("afraid", "scared", 0.9842), ("upset", "excited", 0.5306),
     ("nervous", "interested", 0.6625), ("afraid", "inspired", 0.4069)],
)  # fmt: skip
def test_va_similarity_worked_values(e1, e2, value):
    assert va_similarity(e1, e2) == value
    assert va_similarity(e2, e1) == value
    # the same through a scored turn: one tag each, exact intensity match
    rel = tiny_release([{"gt_tags": [(e1, 3.0)], "pred_tags": [(e2, 3.0)]}])
    s = score(rel)
    assert turn_value(s, "emotion_va_score") == pytest.approx(value, abs=1e-12)
    assert turn_value(s, "emotion_va_intensity_score") == pytest.approx(
        0.7 * value + 0.3, abs=1e-12
    )
    assert turn_value(s, "emotion_f1") == 0.0


def test_va_similarity_unknown_label_is_zero():
    assert va_similarity("neutral", "afraid") == 0.0
    assert va_similarity("afraid", "afraid") == 1.0


EMOTION_TURNS = [
    {"gt_tags": [], "pred_tags": []},  # 1: both empty
    {"gt_tags": [], "pred_tags": [("afraid", 3.0)]},  # 2: only prediction
    {"gt_tags": [("afraid", 3.0)], "pred_tags": []},  # 3: only ground truth
    {"gt_tags": [("afraid", 2.0), ("upset", 4.0)], "pred_tags": [("afraid", 5.0), ("excited", 1.0)]},
    {"gt_tags": [("afraid", NAN)], "pred_tags": [("afraid", 4.0)]},  # 5: intensity missing
    {"gt_tags": [("afraid", 2.0), ("afraid", 5.0)], "pred_tags": [("afraid", 5.0)]},  # 6: duplicate
    {"gt_tags": [("neutral", 3.0)], "pred_tags": []},  # 7: unknown label only
    {"gt_tags": [("neutral", 3.0), ("afraid", 3.0)], "pred_tags": [("afraid", 3.0)]},  # 8
]  # fmt: skip


def test_emotion_metrics_edge_cases_default():
    s = score(tiny_release(EMOTION_TURNS))
    v = lambda m, t: turn_value(s, m, t)  # noqa: E731
    # 1: both empty -> hit 1, P = R = F1 = 1, F1 x intensity 1 (convention), VA 1, MAE null
    for m in ("emotion_hit_rate", "emotion_precision", "emotion_recall", "emotion_f1",
              "emotion_f1_intensity", "emotion_va_score", "emotion_va_intensity_score"):  # fmt: skip
        assert v(m, 1) == 1.0, m
    assert math.isnan(v("emotion_intensity_mae", 1))
    # 2: G empty, P not -> everything 0
    for m in ("emotion_hit_rate", "emotion_precision", "emotion_recall", "emotion_f1",
              "emotion_f1_intensity", "emotion_va_score", "emotion_va_intensity_score"):  # fmt: skip
        assert v(m, 2) == 0.0, m
    # 3: P empty -> hit 0, F1 0, VA 0 (one list empty)
    for m in ("emotion_hit_rate", "emotion_precision", "emotion_f1", "emotion_va_score"):
        assert v(m, 3) == 0.0, m
    # 4: tp = 1 of |G| = |P| = 2; afraid 2 vs 5: error 3, intensity score 1 - 3/6 = 0.5
    assert v("emotion_hit_rate", 4) == 0.5
    assert v("emotion_f1", 4) == pytest.approx(0.5)
    assert v("emotion_f1_intensity", 4) == pytest.approx(0.25)
    assert v("emotion_intensity_mae", 4) == 3.0
    best = max(sim("afraid", "afraid") + sim("upset", "excited"),
               sim("afraid", "excited") + sim("upset", "afraid"))  # fmt: skip
    assert v("emotion_va_score", 4) == pytest.approx(best / 2, abs=1e-12)
    # 5: matched tag without ground-truth intensity: F1 1, F1 x intensity 0, MAE null,
    #    VA 1, VA x intensity 0.7 * 1 + 0.3 * 0
    assert v("emotion_f1", 5) == 1.0
    assert v("emotion_f1_intensity", 5) == 0.0
    assert math.isnan(v("emotion_intensity_mae", 5))
    assert v("emotion_va_intensity_score", 5) == pytest.approx(0.7, abs=1e-12)
    # 6: set {afraid} with the last intensity (5): F1 1, F1 x intensity 1, MAE 0;
    #    VA uses lists: |G| = 2, |P| = 1 -> (1 / 1) * coverage 1/2; VA x intensity matches the
    #    (afraid, 5) tag: combined 1 -> 0.5
    assert v("emotion_f1", 6) == 1.0
    assert v("emotion_f1_intensity", 6) == 1.0
    assert v("emotion_intensity_mae", 6) == 0.0
    assert v("emotion_va_score", 6) == pytest.approx(0.5)
    assert v("emotion_va_intensity_score", 6) == pytest.approx(0.5)
    # 7: unknown label kept (default): G = {neutral}, P empty -> hit 0, F1 0, VA 0
    assert v("emotion_hit_rate", 7) == 0.0
    assert v("emotion_f1", 7) == 0.0
    assert v("emotion_va_score", 7) == 0.0
    # 8: kept: hit 1/2, F1 = 2 (1 * 1/2) / (3/2) = 2/3; VA: neutral has similarity 0 -> best
    #    match afraid-afraid 1, / 1 * coverage 1/2
    assert v("emotion_hit_rate", 8) == 0.5
    assert v("emotion_f1", 8) == pytest.approx(2 / 3)
    assert v("emotion_va_score", 8) == pytest.approx(0.5)
    # tagged-only hit rate: turns 3..8 have ground-truth tags: (0 + 0.5 + 1 + 1 + 0 + 0.5) / 6
    assert conv_value(s, "avg_emotion_hit_rate_tagged_only") == pytest.approx(3 / 6)
    assert conv_value(s, "avg_emotion_hit_rate") == pytest.approx((1 + 0 + 3) / 8)


def test_emotion_conventions_drop_unknown_and_f1_intensity_zero():
    opts = ScoringOptions(unknown_gt_emotion="drop", f1_intensity_both_empty=0.0)
    s = score(tiny_release(EMOTION_TURNS), options=opts)
    v = lambda m, t: turn_value(s, m, t)  # noqa: E731
    assert v("emotion_f1_intensity", 1) == 0.0  # both empty, alternative convention
    assert v("emotion_f1", 1) == 1.0
    # 7: 'neutral' dropped -> both lists empty
    assert v("emotion_hit_rate", 7) == 1.0
    assert v("emotion_f1", 7) == 1.0
    assert v("emotion_va_score", 7) == 1.0
    assert v("emotion_f1_intensity", 7) == 0.0
    # 8: G = {afraid} -> perfect
    assert v("emotion_f1", 8) == 1.0
    assert v("emotion_va_score", 8) == 1.0
    # turn 7 no longer counts as tagged
    assert conv_value(s, "avg_emotion_hit_rate_tagged_only") == pytest.approx(
        (0 + 0.5 + 1 + 1 + 1) / 5
    )


def test_va_optimal_vs_greedy_matching():
    turns = [{"gt_tags": [("inspired", 4.0), ("interested", 4.0)],
              "pred_tags": [("strong", 4.0), ("guilty", 4.0)]}]  # fmt: skip
    optimal = max(sim("inspired", "strong") + sim("interested", "guilty"),
                  sim("inspired", "guilty") + sim("interested", "strong"))  # fmt: skip
    # greedy takes the most similar pair first (interested-strong, 0.9), then what is left
    pairs = {("inspired", "strong"), ("inspired", "guilty"), ("interested", "strong"),
             ("interested", "guilty")}  # fmt: skip
    first = max(pairs, key=lambda p: sim(*p))
    assert first == ("interested", "strong")
    greedy = sim(*first) + sim("inspired", "guilty")
    assert optimal - greedy > 0.1  # a case where the two readings differ
    s_opt = score(tiny_release(turns))
    s_gr = score(tiny_release(turns), options=ScoringOptions(va_matching="greedy"))
    assert turn_value(s_opt, "emotion_va_score") == pytest.approx(optimal / 2, abs=1e-12)
    assert turn_value(s_gr, "emotion_va_score") == pytest.approx(greedy / 2, abs=1e-12)
    # equal intensities: VA x intensity = 0.7 VA + 0.3
    assert turn_value(s_opt, "emotion_va_intensity_score") == pytest.approx(
        0.7 * optimal / 2 + 0.3, abs=1e-12
    )


def test_va_optimal_matches_scipy_assignment_on_large_tag_lists():
    # 7 x 6 tags: beyond brute force (5040 assignments) -> linear_sum_assignment path; and
    # 3 x 5 brute force; both compared with scipy on the similarity matrix built here
    from scipy.optimize import linear_sum_assignment

    labels = list(VA)
    rng = np.random.default_rng(3)
    turns, expected = [], []
    for a, b in [(7, 6), (3, 5), (5, 2)]:
        g = [labels[i] for i in rng.integers(0, len(labels), a)]
        p = [labels[i] for i in rng.integers(0, len(labels), b)]
        turns.append({"gt_tags": [(x, 3.0) for x in g], "pred_tags": [(x, 3.0) for x in p]})
        m = np.array([[sim(x, y) for y in p] for x in g])
        r, c = linear_sum_assignment(m, maximize=True)
        expected.append(m[r, c].sum() / min(a, b) * min(a, b) / max(a, b))
    s = score(tiny_release(turns))
    for t, e in enumerate(expected, start=1):
        assert turn_value(s, "emotion_va_score", t) == pytest.approx(e, abs=1e-12)


# --------------------------------------------------------------------------------------------
# binary judgements

BINARY_TURNS = [
    {},  # 1: no judgements at all
    {"judgements": {"B1": ("na", "na", "na")}, "pred_binary": {"om": {"B1": "yes"}}},  # 2
    {  # 3: fallbacks, "na" and missing predictions
        "judgements": {
            "B1": ("yes", "yes", "no"),  # om GT yes, human GT no
            "B2": ("no", NAN, NAN),  # om GT = llmValue no; human GT missing -> skipped
            "B3": (NAN, "no", "yes"),  # om GT no; human GT yes
            "B4": ("yes", "na", NAN),  # om GT na (no fallback past na); human GT na -> skipped
            "B5": ("no", "yes", "yes"),  # om yes; human yes
        },
        "pred_binary": {
            "om": {"B1": "na", "B3": "yes", "B5": "yes"},  # B1 FN, B2 missing TN, B3 FP, B5 TP
            "human": {"B1": "yes", "B3": "no"},  # B1 FP, B3 FN, B5 missing FN
            "om_hp": {"B1": "yes", "B2": "yes", "B3": "yes", "B5": "yes"},  # TP FP FP TP
            "human_hp": {},  # B1 TN, B3 FN, B5 FN
        },
    },
]


def test_binary_counts_and_accuracies():
    s = score(tiny_release(BINARY_TURNS))
    v = lambda m, t: turn_value(s, m, t)  # noqa: E731
    # no judgements: main pair 1, HP-wording pair 0 (default convention)
    assert (v("binary_om_accuracy", 1), v("binary_human_accuracy", 1)) == (1.0, 1.0)
    assert (v("binary_om_accuracy_hp", 1), v("binary_human_accuracy_hp", 1)) == (0.0, 0.0)
    # judgements exist but every GT is na: 0 for all four
    for m in ("binary_om_accuracy", "binary_human_accuracy", "binary_om_accuracy_hp",
              "binary_human_accuracy_hp"):  # fmt: skip
        assert v(m, 2) == 0.0, m
    assert v("binary_om_accuracy", 3) == pytest.approx(2 / 4)
    assert v("binary_human_accuracy", 3) == 0.0
    assert v("binary_om_accuracy_hp", 3) == pytest.approx(2 / 4)
    assert v("binary_human_accuracy_hp", 3) == pytest.approx(1 / 3)
    tc = s.turn_counts.set_index(["turn", "task"])[["tp", "tn", "fp", "fn"]]
    assert tc.loc[(3, "om")].tolist() == [1, 1, 1, 1]
    assert tc.loc[(3, "human")].tolist() == [0, 0, 1, 2]
    assert tc.loc[(3, "om_hp")].tolist() == [2, 0, 2, 0]
    assert tc.loc[(3, "human_hp")].tolist() == [0, 1, 0, 2]
    assert tc.loc[(1, "om")].tolist() == [0, 0, 0, 0]
    # conversation: sums over turns and pooled statistics of the sums
    c = s.counts.set_index("task")[["tp", "tn", "fp", "fn"]]
    assert c.loc["om"].tolist() == [1, 1, 1, 1]
    assert conv_value(s, "pooled_binary_om_accuracy") == 0.5
    assert conv_value(s, "pooled_binary_om_mcc") == 0.0  # (1*1 - 1*1) / sqrt(2*2*2*2)
    assert conv_value(s, "pooled_binary_om_hp_precision") == 0.5  # 2 / (2 + 2)
    assert conv_value(s, "pooled_binary_om_hp_recall") == 1.0
    assert conv_value(s, "pooled_binary_om_hp_f1") == pytest.approx(2 / 3)
    assert conv_value(s, "pooled_binary_human_f1") == 0.0  # tp 0 -> precision = recall = 0
    # averages over the three turns
    assert conv_value(s, "avg_binary_om_accuracy") == pytest.approx((1 + 0 + 0.5) / 3)
    assert conv_value(s, "avg_binary_human_accuracy_hp") == pytest.approx((0 + 0 + 1 / 3) / 3)
    # perspective gap and alignment
    h, hh = (1 + 0 + 0) / 3, (0 + 0 + 1 / 3) / 3
    assert conv_value(s, "hp_perspective_gap") == pytest.approx(h - hh)
    assert conv_value(s, "hp_perspective_alignment") == pytest.approx(hh / h)


def test_binary_hp_no_judgements_convention():
    s = score(tiny_release(BINARY_TURNS), options=ScoringOptions(hp_accuracy_no_judgements=1.0))
    assert turn_value(s, "binary_om_accuracy_hp", 1) == 1.0
    assert turn_value(s, "binary_human_accuracy_hp", 1) == 1.0
    assert turn_value(s, "binary_om_accuracy_hp", 2) == 0.0  # judgements exist: unchanged


def test_perspective_alignment_mcc_conventions():
    # human task MCC negative, human_hp positive: the two conventions differ
    turns = [{
        "judgements": {"B1": (NAN, "yes", "yes"), "B2": (NAN, "no", "no"),
                       "B3": (NAN, "yes", "yes"), "B4": (NAN, "no", "no")},
        "pred_binary": {"human": {"B1": "no", "B2": "yes", "B3": "yes", "B4": "yes"},
                        "human_hp": {"B1": "yes", "B2": "no", "B3": "yes", "B4": "yes"}},
    }]  # fmt: skip
    # human: tp 1 (B3), tn 0, fp 2 (B2, B4), fn 1 (B1) -> mcc = (0 - 2) / sqrt(3*2*2*1)
    mcc = (1 * 0 - 2 * 1) / math.sqrt(3 * 2 * 2 * 1)
    # human_hp: tp 2, tn 1, fp 1, fn 0 -> mcc = (2 - 0) / sqrt(3*2*2*1)
    mcc_hp = (2 * 1 - 1 * 0) / math.sqrt(3 * 2 * 2 * 1)
    s = score(tiny_release(turns))
    assert conv_value(s, "pooled_binary_human_mcc") == pytest.approx(mcc)
    assert conv_value(s, "pooled_binary_human_hp_mcc") == pytest.approx(mcc_hp)
    assert conv_value(s, "hp_perspective_gap_mcc") == pytest.approx(mcc - mcc_hp)
    assert conv_value(s, "hp_perspective_alignment_mcc") == 0.0  # human MCC not positive
    s2 = score(tiny_release(turns),
               options=ScoringOptions(perspective_alignment_mcc="nonzero_denominator"))  # fmt: skip
    assert conv_value(s2, "hp_perspective_alignment_mcc") == pytest.approx(mcc_hp / mcc)


# --------------------------------------------------------------------------------------------
# pairwise


PAIRWISE_TURNS = [
    {},  # 1: no comparisons
    {  # 2
        "comparisons": [("original", "alternate", "A"), ("original", "human", "B"),
                        ("alternate", "human", NAN)],
        "selections": {0: "A", 1: "A"},
    },
    {"comparisons": [("original", "alternate", "A")]},  # 3: no selection
    {"comparisons": [("original", "alternate", "A")], "selections": {0: "B"}},  # 4
    {"comparisons": [("original", "human", NAN)], "selections": {0: "A"}},  # 5: GT undecided
]  # fmt: skip


def test_pairwise_accuracy_and_kendall_tau():
    from scipy.stats import kendalltau

    s = score(tiny_release(PAIRWISE_TURNS))
    v = lambda m, t: turn_value(s, m, t)  # noqa: E731
    assert v("pairwise_accuracy", 1) == 1.0
    assert math.isnan(v("pairwise_kendall_tau", 1))
    # 2: comparison 0 right, 1 wrong, 2 (no winner, no selection) wrong by default
    assert v("pairwise_accuracy", 2) == pytest.approx(1 / 3)
    # rankings (alphabetical, then stable by descending wins): GT wins original 1, human 1 ->
    # [human, original, alternate]; EM wins original 2 -> [original, alternate, human].
    # positions of (alternate, human, original): GT (2, 0, 1), EM (1, 2, 0)
    tau = kendalltau([2, 0, 1], [1, 2, 0]).statistic
    assert tau == pytest.approx(-1 / 3)
    assert v("pairwise_kendall_tau", 2) == pytest.approx(tau)
    # 3: no selection -> accuracy 0, tau null
    assert v("pairwise_accuracy", 3) == 0.0
    assert math.isnan(v("pairwise_kendall_tau", 3))
    # 4: two labels, opposite orders
    assert v("pairwise_kendall_tau", 4) == -1.0
    # 5: undecided GT: ranking falls back to alphabetical [human, original]; EM [original, human]
    assert v("pairwise_accuracy", 5) == 0.0
    assert v("pairwise_kendall_tau", 5) == -1.0
    assert conv_value(s, "avg_pairwise_accuracy") == pytest.approx((1 + 1 / 3 + 0 + 0 + 0) / 5)
    assert conv_value(s, "avg_pairwise_kendall_tau") == pytest.approx((-1 / 3 - 1 - 1) / 3)
    comp = s.comparisons
    assert len(comp) == 6
    assert comp["has_winner"].tolist() == [True, True, False, True, True, False]
    assert comp["correct"].tolist() == [True, False, False, False, False, False]


def test_pairwise_none_vs_missing_convention():
    s = score(
        tiny_release(PAIRWISE_TURNS), options=ScoringOptions(pairwise_none_vs_missing="right")
    )
    assert turn_value(s, "pairwise_accuracy", 2) == pytest.approx(2 / 3)
    assert turn_value(s, "pairwise_accuracy", 5) == 0.0  # a selection against no winner: wrong


# --------------------------------------------------------------------------------------------
# post-conversation


@pytest.mark.parametrize(("pred", "expected"), [(28.0, 0.667), (36.0, 0.0), (40.0, -0.667)])
def test_panas_baseline_adjusted_worked_values(pred, expected):
    conv = {"post_pa": 30.0, "pre_pa": 36.0, "post_na": 20.0, "pre_na": 20.0}
    run = {"pred_post_pa": pred, "pred_post_na": 25.0}
    s = score(tiny_release([{}], conversation=conv, run=run))
    assert round(conv_value(s, "panas_pa_baseline_adjusted"), 3) == expected
    assert math.isnan(conv_value(s, "panas_na_baseline_adjusted"))  # post == pre -> null
    assert conv_value(s, "panas_baseline_adjusted") == conv_value(s, "panas_pa_baseline_adjusted")
    assert conv_value(s, "panas_score") == pytest.approx(
        (conv_value(s, "panas_baseline_adjusted") + 1) / 2
    )
    # errors |30 - pred| and |20 - 25|
    assert conv_value(s, "panas_mae") == pytest.approx((abs(30 - pred) + 5) / 2)
    assert conv_value(s, "panas_normalized") == pytest.approx(1 - (abs(30 - pred) + 5) / 2 / 60)


def test_panas_missing_sides_and_post_equal_pre():
    # PA: actual missing -> 40; NA: both missing -> not counted (error 0 in the per-side value)
    conv = {"post_pa": NAN, "pre_pa": 30.0, "post_na": NAN, "pre_na": 30.0}
    run = {"pred_post_pa": 50.0, "pred_post_na": NAN}
    s = score(tiny_release([{}], conversation=conv, run=run))
    assert conv_value(s, "panas_pa_mae") == 10.0
    assert conv_value(s, "panas_na_mae") == 0.0
    assert conv_value(s, "panas_mae") == 10.0
    assert math.isnan(conv_value(s, "panas_baseline_adjusted"))
    assert conv_value(s, "panas_score") == 0.5  # null adjusted score counts as 0.5
    # post == pre on both scales: adjusted null
    conv = {"post_pa": 30.0, "pre_pa": 30.0, "post_na": 22.0, "pre_na": 22.0}
    s = score(
        tiny_release([{}], conversation=conv, run={"pred_post_pa": 31.0, "pred_post_na": 20.0})
    )
    assert math.isnan(conv_value(s, "panas_baseline_adjusted"))


def test_panas_item_level():
    conv = {"items": {"post": {"Proud": 3.0, "Alert": 5.0, "Nervous": 2.0},
                      "pre": {"Proud": 3.0, "Alert": 2.0}}}  # fmt: skip
    run = {"items": {"Proud": 4.0, "Alert": 5.0, "Upset": 1.0}}
    s = score(tiny_release([{}], conversation=conv, run=run))
    # items in both: Proud (error 1), Alert (0)
    assert conv_value(s, "panas_item_mae") == 0.5
    assert conv_value(s, "panas_item_normalized") == pytest.approx(1 - 0.5 / 6)
    # Proud post == pre -> null; Alert: naive 1 - 3/6 = 0.5, raw 1 -> (1 - 0.5) / 0.5 = 1
    assert conv_value(s, "panas_item_baseline_adjusted") == 1.0
    s = score(tiny_release([{}], conversation={"items": {"post": {"Proud": 3.0}}}))
    assert math.isnan(conv_value(s, "panas_item_mae"))  # no predicted items


def test_survey_questions():
    conv = {
        "q1": ["To just listen or let me vent", "Other"],
        "q2_emotion_clarity": "Implied or indirect",
        "q3_model_fit": "Mostly well-matched",
        "q3f": ["too formal", "repeated advice"],
    }
    run = {
        "q1": ["other ", "To get specific information or advice"],
        "q2_emotion_clarity": "  implied OR indirect ",
        "q3_model_fit": "Mostly off-target or intrusive",
        "q3f": ["too formal", "advice was repeated often"],
    }
    s = score(tiny_release([{}], conversation=conv, run=run))
    assert conv_value(s, "q1_looking_for_score") == 0.5  # tp 1 of 2 and 2
    assert conv_value(s, "q2_emotion_clarity_match") == 1.0
    assert conv_value(s, "q3_model_fit_match") == 0.0
    assert conv_value(s, "q3_model_fit_ordinal_distance") == 2.0  # index 1 vs 3
    # recall: exact 1 + Jaccard({repeated, advice}, {advice, was, repeated, often}) = 2/4 -> 1.5/2
    # precision: exact 1 + the same 0.5 -> 1.5/2; F1 0.75
    assert conv_value(s, "q3_follow_up_score") == pytest.approx(0.75)
    cwq = (0.5 + 1 + 0 + 0.75) / 4
    assert conv_value(s, "conversation_wide_questions_score") == pytest.approx(cwq)


@pytest.mark.parametrize(
    ("gt", "pred", "match", "distance"),
    [("??", "Mostly well-matched", 0.0, 3.0),  # one unknown option -> 3
     ("??", "nope", 0.0, 0.0),  # both unknown -> 0
     (NAN, NAN, 1.0, 0.0),  # both missing: '' == '' (port)
     ("Very well-matched and adaptive", "mostly well-matched", 0.0, 1.0)],
)  # fmt: skip
def test_q3_unknown_options(gt, pred, match, distance):
    s = score(tiny_release([{}], conversation={"q3_model_fit": gt}, run={"q3_model_fit": pred}))
    assert conv_value(s, "q3_model_fit_match") == match
    assert conv_value(s, "q3_model_fit_ordinal_distance") == distance


def test_survey_empty_lists_and_fuzzy_threshold():
    s = score(tiny_release([{}]))  # all lists empty
    assert conv_value(s, "q1_looking_for_score") == 1.0
    assert conv_value(s, "q3_follow_up_score") == 1.0
    s = score(tiny_release([{}], conversation={"q1": ["Other"], "q3f": ["a b c d"]},
                           run={"q3f": ["a x y z"]}))  # fmt: skip
    assert conv_value(s, "q1_looking_for_score") == 0.0  # one list empty
    assert conv_value(s, "q3_follow_up_score") == 0.0  # Jaccard 1/7 < 0.3 -> no credit


def test_four_branch_unrated_and_missing_prediction():
    conv = {"fb_perceiving": 5.0, "fb_understanding": 2.0}  # facilitating, managing unrated
    run = {"fb_perceiving": 7.0}  # understanding not predicted -> 4
    s = score(tiny_release([{}], conversation=conv, run=run))
    assert conv_value(s, "four_branch_mae") == 2.0  # (|5-7| + |2-4|) / 2
    assert conv_value(s, "four_branch_normalized") == pytest.approx(1 - 2 / 6)
    assert conv_value(s, "four_branch_error_perceiving") == 2.0
    assert math.isnan(conv_value(s, "four_branch_error_facilitating"))
    s = score(tiny_release([{}], run={"fb_perceiving": 1.0}))  # HP rated no branch
    assert conv_value(s, "four_branch_mae") == 0.0
    assert conv_value(s, "four_branch_normalized") == 1.0


# --------------------------------------------------------------------------------------------
# draft responses


def test_draft_metrics():
    turns = [
        {
            "texts": ("i feel tired", "you feel tired today", ""),
            "draft": "You  feel tired",
            "comparisons": [("original", "alternate", "A"), ("alternate", "human", "A"),
                            ("original", "human", "B")],
            "judge": {"judge_overall_score": 7.0, "judge_emotional_appropriateness": 4.0,
                      "judge_tone_match": 1.0},
            "judgements": {"B1": (NAN, "yes", "no"), "B2": (NAN, "yes", NAN),
                           "B3": (NAN, "na", "na")},
            "pred_binary": {"draft": {"B1": "no", "B2": "na"}},
        },
        {"texts": ("i feel tired", NAN, NAN)},  # no draft, no judge
    ]  # fmt: skip
    s = score(tiny_release(turns, more_runs=[("other", "default", [{}, {}], {})]))
    v = lambda m, t: turn_value(s, m, t)  # noqa: E731
    # tokens {you, feel, tired}: vs {i, feel, tired} 2/4, vs {you, feel, tired, today} 3/4,
    # human-edited reply empty -> 0
    assert v("response_similarity_original", 1) == 0.5
    assert v("response_similarity_llm_improved", 1) == 0.75
    assert v("response_similarity_human_edited", 1) == 0.0
    assert v("response_similarity", 1) == 0.75
    # wins: original, alternate, human once each (weights 1/3); the human reply has no text
    assert v("response_preference_alignment", 1) == pytest.approx((0.5 + 0.75) / 3 / (2 / 3))
    assert v("draft_judge_score", 1) == 0.5  # mean(7, 4, 1) = 4 -> (4 - 1) / 6
    # GT (preferred, fallback observed): B1 no (judge no: right), B2 yes (judge na: wrong)
    assert v("draft_binary_alignment", 1) == 0.5
    assert v("response_similarity", 2) == 0.0  # no draft
    assert math.isnan(v("draft_judge_score", 2))
    assert math.isnan(v("draft_binary_alignment", 2))
    assert conv_value(s, "avg_response_similarity") == pytest.approx(0.75 / 2)
    assert conv_value(s, "avg_draft_judge_score") == 0.5  # null turns left out
    # a predictor without drafts gets no draft-response rows at all
    other = s.turn[s.turn["predictor"] == "other"]
    assert not other["metric"].str.startswith(("response_", "draft_")).any()
    assert "avg_response_similarity" not in set(
        s.conversation.loc[s.conversation["predictor"] == "other", "metric"]
    )


# --------------------------------------------------------------------------------------------
# turns present in only one of ground truth and run; composite


def test_ground_truth_turn_missing_from_run_is_skipped():
    turns = [{}, {"comparisons": [("original", "human", "A")], "in_run": False},
             {"comparisons": [("original", "human", "A")], "selections": {0: "B"}}]  # fmt: skip
    s = score(tiny_release(turns))
    assert sorted(s.turn["turn"].unique().tolist()) == [1, 3]
    assert conv_value(s, "avg_pairwise_accuracy") == 0.5  # turns 1 (no comparisons: 1) and 3 (0)


def test_run_turn_or_file_without_ground_truth_is_an_error():
    rel = tiny_release([{}])
    t = dict(rel.tables)
    extra = t["pred_turns"].copy()
    extra["turn"] = 7
    t["pred_turns"] = __import__("pandas").concat([t["pred_turns"], extra], ignore_index=True)
    bad = type(rel)(root=None, tables=t, report=rel.report)
    with pytest.raises(ValueError, match="run turns the ground truth lacks"):
        score(bad)
    t = dict(rel.tables)
    runs = t["runs"].copy()
    runs["conversation_id"] = "999"
    t["runs"] = runs
    with pytest.raises(ValueError, match="run files for conversations the ground truth lacks"):
        score(type(rel)(root=None, tables=t, report=rel.report))


def test_composite_worked_example():
    out = composite_components(
        emotion_f1=0.5, emotion_va=0.6, binary_om_accuracy=0.8, binary_human_accuracy=0.7,
        pairwise_accuracy=0.6, panas_baseline_adjusted=0.2, q1=0.5, q2=1.0, q3=0.0,
        q3_follow_up=0.4, four_branch_normalized=0.75,
    )  # fmt: skip
    assert float(out["emotion_tracking"]) == pytest.approx(0.55)
    assert float(out["evaluation_quality"]) == pytest.approx(0.675)
    assert float(out["holistic_comprehension"]) == pytest.approx(0.6075)
    assert round(float(out["composite_score"]), 2) == 62.68
    assert round(float(out["equal_weight_composite"]), 2) == 62.08
    # unrounded: 100 (0.24 * 0.55 + 0.49 * 0.675 + 0.27 * 0.6075)
    assert float(out["composite_score"]) == pytest.approx(62.6775, abs=1e-10)


def test_composite_of_a_scored_conversation_follows_the_formula():
    turns = EMOTION_TURNS[3:5] + BINARY_TURNS[2:3] + PAIRWISE_TURNS[1:2]
    conv = {"post_pa": 30.0, "pre_pa": 36.0, "q1": ["Other"], "fb_perceiving": 5.0,
            "q2_emotion_clarity": "Implied or indirect"}  # fmt: skip
    run = {"pred_post_pa": 28.0, "q1": ["Other", "To get specific information or advice"],
           "fb_perceiving": 6.0, "q2_emotion_clarity": "Mixed or conflicted"}  # fmt: skip
    s = score(tiny_release(turns, conversation=conv, run=run))
    c = {m: conv_value(s, m) for m in ("avg_emotion_f1", "avg_emotion_va_score",
                                        "avg_binary_om_accuracy", "avg_binary_human_accuracy",
                                        "avg_pairwise_accuracy", "panas_baseline_adjusted",
                                        "q1_looking_for_score", "q2_emotion_clarity_match",
                                        "q3_model_fit_match", "q3_follow_up_score",
                                        "four_branch_normalized")}  # fmt: skip
    assert c["q1_looking_for_score"] == pytest.approx(2 / 3)  # tp 1, |P| 2, |G| 1
    assert c["four_branch_normalized"] == pytest.approx(1 - 1 / 6)
    et = 0.5 * c["avg_emotion_f1"] + 0.5 * c["avg_emotion_va_score"]
    eq = (
        0.5 * (c["avg_binary_om_accuracy"] + c["avg_binary_human_accuracy"]) / 2
        + 0.5 * c["avg_pairwise_accuracy"]
    )
    ps = (c["panas_baseline_adjusted"] + 1) / 2
    cwq = (c["q1_looking_for_score"] + c["q2_emotion_clarity_match"] + c["q3_model_fit_match"]
           + c["q3_follow_up_score"]) / 4  # fmt: skip
    hc = 0.4 * ps + 0.3 * cwq + 0.3 * c["four_branch_normalized"]
    assert conv_value(s, "composite_score") == pytest.approx(
        100 * (0.24 * et + 0.49 * eq + 0.27 * hc)
    )
    tla = (et + (c["avg_binary_om_accuracy"] + c["avg_binary_human_accuracy"]) / 2
           + c["avg_pairwise_accuracy"]) / 3  # fmt: skip
    cwa = (ps + cwq + c["four_branch_normalized"]) / 3
    assert conv_value(s, "equal_weight_composite") == pytest.approx(100 * (tla + cwa) / 2)


def test_degenerate_releases():
    from metrics_support import make_release

    from attunestats.metrics.reference import score_reference

    gt = {
        "turns": [{"conversation_id": "1", "turn": 1}],
        "conversations": [{"conversation_id": "1"}],
    }
    s = score(make_release(**gt))  # no predictions at all: empty tables with the right columns
    assert s.turn.empty and s.conversation.empty and s.predictor.empty
    assert list(s.predictor.columns) == [
        "predictor",
        "mode",
        "metric",
        "value",
        "standard_error",
        "n",
    ]
    # a run without any scored turn: turn averages are 0 as in the port (nullable ones null)
    rel = make_release(**gt, runs=[{"predictor": "m", "mode": "default", "conversation_id": "1"}])
    s = score(rel)
    assert s.turn.empty
    assert conv_value(s, "avg_emotion_f1") == 0.0
    assert conv_value(s, "avg_pairwise_accuracy") == 0.0
    assert math.isnan(conv_value(s, "avg_pairwise_kendall_tau"))
    assert math.isnan(conv_value(s, "avg_emotion_hit_rate_tagged_only"))
    ref = score_reference(rel)["conversation"].set_index("metric")["value"]
    got = s.conversation.set_index("metric")["value"]
    assert sorted(ref.index) == sorted(got.index)
    np.testing.assert_allclose(got.loc[ref.index].to_numpy(), ref.to_numpy(), atol=1e-12)
    z = s.predictor.set_index("metric").loc["composite_z", "value"]
    assert z == 0.0  # a single predictor x mode row
