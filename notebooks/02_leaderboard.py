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
# # 02 Leaderboard
#
# Every metric, pillar and composite per predictor with 95% intervals for the *population of
# participants* (a new study would recruit new people): the conversations of one participant
# share that person's way of annotating, so participants, not conversations, are the independent
# units. The intervals come from the delete-one-participant jackknife with t quantiles (see
# `attunestats.inference.participants`). Then score distributions, and how much each disputed
# scoring convention moves each composite. The conditional analysis (these participants only,
# conversations resampled) is shown at the end, by name, for comparison.
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
# ## Composite and pillars
#
# The paper's composite leaderboard: the composite (0-100) over the three pillars (emotion
# tracking 24%, evaluation quality 49%, holistic understanding 27%), each with a 95% t interval
# for the population of participants (the intervals are an attunestats addition).

# %%
pillars = ctx.build("leaderboard-pillars")
pillars.show()

# %% [markdown]
# ## Every metric
#
# Every metric of the registry per predictor (estimate, interval, standard error), the main
# metrics under their official names, the values as the official scorer aggregates them, and the
# metric registry itself.

# %%
board = ctx.build("leaderboard-all-metrics").frame()
print(
    f"{len(board)} rows: {board['metric'].nunique()} metrics x {board['predictor'].nunique()} predictors"
)
ctx.build("leaderboard-main-metrics").show()

# %%
ctx.build("predictor-summary-official").frame().head()

# %%
ctx.build("metric-registry").frame()

# %% [markdown]
# ## Distributions
#
# The conversation-level composite of each predictor: the spread behind each mean.

# %%
ctx.build("composite-distributions").show()

# %% [markdown]
# ## Scoring conventions
#
# Where the official scorer's behaviour is disputed (spec section 4), each alternative convention
# is switched on alone and the change in every composite is reported.

# %%
sens = ctx.build("convention-sensitivity").frame()
sens.groupby("convention")["difference"].agg(["min", "max"])

# %% [markdown]
# ## The conditional analysis (these participants)
#
# Resampling conversations answers another question: how much would the scores move with new
# conversations of *these* participants? Its intervals are narrower (participant effects are
# held fixed) and must not be read as intervals for a new study.

# %%
cond = ctx.build("leaderboard-conditional").frame()
cond[cond["metric"] == "composite_score"][["predictor", "estimate", "ci_low", "ci_high"]]
