"""The hierarchical builders on a release whose predictors use different prediction modes
(tests/data/release_small: the model answers in mode 'default', the human rater in 'verbose')."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from attunestats import hierarchical as H
from attunestats.artifacts.builders.hierarchical import _mode
from attunestats.errors import AttunestatsWarning
from attunestats.metrics import score


def test_models_are_built_in_the_evaluated_models_mode(release_small):
    scores = score(release_small)
    evaluated = scores.names("model")
    modes = scores.conversation.groupby("predictor")["mode"].unique()
    assert len({m for ms in modes for m in ms}) > 1  # the release really has two modes
    with pytest.raises(ValueError, match="several modes"):
        H.behaviour_model_from_scores(scores, task="om", predictors=evaluated)
    mode = _mode(scores, evaluated)
    assert mode == "default"
    # past the modes, the builder meets this messy release's next defect: conversation 23 has no
    # topic; the model places it in one topic '(no topic)' and says how many it placed there
    with pytest.warns(AttunestatsWarning, match=r"1 of \d+ conversations have no topic"):
        model = H.behaviour_model_from_scores(scores, task="om", predictors=evaluated, mode=mode)
    topic_of = dict(zip(model.conversations, model.topic_of_conversation, strict=True))
    if "23" in topic_of:  # only if conversation 23 has om judgements
        assert model.topics[topic_of["23"]] == "(no topic)"
    assert "(no topic)" not in model.topics or "23" in topic_of


def test_several_modes_of_the_models_pick_default_and_warn():
    conv = pd.DataFrame({"predictor": ["a", "a", "b"], "mode": ["verbose", "default", "default"]})
    scores = type("S", (), {"conversation": conv})()
    with pytest.warns(AttunestatsWarning, match="several prediction modes"):
        assert _mode(scores, ["a", "b"]) == "default"
    conv = pd.DataFrame({"predictor": ["a", "b"], "mode": ["x", "y"]})
    scores = type("S", (), {"conversation": conv})()
    with pytest.warns(AttunestatsWarning):
        assert _mode(scores, ["a", "b"]) == "x"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _mode(scores, ["a"]) == "x"
