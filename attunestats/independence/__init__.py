"""Are the capabilities independent? Correlations of model rankings across metrics, honestly.

``attunestats.independence`` asks whether the capabilities (emotion recognition, behaviour
classification, preference prediction, holistic understanding, response quality) are really
independent across models, or only look so because the metrics are noisy:

- ``rank_correlations(matrix, correction=...)``: Kendall tau-b (or Spearman) between metrics across
  models, bootstrap intervals with the rankings recomputed inside each conversation resample,
  exact or permutation p-values per pair (multiplicity correction required and echoed) and a
  global test of independence (sum of squared correlations or max |tau|) against its permutation
  null;
- ``reliability(...)``: split-half (Spearman-Brown) and bootstrap reliability of each metric's model
  ranking; ``noise_corrected_correlations(...)``: disattenuated correlations with intervals for
  these models and for the population of models;
- ``latent_correlations(...)``: a PyMC model in which the models' true scores are multivariate
  normal with an LKJ prior on their correlation and the observed scores add the bootstrap noise
  covariance; posterior of each correlation and P(|rho| < 0.3), with the prior probability beside
  it and a diagnostics gate;
- ``metric_concordance`` (Kendall's W across metrics) and ``principal_components`` (first component's
  share of variance) against permutation nulls;
- ``capability_independence(scores, correction="holm")``: the report (one table, one heatmap with
  intervals) with, per pair of capabilities, the observed correlation, its interval, the
  noise-corrected value and a verdict: "independent" (interval inside (-0.3, 0.3)), "related",
  "weakly related" or "too noisy to tell".

What 11 models can and cannot show (measured with ``independence_power``, 400 simulated
benchmarks per cell, 5 metrics, Kendall tau, permutation tests at 5%; Monte Carlo SE <= 0.025):

| true correlation of skills | global test, 11 models, reliability 0.95 | 11 models, reliability 0.7 | 30 models, reliability 0.95 |
|---|---|---|---|
| 0 (size) | 0.04 | 0.04 | 0.05 |
| 0.3 | 0.34 | 0.17 | 0.78 |
| 0.5 | 0.69 | 0.42 | 0.99 |
| 0.7 | 0.95 | 0.71 | 1.00 |

A single pair's test at 11 models detects a true correlation of 0.5 only about a quarter of the
time (0.24; 0.14 at reliability 0.7), 0.7 half the time. So low observed rank correlations among
11 models are weak evidence of independence: a 95% interval for one correlation from 11 models
spans about +-0.55, and an equivalence statement ("|rho| < 0.3") needs on the order of a hundred
models. The package therefore reports most pairs of a paper-sized release as "too noisy to tell";
the paper's claim (a) is, at this size, not testable in the strong sense, only the global test
of *any* dependence has useful power when dependence is strong and metrics are reliable.
Noise makes it worse: lower reliability attenuates every correlation toward 0 (disattenuation
corrects the estimate, not the power).

May import: ``attunestats.metrics``, ``attunestats.inference``, ``attunestats.agreement`` and the
shared modules. Never ``report``, ``artifacts`` or ``cli`` (the report's heatmap is
:func:`attunestats.report.independence.plot_independence`).
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
    constant_metrics,
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
    "constant_metrics",
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
