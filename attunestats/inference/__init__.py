"""Inference on benchmark scores: resampling plans, intervals, paired comparisons, ranks, claims.

What lives here
---------------
- :mod:`~attunestats.inference.bootstrap`: the vectorised cluster bootstrap engine (every metric
  of every predictor from one weight matrix), resampling plans and interval methods;
- :mod:`~attunestats.inference.compare`: paired differences between predictors, multiplicity
  corrections, rank intervals and the discrimination index;
- :mod:`~attunestats.inference.dynamics`: early / mid / late turn phases;
- :mod:`~attunestats.inference.claims`: the paper's claims as explicit tests (the audit).

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
from attunestats.inference.compare import ComparisonResult, adjust_pvalues, compare_models

__all__ = [
    "BootstrapResult",
    "ComparisonResult",
    "ResamplingPlan",
    "adjust_pvalues",
    "audit_claims",
    "bootstrap_scores",
    "cluster_bootstrap_mean",
    "compare_models",
]


def __getattr__(name: str):  # claims import the hierarchical models lazily
    if name == "audit_claims":
        from attunestats.inference.claims import audit_claims

        return audit_claims
    raise AttributeError(f"module 'attunestats.inference' has no attribute {name!r}")
