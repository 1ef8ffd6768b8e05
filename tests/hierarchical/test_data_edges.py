"""Model construction from tables at the edges: bad values are errors naming the column and the
value; odd but valid panels (one participant, one topic, unbalanced) build the model the
documentation describes.

Independent reference: hand-built tables and the constructors' documented rules.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _handmade import small_counts as _counts
from _handmade import small_design as _design

from attunestats import hierarchical as H

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def test_fractional_turn_counts_and_turns_are_named_in_the_error():
    with pytest.raises(ValueError, match=r"n_turns must be integers >= 1; got \[1\.5\]"):
        H.behaviour_model(_counts(), _design().assign(n_turns=[3, 1.5, 2]))
    with pytest.raises(ValueError, match=r"counts\.turn must be integers; got \[1\.5\]"):
        H.behaviour_model(_counts().assign(turn=[1.5, 2, 3, 3, 1, 2, 1]), _design())
    with pytest.raises(ValueError, match=r"counts\.turn must be integers; got \[nan\]"):
        H.behaviour_model(_counts().assign(turn=[None, 2, 3, 3, 1, 2, 1]), _design())


def test_an_empty_predictor_list_is_an_error_not_an_empty_model():
    with pytest.raises(ValueError, match="predictors is empty"):
        H.behaviour_model(_counts(), _design(), predictors=[])
    with pytest.raises(ValueError, match="predictors is empty"):
        H.emotion_model(_counts().assign(value=0.5), _design(), predictors=())


def test_non_numeric_scores_are_errors_not_missing_values():
    """Only missing values (NaN / None) are dropped (bounded_model's documentation); a value that
    is not a number used to be coerced to NaN and silently dropped with them."""
    vals = _counts().assign(value=[0.1, None, 0.3, 0.4, 0.5, "x", 0.7])
    with pytest.raises(ValueError, match=r"values\.value must be numbers.*'x'"):
        H.emotion_model(vals, _design())
    errs = _counts().drop(columns="turn").drop_duplicates(["predictor", "conversation_id"])
    with pytest.raises(ValueError, match=r"errors\.value must be numbers.*'a'"):
        H.holistic_model(errs.assign(value=["a", 2, None, 4, 1, 5][: len(errs)]), _design())
    # missing values are dropped, as documented
    m = H.emotion_model(vals.assign(value=[0.1, None, 0.3, 0.4, 0.5, np.nan, 0.7]), _design())
    assert m.n_observations == 5


@pytest.mark.parametrize("column", ["predictor", "conversation_id", "task"])
def test_missing_identifiers_are_errors_naming_the_column(column):
    counts = _counts().assign(task="om")
    counts[column] = counts[column].astype(object)
    counts.loc[0, column] = None
    with pytest.raises(ValueError, match=rf"counts\.{column} is missing in 1 row"):
        H.behaviour_model(counts, _design())


@pytest.mark.parametrize("column", ["predictor", "conversation_id", "turn", "question_id"])
def test_comparisons_with_missing_identifiers_are_errors_not_dropped(column):
    """A group sum drops rows whose key is missing: those comparisons used to vanish."""
    comps = pd.DataFrame({
        "predictor": ["a", "a", "b", "b"], "conversation_id": ["c1"] * 4, "turn": [1, 1, 1, 1],
        "question_id": ["q1", "q2", "q1", "q2"], "correct": [True, False, True, True],
    })  # fmt: skip
    comps[column] = comps[column].astype(object)
    comps.loc[0, column] = None
    with pytest.raises(ValueError, match=rf"comparisons\.{column} is missing in 1 row"):
        H.preference_model(comps, _design())


def test_compile_key_tells_apart_models_whose_terms_depend_on_the_data():
    """``structure_key`` is the key of the cache of compiled PyMC models (``sampler="pymc"``).
    Two data sets of the same sizes and structure string can still build different models:
    with one trial per cell the ``overdispersion`` term is left out (binomial cells), with two
    it is in (beta-binomial cells). Their keys must differ, or the second fit would sample the
    first one's compiled model."""
    from attunestats.hierarchical.synthetic import simulate_panel

    one = simulate_panel(rng=1, trials=1, n_conversations=8, n_participants=3, n_topics=2)
    two = simulate_panel(rng=1, trials=2, n_conversations=8, n_participants=3, n_topics=2)
    m1 = H.behaviour_model(one.data, one.design)
    m2 = H.behaviour_model(two.data, two.design)
    assert m1.n_observations == m2.n_observations and m1.n_rows == m2.n_rows
    assert not m1.has_overdispersion and m2.has_overdispersion
    assert m1.structure_key() != m2.structure_key()
    # one score per predictor x conversation (all one-turn conversations): no
    # predictor:conversation term, which the same structure has with longer conversations
    vals = _counts().assign(value=0.5)
    short = H.emotion_model(vals, _design().assign(n_turns=[3, 1, 2]))
    one_turn = _counts().assign(value=0.5, turn=1, conversation_id=["c1", "c2", "c3"] * 2 + ["c3"])
    one_turn = one_turn.drop_duplicates(["predictor", "conversation_id"])
    single = H.emotion_model(one_turn, _design().assign(n_turns=1))
    assert short.has_predictor_conversation and not single.has_predictor_conversation
    assert single.structure_key()[:4] == short.structure_key()[:4]
    assert single.structure_key() != short.structure_key()


@pytest.mark.parametrize("structure", ["default", "default - item"])
def test_a_repeated_item_row_is_an_error_whether_or_not_items_are_modelled(structure):
    """Without the item term the items of a turn are summed; a row repeated for the same item
    used to be summed with them (its trials counted twice) instead of being refused as it is
    with the term."""
    counts = pd.concat(
        [
            _counts().assign(item="q1"),
            _counts().assign(item="q2"),
            _counts().iloc[:1].assign(item="q1"),
        ]
    )
    with pytest.raises(ValueError, match="more than one row"):
        H.behaviour_model(counts, _design(), structure=structure)


@pytest.mark.parametrize("bad", [["yes", "no", "yes", "no"], [True, None, True, False]])
def test_has_winner_must_be_boolean_like_correct(bad):
    """``has_winner`` decides which comparisons are kept; ``astype(bool)`` kept every non-empty
    string ("no" too) and every NaN, so undecided comparisons (wrong by convention) entered the
    model. It is checked as ``correct`` is."""
    comps = pd.DataFrame({
        "predictor": ["a", "a", "b", "b"], "conversation_id": ["c1"] * 4, "turn": [1, 1, 1, 1],
        "correct": [True, False, True, True], "has_winner": bad,
    })  # fmt: skip
    with pytest.raises(ValueError, match="comparisons.has_winner must be boolean"):
        H.preference_model(comps, _design())
    ok = H.preference_model(comps.assign(has_winner=[True, False, True, False]), _design())
    assert ok.trials.sum() == 2
