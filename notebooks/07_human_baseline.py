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
# # 07 Human baseline and agreement
#
# Agreement among the human baseline raters on every annotation type, raters against the
# participants, humans against models on the units each rater actually rated (common ground:
# same conversations, turns, judgements and comparisons), and claim
# (f): the human baseline beats most models at predicting preferences but is weak at predicting
# conversation goals.
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
# ## Agreement among the raters
#
# Krippendorff's alpha among the human raters per annotation type, with intervals for the
# population of participants (participant bootstrap-t; an attunestats addition).

# %%
agreement = ctx.build("rater-agreement")
agreement.figure()

# %%
agreement.frame()[["annotation", "metric", "alpha", "ci_low", "ci_high", "n_units"]]

# %% [markdown]
# ## Raters against the participants
#
# Each rater against each other rater and against the participants' own annotations; the
# summary is rater-rater minus rater-participant alpha, with paired intervals.

# %%
ctx.build("rater-vs-participant").show()

# %% [markdown]
# ## Humans against models (claim (f))
#
# Humans minus models per metric on each rater's common ground (participant jackknife, Holm
# over models; the all-units comparison is available with ground="all"),
# then the claim itself.

# %%
ctx.build("humans-vs-models").show()

# %%
ctx.build("claim-f").frame()
