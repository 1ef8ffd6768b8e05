"""The capability-independence report: one table and a verdict per pair of capabilities.

Its heatmap is drawn by :func:`attunestats.report.independence.plot_independence`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin, format_number
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.independence._matrix import MetricMatrix, capability_matrix, label_frame
from attunestats.independence.correlation import CORRECTIONS, CorrelationResult, rank_correlations
from attunestats.independence.latent import LatentResult, latent_correlations
from attunestats.independence.reliability import (
    NoiseCorrectedResult,
    ReliabilityResult,
    noise_corrected_correlations,
    reliability,
)
from attunestats.independence.structure import (
    ComponentsResult,
    ConcordanceResult,
    metric_concordance,
    principal_components,
)

VERDICTS = ("independent", "weakly related", "related", "too noisy to tell")
BASES = ("disattenuated", "latent")


def verdict_from_interval(
    low: np.ndarray | float, high: np.ndarray | float, *, threshold: float
) -> np.ndarray:
    """Verdicts from an interval for a correlation.

    - ``"independent"``: the interval lies inside ``(-threshold, threshold)`` (an equivalence
      test: correlations as large as ``threshold`` are excluded);
    - ``"related"``: the interval excludes 0 and is not inside ``(-threshold, threshold)``;
    - ``"weakly related"``: the interval excludes 0 and lies inside ``(-threshold, threshold)``;
    - ``"too noisy to tell"``: the interval contains 0 and reaches past ``threshold`` (or is
      missing).
    """
    low = np.atleast_1d(np.asarray(low, dtype=float))
    high = np.atleast_1d(np.asarray(high, dtype=float))
    within = (low > -threshold) & (high < threshold)
    excludes0 = (low > 0) | (high < 0)
    out = np.full(low.shape, "too noisy to tell", dtype=object)
    out[excludes0] = "related"
    out[within] = "independent"
    out[within & excludes0] = "weakly related"
    out[~(np.isfinite(low) & np.isfinite(high))] = "too noisy to tell"
    return out


def verdict_from_posterior(
    prob_abs_below: np.ndarray | float,
    low: np.ndarray | float,
    high: np.ndarray | float,
    *,
    min_prob: float = 0.9,
) -> np.ndarray:
    """Verdicts from the latent model: ``"independent"`` when ``P(|rho| < threshold) > min_prob``,
    ``"related"`` when the credible interval excludes 0, ``"weakly related"`` when both,
    otherwise ``"too noisy to tell"``."""
    prob = np.atleast_1d(np.asarray(prob_abs_below, dtype=float))
    low = np.atleast_1d(np.asarray(low, dtype=float))
    high = np.atleast_1d(np.asarray(high, dtype=float))
    small = prob > min_prob
    excludes0 = (low > 0) | (high < 0)
    out = np.full(prob.shape, "too noisy to tell", dtype=object)
    out[excludes0] = "related"
    out[small] = "independent"
    out[small & excludes0] = "weakly related"
    return out


@dataclass(frozen=True, repr=False)
class IndependenceReport(ResultMixin):
    """Everything the independence analysis found, with one verdict per pair of capabilities.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per pair of capabilities: Kendall tau-b with its bootstrap interval and exact /
        permutation p-value (raw and adjusted), the Pearson correlation, the noise-corrected
        correlation with its population interval (and the interval for these models), the
        reliabilities, the latent posterior when fitted, and ``verdict`` with ``verdict_basis``.
        The tau interval and its p-value answer different questions, and columns
        ``<method>_ci_about`` and ``pvalue_about`` say which: the interval is about *these*
        models (participants or conversations resampled, models fixed), the p-value tests
        "no association" with the models as exchangeable units (their orderings permuted), so
        an interval that excludes 0 beside p > 0.05 is no contradiction: these models' scores
        are associated, but a dozen models cannot show it of models in general.
    global_tests : pandas.DataFrame
        Global quantities: the global independence test, Kendall's W across metrics and the
        first principal component's share, each against its permutation null.

    The heatmap of the report is :func:`attunestats.report.independence.plot_independence`.
    """

    _title = "Capability independence"

    table: pd.DataFrame
    global_tests: pd.DataFrame
    basis: str
    threshold: float
    correction: str
    confidence_level: float
    simulated: bool
    seed: int | str | None
    matrix: MetricMatrix = field(repr=False)
    correlations: CorrelationResult = field(repr=False)
    reliability: ReliabilityResult = field(repr=False)
    noise_corrected: NoiseCorrectedResult = field(repr=False)
    concordance: ConcordanceResult = field(repr=False)
    components: ComponentsResult = field(repr=False)
    latent: LatentResult | None = field(repr=False, default=None)

    def to_frame(self) -> pd.DataFrame:
        """The pair table (one row per pair of capabilities)."""
        return label_frame(self.table.copy(), self.simulated)

    def _estimand(self) -> str:
        return "correlation between capabilities of the models' scores, across models"

    def _method(self) -> str:
        if self.basis == "latent":
            return f"latent-skill model (Bayesian), verdict threshold |rho| < {self.threshold:g}"
        intervals = {"holm": "Bonferroni-simultaneous", "bh": "false-coverage-rate"}.get(
            self.correction, "per-pair"
        )
        return (
            f"noise-corrected (disattenuated) correlations with {intervals} intervals, verdict "
            f"threshold |rho| < {self.threshold:g}"
        )

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        frame = self.to_frame()
        method = self.correlations.method
        columns = ["capability_a", "capability_b", method, "pvalue_adjusted", "corrected",
                   "verdict_ci_low", "verdict_ci_high"]  # fmt: skip
        if self.basis == "latent":
            columns += ["latent_mean", "latent_ci_low", "latent_ci_high", "latent_prob_abs_below"]
        columns.append("verdict")
        meta = {**self._summary_meta(), "Models": str(self.matrix.n_models)}
        notes = [
            f"{row.quantity}: {format_number(row.statistic)}, permutation p = "
            f"{format_number(row.pvalue)}"
            for row in self.global_tests.itertuples()
        ]
        if "verdict_level" in frame and len(frame):
            level = float(frame["verdict_level"].iloc[0])
            notes.append(f"verdict_ci_low / verdict_ci_high: intervals at level {level:.4g}.")
        return self._title, meta, frame[[c for c in columns if c in frame]], notes


def _verdict_level(level: float, correction: str, adjusted: np.ndarray) -> float:
    """Level of the intervals behind the disattenuated verdicts, given the correction.

    ``"none"``: ``level``. ``"holm"``: Bonferroni-simultaneous intervals ``1 - alpha / m`` over
    the ``m`` pairs, so that with probability ``>= level`` no verdict is wrong. ``"bh"``:
    false-coverage-rate intervals ``1 - R alpha / m`` (Benjamini & Yekutieli 2005), with ``R``
    the number of pairs whose BH-adjusted pair test rejects (``R = 1`` when none does).
    """
    alpha = 1.0 - level
    m = len(adjusted)
    if correction == "none" or m <= 1:
        return level
    if correction == "holm":
        return 1.0 - alpha / m
    selected = max(1, int(np.sum(adjusted < alpha)))
    return 1.0 - selected * alpha / m


def _check_report_options(correction: Any, threshold: Any, basis: Any) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}; got {correction!r}")
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not (0 < threshold < 1)
    ):
        raise ValueError(f"threshold must be in (0, 1); got {threshold!r}")
    if basis is not None and basis not in BASES:
        raise ValueError(f"basis must be one of {BASES} or None; got {basis!r}")


def capability_independence(
    data: Any,
    *,
    correction: Literal["holm", "bh", "none"],
    threshold: float = 0.3,
    latent: bool | LatentResult = False,
    basis: Literal["disattenuated", "latent"] | None = None,
    method: Literal["kendall", "spearman", "pearson"] = "kendall",
    global_statistic_name: Literal["sum_sq", "max_abs"] = "sum_sq",
    n_permutations: int = 10_000,
    n_splits: int = 1000,
    confidence_level: float | None = None,
    latent_options: dict[str, Any] | None = None,
    rng: RNGLike = None,
    **matrix_options: Any,
) -> IndependenceReport:
    """The capability-independence report of a scored release (or a prepared matrix).

    Parameters
    ----------
    data : Scores or MetricMatrix
        Scores are turned into a matrix with :func:`capability_matrix` (``matrix_options``:
        ``metrics``, ``predictors``, ``kind``, ``unit``, ``n_resamples``, ...).
    correction : {"holm", "bh", "none"}
        Multiplicity correction of the pair tests; required, echoed in the table.
    threshold : float
        Correlations smaller than this in absolute value count as negligible ("independent").
    latent : bool or LatentResult
        Fit the latent-skill model (``latent_options`` go to :func:`latent_correlations`), or
        use a fit already made on the same matrix.
    basis : {"disattenuated", "latent"}, optional
        Which result the verdict uses (default: ``"latent"`` when it is fitted, else
        ``"disattenuated"``); both verdicts are in the table when both exist.
    method, global_statistic_name, n_permutations
        See :func:`rank_correlations`.
    n_splits : int
        Split-half repetitions of :func:`reliability`.
    confidence_level : float, optional
        Level of every interval and ``1 - alpha`` of the tests (default: the matrix's, 0.95).
    rng : int, Generator or SeedSequence, optional
        Root seed; each part uses its own child stream.

    Returns
    -------
    IndependenceReport

    Notes
    -----
    Verdict rules (``threshold`` t, default 0.3):

    ========================== ================================================================
    basis                      rule
    ========================== ================================================================
    disattenuated (default)    "independent" if the population interval of the noise-corrected
                               correlation lies inside (-t, t); "related" if it excludes 0;
                               "weakly related" if both; else "too noisy to tell"
    latent                     "independent" if P(abs(rho) < t) > 0.9; "related" if the HDI
                               excludes 0; "weakly related" if both; else "too noisy to tell"
    ========================== ================================================================

    The disattenuated verdicts follow the multiplicity correction: with ``"holm"`` they use
    Bonferroni-simultaneous intervals (level ``1 - alpha / m`` over the m pairs, so that with
    probability at least ``confidence_level`` no verdict is wrong), with ``"bh"``
    false-coverage-rate intervals (``1 - R alpha / m``, R = pairs rejected by the BH-adjusted pair
    tests; Benjamini & Yekutieli 2005), with ``"none"`` the per-pair intervals. The level used is
    the column ``verdict_level``; ``corrected_ci_low``/``corrected_ci_high`` stay per-pair. The
    latent verdicts are Bayesian statements under the stated prior and are not adjusted.
    """
    from attunestats.metrics.score import Scores

    _check_report_options(correction, threshold, basis)
    if not isinstance(latent, bool | LatentResult):
        raise TypeError(f"latent must be a bool or a LatentResult; got {type(latent).__name__}")
    streams = check_rng(rng).spawn(7)
    if isinstance(data, Scores):
        if confidence_level is not None:
            matrix_options.setdefault("confidence_level", confidence_level)
        # simultaneous verdict intervals reach far into the tails: 10,000 resamples by default
        matrix_options.setdefault("n_resamples", 10_000)
        matrix = capability_matrix(data, rng=streams[0], **matrix_options)
    elif isinstance(data, MetricMatrix):
        if matrix_options:
            raise TypeError(
                f"matrix options {sorted(matrix_options)} given, but data is already a "
                "MetricMatrix; pass Scores to build the matrix here"
            )
        matrix = data
    else:
        raise TypeError(f"data must be Scores or a MetricMatrix; got {type(data).__name__}")
    level = matrix.confidence_level if confidence_level is None else float(confidence_level)

    corr = rank_correlations(
        matrix, correction=correction, method=method,
        global_statistic_name=global_statistic_name, n_permutations=n_permutations,
        confidence_level=level, rng=streams[1],
    )  # fmt: skip
    rel = reliability(matrix, n_splits=n_splits, confidence_level=level, rng=streams[2])
    nc = noise_corrected_correlations(matrix, confidence_level=level, rng=streams[3])
    conc = metric_concordance(
        matrix, n_permutations=n_permutations, confidence_level=level, rng=streams[4]
    )
    comp = principal_components(
        matrix, n_permutations=n_permutations, confidence_level=level, rng=streams[5]
    )
    if isinstance(latent, LatentResult):
        lat: LatentResult | None = latent
        if list(lat.pairs["metric_a"]) != list(nc.pairs["metric_a"]) or list(
            lat.pairs["metric_b"]
        ) != list(nc.pairs["metric_b"]):
            raise ValueError("the latent fit was made on other metrics than this matrix")
    elif latent:
        lat = latent_correlations(
            matrix, threshold=threshold, rng=streams[6], **(latent_options or {})
        )
    else:
        lat = None
    basis = basis or ("latent" if lat is not None else "disattenuated")
    if basis == "latent" and lat is None:
        raise ValueError("basis='latent' needs latent=True or a LatentResult")

    cp, ncp = corr.pairs, nc.pairs
    table = pd.DataFrame(
        {
            "capability_a": cp["capability_a"],
            "capability_b": cp["capability_b"],
            "metric_a": cp["metric_a"],
            "metric_b": cp["metric_b"],
            f"{method}": cp["statistic"],
            f"{method}_ci_low": cp["ci_low"],
            f"{method}_ci_high": cp["ci_high"],
            f"{method}_ci_about": "these models (models fixed, "
            + cp["interval"].str.replace(", models fixed", "", regex=False)
            + ")",
            "pvalue": cp["pvalue"],
            "pvalue_method": cp["pvalue_method"],
            "pvalue_about": "no association across models (models exchangeable; "
            + cp["pvalue_method"]
            + " test over the models' orderings)",
            "pvalue_adjusted": cp["pvalue_adjusted"],
            "correction": correction,
            "pearson": ncp["observed"],
            "reliability_a": ncp["reliability_a"],
            "reliability_b": ncp["reliability_b"],
            "corrected": ncp["corrected"],
            "corrected_ci_low": ncp["ci_low"],
            "corrected_ci_high": ncp["ci_high"],
            "corrected_sample_ci_low": ncp["sample_ci_low"],
            "corrected_sample_ci_high": ncp["sample_ci_high"],
            "corrected_flag": ncp["flag"],
        }
    )
    verdict_level = _verdict_level(level, correction, cp["pvalue_adjusted"].to_numpy())
    vint = nc.intervals(verdict_level)
    table["verdict_level"] = verdict_level
    table["verdict_ci_low"] = vint["ci_low"].to_numpy()
    table["verdict_ci_high"] = vint["ci_high"].to_numpy()
    table["verdict_disattenuated"] = verdict_from_interval(
        vint["ci_low"].to_numpy(), vint["ci_high"].to_numpy(), threshold=threshold
    )
    if lat is not None:
        lp = lat.pairs
        table["latent_mean"] = lp["posterior_mean"].to_numpy()
        table["latent_ci_low"] = lp["ci_low"].to_numpy()
        table["latent_ci_high"] = lp["ci_high"].to_numpy()
        table["latent_prob_abs_below"] = lp["prob_abs_below"].to_numpy()
        table["latent_prior_prob_abs_below"] = lp["prior_prob_abs_below"].to_numpy()
        table["latent_diagnostics_passed"] = lp["diagnostics_passed"].to_numpy()
        table["verdict_latent"] = verdict_from_posterior(
            lp["prob_abs_below"].to_numpy(), lp["ci_low"].to_numpy(), lp["ci_high"].to_numpy()
        )
        if not lat.passed:
            table["verdict_latent"] = "not reported (MCMC diagnostics failed)"
    table["verdict"] = table[f"verdict_{basis}"]
    table["verdict_basis"] = basis
    table["threshold"] = float(threshold)
    table["confidence_level"] = level
    table["n_models"] = matrix.n_models
    table["simulated"] = matrix.simulated

    g = corr.global_test
    global_tests = pd.DataFrame(
        [
            {
                "quantity": f"global independence test ({g.statistic_name} of {g.method})",
                "statistic": g.statistic,
                "ci_low": np.nan,
                "ci_high": np.nan,
                "pvalue": g.pvalue,
                "null_mean": float(np.mean(g.null_distribution)),
            },
            {
                "quantity": "Kendall's W across metrics",
                "statistic": conc.statistic,
                "ci_low": conc.ci_low,
                "ci_high": conc.ci_high,
                "pvalue": conc.pvalue,
                "null_mean": float(np.mean(conc.null_distribution)),
            },
            {
                "quantity": "first principal component share",
                "statistic": comp.first_share,
                "ci_low": comp.ci_low,
                "ci_high": comp.ci_high,
                "pvalue": comp.pvalue,
                "null_mean": comp.null_mean,
            },
        ]
    )
    global_tests["n_models"] = matrix.n_models
    global_tests["n_metrics"] = matrix.n_metrics
    global_tests["n_permutations"] = n_permutations
    global_tests["confidence_level"] = level
    global_tests["simulated"] = matrix.simulated
    return IndependenceReport(
        table=label_frame(table, matrix.simulated),
        global_tests=label_frame(global_tests, matrix.simulated),
        basis=basis,
        threshold=float(threshold),
        correction=correction,
        confidence_level=level,
        simulated=matrix.simulated,
        seed=seed_record(rng),
        matrix=matrix,
        correlations=corr,
        reliability=rel,
        noise_corrected=nc,
        concordance=conc,
        components=comp,
        latent=lat,
    )
