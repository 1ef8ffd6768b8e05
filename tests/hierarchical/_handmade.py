"""Fits built by hand, without MCMC: posterior draws from chosen unconstrained points (the
kernel's coordinates, :func:`attunestats.hierarchical.layout.constrained`) plus exact draws of
the intercept and diagnosis effects, wrapped in a :class:`FitResult` that passed the gate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from attunestats.hierarchical.fit import FitResult
from attunestats.hierarchical.layout import DIMS, constrained, kernel_args
from attunestats.hierarchical.model import draw_participant_means


def handmade_fit(model, *, chains=2, draws=50, scale=0.6, rng=0, passed=True) -> FitResult:
    gen = np.random.default_rng(rng)
    _, ndim = kernel_args(model)
    S = chains * draws
    post = constrained(model, gen.normal(scale=scale, size=(S, ndim)))
    b0, delta = draw_participant_means(
        model, post["participant_intercept"], post["sigma_participant"], gen
    )
    post["intercept"] = b0
    if model.has_diagnosis:
        post["diagnosis_effect"] = delta
    coords = model.coords()
    coords["cutpoint"] = ["1", "2"]
    dims = {**DIMS, "diagnosis_effect": ("diagnosis",)}
    data = {
        k: (("chain", "draw", *dims.get(k, ())), v.reshape((chains, draws, *v.shape[1:])))
        for k, v in post.items()
    }
    used = {d for k in post for d in dims.get(k, ())}
    ds = xr.Dataset(
        data,
        coords={"chain": np.arange(chains), "draw": np.arange(draws),
                **{d: coords[d] for d in used}},
    )  # fmt: skip
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((chains, draws), bool))})
    idata = xr.DataTree.from_dict({"posterior": ds, "sample_stats": stats})
    return FitResult(
        model=model, idata=idata, diagnostics=pd.DataFrame(), divergences=0, passed=passed,
        failures=() if passed else ("x: r_hat 2.000 > 1.01",), sampler="handmade", seed=0,
        draws=draws, tune=0, chains=chains, max_rhat=1.01, min_ess=400.0, compile_seconds=0.0,
        sample_seconds=0.0, from_cache=False,
    )  # fmt: skip


def small_design() -> pd.DataFrame:
    """Three conversations of two participants (one per diagnosis group), by hand."""
    return pd.DataFrame(
        {
            "conversation_id": ["c1", "c2", "c3"],
            "participant_id": ["a", "a", "b"],
            "diagnosis_group": ["none", "none", "asd_adhd"],
            "topic": ["money", "love", "money"],
            "n_turns": [3, 1, 2],
        }
    )


def small_counts() -> pd.DataFrame:
    """Binomial counts of two predictors on :func:`small_design`, by hand (unbalanced)."""
    return pd.DataFrame(
        {
            "predictor": ["m2", "m2", "m2", "m1", "m1", "m1", "m2"],
            "conversation_id": ["c1", "c1", "c1", "c1", "c2", "c3", "c3"],
            "turn": [1, 2, 3, 3, 1, 2, 1],
            "successes": [3, 2, 1, 4, 0, 5, 2],
            "trials": [5, 5, 5, 4, 2, 6, 3],
        }
    )


def mid_eta(post, pred):
    """Draws of the logit of predictor ``pred`` at mid-conversation for an average participant,
    topic and conversation of the reference group: intercept + theta + turn_slope / 2, by hand."""
    return (
        post["intercept"]
        + post["predictor_effect"].sel(predictor=pred)
        + 0.5 * post["turn_slope"].sel(predictor=pred)
    ).values.ravel()
