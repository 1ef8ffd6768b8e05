"""Every tested claim keeps a row in the audit's table, whatever its verdict."""

from __future__ import annotations

from types import SimpleNamespace

from attunestats.inference.claims import ClaimsAudit
from attunestats.inference.claims_topic import CLAIM_D_TOPIC, claim_d


def _failed_fit():
    """A hierarchical fit that failed the diagnostics gate (what claim (d) reads of it)."""
    model = SimpleNamespace(topics=(CLAIM_D_TOPIC, "work"), has_topic_effect=True,
                            outcome="behaviour", predictors=("m1", "m2"))  # fmt: skip
    return SimpleNamespace(
        model=model, passed=False, earlier_attempts=(), failures=("bulk ESS 12",),
        sampler="nuts", chains=2, draws=20, failure_message=lambda: "bulk ESS 12 < 400",
        overview=lambda: {"passed": False, "attempts": 1},
    )  # fmt: skip


def test_claim_d_on_a_failed_fit_stays_a_row_of_the_audit_table():
    # an inconclusive claim (d) (its fit failed the gate) had an empty parts table, so the
    # audit's to_frame() and summary table silently lost the claim
    res = claim_d(SimpleNamespace(release_info={}), fit=_failed_fit())
    assert res.verdict == "inconclusive"
    frame = ClaimsAudit((res,)).to_frame()
    assert frame["claim"].tolist() == ["d"]
    assert frame["verdict"].tolist() == ["inconclusive"]
    assert "bulk ESS 12" in frame["rule"].iloc[0]
    assert "(d)" in str(ClaimsAudit((res,)).summary())


def test_an_undefined_power_reads_as_such_in_the_summary():
    # power NaN (a part without a standard error): the summary printed 'Power here: nan'
    import numpy as np
    import pandas as pd

    from attunestats.inference.claims import ClaimResult, part_frame

    res = ClaimResult(claim="c", statement="s", verdict="inconclusive", rule="r", method="m",
                      estimand="e", confidence_level=0.95, simulated=False,
                      parts=part_frame("c", []), power=np.nan,
                      participants_needed=np.nan)  # fmt: skip
    text = str(res.summary())
    assert "Power here:       not defined" in text and "Power here:       nan" not in text
    assert "(none tested)" in text
    assert isinstance(res.to_frame(), pd.DataFrame)
