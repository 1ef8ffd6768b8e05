"""Tests of the human-baseline analysis (attunestats.baseline).

Independent references:
* the simulator's planted rater model (truth.json): with every nuisance effect switched off, rater
  r is correct on a binary judgement with probability exactly p_r = L(theta_r + task offset) and
  two raters agree with probability rho^2 (1 - |p_r - p_s|) + (1 - rho^2)(p_r p_s + (1 - p_r)
  (1 - p_s)) (release/simulate.py); expected percent agreement and alpha are computed here from
  those numbers and the ground-truth references;
* the ``krippendorff`` package (and, for set-valued data, the package's own public
  ``krippendorff_alpha`` on the matrix-free path) on reliability matrices built here from the
  release tables;
* ``score()``'s predictor table for the point estimates (all units), and the analytic standard
  error of a mean of paired per-conversation differences for the conversation bootstrap.

The common ground and the participant estimand of humans vs models are tested in
``test_baseline_ground.py``; the participant bootstrap-t and jackknife of alpha in
``test_agreement_participants.py``.

Monte Carlo tolerances: |z| < 4.5 (two-sided p ~ 7e-6 per check, as in test_simulate.py), with
z from binomial standard errors (units are independent when the nuisance effects are off) or
from the bootstrap standard error; bootstrap standard errors themselves have relative Monte
Carlo error about 1 / sqrt(2 B).
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import replace

import krippendorff
import numpy as np
import pandas as pd
import pytest

import attunestats as at
from attunestats import baseline as bl
from attunestats.baseline.comparison import HUMAN_MEAN, MODEL_MEAN
from attunestats.baseline.kernel import _AlphaKernel
from attunestats.constants import SIMULATED_LABEL
from attunestats.release.load import release_from_documents
from attunestats.release.simulate import SCENARIOS, simulate_documents
from attunestats.report import baseline as rb

Z_MAX = 4.5
RATERS = ["sim-human-1", "sim-human-2", "sim-human-3"]


def logistic(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def _release(config, seed):
    docs = simulate_documents(config, rng=seed)
    return docs, release_from_documents(docs.conversations, docs.runs, docs.release_info)


def _formula_config(rho):
    """Nuisance effects off and clean files: p_r is constant per rater and task."""
    zero5 = (0.0,) * 5
    return replace(
        SCENARIOS["paper"],
        n_conversations=40,
        n_models=2,
        participant_sd=0.0,
        conversation_sd=0.0,
        topic_sd=0.0,
        hardest_topic_effect=0.0,
        topic_interaction_sd=0.0,
        diagnosis_effect=(zero5, zero5),
        diagnosis_interaction_sd=0.0,
        drift_mean=0.0,
        drift_sd=0.0,
        human_skill_sd=0.6,
        messiness=0.0,
        rater_rho=rho,
    )


@pytest.fixture(scope="module")
def formula_releases():
    """The formula releases at consensus probabilities rho = 0 and 0.8: {rho: (docs, release)}."""
    return {rho: _release(_formula_config(rho), seed=11) for rho in (0.0, 0.8)}


@pytest.fixture(scope="module", params=[0.0, 0.8], ids=["rho0", "rho0.8"])
def formula(request, formula_releases):
    rho = request.param
    docs, release = formula_releases[rho]
    return rho, docs, release


@pytest.fixture(scope="module")
def paper():
    docs, release = _release(replace(SCENARIOS["paper"], n_conversations=60), seed=1)
    return release, at.score(release)


def _references(release, task):
    """Scored binary units and their reference, from the spec's fallbacks (written here)."""
    bj = release.binary_judgements
    obs = bj["observed"].astype(object)
    if task in ("om", "om_hp"):
        ref = obs.where(obs.notna(), bj["llm_value"].astype(object))
    else:
        ref = bj["preferred"].astype(object).where(bj["preferred"].notna(), obs)
    keep = ref.isin(["yes", "no"]).to_numpy()
    return ref[keep].to_numpy()


def _p_correct(docs, task):
    skills = docs.truth["human_raters"]["skills"]
    offset = docs.truth["config"]["binary_task_offset"][task]
    return {r: float(logistic(skills[r]["behaviour"] + offset)) for r in RATERS}


def _pair_agreement(rho, p, q):
    return rho**2 * (1 - abs(p - q)) + (1 - rho**2) * (p * q + (1 - p) * (1 - q))


# ------------------------------------------------------------------------------------------
# agreement among raters vs the planted consensus model
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("task", ["om", "human"])
def test_binary_agreement_matches_the_consensus_formula(formula, task):
    rho, docs, release = formula
    assert docs.truth["human_raters"]["rho"] == rho
    p = _p_correct(docs, task)
    ref = _references(release, task)
    n_units = ref.size
    res = bl.rater_agreement(
        release, annotations=[f"binary_{task}"], n_resamples=400, resample="unit", rng=3
    )
    row = res.to_frame().iloc[0]
    assert row["n_units"] == n_units  # every rater rates every scored unit (clean files)

    # percent agreement: mean over the three pairs of the formula
    a_pairs = [_pair_agreement(rho, p[r], p[s]) for r, s in itertools.combinations(RATERS, 2)]
    expected_pa = float(np.mean(a_pairs))
    # share of agreeing pairs in a unit has variance <= A(1-A)/n for each pair; pairs of one unit
    # are positively correlated, so use the conservative bound of one pair per unit
    se_pa = np.sqrt(expected_pa * (1 - expected_pa) / n_units)
    assert abs(row["percent_agreement"] - expected_pa) < Z_MAX * se_pa

    # alpha = 1 - D_o / D_e with D_o = 1 - mean pair agreement and D_e from the expected share
    # of "yes" among the ratings (rater r says yes w.p. p_r on a yes, 1 - p_r on a no)
    share_yes = float(np.mean([np.where(ref == "yes", p[r], 1 - p[r]).mean() for r in RATERS]))
    n = 3 * n_units
    d_e = 2 * share_yes * (1 - share_yes) * n / (n - 1)
    expected_alpha = 1 - (1 - expected_pa) / d_e
    assert abs(row["alpha"] - expected_alpha) < Z_MAX * row["standard_error"]
    assert row["ci_low"] < row["alpha"] < row["ci_high"]
    assert bool(row["simulated"]) is True


def test_alpha_grows_with_the_consensus_probability(formula_releases):
    out = {}
    for rho, (_, release) in formula_releases.items():
        out[rho] = bl.rater_agreement(
            release, annotations=["binary_om", "pairwise"], n_resamples=300, rng=5
        ).to_frame()
    for name in ("binary_om", "pairwise"):
        lo = out[0.0].set_index("annotation").loc[name]
        hi = out[0.8].set_index("annotation").loc[name]
        se = np.hypot(lo["standard_error"], hi["standard_error"])
        assert hi["alpha"] - lo["alpha"] > Z_MAX * se


def test_pairs_and_participant_agreement_match_the_formula(formula):
    rho, docs, release = formula
    task = "om"
    p = _p_correct(docs, task)
    res = bl.rater_vs_participant(release, annotations=[f"binary_{task}"], n_resamples=300, rng=2)
    pairs = res.pairs.set_index(["rater_a", "rater_b"])
    n_units = _references(release, task).size
    # a rater agrees with the participant exactly when it is correct: probability p_r
    for r in RATERS:
        row = pairs.loc[(r, bl.PARTICIPANT)]
        assert row["comparison"] == "rater-participant"
        se = np.sqrt(p[r] * (1 - p[r]) / row["n_units"])
        assert abs(row["percent_agreement"] - p[r]) < Z_MAX * se
        assert row["n_units"] == n_units
    for r, s in itertools.combinations(RATERS, 2):
        row = pairs.loc[(r, s)]
        a = _pair_agreement(rho, p[r], p[s])
        assert abs(row["percent_agreement"] - a) < Z_MAX * np.sqrt(a * (1 - a) / row["n_units"])
    summary = res.by_annotation.iloc[0]
    # with rho = 0.8 raters agree with each other far more than with the participant; with rho = 0
    # less (independent errors): the paired interval must say so
    if rho > 0.5:
        assert summary["ci_low"] > 0
    else:
        assert summary["ci_high"] < 0
    assert summary["difference"] == pytest.approx(
        pairs.loc[pairs["comparison"] == "rater-rater", "alpha"].mean()
        - pairs.loc[pairs["comparison"] == "rater-participant", "alpha"].mean()
    )


@pytest.mark.parametrize("task", ["om", "human", "om_hp", "human_hp"])
def test_rater_participant_agreement_is_the_scorers_pooled_accuracy(paper, task):
    """On messy files (na, omitted answers, aliases): agreement with the participant on the
    scored binary units is exactly the scorer's pooled accuracy of the rater."""
    release, scores = paper
    pairs = bl.rater_vs_participant(
        release, annotations=[f"binary_{task}"], n_resamples=0
    ).pairs.set_index(["rater_a", "rater_b"])
    pred = scores.predictor.set_index(["predictor", "mode", "metric"])["value"]
    for r in RATERS:
        expected = pred[(r, "default", f"pooled_binary_{task}_accuracy")]
        assert pairs.loc[(r, bl.PARTICIPANT), "percent_agreement"] == pytest.approx(
            expected, abs=1e-12
        )


# ------------------------------------------------------------------------------------------
# the alpha computations vs the krippendorff package
# ------------------------------------------------------------------------------------------
def _kripp(matrix, level):
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))


def _matrix(long, unit_cols, raters, codes=None):
    wide = long.pivot_table(index="rater", columns=unit_cols, values="value", aggfunc="first")
    wide = wide.reindex(raters)
    if codes is not None:
        wide = wide.apply(lambda col: col.map(codes))
    return wide.to_numpy(dtype=float)


def test_alphas_equal_the_krippendorff_package_on_tables_built_here(paper):
    release, _ = paper
    names = ["pairwise", "panas_totals", "q2_emotion_clarity", "q3_model_fit"]
    res = bl.rater_agreement(release, annotations=names, n_resamples=0).to_frame()
    res = res.set_index("annotation")
    pr = bl.rater_vs_participant(release, annotations=["pairwise"], n_resamples=0).pairs.set_index(
        ["annotation", "rater_a", "rater_b"]
    )
    runs = release.runs
    # Q2 (nominal, one unit per conversation)
    opts = {o: i for i, o in enumerate(at.constants.Q2_OPTIONS)}
    q2 = runs.rename(columns={"predictor": "rater", "q2_emotion_clarity": "value"})
    q2 = q2[q2["rater"].isin(RATERS)]
    mat = _matrix(q2, "conversation_id", RATERS, opts)
    assert res.loc["q2_emotion_clarity", "alpha"] == pytest.approx(
        _kripp(mat, "nominal"), abs=1e-12
    )
    # Q3 (ordinal, options in order)
    opts3 = {o: i for i, o in enumerate(at.constants.Q3_OPTIONS)}
    q3 = runs.rename(columns={"predictor": "rater", "q3_model_fit": "value"})
    mat = _matrix(q3[q3["rater"].isin(RATERS)], "conversation_id", RATERS, opts3)
    assert res.loc["q3_model_fit", "alpha"] == pytest.approx(_kripp(mat, "ordinal"), abs=1e-12)
    # PANAS totals (interval): units = conversation x scale
    long = runs[runs["predictor"].isin(RATERS)].melt(
        id_vars=["predictor", "conversation_id"], value_vars=["pred_post_pa", "pred_post_na"]
    )
    long = long.rename(columns={"predictor": "rater"})
    mat = _matrix(long, ["conversation_id", "variable"], RATERS)
    assert res.loc["panas_totals", "alpha"] == pytest.approx(_kripp(mat, "interval"), abs=1e-12)
    # pairwise selections (nominal): units = comparisons, missing selections missing
    pp = release.pred_pairwise.rename(columns={"predictor": "rater", "selection": "value"})
    pp = pp[pp["rater"].isin(RATERS)].merge(
        release.pairwise_comparisons[["conversation_id", "turn", "comparison"]]
    )
    mat = _matrix(pp, ["conversation_id", "turn", "comparison"], RATERS, {"A": 0, "B": 1})
    assert res.loc["pairwise", "alpha"] == pytest.approx(_kripp(mat, "nominal"), abs=1e-12)
    # rater 1 vs participant on pairwise: winners as the participant's ratings
    gt = release.pairwise_comparisons.rename(columns={"winner": "value"}).assign(rater="P")
    both = pd.concat([pp[pp["rater"] == RATERS[0]], gt], ignore_index=True)
    mat = _matrix(
        both, ["conversation_id", "turn", "comparison"], [RATERS[0], "P"], {"A": 0, "B": 1}
    )
    assert pr.loc[("pairwise", RATERS[0], bl.PARTICIPANT), "alpha"] == pytest.approx(
        _kripp(mat, "nominal"), abs=1e-12
    )


@pytest.mark.parametrize("name", ["emotion_tags", "q1_looking_for", "emotion_label"])
def test_set_valued_alpha_equals_the_public_function(paper, name):
    """Vectorised MASI matrix and matrix-product quadratic form vs the public matrix-loop path."""
    release, _ = paper
    spec = bl.ANNOTATION_TYPES[name]
    long = bl.annotation_ratings(release, annotations=[name])[name]
    public = at.krippendorff_alpha(
        long, distance=spec.distance, columns=(list(spec.unit_columns), "rater", "value")
    )
    ours = bl.rater_agreement(release, annotations=[name], n_resamples=0).to_frame().iloc[0]
    assert ours["alpha"] == pytest.approx(public.statistic, abs=1e-12)
    assert ours["n_units"] == public.n_units


def test_masi_matrix_equals_masi_distance():
    rng = np.random.default_rng(0)
    labels = list("abcdef")
    sets = {frozenset()} | {
        frozenset(rng.choice(labels, size=rng.integers(1, 5), replace=False).tolist())
        for _ in range(60)
    }
    domain = list(sets)
    mat = bl.masi_matrix(domain)
    expected = np.array([[at.agreement.masi_distance(a, b) for b in domain] for a in domain])
    np.testing.assert_allclose(mat, expected, rtol=0, atol=1e-15)


def test_cluster_bootstrap_resamples_equal_alpha_on_expanded_data(paper):
    """Each resampled alpha equals krippendorff.alpha on the units of the drawn conversations."""
    release, _ = paper
    for name, level in (
        ("pairwise", "nominal"),
        ("panas_items", "interval"),
        ("emotion_tags", None),
    ):
        spec = bl.ANNOTATION_TYPES[name]
        long = bl.annotation_ratings(release, annotations=[name])[name]
        kernel = _AlphaKernel(long, spec)
        rows = kernel.rows(RATERS)
        sub = kernel.subset(rows, kernel.unit_conversation, len(kernel.conversations))
        weights = (
            np.random.default_rng(4)
            .multinomial(
                len(kernel.conversations),
                np.full(len(kernel.conversations), 1 / len(kernel.conversations)),
                size=3,
            )
            .astype(float)
        )
        got = sub.resampled(weights)
        counts = kernel.counts(rows)  # units x values, all units
        domain = kernel.ratings.domain
        if level is None:  # MASI through the package's callable-metric interface
            dist = np.array([[at.agreement.masi_distance(a, b) for b in domain] for a in domain])

            def metric(v1, v2, i1, i2, n_v, dtype=np.float64, dist=dist):
                return dist[i1, i2].astype(dtype)

            lvl, vd = metric, np.arange(len(domain))
        else:
            lvl, vd = level, domain
        for b in range(weights.shape[0]):
            mult = weights[b][kernel.unit_conversation].astype(int)
            expanded = np.repeat(counts, mult, axis=0)
            expected = krippendorff.alpha(
                value_counts=expanded, value_domain=vd, level_of_measurement=lvl
            )
            assert got[b] == pytest.approx(float(expected), abs=1e-10), (name, b)


def test_cluster_bootstrap_is_wider_than_unit_bootstrap_for_clustered_units(paper):
    """Turn-level units share conversation effects: resampling conversations must widen the SE."""
    release, _ = paper
    kw = dict(annotations=["binary_om", "binary_human", "pairwise"], n_resamples=600)
    conv = bl.rater_agreement(release, resample="conversation", rng=1, **kw).to_frame()
    unit = bl.rater_agreement(release, resample="unit", rng=1, **kw).to_frame()
    np.testing.assert_allclose(conv["alpha"], unit["alpha"])
    # relative MC error of an SE from B resamples ~ 1/sqrt(2B) ~ 3% each
    assert (conv["standard_error"] > unit["standard_error"] * 1.1).all()


# ------------------------------------------------------------------------------------------
# humans vs models
# ------------------------------------------------------------------------------------------
def _per_model(res, metric):
    t = res.comparisons
    return t[(t["metric"] == metric) & (t["comparison"] == "human_mean - model")]


@pytest.fixture(scope="module")
def hvm(paper):
    """The conditional analysis on all units: the conversation bootstrap, by name."""
    _, scores = paper
    return bl.humans_vs_models(
        scores,
        correction="holm",
        ground="all",
        estimand="these-participants",
        metrics=["avg_pairwise_accuracy", "q1_looking_for_score", "pooled_binary_om_mcc"],
        n_resamples=2000,
        rng=7,
    )


def test_differences_equal_score_estimates(paper, hvm):
    _, scores = paper
    pred = scores.predictor.query("mode == 'default'").set_index(["predictor", "metric"])["value"]
    table = hvm.comparisons
    for metric in table["metric"].unique():
        sub = table[table["metric"] == metric]
        humans = [pred[(h, metric)] for h in hvm.humans]
        models = [pred[(m, metric)] for m in hvm.models]
        for row in sub.itertuples():
            h = np.mean(humans) if row.human == HUMAN_MEAN else pred[(row.human, metric)]
            m = np.mean(models) if row.model == MODEL_MEAN else pred[(row.model, metric)]
            assert row.estimate_human == pytest.approx(h, abs=1e-12)
            assert row.estimate_model == pytest.approx(m, abs=1e-12)
            assert row.difference == pytest.approx(h - m, abs=1e-12)


def test_paired_standard_error_matches_the_per_conversation_differences(paper, hvm):
    """Bootstrap SE of (mean of humans - model) = SD of per-conversation differences / sqrt(C)."""
    _, scores = paper
    metric = "q1_looking_for_score"
    conv = scores.conversation
    wide = conv[(conv["metric"] == metric) & (conv["mode"] == "default")].pivot(
        index="conversation_id", columns="predictor", values="value"
    )
    assert not wide.isna().any().any()
    n_conv = len(wide)
    hmean = wide[list(hvm.humans)].mean(axis=1)
    rows = _per_model(hvm, metric)
    tol = Z_MAX / np.sqrt(2 * hvm.boot.n_resamples)  # relative MC error of a bootstrap SE
    unpaired_wider = 0
    for row in rows.itertuples():
        d = hmean - wide[row.model]
        analytic = d.std(ddof=0) / np.sqrt(n_conv)
        assert row.standard_error == pytest.approx(analytic, rel=tol)
        unpaired = np.sqrt((hmean.var(ddof=0) + wide[row.model].var(ddof=0)) / n_conv)
        unpaired_wider += unpaired > analytic
    # the conversation effect is shared by every predictor: pairing removes it
    assert unpaired_wider == len(rows)


def test_paired_intervals_are_narrower_than_unpaired(hvm):
    boot = hvm.boot
    labels = boot.labels
    for metric in hvm.comparisons["metric"].unique():
        idx = {
            p: i
            for i, (p, m) in enumerate(zip(labels["predictor"], labels["metric"]))
            if m == metric
        }
        hcols = [idx[h] for h in hvm.humans]
        dist_h = boot.bootstrap_distribution[:, hcols].mean(axis=1)
        rows = _per_model(hvm, metric)
        for row in rows.itertuples():
            dist_m = boot.bootstrap_distribution[:, idx[row.model]]
            # the difference distribution is the difference of the labels' distributions
            assert row.standard_error == pytest.approx(np.std(dist_h - dist_m, ddof=1), rel=1e-12)
            unpaired = np.hypot(np.std(dist_h, ddof=1), np.std(dist_m, ddof=1))
            assert row.standard_error < unpaired


def test_summary_counts_models_beaten_after_correction(hvm):
    from attunestats.inference.multiplicity import adjust_pvalues

    for metric, sub in hvm.comparisons.groupby("metric"):
        per = sub[sub["comparison"] == "human_mean - model"]
        adj = adjust_pvalues(per["pvalue"].to_numpy(), method="holm")
        np.testing.assert_allclose(per["pvalue_adjusted"], adj)
        beaten = int(((adj < 0.05) & (per["difference"] > 0)).sum())
        row = hvm.by_metric.set_index("metric").loc[metric]
        assert row["n_models_beaten"] == beaten
        assert row["share_models_beaten"] == beaten / len(hvm.models)
    assert hvm.comparisons["simulated"].all() and hvm.by_metric["simulated"].all()
    assert set(hvm.comparisons["correction"]) == {"holm"}
    assert set(hvm.comparisons["ground"]) == {"all"}
    assert set(hvm.comparisons["estimand"]) == {"these-participants"}


# ------------------------------------------------------------------------------------------
# claim (f)
# ------------------------------------------------------------------------------------------
def test_claim_f_supported_when_planted(paper):
    release, scores = paper
    res = bl.claim_f(scores, release)
    assert res.verdict == "supported"
    assert res.preference_supported and res.goal_supported
    ev = res.evidence
    pref = ev[ev["role"] == "preference"]
    assert len(pref) == res.n_models  # one row per tested quantity
    assert pref["shown"].sum() == res.n_models_beaten > res.n_models / 2
    goal = ev[ev["role"] == "goal"]
    assert len(goal) == 1 and goal["ci_high"].iloc[0] < 0 and goal["shown"].iloc[0]
    assert (ev["ground"] == "common").all() and (ev["estimand"] == "participants").all()
    assert res.simulated and res.to_frame()["simulated"].all()
    assert res.to_dict()["verdict"] == "supported"
    assert set(res.agreement["annotation"]) == {"pairwise", "q1_looking_for"}


def test_claim_f_rows_are_coherent(paper):
    """Interval excludes 0 <=> adjusted p < alpha in every row; shown <=> that, on the claimed
    side; the verdict counts exactly those flags."""
    release, scores = paper
    for correction in ("holm", "maxt", "bh"):
        res = bl.claim_f(scores, release, correction=correction, rng=1,
                         secondary_preference_metric="avg_pairwise_kendall_tau")  # fmt: skip
        ev = res.evidence
        excludes = (ev["ci_low"] > 0) | (ev["ci_high"] < 0)
        assert (excludes == (ev["pvalue_adjusted"] < 0.05)).all(), correction
        positive = ev["claimed"] == "positive"
        shown = np.where(positive, ev["ci_low"] > 0, ev["ci_high"] < 0)
        assert (ev["shown"].to_numpy() == shown).all()
        sig = ev["pvalue_adjusted"] < 0.05
        side = np.where(positive, ev["difference"] > 0, ev["difference"] < 0)
        assert (ev["shown"] == (sig & side)).all()
        assert set(ev.loc[~ev["enters_verdict"], "role"]) == {"secondary_preference"}
        pref = ev[ev["role"] == "preference"]
        assert res.n_models_beaten == int(pref["shown"].sum())
        assert res.n_models_better == int(pref["opposite_shown"].sum())
        # neither side shown: "not decidable" exactly when the planning power is below 0.8
        assert 0.0 <= res.power <= 1.0 and res.to_dict()["power"] == res.power
        if res.verdict not in ("supported", "contradicted"):
            assert (res.verdict == "not decidable at this sample size") == (res.power < 0.8)


@pytest.mark.parametrize("seed", [1, 2])
def test_claim_f_not_supported_in_the_null_scenario(seed):
    _, release = _release(replace(SCENARIOS["null"], n_conversations=60), seed=seed)
    res = bl.claim_f(release)
    assert res.verdict != "supported"


def test_claim_f_contradicted_when_the_opposite_is_planted():
    cfg = replace(
        SCENARIOS["paper"], n_conversations=60, human_skill_mean=(0.5, 1.0, -0.8, 1.5, 0.2)
    )
    _, release = _release(cfg, seed=4)
    res = bl.claim_f(release)
    assert res.verdict == "contradicted"
    assert res.preference_contradicted and res.goal_contradicted


# ------------------------------------------------------------------------------------------
# tables, figures, seeds, errors
# ------------------------------------------------------------------------------------------
def test_seeded_results_reproduce_and_do_not_depend_on_the_selection(paper):
    release, _ = paper
    kw = dict(resample="conversation", n_resamples=200, rng=9)
    a = bl.rater_agreement(release, **kw).to_frame()
    b = bl.rater_agreement(release, **kw).to_frame()
    pd.testing.assert_frame_equal(a, b)
    one = bl.rater_agreement(release, annotations=["pairwise"], **kw).to_frame()
    cols = ["alpha", "ci_low", "ci_high", "standard_error"]
    np.testing.assert_array_equal(
        one.iloc[0][cols].to_numpy(float),
        a.set_index("annotation").loc["pairwise", cols].to_numpy(float),
    )


def test_tables_and_figures_are_labelled_simulated(paper):
    release, scores = paper
    tables = bl.baseline_tables(release, scores, rng=1)
    assert set(tables) == {
        "rater_agreement", "rater_vs_participant", "rater_vs_participant_summary",
        "humans_vs_models", "humans_vs_models_summary", "claim_f",
    }  # fmt: skip
    for frame in tables.values():
        assert frame["simulated"].all()
    assert tables["rater_agreement"]["method"].str.startswith("participant bootstrap-t").all()
    jack = bl.baseline_tables(release, scores, agreement_method="jackknife", rng=1)
    assert (
        jack["rater_vs_participant_summary"]["df"]
        == jack["rater_agreement"]["n_participants"].max() - 1
    ).all()
    figs = [
        rb.plot_rater_agreement(tables["rater_agreement"], simulated=True),
        rb.plot_rater_vs_participant(tables["rater_vs_participant_summary"], simulated=True),
        rb.plot_humans_vs_models(tables["humans_vs_models_summary"], simulated=True),
        rb.plot_humans_vs_models(
            tables["humans_vs_models"], metric="avg_pairwise_accuracy", simulated=True
        ),
    ]
    import matplotlib.pyplot as plt

    for fig in figs:
        assert SIMULATED_LABEL in [t.get_text() for t in fig.texts]
        plt.close(fig)


def test_results_follow_the_result_protocol(paper, hvm):
    """summary() and repr() of every result: title, SIMULATED tag, the table to_frame() gives."""
    release, scores = paper
    results = {
        "Agreement among the human raters": bl.rater_agreement(
            release, annotations=["pairwise", "q3_model_fit"], n_resamples=50, rng=1
        ),
        "Human raters against the participants": bl.rater_vs_participant(
            release, annotations=["pairwise"], n_resamples=50, rng=1
        ),
        "Human raters against models": hvm,
        "Claim (f): the human baseline on preferences and on goals": bl.claim_f(scores, release),
    }
    for title, res in results.items():
        assert dataclasses.is_dataclass(res) and res.__dataclass_params__.frozen
        text = str(res.summary())
        assert text.splitlines()[1].startswith(title), text
        assert "SIMULATED DATA" in text and SIMULATED_LABEL in text
        line = repr(res)
        assert line.startswith(f"<{type(res).__name__}: {len(res.to_frame())} rows")
        assert "SIMULATED" in line and "\n" not in line
    agreement = str(results["Agreement among the human raters"].summary())
    assert "q3_model_fit" in agreement and "Raters:" in agreement
    claim = str(results["Claim (f): the human baseline on preferences and on goals"].summary())
    assert "Verdict:" in claim and "preference" in claim and "Ground:" in claim
    for res in results.values():  # every summary names its estimand and method
        text = str(res.summary())
        assert "Estimand:" in text and "Method:" in text
    words = " ".join(str(results["Agreement among the human raters"].summary()).split())
    assert "population of participants" in words


def test_statistics_do_not_import_the_report_layer():
    import subprocess
    import sys

    code = (
        "import sys, attunestats.baseline, attunestats.independence; "
        "print(sorted(m for m in sys.modules if m.startswith(('attunestats.report', "
        "'attunestats.artifacts', 'attunestats.cli', 'matplotlib'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bad_input_is_rejected(paper):
    release, scores = paper
    with pytest.raises(ValueError, match="at least 2"):
        bl.rater_agreement(release, predictors=["sim-human-1"])
    with pytest.raises(ValueError, match="not in the release"):
        bl.rater_agreement(release, predictors=["sim-human-1", "nobody"])
    with pytest.raises(ValueError, match="annotations must be names"):
        bl.rater_agreement(release, annotations=["smiles"])
    with pytest.raises(ValueError, match="resample must be one of"):
        bl.rater_agreement(release, resample="bogus")
    with pytest.raises(ValueError, match="mode='verbose' has no runs"):
        bl.rater_vs_participant(release, mode="verbose")
    with pytest.raises(TypeError, match="release must be"):
        bl.rater_agreement(scores)
    with pytest.raises(TypeError, match="correction"):
        bl.humans_vs_models(scores)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="correction must be one of"):
        bl.humans_vs_models(scores, correction="sidak")  # type: ignore[arg-type]
    boot = at.bootstrap_scores(
        scores, unit="conversation", metrics=["avg_pairwise_accuracy"], n_resamples=50, rng=1
    )
    with pytest.raises(TypeError, match="data must be a Release"):
        bl.humans_vs_models(boot, correction="holm")
    with pytest.raises(ValueError, match="both as humans and as models"):
        bl.humans_vs_models(scores, correction="holm", ground="all", humans=["sim-human-1"],
                            models=["sim-human-1"])  # fmt: skip
    with pytest.raises(ValueError, match="higher is better"):
        bl.claim_f(scores, release, goal_metric="panas_mae")


# --- claim (f): power and "not decidable" ---------------------------------------------------------


def _evidence(pref_diffs, goal_diff, se, n_units=11, unit="participants"):
    rows = [{"role": "preference", "difference": d} for d in pref_diffs]
    rows.append({"role": "goal", "difference": goal_diff})
    ev = pd.DataFrame(rows)
    ev["enters_verdict"], ev["standard_error"] = True, se
    ev["unit"], ev["n_units"] = unit, n_units
    return ev


def test_claim_f_power_is_the_binomial_closed_form_when_the_models_are_alike():
    from scipy import stats

    from attunestats.baseline.claim import claim_f_power

    # five models equally far from the humans: the number of preference rows shown is
    # binomial(5, p), and "more than half" means at least 3; the goal row multiplies
    alpha, se, d, g = 0.05, 0.03, 0.05, -0.04
    power, needed = claim_f_power(_evidence([d] * 5, g, se), alpha=alpha, n_models=5)
    q = stats.t.ppf(1 - alpha / 2, 10)
    p, p_goal = stats.t.sf(q - d / se, 10), stats.t.sf(q - abs(g) / se, 10)
    assert power == pytest.approx(stats.binom.sf(2, 5, p) * p_goal, rel=1e-12)

    # participants needed: the first P whose power (SE scaled by sqrt(11 / P), df P - 1) is 0.8
    def at(n):
        s, qn = se * np.sqrt(11 / n), stats.t.ppf(1 - alpha / 2, n - 1)
        return stats.binom.sf(2, 5, stats.t.sf(qn - d / s, n - 1)) * stats.t.sf(
            qn - abs(g) / s, n - 1
        )

    assert power < 0.8 and at(needed) >= 0.8 > at(needed - 1)
    # not a number of participants: no planning numbers
    assert np.isnan(claim_f_power(_evidence([d] * 5, g, se, unit="conversations"), alpha=alpha,
                                  n_models=5)[0])  # fmt: skip


def test_claim_f_power_tests_rows_as_the_audit_did():
    # with the rows' own df, the level their intervals were computed at (Holm's step here taken
    # as alpha / 5 for the preference rows) and their claimed side, the closed form changes
    # accordingly; a goal difference on the wrong side has (almost) no power, at any size
    from scipy import stats

    from attunestats.baseline.claim import claim_f_power

    alpha, se, d, g, df = 0.05, 0.03, 0.05, -0.04, 6.3
    ev = _evidence([d] * 5, g, se)
    ev["df"], ev["claimed"] = df, ["positive"] * 5 + ["negative"]
    ev["interval_level"] = [1 - alpha / 5] * 5 + [1 - alpha]
    power, _ = claim_f_power(ev, alpha=alpha, n_models=5)
    p = stats.t.sf(stats.t.ppf(1 - alpha / 10, df) - d / se, df)
    p_goal = stats.t.sf(stats.t.ppf(1 - alpha / 2, df) - abs(g) / se, df)
    assert power == pytest.approx(stats.binom.sf(2, 5, p) * p_goal, rel=1e-12)
    wrong = ev.assign(difference=[d] * 5 + [-g])
    power, needed = claim_f_power(wrong, alpha=alpha, n_models=5)
    assert power < 0.01 and np.isnan(needed)
