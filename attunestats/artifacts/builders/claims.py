"""Builders of notebook 08 (claims audit): each claim of the paper as an explicit test.

One row per tested quantity (estimate, interval and p-value of one procedure, in one family),
and a verdict per claim
(:func:`attunestats.inference.claims.audit_claims`); claim (d) reads the hierarchical behaviour
fit of notebook 05 (the same fit). On a simulated release the verdicts check the methods against
what the simulator planted; they are not findings about real models.
"""

from __future__ import annotations

from typing import Any

from attunestats.artifacts.builders.hierarchical import FAILED, failed, fit
from attunestats.artifacts.context import ArtefactContext, Built


def audit(ctx: ArtefactContext) -> Any:
    """The claims audit with this artefact's seed (once per build)."""
    from attunestats.inference.claims import audit_claims

    n_resamples, accept = ctx.setting("n_resamples"), ctx.setting("accept_failed_fits")
    key = ("audit_claims", ctx.release.checksum, ctx.seed, n_resamples, accept, ctx.mcmc_seed,
           ctx.setting("mcmc_draws"), ctx.setting("mcmc_tune"), ctx.setting("mcmc_chains"),
           ctx.setting("mcmc_retries"))  # fmt: skip
    return ctx.memo(key, lambda: audit_claims(
        ctx.scores, n_resamples=n_resamples, rng=ctx.seed, release=ctx.release,
        d=dict(fit=fit(ctx, "behaviour"), accept_failed_diagnostics=accept)))  # fmt: skip


def _failed(ctx: ArtefactContext) -> tuple[str, ...]:
    """Claim (d) reads the behaviour fit: when it failed the gate, the tables say so."""
    return failed({"behaviour": fit(ctx, "behaviour")})


def claims_audit(ctx: ArtefactContext) -> Built:
    caption = ("Claims audit: one row per tested quantity; interval and p-value from one "
               "procedure (they agree); verdict per claim")  # fmt: skip
    return ctx.built(ctx.table("08_claims_audit", audit(ctx).to_frame(), caption),
                     failed_fits=_failed(ctx))  # fmt: skip


def claims_details(ctx: ArtefactContext) -> Built:
    """The sub-tests of every claim; when the behaviour fit failed the gate, claim (d)'s rows
    (built from it) say ``diagnostics failed`` in a ``diagnostics`` column (the other claims'
    rows come from no fit: missing there)."""
    details = audit(ctx).details()
    bad = _failed(ctx)
    if bad and "claim" in details.columns:
        details = details.assign(diagnostics=details["claim"].map({"d": FAILED}))
    return ctx.built(ctx.table("08_claims_details", details, "Sub-tests of every claim"),
                     failed_fits=bad)  # fmt: skip
