# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.7
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 Participant, diagnosis and topic effects
#
# Hierarchical Bayesian models of binary behaviour accuracy, emotion F1, pairwise preference
# accuracy and four-branch prediction error of the evaluated models, sampled by nutpie on one
# compiled log density (`attunestats.hierarchical`). The default structure
# (`attunestats.hierarchical.ModelSpec`) has participant, topic and conversation intercepts,
# diagnosis-group effects, and predictor x participant, predictor x conversation, predictor x
# topic and predictor x diagnosis terms (plus question effects for pairwise preference): the
# models' differences may vary across people and conversations, so predictor effects are
# population means over participants. Each model is fitted once per build (notebooks 06 and 08
# reuse the fits). The diagnostics gate: r_hat <= 1.01, bulk and tail ESS >= 400, no divergence.
# In full mode a fit that fails it is fitted once more with twice the tuning steps and draws
# (`attempts` and `earlier_attempts` in the fit table say so). A fit that still fails is
# reported, but every table row built from it says `diagnostics failed` and every figure says
# DIAGNOSTICS FAILED in red; the build's MANIFEST.json lists it, and a full `attunestats
# reproduce` then fails unless `--allow-failed-fits`. Fast mode runs chains too short for the
# gate on purpose (and does not refit).
#
# The bundled release is SIMULATED (written by `attunestats.release.simulate`): every table and
# figure below says so, and its numbers are not findings about real models. Run with
# `release = "path/to/release"` for a real one.
#
# Each cell calls a builder of `attunestats.artifacts.builders` through the artefact registry
# (`ctx.build(id)`; `attunestats list` prints the map): the same function, seed and settings as
# `attunestats reproduce`, which writes these tables and figures to `paper_figures/`.

# %%
from attunestats.artifacts import BuildContext

# %% tags=["parameters"]
# Parameters (overridden by `attunestats reproduce --notebooks`)
release = None  # release directory; None = the bundled SIMULATED release
fast = True  # fast mode: few resamples, short MCMC (the full build sets fast = False)
rng = 20260521  # root seed of the build: every artefact derives its own seed from it
fit_cache = None  # directory of finished MCMC fits shared within a build (None: none)
memo_dir = None  # the build's memo of intermediate results (None: compute them here)

# %%
ctx = BuildContext(release=release, fast=fast, rng=rng, fit_cache=fit_cache, memo_dir=memo_dir)
print(ctx.banner())

# %% [markdown]
# ## The fits
#
# Sampler, settings, the gate's verdict, the worst R-hat and ESS, divergences, times and the
# structure of each model.

# %%
overview = ctx.build("fit-diagnostics").frame()
overview[
    [
        "outcome",
        "passed",
        "divergences",
        "max_r_hat",
        "min_ess_bulk",
        "min_ess_tail",
        "structure",
    ]
]

# %% [markdown]
# ## Where the variance comes from
#
# Share of the random-effect variance from participants, topics and conversations (94%
# intervals; an attunestats addition).

# %%
variance = ctx.build("variance-decomposition")
variance.show()

# %% [markdown]
# ## Topics (claim (d))
#
# Topic effects (logit, against the average topic) with 94% intervals and the posterior
# probability that each topic is the hardest; claim (d) says romantic relationships is the
# hardest topic for nearly every model. The figure shows the 15 lowest topics for binary OM
# accuracy.

# %%
topics = ctx.build("topic-effects").frame()
ctx.build("hardest-topics-behaviour").show()
topics.sort_values("p_hardest", ascending=False).groupby("outcome").head(3)[
    ["outcome", "topic", "n_conversations", "mean", "ci_low", "ci_high", "p_hardest"]
]

# %% [markdown]
# ## Diagnosis groups (claim (c))
#
# Contrasts of each diagnosis group against the reference group, per predictor and on average
# (94% intervals). Claim (c): affect is tracked worse for participants reporting anxiety or
# depression, while their behaviour is classified more accurately.

# %%
contrasts = ctx.build("diagnosis-contrasts")
avg = contrasts.frame()
avg = avg[avg["predictor"] == "(average)"]
contrasts.figure()

# %%
avg[
    [
        "outcome",
        "group",
        "reference",
        "difference",
        "difference_ci_low",
        "difference_ci_high",
        "p_positive",
    ]
]

# %% [markdown]
# ## Adjusted predictor effects
#
# Each predictor's accuracy or score adjusted for participant, topic, conversation and diagnosis
# (an attunestats addition).

# %%
print(ctx.build("adjusted-predictor-effects"))
ctx.build("adjusted-behaviour-accuracy").show()

# %% [markdown]
# ## Does the model reproduce the data? Posterior predictive checks
#
# Statistics of the observed data (overall and per-predictor accuracy or score, accuracy by turn
# position and diagnosis group, the spread of conversation and cell accuracies, and the spread of
# predictor x participant and predictor x conversation means, which a model without those
# interactions under-predicts when the data have them) against their distribution in data
# replicated from the posterior (ArviZ-format replicated data:
# `attunestats.hierarchical.predictive_data`). The figure shows each observed statistic in
# replicated standard deviations with the 94% replicated range; red points are outside it. A
# ppp (posterior predictive p-value) near 0 or 1 flags misfit.

# %%
checks = ctx.build("posterior-predictive-checks")
checks.show()
ppc = checks.frame()
ppc[(ppc["ppp"] < 0.01) | (ppc["ppp"] > 0.99)]

# %% [markdown]
# ## Which structure do the data support? PSIS-LOO
#
# Binary OM accuracy and pairwise preference fitted with three candidate structures: the
# default, the default without its overdispersion term (binomial instead of beta-binomial cells:
# no variation shared by the judgements of one turn beyond the other terms), and the terms of the
# first release of this package
# (one conversation intercept shared by the predictors, no predictor x participant or predictor x
# conversation term; with the default's question effects, so that every candidate describes the
# same cells). Pareto-smoothed importance-sampling leave-one-out cross-validation
# (`arviz.compare`) ranks them by expected log predictive density: `elpd_diff` is each
# structure's difference from the best (0 or negative) and `dse` its standard error; a
# difference within about two `dse` is not a difference. Cells (a predictor's judgements of one
# turn) are left out one at a time, so this ranks how well each structure describes these
# conversations, not how it generalises to new participants.

# %%
comparison = ctx.build("structure-comparison")
comparison.show()
comparison.frame()[
    ["model", "structure", "rank", "elpd", "se", "elpd_diff", "dse", "weight", "diagnostics"]
]
