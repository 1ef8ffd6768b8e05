"""attunestats: statistics for the AttuneBench LLM emotional-intelligence benchmark.

Reads the official release files exactly, recomputes every metric, and puts honest uncertainty on
them (cluster bootstrap, paired comparisons, rank intervals, hierarchical Bayesian models,
inter-rater agreement, independence tests). Heavy dependencies (PyMC, matplotlib) are imported only
by the modules that need them, so ``import attunestats`` stays fast.

Releases written by the bundled simulator are *simulated*: numbers computed from them are not
findings about real models, and every table and figure built from them says so.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it (imported on first use)
_LAZY = {
    "Release": "attunestats.release.model",
    "LoadReport": "attunestats.release.model",
    "load_release": "attunestats.release.load",
    "simulate_release": "attunestats.release.simulate",
    "SimulationConfig": "attunestats.release.simulate",
    "bundled_release_path": "attunestats.release.bundled",
    "load_bundled_release": "attunestats.release.bundled",
    "score": "attunestats.metrics.score",
    "Scores": "attunestats.metrics.score",
    "ScoringOptions": "attunestats.metrics.conventions",
    "METRICS": "attunestats.metrics.registry",
    "MetricSpec": "attunestats.metrics.registry",
    "metric_names": "attunestats.metrics.registry",
    "register_metric": "attunestats.metrics.registry",
    "convention_sensitivity": "attunestats.metrics.sensitivity",
    "ConventionSensitivity": "attunestats.metrics.sensitivity",
    "write_scores": "attunestats.metrics.score",
    "bootstrap_scores": "attunestats.inference.bootstrap",
    "infer_scores": "attunestats.inference.participants",
    "sign_flip_test": "attunestats.inference.randomization",
    "ScoreInference": "attunestats.inference.participants",
    "krippendorff_alpha": "attunestats.agreement",
    "cohen_kappa": "attunestats.agreement",
    "fleiss_kappa": "attunestats.agreement",
    "gwet_ac1": "attunestats.agreement",
    "icc": "attunestats.agreement",
    "kendall_w": "attunestats.agreement",
    "rater_agreement": "attunestats.baseline",
    "rater_vs_participant": "attunestats.baseline",
    "humans_vs_models": "attunestats.baseline",
    "audit_claims": "attunestats.inference.claims",
    "compare_models": "attunestats.inference.compare",
    "ReleaseError": "attunestats.errors",
    "Problem": "attunestats.errors",
    "AttunestatsWarning": "attunestats.errors",
    "DiagnosticsError": "attunestats.errors",
}
_SUBMODULES = {
    "agreement", "artifacts", "baseline", "cli", "constants", "design", "errors", "hierarchical",
    "independence", "inference", "metrics", "release", "report",
}  # fmt: skip
# short aliases for the most used statistics modules: ``at.power``, ``at.studies``, ...
_ALIASES = {
    "power": "attunestats.design.power",
    "studies": "attunestats.design.studies",
    "coverage": "attunestats.design.coverage",
    "bootstrap": "attunestats.inference.bootstrap",
    "compare": "attunestats.inference.compare",
    "claims": "attunestats.inference.claims",
    "describe": "attunestats.release.describe",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"attunestats.{name}")
    if name in _ALIASES:
        return importlib.import_module(_ALIASES[name])
    raise AttributeError(f"module 'attunestats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES | set(_ALIASES))
