"""Checks and summaries on fits built by hand (tests/hierarchical/_handmade.py): no MCMC.

Independent references: the documented contract of each function, hand computations from the
draws (numpy / scipy).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from _handmade import handmade_fit, mid_eta

from attunestats import hierarchical as H
from attunestats.hierarchical.synthetic import simulate_panel

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]
SMALL = dict(n_predictors=3, n_conversations=12, n_participants=4, n_topics=3)


def test_compare_structures_refuses_fits_of_different_data_with_as_many_cells():
    """Two binary tasks of one panel have the same cells but different outcomes: their elpds
    are not comparable (the docs: "same data: the same observed cells"), though the cell
    counts, all that was checked, agree."""
    pan = simulate_panel(rng=2, **SMALL)
    flipped = pan.data.assign(successes=pan.data["trials"] - pan.data["successes"])
    a = H.behaviour_model(pan.data, pan.design, structure="default")
    b = H.behaviour_model(flipped, pan.design, structure="legacy")
    assert a.n_observations == b.n_observations
    fits = {"default": handmade_fit(a), "legacy": handmade_fit(b)}
    with pytest.raises(ValueError, match="same observed cells"):
        H.compare_structures(fits, n_draws=40)
    # the same data under two structures is compared
    c = H.behaviour_model(pan.data, pan.design, structure="legacy")
    table = H.compare_structures({"default": fits["default"], "legacy": handmade_fit(c)},
                                 n_draws=40)  # fmt: skip
    assert sorted(table["structure"]) == ["default", "legacy"]
    assert isinstance(table, pd.DataFrame)


def test_turn_drift_of_a_model_without_drift_is_not_applicable_and_says_why():
    """A turn-level model fitted without the ``turn`` term has no drift because of its
    structure (the message used to blame a conversation-level outcome); either way the analysis
    is not applicable (``NotApplicable``, which ``reproduce`` records as skipped, as the other
    summaries do), not a bad argument."""
    from attunestats.errors import NotApplicable
    from attunestats.hierarchical import summaries as S

    pan = simulate_panel(rng=2, **SMALL)
    no_turn = handmade_fit(H.behaviour_model(pan.data, pan.design, structure="default - turn"))
    with pytest.raises(NotApplicable, match="structure has no 'turn' term"):
        S.turn_drift(no_turn)
    pan_h = simulate_panel("ordered_beta", level="conversation", rng=2, **SMALL)
    hol = H.holistic_model(pan_h.data.assign(value=6 * (1 - pan_h.data["value"])), pan_h.design)
    with pytest.raises(NotApplicable, match="conversation-level outcome"):
        S.turn_drift(handmade_fit(hol))


def test_ci_prob_may_be_a_numpy_number_and_labels_the_interval():
    """``ci_prob=np.float32(0.9)`` (read from an array) was refused as "must be in (0, 1)"; the
    interval it gives is the equal-tailed one of that probability (numpy quantiles of the
    draws), in the summaries and in the recovery table."""
    import numpy as np

    from attunestats.hierarchical import summaries as S
    from attunestats.hierarchical.recovery import recovery_table

    pan = simulate_panel(rng=2, **SMALL)
    f = handmade_fit(H.behaviour_model(pan.data, pan.design))
    t = S.parameter_summary(f, ci_prob=np.float32(0.9)).set_index("parameter")
    b = f.idata["posterior"]["turn_slope"].values.reshape(-1, 3)[:, 1]
    lo, hi = np.quantile(b, [0.05, 0.95])
    row = t.loc[f"turn_slope[{f.model.predictors[1]}]"]
    assert row["ci_low"] == pytest.approx(lo) and row["ci_high"] == pytest.approx(hi)
    assert row["ci_prob"] == pytest.approx(0.9)
    rec = recovery_table(f, pan.truth, ci_prob=np.float32(0.9))
    assert rec["ci_prob"].to_numpy() == pytest.approx(0.9)
    for bad in (np.float64(1.0), 0, True, "0.9"):
        with pytest.raises(ValueError, match="ci_prob must be in"):
            S.parameter_summary(f, ci_prob=bad)


def test_check_functions_name_a_bad_argument():
    """Wrong types used to fail deep inside ('list' object has no attribute 'items', 'str'
    object has no attribute 'model', '>' not supported between int and str)."""
    pan = simulate_panel(rng=2, **SMALL)
    f = handmade_fit(H.behaviour_model(pan.data, pan.design))
    with pytest.raises(TypeError, match="fits must be a mapping"):
        H.compare_structures([f, f])
    with pytest.raises(TypeError, match=r"fits\['b'\] must be a FitResult.*; got str"):
        H.compare_structures({"a": f, "b": "x"})
    for fn in (H.loo, H.log_likelihood, H.predictive_data):
        with pytest.raises(TypeError, match="fit must be a FitResult.*; got str"):
            fn("x")
    with pytest.raises(ValueError, match="n_draws must be an integer"):
        H.predictive_data(f, n_draws="x")
    with pytest.raises(ValueError, match="n_draws must be an integer"):
        H.predictive_data(f, n_draws=True)


def test_ordered_beta_pointwise_log_likelihood_is_scipys():
    """The log-likelihood PSIS-LOO reads (ordered beta): log P(y = 0) = log(1 - L(eta - k1)),
    log P(y = 1) = log L(eta - k2), interior log(L(eta - k1) - L(eta - k2)) + scipy's beta
    log-density with mean L(eta) and precision phi."""
    import numpy as np
    from scipy import special, stats

    from attunestats.hierarchical.summaries import posterior_parameters

    pan = simulate_panel("ordered_beta", rng=6, **SMALL)
    m = H.emotion_model(pan.data, pan.design)
    p = posterior_parameters(handmade_fit(m, draws=5))
    c = m.cells()
    assert (c["value"] == 0).any() and (c["value"] == 1).any()
    e = m.linear_predictor(p)[:, c["m"], c["r"]]
    k1, k2, phi = p["cutpoints"][:, :1], p["cutpoints"][:, 1:], p["precision"][:, None]
    y = np.broadcast_to(c["value"][None], e.shape)
    mu = special.expit(e)
    mid = np.log(special.expit(e - k1) - special.expit(e - k2))
    mid = mid + stats.beta.logpdf(y, mu * phi, (1 - mu) * phi)
    want = np.where(
        y == 0,
        np.log1p(-special.expit(e - k1)),
        np.where(y == 1, np.log(special.expit(e - k2)), mid),
    )
    np.testing.assert_allclose(m.log_likelihood(p), want, rtol=1e-9, atol=1e-12)


def test_ordered_beta_adjusted_means_are_expected_scores():
    """predictor_effects' adjusted mean of an ordered-beta model is the expected score
    E[y] = P(y = 1) + P(0 < y < 1) L(eta) of an average participant, topic and conversation at
    mid-conversation, averaged over groups by their conversations (by hand from the draws)."""
    import numpy as np
    from scipy import special

    from attunestats.hierarchical import summaries as S

    pan = simulate_panel("ordered_beta", rng=6, **SMALL)
    m = H.emotion_model(pan.data, pan.design)
    f = handmade_fit(m)
    post = f.idata["posterior"]
    k = post["cutpoints"].values.reshape(-1, 2)
    w = np.bincount(m.group_of_conversation, minlength=len(m.diagnosis_groups))
    w = w / w.sum()
    pe = S.predictor_effects(f).set_index("predictor")
    for pred in m.predictors:
        eta0 = mid_eta(post, pred)
        score = 0.0
        for j, g in enumerate(m.diagnosis_groups):
            eta = eta0
            if j:
                eta = (
                    eta0
                    + (
                        post["diagnosis_effect"].sel(diagnosis=g)
                        + post["diagnosis_interaction"].sel(predictor=pred, diagnosis=g)
                    ).values.ravel()
                )
            p1 = special.expit(eta - k[:, 1])
            pmid = special.expit(eta - k[:, 0]) - p1
            score = score + w[j] * (p1 + pmid * special.expit(eta))
        assert pe.loc[pred, "adjusted_mean"] == pytest.approx(score.mean())
        lo, hi = np.quantile(score, [0.03, 0.97])
        assert pe.loc[pred, ["adjusted_ci_low", "adjusted_ci_high"]].tolist() == pytest.approx(
            [lo, hi]
        )


def test_predictor_effect_averages_the_diagnosis_interaction_over_groups():
    """With the predictor:diagnosis term, theta[m] is the predictor's effect in the reference
    group only (gamma[m, reference] = 0). predictor_effects' ``effect`` is the effect averaged
    over groups in proportion to their conversations, the same averaging as ``adjusted_mean``:
    theta[m] + sum_g w_g gamma[m, g], by hand from the draws; it still sums to 0 over
    predictors."""
    import numpy as np

    from attunestats.hierarchical import summaries as S

    pan = simulate_panel("binomial", rng=4, **SMALL)
    m = H.behaviour_model(pan.data, pan.design)
    assert m.has_diagnosis_interaction and len(m.diagnosis_groups) >= 2
    f = handmade_fit(m, scale=1.0)
    post = f.idata["posterior"]
    w = np.bincount(m.group_of_conversation, minlength=len(m.diagnosis_groups))
    w = w / w.sum()
    pe = S.predictor_effects(f, ci_prob=0.9).set_index("predictor")
    total = 0.0
    for pred in m.predictors:
        want = post["predictor_effect"].sel(predictor=pred).values.ravel().copy()
        for g, wg in zip(m.diagnosis_groups[1:], w[1:]):
            gamma = post["diagnosis_interaction"].sel(predictor=pred, diagnosis=g)
            want = want + wg * gamma.values.ravel()
        assert pe.loc[pred, "effect"] == pytest.approx(want.mean(), abs=1e-12)
        assert pe.loc[pred, "effect_ci_low"] == pytest.approx(np.quantile(want, 0.05))
        assert pe.loc[pred, "effect_ci_high"] == pytest.approx(np.quantile(want, 0.95))
        total += want.mean()
    assert total == pytest.approx(0.0, abs=1e-9)
    # the reference-group effect differs from the reported one (the test can fail)
    ref = post["predictor_effect"].mean(("chain", "draw")).to_series()
    assert not np.allclose(ref.loc[pe.index], pe["effect"], atol=1e-3)


def test_one_chain_fails_the_gate_saying_r_hat_is_undefined():
    """ArviZ's split R-hat of a single chain is NaN (arviz.rhat), so the gate cannot pass; the
    reason said 'r_hat nan > 1.01' and the message advised longer chains."""
    import arviz as az
    import numpy as np
    import xarray as xr

    x = np.random.default_rng(0).normal(size=(1, 500))
    assert np.isnan(float(az.rhat(xr.Dataset({"a": (("chain", "draw"), x)}))["a"]))
    post = xr.Dataset({"a": (("chain", "draw"), x)},
                      coords={"chain": [0], "draw": np.arange(500)})  # fmt: skip
    table, _ = H.diagnose(xr.DataTree.from_dict({"posterior": post}))
    assert table.loc[0, "reason"].startswith("r_hat undefined")
    assert "nan" not in table.loc[0, "reason"]
    pan = simulate_panel("binomial", rng=4, **SMALL)
    f = handmade_fit(H.behaviour_model(pan.data, pan.design), chains=1, draws=60)
    f = replace(f, failures=("a: r_hat undefined",), passed=False)
    assert "One chain has no R-hat" in f.failure_message()


def test_every_summary_names_its_estimand_and_method():
    """Every table built from a fit says what it estimates and how (the package's rule); a
    topic effect is about the topics drawn, a predictor effect about the population of
    participants."""
    from attunestats.hierarchical import summaries as S

    pan = simulate_panel("binomial", rng=4, **SMALL)
    f = handmade_fit(H.behaviour_model(pan.data, pan.design))
    frames = {
        "parameter_summary": S.parameter_summary(f),
        "variance_decomposition": S.variance_decomposition(f),
        "topic_effects": S.topic_effects(f),
        "predictor_effects": S.predictor_effects(f),
        "diagnosis_contrasts": S.diagnosis_contrasts(f),
        "turn_drift": S.turn_drift(f),
        "posterior_predictive_check": S.posterior_predictive_check(f, rng=1),
    }
    for name, frame in frames.items():
        assert {"estimand", "method"} <= set(frame.columns), name
        assert (frame["method"].str.contains("MCMC") & frame["method"].str.contains(
            "equal-tailed")).all(), name  # fmt: skip
    assert frames["predictor_effects"]["estimand"].str.contains("population of participants").all()
    assert frames["topic_effects"]["estimand"].str.contains("these topics").all()
    assert frames["posterior_predictive_check"]["estimand"].str.startswith("none").all()
