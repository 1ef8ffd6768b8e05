"""The artefact registry: every table and figure of ``attunestats reproduce``, declared once.

Each :class:`Artefact` says what it is (``id``, ``title``), which result of the paper it stands
for (``paper_ref``), which function builds it (``builder``, in
:mod:`attunestats.artifacts.builders`), what it is built from (``inputs``, ``settings``, the seed
named ``seed_name``), which files it writes (``tables``, ``figures``) and which notebook tells its
story (``notebook``). ``attunestats list`` prints this map; ``attunestats reproduce`` builds from it
and records it for every output in ``MANIFEST.json``.

Paper references. The paper's table and figure numbers are not available to us (spec section 0:
only its claims, its design and some chart titles of its analysis site are known), so
``paper_ref`` names the result an output stands for ("composite leaderboard", "claim (b)", site
chart "Perspective Gap", ...) or says ``attunestats addition (not in the paper)``. It never
carries a table or figure number.

Seeds. ``seed_name`` is the name of the artefact's child seed (``child_seed(root, seed_name)``).
It is the stem of the notebook that built the artefact before the registry existed, and must stay
so: renaming it changes the numbers.

Adding a table or figure: write a builder (a function ``(ctx) -> Built`` in the topic's module of
``builders/``), declare it here, call it from its notebook, and run ``tests/artifacts/test_reproduce.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from attunestats.artifacts.context import FAST, FULL

ADDITION = "attunestats addition (not in the paper)"
BUILDERS_PACKAGE = "attunestats.artifacts.builders"


@dataclass(frozen=True)
class Artefact:
    """One table and/or figure of the build (see the module docstring)."""

    id: str
    title: str
    paper_ref: str
    builder: str | Callable[..., Any]  # "module:function" in builders/, or a callable
    notebook: str  # stem of the notebook in notebooks/ that tells its story
    inputs: tuple[str, ...]
    tables: tuple[str, ...] = ()
    figures: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()  # keys of FAST / FULL the builder reads
    seed_name: str = ""  # default: the notebook's stem

    def __post_init__(self) -> None:
        if not self.seed_name:
            object.__setattr__(self, "seed_name", self.notebook)
        unknown = [k for k in self.settings if k not in FULL]
        if unknown:
            raise ValueError(f"artefact {self.id!r}: unknown settings {unknown}")
        if not (self.tables or self.figures):
            raise ValueError(f"artefact {self.id!r} declares no output")

    @property
    def fast(self) -> dict[str, Any]:
        """The settings this artefact uses in fast mode."""
        return {k: FAST[k] for k in self.settings}

    @property
    def full(self) -> dict[str, Any]:
        """The settings this artefact uses in full mode."""
        return {k: FULL[k] for k in self.settings}

    @property
    def outputs(self) -> tuple[str, ...]:
        """Files written, relative to the output directory."""
        files = [f"tables/{t}.{ext}" for t in self.tables for ext in ("csv", "json", "tex")]
        files += [f"figures/{f}.{ext}" for f in self.figures for ext in ("png", "pdf")]
        return tuple(files)

    @property
    def builder_name(self) -> str:
        """``module:function`` of the builder (relative to ``attunestats.artifacts.builders``)."""
        if isinstance(self.builder, str):
            return self.builder
        return f"{self.builder.__module__}:{self.builder.__qualname__}"

    def resolve_builder(self) -> Callable[..., Any]:
        """The builder function (imports its module on first use)."""
        if callable(self.builder):
            return self.builder
        module, _, name = self.builder.partition(":")
        return getattr(importlib.import_module(f"{BUILDERS_PACKAGE}.{module}"), name)


def _a(id: str, title: str, paper_ref: str, builder: str, notebook: str, inputs: Sequence[str],
       *, tables: Sequence[str] = (), figures: Sequence[str] = (),
       settings: Sequence[str] = ()) -> Artefact:  # fmt: skip
    return Artefact(id=id, title=title, paper_ref=paper_ref, builder=builder, notebook=notebook,
                    inputs=tuple(inputs), tables=tuple(tables), figures=tuple(figures),
                    settings=tuple(settings))  # fmt: skip


NB1, NB2, NB3, NB4 = (
    "01_release_overview", "02_leaderboard", "03_model_comparisons", "04_metric_independence"
)  # fmt: skip
NB5, NB6, NB7, NB8 = (
    "05_hierarchical_effects", "06_turn_dynamics", "07_human_baseline", "08_claims_audit"
)  # fmt: skip
BOOT = ("n_resamples",)
INDEPENDENCE = (
    "n_resamples",
    "n_permutations",
    "n_splits",
    "mcmc_draws",
    "mcmc_tune",
    "mcmc_chains",
)
FITS = ("mcmc_draws", "mcmc_tune", "mcmc_chains", "mcmc_retries")  # the fits alone
MCMC = (*FITS, "accept_failed_fits")  # the fits and what is reported of them
DESIGN = "study design (the paper's data description)"

# fmt: off
REGISTRY: tuple[Artefact, ...] = (
    # 01 release overview ---------------------------------------------------------------------
    _a("release-summary", "Release summary: counts of conversations, turns, participants, topics, predictions",
       DESIGN, "release_overview:release_summary", NB1, ["release"],
       tables=["01_release_summary"]),
    _a("participants", "Participants: diagnosis group, age, conversations, turns, topics",
       DESIGN, "release_overview:participants", NB1, ["release"], tables=["01_participants"]),
    _a("diagnosis-groups", "Diagnosis groups of the participants",
       "study design: diagnosis groups (as on the analysis site; the groups of claim (c))",
       "release_overview:diagnosis_groups", NB1, ["release"], tables=["01_diagnosis_groups"]),
    _a("topics", "Topics of the conversations", "study design: conversation topics",
       "release_overview:topics", NB1, ["release"], tables=["01_topics"]),
    _a("turns-per-conversation", "Number of turns per conversation", DESIGN,
       "release_overview:turns_per_conversation", NB1, ["release"],
       tables=["01_turns_per_conversation"]),
    _a("load-report", "What the loader normalised, clamped, derived or dropped", ADDITION,
       "release_overview:load_report", NB1, ["release"], tables=["01_load_report"]),
    _a("panas-trajectories", "PANAS totals before and after the conversation",
       f"{ADDITION}: the PANAS the participants filled in before and after",
       "release_overview:panas_trajectories", NB1, ["release"],
       tables=["01_panas_trajectories"], figures=["01_panas_trajectories"]),
    # 02 leaderboard --------------------------------------------------------------------------
    _a("leaderboard-all-metrics",
       "Every metric per predictor with 95% participant-level intervals (population of participants)",
       "composite leaderboard and per-metric scores (intervals: attunestats addition)",
       "leaderboard:all_metrics", NB2, ["release", "scores", "participant inference"],
       tables=["02_leaderboard_all_metrics"]),
    _a("leaderboard-conditional",
       "Every metric per predictor, conditional on these participants (conversation bootstrap)",
       f"{ADDITION}: the conditional analysis, for comparison with the default intervals",
       "leaderboard:conditional", NB2, ["release", "scores", "bootstrap"],
       tables=["02_leaderboard_conditional"], settings=BOOT),
    _a("metric-registry", "The metric registry: level, range, direction, pillar, aggregation, definition",
       "the paper's metric definitions (as in the spec)", "leaderboard:metric_registry", NB2,
       [], tables=["02_metric_registry"]),
    _a("leaderboard-pillars", "Composite (0-100) and its three pillars with 95% intervals",
       "composite leaderboard (composite 0-100 over the pillars emotion tracking, evaluation "
       "quality, holistic understanding)", "leaderboard:pillars", NB2,
       ["release", "scores", "participant inference"], tables=["02_leaderboard_pillars"],
       figures=["02_leaderboard_pillars"]),
    _a("leaderboard-main-metrics", "Main metrics (official names) with 95% intervals",
       "per-metric leaderboard (the official scorer's main metrics)", "leaderboard:main_metrics",
       NB2, ["release", "scores", "participant inference"], tables=["02_leaderboard_main_metrics"]),
    _a("predictor-summary-official", "Predictor-level values as the official scorer aggregates them",
       "composite leaderboard as the official scorer reports it (means, SE)",
       "leaderboard:predictor_summary_official", NB2, ["release", "scores"],
       tables=["02_predictor_summary_official"]),
    _a("composite-distributions", "Distribution of the conversation composite per predictor",
       ADDITION, "leaderboard:composite_distributions", NB2, ["release", "scores"],
       figures=["02_composite_distributions"]),
    _a("convention-sensitivity", "Change in each composite when one scoring convention is switched",
       ADDITION, "leaderboard:convention_sensitivity", NB2, ["release"],
       tables=["02_convention_sensitivity"]),
    # 03 model comparisons --------------------------------------------------------------------
    _a("paired-differences", "Paired differences between predictors (simultaneous max-|t| intervals within metric)",
       f"{ADDITION}: which leaderboard differences are distinguishable",
       "comparisons:paired_differences", NB3, ["release", "scores", "participant inference", "comparison"],
       tables=["03_paired_differences"]),
    _a("paired-differences-composite", "Heatmap of paired composite differences",
       f"{ADDITION}: which composite leaderboard differences are distinguishable",
       "comparisons:paired_differences_composite", NB3,
       ["release", "scores", "participant inference", "comparison"],
       figures=["03_paired_differences_composite"]),
    _a("rank-intervals", "Ranks with 95% marginal and simultaneous rank confidence sets",
       "the leaderboard's model ranking (rank intervals: attunestats addition)",
       "comparisons:rank_intervals", NB3, ["release", "scores", "participant inference", "comparison"],
       tables=["03_rank_intervals"]),
    _a("rank-intervals-composite", "Composite ranks with 95% marginal and simultaneous confidence sets",
       "the composite leaderboard's model ranking (rank intervals: attunestats addition)",
       "comparisons:rank_intervals_composite", NB3,
       ["release", "scores", "participant inference", "comparison"],
       figures=["03_rank_intervals_composite"]),
    _a("discrimination", "How well each metric discriminates between predictors",
       "claim (b): preference and response-quality metrics discriminate more than emotion F1",
       "comparisons:discrimination", NB3, ["release", "scores", "participant inference", "comparison"],
       tables=["03_discrimination"], figures=["03_discrimination"]),
    _a("discrimination-contrasts", "Preference metrics against emotion F1: difference in discrimination",
       "claim (b)", "comparisons:discrimination_contrasts", NB3,
       ["release", "scores", "participant inference", "comparison"],
       tables=["03_discrimination_contrasts"]),
    # 04 metric independence ------------------------------------------------------------------
    _a("capability-independence", "Capability independence: correlations, noise-corrected, verdicts",
       "claim (a): model rankings on the capabilities are largely independent",
       "independence:capability_independence", NB4, ["release", "scores", "independence report"],
       tables=["04_capability_independence"], figures=["04_capability_independence"],
       settings=INDEPENDENCE),
    _a("global-tests", "Global independence test, Kendall's W, first principal component",
       "claim (a)", "independence:global_tests", NB4, ["release", "scores", "independence report"],
       tables=["04_global_tests"],
       settings=INDEPENDENCE),
    # 05 hierarchical effects -----------------------------------------------------------------
    _a("fit-diagnostics", "MCMC fits of the four hierarchical models: diagnostics gate",
       ADDITION, "hierarchical:fit_diagnostics", NB5, ["release", "scores", "mcmc fits"],
       tables=["05_fit_diagnostics"], settings=FITS),
    _a("variance-decomposition", "Share of variance from participant, topic and conversation",
       ADDITION, "hierarchical:variance_decomposition", NB5, ["release", "scores", "mcmc fits"],
       tables=["05_variance_decomposition"], figures=["05_variance_decomposition"],
       settings=MCMC),
    _a("topic-effects", "Topic effects per outcome and P(hardest topic)",
       "claim (d): romantic relationships is the hardest topic for nearly every model",
       "hierarchical:topic_effects", NB5, ["release", "scores", "mcmc fits"],
       tables=["05_topic_effects"], settings=MCMC),
    _a("hardest-topics-behaviour", "The 15 lowest topic effects on binary OM accuracy",
       "claim (d)", "hierarchical:hardest_topics_behaviour", NB5,
       ["release", "scores", "mcmc fits"], figures=["05_hardest_topics_behaviour"],
       settings=MCMC),
    _a("diagnosis-contrasts", "Diagnosis-group contrasts against the reference group",
       "claim (c): affect tracked worse, behaviour classified better for anxiety/depression",
       "hierarchical:diagnosis_contrasts", NB5, ["release", "scores", "mcmc fits"],
       tables=["05_diagnosis_contrasts"], figures=["05_diagnosis_contrasts"], settings=MCMC),
    _a("adjusted-predictor-effects", "Predictor effects adjusted for participant, topic, conversation",
       f"{ADDITION}: the per-metric leaderboard adjusted for who and what was discussed",
       "hierarchical:adjusted_predictor_effects", NB5, ["release", "scores", "mcmc fits"],
       tables=["05_adjusted_predictor_effects"], settings=MCMC),
    _a("adjusted-behaviour-accuracy", "Adjusted binary OM accuracy per predictor",
       f"{ADDITION}: binary OM accuracy adjusted for participant, topic and conversation",
       "hierarchical:adjusted_behaviour_accuracy", NB5, ["release", "scores", "mcmc fits"],
       figures=["05_adjusted_behaviour_accuracy"], settings=MCMC),
    _a("posterior-predictive-checks", "Posterior predictive checks of the hierarchical models",
       ADDITION, "hierarchical:posterior_predictive_checks", NB5,
       ["release", "scores", "mcmc fits"], tables=["05_posterior_predictive_checks"],
       figures=["05_posterior_predictive_checks"], settings=MCMC),
    _a("structure-comparison", "PSIS-LOO comparison of hierarchical model structures",
       ADDITION, "hierarchical:structure_comparison", NB5, ["release", "scores", "mcmc fits"],
       tables=["05_structure_comparison"], figures=["05_structure_comparison"], settings=MCMC),
    # 06 turn dynamics ------------------------------------------------------------------------
    _a("turn-phases", "Early / mid / late turn means and late-minus-early differences",
       "claim (e): behaviour metrics degrade from early to late turns, affect inference stable",
       "dynamics:turn_phases", NB6, ["release", "scores", "participant inference"],
       tables=["06_turn_phases"], figures=["06_turn_phases"]),
    _a("drift-fit-diagnostics", "MCMC fits of the drift models: diagnostics gate", ADDITION,
       "dynamics:drift_fit_diagnostics", NB6, ["release", "scores", "mcmc fits"],
       tables=["06_drift_fit_diagnostics"], settings=FITS),
    _a("drift-slopes", "Turn-drift slopes per predictor, adjusted (hierarchical models)",
       "claim (e) (adjusted for participant, topic and conversation)", "dynamics:drift_slopes",
       NB6, ["release", "scores", "mcmc fits"], tables=["06_drift_slopes"],
       figures=["06_drift_slopes"], settings=MCMC),
    # 07 human baseline -----------------------------------------------------------------------
    _a("rater-agreement", "Krippendorff's alpha among the human raters per annotation type",
       f"{ADDITION}: agreement within the paper's human baseline",
       "baseline:rater_agreement", NB7, ["release", "scores", "baseline tables"],
       tables=["07_rater_agreement"], figures=["07_rater_agreement"],
       settings=("agreement_resamples", "n_resamples")),
    _a("rater-vs-participant", "Each rater against the other raters and the participants",
       f"{ADDITION}: how close the human baseline is to the participants' own annotations",
       "baseline:rater_vs_participant", NB7, ["release", "scores", "baseline tables"],
       tables=["07_rater_vs_participant", "07_rater_vs_participant_summary"],
       figures=["07_rater_vs_participant"], settings=("agreement_resamples", "n_resamples")),
    _a("humans-vs-models", "Humans minus models per metric on the units each rater rated (Holm over models)",
       "claim (f): the human baseline beats most models at predicting preferences",
       "baseline:humans_vs_models", NB7, ["release", "scores", "baseline tables"],
       tables=["07_humans_vs_models", "07_humans_vs_models_summary"],
       figures=["07_humans_vs_models"], settings=("agreement_resamples", "n_resamples")),
    _a("claim-f", "Claim (f): human baseline on preferences and on goals",
       "claim (f): beats most models on preferences, weak at predicting conversation goals",
       "baseline:claim_f", NB7, ["release", "scores", "baseline tables"],
       tables=["07_claim_f"], settings=("agreement_resamples", "n_resamples")),
    # 08 claims audit -------------------------------------------------------------------------
    _a("claims-audit", "Each claim as a test: effect, interval, corrected p-value, verdict",
       "claims (a)-(g)", "claims:claims_audit", NB8, ["release", "scores", "mcmc fits", "audit"],
       tables=["08_claims_audit"], settings=("n_resamples", *MCMC)),
    _a("claims-details", "Sub-tests of every claim", "claims (a)-(g)", "claims:claims_details",
       NB8, ["release", "scores", "mcmc fits", "audit"], tables=["08_claims_details"],
       settings=("n_resamples", *MCMC)),
)
# fmt: on


def _by_id(registry: Iterable[Artefact] | None) -> dict[str, Artefact]:
    items = REGISTRY if registry is None else tuple(registry)
    return {a.id: a for a in items}


def get_artefact(artefact_id: str, *, registry: Iterable[Artefact] | None = None) -> Artefact:
    """The artefact ``artefact_id``; ``KeyError`` listing the known ids otherwise."""
    table = _by_id(registry)
    if artefact_id not in table:
        raise KeyError(f"no artefact {artefact_id!r}; known: {', '.join(table)}")
    return table[artefact_id]


def select(only: Iterable[str] | None = None, *,
           registry: Iterable[Artefact] | None = None) -> tuple[Artefact, ...]:  # fmt: skip
    """The artefacts named by ``only``, in registry order (all when ``only`` is empty).

    Each item of ``only`` is an artefact id, an output name (``02_leaderboard_pillars``), a
    notebook stem (``02_leaderboard``) or its number (``02`` or ``2``): the last two select every
    artefact of that notebook. An item matching nothing raises ``ValueError``.
    """
    items = REGISTRY if registry is None else tuple(registry)
    if not only:
        return items
    chosen: set[str] = set()
    for item in only:
        hits = [a.id for a in items if _matches(a, str(item))]
        if not hits:
            raise ValueError(
                f"--only {item!r} matches no artefact id, output name or notebook; "
                f"`attunestats list` shows them"
            )
        chosen.update(hits)
    return tuple(a for a in items if a.id in chosen)


def _matches(artefact: Artefact, item: str) -> bool:
    if item in (artefact.id, artefact.notebook) or item in (*artefact.tables, *artefact.figures):
        return True
    number = artefact.notebook.split("_", 1)[0]
    return item.isdigit() and number.isdigit() and int(item) == int(number)


def paper_map(registry: Iterable[Artefact] | None = None) -> pd.DataFrame:
    """One row per artefact: id, paper_ref, outputs, notebook, builder (``attunestats list``)."""
    items = REGISTRY if registry is None else tuple(registry)
    rows = [
        {
            "id": a.id,
            "paper_ref": a.paper_ref,
            "outputs": " ".join(
                [f"tables/{t}" for t in a.tables] + [f"figures/{f}" for f in a.figures]
            ),  # fmt: skip
            "notebook": a.notebook,
            "builder": a.builder_name,
            "title": a.title,
        }
        for a in items
    ]
    return pd.DataFrame(
        rows, columns=["id", "paper_ref", "outputs", "notebook", "builder", "title"]
    )
