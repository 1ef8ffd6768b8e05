"""Hierarchical models: data layer, likelihoods and priors (no MCMC here).

Independent references: hand-built tables and hand-computed turn positions; scipy.stats for the
binomial and beta log-densities; pandas group sums of the Scores tables; Monte Carlo moments of
the documented priors.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _handmade import small_counts as _counts
from _handmade import small_design as _design
from scipy import special, stats

from attunestats import hierarchical as H
from attunestats.constants import SIMULATED_LABEL
from attunestats.hierarchical.model import PRIORS, _ordered_beta_draw, draw_participant_means
from attunestats.hierarchical.synthetic import simulate_panel

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


# --------------------------------------------------------------------------------- layout
def test_behaviour_model_layout_by_hand():
    m = H.behaviour_model(_counts(), _design())
    assert m.predictors == ("m1", "m2")
    assert m.conversations == ("c1", "c2", "c3")
    assert m.participants == ("a", "b")
    assert m.diagnosis_groups == ("none", "asd_adhd")  # reference "none" first
    assert m.topics == ("love", "money")
    # rows: c1 turns 1,2,3; c2 turn 1; c3 turns 1,2 (sorted by conversation, turn)
    assert m.conversation_of_row.tolist() == [0, 0, 0, 1, 2, 2]
    assert m.turn_of_row.tolist() == [1, 2, 3, 1, 1, 2]
    # x = (turn - 1) / (n_turns - 1); 0.5 for the one-turn conversation
    assert m.x.tolist() == [0.0, 0.5, 1.0, 0.5, 0.0, 1.0]
    assert m.successes.tolist() == [[0, 0, 4, 0, 0, 5], [3, 2, 1, 0, 2, 0]]
    assert m.trials.tolist() == [[0, 0, 4, 2, 0, 6], [5, 5, 5, 0, 3, 0]]
    assert m.participant_of_conversation.tolist() == [0, 0, 1]
    assert m.topic_of_conversation.tolist() == [1, 0, 1]
    assert m.group_of_conversation.tolist() == [0, 0, 1]
    assert m.group_of_participant.tolist() == [0, 1]
    assert m.n_observations == 7  # every input row has trials > 0 (0 of 2 included)
    assert not m.simulated and m.label == ""
    back = m.to_frame()
    assert back["successes"].sum() == _counts()["successes"].sum()
    assert back["trials"].sum() == _counts()["trials"].sum()


def test_model_repr_is_one_short_line_with_the_sizes():
    m = H.behaviour_model(_counts(), _design())
    text = repr(m)
    assert "\n" not in text and len(text) < 400 and "array" not in text
    for part in ("predictors=2", "participants=2", "conversations=3", "topics=2", "rows=6",
                 "observations=7", "family='binomial'"):  # fmt: skip
        assert part in text, (part, text)
    assert SIMULATED_LABEL not in text
    sim = H.behaviour_model(_counts(), _design(), simulated=True)
    assert SIMULATED_LABEL in repr(sim)


def test_structure_key_ignores_values_but_not_sizes():
    a = simulate_panel(rng=1)
    b = simulate_panel(rng=2)
    ma, mb = H.behaviour_model(a.data, a.design), H.behaviour_model(b.data, b.design)
    assert ma.structure_key() == mb.structure_key()
    c = simulate_panel(rng=1, n_topics=5)
    assert H.behaviour_model(c.data, c.design).structure_key() != ma.structure_key()


def test_preference_model_sums_comparisons_by_hand():
    comp = pd.DataFrame(
        {
            "predictor": ["m1"] * 5,
            "conversation_id": ["c1", "c1", "c1", "c3", "c3"],
            "turn": [1, 1, 1, 2, 2],
            "has_winner": [True, True, False, True, True],
            "correct": [True, False, False, True, True],
        }
    )
    m = H.preference_model(comp, _design())
    assert m.successes.tolist() == [[1, 2]]
    assert m.trials.tolist() == [[2, 2]]  # the undecided comparison is dropped
    m_all = H.preference_model(comp, _design(), decided_only=False)
    assert m_all.trials.tolist() == [[3, 2]]


def test_several_tasks_get_rows_and_reference():
    c = _counts()
    both = pd.concat([c.assign(task="om"), c.assign(task="human")], ignore_index=True)
    m = H.behaviour_model(both, _design())
    assert m.tasks == ("om", "human") and m.has_tasks
    assert m.n_rows == 12
    assert m.trials.sum() == 2 * c["trials"].sum()


def test_holistic_is_one_minus_scaled_error():
    err = pd.DataFrame(
        {"predictor": ["m1", "m1", "m2"], "conversation_id": ["c1", "c2", "c1"], "value": [0, 3, 6]}
    )
    m = H.holistic_model(err, _design(), metric="four_branch_mae")
    assert not m.turn_slope
    assert m.values[0, :2].tolist() == [1.0, 0.5]
    assert m.values[1, 0] == 0.0 and not m.observed[1, 1]
    assert np.all(m.x == 0)
    m2 = H.holistic_model(err.assign(value=[0, 30, 60]), _design(), metric="panas_mae")
    assert m2.values[0, 1] == 0.5 and m2.scale == 60.0


def test_predictor_conversation_term_is_left_out_where_it_is_the_residual():
    """One score per predictor x conversation (holistic): a predictor x conversation deviation
    would have one observation, indistinguishable from the residual, so the default leaves the
    term out; turn-level scores (several per predictor x conversation) and binomial cells keep
    it, and so does a beta-binomial model with several cells per predictor x conversation."""
    err = pd.DataFrame(
        {"predictor": ["m1", "m1", "m2", "m2"], "conversation_id": ["c1", "c2", "c1", "c3"],
         "value": [0, 3, 6, 1]}
    )  # fmt: skip
    h = H.holistic_model(err, _design(), metric="four_branch_mae")
    assert h.spec.has("predictor:conversation") and not h.has_predictor_conversation
    assert "predictor:conversation" not in h.levels_present()
    turn = pd.DataFrame(
        {"predictor": ["m1", "m1", "m2", "m2"], "conversation_id": ["c1", "c1", "c1", "c1"],
         "turn": [1, 2, 1, 2], "value": [0.2, 0.4, 0.6, 0.8]}
    )  # fmt: skip
    e = H.emotion_model(turn, _design(), metric="emotion_f1")
    assert e.has_predictor_conversation
    b = H.behaviour_model(_counts(), _design())  # c1 has three turns per predictor
    assert b.has_overdispersion and b.has_predictor_conversation
    one = _counts().drop_duplicates(["predictor", "conversation_id"])
    b1 = H.behaviour_model(one, _design())
    assert b1.has_overdispersion and not b1.has_predictor_conversation
    b0 = H.behaviour_model(one, _design(), structure="default - overdispersion")
    assert b0.has_predictor_conversation  # extra-binomial variation: identified


# --------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda c: c.drop(columns="trials"), "lacks the column"),
        (lambda c: c.assign(successes=c["trials"] + 1), "exceeds counts.trials"),
        (lambda c: c.assign(trials=-1), "non-negative integers"),
        (lambda c: c.assign(turn=[9, *c["turn"][1:]]), "1..n_turns"),
        (lambda c: c.assign(conversation_id=["zz", *c["conversation_id"][1:]]), "not in design"),
        (lambda c: pd.concat([c, c.iloc[:1]]), "more than one row"),
        (lambda c: c.iloc[:0], "no rows"),
    ],
)
def test_counts_errors(change, match):
    with pytest.raises(ValueError, match=match):
        H.behaviour_model(change(_counts()), _design())


def test_design_and_option_errors():
    d = _design()
    with pytest.raises(ValueError, match="constant per participant"):
        H.behaviour_model(_counts(), d.assign(diagnosis_group=["none", "x", "y"]))
    with pytest.raises(ValueError, match="duplicates"):
        H.behaviour_model(_counts(), pd.concat([d, d.iloc[:1]]))
    with pytest.raises(ValueError, match="n_turns must be integers"):
        H.behaviour_model(_counts(), d.assign(n_turns=[3, 0, 2]))
    with pytest.raises(TypeError, match="pandas DataFrame"):
        H.behaviour_model(_counts().to_dict(), d)
    with pytest.raises(ValueError, match="parameterization must be one of"):
        H.behaviour_model(_counts(), d, parameterization="center")
    with pytest.raises(ValueError, match="reference_group 'x'"):
        H.behaviour_model(_counts(), d, reference_group="x")
    with pytest.raises(ValueError, match=r"predictors \['m9'\] have no data"):
        H.behaviour_model(_counts(), d, predictors=["m9"])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        H.emotion_model(_counts().assign(value=1.5), d)
    with pytest.raises(ValueError, match=r"must lie in \[0, 6"):
        H.holistic_model(_counts().assign(value=7.0), d)
    with pytest.raises(ValueError, match="max_error is needed"):
        H.holistic_model(_counts().assign(value=1.0), d, metric="other")
    comp = _counts().assign(correct="yes")
    with pytest.raises(ValueError, match="must be boolean"):
        H.preference_model(comp, d)


def test_fit_argument_errors():
    m = H.behaviour_model(_counts(), _design())
    with pytest.raises(TypeError, match="HierarchicalModel"):
        H.fit("model")
    with pytest.raises(ValueError, match="draws must be an integer >= 1"):
        H.fit(m, draws=0)
    with pytest.raises(ValueError, match="sampler must be"):
        H.fit(m, sampler="stan")
    for bad in (-1, True, 1.0):
        with pytest.raises(ValueError, match="retries must be an integer >= 0"):
            H.fit(m, retries=bad)
    with pytest.raises(ValueError, match="target_accept"):
        H.fit(m, target_accept=1.5)
    with pytest.raises(ValueError, match="max_rhat"):
        H.fit(m, max_rhat=0.9)
    with pytest.raises(TypeError, match="rng must be"):
        H.fit(m, rng="seed")


# ------------------------------------------------------------------- likelihood vs scipy
def _random_point(pm_model, rng):
    point = pm_model.initial_point()
    return {k: rng.normal(0.0, 0.7, size=np.shape(v)) for k, v in point.items()}


def _values_at(pm_model, point, names):
    """Values of model variables at a point of the (transformed) value variables."""
    import pytensor

    outs = pm_model.replace_rvs_by_values([pm_model[n] for n in names])
    fn = pytensor.function(pm_model.value_vars, outs, on_unused_input="ignore", mode="FAST_COMPILE")
    return dict(zip(names, fn(**point)))


def _loglik(pm_model, point):
    f = pm_model.compile_logp(vars=[pm_model["y"]], jacobian=False, mode="FAST_COMPILE")
    return f(point)


@pytest.mark.parametrize("tasks", [1, 2])
def test_binomial_loglik_matches_scipy(tasks):
    """The PyMC likelihood term equals scipy's binomial log-pmf at eta from the numpy mirror."""
    pan = simulate_panel(rng=5, n_conversations=12, n_participants=4, n_topics=3, missing_rate=0.1)
    data = pan.data
    if tasks == 2:
        data = pd.concat([data.assign(task="om"), data.assign(task="human")], ignore_index=True)
    m = H.behaviour_model(data, pan.design, structure="default - overdispersion")
    pm_model = m.build()
    point = _random_point(pm_model, np.random.default_rng(1))
    names = ["conversation_intercept", "predictor_effect", "diagnosis_interaction"]
    names += ["predictor_topic", "turn_slope"] + (["task_offset"] if tasks == 2 else [])
    names += ["predictor_participant", "predictor_conversation"]
    vals = _values_at(pm_model, point, names)
    eta = m.linear_predictor({k: np.asarray(v)[None] for k, v in vals.items()})[0]
    expected = stats.binom.logpmf(m.successes, m.trials, special.expit(eta)).sum()
    got = _loglik(pm_model, point)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_ordered_beta_loglik_matches_hand_formula():
    pan = simulate_panel("ordered_beta", rng=6, n_conversations=12, n_participants=4, n_topics=3)
    m = H.emotion_model(pan.data, pan.design)
    assert (m.values[m.observed] == 0).any() and (m.values[m.observed] == 1).any()
    pm_model = m.build()
    point = _random_point(pm_model, np.random.default_rng(2))
    names = ["conversation_intercept", "predictor_effect", "diagnosis_interaction"]
    names += ["predictor_topic", "turn_slope", "cutpoints", "precision"]
    names += ["predictor_participant", "predictor_conversation"]
    vals = _values_at(pm_model, point, names)
    eta = m.linear_predictor({k: np.asarray(v)[None] for k, v in vals.items()})[0]
    k1, k2 = vals["cutpoints"]
    phi = float(vals["precision"])
    y = m.values[m.observed]
    e = eta[m.observed]
    p0 = 1 - special.expit(e - k1)
    p1 = special.expit(e - k2)
    mu = special.expit(e)
    mid = np.log(special.expit(e - k1) - p1) + stats.beta.logpdf(y, mu * phi, (1 - mu) * phi)
    expected = np.where(y == 0, np.log(p0), np.where(y == 1, np.log(p1), mid)).sum()
    got = _loglik(pm_model, point)
    np.testing.assert_allclose(got, expected, rtol=1e-9)


def test_ordered_beta_draws_follow_the_formula():
    """Shares of exact 0 / 1 and the interior mean match the likelihood (Monte Carlo)."""
    rng = np.random.default_rng(3)
    n = 200_000
    eta, k1, k2, phi = 0.4, -0.5, 1.5, 6.0
    y = _ordered_beta_draw(np.full(n, eta), k1, k2, phi, rng)
    p0 = 1 - special.expit(eta - k1)
    p1 = special.expit(eta - k2)
    for share, p in (((y == 0).mean(), p0), ((y == 1).mean(), p1)):
        assert abs(share - p) < 5 * np.sqrt(p * (1 - p) / n)  # 5 binomial SE
    mid = y[(y > 0) & (y < 1)]
    mu = special.expit(eta)
    sd = np.sqrt(mu * (1 - mu) / (phi + 1))
    assert abs(mid.mean() - mu) < 5 * sd / np.sqrt(mid.size)


# ----------------------------------------------------------------------- prior predictive
@pytest.fixture(scope="module")
def prior_draws():
    import pymc as pm

    pan = simulate_panel(rng=7)
    m = H.behaviour_model(pan.data, pan.design)
    # 4,000 draws: the share of all-right / all-wrong cells below is near 0.49-0.50 under the
    # default priors, and with 1,000 draws its Monte Carlo noise (about 0.004) decided the check
    with m.build():
        dt = pm.sample_prior_predictive(
            draws=4000, random_seed=11, compile_kwargs={"mode": "FAST_COMPILE"}
        )
    return m, dt


def test_prior_matches_documented_scales(prior_draws):
    m, dt = prior_draws
    prior = dt["prior"]
    n = prior.sizes["draw"] * prior.sizes["chain"]
    se = lambda sd: 4 * sd / np.sqrt(2 * (n - 1))  # noqa: E731 - 4 SE of a normal sample sd
    # intercept and diagnosis effects are integrated out: participant intercepts of the
    # reference group have prior variance E[sigma_participant^2] + intercept_sd^2
    ref = m.group_of_participant == 0
    p_ref = prior["participant_intercept"].values.reshape(n, -1)[:, ref]
    want = np.sqrt(PRIORS["sigma_participant_scale"] ** 2 + PRIORS["intercept_sd"] ** 2)
    assert abs(p_ref[:, 0].std() - want) < 5 * want / np.sqrt(2 * (n - 1))
    other = m.group_of_participant == 1
    p_oth = prior["participant_intercept"].values.reshape(n, -1)[:, other]
    want_o = np.sqrt(want**2 + PRIORS["diagnosis_effect_sd"] ** 2)
    assert abs(p_oth[:, 0].std() - want_o) < 5 * want_o / np.sqrt(2 * (n - 1))
    M = m.n_predictors
    marg = PRIORS["predictor_effect_sd"] * np.sqrt(1 - 1 / M)  # zero-sum normal marginal sd
    sd_t = float(prior["predictor_effect"].std())
    assert abs(sd_t - marg) < se(marg)
    sd_b = float(prior["turn_slope"].std())
    assert abs(sd_b - PRIORS["turn_slope_sd"]) < se(PRIORS["turn_slope_sd"])
    # half-normal(s) has mean s * sqrt(2 / pi) and sd s * sqrt(1 - 2 / pi)
    for name, key in (("sigma_participant", "sigma_participant_scale"),):
        s = PRIORS[key]
        mean = float(prior[name].mean())
        assert abs(mean - s * np.sqrt(2 / np.pi)) < 4 * s * np.sqrt(1 - 2 / np.pi) / np.sqrt(n)
    sums = prior["predictor_effect"].sum("predictor").values
    assert np.abs(sums).max() < 1e-9


def test_prior_predictive_is_plausible_not_degenerate(prior_draws):
    """Prior predictive accuracies spread over (0, 1) without piling up at 0 or 1, and the
    accuracy of data drawn from the simulator's scale is well inside the prior predictive."""
    m, dt = prior_draws
    y = dt["prior_predictive"]["y"].values.reshape(-1, *m.trials.shape)
    acc = y.sum(axis=(1, 2)) / m.trials.sum()
    assert 0.02 < np.quantile(acc, 0.05) < 0.2
    assert 0.8 < np.quantile(acc, 0.95) < 0.98
    assert np.mean((acc > 0.05) & (acc < 0.95)) > 0.8
    cell = y / np.maximum(m.trials, 1)
    extreme = np.mean((cell[:, m.trials > 0] == 0) | (cell[:, m.trials > 0] == 1))
    assert extreme < 0.5  # cells are not mostly all-right or all-wrong a priori
    obs = m.successes.sum() / m.trials.sum()
    lo, hi = np.quantile(acc, [0.01, 0.99])
    assert lo < obs < hi


def test_ordered_beta_prior_predictive_has_all_three_parts():
    import pymc as pm

    pan = simulate_panel("ordered_beta", rng=8, n_conversations=16)
    m = H.emotion_model(pan.data, pan.design)
    with m.build():
        dt = pm.sample_prior_predictive(
            draws=500, random_seed=12, compile_kwargs={"mode": "FAST_COMPILE"}
        )
    y = dt["prior_predictive"]["y"].values.reshape(500, -1)[:, m.observed.ravel()]
    share0, share1 = (y == 0).mean(axis=1), (y == 1).mean(axis=1)
    mid = 1 - share0 - share1
    for s in (share0, share1, mid):
        assert np.median(s) > 0.05  # every part has prior mass in a typical draw
    assert np.quantile(y.mean(axis=1), 0.05) < 0.3 < 0.7 < np.quantile(y.mean(axis=1), 0.95)


# ----------------------------------------------- intercept and diagnosis effects integrated out
def _means_design_by_hand(m):
    """Z (participants x [1, indicator of each non-reference group]) and the prior variances."""
    g = np.asarray(m.group_of_participant)
    Z = np.column_stack([np.ones(len(g))] + [g == j for j in range(1, len(m.diagnosis_groups))])
    Sigma = np.diag([PRIORS["intercept_sd"] ** 2] + [PRIORS["diagnosis_effect_sd"] ** 2] * 2)
    return Z.astype(float), Sigma


def test_draw_participant_means_reproduces_the_joint_normal():
    """Draw (b, P) from the generative model (b ~ N(0, Sigma), P = Z b + s * e), then redraw b
    from ``draw_participant_means(P)``: if it draws from the exact conditional, the pair
    (redrawn b, P) has the generative joint law, mean 0 and covariance [[Sigma, Sigma Z'],
    [Z Sigma, s^2 I + Z Sigma Z']]. Tolerance: 5 Monte Carlo standard errors per moment (sample
    covariance of two normals: sqrt((var_x var_y + cov_xy^2) / n)); 33 moments per s."""
    pan = simulate_panel(rng=1)
    m = H.behaviour_model(pan.data, pan.design)
    Z, Sigma = _means_design_by_hand(m)
    assert sorted(set(m.group_of_participant)) == [0, 1, 2]
    rng = np.random.default_rng(42)
    n = 100_000
    for s in (0.15, 0.6, 2.0):
        b_true = rng.multivariate_normal(np.zeros(3), Sigma, size=n)
        P = b_true @ Z.T + s * rng.standard_normal((n, Z.shape[0]))
        b0, delta = draw_participant_means(m, P, np.full(n, s), rng)
        b = np.column_stack([b0, delta])
        assert b.shape == (n, 3)
        np.testing.assert_array_less(np.abs(b.mean(axis=0)), 5 * np.sqrt(np.diag(Sigma) / n))
        x = np.column_stack([b, P])
        want = np.block(
            [[Sigma, Sigma @ Z.T], [Z @ Sigma, s**2 * np.eye(len(Z)) + Z @ Sigma @ Z.T]]
        )
        got = np.cov(x[:, :3], x, rowvar=False)[:3, 3:]  # rows: b; columns: (b, P)
        v = np.diag(want)
        se = np.sqrt((v[:3, None] * v[None, :] + want[:3] ** 2) / n)
        assert np.all(np.abs(got - want[:3]) < 5 * se), (s, (got - want[:3]) / se)


def test_draw_participant_means_matches_gain_form():
    """For one fixed P, the draws' mean and covariance equal the Gaussian conditioning formula
    in its gain form, E[b | P] = Sigma Z' (Z Sigma Z' + s^2 I)^-1 P and
    Var[b | P] = Sigma - Sigma Z' (Z Sigma Z' + s^2 I)^-1 Z Sigma (the code uses the precision
    form). Two values of s in one call (per-draw s). Tolerances: 5 standard errors (mean:
    sqrt(var / n); variance: var * sqrt(2 / n); covariance: sqrt((v_i v_j + c_ij^2) / n))."""
    pan = simulate_panel(rng=12, n_predictors=3, n_conversations=16, n_participants=4, n_topics=3)
    m = H.behaviour_model(pan.data, pan.design)
    Z, Sigma = _means_design_by_hand(m)
    P0 = np.array([0.9, -0.3, 1.4, 0.2])
    n = 60_000
    s = np.where(np.arange(2 * n) % 2 == 0, 0.3, 1.2)
    b0, delta = draw_participant_means(m, np.tile(P0, (2 * n, 1)), s, np.random.default_rng(3))
    b = np.column_stack([b0, delta])
    for sv in (0.3, 1.2):
        sel = s == sv
        K = Sigma @ Z.T @ np.linalg.inv(Z @ Sigma @ Z.T + sv**2 * np.eye(len(Z)))
        mean, cov = K @ P0, Sigma - K @ Z @ Sigma
        v = np.diag(cov)
        np.testing.assert_array_less(np.abs(b[sel].mean(axis=0) - mean), 5 * np.sqrt(v / n))
        se = np.sqrt((v[:, None] * v[None, :] + cov**2) / n)
        assert np.all(np.abs(np.cov(b[sel], rowvar=False) - cov) < 5 * se)
    with pytest.raises(ValueError, match="participant_intercept must have shape"):
        draw_participant_means(m, np.zeros((3, 5)), np.ones(3), np.random.default_rng(0))
    with pytest.raises(ValueError, match="sigma_participant must be positive"):
        draw_participant_means(m, np.zeros((2, 4)), np.array([1.0, 0.0]), np.random.default_rng(0))


# ------------------------------------------------------------------------- from Scores
@pytest.fixture(scope="module")
def small_scores(make_tmp_release):
    from attunestats import load_release, score

    out = make_tmp_release(
        rng=21, n_conversations=24, n_participants=6, n_topics=6, n_models=3, n_human_raters=1
    )
    return score(load_release(out))


def test_from_scores_counts_match_tables(small_scores):
    sc = small_scores
    m = H.behaviour_model_from_scores(sc, task="om")
    tc = sc.turn_counts[sc.turn_counts["task"] == "om"]
    assert m.successes.sum() == (tc["tp"] + tc["tn"]).sum()
    assert m.trials.sum() == tc[["tp", "tn", "fp", "fn"]].to_numpy().sum()
    assert set(m.predictors) == set(sc.predictors["predictor"])
    assert m.simulated and m.label == SIMULATED_LABEL
    both = H.behaviour_model_from_scores(sc, task=["om", "human"])
    assert both.tasks == ("om", "human")
    assert both.trials.sum() > m.trials.sum()
    cmp_ = sc.comparisons[sc.comparisons["has_winner"]]
    p = H.preference_model_from_scores(sc)
    assert p.successes.sum() == cmp_["correct"].sum() and p.trials.sum() == len(cmp_)
    e = H.emotion_model_from_scores(sc, metric="emotion_va_score")
    t = sc.turn[sc.turn["metric"] == "emotion_va_score"]["value"].dropna()
    assert e.observed.sum() == len(t)
    np.testing.assert_allclose(np.sort(e.values[e.observed]), np.sort(t.to_numpy()))
    h = H.holistic_model_from_scores(sc, metric="panas_mae")
    c = sc.conversation[sc.conversation["metric"] == "panas_mae"]["value"].dropna()
    np.testing.assert_allclose(np.sort(h.values[h.observed]), np.sort(1 - c.to_numpy() / 60))
    with pytest.raises(ValueError, match="task must be one of"):
        H.behaviour_model_from_scores(sc, task="nope")
    with pytest.raises(TypeError, match="Scores object"):
        H.behaviour_model_from_scores(object())


def test_conversations_without_a_topic_form_one_topic_with_a_warning(small_scores):
    # A user's release without metadata.category for some conversations: the models still
    # build (participant and diagnosis terms do not need topics), the topic-less conversations
    # are one level named NO_TOPIC, and a warning counts them.
    from dataclasses import replace

    from attunestats.errors import AttunestatsWarning
    from attunestats.hierarchical._scores import NO_TOPIC

    design = small_scores.design.copy()
    lost = design["conversation_id"].iloc[:5].tolist()
    design.loc[design["conversation_id"].isin(lost), "topic"] = None
    sc = replace(small_scores, design=design)
    with pytest.warns(AttunestatsWarning, match=r"5 of 24 conversations have no topic"):
        m = H.behaviour_model_from_scores(sc, task="om")
    assert NO_TOPIC in m.topics
    k = [m.conversations.index(c) for c in lost]
    assert {m.topics[t] for t in m.topic_of_conversation[k]} == {NO_TOPIC}
    others = m.topic_of_conversation[[i for i in range(len(m.conversations)) if i not in k]]
    assert NO_TOPIC not in {m.topics[t] for t in others}


# ------------------------------------------------------------------ parameterisation rule
def test_auto_centring_rule_by_hand():
    from attunestats.hierarchical.data import auto_centring

    # 12 conversations, 3 participants (4 each), 2 topics (6 each)
    p_k = np.repeat([0, 1, 2], 4)
    t_k = np.tile([0, 1], 6)
    assert auto_centring(np.full(12, 299.0), p_k, t_k)[:3] == (False, False, False)
    # conversation level informative; participants 4 conversations (< 8): not centred
    assert auto_centring(np.full(12, 300.0), p_k, t_k)[:3] == (False, False, True)
    p_k8 = np.repeat([0, 1], 8)
    t_k8 = np.tile([0, 1], 8)
    assert auto_centring(np.full(16, 300.0), p_k8, t_k8)[:3] == (False, True, True)
    assert auto_centring(np.full(16, 100.0), p_k8, t_k8)[:3] == (False, False, False)
    # items: centred from AUTO_CENTRED_MIN_OBS_LEVEL observations per item
    from attunestats.hierarchical.data import AUTO_CENTRED_MIN_OBS_LEVEL as lev

    assert auto_centring(np.full(12, 1.0), p_k, t_k, per_item=np.full(3, lev))[3]
    assert not auto_centring(np.full(12, 1.0), p_k, t_k, per_item=np.full(3, lev - 1))[3]
    pan = simulate_panel(rng=1)
    assert not any(H.behaviour_model(pan.data, pan.design).centring)
    m = H.behaviour_model(pan.data, pan.design, parameterization={"conversation": "centred"})
    assert m.centring[:3] == (False, False, True)
    assert m.parameterization == (
        "participant=noncentred, topic=noncentred, conversation=centred, "
        "predictor:participant=noncentred, predictor:conversation=noncentred"
    )
    with pytest.raises(ValueError, match="parameterization keys"):
        H.behaviour_model(pan.data, pan.design, parameterization={"subject": "centred"})
