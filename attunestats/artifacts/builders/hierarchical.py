"""Builders of notebook 05 (participant, diagnosis and topic effects): hierarchical models.

Four hierarchical Bayesian models of the evaluated models (binary OM accuracy, emotion F1,
pairwise preference accuracy, four-branch prediction error), each fitted once per build with the
build's MCMC seed and the default structure (:class:`attunestats.hierarchical.ModelSpec`;
notebooks 06 and 08 reuse the same fits). Every table and figure is built from every fit; rows
from a fit that failed the diagnostics gate carry ``diagnostics = "diagnostics failed"`` and a
``warning``, figures built from it say ``DIAGNOSTICS FAILED`` (:mod:`attunestats.report.hierarchical`),
and the fit is listed in the manifest (``Built.failed_fits``); a full (non-fast) build then
fails unless ``--allow-failed-fits`` (:mod:`attunestats.artifacts.reproduce`).

The structure comparison (PSIS-LOO, :func:`attunestats.hierarchical.compare_structures`) fits the
behaviour and preference outcomes with the candidate structures of :data:`CANDIDATES`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.artifacts.context import ArtefactContext, Built
from attunestats.errors import AttunestatsWarning, NotApplicable, warn
from attunestats.report import figures as report_figures
from attunestats.report import hierarchical as report

#: The ``diagnostics`` value of rows built from a fit that failed the gate (as in
#: :data:`attunestats.hierarchical.summaries.FAILED`).
FAILED = "diagnostics failed"
#: The models of the build, in the order they are reported.
MODELS = ("behaviour", "emotion", "preference", "holistic")
SHORT = {"behaviour": "OM accuracy", "emotion": "emotion F1", "preference": "preference",
         "holistic": "four-branch"}  # fmt: skip
#: Structures compared by PSIS-LOO, per outcome (label -> structure string): the default and
#: the terms of issue 6 (one extra fit per outcome; each fit of the paper-sized release costs
#: minutes in a full build). Pointwise LOO compares fits of the same observed cells, so both
#: keep the default's ``item`` term (question effects split the preference cells by question).
CANDIDATES = {
    "behaviour": {"default": "default", "without overdispersion": "default - overdispersion",
                  "issue-6 terms": "legacy + item"},
    "preference": {"default": "default", "without overdispersion": "default - overdispersion",
                   "issue-6 terms": "legacy + item"},
}  # fmt: skip


def _mode(scores: Any, evaluated: list[str]) -> str | None:
    """The prediction mode the models are fitted in: the evaluated models' one mode (human raters'
    modes do not count); with several, ``"default"`` when present, else the first, with a warning."""
    conv = scores.conversation
    modes = sorted(
        conv.loc[conv["predictor"].isin(evaluated), "mode"].dropna().astype(str).unique()
    )
    if len(modes) <= 1:
        return modes[0] if modes else None
    chosen = "default" if "default" in modes else modes[0]
    warn(
        f"the evaluated models have several prediction modes {modes}; the hierarchical models "
        f"use mode {chosen!r}",
        AttunestatsWarning,
    )
    return chosen


def model(ctx: ArtefactContext, name: str, structure: str = "default") -> Any:
    """The hierarchical model ``name`` of the evaluated models (the claims are about models)."""
    from attunestats import hierarchical as H

    def make() -> Any:
        scores = ctx.scores
        evaluated = scores.names("model")
        opts = {"predictors": evaluated, "structure": structure, "mode": _mode(scores, evaluated)}
        if name == "behaviour":
            return H.behaviour_model_from_scores(scores, task="om", **opts)
        if name == "emotion":
            return H.emotion_model_from_scores(scores, metric="emotion_f1", **opts)
        if name == "preference":
            return H.preference_model_from_scores(scores, **opts)
        if name == "holistic":
            return H.holistic_model_from_scores(scores, metric="four_branch_mae", **opts)
        raise KeyError(f"no hierarchical model {name!r}; known: {MODELS}")

    key = ("hierarchical_model", ctx.release.checksum, name, structure)
    return ctx.memo(key, make, persist=False)


def fit(ctx: ArtefactContext, name: str, structure: str = "default") -> Any:
    """The fit of model ``name`` with the build's MCMC seed and settings (once per build).

    A fit that fails the diagnostics gate is fitted again up to ``mcmc_retries`` times (full
    build: once, with twice the tuning steps and draws; fast build: never; see
    ``hierarchical.fit(retries=...)``), with a warning; the last attempt is reported, passed or
    not, and ``05_fit_diagnostics`` says what failed before (``attempts``, ``earlier_attempts``).
    Deterministic given the build's seed. Why: at the full build's 4 x 2,000 draws the slowest
    scales (``sigma_item``, ``sigma_topic``, ``sigma_predictor_conversation``) sit near the
    gate's thresholds and which fit fails narrowly depends on the seed (benchmarks/RESULTS.md).

    Finished fits also go to the build's fit cache (``hierarchical.fit(cache_dir=...)``), where
    notebooks executed by ``reproduce --notebooks`` find them.
    """
    from attunestats import hierarchical as H

    draws, tune = ctx.setting("mcmc_draws"), ctx.setting("mcmc_tune")
    chains, seed = ctx.setting("mcmc_chains"), ctx.mcmc_seed
    retries = int(ctx.setting("mcmc_retries"))
    key = ("hierarchical_fit", ctx.release.checksum, name, structure, draws, tune, chains, seed,
           retries)  # fmt: skip
    return ctx.memo(key, lambda: H.fit(model(ctx, name, structure), draws=draws, tune=tune,
                                       chains=chains, rng=seed, cache_dir=ctx.fit_cache,
                                       progress_bar=False, retries=retries),
                    persist=False)  # fmt: skip


def fits(ctx: ArtefactContext, names: tuple[str, ...] = MODELS) -> dict[str, Any]:
    """Every fit of ``names``, passed or not (rows of failed ones are stamped)."""
    return {name: fit(ctx, name) for name in names}


def failed(fitted: dict[str, Any]) -> tuple[str, ...]:
    """One line per fit that failed the gate: ``name (outcome): first failures``."""
    return tuple(f"{name} ({f.model.outcome}): {f._first_failures(3)}"
                 for name, f in fitted.items() if not f.passed)  # fmt: skip


def overview(fitted: dict[str, Any], *, structure: bool = False) -> pd.DataFrame:
    """One row per fit (:meth:`FitResult.overview`) with the ``diagnostics`` column of the
    summaries (``"passed"`` or ``"diagnostics failed"``), so a failed fit's row says so in
    words, as every other table built from it does."""
    rows = [dict(f.overview(), **({"structure": str(f.model.spec)} if structure else {}),
                 diagnostics="passed" if f.passed else FAILED)
            for f in fitted.values()]  # fmt: skip
    return pd.DataFrame(rows)


def posterior_note(frame: pd.DataFrame) -> str:
    """The figure note of a posterior summary (:func:`attunestats.report.figures.figure_note`):
    model, posterior means, the level of their equal-tailed intervals (``ci_prob``), estimand."""
    from attunestats.report.figures import figure_note

    probs = frame["ci_prob"].dropna().unique() if "ci_prob" in frame.columns else []
    level = f"{float(probs[0]):.0%} " if len(probs) == 1 else ""
    return figure_note(text=f"Method: hierarchical Bayesian model (MCMC); posterior means with "
                            f"{level}equal-tailed posterior intervals. Estimand: the model's "
                            "population-level quantities (participants, topics and "
                            "conversations as random effects)")  # fmt: skip


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True)


def _names(fitted: dict[str, Any]) -> dict[str, str]:
    return {f.model.outcome: SHORT.get(name, name) for name, f in fitted.items()}


def fit_diagnostics(ctx: ArtefactContext) -> Built:
    fitted = fits(ctx)
    table = overview(fitted, structure=True)
    caption = ("MCMC fits: sampler, settings, diagnostics gate (r_hat <= 1.01, bulk and tail ESS "
               ">= 400, no divergence), worst R-hat and ESS, divergences, structure")  # fmt: skip
    return ctx.built(ctx.table("05_fit_diagnostics", table, caption),
                     failed_fits=failed(fitted))  # fmt: skip


def _variance(ctx: ArtefactContext) -> pd.DataFrame:
    from attunestats import hierarchical as H

    return _concat([H.variance_decomposition(f, accept_failed_diagnostics=True)
                    for f in fits(ctx).values()])  # fmt: skip


def variance_decomposition(ctx: ArtefactContext) -> Built:
    ctx.setting("accept_failed_fits")
    fitted = fits(ctx)
    variance = _variance(ctx)
    short = _names(fitted)
    effects = variance[~variance["component"].str.startswith("residual")]
    fig = report.forest(
        effects.assign(label=effects["outcome"].map(short) + ": " + effects["component"]),
        estimate="share", low="share_ci_low", high="share_ci_high", label="label", sort=False,
        xlabel="share of random-effect variance (logit scale)", simulated=ctx.simulated,
    )  # fmt: skip
    caption = "Share of latent variance from each random effect (94% intervals)"
    return ctx.built(ctx.table("05_variance_decomposition", variance, caption),
                     ctx.figure("05_variance_decomposition", fig, note=posterior_note(effects)),
                     failed_fits=failed(fitted))  # fmt: skip


def _topics(ctx: ArtefactContext) -> pd.DataFrame:
    from attunestats import hierarchical as H

    fitted = [f for f in fits(ctx).values() if f.model.has_topic_effect]
    if not fitted:
        raise NotApplicable("the release has a single topic: no topic effects")
    return _concat([H.topic_effects(f, accept_failed_diagnostics=True) for f in fitted])


def topic_effects(ctx: ArtefactContext) -> Built:
    ctx.setting("accept_failed_fits")
    caption = "Topic effects (logit, vs the average topic), 94% intervals, P(hardest topic)"
    return ctx.built(ctx.table("05_topic_effects", _topics(ctx), caption),
                     failed_fits=failed(fits(ctx)))  # fmt: skip


def hardest_topics_behaviour(ctx: ArtefactContext) -> Built:
    ctx.setting("accept_failed_fits")
    beh = fit(ctx, "behaviour")
    topics = _topics(ctx)
    hardest = topics[topics["outcome"] == beh.model.outcome].nsmallest(15, "mean")
    fig = report.forest(hardest, estimate="mean", low="ci_low", high="ci_high", label="topic",
                        reference=0.0, xlabel="topic effect on OM accuracy (logit), 15 lowest",
                        simulated=ctx.simulated)  # fmt: skip
    return ctx.built(ctx.figure("05_hardest_topics_behaviour", fig, note=posterior_note(hardest)),
                     failed_fits=failed({"behaviour": beh}))  # fmt: skip


def diagnosis_contrasts(ctx: ArtefactContext) -> Built:
    from attunestats import hierarchical as H

    ctx.setting("accept_failed_fits")
    fitted = fits(ctx)
    contrasts = _concat([H.diagnosis_contrasts(f, accept_failed_diagnostics=True)
                         for f in fitted.values()])  # fmt: skip
    short = _names(fitted)
    avg = contrasts[contrasts["predictor"] == "(average)"]
    fig = report.forest(
        avg.assign(label=avg["outcome"].map(short) + ": " + avg["group"] + " - " + avg["reference"]),
        estimate="difference", low="difference_ci_low", high="difference_ci_high", label="label",
        reference=0.0, sort=False, xlabel="difference from reference group (accuracy or score)",
        simulated=ctx.simulated,
    )  # fmt: skip
    caption = ("Diagnosis-group contrasts per predictor against the reference group "
               "(94% intervals; population of participants)")  # fmt: skip
    return ctx.built(ctx.table("05_diagnosis_contrasts", contrasts, caption),
                     ctx.figure("05_diagnosis_contrasts", fig, note=posterior_note(avg)),
                     failed_fits=failed(fitted))  # fmt: skip


def _adjusted(ctx: ArtefactContext) -> pd.DataFrame:
    from attunestats import hierarchical as H

    return _concat([H.predictor_effects(f, accept_failed_diagnostics=True)
                    for f in fits(ctx).values()])  # fmt: skip


def adjusted_predictor_effects(ctx: ArtefactContext) -> Built:
    ctx.setting("accept_failed_fits")
    caption = "Predictor effects adjusted for participant, topic, conversation and diagnosis"
    return ctx.built(ctx.table("05_adjusted_predictor_effects", _adjusted(ctx), caption),
                     failed_fits=failed(fits(ctx)))  # fmt: skip


def adjusted_behaviour_accuracy(ctx: ArtefactContext) -> Built:
    ctx.setting("accept_failed_fits")
    beh = fit(ctx, "behaviour")
    adjusted = _adjusted(ctx)
    rows = adjusted[adjusted["outcome"] == beh.model.outcome]
    fig = report.forest(rows, estimate="adjusted_mean", low="adjusted_ci_low",
                        high="adjusted_ci_high", label="predictor",
                        xlabel="adjusted binary OM accuracy (0-1)", simulated=ctx.simulated)  # fmt: skip
    return ctx.built(ctx.figure("05_adjusted_behaviour_accuracy", fig, note=posterior_note(rows)),
                     failed_fits=failed({"behaviour": beh}))  # fmt: skip


def posterior_predictive_checks(ctx: ArtefactContext) -> Built:
    from attunestats import hierarchical as H

    ctx.setting("accept_failed_fits")
    fitted = fits(ctx)
    ppc = _concat([H.posterior_predictive_check(f, rng=ctx.seed, accept_failed_diagnostics=True)
                   for f in fitted.values()])  # fmt: skip
    fig = report.ppc_plot(ppc, simulated=ctx.simulated, names=_names(fitted))
    note = ("Model check (no estimand): each statistic of the data against the same statistic "
            f"of data replicated from {int(ppc['n_draws'].max())} posterior draws of the "
            "hierarchical Bayesian model (MCMC); grey: the replicated range")  # fmt: skip
    caption = ("Posterior predictive checks: observed statistic against its replicated "
               "distribution (ppp near 0 or 1 flags misfit)")  # fmt: skip
    return ctx.built(ctx.table("05_posterior_predictive_checks", ppc, caption),
                     ctx.figure("05_posterior_predictive_checks", fig,
                                note=report_figures.figure_note(text=note)),
                     failed_fits=failed(fitted))  # fmt: skip


def structure_comparison(ctx: ArtefactContext) -> Built:
    """PSIS-LOO of the candidate structures (:data:`CANDIDATES`) of two outcomes."""
    from attunestats import hierarchical as H

    ctx.setting("accept_failed_fits")
    frames, used = [], {}
    for name, structures in CANDIDATES.items():
        fitted = {label: fit(ctx, name, s) for label, s in structures.items()}
        used.update({f"{name} [{label}]": f for label, f in fitted.items()})
        frames.append(H.compare_structures(fitted).assign(model=name))
    table = _concat(frames)
    names = {f.model.outcome: SHORT[k.split(" [")[0]] for k, f in used.items()}
    fig = report.loo_plot(table, simulated=ctx.simulated, names=names)
    note = ("Model comparison (no estimand): PSIS-LOO expected log predictive density of each "
            "structure of the hierarchical Bayesian model (MCMC), cells left out one at a time; "
            "bars: +-1 SE of the difference from the best")  # fmt: skip
    caption = ("PSIS-LOO comparison of model structures (elpd difference from the best and its "
               "standard error; cells left out one at a time)")  # fmt: skip
    return ctx.built(ctx.table("05_structure_comparison", table, caption),
                     ctx.figure("05_structure_comparison", fig,
                                note=report_figures.figure_note(text=note)),
                     failed_fits=failed(used))  # fmt: skip
