"""Every AttuneBench metric (spec sections 2 and 3), vectorised, in tidy long tables.

- :func:`score` scores a release: ``Scores`` with turn-, conversation- and predictor-level tables.
- :class:`ScoringOptions`: the scoring conventions of spec section 4 (recorded with every output).
- :data:`METRICS`: the metric registry (one :class:`MetricSpec` per metric); see
  :mod:`attunestats.metrics.registry` for how to add a metric.
- :func:`convention_sensitivity`: how much each convention moves each predictor's composite.
- :func:`write_scores`: the tables as CSV/Parquet plus a per-predictor summary JSON.

May import: ``attunestats.release`` (the Release tables it scores) and the shared modules.
Never a statistics package, ``report``, ``artifacts`` or ``cli``.
"""

from __future__ import annotations

from attunestats.metrics.composite import composite_components, composite_z
from attunestats.metrics.conventions import CONVENTIONS, ScoringOptions, round_display
from attunestats.metrics.registry import (
    MAIN_METRICS,
    METRICS,
    PILLAR_METRICS,
    MetricContext,
    MetricSpec,
    metric_names,
    metrics_frame,
    pooled_statistic,
    register_metric,
    unregister_metric,
)
from attunestats.metrics.score import Scores, score, summary_dict, write_scores
from attunestats.metrics.sensitivity import ConventionSensitivity, convention_sensitivity

__all__ = [
    "CONVENTIONS",
    "ConventionSensitivity",
    "MAIN_METRICS",
    "METRICS",
    "PILLAR_METRICS",
    "MetricContext",
    "MetricSpec",
    "Scores",
    "ScoringOptions",
    "composite_components",
    "composite_z",
    "convention_sensitivity",
    "metric_names",
    "metrics_frame",
    "pooled_statistic",
    "register_metric",
    "round_display",
    "score",
    "summary_dict",
    "unregister_metric",
    "write_scores",
]
