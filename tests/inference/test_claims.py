"""Claims audit: verdicts match what the simulator planted (claim true / claim false)."""

from __future__ import annotations

import io
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import attunestats as at
from attunestats.inference.claims import VERDICTS, audit_claims, claim_b, claim_c, claim_e
from attunestats.release.load import release_from_documents
from attunestats.release.simulate import SCENARIOS, SimulationConfig, simulate_documents


def _scores(config: SimulationConfig, seed: int):
    docs = simulate_documents(config, rng=seed)
    return at.score(release_from_documents(docs.conversations, docs.runs, docs.release_info))


BASE = replace(SCENARIOS["paper"], n_conversations=150, n_models=6, n_human_raters=0, n_topics=15)


@pytest.fixture(scope="module")
def paper_scores():
    return _scores(BASE, seed=101)


def _coherent(frame) -> None:
    """Every row: the interval and the p-value say the same thing (claim d aside)."""
    alpha = 1 - frame["confidence_level"].iloc[0]
    rows = frame[frame["test"].isin(["difference", "equivalence"])]
    for _, r in rows.iterrows():
        if r["test"] == "equivalence":
            inside = (r["ci_low"] > -r["margin"]) and (r["ci_high"] < r["margin"])
            assert inside == (r["pvalue"] < alpha), r.to_dict()
        else:
            excludes = (r["ci_low"] > 0) or (r["ci_high"] < 0)
            assert excludes == (r["pvalue"] < alpha), r.to_dict()
    supported = frame[frame["verdict"] == "supported"]
    assert supported["shown"].all()


ELEVEN = replace(BASE, n_models=11, n_conversations=200)  # claim (b) is about 11 models


def test_claim_b_supported_when_preference_separates_models_more():
    # planted strongly (the paper scenario's spreads are supported on the bundled release but
    # not in every draw of 11 models: D has only P - 1 = 10 noise df)
    config = replace(ELEVEN, skill_sd={"emotion": 0.05, "behaviour": 0.3, "preference": 1.0,
                                       "holistic": 0.3, "response": 1.0})  # fmt: skip
    res = claim_b(_scores(config, seed=101), rng=1)
    assert res.verdict == "supported", res.parts
    assert (res.parts["estimate"] > 0).all() and (res.parts["ci_low"] > 0).all()
    assert res.simulated and "population of participants" in res.estimand
    _coherent(res.to_frame())


def test_claim_b_contradicted_when_emotion_separates_more():
    # emotion skill spread large, preference and response spreads tiny: the claim is false
    config = replace(ELEVEN, skill_sd={"emotion": 0.9, "behaviour": 0.3, "preference": 0.02,
                                     "holistic": 0.3, "response": 0.02})  # fmt: skip
    res = claim_b(_scores(config, seed=102), rng=1)
    assert res.verdict == "contradicted", res.parts
    _coherent(res.to_frame())


def test_claim_c_verdicts_follow_planted_diagnosis_effects():
    common = dict(n_conversations=240, n_participants=20, diagnosis_counts=(10, 10, 0),
                  participant_sd=0.05, n_models=4, n_human_raters=0, n_topics=10)  # fmt: skip
    true_cfg = replace(BASE, **common, diagnosis_effect={
        "anxiety_depression": (-0.9, 0.9, 0, 0, 0), "asd_adhd": 0.0})  # fmt: skip
    false_cfg = replace(BASE, **common, diagnosis_effect={
        "anxiety_depression": (0.9, -0.9, 0, 0, 0), "asd_adhd": 0.0})  # fmt: skip
    yes = claim_c(_scores(true_cfg, seed=103), rng=2)
    no = claim_c(_scores(false_cfg, seed=104), rng=2)
    assert yes.verdict == "supported", yes.parts
    assert no.verdict == "contradicted", no.parts
    est = yes.parts.set_index("part")["estimate"]
    assert est["affect"] < 0 < est["behaviour"]
    assert list(yes.parts["part"]) == ["affect", "behaviour"]  # one row per tested quantity
    _coherent(yes.to_frame())
    _coherent(no.to_frame())


def test_claim_c_with_few_participants_is_not_decidable_and_says_how_many_are_needed():
    cfg = replace(BASE, n_conversations=120, n_participants=6, diagnosis_counts=(3, 3, 0),
                  diagnosis_effect={"anxiety_depression": (-0.15, 0.1, 0, 0, 0), "asd_adhd": 0.0},
                  participant_sd=0.4, n_models=4, n_topics=10)  # fmt: skip
    res = claim_c(_scores(cfg, seed=113), rng=2)
    assert res.verdict == "not decidable at this sample size", res.parts
    assert res.power < 0.8 and res.participants_needed > 6


def test_claim_e_verdicts_follow_planted_drift(paper_scores):
    yes = claim_e(paper_scores, rng=3)
    assert yes.verdict == "supported", yes.parts
    assert list(yes.parts["test"]) == ["difference", "equivalence"]
    rising = replace(BASE, drift_mean=(0.0, 0.9, 0.0, 0.0, 0.0))  # emotion, behaviour, ...
    no = claim_e(_scores(rising, seed=105), rng=3)
    assert no.verdict == "contradicted", no.parts
    flat = claim_e(_scores(replace(SCENARIOS["null"], n_conversations=150, n_models=6,
                                   n_human_raters=0, n_topics=15), seed=106), rng=3)  # fmt: skip
    assert flat.verdict != "supported", flat.parts
    for res in (yes, no, flat):
        _coherent(res.to_frame())


def _release(config: SimulationConfig, seed: int):
    docs = simulate_documents(config, rng=seed)
    return release_from_documents(docs.conversations, docs.runs, docs.release_info)


def test_claim_f_in_the_audit_follows_planted_human_skills():
    rel = _release(replace(BASE, n_human_raters=3, n_conversations=80), seed=107)
    scores = at.score(rel)
    res = audit_claims(scores, claims=("f",), n_resamples=400, rng=1, release=rel)["f"]
    assert res.verdict == "supported", res.parts
    _coherent(res.to_frame())
    # one part per model, each named: "preference vs <model>"
    pref = res.parts.loc[res.parts["part"].str.startswith("preference")]
    assert sorted(pref["part"].str.removeprefix("preference vs ")) == sorted(scores.names("model"))
    null = replace(SCENARIOS["null"], n_conversations=80, n_models=6, n_human_raters=3, n_topics=15)
    rel_null = _release(null, seed=108)
    res_null = audit_claims(at.score(rel_null), claims=("f",), n_resamples=400, rng=1,
                            release=rel_null)["f"]  # fmt: skip
    assert res_null.verdict != "supported", res_null.parts


def test_audit_collects_claims_with_reproducible_seeds(paper_scores):
    a = audit_claims(paper_scores, claims=("b", "e"), n_resamples=300, rng=9)
    b = audit_claims(paper_scores, claims=("b", "e"), n_resamples=300, rng=9)
    frame = a.to_frame()
    assert list(dict.fromkeys(frame["claim"])) == ["b", "e"]
    assert frame.equals(b.to_frame())
    assert set(frame["verdict"]) <= set(VERDICTS)
    assert "SIMULATED" in str(a.summary())
    with pytest.raises(ValueError, match="not available"):
        audit_claims(paper_scores, claims=("z",))


def test_details_carry_an_exact_seed_on_every_row_so_the_csv_reads_back():
    from attunestats.inference.claims import ClaimResult, ClaimsAudit
    from attunestats.report.tables import read_back_differences

    big = 5591239713491541266  # a 63-bit child seed: not exact as a float
    common = dict(statement="s", verdict="supported", rule="r", method="m", estimand="e",
                  confidence_level=0.95, simulated=True, parts=pd.DataFrame())  # fmt: skip
    with_own = ClaimResult(claim="a", seed=11, details=pd.DataFrame(
        {"pair": ["x-y", "x-z"], "seed": pd.Series([big, None], dtype=object)}), **common)  # fmt: skip
    without = ClaimResult(claim="b", seed=big + 1, details=pd.DataFrame({"pair": ["q"]}), **common)
    details = ClaimsAudit(results=(with_own, without)).details()
    assert details["seed"].tolist() == [big, 11, big + 1]  # own seed, else the claim's
    assert read_back_differences(details, details.to_csv(index=False)) == []
    back = pd.read_csv(io.StringIO(details.to_csv(index=False)))
    assert back["seed"].tolist() == [big, 11, big + 1]


def test_audit_summary_says_which_test_level_method_and_estimand_each_claim_used():
    from attunestats.inference.claims import PART_COLUMNS, ClaimResult, ClaimsAudit

    def part(claim, test, level):
        row = dict.fromkeys(PART_COLUMNS, np.nan)
        row.update(claim=claim, part="x", test=test, estimate=0.01, ci_low=-0.02, ci_high=0.04,
                   interval_level=level, pvalue=0.003)  # fmt: skip
        return pd.DataFrame([row])

    results = tuple(
        ClaimResult(
            claim=c,
            statement="s",
            verdict="supported",
            rule=f"rule of {c}",
            method=f"method of {c}",
            estimand=f"estimand of {c}",
            confidence_level=0.95,
            simulated=True,
            parts=part(c, t, lvl),
        )  # fmt: skip
        for c, t, lvl in (("a", "equivalence", 0.90), ("e", "difference", 0.975))
    )
    text = str(ClaimsAudit(results=results).summary())
    assert "Tests:" in text and "TOST" in text and "SIMULATED" in text
    for c in ("a", "e"):
        assert f"rule of {c}" in text and f"method of {c}" in text and f"estimand of {c}" in text
    assert "equivalence" in text and "0.9000" in text and "0.9750" in text  # test and level shown


def _matrix(n_models: int, correlation: float, n_metrics: int, seed: int):
    from attunestats.independence import metric_matrix, simulate_metric_values

    sim = simulate_metric_values(n_models=n_models, n_conversations=120, n_metrics=n_metrics,
                                 correlation=correlation, reliability=0.97, rng=seed)  # fmt: skip
    return metric_matrix(sim.values, n_resamples=1000, rng=seed, simulated=True)


def test_claim_a_is_an_equivalence_test_with_a_stated_margin():
    from attunestats.inference.claims_independence import claim_a

    # many models, independent skills: every pair shown inside (-0.3, 0.3)
    yes = claim_a(_matrix(300, 0.0, 4, 1), rng=1)
    assert yes.verdict == "supported", yes.parts
    assert (yes.parts["test"] == "equivalence").all() and (yes.parts["margin"] == 0.3).all()
    no = claim_a(_matrix(60, 0.8, 4, 2), rng=1)
    assert no.verdict == "contradicted", no.details
    for res in (yes, no):
        _coherent(res.to_frame())


def test_bootstrap_tail_pvalues_are_never_zero_and_invert_to_the_intervals():
    from attunestats.inference.claims_independence import _bounds, _tails, claim_a

    draws = np.random.default_rng(3).normal(0.5, 0.1, 999)
    below, above = _tails(draws, -0.3)  # far below every draw
    assert below == pytest.approx(1 / 1000) and above == 1.0
    for tail in (0.05, 0.025, 0.005):
        lo, hi = _bounds(draws, tail)
        for v in np.linspace(0.0, 1.0, 2001):  # brute force: the values each side does not reject
            p_low, p_high = _tails(draws, v)
            assert (v >= lo) == (p_low >= tail) and (v <= hi) == (p_high >= tail), (tail, v)
    assert _bounds(draws, 0.0005) == (-np.inf, np.inf)  # 1/(n+1) = 0.001 cannot reach it
    res = claim_a(_matrix(300, 0.0, 3, 1), rng=1)  # the matrix's 1,000 resamples
    assert (res.parts["pvalue"] >= 1 / 1001 - 1e-12).all(), res.parts


def test_claim_a_on_a_paper_sized_release_says_what_sample_would_decide(paper_scores):
    from attunestats.inference.claims_independence import claim_a

    res = claim_a(paper_scores, n_resamples=500, rng=1)
    assert res.verdict in VERDICTS
    assert res.power is not None and 0 <= res.power <= 1
    if res.verdict == "not decidable at this sample size":
        assert res.power < 0.8 and res.participants_needed > 11
    assert "participants" in str(res.summary())
    _coherent(res.to_frame())


def test_claim_rows_never_show_an_undefined_correlation_as_its_limit():
    """A capability on which the models are truly equal has no true-score variance: its
    noise-corrected correlation has no value. The row must say so (flag, NaN estimate, a note in
    the rule), not show the clamped limit +-1 as if the capabilities were perfectly related."""
    from attunestats.independence import metric_matrix, noise_corrected_correlations
    from attunestats.inference.claims_independence import claim_a, claim_g

    values = np.random.default_rng(41).normal(size=(40, 11, 3))
    values[:, :, 0] += np.linspace(-2, 2, 11)  # real spread between the models
    values[:, :, 2] += np.linspace(2, -2, 11)
    values[:, :, 1] = 0.5  # every model scores the same: between-model variance 0
    mm = metric_matrix(values, n_resamples=400, rng=1, simulated=True)
    flags = noise_corrected_correlations(mm, rng=1).pairs["flag"].tolist()
    assert [flags[0], flags[2]] == ["undefined", "undefined"]  # pairs (0, 1) and (1, 2)
    res = claim_a(mm, rng=1)
    parts = res.parts
    assert parts["estimate_flag"].tolist() == flags
    assert parts["estimate"].iloc[[0, 2]].isna().all()  # before: +-1.0, unmarked
    assert parts["estimate"].iloc[1] == pytest.approx(-1.0, abs=0.05)  # metrics 0 and 2 opposed
    assert "undefined" in res.rule and parts["part"].iloc[2] in res.rule
    assert res.verdict != "supported"
    g = claim_g(metric_matrix(values[:, :, :2], n_resamples=400, rng=2, simulated=True), rng=1)
    assert g.parts["estimate_flag"].iloc[0] == "undefined" and np.isnan(g.parts["estimate"].iloc[0])
    assert g.verdict != "supported" and "undefined" in g.rule


def test_claim_g_verdicts_follow_planted_sign():
    from attunestats.inference.claims_independence import claim_g

    yes = claim_g(_matrix(60, -0.8, 2, 4), rng=1)
    no = claim_g(_matrix(60, 0.8, 2, 5), rng=1)
    assert yes.verdict == "supported" and yes.parts["estimate"].iloc[0] < 0
    assert no.verdict == "contradicted" and no.parts["estimate"].iloc[0] > 0
    for res in (yes, no):
        _coherent(res.to_frame())


def test_audit_says_not_testable_instead_of_failing(paper_scores):
    # no human raters in this release: claim (f) cannot be tested, the audit says so, and the
    # table keeps a row for it (an untested claim must not vanish from the CSV)
    audit = audit_claims(paper_scores, claims=("e", "f"), n_resamples=100, rng=1)
    assert audit["f"].verdict == "not testable" and audit["f"].rule.startswith("not testable")
    frame = audit.to_frame()
    assert set(frame["claim"]) == {"e", "f"}
    row = frame[frame["claim"] == "f"]
    assert len(row) == 1 and row["verdict"].iloc[0] == "not testable"
    assert "human" in row["rule"].iloc[0] and row[["estimate", "pvalue"]].isna().all(axis=None)
    assert list(frame.columns) == list(audit["e"].to_frame().columns)
    from attunestats.report.tables import read_back_differences

    assert read_back_differences(row, row.to_csv(index=False)) == []  # no "" cells


def test_claim_e_without_any_affect_values_is_not_testable_and_names_the_metrics(paper_scores):
    # scores in which no turn has an emotion value (e.g. ground truth without emotion tags and a
    # scorer that leaves them undefined): claim (e) cannot compare early and late affect; it must
    # say which metrics are missing rather than fail with a KeyError or report a change of 0
    turn = paper_scores.turn.copy()
    turn.loc[turn["metric"].isin(["emotion_f1", "emotion_va_score"]), "value"] = np.nan
    scores = replace(paper_scores, turn=turn)
    with pytest.raises(ValueError, match=r"emotion_f1.*emotion_va_score"):
        claim_e(scores)
    audit = audit_claims(scores, claims=("e",), n_resamples=100, rng=1)
    assert audit["e"].verdict == "not testable" and "emotion_f1" in audit["e"].rule


# ------------------------------------------------------------------ claim (d): hierarchical
def test_claim_d_verdicts_follow_planted_hardest_topic():
    """Planted: romantic relationships 1.5 logit below the other topics (sd 0.2) on every
    capability, predictor x topic interactions sd 0.1, so it is the truly hardest topic for every
    model. (With the paper scenario's 0.9 and 10 conversations per topic the posterior share was
    0.88 with P(share >= 0.8) = 0.83: honestly inconclusive.) Null scenario: no topic effects at
    all, so each topic is the hardest for about 1/15 of the models and the claim is false. The
    posterior must say so (gate passed in both fits)."""
    from attunestats.inference.claims_topic import CLAIM_D_TOPIC, claim_d
    from attunestats.release.simulate import draw_effects

    strong = replace(BASE, hardest_topic_effect=-1.5)
    truth = draw_effects(strong, rng=110).hardest_topics()["behaviour"]
    planted = _scores(strong, seed=110)
    models = sorted(planted.predictors.query("kind == 'model'")["predictor"])
    assert all(truth[m] == CLAIM_D_TOPIC for m in models)
    yes = claim_d(planted, draws=2000, tune=1000, chains=2, rng=4)
    assert yes.verdict == "supported", yes.details
    assert yes.posterior_probability >= 0.95 and yes.parts["ci_low"].iloc[0] >= 0.8
    assert set(yes.details["predictor"]) == set(models)
    null = replace(
        SCENARIOS["null"], n_conversations=150, n_models=6, n_human_raters=0, n_topics=15
    )
    # true sigma_topic = 0: the centred topic level ("auto" centres it, the conversations being
    # rich) is a funnel there (bulk ESS 193 / 4,000 draws); a non-centred topic level passes
    no = claim_d(_scores(null, seed=109), parameterization={"topic": "noncentred"}, draws=2000,
                 tune=1000, chains=2, rng=4)  # fmt: skip
    assert no.verdict == "contradicted", no.details
    assert no.details["fit_passed"].all() and no.parts["estimate"].iloc[0] < 0.5


def test_claim_d_refuses_a_failed_fit_and_says_why(paper_scores):
    from attunestats.inference.claims_topic import claim_d

    res = audit_claims(paper_scores, claims=("d",), rng=1,
                       d=dict(draws=20, tune=20, chains=2))["d"]  # fmt: skip
    assert res.verdict == "inconclusive" and "diagnostics gate" in res.rule
    assert "bulk ESS" in res.rule and not res.details["passed"].iloc[0]
    assert res.details["attempts"].iloc[0] == 2  # refitted once with longer chains, as reproduce
    assert "fit 2 of this model" in res.method
    with pytest.raises(ValueError, match="nearly_every"):
        claim_d(paper_scores, nearly_every=0.0)
    with pytest.raises(ValueError, match="not in the release"):
        claim_d(paper_scores, topic="no such topic")


def test_claim_d_with_a_supplied_fit_counts_only_evaluated_models():
    from attunestats import hierarchical as H
    from attunestats.inference.claims_topic import claim_d

    cfg = replace(BASE, n_conversations=40, n_models=3, n_human_raters=1, n_topics=5)
    sc = _scores(cfg, seed=111)
    kinds = sc.predictors.set_index("predictor")["kind"]
    m = H.behaviour_model_from_scores(sc, task="om")
    assert "human" in set(kinds[list(m.predictors)])
    short = H.fit(m, draws=20, tune=20, chains=2, rng=1)
    assert not short.passed
    res = claim_d(sc, fit=short, accept_failed_diagnostics=True)
    assert set(res.details["predictor"]) == set(kinds[kinds == "model"].index)
    assert "DIAGNOSTICS FAILED" in res.method
    # by hand from the posterior (xarray, by label): share over the three models only
    post = short.idata["posterior"]
    models = sorted(kinds[kinds == "model"].index)
    total = post["topic_effect"] + post["predictor_topic"].sel(predictor=models)
    hardest = total.argmin("topic")  # (chain, draw, predictor) positions in topic order
    rr = list(post["topic_effect"]["topic"].values).index("romantic relationships")
    assert res.parts["estimate"].iloc[0] == pytest.approx(float((hardest == rr).mean()))


def test_power_of_a_part_without_standard_error_is_undefined_not_a_warning():
    # A part whose standard error is 0 (a metric every predictor scores the same) has no power;
    # the planning numbers are NaN (verdict_of then does not call it "not decidable").
    from attunestats.inference.claims import t_power, verdict_of

    flat = {"standard_error": 0.0, "estimate": 0.0, "test": "equivalence", "margin": 0.3}
    varied = {"standard_error": 0.1, "estimate": 0.2, "test": "two-sided", "margin": np.nan}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        now, needed = t_power([varied, flat], alpha=0.05, n_units=11)
        ok_now, ok_needed = t_power([varied], alpha=0.05, n_units=11)
    assert np.isnan(now) and np.isnan(needed)
    assert 0 < ok_now < 1 and ok_needed >= 11
    parts = pd.DataFrame({"shown": [False], "opposite_shown": [False]})
    assert verdict_of(parts, power=now) == "inconclusive"


def test_t_power_matches_a_simulation_of_the_audits_own_tests():
    # Independent check of the planning power: simulate the audit's procedure itself (each
    # part's t statistic on its own df, two-sided tests shown on the claimed side only, TOST for
    # equivalence, Holm over the parts via statsmodels) with the true values at the estimates;
    # parts independent, as t_power assumes. 40,000 draws: MC SE <= 0.0025.
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    from attunestats.inference.claims import t_power

    parts = [
        {"test": "difference", "claimed": "negative", "estimate": -0.05, "standard_error": 0.02,
         "df": 5.9},
        {"test": "difference", "claimed": "positive", "estimate": 0.04, "standard_error": 0.018,
         "df": 3.6},
        {"test": "equivalence", "claimed": "within +-0.1", "estimate": 0.01,
         "standard_error": 0.03, "df": 7.4, "margin": 0.1},
    ]  # fmt: skip
    for subset in ([parts[0]], parts[:2], [parts[0], parts[2]], parts):
        now, _ = t_power(subset, alpha=0.05, n_units=11)
        rng = np.random.default_rng(5)
        n_sim = 40_000
        pvals, right_side = [], []
        for p in subset:
            est = 0.0 if p["test"] == "equivalence" else p["estimate"]
            t = est / p["standard_error"] + rng.standard_t(p["df"], size=n_sim)
            if p["test"] == "equivalence":
                m = p["margin"] / p["standard_error"]
                pvals.append(np.maximum(stats.t.sf(t + m, p["df"]), stats.t.cdf(t - m, p["df"])))
                right_side.append(np.ones(n_sim, dtype=bool))
            else:
                pvals.append(2 * stats.t.sf(np.abs(t), p["df"]))
                right_side.append(t < 0 if p["claimed"] == "negative" else t > 0)
        pvals, right_side = np.array(pvals), np.array(right_side)
        # Holm rejects all k iff the j-th smallest p-value is <= alpha / (k - j + 1) for all j
        k = len(subset)
        steps = 0.05 / np.arange(k, 0, -1)[:, None]
        holm_all = (np.sort(pvals, axis=0) <= steps).all(axis=0)
        # the vectorised rule is statsmodels' Holm (a few draws: multipletests is slow), on
        # draws where it says yes and where it says no
        for i in [*np.flatnonzero(holm_all)[:5], *np.flatnonzero(~holm_all)[:5]]:
            assert holm_all[i] == multipletests(pvals[:, i], alpha=0.05, method="holm")[0].all()
        shown = holm_all & right_side.all(axis=0)
        assert now == pytest.approx(shown.mean(), abs=4 * 0.0025), len(subset)
    # an estimate on the wrong side of its claim has (almost) no power, at any size
    wrong = [{**parts[1], "estimate": -0.04}]
    now, needed = t_power(wrong, alpha=0.05, n_units=11)
    assert now < 0.01 and np.isnan(needed)
