"""Builders of notebook 05 (participant, diagnosis and topic effects): hierarchical models.

Four hierarchical Bayesian models of the evaluated models (binary OM accuracy, emotion F1,
pairwise preference accuracy, four-branch prediction error), each fitted once per build with the
build's MCMC seed (:func:`fit`; notebooks 06 and 08 reuse the same fits). A fit's summaries are
reported only when it passes the diagnostics gate; fast mode runs chains too short for the gate
and accepts the fits with a ``warning`` column (setting ``accept_failed_fits``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from attunestats.artifacts.context import ArtefactContext, Built
from attunestats.report import figures

#: The models of the build, in the order they are reported.
MODELS = ("behaviour", "emotion", "preference", "holistic")


def model(ctx: ArtefactContext, name: str) -> Any:
    """The hierarchical model ``name`` of the evaluated models (the claims are about models)."""
    from attunestats import hierarchical as H

    def make() -> Any:
        scores = ctx.scores
        evaluated = scores.names("model")
        if name == "behaviour":
            return H.behaviour_model_from_scores(scores, task="om", predictors=evaluated)
        if name == "emotion":
            return H.emotion_model_from_scores(scores, metric="emotion_f1", predictors=evaluated)
        if name == "preference":
            return H.preference_model_from_scores(scores, predictors=evaluated)
        if name == "holistic":
            return H.holistic_model_from_scores(scores, metric="four_branch_mae",
                                                predictors=evaluated)  # fmt: skip
        raise KeyError(f"no hierarchical model {name!r}; known: {MODELS}")

    return ctx.memo(("hierarchical_model", ctx.release.checksum, name), make, persist=False)


def fit(ctx: ArtefactContext, name: str) -> Any:
    """The fit of model ``name`` with the build's MCMC seed and settings (once per build).

    Finished fits also go to the build's fit cache (``hierarchical.fit(cache_dir=...)``), where
    notebooks executed by ``reproduce --notebooks`` find them.
    """
    from attunestats import hierarchical as H

    draws, tune = ctx.setting("mcmc_draws"), ctx.setting("mcmc_tune")
    chains, seed = ctx.setting("mcmc_chains"), ctx.mcmc_seed
    key = ("hierarchical_fit", ctx.release.checksum, name, draws, tune, chains, seed)
    return ctx.memo(key, lambda: H.fit(model(ctx, name), draws=draws, tune=tune, chains=chains,
                                       rng=seed, cache_dir=ctx.fit_cache),
                    persist=False)  # fmt: skip


def usable_fits(ctx: ArtefactContext, names: tuple[str, ...] = MODELS) -> dict[str, Any]:
    """Fits that pass the gate (full mode) or every fit (fast mode, with a warning column)."""
    accept = ctx.setting("accept_failed_fits")
    fits = {name: fit(ctx, name) for name in names}
    return {name: f for name, f in fits.items() if f.passed or accept}


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame | None:
    return pd.concat(frames) if frames else None


_NO_FIT = "no hierarchical fit passed the diagnostics gate (see 05_fit_diagnostics)"


def _short_names(ok: dict[str, Any]) -> dict[str, str]:
    return {f.model.outcome: name for name, f in ok.items()}


def fit_diagnostics(ctx: ArtefactContext) -> Built:
    overview = pd.DataFrame([fit(ctx, name).overview() for name in MODELS])
    caption = ("MCMC fits: sampler, settings, diagnostics gate, worst R-hat and ESS, "
               "divergences")  # fmt: skip
    return ctx.built(ctx.table("05_fit_diagnostics", overview, caption))


def _variance(ctx: ArtefactContext) -> pd.DataFrame | None:
    from attunestats import hierarchical as H

    accept = ctx.setting("accept_failed_fits")
    ok = usable_fits(ctx)
    return _concat([H.variance_decomposition(f, accept_failed_diagnostics=accept)
                    for f in ok.values()])  # fmt: skip


def variance_decomposition(ctx: ArtefactContext) -> Built:
    variance = _variance(ctx)
    if variance is None:
        return ctx.built(ctx.skip("05_variance_decomposition", "table", _NO_FIT),
                         ctx.skip("05_variance_decomposition", "figure", _NO_FIT))  # fmt: skip
    short = _short_names(usable_fits(ctx))
    effects = variance[~variance["component"].str.startswith("residual")]
    fig = figures.forest_plot(
        effects.assign(label=effects["outcome"].map(short) + ": " + effects["component"]),
        estimate="share", low="share_ci_low", high="share_ci_high", label="label", sort=False,
        xlabel="share of random-effect variance (logit scale)", simulated=ctx.simulated,
    )  # fmt: skip
    caption = "Share of latent variance from participant, topic and conversation (94% intervals)"
    return ctx.built(ctx.table("05_variance_decomposition", variance, caption),
                     ctx.figure("05_variance_decomposition", fig))  # fmt: skip


def _topics(ctx: ArtefactContext) -> pd.DataFrame | None:
    from attunestats import hierarchical as H

    accept = ctx.setting("accept_failed_fits")
    ok = usable_fits(ctx)
    return _concat([H.topic_effects(f, accept_failed_diagnostics=accept) for f in ok.values()
                    if f.model.has_topic_effect])  # fmt: skip


def topic_effects(ctx: ArtefactContext) -> Built:
    topics = _topics(ctx)
    if topics is None:
        return ctx.built(ctx.skip("05_topic_effects", "table", _NO_FIT))
    caption = "Topic effects (logit, vs the average topic), 94% intervals, P(hardest topic)"
    return ctx.built(ctx.table("05_topic_effects", topics, caption))


def hardest_topics_behaviour(ctx: ArtefactContext) -> Built:
    ok = usable_fits(ctx)
    topics = _topics(ctx)
    if "behaviour" not in ok or topics is None:
        reason = "the behaviour model did not pass the diagnostics gate"
        return ctx.built(ctx.skip("05_hardest_topics_behaviour", "figure", reason))
    hardest = topics[topics["outcome"] == ok["behaviour"].model.outcome].nsmallest(15, "mean")
    fig = figures.forest_plot(hardest, estimate="mean", label="topic", reference=0.0,
                              xlabel="topic effect on OM accuracy (logit), 15 lowest",
                              simulated=ctx.simulated)  # fmt: skip
    return ctx.built(ctx.figure("05_hardest_topics_behaviour", fig))


def diagnosis_contrasts(ctx: ArtefactContext) -> Built:
    from attunestats import hierarchical as H

    accept = ctx.setting("accept_failed_fits")
    ok = usable_fits(ctx)
    contrasts = _concat([H.diagnosis_contrasts(f, accept_failed_diagnostics=accept)
                         for f in ok.values()])  # fmt: skip
    if contrasts is None:
        return ctx.built(ctx.skip("05_diagnosis_contrasts", "table", _NO_FIT),
                         ctx.skip("05_diagnosis_contrasts", "figure", _NO_FIT))  # fmt: skip
    short = _short_names(ok)
    avg = contrasts[contrasts["predictor"] == "(average)"]
    fig = figures.forest_plot(
        avg.assign(label=avg["outcome"].map(short) + ": " + avg["group"] + " - " + avg["reference"]),
        estimate="difference", low="difference_ci_low", high="difference_ci_high", label="label",
        reference=0.0, sort=False, xlabel="difference from reference group (accuracy or score)",
        simulated=ctx.simulated,
    )  # fmt: skip
    caption = ("Diagnosis-group contrasts per predictor against the reference group "
               "(94% intervals)")  # fmt: skip
    return ctx.built(ctx.table("05_diagnosis_contrasts", contrasts, caption),
                     ctx.figure("05_diagnosis_contrasts", fig))  # fmt: skip


def _adjusted(ctx: ArtefactContext) -> pd.DataFrame | None:
    from attunestats import hierarchical as H

    accept = ctx.setting("accept_failed_fits")
    ok = usable_fits(ctx)
    return _concat([H.predictor_effects(f, accept_failed_diagnostics=accept)
                    for f in ok.values()])  # fmt: skip


def adjusted_predictor_effects(ctx: ArtefactContext) -> Built:
    adjusted = _adjusted(ctx)
    if adjusted is None:
        return ctx.built(ctx.skip("05_adjusted_predictor_effects", "table", _NO_FIT))
    caption = "Predictor effects adjusted for participant, topic, conversation and diagnosis"
    return ctx.built(ctx.table("05_adjusted_predictor_effects", adjusted, caption))


def adjusted_behaviour_accuracy(ctx: ArtefactContext) -> Built:
    ok = usable_fits(ctx)
    adjusted = _adjusted(ctx)
    if "behaviour" not in ok or adjusted is None:
        reason = "the behaviour model did not pass the diagnostics gate"
        return ctx.built(ctx.skip("05_adjusted_behaviour_accuracy", "figure", reason))
    beh = adjusted[adjusted["outcome"] == ok["behaviour"].model.outcome]
    fig = figures.forest_plot(beh, estimate="adjusted_mean", low="adjusted_ci_low",
                              high="adjusted_ci_high", label="predictor",
                              xlabel="adjusted binary OM accuracy (0-1)",
                              simulated=ctx.simulated)  # fmt: skip
    return ctx.built(ctx.figure("05_adjusted_behaviour_accuracy", fig))


def posterior_predictive_checks(ctx: ArtefactContext) -> Built:
    from attunestats import hierarchical as H

    accept = ctx.setting("accept_failed_fits")
    ok = usable_fits(ctx)
    ppc = _concat([H.posterior_predictive_check(f, rng=ctx.seed, accept_failed_diagnostics=accept)
                   for f in ok.values()])  # fmt: skip
    if ppc is None:
        return ctx.built(ctx.skip("05_posterior_predictive_checks", "table", _NO_FIT))
    caption = "Posterior predictive checks (ppp near 0 or 1 flags misfit)"
    return ctx.built(ctx.table("05_posterior_predictive_checks", ppc, caption))
