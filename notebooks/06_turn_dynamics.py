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
# # 06 Turn dynamics
#
# Claim (e): behaviour metrics (binary OM accuracy) degrade from early to late turns while affect
# inference stays stable. Early, mid and late turns of each conversation: phase means per model
# with participant-level intervals (population of participants) and paired late-minus-early
# differences; then turn-drift
# slopes from the hierarchical models of 05 (the same fits), adjusted for participant, topic and
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
# ## Phases
#
# Early / mid / late means per predictor and the late-minus-early difference (95% intervals).

# %%
phases = ctx.build("turn-phases")
table = phases.frame()
phases.figure()

# %%
table[table["phase"] == "late-early"].pivot(index="predictor", columns="metric", values="estimate")

# %% [markdown]
# ## Drift slopes
#
# Slopes from the first to the last turn (logit) per predictor and the change in accuracy or F1
# they imply, from the behaviour and emotion models of notebook 05 (diagnostics first).

# %%
ctx.build("drift-fit-diagnostics").show()

# %%
drift = ctx.build("drift-slopes")
slopes = drift.frame()
drift.figure()

# %%
slopes[slopes["predictor"] == "(average)"]
