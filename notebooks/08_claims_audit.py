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
# # 08 Claims audit
#
# Each claim of the paper as an explicit test: one row per tested quantity, whose interval and
# p-value come from one procedure in one family (so "the interval excludes 0" and "p < 0.05"
# always agree), and one verdict per claim: supported, contradicted, "not decidable at this
# sample size" (with the number of participants that would decide it), inconclusive, or "not
# testable" (the release lacks what the claim needs, e.g. human raters). The
# estimand is the population of participants (claims (a) and (g): these models' true scores). Claim (d) reads the hierarchical behaviour model
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
import pandas as pd

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
# One row per tested quantity: the claimed direction, estimate, interval (and its level), the
# p-value of the same test, whether the part is shown; then each claim's verdict and rule.

# %%
table = ctx.build("claims-audit").frame()
table[
    [
        "claim",
        "part",
        "claimed",
        "estimate",
        "ci_low",
        "ci_high",
        "interval_level",
        "pvalue",
        "shown",
        "verdict",
    ]
]

# %%
for claim, rows in table.groupby("claim", sort=False):
    first = rows.iloc[0]
    needed = first["participants_needed"]
    extra = (f" (about {needed:.0f} participants would give 80% power)"
             if pd.notna(needed) else "")  # fmt: skip
    print(f"({claim}) {first['verdict'].upper()}{extra}: {first['statement']}")
    print(f"    rule: {first['rule']}")

# %%
ctx.build("claims-details").frame()
