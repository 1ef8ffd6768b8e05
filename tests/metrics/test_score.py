"""score() against independent references on simulated releases.

- the per-turn reference loop (attunestats.metrics.reference, plain Python following the spec text)
  must agree to 1e-12 on every metric of every table, on random edge-case releases and on simulated
  releases, under the default and the alternative conventions;
- bounds of every registered metric on the whole bundled (paper-sized, simulated) release;
- predictor-level aggregation against pandas/scipy (means, SE = scipy.stats.sem, pooled metrics from
  summed counts with a hand-written formula, MCC = Pearson correlation of the 0/1 vectors,
  composite z = scipy.stats.zscore);
- Kendall tau against scipy.stats.kendalltau on rankings rebuilt from the release tables;
- the simulator's planted truth as oracle: a predictor with higher true skill for a capability scores
  higher on that capability's metrics.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from metrics_support import random_release
from scipy import stats

from attunestats.metrics import METRICS, ScoringOptions, pooled_statistic, score
from attunestats.metrics.reference import score_reference
from attunestats.release.load import release_from_documents
from attunestats.release.model import TABLE_SCHEMAS
from attunestats.release.simulate import (
    CAPABILITIES,
    SCENARIOS,
    SimulationConfig,
    simulate_documents,
)

ALTERNATIVE = ScoringOptions(
    unknown_gt_emotion="drop", f1_intensity_both_empty=0.0, hp_accuracy_no_judgements=1.0,
    pairwise_none_vs_missing="right", va_matching="greedy",
    perspective_alignment_mcc="nonzero_denominator",
)  # fmt: skip
TOL = 1e-12


def assert_tables_equal(vec: pd.DataFrame, ref: pd.DataFrame, keys: list[str], cols: list[str]):
    a = vec.copy()
    b = ref.copy()
    for k in keys:
        a[k] = a[k].astype(str)
        b[k] = b[k].astype(str)
    m = a.merge(b, on=keys, how="outer", suffixes=("_vec", "_ref"), indicator=True)
    only = m[m["_merge"] != "both"]
    assert only.empty, f"rows in one table only:\n{only.head(10)}"
    for c in cols:
        x = m[f"{c}_vec"].to_numpy(float)
        y = m[f"{c}_ref"].to_numpy(float)
        same = (np.isnan(x) & np.isnan(y)) | (np.abs(x - y) <= TOL)
        assert same.all(), f"{c} differs:\n{m.loc[~same, keys + [f'{c}_vec', f'{c}_ref']].head(10)}"


def assert_matches_reference(release, options):
    s = score(release, options=options)
    ref = score_reference(release, options=options)
    turn_keys = ["predictor", "mode", "conversation_id", "turn", "metric"]
    assert_tables_equal(s.turn, ref["turn"], turn_keys, ["value"])
    conv_keys = ["predictor", "mode", "conversation_id", "metric"]
    assert_tables_equal(s.conversation, ref["conversation"], conv_keys, ["value"])
    assert_tables_equal(s.counts, ref["counts"], ["predictor", "mode", "conversation_id", "task"],
                        ["tp", "tn", "fp", "fn"])  # fmt: skip
    assert_tables_equal(s.predictor, ref["predictor"], ["predictor", "mode", "metric"],
                        ["value", "standard_error", "n"])  # fmt: skip
    return s


def test_random_release_matches_schemas():
    rel = random_release(0)
    for name, schema in TABLE_SCHEMAS.items():
        assert list(rel.tables[name].columns) == list(schema), name
    assert len(rel.tables["pred_turns"]) > 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", [ScoringOptions(), ALTERNATIVE], ids=["default", "alternative"])
def test_vectorised_equals_reference_on_edge_case_releases(seed, options):
    assert_matches_reference(random_release(seed), options)


def _simulated(n_conversations=25, n_models=4, n_human_raters=1, seed=5, **kw):
    cfg = replace(SimulationConfig(), n_conversations=n_conversations, n_models=n_models,
                  n_human_raters=n_human_raters, **kw)  # fmt: skip
    docs = simulate_documents(cfg, rng=seed)
    return docs, release_from_documents(docs.conversations, docs.runs, docs.release_info)


@pytest.fixture(scope="module")
def messy_simulated():
    """A small simulated release with doubled messiness (both conventions score the same one)."""
    return _simulated(messiness=2.0)[1]


@pytest.mark.parametrize("options", [ScoringOptions(), ALTERNATIVE], ids=["default", "alternative"])
def test_vectorised_equals_reference_on_simulated_release(options, messy_simulated):
    s = assert_matches_reference(messy_simulated, options)
    assert s.simulated


@pytest.mark.slow
def test_vectorised_equals_reference_on_paper_sized_release():
    _, rel = _simulated(n_conversations=200, n_models=11, n_human_raters=3, seed=1)
    assert_matches_reference(rel, ScoringOptions())


# --------------------------------------------------------------------------------------------
# the bundled simulated release


@pytest.fixture(scope="module")
def bundled(bundled_release, bundled_scores):
    """The bundled release and its scores (session fixtures of conftest.py: read-only)."""
    return bundled_release, bundled_scores


def test_names_by_kind_match_the_simulated_design(bundled):
    """The bundled release simulates 11 evaluated models and 3 human raters (its defaults)."""
    rel, s = bundled
    models, humans = s.names("model"), s.names("human")
    assert (len(models), len(humans)) == (11, 3)
    assert set(models).isdisjoint(humans)
    assert set(models) | set(humans) == set(s.conversation["predictor"]) == set(s.names())
    assert models == sorted(models)
    with pytest.raises(ValueError, match="kind must be"):
        s.names("models")


def test_repr_names_the_design_the_registry_and_the_conventions(bundled):
    from attunestats.metrics.registry import metric_names

    rel, s = bundled
    n_turn, n_conv = len(metric_names(level="turn")), len(metric_names(level="conversation"))
    assert repr(s) == (f"<Scores: 14 predictors x 200 conversations; {n_turn} turn and {n_conv} "
                       "conversation metrics; default conventions; SIMULATED>")  # fmt: skip
    changed = replace(s, options=ScoringOptions(va_matching="greedy"))
    assert "conventions changed: va_matching;" in repr(changed)


def test_bounds_of_every_metric_on_the_bundled_release(bundled):
    rel, s = bundled
    assert rel.simulated and s.simulated
    assert s.conversation.attrs["label"]
    for level, df in (("turn", s.turn), ("conversation", s.conversation),
                      ("predictor", s.predictor)):  # fmt: skip
        seen = set(df["metric"])
        for name in seen:
            spec = METRICS[name]
            values = df.loc[df["metric"] == name, "value"].to_numpy(float)
            lo, hi = spec.range
            ok = values[~np.isnan(values)]
            assert ok.size, (level, name)
            assert ok.min() >= lo - 1e-12 and ok.max() <= hi + 1e-12, (
                level,
                name,
                ok.min(),
                ok.max(),
            )
            if not spec.nullable and level != "predictor":
                assert not np.isnan(values).any(), (level, name)
    registered = {n for n, sp in METRICS.items() if sp.level == "conversation" and sp.builtin}
    assert registered <= set(s.conversation["metric"])
    turn_registered = {n for n, sp in METRICS.items() if sp.level == "turn" and sp.builtin}
    assert turn_registered <= set(s.turn["metric"])


def test_shapes_and_keys(bundled):
    rel, s = bundled
    n_runs = len(rel.runs)
    n_conv_metrics = s.conversation["metric"].nunique()
    assert len(s.conversation) == n_runs * n_conv_metrics  # every predictor has drafts here
    assert len(s.counts) == 4 * n_runs
    scored = rel.pred_turns.merge(rel.turns[["conversation_id", "turn"]])
    assert len(s.turn_counts) == 4 * len(scored)
    assert s.turn[["predictor", "mode", "conversation_id", "turn"]].drop_duplicates().shape[
        0
    ] == len(scored)
    # the comparisons table has one row per ground-truth comparison of each scored turn
    per_turn = rel.pairwise_comparisons.groupby(["conversation_id", "turn"]).size().rename("n")
    expected = scored.merge(per_turn.reset_index(), on=["conversation_id", "turn"])["n"].sum()
    assert len(s.comparisons) == expected
    assert list(s.design.columns) == ["conversation_id", "participant_id", "diagnosis_group",
                                      "topic", "n_turns"]  # fmt: skip
    wide = s.wide("conversation")
    assert len(wide) == n_runs
    assert s.options == ScoringOptions()
    assert s.conversation.attrs["scoring_options"] == ScoringOptions().to_dict()


def test_turn_counts_sum_to_conversation_counts(bundled):
    _, s = bundled
    keys = ["predictor", "mode", "conversation_id", "task"]
    summed = s.turn_counts.groupby(keys)[["tp", "tn", "fp", "fn"]].sum().reset_index()
    merged = s.counts.merge(summed, on=keys, how="left", suffixes=("", "_t")).fillna(0)
    for c in ("tp", "tn", "fp", "fn"):
        assert (merged[c] == merged[f"{c}_t"]).all()


def _hand_stat(stat, tp, tn, fp, fn):
    tp, tn, fp, fn = (float(x) for x in (tp, tn, fp, fn))
    n = tp + tn + fp + fn
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    if stat == "accuracy":
        return (tp + tn) / n if n else 0.0
    if stat == "precision":
        return p
    if stat == "recall":
        return r
    if stat == "f1":
        return 2 * p * r / (p + r) if p + r else 0.0
    den = ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)) ** 0.5
    return (tp * tn - fp * fn) / den if den else 0.0


def test_predictor_level_aggregation(bundled):
    _, s = bundled
    conv = s.conversation
    pred = s.predictor.set_index(["predictor", "mode", "metric"])
    for name, grp in conv.groupby("metric"):
        spec = METRICS[name]
        for (p, md), g in grp.groupby(["predictor", "mode"]):
            row = pred.loc[(p, md, name)]
            if spec.aggregation == "mean":
                vals = g["value"].dropna().to_numpy()
                assert row["value"] == pytest.approx(vals.mean(), abs=1e-12), name
                assert row["n"] == len(vals)
                assert row["standard_error"] == pytest.approx(stats.sem(vals), abs=1e-12), name
            else:
                c = s.counts[(s.counts["predictor"] == p) & (s.counts["mode"] == md)
                             & (s.counts["task"] == spec.pooled_task)][["tp", "tn", "fp", "fn"]].sum()  # fmt: skip
                assert row["value"] == pytest.approx(_hand_stat(spec.pooled_stat, *c), abs=1e-12)
    comp = s.predictor[s.predictor["metric"] == "composite_score"]["value"].to_numpy()
    z = s.predictor[s.predictor["metric"] == "composite_z"]["value"].to_numpy()
    np.testing.assert_allclose(z, stats.zscore(comp, ddof=1), atol=1e-12)


def test_pooled_metrics_of_conversations_from_counts(bundled):
    _, s = bundled
    conv = s.conversation.set_index(["predictor", "mode", "conversation_id", "metric"])["value"]
    sample = s.counts.sample(300, random_state=1)
    for row in sample.itertuples(index=False):
        for stat in ("accuracy", "precision", "recall", "f1", "mcc"):
            got = conv[(row.predictor, row.mode, row.conversation_id,
                        f"pooled_binary_{row.task}_{stat}")]  # fmt: skip
            assert got == pytest.approx(_hand_stat(stat, row.tp, row.tn, row.fp, row.fn), abs=1e-12)


def _vectors(tp, tn, fp, fn):
    y_true = np.r_[np.ones(tp), np.zeros(tn), np.zeros(fp), np.ones(fn)]
    y_pred = np.r_[np.ones(tp), np.zeros(tn), np.ones(fp), np.zeros(fn)]
    return y_true, y_pred


def test_pooled_mcc_and_f1_against_independent_implementations(bundled):
    _, s = bundled
    sums = s.counts.groupby(["predictor", "mode", "task"])[["tp", "tn", "fp", "fn"]].sum()
    for c in sums.itertuples(index=False):
        y, yhat = _vectors(c.tp, c.tn, c.fp, c.fn)
        mcc = stats.pearsonr(y, yhat).statistic  # phi coefficient = MCC
        assert float(pooled_statistic("mcc", *c)) == pytest.approx(mcc, abs=1e-12)
        # F1 as the harmonic mean of precision and recall computed from the vectors
        prec = (y[yhat == 1] == 1).mean()
        rec = (yhat[y == 1] == 1).mean()
        assert float(pooled_statistic("f1", *c)) == pytest.approx(
            stats.hmean([prec, rec]), abs=1e-12
        )
        assert float(pooled_statistic("accuracy", *c)) == pytest.approx(
            (y == yhat).mean(), abs=1e-12
        )


def test_kendall_tau_against_scipy(bundled):
    rel, s = bundled
    pc = rel.pairwise_comparisons
    pp = rel.pred_pairwise
    tau = s.turn[s.turn["metric"] == "pairwise_kendall_tau"].dropna(subset=["value"])
    sample = tau.sample(300, random_state=2)
    keys = ["predictor", "mode", "conversation_id", "turn"]
    pc = pc.merge(sample[["conversation_id", "turn"]].drop_duplicates())
    pp = pp.merge(sample[keys])
    pc_g = {k: g for k, g in pc.groupby(["conversation_id", "turn"])}
    pp_g = {k: g for k, g in pp.groupby(keys)}
    for row in sample.itertuples(index=False):
        comps = pc_g[(row.conversation_id, row.turn)].sort_values("comparison")
        sel = pp_g.get((row.predictor, row.mode, row.conversation_id, row.turn))
        sel = {} if sel is None else dict(zip(sel["comparison"], sel["selection"], strict=True))
        labels = sorted(set(comps["response_a"]) | set(comps["response_b"]))
        gt_w = dict.fromkeys(labels, 0)
        em_w = dict.fromkeys(labels, 0)
        for c in comps.itertuples(index=False):
            if c.winner in ("A", "B"):
                gt_w[c.response_a if c.winner == "A" else c.response_b] += 1
            e = sel.get(c.comparison)
            if e in ("A", "B"):
                em_w[c.response_a if e == "A" else c.response_b] += 1
        # rank = position after sorting by (-wins, label): no ties, so tau-b = (C - D) / (C + D)
        gt_pos = [sorted(labels, key=lambda x: (-gt_w[x], x)).index(x) for x in labels]
        em_pos = [sorted(labels, key=lambda x: (-em_w[x], x)).index(x) for x in labels]
        assert row.value == pytest.approx(stats.kendalltau(gt_pos, em_pos).statistic, abs=1e-12)


# --------------------------------------------------------------------------------------------
# planted truth as the oracle

# metrics that must follow each capability's true skill (sign from higher_is_better)
CAPABILITY_METRICS = {
    "emotion": ["avg_emotion_f1", "avg_emotion_hit_rate", "emotion_tracking"],
    "behaviour": ["avg_binary_om_accuracy", "avg_binary_human_accuracy", "pooled_binary_om_mcc",
                  "pooled_binary_human_f1", "avg_binary_om_accuracy_hp"],
    "preference": ["avg_pairwise_accuracy", "avg_pairwise_kendall_tau"],
    "holistic": ["holistic_comprehension", "conversation_wide_questions_score"],
    "response": ["avg_response_similarity", "avg_draft_judge_score", "avg_draft_binary_alignment"],
}  # fmt: skip
SKILL_GAP = 1.0


def test_higher_true_skill_scores_higher():
    """Pairs of simulated models whose true skill differs by >= 1 logit are ordered correctly.

    Null scenario (no correlation, no topic/diagnosis effects) with skill sd 1 on every
    capability, 8 models, 60 conversations, fixed seed. Tolerance from the simulation itself: the
    standard error of a paired difference of conversation values is at most 0.033 (emotion F1),
    0.015 (binary accuracy), 0.021 / 0.055 (pairwise accuracy / tau), 0.020 / 0.044 (holistic
    pillar / survey score) and 0.017 (draft metrics), while one logit of skill moves these metrics
    by about 0.20, 0.19, 0.19 / 0.28, 0.09 / 0.16 and 0.12-0.19: a 1-logit gap is 3.6 to 12 standard
    errors, so a misordered pair has probability below 2e-4 if the metrics are right.
    """
    cfg = replace(SCENARIOS["null"], n_conversations=60, n_models=8, n_human_raters=0,
                  skill_sd=1.0)  # fmt: skip
    docs = simulate_documents(cfg, rng=11)
    rel = release_from_documents(docs.conversations, docs.runs, docs.release_info)
    wide = score(rel).wide("predictor").set_index("predictor")
    theta = dict(zip(docs.effects.predictors, docs.effects.theta, strict=True))
    for ci, cap in enumerate(CAPABILITIES):
        th = np.array([theta[p][ci] for p in wide.index])
        pairs = [(i, j) for i, j in itertools.combinations(range(len(th)), 2)
                 if abs(th[i] - th[j]) >= SKILL_GAP]  # fmt: skip
        assert len(pairs) >= 5, cap
        for m in CAPABILITY_METRICS[cap]:
            sign = 1.0 if METRICS[m].higher_is_better else -1.0
            v = wide[m].to_numpy()
            for i, j in pairs:
                assert np.sign(v[i] - v[j]) == sign * np.sign(th[i] - th[j]), (cap, m, i, j)


@pytest.mark.parametrize("seed", [0, 3])
def test_shuffling_table_rows_changes_nothing(seed):
    """Every table's row order is irrelevant (positions and keys carry the order)."""
    from attunestats.release.model import Release

    rel = random_release(seed)
    rng = np.random.default_rng(seed)
    shuffled = {
        name: df.iloc[rng.permutation(len(df))].reset_index(drop=True)
        for name, df in rel.tables.items()
    }
    rel2 = Release(root=None, tables=shuffled, report=rel.report, info=rel.info)
    a, b = score(rel), score(rel2)
    for table, keys in (("turn", ["predictor", "mode", "conversation_id", "turn", "metric"]),
                        ("conversation", ["predictor", "mode", "conversation_id", "metric"]),
                        ("predictor", ["predictor", "mode", "metric"])):  # fmt: skip
        x = getattr(a, table).sort_values(keys, ignore_index=True)
        y = getattr(b, table).sort_values(keys, ignore_index=True)
        pd.testing.assert_frame_equal(x, y, check_exact=False, rtol=0, atol=1e-12)
