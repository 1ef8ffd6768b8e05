"""Humans vs models on common ground (issue 17 item 3) and on the participant estimand (issue 16).

The required test: a model that answers exactly like a human rater wherever the rater answered,
and differently everywhere else (conversations and turns the rater lacks, binary judgements the
rater left unanswered in some or all tasks, pairwise comparisons without the rater's selection,
holistic fields the rater left empty), differs from the rater by exactly 0 on every metric and on
the composite. The copy is built here, row by row, from the release tables.

Independent references for the inference: a hand t interval on per-participant means
(``scipy.stats.t``) for a plain mean metric, the jackknife computed by a loop over participants
calling ``score()`` on the release without that participant's conversations, and Holm's
procedure written out here.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import attunestats as at
from attunestats import baseline as bl
from attunestats.baseline.comparison import HUMAN_MEAN, MODEL_MEAN
from attunestats.baseline.ground import COMMON_GROUND_RULE, metric_requirements
from attunestats.metrics.registry import MAIN_METRICS, iter_specs
from attunestats.release.load import release_from_documents
from attunestats.release.simulate import SCENARIOS, simulate_documents

RATER = "sim-human-1"
COPY = "copy-of-rater"
OTHER = "sim-model-01"  # whose answers the copy gives where the rater has none
TASKS = ("om", "human", "om_hp", "human_hp")


def _release(config, seed):
    docs = simulate_documents(config, rng=seed)
    return release_from_documents(docs.conversations, docs.runs, docs.release_info)


def _with_tables(release, **tables):
    new = dict(release.tables)
    new.update(tables)
    return replace(release, tables=MappingProxyType(new))


def _key(frame, cols):
    return pd.MultiIndex.from_frame(frame[cols].astype({c: object for c in cols if c != "turn"}))


def _in(frame, keys, cols):
    return np.asarray(_key(frame, cols).isin(keys), dtype=bool)


def _references(release):
    """(conversation, turn, question, task) scored in the task (reference yes/no), written here."""
    bj = release.binary_judgements
    obs = bj["observed"].astype(object)
    om = obs.where(obs.notna(), bj["llm_value"].astype(object))
    hp = bj["preferred"].astype(object).where(bj["preferred"].notna(), obs)
    rows = []
    for task in TASKS:
        ref = om if task.startswith("om") else hp
        sel = ref.isin(["yes", "no"]).to_numpy()
        rows.append(bj.loc[sel, ["conversation_id", "turn", "question_id"]].assign(task=task))
    return pd.concat(rows, ignore_index=True)


def _gappy_rater(release, rng):
    """Remove parts of the rater's answers: runs, turns, binary answers (some in one task only),
    pairwise selections, holistic fields. Returns the release and what was removed."""
    t = release.tables
    is_r = {name: (t[name]["predictor"] == RATER).to_numpy() for name in (
        "runs", "pred_turns", "pred_emotion_tags", "pred_binary", "pred_pairwise",
        "pred_panas_items", "pred_survey_choices")}  # fmt: skip
    convs = sorted(t["runs"].loc[is_r["runs"], "conversation_id"].unique())
    drop_convs = list(rng.choice(convs, size=3, replace=False))
    rest = [c for c in convs if c not in drop_convs]
    tables = {}
    for name, mask in is_r.items():
        frame = t[name]
        gone = mask & frame["conversation_id"].isin(drop_convs).to_numpy()
        tables[name] = frame.loc[~gone].reset_index(drop=True)
    # turns: drop 8 of the rater's turns (in conversations it keeps)
    pt = tables["pred_turns"]
    rt = pt.loc[(pt["predictor"] == RATER), ["conversation_id", "turn"]]
    rt = rt.loc[rt["conversation_id"].isin(rest)]
    drop_turns = rt.iloc[rng.choice(len(rt), size=8, replace=False)]
    tk = _key(drop_turns, ["conversation_id", "turn"])
    for name in ("pred_turns", "pred_emotion_tags", "pred_binary", "pred_pairwise"):
        frame = tables[name]
        gone = (frame["predictor"] == RATER).to_numpy() & _in(
            frame, tk, ["conversation_id", "turn"]
        )
        tables[name] = frame.loc[~gone].reset_index(drop=True)
    # binary answers: 40 (judgement, task) answers removed (partial judgements), and every task
    # of 15 more judgements (unanswered)
    pb = tables["pred_binary"]
    rb = np.flatnonzero((pb["predictor"] == RATER).to_numpy() & pb["task"].isin(TASKS).to_numpy())
    one_task = rng.choice(rb, size=40, replace=False)
    jcols = ["conversation_id", "turn", "question_id"]
    whole = pb.iloc[rng.choice(rb, size=15, replace=False)][jcols]
    gone = np.zeros(len(pb), dtype=bool)
    gone[one_task] = True
    gone |= (pb["predictor"] == RATER).to_numpy() & _in(pb, _key(whole, jcols), jcols)
    tables["pred_binary"] = pb.loc[~gone].reset_index(drop=True)
    # pairwise selections: 25 removed
    pp = tables["pred_pairwise"]
    rp = np.flatnonzero((pp["predictor"] == RATER).to_numpy())
    gone = np.zeros(len(pp), dtype=bool)
    gone[rng.choice(rp, size=25, replace=False)] = True
    tables["pred_pairwise"] = pp.loc[~gone].reset_index(drop=True)
    # holistic fields, one kind per conversation
    runs = tables["runs"].copy()
    gt = t["conversations"].set_index("conversation_id")
    rated_fb = [c for c in rest if pd.notna(gt.loc[c, "fb_managing"])]
    fb_conv = rated_fb[0]
    pick = iter(rng.permutation([c for c in rest if c != fb_conv]))
    holes = {"pa": next(pick), "na": next(pick), "q2": next(pick), "q3": next(pick),
             "items": next(pick), "block": next(pick), "fb": fb_conv}  # fmt: skip
    at_r = (runs["predictor"] == RATER).to_numpy()
    for field_, col in (("pa", "pred_post_pa"), ("na", "pred_post_na"),
                        ("q2", "q2_emotion_clarity"), ("q3", "q3_model_fit"),
                        ("fb", "fb_managing")):  # fmt: skip
        runs.loc[at_r & (runs["conversation_id"] == holes[field_]).to_numpy(), col] = np.nan
    block = at_r & (runs["conversation_id"] == holes["block"]).to_numpy()
    for col in ("q2_emotion_clarity", "q3_model_fit", "fb_perceiving", "fb_facilitating",
                "fb_understanding", "fb_managing"):  # fmt: skip
        runs.loc[block, col] = np.nan
    tables["runs"] = runs
    ps = tables["pred_survey_choices"]
    gone = (ps["predictor"] == RATER).to_numpy() & (
        ps["conversation_id"] == holes["block"]
    ).to_numpy()
    tables["pred_survey_choices"] = ps.loc[~gone].reset_index(drop=True)
    pi = tables["pred_panas_items"]
    first_item = pi.loc[(pi["predictor"] == RATER) & (pi["conversation_id"] == holes["items"]),
                        "item"].iloc[0]  # fmt: skip
    gone = ((pi["predictor"] == RATER) & (pi["conversation_id"] == holes["items"])
            & (pi["item"] == first_item)).to_numpy()  # fmt: skip
    tables["pred_panas_items"] = pi.loc[~gone].reset_index(drop=True)
    removed = {"conversations": drop_convs, "turns": drop_turns, "holes": holes,
               "n_partial_answers": 40, "n_unanswered": len(whole.drop_duplicates())}  # fmt: skip
    return _with_tables(release, **tables), removed


def _copy_of_rater(release):
    """A new model: the rater's answers wherever the rater answered, different answers elsewhere."""
    t = release.tables
    rename = {"predictor": COPY}

    def rater(name):
        f = t[name]
        return f.loc[f["predictor"] == RATER].assign(**rename)

    def other(name):
        f = t[name]
        return f.loc[f["predictor"] == OTHER].assign(**rename)

    tables = {}
    turn_cols = ["conversation_id", "turn"]
    # runs: the rater's where it has a run, filled where its fields are empty; OTHER's elsewhere
    r_runs = rater("runs").copy()
    fills = {"pred_post_pa": 23.0, "pred_post_na": 61.0, "q2_emotion_clarity":
             at.constants.Q2_OPTIONS[0], "q3_model_fit": at.constants.Q3_OPTIONS[-1],
             "fb_perceiving": 7.0, "fb_facilitating": 1.0, "fb_understanding": 7.0,
             "fb_managing": 1.0}  # fmt: skip
    for col, value in fills.items():
        r_runs[col] = r_runs[col].where(r_runs[col].notna(), value)
    o_runs = other("runs")
    o_runs = o_runs.loc[~o_runs["conversation_id"].isin(r_runs["conversation_id"])]
    tables["runs"] = pd.concat([r_runs, o_runs], ignore_index=True)
    # turn tables: the rater's turns, OTHER's turns the rater lacks
    r_turns = _key(rater("pred_turns"), turn_cols)
    for name in ("pred_turns", "pred_emotion_tags"):
        o = other(name)
        o = o.loc[~_in(o, r_turns, turn_cols)]
        tables[name] = pd.concat([rater(name), o], ignore_index=True)
    # binary: the rater's answers; "yes" for every scored (judgement, task) it left unanswered;
    # OTHER's answers on turns the rater lacks
    r_pb = rater("pred_binary")
    refs = _references(release)
    refs = refs.loc[_in(refs, r_turns, turn_cols)]
    kcols = ["conversation_id", "turn", "question_id", "task"]
    gaps = refs.loc[~_in(refs, _key(r_pb, kcols), kcols)]
    fill = gaps.assign(predictor=COPY, mode="default", value="yes")
    o_pb = other("pred_binary")
    o_pb = o_pb.loc[~_in(o_pb, r_turns, turn_cols)]
    tables["pred_binary"] = pd.concat([r_pb, fill[r_pb.columns], o_pb], ignore_index=True)
    # pairwise: the rater's selections; "A" where it made none; OTHER's on other turns
    r_pp = rater("pred_pairwise")
    pc = t["pairwise_comparisons"]
    pc = pc.loc[_in(pc, r_turns, turn_cols)]
    ccols = ["conversation_id", "turn", "comparison"]
    gaps = pc.loc[~_in(pc, _key(r_pp, ccols), ccols), ccols]
    fill = gaps.assign(predictor=COPY, mode="default", selection="A", assigned_a="original",
                       assigned_b="human")  # fmt: skip
    o_pp = other("pred_pairwise")
    o_pp = o_pp.loc[~_in(o_pp, r_turns, turn_cols)]
    tables["pred_pairwise"] = pd.concat([r_pp, fill[r_pp.columns], o_pp], ignore_index=True)
    # PANAS items: the rater's, 7 for every item it lacks; survey lists: the rater's where it
    # answered the block, a goal where it did not; OTHER's in conversations the rater lacks
    r_pi = rater("pred_panas_items")
    convs = r_runs["conversation_id"].unique()
    grid = pd.MultiIndex.from_product([convs, at.constants.PANAS_ITEMS],
                                      names=["conversation_id", "item"]).to_frame(index=False)  # fmt: skip
    grid = grid.loc[
        ~_in(grid, _key(r_pi, ["conversation_id", "item"]), ["conversation_id", "item"])
    ]
    fill = grid.assign(predictor=COPY, mode="default", value=7.0)
    o_pi = other("pred_panas_items")
    o_pi = o_pi.loc[~o_pi["conversation_id"].isin(convs)]
    tables["pred_panas_items"] = pd.concat([r_pi, fill[r_pi.columns], o_pi], ignore_index=True)
    r_ps = rater("pred_survey_choices")
    answered = set(r_ps["conversation_id"]) | set(
        r_runs.loc[rater("runs")[["q2_emotion_clarity", "q3_model_fit", "fb_perceiving",
                                  "fb_facilitating", "fb_understanding", "fb_managing"]]
                   .notna().any(axis=1).to_numpy(), "conversation_id"])  # fmt: skip
    blank = [c for c in convs if c not in answered]
    fill = pd.DataFrame({"predictor": COPY, "mode": "default", "conversation_id": blank,
                         "question": "q1_looking_for", "position": 0,
                         "value": at.constants.Q1_OPTIONS[0]})  # fmt: skip
    o_ps = other("pred_survey_choices")
    o_ps = o_ps.loc[~o_ps["conversation_id"].isin(convs)]
    tables["pred_survey_choices"] = pd.concat([r_ps, fill[r_ps.columns], o_ps], ignore_index=True)
    out = {}
    for name, frame in tables.items():
        full = pd.concat([t[name], frame], ignore_index=True)
        out[name] = full.astype(t[name].dtypes.to_dict())
    preds = t["predictors"]
    row = preds.loc[preds["predictor"] == OTHER].assign(predictor=COPY, display_name="copy")
    out["predictors"] = pd.concat([preds, row], ignore_index=True).astype(preds.dtypes.to_dict())
    return _with_tables(release, **out)


@pytest.fixture(scope="module")
def copied():
    cfg = replace(SCENARIOS["paper"], n_conversations=36, n_models=3)
    release = _release(cfg, seed=21)
    gappy, removed = _gappy_rater(release, np.random.default_rng(5))
    return _copy_of_rater(gappy), removed


def _all_metrics(release):
    scores = at.score(release)
    return scores, [s.name for s in iter_specs("conversation") if s.name in
                    set(scores.conversation["metric"])]  # fmt: skip


def test_a_copy_of_the_rater_differs_by_exactly_zero_on_common_ground(copied):
    release, removed = copied
    scores, metrics = _all_metrics(release)
    res = bl.humans_vs_models(scores, release=release, correction="holm", humans=[RATER],
                              metrics=metrics)  # fmt: skip
    rows = res.comparisons
    rows = rows.loc[(rows["comparison"] == "human - model") & (rows["model"] == COPY)]
    assert set(rows["metric"]) == set(metrics)
    defined = rows.loc[np.isfinite(rows["estimate_human"].to_numpy(float))]
    main = set(MAIN_METRICS)
    assert main <= set(defined["metric"]), main - set(defined["metric"])
    # exactly 0, not approximately: same units, same answers, same arithmetic
    assert (defined["difference"].to_numpy() == 0.0).all(), defined.loc[
        defined["difference"] != 0, ["metric", "difference"]
    ]
    assert (defined["estimate_human"].to_numpy() == defined["estimate_model"].to_numpy()).all()
    assert (defined["ci_low"] == 0).all() and (defined["ci_high"] == 0).all()
    assert (defined["pvalue_adjusted"] == 1.0).all() and not defined["significant"].any()
    assert "composite_score" in set(defined["metric"])
    # on all units the copy differs from the rater (the gaps are scored as answers there)
    alls = bl.humans_vs_models(scores, correction="holm", ground="all", humans=[RATER],
                               metrics=metrics)  # fmt: skip
    arow = alls.comparisons
    arow = arow.loc[(arow["comparison"] == "human - model") & (arow["model"] == COPY)]
    arow = arow.set_index("metric")["difference"]
    for metric in ("avg_binary_om_accuracy", "avg_binary_human_accuracy_hp",
                   "avg_pairwise_accuracy", "q1_looking_for_score", "q2_emotion_clarity_match",
                   "four_branch_normalized", "panas_normalized", "composite_score"):  # fmt: skip
        assert arow[metric] != 0.0, metric
    assert (alls.comparisons["ground"] == "all").all() and (
        res.comparisons["ground"] == "common"
    ).all()


def test_the_common_ground_counts_what_was_left_out(copied):
    release, removed = copied
    ground = bl.common_ground(release, RATER, models=[COPY, "sim-model-02"])
    c = ground.counts
    runs = release.runs
    n_runs = int((runs["predictor"] == RATER).sum())
    assert c["n_conversations_rater"] == n_runs
    assert c["n_conversations"] + c["n_conversations_models_lack"] == n_runs
    assert c["n_turns"] + c["n_turns_models_lack"] == int(
        (release.pred_turns["predictor"] == RATER).sum()
    )
    assert c["n_binary_unanswered"] >= 1
    assert c["n_binary_partial"] >= 1
    assert c["n_pairwise_unselected"] >= 25
    holes = removed["holes"]
    for field_ in ("pa", "na", "q2", "q3", "items", "fb", "block"):
        assert c[f"n_missing_{field_}"] >= 1, field_
    # masks: the composite is masked where a holistic input is missing, and only there
    masked = ground.masked
    comp = set(masked.loc[masked["metric"] == "composite_score", "conversation_id"])
    for field_ in ("pa", "na", "q2", "q3", "fb", "block"):
        assert holes[field_] in comp, field_
    assert holes["items"] not in comp  # PANAS items do not enter the composite
    item_masked = set(masked.loc[masked["metric"] == "panas_item_mae", "conversation_id"])
    assert holes["items"] in item_masked
    assert c["n_holistic_conversations"] == c["n_conversations"] - len(comp)
    # the restricted release holds only the common units
    rel = ground.release
    assert set(rel.predictors["predictor"]) == {RATER, COPY, "sim-model-02"}
    kept = rel.binary_judgements
    assert len(kept) < len(release.binary_judgements)
    text = str(ground.summary())
    assert "Common ground" in text and "n_binary_partial" in text


def test_binary_rule_leaves_out_judgements_answered_in_some_tasks_only():
    """Hand rule on a tiny release: answered in every scored task -> kept, else left out."""
    cfg = replace(SCENARIOS["paper"], n_conversations=6, n_models=2, messiness=0.0)
    release = _release(cfg, seed=3)
    pb = release.pred_binary
    rows = np.flatnonzero(((pb["predictor"] == RATER) & (pb["task"] == "om_hp")).to_numpy())
    drop = rows[:5]
    release2 = _with_tables(release, pred_binary=pb.drop(index=drop).reset_index(drop=True))
    ground = bl.common_ground(release2, RATER)
    jcols = ["conversation_id", "turn", "question_id"]
    refs = _references(release2)
    answered = release2.pred_binary
    answered = answered.loc[(answered["predictor"] == RATER) & answered["value"].notna()]
    ok = _in(refs, _key(answered, [*jcols, "task"]), [*jcols, "task"])
    per = refs.assign(ok=ok).groupby(jcols)["ok"].all()
    left_out = per.index[~per.to_numpy()]
    kept = ground.release.binary_judgements
    assert not _in(kept, left_out, jcols).any()
    assert ground.counts["n_binary_partial"] == len(left_out)
    assert 1 <= len(left_out) <= 5  # an answer to a task that does not score it changes nothing
    scored = per.index[per.to_numpy()]
    assert _in(kept, scored, jcols).sum() == len(scored) == ground.counts["n_binary_judgements"]


def test_every_conversation_metric_has_a_masking_rule():
    req = metric_requirements()
    builtin = [s.name for s in iter_specs("conversation") if s.builtin]
    assert set(builtin) <= set(req)
    assert req["composite_score"] and "turns" in req["composite_score"]
    assert req["pooled_binary_om_accuracy"] == ()
    assert req["avg_pairwise_accuracy"] == ("turns",)
    assert "common ground" in COMMON_GROUND_RULE.lower()


# ------------------------------------------------------------------------------------------
# the participant estimand on common ground
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def paper():
    cfg = replace(SCENARIOS["paper"], n_conversations=60)
    release = _release(cfg, seed=1)
    return release, at.score(release)


@pytest.fixture(scope="module")
def hvm(paper):
    release, scores = paper
    return bl.humans_vs_models(
        scores, release=release, correction="holm",
        metrics=["avg_pairwise_accuracy", "q1_looking_for_score", "composite_score",
                 "pooled_binary_om_mcc"],
    )  # fmt: skip


def test_a_difference_is_the_t_interval_on_participant_means(paper, hvm):
    """q1 is a plain conversation mean: with the participants' per-conversation differences the
    jackknife is the t interval on participant-level (conversation-weighted) means."""
    release, _ = paper
    ground = bl.common_ground(release, RATER, models=list(hvm.models))
    scores = ground.score()
    conv = scores.conversation
    metric = "q1_looking_for_score"
    wide = conv.loc[conv["metric"] == metric].pivot(index="conversation_id", columns="predictor",
                                                    values="value")  # fmt: skip
    model = hvm.models[0]
    d = (wide[RATER] - wide[model]).dropna()
    part = scores.design.set_index("conversation_id").loc[d.index, "participant_id"]
    # delete-one-participant jackknife of a mean of conversations, by hand
    ids = sorted(part.unique())
    reps = np.array([d[part != p].mean() for p in ids])
    n = len(ids)
    se = np.sqrt((n - 1) / n * np.sum((reps - reps.mean()) ** 2))
    row = hvm.comparisons
    row = row.loc[(row["metric"] == metric) & (row["comparison"] == "human - model")
                  & (row["human"] == RATER) & (row["model"] == model)].iloc[0]  # fmt: skip
    assert row["difference"] == pytest.approx(d.mean(), abs=1e-12)
    assert row["standard_error"] == pytest.approx(se, rel=1e-9)
    p = 2 * stats.t.sf(abs(d.mean() / se), row["df"])
    assert row["pvalue"] == pytest.approx(p, rel=1e-9)
    assert row["unit"] == "participants" and row["n_units"] == n
    assert row["estimand"] == "participants"


def test_jackknife_equals_a_loop_over_participants_calling_score(paper, hvm):
    """Composite (non-linear in nothing but masked) and pooled MCC (a ratio of sums): delete each
    participant's conversations from the release, rescore, recompute the common-ground
    difference; the jackknife SE from those must equal the one reported."""
    release, _ = paper
    model = hvm.models[1]
    conv = release.conversations
    ids = sorted(conv["participant_id"].unique())
    reps = {m: [] for m in ("composite_score", "pooled_binary_om_mcc")}
    for p in ids:
        keep = conv.loc[conv["participant_id"] != p, "conversation_id"]
        t = {name: (f.loc[f["conversation_id"].isin(keep)].reset_index(drop=True)
                    if "conversation_id" in f.columns else f)
             for name, f in release.tables.items()}  # fmt: skip
        sub = _with_tables(release, **t)
        s = bl.common_ground(sub, RATER, models=list(hvm.models)).score()
        pred = s.predictor.set_index(["predictor", "metric"])["value"]
        for m in reps:
            reps[m].append(pred[(RATER, m)] - pred[(model, m)])
    n = len(ids)
    table = hvm.comparisons
    for m, values in reps.items():
        r = np.array(values)
        se = np.sqrt((n - 1) / n * np.sum((r - r.mean()) ** 2))
        row = table.loc[(table["metric"] == m) & (table["comparison"] == "human - model")
                        & (table["human"] == RATER) & (table["model"] == model)].iloc[0]  # fmt: skip
        assert row["standard_error"] == pytest.approx(se, rel=1e-7), m


def test_mean_of_humans_averages_the_per_rater_differences(hvm):
    t = hvm.comparisons
    for _, sub in t.groupby("metric"):
        for model in hvm.models:
            per = sub.loc[(sub["comparison"] == "human - model") & (sub["model"] == model)]
            mean = sub.loc[(sub["comparison"] == "human_mean - model") & (sub["model"] == model)]
            assert mean["difference"].iloc[0] == pytest.approx(per["difference"].mean(), abs=1e-12)
            assert mean["estimate_human"].iloc[0] == pytest.approx(per["estimate_human"].mean())
            assert mean["n_turns"].iloc[0] == per["n_turns"].sum()
        mm = sub.loc[sub["comparison"] == "human_mean - model_mean"].iloc[0]
        hm = sub.loc[sub["comparison"] == "human - model_mean"]
        assert mm["human"] == HUMAN_MEAN and mm["model"] == MODEL_MEAN
        assert mm["difference"] == pytest.approx(hm["difference"].mean(), abs=1e-12)


@pytest.mark.parametrize("correction", ["holm", "bh", "bonferroni", "maxt", "none"])
def test_interval_excludes_zero_exactly_when_the_adjusted_test_rejects(paper, correction):
    release, scores = paper
    res = bl.humans_vs_models(scores, release=release, correction=correction,
                              metrics=["avg_pairwise_accuracy", "q1_looking_for_score"],
                              n_draws=2000, rng=4)  # fmt: skip
    t = res.comparisons
    excludes = (t["ci_low"] > 0) | (t["ci_high"] < 0)
    assert (excludes == (t["pvalue_adjusted"] < 0.05)).all()
    assert (t["correction"] == correction).all()
    # effect sizes: composite points and a standardized effect with intervals on the same side
    pts = t["composite_points"].dropna()
    assert len(pts) and np.allclose(pts, t.loc[pts.index, "difference"] * 24.5)
    se_excl = (t["standardized_effect_low"] > 0) | (t["standardized_effect_high"] < 0)
    assert (se_excl == excludes).all()


def test_holm_by_hand(hvm):
    t = hvm.comparisons
    sub = t.loc[
        (t["metric"] == "avg_pairwise_accuracy") & (t["comparison"] == "human_mean - model")
    ]
    p = sub["pvalue"].to_numpy()
    m = len(p)
    order = np.argsort(p)
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    np.testing.assert_allclose(sub["pvalue_adjusted"], adj, rtol=1e-12)


def test_these_participants_bootstrap_is_labelled(paper):
    release, scores = paper
    res = bl.humans_vs_models(scores, release=release, correction="holm",
                              estimand="these-participants", n_resamples=400, rng=2,
                              metrics=["avg_pairwise_accuracy"])  # fmt: skip
    t = res.comparisons
    assert (t["estimand"] == "these-participants").all() and (t["unit"] == "conversations").all()
    assert "these participants" in str(res.summary())
    excludes = (t["ci_low"] > 0) | (t["ci_high"] < 0)
    assert (excludes == (t["pvalue_adjusted"] < 0.05)).all()
    # the standardized effect is the difference over se sqrt(n): its interval is the
    # difference's interval on that scale (the bootstrap's critical value, not the normal one)
    ok = (t["difference"].abs() > 0) & np.isfinite(t["standardized_effect"])
    scale = (t["difference"] / t["standardized_effect"])[ok]
    np.testing.assert_allclose(t.loc[ok, "standardized_effect_low"], t.loc[ok, "ci_low"] / scale)
    np.testing.assert_allclose(t.loc[ok, "standardized_effect_high"], t.loc[ok, "ci_high"] / scale)
    d_excludes = (t["standardized_effect_low"] > 0) | (t["standardized_effect_high"] < 0)
    assert (excludes == d_excludes).all()


def test_needs_the_release_for_common_ground(paper):
    release, scores = paper
    with pytest.raises(ValueError, match="needs the Release"):
        bl.humans_vs_models(scores, correction="holm")
    with pytest.raises(TypeError, match="data must be a Release"):
        bl.humans_vs_models(object(), correction="holm")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ground must be one of"):
        bl.humans_vs_models(release, correction="holm", ground="some")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="estimand must be one of"):
        bl.humans_vs_models(release, correction="holm", estimand="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rater 'nobody' is not a predictor"):
        bl.common_ground(release, "nobody")
    with pytest.raises(ValueError, match="has no runs in mode"):
        bl.common_ground(release, RATER, mode="verbose")
    with pytest.raises(ValueError, match="needs the Release"):
        bl.claim_f(scores)


def test_an_undefined_statistic_leaves_the_other_rows_their_estimates(paper):
    """A NaN in one rater's statistic (here every PANAS-PA prediction of the second rater is
    missing) makes that rater's rows of that metric NaN and nothing else: the other rows keep
    the estimates of the unmodified release (a plain matrix product spread the NaN to all)."""
    release, _ = paper
    humans, models = ["sim-human-1", "sim-human-2"], ["sim-model-01", "sim-model-02"]
    runs = release.tables["runs"].copy()
    assert "pred_post_pa" in runs.columns
    runs.loc[runs["predictor"] == "sim-human-2", "pred_post_pa"] = np.nan
    broken = _with_tables(release, runs=runs)
    opts = {"correction": "holm", "humans": humans, "models": models,
            "metrics": ["avg_pairwise_accuracy", "panas_pa_mae"]}  # fmt: skip
    res = bl.humans_vs_models(broken, **opts).comparisons
    ref = bl.humans_vs_models(release, **opts).comparisons
    key = ["metric", "comparison", "human", "model"]
    both = res.merge(ref, on=key, suffixes=("", "_ref"))
    assert len(both) == len(res) == len(ref)
    gone = (both["metric"] == "panas_pa_mae") & both["human"].isin(["sim-human-2", HUMAN_MEAN])
    assert both.loc[gone, "estimate_human"].isna().all()
    kept = both.loc[~gone]
    assert kept["estimate_human"].notna().all() and kept["estimate_model"].notna().all()
    np.testing.assert_allclose(kept["estimate_human"], kept["estimate_human_ref"], rtol=1e-12)
    np.testing.assert_allclose(kept["estimate_model"], kept["estimate_model_ref"], rtol=1e-12)
    np.testing.assert_allclose(kept["difference"], kept["difference_ref"], rtol=1e-12)
