"""score() equals the per-turn reference scorer on releases hypothesis draws to be awkward.

The seeded edge-case releases of test_score.py fix a handful of draws; here hypothesis searches
for disagreements (and shrinks them): duplicated and unknown labels, tag lists long enough for
the optimal matching to leave brute force (more than 720 assignments), equal costs for the greedy
matching, judgements with every missing/na combination, undecided or repeated comparisons, run
turns missing, under the default and the alternative conventions.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from metrics_support import tiny_release
from test_score import ALTERNATIVE, assert_matches_reference

from attunestats.constants import EMOTION_LABELS
from attunestats.metrics import ScoringOptions

NAN = float("nan")
INTENSITY = st.one_of(st.just(NAN), st.integers(1, 7).map(float))
GT_TAGS = st.lists(st.tuples(st.sampled_from([*EMOTION_LABELS[:6], "neutral"]), INTENSITY),
                   max_size=9)  # fmt: skip
PRED_TAGS = st.lists(st.tuples(st.sampled_from(EMOTION_LABELS[:6]), INTENSITY), max_size=9)
VALUE = st.sampled_from(["yes", "no", "na", NAN])
TURN = st.fixed_dictionaries({
    "gt_tags": GT_TAGS,
    "pred_tags": PRED_TAGS,
    "judgements": st.dictionaries(st.sampled_from(["B1", "B2", "B3"]),
                                  st.tuples(VALUE, VALUE, VALUE), max_size=3),
    "pred_binary": st.dictionaries(
        st.sampled_from(["om", "human", "om_hp", "human_hp", "draft"]),
        st.dictionaries(st.sampled_from(["B1", "B2", "B3"]), st.sampled_from(["yes", "no", "na"]),
                        max_size=3), max_size=5),
    "comparisons": st.lists(st.tuples(st.sampled_from(["original", "alternate", "human"]),
                                      st.sampled_from(["original", "alternate", "human"]),
                                      st.sampled_from(["A", "B", NAN])), max_size=4),
    "selections": st.dictionaries(st.integers(0, 4), st.sampled_from(["A", "B"]), max_size=5),
    "texts": st.tuples(st.sampled_from(["", "i feel so tired", "that sounds hard"]),
                       st.sampled_from([NAN, "", "so tired today"]),
                       st.sampled_from([NAN, "sounds hard to me"])),
    "draft": st.sampled_from([NAN, "", "i feel tired", "hard today"]),
    "in_run": st.booleans(),
})  # fmt: skip


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(TURN, min_size=1, max_size=3),
       st.sampled_from([ScoringOptions(), ALTERNATIVE]))  # fmt: skip
def test_vectorised_equals_reference_on_drawn_releases(turns, options):
    assert_matches_reference(tiny_release(turns), options)


def test_long_tag_lists_take_the_assignment_solver_and_still_agree():
    # 9 ground-truth x 9 predicted tags: 9! = 362,880 assignments, beyond brute force
    rng = np.random.default_rng(4)
    labels = list(EMOTION_LABELS)
    turns = [{"gt_tags": [(labels[i], float(rng.integers(1, 8))) for i in rng.permutation(20)[:9]],
              "pred_tags": [(labels[i], float(rng.integers(1, 8))) for i in rng.permutation(20)[:9]]}
             for _ in range(3)]  # fmt: skip
    for options in (ScoringOptions(), ALTERNATIVE):
        assert_matches_reference(tiny_release(turns), options)
