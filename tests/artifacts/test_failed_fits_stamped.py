"""Every MCMC fit behind an output that fails its diagnostics gate is stamped in the figure,
named in the table caption and listed in MANIFEST.json (``failed_fits``), whatever module fitted
it: the latent-skill model of the capability-independence report too (hand-built reports)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from attunestats.artifacts.builders import independence as builder
from attunestats.artifacts.registry import get_artefact
from attunestats.artifacts.reproduce import build
from attunestats.independence.latent import Diagnostics
from attunestats.report.hierarchical import STAMP
from attunestats.report.independence import plot_independence

CAPS = ["emotion", "behaviour", "preference"]


def _report(*, passed: bool, basis: str = "latent") -> SimpleNamespace:
    """A capability-independence report by hand: a 3 x 3 latent correlation matrix whose MCMC
    diagnostics pass or fail (r-hat 1.03, ESS 90 against the limits 1.01 and 400)."""
    eye = pd.DataFrame(np.eye(3) + 0.2 * (1 - np.eye(3)), index=CAPS, columns=CAPS)
    diag = Diagnostics(max_rhat=1.001 if passed else 1.03, min_ess_bulk=900 if passed else 90,
                       min_ess_tail=900, n_divergences=0, n_draws=150, n_chains=2,
                       rhat_limit=1.01, ess_limit=400)  # fmt: skip
    latent = SimpleNamespace(posterior_mean_matrix=eye, ci_low_matrix=eye - 0.3,
                             ci_high_matrix=eye + 0.3, ci_prob=0.94, diagnostics=diag,
                             passed=diag.passed)  # fmt: skip
    nc = SimpleNamespace(corrected_matrix=eye, ci_low_matrix=eye - 0.3, ci_high_matrix=eye + 0.3)
    table = pd.DataFrame({"capability_a": ["emotion"], "capability_b": ["behaviour"],
                          "latent_mean": [0.2], "latent_ci_low": [-0.1],
                          "latent_ci_high": [0.5], "simulated": [True]})  # fmt: skip
    return SimpleNamespace(basis=basis, latent=latent, noise_corrected=nc, confidence_level=0.95,
                           matrix=SimpleNamespace(n_models=11), simulated=True,
                           global_tests=table.iloc[:0], to_frame=lambda: table,
                           _estimand=lambda: "correlation between capabilities, across models",
                           _method=lambda: "latent-skill model (Bayesian)")  # fmt: skip


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.texts]


def test_the_independence_heatmap_of_a_failed_latent_fit_is_stamped():
    fig = plot_independence(_report(passed=False))
    assert any(t.startswith(STAMP) and "latent" in t for t in _texts(fig))
    plt.close(fig)
    for passed, basis in (
        (True, "latent"),
        (False, "disattenuated"),
    ):  # not drawn from a failed fit
        fig = plot_independence(_report(passed=passed, basis=basis))
        assert not any(STAMP in t for t in _texts(fig))
        plt.close(fig)


def test_a_failed_latent_fit_is_in_the_manifest_and_the_caption(tmp_path, monkeypatch,
                                                                release_small_path):  # fmt: skip
    monkeypatch.setattr(builder, "report", lambda ctx: _report(passed=False))
    result = build(release=release_small_path, out=tmp_path / "out", fast=True, progress=False,
                   registry=[get_artefact("capability-independence")])  # fmt: skip
    failed = result.manifest["failed_fits"]
    assert len(failed) == 1 and failed[0].startswith("latent correlations")
    assert "r_hat 1.0300 > 1.01" in failed[0] and "bulk ESS 90 < 400" in failed[0]
    for rel in ("tables/04_capability_independence.csv", "figures/04_capability_independence.png"):
        assert result.manifest["outputs"][rel]["failed_fits"] == failed
    meta = json.loads((tmp_path / "out/tables/04_capability_independence.json").read_text())
    assert "DIAGNOSTICS FAILED" in meta["caption"] and meta["failed_fits"] == failed


def test_the_latent_intervals_are_labelled_at_their_own_level(tmp_path, monkeypatch,
                                                              release_small_path):  # fmt: skip
    """The 04 table is at 95% (``confidence_level``), its latent HDIs at 94%: the LaTeX header
    of the latent interval says 94%, and the caption does not put it at 95%."""
    rep = _report(passed=True)
    rep.to_frame = lambda: pd.DataFrame({"capability_a": ["emotion"], "capability_b": ["behaviour"],
                                         "corrected": [0.3], "corrected_ci_low": [0.0],
                                         "corrected_ci_high": [0.6], "latent_mean": [0.2],
                                         "latent_ci_low": [-0.1], "latent_ci_high": [0.5],
                                         "confidence_level": [0.95], "simulated": [True]})  # fmt: skip
    monkeypatch.setattr(builder, "report", lambda ctx: rep)
    build(release=release_small_path, out=tmp_path / "out", fast=True, progress=False,
          registry=[get_artefact("capability-independence")])  # fmt: skip
    tex = (tmp_path / "out/tables/04_capability_independence.tex").read_text()
    header = tex.split(r"\toprule")[1].split(r"\midrule")[0]
    assert r"Latent CI (94\%)" in header and r"Corrected CI &" in header
    assert r"[-0.100, 0.500]" in tex
    back = pd.read_csv(tmp_path / "out/tables/04_capability_independence.csv")
    assert back["latent_level"].tolist() == [0.94]


class _Fit:
    """A fit by hand: what the fit-diagnostics builders read of a FitResult."""

    def __init__(self, outcome: str, passed: bool) -> None:
        self.passed = passed
        self.model = SimpleNamespace(outcome=outcome, spec="default")
        self.failures = [] if passed else ["sigma_topic: r_hat 1.150 > 1.01"]

    def _first_failures(self, n: int = 5) -> str:
        return "; ".join(self.failures[:n])

    def overview(self) -> dict:
        return {"outcome": self.model.outcome, "passed": self.passed, "max_r_hat": 1.0,
                "failures": self._first_failures() or None}  # fmt: skip


def _rows_saying_failed(frame: pd.DataFrame) -> pd.Series:
    text = frame.astype(str).apply(lambda col: col.str.lower().str.contains("diagnostics failed"))
    return text.any(axis=1)


def test_every_row_built_from_a_failed_fit_says_diagnostics_failed(tmp_path, monkeypatch,
                                                                   release_small_path):  # fmt: skip
    """The fit-diagnostics tables (05, 06) and claim (d)'s sub-tests: their captions say 'their
    rows say diagnostics failed'; the rows of the failed fit (and only those) must."""
    from attunestats.artifacts.builders import claims, dynamics, hierarchical

    fitted = {"behaviour": _Fit("om accuracy", passed=False), "emotion": _Fit("f1", passed=True),
              "preference": _Fit("pref", passed=True), "holistic": _Fit("mae", passed=True)}  # fmt: skip
    monkeypatch.setattr(hierarchical, "fits", lambda ctx, names=hierarchical.MODELS: fitted)
    monkeypatch.setattr(dynamics, "fit", lambda ctx, name: fitted[name])
    monkeypatch.setattr(claims, "fit", lambda ctx, name: fitted[name])
    details = pd.DataFrame({"claim": ["a", "d", "d"], "estimate": [0.1, 0.2, 0.3]})
    monkeypatch.setattr(claims, "audit", lambda ctx: SimpleNamespace(details=lambda: details))
    ids = ["fit-diagnostics", "drift-fit-diagnostics", "claims-details"]
    result = build(release=release_small_path, out=tmp_path / "out", fast=True, progress=False,
                   registry=[get_artefact(i) for i in ids])  # fmt: skip
    assert len(result.manifest["failed_fits"]) == 1
    tables = tmp_path / "out" / "tables"
    for name in ("05_fit_diagnostics", "06_drift_fit_diagnostics"):
        frame = pd.read_csv(tables / f"{name}.csv")
        assert (
            "their rows say 'diagnostics failed'"
            in json.loads((tables / f"{name}.json").read_text())["caption"]
        )
        assert _rows_saying_failed(frame).tolist() == (frame["outcome"] == "om accuracy").tolist()
    frame = pd.read_csv(tables / "08_claims_details.csv")
    assert _rows_saying_failed(frame).tolist() == [False, True, True]
