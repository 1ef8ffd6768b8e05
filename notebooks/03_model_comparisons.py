# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 Model comparisons
#
# Paired differences between every pair of predictors with simultaneous (max-|t|) intervals
# within each metric, marginal and simultaneous rank confidence sets, and how well each metric
# discriminates between predictors (claim (b) of the paper as a test). The estimand is the
# population of participants: all from one participant jackknife (t with participants - 1
# degrees of freedom, adjusted for unequal participants), so every difference is paired.
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
from attunestats.metrics.registry import MAIN_METRICS

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
# ## Discrimination (claim (b))
#
# For each metric, the discrimination index D (between-predictor variance over sampling variance)
# with a noncentral-F interval, and the share of predictor pairs whose difference is
# distinguishable. Claim (b) says preference and response-quality metrics discriminate more than
# emotion F1; the contrasts test exactly that.

# %%
disc = ctx.build("discrimination")
d = disc.frame()
disc.figure()

# %%
d[d["metric"].isin(MAIN_METRICS)][
    ["metric", "discrimination", "ci_low", "ci_high", "share_distinguishable"]
]

# %%
ctx.build("discrimination-contrasts").show()

# %% [markdown]
# ## Paired differences and ranks
#
# Every pair of predictors on every metric: the difference a - b with its 95% simultaneous
# interval (all pairs of a metric covered at once) and max-|t| adjusted p-value (the interval
# excludes 0 exactly when the adjusted p-value is below 0.05), and effect sizes (composite points,
# standardized difference); the composite differences as a heatmap; and ranks with marginal
# (each predictor's rank) and simultaneous (the whole ranking) 95% confidence sets.

# %%
print(ctx.build("paired-differences"))
ctx.build("paired-differences-composite").show()

# %%
ranks = ctx.build("rank-intervals").frame()
ctx.build("rank-intervals-composite").show()
ranks[ranks["metric"] == "composite_score"]
