"""Builders of notebook 04 (metric independence): the capability-independence report.

Are the capabilities really independent, or do they only look so because the metrics are noisy?
Rank correlations across models with bootstrap intervals and permutation tests, noise-corrected
correlations, a latent-skill model, Kendall's W and principal components against permutation
nulls (:func:`attunestats.independence.capability_independence`). The models' scores are
resampled by participant (the participant cluster bootstrap): the noise the correlations are
corrected for is the noise of a new study's participants.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.artifacts.context import ArtefactContext, Built


def report(ctx: ArtefactContext) -> Any:
    """The independence report with this artefact's seed and settings (once per build)."""
    from attunestats import independence as ind

    settings = {k: ctx.setting(k) for k in ("n_resamples", "n_permutations", "n_splits",
                                            "mcmc_draws", "mcmc_tune", "mcmc_chains")}  # fmt: skip
    key = ("capability_independence", ctx.release.checksum, ctx.seed, *sorted(settings.items()))

    def compute() -> Any:
        return ind.capability_independence(
            ctx.scores, correction="holm", latent=True,
            latent_options=dict(draws=settings["mcmc_draws"], tune=settings["mcmc_tune"],
                                chains=settings["mcmc_chains"], on_failure="flag"),
            n_resamples=settings["n_resamples"], n_permutations=settings["n_permutations"],
            n_splits=settings["n_splits"], rng=ctx.seed, unit="participant",
        )  # fmt: skip

    return ctx.memo(key, compute)


def failed_fits(rep: Any) -> tuple[str, ...]:
    """The latent-skill fit behind the verdicts, when it failed its MCMC diagnostics (its rows
    say ``not reported (MCMC diagnostics failed)``, the figure is stamped)."""
    if rep.basis != "latent" or rep.latent is None or rep.latent.passed:
        return ()
    problems = "; ".join(rep.latent.diagnostics.problems)
    return (f"latent correlations (capability independence): {problems}",)


def _with_latent_level(rep: Any) -> pd.DataFrame:
    """The pair table with ``latent_level`` (the probability of the latent HDIs, 0.94) after
    ``latent_ci_high``: the table's ``confidence_level`` (0.95) is not theirs, and the LaTeX
    header names the level of an interval from its ``<x>_level`` column."""
    table = rep.to_frame()
    if rep.latent is None or "latent_ci_high" not in table.columns:
        return table
    table.insert(table.columns.get_loc("latent_ci_high") + 1, "latent_level",
                 float(rep.latent.ci_prob))  # fmt: skip
    return table


def capability_independence(ctx: ArtefactContext) -> Built:
    from attunestats.report.figures import figure_note
    from attunestats.report.independence import plot_independence

    rep = report(ctx)
    caption = ("Capability independence: correlations, intervals (participants resampled), "
               "noise-corrected values, verdicts")  # fmt: skip
    return ctx.built(
        ctx.table("04_capability_independence", _with_latent_level(rep), caption),
        ctx.figure(
            "04_capability_independence",
            plot_independence(rep),
            note=figure_note(text=f"Estimand: {rep._estimand()}. Method: {rep._method()}"),
        ),  # fmt: skip
        failed_fits=failed_fits(rep),
    )


def global_tests(ctx: ArtefactContext) -> Built:
    caption = ("Global independence test, Kendall's W across metrics, first principal "
               "component")  # fmt: skip
    return ctx.built(ctx.table("04_global_tests", report(ctx).global_tests, caption))
