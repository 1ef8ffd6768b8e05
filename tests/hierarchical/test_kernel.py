"""The numba kernel against the PyMC model: the same log density and gradient, every structure.

Independent reference: PyMC's own compiled ``logp_dlogp_function`` of the PyMC model of
:mod:`attunestats.hierarchical.pymc_model` (PyTensor's automatic differentiation, PyMC's
transforms and distributions, its ZeroSumNormal and MvNormal densities), at random points of the
unconstrained space. The kernel drops constants, so log densities are compared through their
differences between points; gradients are compared directly. Also: :func:`layout.constrained`
against PyMC's deterministics at the same points, and the parameter spec strings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attunestats import hierarchical as H
from attunestats.hierarchical.kernel import logp_grad
from attunestats.hierarchical.layout import blocks, constrained, kernel_args
from attunestats.hierarchical.synthetic import simulate_panel

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _with_items(pan, rng):
    """Split each cell's trials over 3 questions (item ids), keeping the totals."""
    rows = []
    for r in pan.data.itertuples():
        n = np.array([r.trials // 3, r.trials // 3, r.trials - 2 * (r.trials // 3)])
        s = rng.multivariate_hypergeometric(n, r.successes)
        for q in range(3):
            if n[q] > 0:
                rows.append((r.predictor, r.conversation_id, r.turn, f"q{q}", s[q], n[q]))
    return pd.DataFrame(rows, columns=["predictor", "conversation_id", "turn", "item",
                                       "successes", "trials"])  # fmt: skip


def _models():
    rng = np.random.default_rng(0)
    small = dict(n_conversations=14, n_participants=5, n_topics=4, n_predictors=3)
    pan_b = simulate_panel(rng=3, **small)
    pan_o = simulate_panel("ordered_beta", rng=4, **small)
    pan_h = simulate_panel("ordered_beta", level="conversation", rng=5, **small)
    single = simulate_panel(rng=6, n_predictors=1, n_conversations=6, n_participants=1,
                            n_topics=1, groups=("none",), diagnosis_effect=())  # fmt: skip
    items = _with_items(pan_b, rng)
    two_tasks = pd.concat([pan_b.data.assign(task="om"), pan_b.data.assign(task="human")])
    out = []
    for par in ("noncentred", "centred"):
        out += [
            ("binomial " + par, H.behaviour_model(pan_b.data, pan_b.design, parameterization=par)),
            (
                "ordered beta " + par,
                H.emotion_model(pan_o.data, pan_o.design, parameterization=par),
            ),
        ]
    out += [
        ("items", H.binomial_model(items, pan_b.design, outcome="x")),
        ("items centred", H.binomial_model(items, pan_b.design, outcome="x",
                                           parameterization={"item": "centred"})),
        ("two tasks legacy", H.behaviour_model(two_tasks, pan_b.design, structure="legacy")),
        ("holistic", H.holistic_model(pan_h.data.assign(value=6 * (1 - pan_h.data["value"])),
                                      pan_h.design)),
        ("base only", H.behaviour_model(pan_b.data, pan_b.design, structure="base")),
        ("mixed", H.behaviour_model(pan_b.data, pan_b.design, structure="predictor:participant",
                                    parameterization={"predictor:participant": "centred",
                                                      "topic": "centred"})),
        ("conversation x predictor centred", H.behaviour_model(
            pan_b.data, pan_b.design, parameterization={"predictor:conversation": "centred"})),
        # beta-binomial cells: small counts (finite sums) and counts above 32 (log-gamma path)
        ("overdispersion", H.behaviour_model(pan_b.data, pan_b.design,
                                             structure="default + overdispersion")),
        ("overdispersion large counts", H.behaviour_model(
            pan_b.data.assign(successes=5 * pan_b.data["successes"] + 1,
                              trials=5 * pan_b.data["trials"] + 3),
            pan_b.design, structure="base + turn + overdispersion")),
        ("overdispersion items", H.binomial_model(items, pan_b.design, outcome="x",
                                                  structure="default + overdispersion")),
        # every scale's prior family flipped from its default (gamma <-> half-normal)
        ("scale families flipped", H.binomial_model(items, pan_b.design, outcome="x",
                                                    structure=_flipped())),
        # every prior scale away from its default, each to its own value (a prior read from
        # the wrong key would show), on models with every block: tasks and items, ordered beta
        ("priors changed", H.binomial_model(
            pd.concat([items.assign(task="om"), items.assign(task="human")]), pan_b.design,
            outcome="x", structure=_all_priors_changed())),
        ("priors changed ordered beta", H.emotion_model(pan_o.data, pan_o.design,
                                                        structure=_all_priors_changed())),
        # single levels: one predictor, participant, topic and group (no interaction, no
        # topic or diagnosis term)
        ("single levels", H.behaviour_model(single.data, single.design)),
    ]  # fmt: skip
    return out


def _all_priors_changed():
    from attunestats.hierarchical.spec import PRIORS

    return H.ModelSpec(priors={k: 0.37 + 0.11 * i for i, k in enumerate(sorted(PRIORS))})


def _flipped():
    from attunestats.hierarchical.spec import SCALE_FAMILIES

    other = {"gamma": "halfnormal", "halfnormal": "gamma"}
    return H.ModelSpec(scale_priors={k: other[v] for k, v in SCALE_FAMILIES.items()})


MODELS = _models()


@pytest.mark.parametrize("name,model", MODELS, ids=[n for n, _ in MODELS])
def test_kernel_equals_pymc_density_and_gradient(name, model):
    pm_model = model.build()
    # the kernel's blocks are PyMC's value variables, in order and size
    vv = pm_model.value_vars
    ip = pm_model.initial_point()
    assert [b.size for b in blocks(model)] == [np.size(ip[v.name]) for v in vv]
    assert [v.name.startswith(b.name) for b, v in zip(blocks(model), vv)] == [True] * len(vv)
    f = pm_model.logp_dlogp_function(ravel_inputs=True, mode="FAST_COMPILE")
    f.set_extra_values({})
    args, ndim = kernel_args(model)
    rng = np.random.default_rng(7)
    lps, ref = [], []
    for _ in range(5):
        q = rng.normal(scale=0.6, size=ndim)
        g = np.empty(ndim)
        lps.append(logp_grad(q, g, *args))
        lp_ref, g_ref = f(q)
        ref.append(float(lp_ref))
        np.testing.assert_allclose(g, g_ref, rtol=1e-9, atol=1e-9 * (1 + np.abs(g_ref).max()))
    diff = np.array(lps) - np.array(ref)
    assert np.ptp(diff) < 1e-8 * (1 + np.abs(ref).max())


_OD = [m for m in MODELS if m[0] == "overdispersion"]


@pytest.mark.parametrize(
    "name,model", MODELS[:2] + MODELS[4:6] + _OD, ids=["b", "o", "i", "ic", "od"]
)
def test_constrained_equals_pymc_deterministics(name, model):
    import pytensor

    pm_model = model.build()
    names = [n for n in ("participant_intercept", "topic_effect", "conversation_intercept",
                         "predictor_effect", "diagnosis_interaction", "predictor_topic",
                         "predictor_participant", "predictor_conversation", "turn_slope",
                         "item_effect", "cutpoints", "precision", "sigma_topic",
                         "overdispersion")
             if n in pm_model.named_vars]  # fmt: skip
    outs = pm_model.replace_rvs_by_values([pm_model[n] for n in names])
    fn = pytensor.function(pm_model.value_vars, outs, mode="FAST_COMPILE",
                           on_unused_input="ignore")  # fmt: skip
    _, ndim = kernel_args(model)
    rng = np.random.default_rng(3)
    Q = rng.normal(scale=0.6, size=(3, ndim))
    got = constrained(model, Q)
    for s in range(3):
        pos, point = 0, {}
        for v, b in zip(pm_model.value_vars, blocks(model)):
            point[v.name] = Q[s, pos : pos + b.size].reshape(b.shape)
            pos += b.size
        for n, val in zip(names, fn(**point)):
            np.testing.assert_allclose(got[n][s], val, rtol=1e-10, atol=1e-12, err_msg=n)


def test_item_cells_and_question_ids():
    """Preference comparisons keep their question as an item when the structure asks for it."""
    comps = pd.DataFrame({
        "predictor": ["a", "a", "a", "b", "b", "b"], "conversation_id": ["1"] * 6,
        "turn": [1, 1, 1, 1, 1, 1], "question_id": ["q1", "q1", "q2", "q1", "q2", "q2"],
        "correct": [True, False, True, True, True, False],
    })  # fmt: skip
    design = pd.DataFrame({"conversation_id": ["1"], "participant_id": ["p"],
                           "diagnosis_group": ["none"], "topic": ["t"], "n_turns": [1]})  # fmt: skip
    m = H.preference_model(comps, design)
    assert m.items == ("q1", "q2") and m.has_item
    assert m.successes.tolist() == [[1, 1], [1, 1]] and m.trials.tolist() == [[2, 1], [1, 2]]
    legacy = H.preference_model(comps, design, structure="legacy")
    assert not legacy.has_item and legacy.trials.tolist() == [[3], [3]]


def test_spec_strings_and_errors():
    s = H.ModelSpec.parse("default - predictor:conversation - item; sigma_item_scale=0.2")
    assert not s.has("predictor:conversation") and s.has("predictor:participant")
    assert s.prior("sigma_item_scale") == 0.2
    assert H.ModelSpec.parse(str(s)) == s
    assert H.ModelSpec.parse("legacy").terms == H.LEGACY_TERMS
    assert H.ModelSpec.parse("predictor:topic").terms == ("predictor:topic",)
    with pytest.raises(ValueError, match="unknown term 'predictor:item'"):
        H.ModelSpec.parse("default + predictor:item")
    with pytest.raises(ValueError, match="unknown prior"):
        H.ModelSpec(priors={"sigma_x": 1.0})
    with pytest.raises(ValueError, match="must be a positive number"):
        H.ModelSpec(priors={"sigma_item_scale": -1.0})
    f = H.ModelSpec.parse(
        "default; sigma_topic=halfnormal, sigma_participant=gamma, sigma_item_scale=2"
    )
    assert f.scale_family("sigma_topic") == "halfnormal"
    assert f.scale_family("sigma_participant") == "gamma"
    assert f.scale_family("sigma_conversation") == H.SCALE_FAMILIES["sigma_conversation"]
    assert f.prior("sigma_item_scale") == 2.0 and H.ModelSpec.parse(str(f)) == f
    # an override equal to the default is no override: the same spec, the same compile key
    assert (
        H.ModelSpec(scale_priors={"sigma_topic": H.SCALE_FAMILIES["sigma_topic"]}) == H.ModelSpec()
    )
    with pytest.raises(ValueError, match="family of sigma_topic must be one of"):
        H.ModelSpec.parse("default; sigma_topic=cauchy")
    with pytest.raises(ValueError, match="unknown scale 'sigma_x'"):
        H.ModelSpec(scale_priors={"sigma_x": "gamma"})
    with pytest.raises(TypeError, match="structure must be"):
        pan = simulate_panel(rng=1, n_conversations=6, n_participants=3, n_topics=2)
        H.behaviour_model(pan.data, pan.design, structure=3)
