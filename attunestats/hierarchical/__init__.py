"""Hierarchical Bayesian models of AttuneBench outcomes (PyMC 6, ArviZ 1.x, nutpie).

Models (:mod:`.model` documents the linear predictor, priors and likelihoods):

- :func:`behaviour_model` / :func:`behaviour_model_from_scores`: turn-level binary behaviour
  correctness (binomial counts per predictor x conversation x turn);
- :func:`emotion_model` / :func:`emotion_model_from_scores`: turn-level emotion F1 or
  valence-arousal score (ordered beta: exact 0 and 1 allowed);
- :func:`preference_model` / :func:`preference_model_from_scores`: pairwise preference
  correctness (Bernoulli per comparison);
- :func:`holistic_model` / :func:`holistic_model_from_scores`: conversation-level four-branch or
  PANAS prediction error.

:func:`fit` samples (nutpie when installed, else PyMC's NUTS) and runs the diagnostics gate;
:mod:`.summaries` turns a :class:`FitResult` into tidy tables (variance decomposition, topic
effects, diagnosis contrasts, turn drift, predictor effects, posterior predictive checks);
:mod:`.recovery` compares a fit with the truth of a simulated release; :mod:`.checks` compares
structures by PSIS-LOO (:func:`compare_structures`) and gives ArviZ-format predictive data.
:class:`ModelSpec` (:mod:`.spec`) sets the structure (which random effects and interactions) and
the priors of every model constructor (``structure=``).

PyMC is imported only when a model is built or fitted.

May import: ``attunestats.release``, ``attunestats.metrics`` and the shared modules; PyMC,
ArviZ and nutpie only inside the functions that need them. Never ``report``, ``artifacts`` or
``cli``.
"""

from __future__ import annotations

from attunestats.hierarchical.checks import (
    compare_structures,
    log_likelihood,
    loo,
    predictive_data,
)
from attunestats.hierarchical.data import (
    behaviour_model,
    behaviour_model_from_scores,
    binomial_model,
    bounded_model,
    emotion_model,
    emotion_model_from_scores,
    holistic_model,
    holistic_model_from_scores,
    preference_model,
    preference_model_from_scores,
)
from attunestats.hierarchical.fit import (
    FitResult,
    clear_compile_cache,
    diagnose,
    fit,
    nutpie_available,
)
from attunestats.hierarchical.model import PRIORS, HierarchicalModel
from attunestats.hierarchical.recovery import (
    LatentTruth,
    recovery_table,
    true_quantities,
    truth_from_simulation,
)
from attunestats.hierarchical.spec import (
    DEFAULT_TERMS,
    LEGACY_TERMS,
    SCALE_FAMILIES,
    TERMS,
    ModelSpec,
)
from attunestats.hierarchical.summaries import (
    diagnosis_contrasts,
    parameter_summary,
    posterior_predictive_check,
    predictor_effects,
    topic_effects,
    turn_drift,
    variance_decomposition,
)
from attunestats.hierarchical.synthetic import SyntheticPanel, simulate_panel

__all__ = [
    "DEFAULT_TERMS",
    "LEGACY_TERMS",
    "PRIORS",
    "SCALE_FAMILIES",
    "TERMS",
    "ModelSpec",
    "FitResult",
    "HierarchicalModel",
    "LatentTruth",
    "SyntheticPanel",
    "diagnosis_contrasts",
    "parameter_summary",
    "posterior_predictive_check",
    "predictor_effects",
    "recovery_table",
    "simulate_panel",
    "topic_effects",
    "true_quantities",
    "truth_from_simulation",
    "turn_drift",
    "variance_decomposition",
    "behaviour_model",
    "behaviour_model_from_scores",
    "binomial_model",
    "bounded_model",
    "clear_compile_cache",
    "compare_structures",
    "log_likelihood",
    "loo",
    "predictive_data",
    "diagnose",
    "emotion_model",
    "emotion_model_from_scores",
    "fit",
    "holistic_model",
    "holistic_model_from_scores",
    "nutpie_available",
    "preference_model",
    "preference_model_from_scores",
]
