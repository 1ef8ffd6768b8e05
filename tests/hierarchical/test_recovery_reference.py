"""The truth of a simulated panel mapped to the model's quantities does not depend on which
diagnosis group is the reference, beyond the relabelling the model itself implies.

Independent reference: the simulator's linear predictor written out by hand. For predictor
``m`` in group ``g``, averaged over topics (the model's predictor x topic terms sum to zero over
topics), the logit is ``theta[m] + mean_T ti[m, .] + delta[g] + gamma[m, g] + const``; the
model writes the same as ``intercept + predictor_effect[m] + diagnosis_contrast[m, g]`` with
``diagnosis_contrast[m, reference] = 0``. So ``predictor_effect[m]`` is the contrast of
predictor ``m`` against the average predictor *in the reference group*, whichever group that is.
"""

from __future__ import annotations

import numpy as np
import pytest

from attunestats import hierarchical as H
from attunestats.hierarchical.recovery import true_quantities
from attunestats.hierarchical.synthetic import simulate_panel

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


@pytest.mark.parametrize("reference", ["none", "anxiety_depression", "asd_adhd"])
def test_true_predictor_effects_are_those_of_the_reference_group(reference):
    pan = simulate_panel(rng=3, diagnosis_interaction_sd=0.5)
    m = H.behaviour_model(pan.data, pan.design, reference_group=reference)
    assert m.reference_group == reference
    tq = true_quantities(m, pan.truth).set_index("parameter")["truth"]
    t = pan.truth
    preds, topics = list(m.predictors), list(m.topics)
    by_hand = (
        t.theta[preds].to_numpy()
        + t.topic_interaction.loc[preds, topics].mean(axis=1).to_numpy()
        + t.gamma.loc[preds, reference].to_numpy()
    )
    by_hand = by_hand - by_hand.mean()
    got = np.array([tq[f"predictor_effect[{p}]"] for p in preds])
    np.testing.assert_allclose(got, by_hand, atol=1e-12)
    # and every group's predictor effects: predictor_effect + contrast - its average
    for g in m.diagnosis_groups[1:]:
        c = np.array([tq[f"diagnosis_contrast[{p}, {g}]"] for p in preds])
        in_g = got + c - tq[f"diagnosis_effect[{g}]"]
        want = (
            t.theta[preds].to_numpy()
            + t.topic_interaction.loc[preds, topics].mean(axis=1).to_numpy()
            + t.gamma.loc[preds, g].to_numpy()
        )
        np.testing.assert_allclose(in_g, want - want.mean(), atol=1e-12)


@pytest.mark.parametrize(
    ("change", "name"),
    [
        (lambda t: {"gamma": t.gamma.drop(columns="asd_adhd")}, "gamma"),
        (lambda t: {"gamma": t.gamma.iloc[1:]}, "gamma"),
        (lambda t: {"topic_interaction": t.topic_interaction.iloc[:, 1:]}, "topic_interaction"),
        (lambda t: {"beta": t.beta.iloc[1:]}, "beta"),
    ],
)
def test_truth_lacking_levels_is_an_error_not_nan(change, name):
    """A truth without some level of the model gave NaN true values, which a coverage study
    counts as misses; like theta, v, u and delta, the other tables must cover the model."""
    from dataclasses import replace

    pan = simulate_panel(rng=3)
    m = H.behaviour_model(pan.data, pan.design)
    assert not true_quantities(m, pan.truth)["truth"].isna().any()
    with pytest.raises(ValueError, match=rf"truth\.{name} lacks"):
        true_quantities(m, replace(pan.truth, **change(pan.truth)))
