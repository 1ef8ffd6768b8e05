"""Inference on benchmark scores: resampling plans, intervals, paired comparisons, ranks, claims.

What lives here
---------------
- :mod:`~attunestats.inference.participants`: the default inference, for the population of
  participants (delete-one-participant jackknife or CR2, t with working-model df), for every
  metric of every predictor and any contrast of them;
- :mod:`~attunestats.inference.sums`: statistics as functions of per-conversation sums (what
  every method evaluates);
- :mod:`~attunestats.inference.bootstrap`: the vectorised cluster bootstrap engine (the
  conditional analysis by name: these participants, conversations resampled);
- :mod:`~attunestats.inference.contrasts`, :mod:`~attunestats.inference.multiplicity`,
  :mod:`~attunestats.inference.ranks`: families of contrasts with corrections whose intervals
  agree with their tests, effect sizes, marginal and simultaneous rank confidence sets;
- :mod:`~attunestats.inference.compare`: paired differences between predictors, ranks and the
  discrimination index;
- :mod:`~attunestats.inference.randomization`: the participant swap (sign-flip) randomization
  test of a paired difference (exact under interchangeable predictors, any metric);
- :mod:`~attunestats.inference.dynamics`: early / mid / late turn phases;
- :mod:`~attunestats.inference.claims` (+ ``claims_independence``, ``claims_topic``): the
  paper's claims as explicit tests (the audit).

May import: ``attunestats.release``, ``attunestats.metrics``, the other statistics packages
(``agreement``, ``baseline``, ``hierarchical``, ``independence``) and the shared modules
(``constants``, ``errors``, ``_rng``, ``_results``). Never ``report``, ``artifacts`` or ``cli``.
"""

from __future__ import annotations

from attunestats.inference.bootstrap import (
    BootstrapResult,
    ResamplingPlan,
    bootstrap_scores,
    cluster_bootstrap_mean,
)
from attunestats.inference.compare import (
    ComparisonResult,
    DiscriminationContrast,
    adjust_pvalues,
    compare_models,
)
from attunestats.inference.participants import ScoreInference, infer_scores, participant_inference
from attunestats.inference.randomization import SignFlipResult, sign_flip_test

__all__ = [
    "BootstrapResult",
    "ComparisonResult",
    "DiscriminationContrast",
    "ResamplingPlan",
    "adjust_pvalues",
    "audit_claims",
    "bootstrap_scores",
    "cluster_bootstrap_mean",
    "compare_models",
    "infer_scores",
    "participant_inference",
    "ScoreInference",
    "SignFlipResult",
    "sign_flip_test",
]


def __getattr__(name: str):  # claims import the hierarchical models lazily
    if name == "audit_claims":
        from attunestats.inference.claims import audit_claims

        return audit_claims
    raise AttributeError(f"module 'attunestats.inference' has no attribute {name!r}")
