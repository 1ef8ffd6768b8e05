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
# # 08 Claims audit
#
# Each claim of the paper as an explicit test with an effect size, an interval, a corrected
# p-value or posterior probability and a verdict. Claim (d) reads the hierarchical behaviour model
# of notebook 05 (the same fit; fast mode's short chains fail the diagnostics gate and are
# reported with a warning rather than refused). On a simulated release the verdicts check the
# methods against what the simulator planted; they are not findings about real models.
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
# ## Verdicts
#
# One row per claim: the effect tested, estimate and interval, p-value or posterior probability,
# the verdict and the rule that gave it; then every sub-test.

# %%
table = ctx.build("claims-audit").frame()
table[
    [
        "claim",
        "verdict",
        "effect",
        "estimate",
        "ci_low",
        "ci_high",
        "pvalue",
        "posterior_probability",
    ]
]

# %%
for row in table.itertuples():
    print(f"({row.claim}) {row.verdict.upper():13s} {row.statement}")
    print(f"    rule: {row.rule}")

# %%
ctx.build("claims-details").frame()
