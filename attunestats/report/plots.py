"""``result.plot()``: the figure of a result object, drawn in the report layer.

The statistics folders never import ``report``. Result objects that hold a figure still draw it
with ``.plot(**kwargs)``: :class:`attunestats._results.PlotMixin` (inherited by every result)
imports this module *inside* its ``plot`` method, the single allowed upward reference of the
package (``ARCHITECTURE.md``), and calls :func:`plot_result`, which looks the drawing function
up by the result's class in :data:`PLOTS`. The classes that have a figure are named in
:data:`attunestats._results.PLOTTABLE` (so that ``hasattr(result, "plot")`` is false for the
others without importing this module); ``tests/report/test_plots.py`` checks that the two lists
agree.

Every function returns a :class:`matplotlib.figure.Figure` marked "SIMULATED" when the result
is simulated; save it with :func:`attunestats.report.figures.save_figure`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from attunestats.report import baseline as _baseline
from attunestats.report import figures as _figures
from attunestats.report.independence import plot_independence
from attunestats.report.power import plot_power_curves, plot_sample_size

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PLOTS", "plot_comparison", "plot_estimates", "plot_power", "plot_result"]

COMPARISON_KINDS = ("ranks", "differences", "discrimination")


def _metric(frame: pd.DataFrame, metric: str | None, what: str) -> str:
    metrics = list(dict.fromkeys(frame["metric"].astype(str)))
    if metric is None:
        if not metrics:
            raise ValueError(f"{what} has no rows to plot")
        return "composite_score" if "composite_score" in metrics else metrics[0]
    if metric not in metrics:
        shown = ", ".join(metrics[:8]) + (", ..." if len(metrics) > 8 else "")
        raise ValueError(f"metric {metric!r} is not in {what} (metrics: {shown})")
    return metric


def plot_comparison(
    result: Any, *, metric: str | None = None, kind: str = "ranks", **kwargs: Any
) -> Figure:
    """The figure of a :class:`~attunestats.inference.compare.ComparisonResult`.

    ``kind="ranks"`` (default): each predictor's rank on ``metric`` with its marginal and
    simultaneous rank confidence sets (:func:`~attunestats.report.figures.rank_intervals`);
    ``"differences"``: every paired difference on ``metric`` with its interval (adjusted as the
    tests are), a dashed line at 0; ``"discrimination"``: the discrimination of every metric.
    ``metric`` defaults to ``composite_score`` (else the first metric). ``kwargs`` go to the
    drawing function (e.g. ``width``).
    """
    from attunestats.metrics.registry import display_name

    if kind not in COMPARISON_KINDS:
        raise ValueError(f"kind must be one of {COMPARISON_KINDS}, got {kind!r}")
    if kind == "discrimination":
        return _figures.discrimination_plot(
            result.discrimination, simulated=result.simulated, **kwargs
        )
    if kind == "ranks":
        metric = _metric(result.ranks, metric, "the rank table")
        ranks = result.ranks.assign(confidence_level=result.confidence_level)
        return _figures.rank_intervals(ranks, metric=metric, simulated=result.simulated, **kwargs)
    metric = _metric(result.pairs, metric, "the paired differences")
    pairs = result.pairs[result.pairs["metric"] == metric].copy()
    pairs["pair"] = pairs["predictor_a"].astype(str) + " - " + pairs["predictor_b"].astype(str)
    interval = str(pairs["interval"].iloc[0]) if "interval" in pairs.columns else ""
    level = f"{result.confidence_level:.0%}"
    return _figures.forest_plot(
        pairs, estimate="difference", label="pair", reference=0.0, simulated=result.simulated,
        xlabel=f"difference in {display_name(metric)} (A - B), {level} intervals",
        title=interval[:80], **kwargs,
    )  # fmt: skip


def plot_estimates(result: Any, *, metric: str | None = None, **kwargs: Any) -> Figure:
    """Each predictor's estimate on ``metric`` with its interval, for a
    :class:`~attunestats.inference.participants.ScoreInference` (default metric:
    ``composite_score``, else the first)."""
    from attunestats.metrics.registry import display_name

    frame = result.to_frame()
    metric = _metric(frame, metric, "the estimates")
    data = frame[frame["metric"] == metric]
    return _figures.forest_plot(
        data, simulated=result.simulated,
        xlabel=(f"{display_name(metric)}: {result.confidence_level:.0%} intervals "
                f"({result.method}, {result.n_participants} participants)"),
        **kwargs,
    )  # fmt: skip


def plot_power(result: Any, *, effect: float | None = None, target: float = 0.8) -> Figure:
    """Power against the number of conversations and of participants, for a simulated
    :class:`~attunestats.design.power.PowerResult` (:func:`~attunestats.report.power.plot_power_curves`;
    the results of ``release_power`` are drawn against their logit differences)."""
    frame = result.to_frame()
    if "effect" not in frame.columns and "logit_difference" in frame.columns:
        frame = frame.assign(effect=frame["logit_difference"])
    return plot_power_curves(frame, simulated=result.simulated, effect=effect, target=target)


def _rater_agreement(result: Any, **kwargs: Any) -> Figure:
    return _baseline.plot_rater_agreement(result.to_frame(), simulated=result.simulated, **kwargs)


def _rater_vs_participant(result: Any, **kwargs: Any) -> Figure:
    return _baseline.plot_rater_vs_participant(
        result.by_annotation, simulated=result.simulated, **kwargs
    )


def _humans_vs_models(result: Any, *, metric: str | None = None, **kwargs: Any) -> Figure:
    frame = result.by_metric if metric is None else result.comparisons
    return _baseline.plot_humans_vs_models(
        frame, simulated=result.simulated, metric=metric, **kwargs
    )


#: result class (``module.QualName``) -> the function drawing it (called as ``fn(result, **kw)``)
PLOTS: dict[str, Callable[..., Figure]] = {
    "attunestats.inference.compare.ComparisonResult": plot_comparison,
    "attunestats.inference.participants.ScoreInference": plot_estimates,
    "attunestats.design.power.curve.PowerResult": plot_power,
    "attunestats.design.power.required.SampleSizeResult": plot_sample_size,
    "attunestats.independence.report.IndependenceReport": plot_independence,
    "attunestats.baseline.agreement.RaterAgreementResult": _rater_agreement,
    "attunestats.baseline.agreement.ParticipantAgreementResult": _rater_vs_participant,
    "attunestats.baseline.comparison.HumansVsModelsResult": _humans_vs_models,
    "attunestats.baseline.claim.ClaimFResult": _baseline.plot_claim_f,
}


def plot_result(result: Any, **kwargs: Any) -> Figure:
    """Draw ``result`` with the function :data:`PLOTS` names for its class (or a base class)."""
    for cls in type(result).__mro__:
        draw = PLOTS.get(f"{cls.__module__}.{cls.__qualname__}")
        if draw is not None:
            return draw(result, **kwargs)
    raise TypeError(f"{type(result).__name__} has no figure (classes with one: {sorted(PLOTS)})")
