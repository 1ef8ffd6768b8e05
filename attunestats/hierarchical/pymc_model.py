"""The PyMC form of a :class:`~.model.HierarchicalModel` (imports PyMC).

The free variables are created in the order of :func:`.layout.blocks`, with the same
transforms, so PyMC's unconstrained vector is the numba kernel's (:mod:`.kernel`); the
posterior variables (deterministics) have the names of :func:`.layout.constrained`. This model
is what ``fit(sampler="pymc")`` samples with PyMC's NUTS and what the kernel is tested against.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attunestats.hierarchical import kernel as KN
from attunestats.hierarchical.layout import _SCALE_PRIORS, SCALES, blocks
from attunestats.hierarchical.model import (
    CUTPOINT_MEANS,
    HierarchicalModel,
    _logistic,
    _ordered_beta_draw,
)


def _binomial_logp(value: Any, n: Any, eta: Any, log_coef: Any) -> Any:
    import pytensor.tensor as pt

    # k * eta - n * log(1 + exp(eta)) = log[p^k (1-p)^(n-k)] with p = logistic(eta)
    return log_coef + value * eta - n * pt.softplus(eta)


def _binomial_random(
    n: Any, eta: Any, log_coef: Any, rng: np.random.Generator | None = None, size: Any = None
) -> np.ndarray:
    return rng.binomial(np.asarray(n).astype(np.int64), _logistic(np.asarray(eta)), size=size)


def _ordered_beta_logp(value: Any, eta: Any, k1: Any, k2: Any, phi: Any, n0: Any, n1: Any) -> Any:
    """Ordered-beta log-density of ``value`` sorted as ``n0`` zeros, ``n1`` ones, interior."""
    import pytensor.tensor as pt

    n0 = pt.as_tensor(n0).flatten()[0]  # CustomDist gives the scalar parameters a batch axis
    n1 = pt.as_tensor(n1).flatten()[0]
    e0, e1, em = eta[:n0], eta[n0 : n0 + n1], eta[n0 + n1 :]
    lp_zero = -pt.softplus(e0 - k1)  # log(1 - L(eta - k1))
    lp_one = -pt.softplus(k2 - e1)  # log L(eta - k2)
    log_la = -pt.softplus(k1 - em)  # log L(eta - k1)
    log_lb = -pt.softplus(k2 - em)  # log L(eta - k2)
    lp_cat = log_la + pt.log1mexp(log_lb - log_la)  # log(L(a) - L(b)), a > b
    y = pt.clip(value[n0 + n1 :], 1e-12, 1.0 - 1e-12)
    mu = pt.clip(pt.sigmoid(em), 1e-12, 1.0 - 1e-12)
    al = mu * phi
    be = phi - al
    lp_beta = (
        (al - 1.0) * pt.log(y)
        + (be - 1.0) * pt.log1p(-y)
        - (pt.gammaln(al) + pt.gammaln(be) - pt.gammaln(phi))
    )
    return pt.concatenate([lp_zero, lp_one, lp_cat + lp_beta])


def _ordered_beta_random(
    eta: Any, k1: Any, k2: Any, phi: Any, n0: Any, n1: Any,
    rng: np.random.Generator | None = None, size: Any = None,
) -> np.ndarray:  # fmt: skip
    eta = np.asarray(eta, dtype=float)
    if size is not None:
        eta = np.broadcast_to(eta, size)
    return _ordered_beta_draw(eta, k1, k2, phi, rng)


def pymc_data(model: HierarchicalModel) -> dict[str, np.ndarray]:
    """The ``pm.Data`` values (cells of ordered-beta models sorted zeros, ones, interior)."""
    d = model.data_arrays()
    if model.family == "binomial":
        from scipy.special import gammaln

        n, k = d["cell_trials"], d["cell_successes"]
        d["cell_log_coef"] = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    if model.family == "ordered_beta":
        y = d["cell_value"]
        cat = np.where(y == 0, 0, np.where(y == 1, 1, 2))
        order = np.argsort(cat, kind="stable")
        for key in list(d):
            if key.startswith("cell_"):
                d[key] = d[key][order]
        d["n_zero"] = np.array(int((cat == 0).sum()), dtype=np.int64)
        d["n_one"] = np.array(int((cat == 1).sum()), dtype=np.int64)
    return d


def build_pymc(spec: HierarchicalModel) -> Any:
    """The PyMC model of ``spec`` (free variables in the order of :func:`.layout.blocks`)."""
    import pymc as pm
    import pytensor.tensor as pt
    from pymc.distributions.transforms import ordered

    M, K = spec.n_predictors, len(spec.conversations)
    coords = spec.coords()
    coords["cutpoint"] = ["1", "2"]
    c = spec.is_centred
    with pm.Model(coords=coords) as model:
        d = {name: pm.Data(name, value) for name, value in pymc_data(spec).items()}
        sig: dict[int, Any] = {}
        for b in blocks(spec):
            if b.block < 8:
                name, scale = SCALES[b.block], spec.prior(_SCALE_PRIORS[b.block])
                if spec.spec.scale_family(name) == "gamma":
                    sig[b.block] = pm.Gamma(name, alpha=2.0, beta=2.0 / scale)
                else:
                    sig[b.block] = pm.HalfNormal(name, scale)
        # participants: P = U (sqrt(sigma^2 + lambda) * z), or P ~ MvNormal(0, U diag(.) U')
        U, lam = d["participant_U"], d["participant_lambda"]
        dvec = pt.sqrt(sig[KN.S_P] ** 2 + lam)
        if c("participant"):
            cov = (U * (dvec**2)[None, :]) @ U.T
            part = pm.MvNormal("participant_intercept", mu=pt.zeros_like(lam), cov=cov,
                               dims="participant")  # fmt: skip
        else:
            z_p = pm.Normal("z_participant", 0.0, 1.0, dims="participant")
            part = pm.Deterministic("participant_intercept", U @ (dvec * z_p), dims="participant")
        conv_mean = part[d["participant_of_conversation"]]
        if spec.has_topic_effect:
            if c("topic"):
                v = pm.ZeroSumNormal("topic_effect", sigma=sig[KN.S_T], dims="topic")
            else:
                z_t = pm.ZeroSumNormal("z_topic", sigma=1.0, dims="topic")
                v = pm.Deterministic("topic_effect", sig[KN.S_T] * z_t, dims="topic")
            conv_mean = conv_mean + v[d["topic_of_conversation"]]
        if c("conversation"):
            conv = pm.Normal("conversation_intercept", conv_mean, sig[KN.S_C], dims="conversation")
        else:
            z_c = pm.Normal("z_conversation", 0.0, 1.0, dims="conversation")
            conv = pm.Deterministic("conversation_intercept", conv_mean + sig[KN.S_C] * z_c,
                                    dims="conversation")  # fmt: skip
        A = pt.broadcast_to(conv[:, None], (K, M))  # (conversation, predictor)
        if spec.has_predictor_effect:
            theta = pm.ZeroSumNormal("predictor_effect", sigma=spec.prior("predictor_effect_sd"),
                                     dims="predictor")  # fmt: skip
            A = A + theta[None, :]
        if spec.has_diagnosis_interaction:
            z_g = pm.ZeroSumNormal("z_diagnosis_interaction", sigma=1.0,
                                   dims=("diagnosis", "predictor"))  # fmt: skip
            gamma = pm.Deterministic("diagnosis_interaction", sig[KN.S_G] * z_g.T,
                                     dims=("predictor", "diagnosis"))  # fmt: skip
            g_full = pt.concatenate([pt.zeros((M, 1)), gamma], axis=1)
            A = A + g_full[:, d["group_of_conversation"]].T
        if spec.has_predictor_topic:
            z_pt = pm.ZeroSumNormal("z_predictor_topic", sigma=1.0, dims=("predictor", "topic"),
                                    n_zerosum_axes=2)  # fmt: skip
            tp = pm.Deterministic("predictor_topic", sig[KN.S_PT] * z_pt,
                                  dims=("predictor", "topic"))  # fmt: skip
            A = A + tp[:, d["topic_of_conversation"]].T
        for block, name, lev, dim, index in (
            (KN.S_PP, "predictor_participant", "predictor:participant", "participant",
             d["participant_of_conversation"]),
            (KN.S_PC, "predictor_conversation", "predictor:conversation", "conversation", None),
        ):  # fmt: skip
            if block not in sig:
                continue
            s = sig[block]
            z = pm.ZeroSumNormal(f"z_{name}", sigma=s if c(lev) else 1.0, dims=(dim, "predictor"))
            val = pm.Deterministic(name, (z if c(lev) else s * z).T, dims=("predictor", dim))
            A = A + (val.T if index is None else val.T[index])
        eta = A[d["cell_conversation"], d["cell_predictor"]]
        if spec.turn_slope:
            beta = pm.Normal("turn_slope", 0.0, spec.prior("turn_slope_sd"), dims="predictor")
            eta = eta + beta[d["cell_predictor"]] * d["cell_x"]
        if spec.has_tasks:
            tau = pm.Normal("task_offset", 0.0, spec.prior("task_offset_sd"), dims="task")
            eta = eta + pt.concatenate([pt.zeros(1), tau])[d["cell_task"]]
        if spec.has_item:
            if c("item"):
                q = pm.ZeroSumNormal("item_effect", sigma=sig[KN.S_I], dims="item")
            else:
                z_i = pm.ZeroSumNormal("z_item", sigma=1.0, dims="item")
                q = pm.Deterministic("item_effect", sig[KN.S_I] * z_i, dims="item")
            eta = eta + q[d["cell_item"]]
        if spec.has_overdispersion:
            od = pm.HalfNormal("overdispersion", spec.prior("overdispersion_scale"))
            phi = 1.0 / od**2
            mu = pt.clip(pm.math.invlogit(eta), 1e-12, 1.0 - 1e-12)
            pm.BetaBinomial("y", alpha=mu * phi, beta=(1.0 - mu) * phi, n=d["cell_trials"],
                            observed=d["cell_successes"])  # fmt: skip
        elif spec.family == "binomial":
            pm.CustomDist("y", d["cell_trials"], eta, d["cell_log_coef"], logp=_binomial_logp,
                          random=_binomial_random, observed=d["cell_successes"])  # fmt: skip
        else:
            k = pm.Normal("cutpoints", mu=np.array(CUTPOINT_MEANS),
                          sigma=spec.prior("cutpoint_sd"), transform=ordered,
                          initval=np.array(CUTPOINT_MEANS), dims="cutpoint")  # fmt: skip
            phi = pm.Exponential("precision", spec.prior("precision_rate"), initval=10.0)
            pm.CustomDist("y", eta, k[0], k[1], phi, d["n_zero"], d["n_one"],
                          logp=_ordered_beta_logp, random=_ordered_beta_random,
                          observed=d["cell_value"])  # fmt: skip
    return model
