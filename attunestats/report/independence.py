"""Figure of the capability-independence report (:mod:`attunestats.independence`, notebook 04)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attunestats.report.figures import PAGE_WIDTH, heatmap
from attunestats.report.hierarchical import stamp_failed

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attunestats.independence import IndependenceReport

__all__ = ["plot_independence"]


def plot_independence(report: IndependenceReport, *, width: float | None = None) -> Figure:
    """Heatmap of the correlations the verdicts of ``report`` use, each cell with its interval.

    Drawn with :func:`attunestats.report.figures.heatmap`: noise-corrected correlations with
    their population intervals (``basis="disattenuated"``) or latent posterior means with
    their credible intervals (``basis="latent"``). A latent fit that failed its MCMC
    diagnostics is drawn, and the figure is stamped ``DIAGNOSTICS FAILED``
    (:func:`attunestats.report.hierarchical.stamp_failed`), as the table's verdicts say.

    Parameters
    ----------
    report : IndependenceReport
        From :func:`attunestats.independence.capability_independence`.
    width : float, optional
        Figure width in inches (default: the page width).
    """
    if report.basis == "latent" and report.latent is not None:
        matrix = report.latent.posterior_mean_matrix
        low, high = report.latent.ci_low_matrix, report.latent.ci_high_matrix
        label = f"latent correlation ({report.latent.ci_prob:.0%} HDI)"
    else:
        nc = report.noise_corrected
        matrix, low, high = nc.corrected_matrix, nc.ci_low_matrix, nc.ci_high_matrix
        label = f"noise-corrected correlation ({report.confidence_level:.0%} interval)"
    fig = heatmap(
        matrix,
        low=low,
        high=high,
        colorbar_label=label,
        title=f"Capability independence across {report.matrix.n_models} models",
        simulated=report.simulated,
        width=PAGE_WIDTH if width is None else width,
    )
    if report.basis == "latent" and report.latent is not None and not report.latent.passed:
        stamp_failed(fig, ["latent correlations"])
    return fig
