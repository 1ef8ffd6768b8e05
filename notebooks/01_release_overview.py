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
# # 01 Release overview
#
# What the release holds: conversations, turns, participants, topics, diagnosis groups, what the
# loader had to normalise, and the PANAS scores the participants gave before and after each
# conversation.
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
# ## Counts
#
# Conversations, turns, participants, topics, evaluated models and human raters of the release
# (the paper's study design), then the participants, the diagnosis groups (as on the benchmark's
# analysis site; claim (c) compares them), the topics and the conversation lengths.

# %%
ctx.build("release-summary").show()

# %%
for artefact in ("participants", "topics", "turns-per-conversation"):
    print(ctx.build(artefact))
ctx.build("diagnosis-groups").show()

# %% [markdown]
# ## Load report
#
# Every value the loader normalised, clamped, derived or dropped, with its count (an attunestats
# addition: the official files are read exactly as documented, and every deviation is counted).

# %%
ctx.build("load-report").show()

# %% [markdown]
# ## PANAS before and after
#
# Positive and negative affect totals before and after the conversation, with t intervals over
# conversations (an attunestats addition; the participants filled in PANAS at both times).

# %%
ctx.build("panas-trajectories").show()
