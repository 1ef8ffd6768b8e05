"""Simulate complete AttuneBench releases, in the official file format, with known truth.

The simulator writes what :func:`attunestats.load_release` reads: one ground-truth file per
conversation (spec 1.4, camelCase fields), one run-output file per predictor and conversation
(spec 1.6, snake_case fields), ``release.json`` and ``truth.json`` (every true parameter). It
exists so that every path of the package (loader, metrics, bootstrap coverage, hierarchical
recovery, independence tests, claims audit, power studies) can be checked against planted truth.
Everything computed from a simulated release is simulated (``constants.SIMULATED_LABEL``); the
predictors are called ``sim-model-01`` ... and ``sim-human-1`` ..., never after real models.

Generative model
----------------
Capabilities ``c`` (:data:`CAPABILITIES`): ``emotion`` (emotion tags), ``behaviour`` (binary
OM/HP judgements), ``preference`` (pairwise selections), ``holistic`` (post-conversation PANAS,
survey Q1-Q3 and four-branch) and ``response`` (drafted reply and draft-judge scores).

Latent effects, all on the logit scale (drawn once per population by :func:`draw_effects`):

- predictor skills ``theta[m, c] = mu_c + sd_c * z[m, c]`` with ``z[m] ~ N(0, R)``, ``R`` the
  configured 5 x 5 correlation (``skill_correlation``); evaluated models use ``skill_mean`` /
  ``skill_sd``, human raters ``human_skill_mean`` / ``human_skill_sd`` (same ``R``);
- turn drift ``beta[m, c] ~ N(drift_mean_c, drift_sd_c)`` (``beta[m, holistic] = 0``: the
  holistic outcomes are conversation-level and have no turn position);
- participants: ``u[p, c] ~ N(0, participant_sd_c)``; each participant has a diagnosis group
  ``g(p)`` in ``none | anxiety_depression | asd_adhd`` (``diagnosis_counts``, assigned at random),
  written into ``participant_profile.traits`` (``[]``, ``["anxiety"]``, ``["depression"]``,
  ``["anxiety", "depression"]``, ``["ADHD"]``, ``["autism spectrum"]``, ...);
- diagnosis effects ``delta[g, c]`` (``delta[none] = 0``) and predictor x diagnosis interactions
  ``gamma[m, g, c] ~ N(0, diagnosis_interaction_sd_c)`` (``gamma[m, none] = 0``);
- topics: ``v[t, c] ~ N(0, topic_sd_c)`` plus ``hardest_topic_effect_c`` for topic 0,
  ``"romantic relationships"``; predictor x topic interactions
  ``topic_interaction[m, t, c] ~ N(0, topic_interaction_sd_c)``.

Per conversation ``k`` (drawn anew by every simulation, also when effects are reused): participant
``p(k)`` with fixed weights, topic ``t(k)`` uniform, ``n_turns`` uniform in ``n_turns_range``,
original model (OM) uniform among ``om-1 .. om-8``, and the conversation effect
``w[k, c] ~ N(0, conversation_sd_c)``, shared by all predictors (this makes model comparisons
paired). The turn-position covariate is ``x = (turn - 1) / (n_turns - 1)`` (``0.5`` when the
conversation has one turn). The linear predictor of predictor ``m`` at turn ``j`` is::

    eta[m, k, j, c] = theta[m, c] + u[p, c] + delta[g, c] + gamma[m, g, c] + v[t, c]
                      + topic_interaction[m, t, c] + w[k, c] + beta[m, c] * x[k, j]

and for the conversation-level (holistic) outcomes the same without ``beta * x``. The
misspecification options of :class:`SimulationConfig` add predictor x participant interactions
``participant_interaction[m, p, c]``, predictor x conversation interactions ``wi[m, k, c]`` and,
for behaviour only, a per-turn overdispersion noise ``binary_noise[m, k, j]``; ``truth.json``
records each when planted (``participant_interaction``; ``conversations[k].wi`` and
``conversations[k].binary_noise``) and its ``linear_predictor`` names them.

Outcomes (``L(a) = 1 / (1 + exp(-a))``; "unit" = one scored decision):

- behaviour: each ground-truth binary judgement whose reference value for the task is yes/no is
  answered correctly with probability exactly ``L(eta_behaviour + task_offset[task])``,
  independently, for the four tasks ``om`` (reference ``observedBehavior``, fallback
  ``llmValue``), ``human`` (``preferredBehavior``, fallback ``observedBehavior``), ``om_hp`` and
  ``human_hp`` (same references, HP-facing wording). "Correct" is in the scorer's sense (spec
  2.2: missing or ``"na"`` counts as ``"no"``): a correct "no" is written ``"no"``, sometimes
  ``"na"`` or omitted; a wrong answer to a "yes" is ``"no"``, ``"na"`` or omitted; a wrong answer
  to a "no" is ``"yes"``. Questions that are applicable but whose reference is na/null get an
  arbitrary answer (they are not scored); non-applicable questions are not answered.
- preference: each ground-truth comparison with a decided winner is predicted correctly with
  probability exactly ``L(eta_preference)``; a wrong answer is the other letter or, rarely, a
  missing selection. Comparisons without a winner get A or B (or rarely nothing): wrong under
  the default convention.
- emotion: each known (PANAS) ground-truth tag of a turn is recovered with probability exactly
  ``L(eta_emotion)``; otherwise it is replaced by a same-valence label that is not in the ground
  truth, or dropped. Spurious extra tags (never ground-truth labels) appear with probability
  ``0.4 (1 - L(eta_emotion))`` per turn. A turn without known ground-truth tags gets an empty
  prediction with probability ``L(eta_emotion)``. Predicted intensity of a recovered tag is the
  true one plus ``N(0, 0.5 + 1.5 (1 - L(eta)))``, rounded and clamped.
- holistic: Q1 is predicted exactly (same set) with probability ``L(eta_h + survey_offset_q1)``,
  Q2 and Q3 with ``L(eta_h + survey_offset_q2/q3)`` (wrong Q3 answers are mostly adjacent);
  predicted post-PANAS items are ``post + N(0, 0.4 + 1.8 (1 - L(eta_h)))`` and four-branch scores
  ``truth + N(0, 0.6 + 2 (1 - L(eta_h)))``, rounded and clamped.
- response: the drafted reply keeps each token of the human-edited reply with probability
  ``0.15 + 0.7 L(eta_response)`` (else a generic filler word), so token overlap grows with skill;
  judge scores are ``round(1 + 6 L(eta_response + 0.7 N(0, 1)))``; the draft's binary answers
  match the HP's preferred value with probability ``L(eta_response)``.
- human raters: for every unit one consensus uniform ``U`` is drawn; each rater uses it with
  probability ``rho`` (``rater_rho``) and otherwise an own uniform, and is correct when its
  uniform is below its probability ``p_r``. Marginally each rater is correct with probability
  exactly ``p_r``; two raters agree (both right or both wrong) with probability
  ``rho^2 (1 - |p_r - p_s|) + (1 - rho^2) (p_r p_s + (1 - p_r)(1 - p_s))``. Continuous noise
  (PANAS, four-branch) is ``sqrt(rho) Z_shared + sqrt(1 - rho) Z_own``. Models have ``rho = 0``.

The ground truth itself (tags, judgements, comparisons, PANAS, survey) is drawn from fixed
realistic rates that do not depend on the predictors (see the private ``_gt_*`` helpers).
``messiness`` (0 = clean) scales the rates of everything the loader must normalise (aliases,
word intensities, nested PANAS, absent totals, missing predictions, missing run turns, ...):
:data:`MESSINESS_RATES` lists them. Nothing the spec calls an error is produced. The
ground-truth turns left out of runs (``missing_run_turns``) and the runs written with the
``delta`` PANAS strategy (``delta_strategy_runs``, consistent ``pre_panas_shown`` and
``predicted_panas_delta``) are listed in ``truth.json``.

Reproducibility: every random draw comes from ``numpy.random.SeedSequence(seed, spawn_key=...)``
children in a fixed order (effects ``(0,)``; for conversation ``k`` its structure ``(1, k)``
and its content ``(2, k)``), so the same seed gives byte-identical files and the first ``n``
conversations of a release do not depend on how many are simulated.

Where the parts live
--------------------
:mod:`~attunestats.release.simulate.config`
    :class:`SimulationConfig`, :data:`SCENARIOS`, :data:`MESSINESS_RATES`, :data:`CAPABILITIES`,
    :data:`DIAGNOSIS_CODES`, :data:`BINARY_TASKS`.
:mod:`~attunestats.release.simulate.effects`
    :class:`TrueEffects`, :func:`draw_effects` (stream ``(0,)``), :func:`truth_from_file`,
    :func:`conversation_ids`.
:mod:`~attunestats.release.simulate.conversation`
    The structure of every conversation (streams ``(1, k)``) and the loop that simulates one
    conversation (stream ``(2, k)``) and assembles its run documents.
:mod:`~attunestats.release.simulate.ground_truth`
    The ``_gt_*`` draws and the ground-truth file.
:mod:`~attunestats.release.simulate.predictions`
    The ``_pred_*`` draws (predictions of the models and the human raters).
:mod:`~attunestats.release.simulate.documents`
    :class:`SimulatedDocuments`, :func:`simulate_documents`, :func:`simulate_release` and the
    truth document.
``_text``, ``_common``
    Text material (topics, messages, replies, phrases); codes and helpers shared by the draws.

Every public name is importable from ``attunestats.release.simulate``. The modules import only
``attunestats.constants``, ``attunestats._rng`` and each other, in one direction (config ->
effects -> ground_truth -> predictions -> conversation -> documents).
"""

from __future__ import annotations

from attunestats.release.simulate.config import (
    BINARY_TASKS,
    CAPABILITIES,
    DIAGNOSIS_CODES,
    HARDEST_TOPIC,
    JUDGE_NAME,
    MESSINESS_RATES,
    PARTICIPANT_DISTRIBUTIONS,
    RELEASE_FORMAT,
    SCENARIOS,
    SURVEY_QUESTIONS,
    TRUTH_FORMAT,
    CapLike,
    SimulationConfig,
    icc_sd,
)
from attunestats.release.simulate.documents import (
    SimulatedDocuments,
    simulate_documents,
    simulate_release,
)
from attunestats.release.simulate.effects import (
    TrueEffects,
    conversation_ids,
    draw_effects,
    redraw_participants,
    truth_from_file,
)

__all__ = [
    "BINARY_TASKS",
    "CAPABILITIES",
    "DIAGNOSIS_CODES",
    "HARDEST_TOPIC",
    "JUDGE_NAME",
    "MESSINESS_RATES",
    "PARTICIPANT_DISTRIBUTIONS",
    "RELEASE_FORMAT",
    "SCENARIOS",
    "SURVEY_QUESTIONS",
    "TRUTH_FORMAT",
    "CapLike",
    "SimulatedDocuments",
    "SimulationConfig",
    "TrueEffects",
    "conversation_ids",
    "draw_effects",
    "icc_sd",
    "redraw_participants",
    "simulate_documents",
    "simulate_release",
    "truth_from_file",
]
