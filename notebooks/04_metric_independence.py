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
# # 04 Metric independence
#
# Claim (a): model rankings on emotion recognition, behaviour classification, preference
# prediction and response quality are largely independent. Are the capabilities really
# independent, or do they only look so because the metrics are noisy? Rank correlations across
# models with bootstrap intervals and permutation tests, noise-corrected (disattenuated)
# correlations, a latent-skill model with an LKJ prior, Kendall's W and principal components
# against permutation nulls. With 11 models many pairs are honestly 'too noisy to tell'.
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
# ## Pairs of capabilities
#
# One row per pair: the rank correlation across models, its interval, the noise-corrected value
# and the verdict; the heatmap shows the correlations the verdicts use, each with its interval.

# %%
pairs = ctx.build("capability-independence")
pairs.figure()

# %%
pairs.frame()[["capability_a", "capability_b", "kendall", "corrected", "verdict"]]

# %% [markdown]
# ## Global tests
#
# One test of independence across all pairs, Kendall's W across metrics, and the share of
# variance of the first principal component, each against its permutation null.

# %%
ctx.build("global-tests").frame()
