"""A release written by a generator outside the package, scored by a scorer outside it.

``benchmarks/independent_generator/gen.py`` writes releases in the official format from its own
model of correctness (no attunestats code); its coverage study is in benchmarks/RESULTS.md. Here:
the package's behaviour accuracy and pairwise accuracy equal a few lines of independent scoring
of the same JSON files, and the default analysis of a release without the optional blocks
(no PANAS, surveys or emotion tags: a dozen metrics the release cannot score) still compares
the models on the metrics it can score.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import attunestats as at

GEN_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "independent_generator"
sys.path.insert(0, str(GEN_DIR))
import gen  # noqa: E402

METRICS = {"binary": "avg_binary_om_accuracy", "pairwise": "avg_pairwise_accuracy"}


def _independent_scores(root: Path) -> dict[str, dict[str, float]]:
    """Mean over conversations of the turn-averaged share of correct answers, per model."""
    truth = {}
    for f in (root / "conversations").glob("*.json"):
        doc = json.loads(f.read_text())
        truth[doc["conversationId"]] = doc
    out = {}
    for model in gen.MODELS:
        binary, pairwise = [], []
        for f in (root / "runs" / model).glob("*.json"):
            run = json.loads(f.read_text())
            turns = truth[run["conversationId"]]["turns"]
            tb, tp = [], []
            for gt_turn, em_turn in zip(turns, run["turns"], strict=True):
                ann = gt_turn["annotations"]
                answers = em_turn["em_binary_om_assessment"]
                tb.append(np.mean([answers[j["questionId"]] == j["observedBehavior"]
                                   for j in ann["binaryJudgements"]]))  # fmt: skip
                chosen = em_turn["em_pairwise_selections"]
                tp.append(np.mean([chosen[str(i)] == c["winner"]
                                   for i, c in enumerate(ann["pairwiseComparisons"])]))  # fmt: skip
            binary.append(np.mean(tb))
            pairwise.append(np.mean(tp))
        out[model] = {"binary": float(np.mean(binary)), "pairwise": float(np.mean(pairwise))}
    return out


@pytest.fixture(scope="module")
def independent_release(tmp_path_factory):
    root = tmp_path_factory.mktemp("independent") / "release"
    params = gen.Params(mu=gen.default_mu(), sv={"binary": 0.3, "pairwise": 0.3})
    gen.generate_release(str(root), 2026, params, np.array([3, 4, 5, 3, 4, 6]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optional blocks left out: "missing fields" warnings
        scores = at.score(at.load_release(root))
    return root, scores


def test_scores_equal_an_independent_scorer(independent_release):
    root, scores = independent_release
    mine = _independent_scores(root)
    pred = scores.predictor.set_index(["predictor", "metric"])["value"]
    for model in gen.MODELS:
        for key, metric in METRICS.items():
            assert pred[(model, metric)] == pytest.approx(mine[model][key], abs=1e-12)


def test_default_analysis_compares_models_on_the_metrics_the_release_can_score(
    independent_release,
):
    _, scores = independent_release
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        everything = at.compare_models(at.infer_scores(scores), correction="holm")
        two = at.compare_models(at.infer_scores(scores, metrics=list(METRICS.values())),
                                correction="holm")  # fmt: skip
    assert everything.pairs["difference"].isna().any()  # the metrics it cannot score
    for metric in METRICS.values():
        got = everything.pairs[everything.pairs["metric"] == metric]
        want = two.pairs[two.pairs["metric"] == metric]
        cols = ["difference", "ci_low", "ci_high", "standard_error", "pvalue"]
        assert np.isfinite(got[cols].to_numpy()).all(), metric
        np.testing.assert_allclose(got[cols].to_numpy(), want[cols].to_numpy(), rtol=1e-12)
