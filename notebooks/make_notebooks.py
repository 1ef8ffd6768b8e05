"""Write the numbered notebooks from the cell lists below (run: python notebooks/make_notebooks.py).

The notebooks are thin: they call attunestats and its report functions; no statistics are
defined in a cell. Each has a papermill-style cell tagged ``parameters`` that
``attunestats reproduce`` overrides. Edit the cells here, then regenerate, so the notebooks stay
consistent with each other.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

PARAMETERS = """# Parameters (overridden by `attunestats reproduce`)
release = None  # release directory; None = the bundled SIMULATED release
out_dir = "../paper_figures"  # where tables/ and figures/ are written
fast = True  # CI mode: few resamples, short MCMC
seed = 20260521  # seed of this notebook's random draws
n_resamples = 400  # bootstrap resamples (full build: 10,000)
mcmc_draws = 150  # posterior draws per chain (full build: 2,000)
mcmc_tune = 150  # tuning steps per chain (full build: 1,000)
mcmc_chains = 2  # chains (full build: 4)
mcmc_seed = 20260521  # seed of the MCMC fits (shared by all notebooks of a build)
fit_cache = None  # directory of finished fits shared between notebooks (None: no cache)"""

SETUP = """import attunestats as at
from attunestats.constants import SIMULATED_LABEL
from attunestats.report import figures, tables

rel = at.load_release(release) if release else at.load_bundled_release()
SIM = rel.simulated
if SIM:
    print(f"*** {SIMULATED_LABEL} ***")"""

NOTEBOOKS: dict[str, tuple[str, list[str]]] = {
    "01_release_overview": (
        "# 01 Release overview\n\nConversations, turns, participants, topics, diagnosis groups and "
        "PANAS trajectories of the release.",
        [
            SETUP,
            """from attunestats.release import describe

summary = rel.summary().astype({"value": "str"})
tables.write_table(summary, "01_release_summary", out_dir, simulated=SIM, caption="Release summary")
summary""",
            """parts = describe.participants_table(rel)
tables.write_table(parts, "01_participants", out_dir, simulated=SIM, caption="Participants")
groups = describe.diagnosis_table(rel)
tables.write_table(groups, "01_diagnosis_groups", out_dir, simulated=SIM, caption="Diagnosis groups")
topics = describe.topics_table(rel)
tables.write_table(topics, "01_topics", out_dir, simulated=SIM, caption="Topics")
lengths = describe.turn_length_table(rel)
tables.write_table(lengths, "01_turns_per_conversation", out_dir, simulated=SIM,
                   caption="Number of turns per conversation")
groups""",
            """report = rel.report.counts()
tables.write_table(report, "01_load_report", out_dir, simulated=SIM,
                   caption="What the loader normalised, clamped, derived or dropped")
report""",
            """traj = describe.panas_trajectories(rel)
tables.write_table(traj, "01_panas_trajectories", out_dir, simulated=SIM,
                   caption="PANAS totals before and after the conversation (t intervals over conversations)")
fig = figures.panas_trajectories(traj, simulated=SIM)
figures.save_figure(fig, "01_panas_trajectories", out_dir)""",
        ],
    ),
    "02_leaderboard": (
        "# 02 Leaderboard\n\nEvery metric, pillar and composite per predictor with cluster-bootstrap "
        "intervals (conversations resampled, BCa), score distributions, and how much each disputed "
        "scoring convention moves each composite.",
        [
            SETUP,
            """from attunestats.inference.bootstrap import bootstrap_scores
from attunestats.metrics.registry import MAIN_METRICS, metrics_frame
from attunestats.metrics.sensitivity import convention_sensitivity
from attunestats.report import views

scores = at.score(rel)
boot = bootstrap_scores(scores, n_resamples=n_resamples, rng=seed)
board = views.leaderboard(boot, scores)
tables.write_table(board, "02_leaderboard_all_metrics", out_dir, simulated=SIM,
                   caption="Every metric per predictor: estimate, 95% BCa cluster-bootstrap interval, SE")
tables.write_table(metrics_frame(), "02_metric_registry", out_dir, simulated=False,
                   caption="The metric registry")""",
            """PILLARS = ["composite_score", "emotion_tracking", "evaluation_quality", "holistic_comprehension"]
wide = views.leaderboard_wide(board, metrics=PILLARS + ["equal_weight_composite"])
tables.write_table(wide, "02_leaderboard_pillars", out_dir, simulated=SIM,
                   caption="Composite and pillars with 95% intervals")
main = views.leaderboard_wide(board, metrics=[m for m in MAIN_METRICS if m in set(board["metric"])])
tables.write_table(main, "02_leaderboard_main_metrics", out_dir, simulated=SIM,
                   caption="Main metrics (official names) with 95% intervals")
tables.write_table(scores.predictor, "02_predictor_summary_official", out_dir, simulated=SIM,
                   caption="Predictor-level values as the official scorer aggregates them (means, SE)")
wide""",
            """fig = figures.forest_panels(
    board, metrics=PILLARS,
    xlabels=["composite (0-100)", "emotion tracking (0-1)", "evaluation quality (0-1)",
             "holistic comprehension (0-1)"],
    simulated=SIM,
)
figures.save_figure(fig, "02_leaderboard_pillars", out_dir)
conv = views.with_predictor_info(scores.conversation[scores.conversation["metric"] == "composite_score"], scores)
fig = figures.distributions(conv, by="display_name", xlabel="conversation composite (0-100)", simulated=SIM)
figures.save_figure(fig, "02_composite_distributions", out_dir)""",
            """sens = convention_sensitivity(rel)
tables.write_table(sens, "02_convention_sensitivity", out_dir, simulated=SIM,
                   caption="Change in each composite when one scoring convention is switched")
sens.groupby("convention")["difference"].agg(["min", "max"])""",
        ],
    ),
    "03_model_comparisons": (
        "# 03 Model comparisons\n\nPaired differences between every pair of predictors (Holm-corrected "
        "within each metric), rank intervals, and how well each metric discriminates between predictors "
        "(claim (b) of the paper as a test).",
        [
            SETUP,
            """from attunestats.inference.bootstrap import bootstrap_scores
from attunestats.metrics.registry import MAIN_METRICS
from attunestats.report import views

scores = at.score(rel)
boot = bootstrap_scores(scores, n_resamples=n_resamples, rng=seed)
cmp = at.compare_models(boot, correction="holm", family="metric")
pairs = views.with_predictor_info(cmp.pairs, scores, column="predictor_a")
tables.write_table(cmp.pairs, "03_paired_differences", out_dir, simulated=SIM,
                   caption="Paired differences (a - b), 95% BCa intervals, bootstrap p-values, Holm within metric")
tables.write_table(cmp.ranks, "03_rank_intervals", out_dir, simulated=SIM,
                   caption="Ranks with 95% bootstrap intervals and P(rank 1)")
disc = cmp.discrimination.sort_values("discrimination", ascending=False)
tables.write_table(disc, "03_discrimination", out_dir, simulated=SIM,
                   caption="Discrimination per metric: D with noncentral-F interval, share of distinguishable pairs")
disc[disc["metric"].isin(MAIN_METRICS)][["metric", "discrimination", "ci_low", "ci_high", "share_distinguishable"]]""",
            """import pandas as pd

contrasts = pd.DataFrame([
    cmp.discrimination_contrast(a, b)
    for a in ("avg_pairwise_accuracy", "avg_pairwise_kendall_tau")
    for b in ("avg_emotion_f1",)
])
tables.write_table(contrasts, "03_discrimination_contrasts", out_dir, simulated=SIM,
                   caption="Do preference metrics discriminate more than emotion F1? (D difference, conservative interval)")
contrasts""",
            """fig = figures.rank_intervals(cmp.ranks, metric="composite_score", simulated=SIM)
figures.save_figure(fig, "03_rank_intervals_composite", out_dir)
fig = figures.discrimination_plot(cmp.discrimination[cmp.discrimination["metric"].isin(MAIN_METRICS)], simulated=SIM)
figures.save_figure(fig, "03_discrimination", out_dir)
diff, sig = views.difference_matrix(cmp.pairs, "composite_score")
fig = figures.difference_heatmap(diff, sig, metric="composite", simulated=SIM)
figures.save_figure(fig, "03_paired_differences_composite", out_dir)""",
        ],
    ),
    "04_metric_independence": (
        "# 04 Metric independence\n\nAre the capabilities really independent, or do they only look so "
        "because the metrics are noisy? Rank correlations across models with bootstrap intervals and "
        "permutation tests, noise-corrected (disattenuated) correlations, a latent-skill model with an "
        "LKJ prior, Kendall's W and principal components against permutation nulls. With 11 models "
        "many pairs are honestly 'too noisy to tell'.",
        [
            SETUP,
            '''from attunestats import independence as ind

scores = at.score(rel)
report = ind.capability_independence(
    scores, correction="holm", latent=True,
    latent_options=dict(draws=mcmc_draws, tune=mcmc_tune, chains=mcmc_chains, on_failure="flag"),
    n_resamples=n_resamples, n_permutations=2000 if fast else 10_000, n_splits=200 if fast else 1000,
    rng=seed,
)
tables.write_table(report.to_frame(), "04_capability_independence", out_dir, simulated=SIM,
                   caption="Capability independence: correlations, intervals, noise-corrected values, verdicts")
tables.write_table(report.summary, "04_global_tests", out_dir, simulated=SIM,
                   caption="Global independence test, Kendall's W across metrics, first principal component")
report.to_frame()[["capability_a", "capability_b", "kendall", "corrected", "verdict"]]''',
            '''fig = report.figure()
figures.save_figure(fig, "04_capability_independence", out_dir)
report.summary''',
        ],
    ),
    "05_hierarchical_effects": (
        "# 05 Participant, diagnosis and topic effects\n\nHierarchical Bayesian models (PyMC, sampled by "
        "nutpie) of binary behaviour accuracy, emotion F1, pairwise preference accuracy and four-branch "
        "prediction error of the evaluated models, with participant, topic and conversation random "
        "effects, diagnosis-group effects and their interaction with the model. A fit's summaries are reported only when it "
        "passes the diagnostics gate (r_hat <= 1.01, bulk and tail ESS >= 400, no divergence); fast mode "
        "runs chains too short for the gate, and its tables say so in a `warning` column.",
        [
            SETUP,
            '''import pandas as pd
from attunestats import hierarchical as H

scores = at.score(rel)
evaluated = scores.names("model")  # the claims are about models
models = {
    "behaviour": H.behaviour_model_from_scores(scores, task="om", predictors=evaluated),
    "emotion": H.emotion_model_from_scores(scores, metric="emotion_f1", predictors=evaluated),
    "preference": H.preference_model_from_scores(scores, predictors=evaluated),
    "holistic": H.holistic_model_from_scores(scores, metric="four_branch_mae", predictors=evaluated),
}
fits = {name: H.fit(model, draws=mcmc_draws, tune=mcmc_tune, chains=mcmc_chains, rng=mcmc_seed,
                    cache_dir=fit_cache)
        for name, model in models.items()}
overview = pd.DataFrame([f.overview() for f in fits.values()])
tables.write_table(overview, "05_fit_diagnostics", out_dir, simulated=SIM,
                   caption="MCMC fits: sampler, settings, diagnostics gate, worst R-hat and ESS, divergences")
# fast mode: short chains, reported with a warning column. Full mode: a fit that fails the gate
# is listed above and left out of the effect tables (its summaries refuse to report).
accept = bool(fast)
ok = {name: f for name, f in fits.items() if f.passed or accept}
overview[["outcome", "passed", "divergences", "max_r_hat", "min_ess_bulk", "min_ess_tail", "sample_seconds"]]''',
            '''variance = pd.concat([H.variance_decomposition(f, accept_failed_diagnostics=accept) for f in ok.values()])
tables.write_table(variance, "05_variance_decomposition", out_dir, simulated=SIM,
                   caption="Share of latent variance from participant, topic and conversation (94% intervals)")
short = {f.model.outcome: name for name, f in ok.items()}
effects = variance[~variance["component"].str.startswith("residual")]
fig = figures.forest_plot(
    effects.assign(label=effects["outcome"].map(short) + ": " + effects["component"]),
    estimate="share", low="share_ci_low", high="share_ci_high", label="label", sort=False,
    xlabel="share of random-effect variance (logit scale)", simulated=SIM,
)
figures.save_figure(fig, "05_variance_decomposition", out_dir)
variance[["outcome", "component", "sd", "share_latent", "share_latent_ci_low", "share_latent_ci_high"]]''',
            '''topics = pd.concat([H.topic_effects(f, accept_failed_diagnostics=accept) for f in ok.values()
                    if f.model.has_topic_effect])
tables.write_table(topics, "05_topic_effects", out_dir, simulated=SIM,
                   caption="Topic effects (logit, vs the average topic), 94% intervals, P(hardest topic)")
if "behaviour" in ok:
    hardest = topics[topics["outcome"] == ok["behaviour"].model.outcome].nsmallest(15, "mean")
    fig = figures.forest_plot(hardest, estimate="mean", label="topic", reference=0.0,
                              xlabel="topic effect on OM accuracy (logit), 15 lowest", simulated=SIM)
    figures.save_figure(fig, "05_hardest_topics_behaviour", out_dir)
topics.sort_values("p_hardest", ascending=False).groupby("outcome").head(3)[
    ["outcome", "topic", "n_conversations", "mean", "ci_low", "ci_high", "p_hardest"]]''',
            '''contrasts = pd.concat([H.diagnosis_contrasts(f, accept_failed_diagnostics=accept) for f in ok.values()])
tables.write_table(contrasts, "05_diagnosis_contrasts", out_dir, simulated=SIM,
                   caption="Diagnosis-group contrasts per predictor against the reference group (94% intervals)")
avg = contrasts[contrasts["predictor"] == "(average)"]
fig = figures.forest_plot(
    avg.assign(label=avg["outcome"].map(short) + ": " + avg["group"] + " - " + avg["reference"]),
    estimate="difference", low="difference_ci_low", high="difference_ci_high", label="label",
    reference=0.0, sort=False, xlabel="difference from reference group (accuracy or score)", simulated=SIM,
)
figures.save_figure(fig, "05_diagnosis_contrasts", out_dir)
avg[["outcome", "group", "reference", "difference", "difference_ci_low", "difference_ci_high", "p_positive"]]''',
            '''adjusted = pd.concat([H.predictor_effects(f, accept_failed_diagnostics=accept) for f in ok.values()])
tables.write_table(adjusted, "05_adjusted_predictor_effects", out_dir, simulated=SIM,
                   caption="Predictor effects adjusted for participant, topic, conversation and diagnosis")
ppc = pd.concat([H.posterior_predictive_check(f, rng=seed, accept_failed_diagnostics=accept)
                 for f in ok.values()])
tables.write_table(ppc, "05_posterior_predictive_checks", out_dir, simulated=SIM,
                   caption="Posterior predictive checks (ppp near 0 or 1 flags misfit)")
if "behaviour" in ok:
    beh = adjusted[adjusted["outcome"] == ok["behaviour"].model.outcome]
    fig = figures.forest_plot(beh, estimate="adjusted_mean", low="adjusted_ci_low", high="adjusted_ci_high",
                              label="predictor", xlabel="adjusted binary OM accuracy (0-1)", simulated=SIM)
    figures.save_figure(fig, "05_adjusted_behaviour_accuracy", out_dir)
ppc[(ppc["ppp"] < 0.01) | (ppc["ppp"] > 0.99)]''',
        ],
    ),
    "06_turn_dynamics": (
        "# 06 Turn dynamics\n\nEarly, mid and late turns of each conversation: phase means per model with "
        "conversation-bootstrap intervals and paired late-minus-early differences; then turn-drift "
        "slopes from the hierarchical models of 05, adjusted for participant, topic and conversation.",
        [
            SETUP,
            '''from attunestats.inference import dynamics

scores = at.score(rel)
METRICS = ["binary_om_accuracy", "binary_human_accuracy", "emotion_f1", "emotion_va_score", "pairwise_accuracy"]
boot, phases = dynamics.phase_bootstrap(scores, metrics=METRICS, n_resamples=n_resamples, rng=seed)
tables.write_table(phases, "06_turn_phases", out_dir, simulated=SIM,
                   caption="Early / mid / late turn means and late-minus-early differences (95% intervals)")
diff = phases[phases["phase"] == "late-early"].pivot(index="predictor", columns="metric", values="estimate")
diff''',
            '''fig = figures.phase_lines(
    phases, metrics=["binary_om_accuracy", "emotion_f1", "pairwise_accuracy"],
    labels=["binary OM accuracy", "emotion F1", "pairwise accuracy"], simulated=SIM,
)
figures.save_figure(fig, "06_turn_phases", out_dir)''',
            '''import pandas as pd
from attunestats import hierarchical as H

# drift slopes adjusted for participant, topic and conversation (hierarchical models, as in 05)
# (the same models, seed and settings as 05: within `attunestats reproduce` the fits come from its cache)
evaluated = scores.names("model")
drift_models = {
    "behaviour": H.behaviour_model_from_scores(scores, task="om", predictors=evaluated),
    "emotion": H.emotion_model_from_scores(scores, metric="emotion_f1", predictors=evaluated),
}
drift_fits = {name: H.fit(model, draws=mcmc_draws, tune=mcmc_tune, chains=mcmc_chains, rng=mcmc_seed,
                          cache_dir=fit_cache)
              for name, model in drift_models.items()}
tables.write_table(pd.DataFrame([f.overview() for f in drift_fits.values()]), "06_drift_fit_diagnostics",
                   out_dir, simulated=SIM, caption="MCMC fits of the drift models: diagnostics gate")
accept = bool(fast)  # fast mode: chains too short for the gate; tables carry a warning column
drift = pd.concat([H.turn_drift(f, accept_failed_diagnostics=accept)
                   for f in drift_fits.values() if f.passed or accept])
tables.write_table(drift, "06_drift_slopes", out_dir, simulated=SIM,
                   caption="Turn-drift slopes per predictor (logit, first to last turn) and the change they imply")
names = {drift_fits["behaviour"].model.outcome: "OM accuracy", drift_fits["emotion"].model.outcome: "emotion F1"}
fig = figures.forest_plot(
    drift.assign(label=drift["outcome"].map(names) + ": " + drift["predictor"],
                 outcome_name=drift["outcome"].map(names)),
    estimate="change", low="change_ci_low", high="change_ci_high", label="label", group="outcome_name",
    reference=0.0, sort=False, xlabel="change from first to last turn (accuracy or F1)", simulated=SIM,
)
figures.save_figure(fig, "06_drift_slopes", out_dir)
drift[drift["predictor"] == "(average)"]''',
        ],
    ),
    "07_human_baseline": (
        "# 07 Human baseline and agreement\n\nAgreement among the human baseline raters on every "
        "annotation type, raters against the participants, humans against models on identical "
        "conversations (paired bootstrap), and claim (f).",
        [
            SETUP,
            '''from attunestats import baseline

scores = at.score(rel)
agreement_resamples = 300 if fast else 2000
base = baseline.baseline_tables(rel, scores, correction="holm", agreement_resamples=agreement_resamples,
                                n_resamples=n_resamples, rng=seed)
captions = {
    "rater_agreement": "Krippendorff's alpha among the human raters per annotation type (conversation bootstrap)",
    "rater_vs_participant": "Each rater against each other rater and against the participants",
    "rater_vs_participant_summary": "Rater-rater minus rater-participant alpha (paired intervals)",
    "humans_vs_models": "Humans minus models per metric (paired bootstrap, Holm over models)",
    "humans_vs_models_summary": "Mean of humans minus mean of models; models beaten after correction",
    "claim_f": "Claim (f): human baseline beats models on preferences, weak on goals",
}
for name, frame in base.items():
    tables.write_table(frame, f"07_{name}", out_dir, simulated=SIM, caption=captions[name])
base["rater_agreement"][["annotation", "metric", "alpha", "ci_low", "ci_high", "n_units"]]''',
            '''fig = baseline.plot_rater_agreement(base["rater_agreement"], simulated=SIM)
figures.save_figure(fig, "07_rater_agreement", out_dir)
fig = baseline.plot_rater_vs_participant(base["rater_vs_participant_summary"], simulated=SIM)
figures.save_figure(fig, "07_rater_vs_participant", out_dir)
fig = baseline.plot_humans_vs_models(base["humans_vs_models_summary"], simulated=SIM)
figures.save_figure(fig, "07_humans_vs_models", out_dir)
base["claim_f"]''',
        ],
    ),
    "08_claims_audit": (
        "# 08 Claims audit\n\nEach claim of the paper as an explicit test with an effect size, an "
        "interval, a corrected p-value or posterior probability and a verdict. On a simulated release "
        "the verdicts check the methods against what the simulator planted; they are not findings "
        "about real models.",
        [
            SETUP,
            '''from attunestats.inference.claims import audit_claims

from attunestats import hierarchical as H

scores = at.score(rel)
# claim (d) needs the hierarchical behaviour model of 05 (from the build's fit cache when there).
# Fast mode's short chains fail the diagnostics gate: reported with a warning rather than refused.
evaluated = scores.names("model")
behaviour = H.fit(H.behaviour_model_from_scores(scores, task="om", predictors=evaluated),
                  draws=mcmc_draws, tune=mcmc_tune, chains=mcmc_chains, rng=mcmc_seed, cache_dir=fit_cache)
audit = audit_claims(scores, n_resamples=n_resamples, seed=seed,
                     d=dict(fit=behaviour, accept_failed_diagnostics=bool(fast)))
table = audit.to_frame()
tables.write_table(table, "08_claims_audit", out_dir, simulated=SIM,
                   caption="Claims audit: effect, interval, corrected p-value, verdict")
tables.write_table(audit.details(), "08_claims_details", out_dir, simulated=SIM,
                   caption="Sub-tests of every claim")
table[["claim", "verdict", "effect", "estimate", "ci_low", "ci_high", "pvalue", "posterior_probability"]]''',
            '''for row in table.itertuples():
    print(f"({row.claim}) {row.verdict.upper():13s} {row.statement}")
    print(f"    rule: {row.rule}")''',
        ],
    ),
}


def write_all() -> list[Path]:
    """Regenerate every notebook; returns the paths written."""
    written = []
    for stem, (title, cells) in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nb.cells.append(nbformat.v4.new_markdown_cell(title))
        params = nbformat.v4.new_code_cell(PARAMETERS)
        params.metadata["tags"] = ["parameters"]
        nb.cells.append(params)
        nb.cells.extend(nbformat.v4.new_code_cell(src) for src in cells)
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{stem[:2]}-{i:02d}"
        path = HERE / f"{stem}.ipynb"
        nbformat.write(nb, path)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all():
        print(f"wrote {p}")
