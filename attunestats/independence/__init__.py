"""Are the capabilities independent? Correlations of model rankings across metrics, honestly.

(The full documentation section is written at the end of the work; see below.)
"""

from __future__ import annotations

from attunestats.independence._matrix import (
    DEFAULT_METRICS,
    MetricMatrix,
    capability_matrix,
    metric_matrix,
)
from attunestats.independence.correlation import (
    CorrelationResult,
    GlobalTest,
    permutation_pvalue,
    rank_correlations,
)
from attunestats.independence.latent import (
    Diagnostics,
    LatentResult,
    latent_correlations,
    prior_prob_abs_below,
)
from attunestats.independence.reliability import (
    NoiseCorrectedResult,
    ReliabilityResult,
    noise_corrected_correlations,
    noise_covariance,
    reliability,
)
from attunestats.independence.report import (
    VERDICTS,
    IndependenceReport,
    capability_independence,
    verdict_from_interval,
    verdict_from_posterior,
)
from attunestats.independence.simulation import (
    PowerResult,
    SimulatedValues,
    independence_power,
    simulate_metric_values,
)
from attunestats.independence.structure import (
    ComponentsResult,
    ConcordanceResult,
    metric_concordance,
    principal_components,
)

__all__ = [
    "DEFAULT_METRICS",
    "VERDICTS",
    "ComponentsResult",
    "ConcordanceResult",
    "CorrelationResult",
    "Diagnostics",
    "GlobalTest",
    "IndependenceReport",
    "LatentResult",
    "MetricMatrix",
    "NoiseCorrectedResult",
    "PowerResult",
    "ReliabilityResult",
    "SimulatedValues",
    "capability_independence",
    "capability_matrix",
    "independence_power",
    "latent_correlations",
    "metric_concordance",
    "metric_matrix",
    "noise_corrected_correlations",
    "noise_covariance",
    "permutation_pvalue",
    "principal_components",
    "prior_prob_abs_below",
    "rank_correlations",
    "reliability",
    "simulate_metric_values",
    "verdict_from_interval",
    "verdict_from_posterior",
]
