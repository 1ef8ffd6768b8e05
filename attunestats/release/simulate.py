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

and for the conversation-level (holistic) outcomes the same without ``beta * x``.

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
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from attunestats import constants as K
from attunestats._rng import RNGLike, root_seed
from attunestats.release import _simtext as text

__all__ = [
    "BINARY_TASKS",
    "CAPABILITIES",
    "DIAGNOSIS_CODES",
    "MESSINESS_RATES",
    "SCENARIOS",
    "SimulatedDocuments",
    "SimulationConfig",
    "TrueEffects",
    "conversation_ids",
    "draw_effects",
    "simulate_documents",
    "simulate_release",
    "truth_from_file",
]

CAPABILITIES: tuple[str, ...] = ("emotion", "behaviour", "preference", "holistic", "response")
_EMO, _BEH, _PREF, _HOL, _RESP = range(5)
DIAGNOSIS_CODES: tuple[str, ...] = ("none", "anxiety_depression", "asd_adhd")
BINARY_TASKS: tuple[str, ...] = ("om", "human", "om_hp", "human_hp")
_TASK_FIELDS = (
    "em_binary_om_assessment",
    "em_binary_human_prediction",
    "em_binary_om_assessment_hp",
    "em_binary_human_prediction_hp",
)
SURVEY_QUESTIONS: tuple[str, ...] = ("q1", "q2", "q3")
RELEASE_FORMAT = "attunestats-release/1"
TRUTH_FORMAT = "attunestats-truth/1"
HARDEST_TOPIC = text.HARDEST_TOPIC
JUDGE_NAME = "sim-judge"

#: Base rates of everything the loader has to normalise; each is multiplied by
#: ``SimulationConfig.messiness`` (and capped at 1).
MESSINESS_RATES: Mapping[str, float] = MappingProxyType(
    {
        # ground truth
        "binary_value_alias": 0.06,  # true/false/Y/N/1/0/n/a/not_applicable/Yes spellings
        "binary_key_alias": 0.05,  # did_occur/humanValue/actualValue, should_occur/humanPreference
        "observed_null": 0.02,  # observedBehavior null (scorer falls back to llmValue)
        "preferred_null": 0.02,  # preferredBehavior null (falls back to observedBehavior)
        "llm_value_null": 0.05,
        "blinded_labels": 0.05,  # per conversation: alternate1/alternate2 keys and labels
        "pairwise_key_alias": 0.05,  # response_1/response_2 instead of responseA/responseB
        "winner_alias": 0.05,  # a/b/response_1/response_2
        "survey_key_alias": 0.08,  # per conversation: Q1/Q2/Q3 keys
        "panas_items_top_level": 0.15,  # per PANAS block: items as top-level keys
        "panas_items_nested": 0.15,  # per PANAS block: items under "responses"
        "panas_totals_absent": 0.4,  # per PANAS block: totals to be derived
        "panas_total_out_of_range": 0.5,  # at a boundary sum (10 or 70): written beyond it
        "intensity_word": 0.1,  # intensities 2/4/6 written mild/moderate/intense
        "intensity_null": 0.02,
        "gt_unknown_label": 0.03,  # per turn: an extra label outside the PANAS vocabulary
        "label_case": 0.05,  # label written lower-case or with spaces
        "four_branch_unrated": 0.05,  # per branch
        # predictions
        "pred_no_as_na": 0.04,  # a correct "no" written "na"
        "pred_no_omitted": 0.03,  # a correct "no" left out
        "pred_wrong_na": 0.10,  # a wrong answer to a "yes" written "na"
        "pred_wrong_omitted": 0.05,  # ... or left out
        "pred_pairwise_missing": 0.1,  # share of wrong pairwise answers that are missing
        "pred_unknown_label": 0.03,  # per turn: a predicted label outside the vocabulary
        "pred_intensity_null": 0.02,
        "pred_label_case": 0.1,
        "pred_survey_missing": 0.1,  # share of wrong Q2/Q3 answers left empty
        "pred_four_branch_missing": 0.03,
        "run_turn_missing": 0.003,  # a ground-truth turn absent from a run
    }
)

# fixed realism rates (not messiness)
_P_NO_ALTERNATES = 0.05
_P_NULL_WINNER = 0.03
_P_EMPTY_BINARY_TURN = 0.02
_OBSERVED_NA = 0.08
_N_TAG_PROBS = (0.15, 0.4, 0.3, 0.15)
#: Rate of "yes" for observedBehavior per question (by the gist of the question).
_OBSERVED_YES = {
    "B1": 0.7, "B2": 0.6, "B3": 0.5, "B4": 0.25, "B5": 0.2, "B6": 0.3, "B7": 0.15,
    "B8": 0.7, "B9": 0.65, "B10": 0.6, "B11": 0.4, "B12": 0.55, "B13": 0.5, "B14": 0.08,
    "B15": 0.45, "B16": 0.3, "B17": 0.12, "B18": 0.1, "B19": 0.6, "B20": 0.08, "B108": 0.35,
    "B109": 0.5, "B206": 0.2, "B207": 0.15, "B310": 0.15, "B311": 0.12, "B313": 0.3,
    "B315": 0.1, "B316": 0.25, "B406": 0.08, "B408": 0.2, "B501": 0.3, "B502": 0.15,
    "B503": 0.2, "B504": 0.45, "B505": 0.3,
}  # fmt: skip
_QIDS = K.BINARY_QUESTION_IDS
_YES_RATE = np.array([_OBSERVED_YES[q] for q in _QIDS])
_YES, _NO, _NA, _NULL, _OMIT = 0, 1, 2, -1, 3
_BIN_STR = ("yes", "no", "na")
_YES_ALIASES: tuple[Any, ...] = (True, "true", "Y", "y", "1", "Yes")
_NO_ALIASES: tuple[Any, ...] = (False, "false", "N", "n", "0", "No")
_NA_ALIASES: tuple[Any, ...] = ("n/a", "not_applicable", "NA")
_OBS_KEY_ALIASES = ("did_occur", "humanValue", "actualValue")
_PREF_KEY_ALIASES = ("should_occur", "humanPreference")
_PAIRS = (("original", "alternate"), ("original", "human"), ("alternate", "human"))
_MASKED = {"original": "original", "alternate": "alternate1", "human": "alternate2"}
_JUDGE_KEYS = ("overall_score", "emotional_appropriateness", "helpfulness", "tone_match")
_PW_IDS = tuple(q for q in K.PAIRWISE_QUESTIONS if q != "general")
_POS = tuple(i.lower() for i in K.PANAS_POSITIVE)
_NEG = tuple(i.lower() for i in K.PANAS_NEGATIVE)
_TITLE = {i.lower(): i for i in K.PANAS_ITEMS}
_LABELS = _POS + _NEG
_VALENCE = {**dict.fromkeys(_POS, 0), **dict.fromkeys(_NEG, 1)}
_Q1_WEIGHTS = np.array([0.2, 0.22, 0.2, 0.06, 0.17, 0.1, 0.05])
_Q2_WEIGHTS = np.array([0.35, 0.3, 0.2, 0.15])
_INTENSITY_WORDS = {v: k for k, v in K.MOOD_INTENSITY_WORDS.items()}
_PA_ITEM_OFFSET = np.array([0.0, 0.3, -0.3, 0.2, 0.4, 0.0, -0.2, -0.1, -0.2, 0.5])
_NA_ITEM_OFFSET = np.array([0.2, -0.4, 0.5, -0.1, 0.3, -0.2, 0.3, -0.3, -0.3, -0.6])


def _star_correlation(r: float) -> tuple[tuple[float, ...], ...]:
    """Holistic correlated ``r`` with every other capability; the others uncorrelated."""
    m = np.eye(5)
    m[_HOL, :] = r
    m[:, _HOL] = r
    m[_HOL, _HOL] = 1.0
    return tuple(tuple(float(v) for v in row) for row in m)


_PAPER_CORRELATION = _star_correlation(-0.4)

#: A per-capability value as accepted by :class:`SimulationConfig`: one number for every
#: capability, five numbers in the order of :data:`CAPABILITIES`, or a mapping by name.
CapLike = float | Sequence[float] | Mapping[str, float]


# --------------------------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------------------------
def _cap_vector(name: str, value: Any, keys: Sequence[str] = CAPABILITIES) -> tuple[float, ...]:
    """Normalise a scalar, a sequence or a mapping by key to a tuple of floats."""
    n = len(keys)
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(keys))
        missing = [k for k in keys if k not in value]
        if unknown or missing:
            raise ValueError(
                f"{name} must have the keys {list(keys)}; got unknown {unknown}, missing {missing}"
            )
        out = tuple(float(value[k]) for k in keys)
    elif isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        out = (float(value),) * n
    elif isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != n:
            raise ValueError(f"{name} must have {n} values ({list(keys)}); got {value!r}")
        out = tuple(float(v) for v in value)
    else:
        raise TypeError(f"{name} must be a number, a sequence or a mapping; got {value!r}")
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{name} must be finite; got {value!r}")
    return out


def _correlation_matrix(value: Any) -> tuple[tuple[float, ...], ...]:
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        m = np.full((5, 5), float(value))
        np.fill_diagonal(m, 1.0)
    else:
        try:
            m = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(
                f"skill_correlation must be a number or a 5 x 5 matrix; got {value!r}"
            ) from err
        if m.shape != (5, 5):
            raise ValueError(f"skill_correlation must be 5 x 5 (capabilities); got shape {m.shape}")
    if not np.all(np.isfinite(m)) or not np.allclose(m, m.T) or not np.allclose(np.diag(m), 1.0):
        raise ValueError(
            f"skill_correlation must be symmetric with unit diagonal; got {m.tolist()!r}"
        )
    if np.abs(m).max() > 1.0 + 1e-12 or np.linalg.eigvalsh(m).min() < -1e-10:
        raise ValueError(
            f"skill_correlation must be a valid (positive semi-definite) correlation matrix; "
            f"got {m.tolist()!r}"
        )
    return tuple(tuple(float(v) for v in row) for row in m)


@dataclass(frozen=True)
class SimulationConfig:
    """Every knob of the release simulator. Defaults: the paper-like scenario.

    The defaults plant every qualitative claim of the paper (spec section 0, (a)-(g)):
    capability skills uncorrelated among the turn-level capabilities and negatively correlated
    with holistic skill ((a), (g)); large between-model spread for preference and response and a
    small one for emotion (b); anxiety/depression worse on emotion and better on behaviour (c);
    romantic relationships strongly harder on every capability (d); behaviour degrading over the
    turns, emotion flat (e); human raters best on preference and weak on holistic (f).

    Per-capability values (``CapLike``) accept a number (same for all), a sequence in the
    order of :data:`CAPABILITIES` or a mapping by capability name. Effects are on the logit scale.

    Attributes
    ----------
    name : str
        Release name written into ``release.json``.
    n_conversations, n_participants, n_topics, n_models, n_human_raters : int
        Sizes. Conversation ids are the official Sample200 ids (first ``n``), then 249, 250, ...
    n_original_models : int
        Size of the pool of anonymised original models ``om-1`` ...
    n_turns_range : (int, int)
        Inclusive range of the number of turns per conversation (uniform).
    diagnosis_counts : (int, int, int)
        Participants per group ``none, anxiety_depression, asd_adhd``; rescaled to
        ``n_participants`` (largest remainders) when the sum differs.
    participant_weights : tuple of float or None
        Relative frequency of each participant's conversations; ``None``: ``1/sqrt(p + 1)``.
    skill_mean, skill_sd : CapLike
        Mean ``mu_c`` and between-model sd of the evaluated models' skills ``theta``.
    skill_correlation : float or 5 x 5 matrix
        Correlation ``R`` of the standardised skills across capabilities (a number: all
        off-diagonal entries equal).
    human_skill_mean, human_skill_sd : CapLike
        Same for the human raters (same ``R``).
    rater_rho : float
        Probability that a human rater copies the consensus answer of a unit (0 <= rho < 1).
    participant_sd, conversation_sd, topic_sd : CapLike
        Sd of the participant, conversation and topic random effects.
    diagnosis_effect : mapping or pair of CapLike
        ``delta`` of ``anxiety_depression`` and ``asd_adhd`` relative to ``none``.
    diagnosis_interaction_sd, topic_interaction_sd : CapLike
        Sd of the predictor x diagnosis and predictor x topic interactions.
    hardest_topic_effect : CapLike
        Added to the effect of topic 0, "romantic relationships".
    drift_mean, drift_sd : CapLike
        Mean and between-predictor sd of the turn slope ``beta`` (per unit of ``x``, i.e. from
        the first to the last turn); the holistic entries are unused.
    binary_task_offset : mapping or 4 values
        Logit offsets of the tasks ``om, human, om_hp, human_hp`` (:data:`BINARY_TASKS`).
    survey_offset : mapping or 3 values
        Logit offsets of Q1, Q2, Q3 over ``eta_holistic``.
    panas_delta_share : float
        Share of runs written with ``panas_strategy = "delta"``.
    messiness : float
        Multiplier (0 = clean files, 1 = realistic) of :data:`MESSINESS_RATES`; at most 4.
    description : str
        Free text appended to the release description.
    """

    name: str = "simulated-paper"
    n_conversations: int = 200
    n_participants: int = 11
    n_topics: int = 50
    n_models: int = 11
    n_human_raters: int = 3
    n_original_models: int = 8
    n_turns_range: tuple[int, int] = (3, 12)
    diagnosis_counts: tuple[int, int, int] = (4, 4, 3)
    participant_weights: tuple[float, ...] | None = None
    skill_mean: CapLike = (0.4, 1.0, 0.5, 0.0, 0.0)
    skill_sd: CapLike = (0.15, 0.35, 0.8, 0.5, 0.7)
    skill_correlation: float | Sequence[Sequence[float]] = _PAPER_CORRELATION
    human_skill_mean: CapLike = (0.5, 1.0, 1.8, -1.0, 0.2)
    human_skill_sd: CapLike = 0.1
    rater_rho: float = 0.5
    participant_sd: CapLike = 0.3
    diagnosis_effect: Mapping[str, CapLike] | Sequence[CapLike] = (
        (-0.5, 0.4, 0.0, 0.0, 0.0),
        (-0.2, 0.1, 0.0, 0.0, 0.0),
    )
    diagnosis_interaction_sd: CapLike = 0.1
    topic_sd: CapLike = 0.2
    hardest_topic_effect: CapLike = -0.9
    topic_interaction_sd: CapLike = 0.1
    conversation_sd: CapLike = 0.4
    drift_mean: CapLike = (0.0, -0.8, 0.0, 0.0, 0.0)
    drift_sd: CapLike = (0.0, 0.15, 0.1, 0.0, 0.1)
    binary_task_offset: CapLike = (0.0, -0.3, -0.1, -0.4)
    survey_offset: CapLike = (-0.3, 0.0, -0.2)
    panas_delta_share: float = 0.1
    messiness: float = 1.0
    description: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string; got {self.name!r}")
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a string; got {self.description!r}")
        for fname, low in (
            ("n_conversations", 1),
            ("n_participants", 1),
            ("n_topics", 1),
            ("n_models", 1),
            ("n_human_raters", 0),
            ("n_original_models", 1),
        ):
            val = getattr(self, fname)
            if isinstance(val, bool) or not isinstance(val, int | np.integer) or val < low:
                raise ValueError(f"{fname} must be an integer >= {low}; got {val!r}")
            set_(self, fname, int(val))
        rng_ = self.n_turns_range
        if (
            not isinstance(rng_, Sequence)
            or len(rng_) != 2
            or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in rng_)
            or not 1 <= rng_[0] <= rng_[1]
        ):
            raise ValueError(f"n_turns_range must be two integers 1 <= lo <= hi; got {rng_!r}")
        set_(self, "n_turns_range", (int(rng_[0]), int(rng_[1])))
        dc = self.diagnosis_counts
        if (
            not isinstance(dc, Sequence)
            or len(dc) != 3
            or not all(isinstance(v, int | np.integer) and v >= 0 for v in dc)
            or sum(dc) == 0
        ):
            raise ValueError(
                f"diagnosis_counts must be three non-negative integers (none, "
                f"anxiety_depression, asd_adhd) with a positive sum; got {dc!r}"
            )
        set_(self, "diagnosis_counts", tuple(int(v) for v in dc))
        if self.participant_weights is not None:
            pw = tuple(float(v) for v in self.participant_weights)
            if len(pw) != self.n_participants or not all(math.isfinite(v) and v > 0 for v in pw):
                raise ValueError(
                    f"participant_weights must be {self.n_participants} positive numbers; "
                    f"got {self.participant_weights!r}"
                )
            set_(self, "participant_weights", pw)
        for fname in (
            "skill_mean",
            "skill_sd",
            "human_skill_mean",
            "human_skill_sd",
            "participant_sd",
            "diagnosis_interaction_sd",
            "topic_sd",
            "hardest_topic_effect",
            "topic_interaction_sd",
            "conversation_sd",
            "drift_mean",
            "drift_sd",
        ):
            vec = _cap_vector(fname, getattr(self, fname))
            if fname.endswith("_sd") and min(vec) < 0:
                raise ValueError(f"{fname} must be >= 0; got {vec!r}")
            set_(self, fname, vec)
        set_(self, "skill_correlation", _correlation_matrix(self.skill_correlation))
        de = self.diagnosis_effect
        if isinstance(de, Mapping):
            unknown = sorted(set(de) - set(DIAGNOSIS_CODES))
            if unknown:
                raise ValueError(f"diagnosis_effect has unknown groups {unknown}")
            if "none" in de and any(v != 0 for v in _cap_vector("diagnosis_effect", de["none"])):
                raise ValueError("diagnosis_effect['none'] must be 0 (the reference group)")
            de = tuple(de.get(g, 0.0) for g in DIAGNOSIS_CODES[1:])
        if not isinstance(de, Sequence) or len(de) != 2:
            raise ValueError(
                "diagnosis_effect must map anxiety_depression and asd_adhd to capability "
                f"effects, or be a pair of them; got {self.diagnosis_effect!r}"
            )
        set_(
            self,
            "diagnosis_effect",
            tuple(
                _cap_vector(f"diagnosis_effect[{g}]", v) for g, v in zip(DIAGNOSIS_CODES[1:], de)
            ),
        )
        set_(
            self,
            "binary_task_offset",
            _cap_vector("binary_task_offset", self.binary_task_offset, BINARY_TASKS),
        )
        set_(
            self,
            "survey_offset",
            _cap_vector("survey_offset", self.survey_offset, SURVEY_QUESTIONS),
        )
        for fname, low, high in (
            ("rater_rho", 0.0, 1.0 - 1e-9),
            ("panas_delta_share", 0.0, 1.0),
            ("messiness", 0.0, 4.0),
        ):
            val = getattr(self, fname)
            if (
                isinstance(val, bool)
                or not isinstance(val, int | float | np.integer | np.floating)
                or not low <= float(val) <= high
            ):
                raise ValueError(f"{fname} must be a number in [{low}, {high:g}]; got {val!r}")
            set_(self, fname, float(val))

    # -- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of every field (per-capability values as mappings by capability)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            val = getattr(self, f.name)
            if f.name == "skill_correlation":
                out[f.name] = [list(row) for row in val]
            elif f.name == "diagnosis_effect":
                out[f.name] = {
                    g: dict(zip(CAPABILITIES, v)) for g, v in zip(DIAGNOSIS_CODES[1:], val)
                }
            elif f.name == "binary_task_offset":
                out[f.name] = dict(zip(BINARY_TASKS, val))
            elif f.name == "survey_offset":
                out[f.name] = dict(zip(SURVEY_QUESTIONS, val))
            elif isinstance(val, tuple) and len(val) == 5 and f.name not in ("diagnosis_counts",):
                out[f.name] = dict(zip(CAPABILITIES, val))
            elif isinstance(val, tuple):
                out[f.name] = list(val)
            else:
                out[f.name] = val
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimulationConfig:
        """Inverse of :meth:`to_dict` (unknown keys are an error)."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown SimulationConfig fields {unknown}")
        kwargs = dict(data)
        for key in ("n_turns_range", "diagnosis_counts", "participant_weights"):
            if kwargs.get(key) is not None and key in kwargs:
                kwargs[key] = tuple(kwargs[key])
        return cls(**kwargs)

    @property
    def messiness_rates(self) -> dict[str, float]:
        """The effective rates: :data:`MESSINESS_RATES` times ``messiness``, capped at 1."""
        return {k: min(1.0, v * self.messiness) for k, v in MESSINESS_RATES.items()}


SCENARIOS: Mapping[str, SimulationConfig] = MappingProxyType(
    {
        "paper": SimulationConfig(),
        "null": SimulationConfig(
            name="simulated-null",
            skill_correlation=0.0,
            skill_sd=0.4,
            human_skill_mean=(0.4, 1.0, 0.5, 0.0, 0.0),
            human_skill_sd=0.4,
            rater_rho=0.0,
            diagnosis_effect=((0.0,) * 5, (0.0,) * 5),
            diagnosis_interaction_sd=0.0,
            topic_sd=0.0,
            hardest_topic_effect=0.0,
            topic_interaction_sd=0.0,
            drift_mean=0.0,
            drift_sd=0.0,
        ),
    }
)
"""Named scenarios.

``paper``
    The defaults: every paper claim (a)-(g) planted true (see :class:`SimulationConfig`).
``null``
    No capability correlation (``R = I``), equal discrimination (``skill_sd = 0.4`` for every
    capability), no diagnosis effects or interactions, no topic effects (``topic_sd = 0``, no
    hardest topic, no interactions), no drift, and human raters drawn like the models (same skill
    mean and sd, ``rater_rho = 0``: no shared signal beyond the conversation). Participant and
    conversation effects are kept (they are nuisance structure, not claims).
"""


# --------------------------------------------------------------------------------------------
# effects
# --------------------------------------------------------------------------------------------
def _logistic(a: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-np.asarray(a, dtype=float)))


def _scaled_counts(counts: tuple[int, ...], n: int) -> tuple[int, ...]:
    total = sum(counts)
    if total == n:
        return counts
    raw = np.array(counts, dtype=float) * n / total
    base = np.floor(raw).astype(int)
    short = n - int(base.sum())
    order = np.argsort(-(raw - base), kind="stable")
    base[order[:short]] += 1
    return tuple(int(v) for v in base)


def _predictor_names(n_models: int, n_humans: int) -> tuple[list[str], list[str], list[str]]:
    wm = max(2, len(str(n_models)))
    wh = max(1, len(str(n_humans)))
    names = [f"sim-model-{i:0{wm}d}" for i in range(1, n_models + 1)]
    names += [f"sim-human-{i:0{wh}d}" for i in range(1, n_humans + 1)]
    kinds = ["model"] * n_models + ["human"] * n_humans
    display = [f"Simulated model {i:0{wm}d}" for i in range(1, n_models + 1)]
    display += [f"Simulated human rater {i:0{wh}d}" for i in range(1, n_humans + 1)]
    return names, kinds, display


def conversation_ids(n: int) -> tuple[str, ...]:
    """Conversation ids of a simulated release of ``n`` conversations.

    The official Sample200 ids in order when ``n <= 200``; beyond, the numbering continues
    after 248 (249, 250, ...).
    """
    official = K.SUBSETS["Sample200"]
    ids = list(official[:n])
    ids += list(range(max(official) + 1, max(official) + 1 + n - len(ids)))
    return tuple(str(i) for i in ids)


@dataclass(frozen=True, eq=False)
class TrueEffects:
    """The population a simulated release is drawn from (everything except conversations).

    Arrays are indexed by predictor (order of :attr:`predictors`: models then human raters),
    participant, topic and capability (order of :data:`CAPABILITIES`). Reuse an instance in
    :func:`simulate_documents` to draw new conversations from the same population.

    Attributes
    ----------
    config : SimulationConfig
        Configuration the effects were drawn with.
    seed : int
        Seed the effects were drawn with.
    predictors, kinds, display_names : tuple of str
        Predictor directory names, ``"model"``/``"human"`` and display names.
    theta, beta : ndarray, shape (n_predictors, 5)
        Skills and turn slopes.
    rho : ndarray, shape (n_predictors,)
        Probability of copying the consensus answer (0 for models, ``rater_rho`` for humans).
    participants, diagnosis, ages : tuple of str
        Participant ids, diagnosis groups and age bands.
    traits : tuple of tuple of str
        ``participant_profile.traits`` of each participant.
    participant_weights : ndarray, shape (n_participants,)
        Probability that a conversation belongs to each participant (sums to 1).
    participant_distress : ndarray, shape (n_participants,)
        Latent distress driving the ground-truth mood (negative tags, PANAS NA).
    u : ndarray, shape (n_participants, 5)
        Participant effects.
    delta : ndarray, shape (3, 5)
        Diagnosis effects (rows in the order of :data:`DIAGNOSIS_CODES`; row ``none`` is 0).
    gamma : ndarray, shape (n_predictors, 3, 5)
        Predictor x diagnosis interactions (``gamma[:, 0] = 0``).
    topics : tuple of str
        Topic names (topic 0 is "romantic relationships").
    v : ndarray, shape (n_topics, 5)
        Topic effects (hardest-topic effect included).
    topic_interaction : ndarray, shape (n_predictors, n_topics, 5)
        Predictor x topic interactions.
    original_models : tuple of str
        Anonymised original model names.
    original_model_quality : ndarray
        Latent quality of each original model (drives ground-truth survey answers and winners).
    """

    config: SimulationConfig
    seed: int
    predictors: tuple[str, ...]
    kinds: tuple[str, ...]
    display_names: tuple[str, ...]
    theta: np.ndarray
    beta: np.ndarray
    rho: np.ndarray
    participants: tuple[str, ...]
    diagnosis: tuple[str, ...]
    traits: tuple[tuple[str, ...], ...]
    ages: tuple[str, ...]
    participant_weights: np.ndarray
    participant_distress: np.ndarray
    u: np.ndarray
    delta: np.ndarray
    gamma: np.ndarray
    topics: tuple[str, ...]
    v: np.ndarray
    topic_interaction: np.ndarray
    original_models: tuple[str, ...]
    original_model_quality: np.ndarray

    @property
    def capabilities(self) -> tuple[str, ...]:
        return CAPABILITIES

    @property
    def n_models(self) -> int:
        return self.kinds.count("model")

    @property
    def diagnosis_index(self) -> np.ndarray:
        """Group index (into :data:`DIAGNOSIS_CODES`) of each participant."""
        return np.array([DIAGNOSIS_CODES.index(g) for g in self.diagnosis], dtype=int)

    def realised_correlation(self, kind: str = "model") -> np.ndarray:
        """Correlation across capabilities of the drawn skills of one kind of predictor.

        Entries are NaN where a capability has no spread (sd 0) or fewer than 2 predictors.
        """
        rows = self.theta[[k == kind for k in self.kinds]]
        if rows.shape[0] < 2:
            return np.full((5, 5), np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            c = np.corrcoef(rows, rowvar=False)
        return np.atleast_2d(c)

    def hardest_topics(self) -> dict[str, dict[str, str]]:
        """Per capability and predictor, the topic with the lowest ``v + topic_interaction``."""
        total = self.v[None, :, :] + self.topic_interaction  # (P, T, C)
        idx = np.argmin(total, axis=1)  # (P, C)
        return {
            c: {m: self.topics[int(idx[i, ci])] for i, m in enumerate(self.predictors)}
            for ci, c in enumerate(CAPABILITIES)
        }


def draw_effects(config: SimulationConfig | None = None, *, rng: RNGLike) -> TrueEffects:
    """Draw the population effects of a simulated release (no conversations).

    Parameters
    ----------
    config : SimulationConfig, optional
        Defaults to the paper-like scenario.
    rng : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the draws (:func:`attunestats._rng.root_seed`); :func:`simulate_documents` with
        the same int draws the same effects.

    Returns
    -------
    TrueEffects

    Examples
    --------
    >>> eff = draw_effects(SCENARIOS["null"], rng=1)
    >>> eff.theta.shape
    (14, 5)
    """
    cfg = SimulationConfig() if config is None else config
    if not isinstance(cfg, SimulationConfig):
        raise TypeError(f"config must be a SimulationConfig; got {type(cfg).__name__}")
    seed = root_seed(rng)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
    nm, nh, C = cfg.n_models, cfg.n_human_raters, len(CAPABILITIES)
    P = nm + nh
    names, kinds, display = _predictor_names(nm, nh)

    corr = np.array(cfg.skill_correlation)
    vals, vecs = np.linalg.eigh(corr)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    z = rng.standard_normal((P, C)) @ root.T
    theta = np.empty((P, C))
    theta[:nm] = np.array(cfg.skill_mean) + np.array(cfg.skill_sd) * z[:nm]
    theta[nm:] = np.array(cfg.human_skill_mean) + np.array(cfg.human_skill_sd) * z[nm:]
    beta = np.array(cfg.drift_mean) + np.array(cfg.drift_sd) * rng.standard_normal((P, C))
    beta[:, _HOL] = 0.0
    rho = np.array([0.0] * nm + [cfg.rater_rho] * nh)

    npart = cfg.n_participants
    counts = _scaled_counts(cfg.diagnosis_counts, npart)
    groups = rng.permutation(np.repeat(np.arange(3), counts))
    diagnosis = tuple(DIAGNOSIS_CODES[g] for g in groups)
    traits = tuple(
        text.DIAGNOSIS_TRAITS[d][int(rng.integers(len(text.DIAGNOSIS_TRAITS[d])))]
        for d in diagnosis
    )
    ages = tuple(text.AGE_BANDS[int(i)] for i in rng.integers(len(text.AGE_BANDS), size=npart))
    distress = np.array([0.0, 1.0, 0.4])[groups] + 0.5 * rng.standard_normal(npart)
    if cfg.participant_weights is None:
        weights = 1.0 / np.sqrt(np.arange(1, npart + 1))
    else:
        weights = np.array(cfg.participant_weights)
    weights = weights / weights.sum()
    u = np.array(cfg.participant_sd) * rng.standard_normal((npart, C))
    wp = max(2, len(str(npart)))
    participants = tuple(f"sim-p{i:0{wp}d}" for i in range(1, npart + 1))

    delta = np.zeros((3, C))
    delta[1:] = np.array(cfg.diagnosis_effect)
    gamma = np.array(cfg.diagnosis_interaction_sd) * rng.standard_normal((P, 3, C))
    gamma[:, 0, :] = 0.0

    topics = text.topic_names(cfg.n_topics)
    v = np.array(cfg.topic_sd) * rng.standard_normal((cfg.n_topics, C))
    v[0] += np.array(cfg.hardest_topic_effect)
    topic_interaction = np.array(cfg.topic_interaction_sd) * rng.standard_normal(
        (P, cfg.n_topics, C)
    )
    oms = tuple(f"om-{i}" for i in range(1, cfg.n_original_models + 1))
    om_quality = 0.5 * rng.standard_normal(cfg.n_original_models)

    return TrueEffects(
        config=cfg,
        seed=seed,
        predictors=tuple(names),
        kinds=tuple(kinds),
        display_names=tuple(display),
        theta=theta,
        beta=beta,
        rho=rho,
        participants=participants,
        diagnosis=diagnosis,
        traits=traits,
        ages=ages,
        participant_weights=weights,
        participant_distress=distress,
        u=u,
        delta=delta,
        gamma=gamma,
        topics=topics,
        v=v,
        topic_interaction=topic_interaction,
        original_models=oms,
        original_model_quality=om_quality,
    )


# --------------------------------------------------------------------------------------------
# simulation of one conversation
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Structure:
    ids: tuple[str, ...]
    participant: np.ndarray
    topic: np.ndarray
    n_turns: np.ndarray
    om: np.ndarray
    w: np.ndarray


def _draw_structure(cfg: SimulationConfig, eff: TrueEffects, seed: int) -> _Structure:
    """Participant, topic, length, original model and effect ``w`` of every conversation.

    Conversation ``k`` draws from its own stream ``SeedSequence(seed, spawn_key=(1, k))``, so the
    first ``n`` conversations do not depend on how many are simulated.
    """
    n = cfg.n_conversations
    lo, hi = cfg.n_turns_range
    cdf = np.cumsum(eff.participant_weights)
    cdf[-1] = 1.0
    participant = np.empty(n, dtype=int)
    topic = np.empty(n, dtype=int)
    n_turns = np.empty(n, dtype=int)
    om = np.empty(n, dtype=int)
    w = np.empty((n, len(CAPABILITIES)))
    sd = np.array(cfg.conversation_sd)
    for k in range(n):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, k)))
        participant[k] = int(np.searchsorted(cdf, rng.random(), side="right"))
        topic[k] = int(rng.integers(len(eff.topics)))
        n_turns[k] = int(rng.integers(lo, hi + 1))
        om[k] = int(rng.integers(len(eff.original_models)))
        w[k] = sd * rng.standard_normal(len(CAPABILITIES))
    return _Structure(conversation_ids(n), participant, topic, n_turns, om, w)


def _turn_position(n_turns: int) -> np.ndarray:
    if n_turns == 1:
        return np.array([0.5])
    return np.arange(n_turns) / (n_turns - 1)


def _consensus_uniforms(
    rng: np.random.Generator, rho: np.ndarray, shape: tuple[int, ...], k: int = 2
) -> list[np.ndarray]:
    """``k`` arrays (P, *shape) of U(0, 1); predictor m uses the unit's shared draws w.p. rho[m]."""
    P = rho.shape[0]
    copy = rng.random((P, *shape)) < rho.reshape((P,) + (1,) * len(shape))
    out = []
    for _ in range(k):
        shared = rng.random(shape)
        own = rng.random((P, *shape))
        out.append(np.where(copy, shared[None], own))
    return out


def _consensus_normals(
    rng: np.random.Generator, rho: np.ndarray, shape: tuple[int, ...]
) -> np.ndarray:
    P = rho.shape[0]
    r = rho.reshape((P,) + (1,) * len(shape))
    return np.sqrt(r) * rng.standard_normal(shape)[None] + np.sqrt(1.0 - r) * rng.standard_normal(
        (P, *shape)
    )


def _binary_written(code: int, alias_u: float, pick_u: float, rate: float) -> Any:
    if code == _NULL:
        return None
    if alias_u < rate:
        pool = (_YES_ALIASES, _NO_ALIASES, _NA_ALIASES)[code]
        return pool[int(pick_u * len(pool))]
    return _BIN_STR[code]


def _panas_block(
    items: np.ndarray, rng: np.random.Generator, rates: Mapping[str, float]
) -> dict[str, Any]:
    """A ground-truth PANAS block in one of the accepted layouts (spec 1.4, spec 4)."""
    vals = {name: int(v) for name, v in zip(K.PANAS_ITEMS, items)}
    pa, na = int(items[:10].sum()), int(items[10:].sum())
    u_layout, u_tot, u_out_pa, u_out_na, u_k = rng.random(5)
    block: dict[str, Any] = {}
    if u_tot >= rates["panas_totals_absent"]:
        totals = []
        for total, u_out in ((pa, u_out_pa), (na, u_out_na)):
            if (
                total in (K.PANAS_TOTAL_MIN, K.PANAS_TOTAL_MAX)
                and u_out < rates["panas_total_out_of_range"]
            ):
                step = 1 + int(u_k * 3)
                total = total - step if total == K.PANAS_TOTAL_MIN else total + step
            totals.append(total)
        block["totalPositiveAffect"] = totals[0]
        block["totalNegativeAffect"] = totals[1]
    if u_layout < rates["panas_items_top_level"]:
        block.update(vals)
    elif u_layout < rates["panas_items_top_level"] + rates["panas_items_nested"]:
        block["responses"] = vals
    else:
        block["items"] = vals
    return block


def _parsed_panas(items: np.ndarray) -> dict[str, Any]:
    """PANAS as the runner echoes it (pre_panas_shown): totals plus items."""
    return {
        "totalPositiveAffect": int(items[:10].sum()),
        "totalNegativeAffect": int(items[10:].sum()),
        "items": {name: int(v) for name, v in zip(K.PANAS_ITEMS, items)},
    }


@dataclass
class _Context:
    cfg: SimulationConfig
    eff: TrueEffects
    st: _Structure
    seed: int
    rates: dict[str, float]
    missing_run_turns: list[list[Any]]
    delta_runs: list[list[str]]


def _clamp_int(value: float, low: int, high: int) -> int:
    """``round(value)`` clamped to ``low..high`` (Python rounding, half to even)."""
    return max(low, min(high, round(value)))


@dataclass
class _GroundTruth:
    """Ground truth of one conversation as the scorer sees it (normalised), plus what was written.

    Codes: binary 0 yes, 1 no, 2 na, -1 null; winners 0 A, 1 B, -1 none.
    """

    nt: int
    x: np.ndarray
    tags: list[list[tuple[str, int | None, bool]]]  # (label, intensity, known) per turn
    written_tags: list[list[dict[str, Any]]]
    obs: np.ndarray  # (nt, Q) observedBehavior
    pref: np.ndarray  # preferredBehavior
    llm: np.ndarray  # llmValue
    ref_om: np.ndarray  # scorer reference of the OM tasks (observed, fallback llmValue)
    ref_hp: np.ndarray  # of the HP tasks (preferred, fallback observed)
    included: np.ndarray  # question present in the turn
    answered: np.ndarray  # included and applicable (the EM is asked)
    written_judgements: list[list[dict[str, Any]]]
    comps: list[list[tuple[str, str, str, int]]]  # (questionId, label A, label B, winner)
    selected: list[list[str]]
    has_alt: list[bool]
    blinded: bool
    texts: list[tuple[str, str, str, str]]  # user, original, llm-improved, human-edited
    pre: np.ndarray  # 20 PANAS items, order of constants.PANAS_ITEMS
    post: np.ndarray
    pre_block: dict[str, Any]
    post_block: dict[str, Any]
    q1_idx: list[int]
    q2_idx: int
    q3_idx: int
    follow_up: list[str]
    fb_true: np.ndarray
    fb_rated: np.ndarray
    survey_doc: dict[str, Any]


def _gt_emotion(
    rng: np.random.Generator, x: np.ndarray, distress: float, R: Mapping[str, float]
) -> tuple[list[list[tuple[str, int | None, bool]]], list[list[dict[str, Any]]]]:
    """Mood tags per turn: 0-3 PANAS labels of the participant's current valence.

    Negative valence has probability ``L(0.3 + distress + N(0, 0.5) - 0.8 x)`` (conversations
    help a little); with 2+ tags one of them is of the other valence with probability 0.15;
    intensities ``round(N(4 + 0.6 distress, 1.4))`` clamped to 1..7.
    """
    neg_logit = 0.3 + 1.0 * distress + 0.5 * float(rng.standard_normal())
    tags_all: list[list[tuple[str, int | None, bool]]] = []
    written_all: list[list[dict[str, Any]]] = []
    for xj in x:
        n_tags = int(rng.choice(4, p=_N_TAG_PROBS))
        negative = rng.random() < _logistic(neg_logit - 0.8 * xj)
        pool = _NEG if negative else _POS
        other = _POS if negative else _NEG
        labels = [pool[i] for i in rng.permutation(10)[:n_tags]]
        if n_tags >= 2 and rng.random() < 0.15:
            labels[-1] = other[int(rng.integers(10))]
        intens = np.clip(np.rint(4.0 + 0.6 * distress + 1.4 * rng.standard_normal(n_tags)), 1, 7)
        u_null, u_word, u_case, u_case_kind = rng.random((4, n_tags))
        tags: list[tuple[str, int | None, bool]] = []
        written: list[dict[str, Any]] = []
        for i, lab in enumerate(labels):
            inten: int | None = None if u_null[i] < R["intensity_null"] else int(intens[i])
            w_int: Any = inten
            if inten in _INTENSITY_WORDS and u_word[i] < R["intensity_word"]:
                w_int = _INTENSITY_WORDS[inten]
            if u_case[i] < R["label_case"]:
                w_lab = lab if u_case_kind[i] < 0.5 else f" {_TITLE[lab]} "
            else:
                w_lab = _TITLE[lab]
            tags.append((lab, inten, True))
            written.append({"emotion": w_lab, "intensity": w_int})
        if rng.random() < R["gt_unknown_label"]:
            lab = text.UNKNOWN_GT_LABELS[int(rng.integers(len(text.UNKNOWN_GT_LABELS)))]
            inten = _clamp_int(3.5 + 1.2 * rng.standard_normal(), 1, 7)
            tags.append((lab, inten, False))
            written.append({"emotion": lab, "intensity": inten})
        tags_all.append(tags)
        written_all.append(written)
    return tags_all, written_all


def _gt_binary(rng: np.random.Generator, nt: int, R: Mapping[str, float]) -> dict[str, Any]:
    """Binary judgements (vectorised over turns x the 36 questions).

    Each question is asked in a turn with probability ``pi ~ U(0.15, 0.45)`` (per conversation);
    2% of turns have none. observedBehavior: na 8%, else yes at the question's rate
    (``_OBSERVED_YES``); preferredBehavior equals it 70% of the time (else the opposite), na 3%;
    llmValue agrees with observed 75%. Nulls at messiness rates; a null observedBehavior never
    has an na preferredBehavior, so every scored question is also one the EM is asked.
    """
    Q = len(_QIDS)
    pi = rng.uniform(0.15, 0.45)
    incl = rng.random((nt, Q)) < pi
    incl[rng.random(nt) < _P_EMPTY_BINARY_TURN] = False
    obs = np.where(
        rng.random((nt, Q)) < _OBSERVED_NA,
        _NA,
        np.where(rng.random((nt, Q)) < _YES_RATE, _YES, _NO),
    )
    obs[rng.random((nt, Q)) < R["observed_null"]] = _NULL
    agree = rng.random((nt, Q)) < 0.7
    u = rng.random((nt, Q))
    pref = np.where(
        obs == _NA,
        np.where(u < 0.7, _NA, np.where(u < 0.85, _YES, _NO)),
        np.where(obs == _NULL, np.where(u < 0.5, _YES, _NO), np.where(agree, obs, 1 - obs)),
    )
    pref[(rng.random((nt, Q)) < 0.03) & (obs != _NULL)] = _NA
    pref[rng.random((nt, Q)) < R["preferred_null"]] = _NULL
    u = rng.random((nt, Q))
    llm = np.where(
        (obs == _YES) | (obs == _NO),
        np.where(u < 0.75, obs, 1 - obs),
        np.where(u < 0.5, _YES, _NO),
    )
    llm[rng.random((nt, Q)) < 0.05] = _NA
    llm[rng.random((nt, Q)) < R["llm_value_null"]] = _NULL
    applicable = (
        ((obs == _NULL) & (pref == _NULL))
        | ((obs != _NULL) & (obs != _NA))
        | ((pref != _NULL) & (pref != _NA))
    )
    alias_u = rng.random((nt, Q, 3))
    pick_u = rng.random((nt, Q, 3))
    key_u = rng.random((nt, Q, 2))
    rate = R["binary_value_alias"]
    written: list[list[dict[str, Any]]] = []
    for j in range(nt):
        rows = []
        for q in np.flatnonzero(incl[j]):
            values = [
                _binary_written(int(arr[j, q]), alias_u[j, q, i], pick_u[j, q, i], rate)
                for i, arr in enumerate((llm, obs, pref))
            ]
            obs_key, pref_key = "observedBehavior", "preferredBehavior"
            if key_u[j, q, 0] < R["binary_key_alias"]:
                obs_key = _OBS_KEY_ALIASES[int(key_u[j, q, 1] * 3)]
                pref_key = _PREF_KEY_ALIASES[int(key_u[j, q, 1] * 2)]
            rows.append(
                {
                    "questionId": _QIDS[q],
                    "llmValue": values[0],
                    obs_key: values[1],
                    pref_key: values[2],
                }
            )
        written.append(rows)
    return {
        "obs": obs,
        "pref": pref,
        "llm": llm,
        "ref_om": np.where(obs != _NULL, obs, llm),
        "ref_hp": np.where(pref != _NULL, pref, obs),
        "included": incl,
        "answered": incl & applicable,
        "written_judgements": written,
    }


def _gt_pairwise(
    rng: np.random.Generator, nt: int, om_quality: float, R: Mapping[str, float]
) -> tuple[list[list[tuple[str, str, str, int]]], list[list[str]], list[bool], bool]:
    """Pairwise comparisons per turn.

    5% of turns have no alternates (and no comparisons). Otherwise "general" compares all three
    pairs of original/alternate/human and 0-3 of PW1..PW15 (probabilities .35/.3/.2/.15) one
    random pair each; A/B placement is random; winner A with probability
    ``L(quality_A - quality_B)`` (qualities per turn: original ``om_quality + N(0, 1)``, alternate
    ``0.3 + N(0, 1)``, human ``0.8 + N(0, 1)``), none with probability 0.03.
    """
    blinded = bool(rng.random() < R["blinded_labels"])
    comps: list[list[tuple[str, str, str, int]]] = []
    selected: list[list[str]] = []
    has_alt: list[bool] = []
    for _j in range(nt):
        if rng.random() < _P_NO_ALTERNATES:
            comps.append([])
            selected.append([])
            has_alt.append(False)
            continue
        has_alt.append(True)
        n_pw = int(rng.choice(4, p=(0.35, 0.3, 0.2, 0.15)))
        pws = [_PW_IDS[i] for i in np.sort(rng.permutation(len(_PW_IDS))[:n_pw])]
        quality = {
            "original": om_quality + rng.standard_normal(),
            "alternate": 0.3 + rng.standard_normal(),
            "human": 0.8 + rng.standard_normal(),
        }
        plan = [("general", pair) for pair in _PAIRS] + [
            (q, _PAIRS[int(rng.integers(3))]) for q in pws
        ]
        turn_comps = []
        for qid, pair in plan:
            a, b = pair if rng.random() < 0.5 else pair[::-1]
            u_null, u_win = rng.random(2)
            if u_null < _P_NULL_WINNER:
                win = _NULL
            else:
                win = 0 if u_win < _logistic(quality[a] - quality[b]) else 1
            turn_comps.append((qid, a, b, win))
        comps.append(turn_comps)
        selected.append(pws)
    return comps, selected, has_alt, blinded


def _gt_post(
    rng: np.random.Generator, distress: float, om_quality: float, R: Mapping[str, float]
) -> dict[str, Any]:
    """PANAS before/after and the post-conversation survey.

    Pre items ``round(base + item offset + N(0, 1))`` (PA base ``3.6 - 0.4 distress``, NA base
    ``1.8 + 0.7 distress``); post = pre + a conversation change (PA ``0.3 + 0.3 q + N(0, .5)``,
    NA ``-0.4 - 0.2 q + N(0, .5)``, ``q`` the OM quality) + ``N(0, 0.6)`` per item; with probability
    ``0.25 L(-2 distress)`` the participant rates every NA item 1 (floor responder; after the
    conversation too with probability 0.8: NA total 10). Q3 index
    ``round(1.3 - 0.9 q + N(0, 0.6))``; 0-2 follow-up phrases for poorer fits; Q2 and Q1 (1-3
    options) at fixed rates; four-branch ``round(4.6 + 0.8 q + N(0, 1.1))``, 1..7.
    """
    pa_base = 3.6 - 0.4 * distress
    na_base = 1.8 + 0.7 * distress
    pre = np.clip(
        np.rint(
            np.concatenate([pa_base + _PA_ITEM_OFFSET, na_base + _NA_ITEM_OFFSET])
            + rng.standard_normal(20)
        ),
        1,
        7,
    )
    change = np.concatenate(
        [
            np.full(10, 0.3 + 0.3 * om_quality + 0.5 * rng.standard_normal()),
            np.full(10, -0.4 - 0.2 * om_quality + 0.5 * rng.standard_normal()),
        ]
    )
    post = np.clip(np.rint(pre + change + 0.6 * rng.standard_normal(20)), 1, 7)
    u_floor = rng.random(2)
    if u_floor[0] < 0.25 * _logistic(-2.0 * distress):  # floor responders: every NA item 1
        pre[10:] = 1
        if u_floor[1] < 0.8:
            post[10:] = 1
    pre_block = _panas_block(pre, rng, R)
    post_block = _panas_block(post, rng, R)

    q3_idx = _clamp_int(1.3 - 0.9 * om_quality + 0.6 * rng.standard_normal(), 0, 3)
    u_fu1, u_fu2 = rng.random(), rng.random()
    n_fu = (0, int(u_fu1 < 0.25), 1 + int(u_fu2 < 0.5), 2)[q3_idx]
    order = rng.permutation(len(text.FOLLOW_UP_PHRASES))[:n_fu]
    follow_up = [text.FOLLOW_UP_PHRASES[i] for i in order]
    q2_idx = int(rng.choice(4, p=_Q2_WEIGHTS))
    n_q1 = int(rng.choice(3, p=(0.5, 0.35, 0.15))) + 1
    q1_idx = sorted(int(i) for i in rng.choice(7, size=n_q1, replace=False, p=_Q1_WEIGHTS))
    fb_true = np.clip(np.rint(4.6 + 0.8 * om_quality + 1.1 * rng.standard_normal(4)), 1, 7)
    fb_u = rng.random((4, 2))
    fb_rated = fb_u[:, 0] >= R["four_branch_unrated"]
    four_branch: dict[str, Any] = {}
    for b, branch in enumerate(K.FOUR_BRANCHES):
        if fb_rated[b]:
            four_branch[branch] = int(fb_true[b])
        elif fb_u[b, 1] < 0.5:
            four_branch[branch] = None  # unrated: null, or (else) the key is absent
    alias = rng.random() < R["survey_key_alias"]
    survey_doc = {
        ("Q1" if alias else "q1_lookingFor"): [K.Q1_OPTIONS[i] for i in q1_idx],
        ("Q2" if alias else "q2_emotionClarity"): K.Q2_OPTIONS[q2_idx],
        ("Q3" if alias else "q3_modelFit"): K.Q3_OPTIONS[q3_idx],
        "q3_followUp_whatFeltOff": follow_up,
        "fourBranchScores": four_branch,
    }
    return {
        "pre": pre,
        "post": post,
        "pre_block": pre_block,
        "post_block": post_block,
        "q1_idx": q1_idx,
        "q2_idx": q2_idx,
        "q3_idx": q3_idx,
        "follow_up": follow_up,
        "fb_true": fb_true,
        "fb_rated": fb_rated,
        "survey_doc": survey_doc,
    }


def _ground_truth(
    rng: np.random.Generator,
    nt: int,
    topic: str,
    distress: float,
    om_quality: float,
    R: Mapping[str, float],
) -> _GroundTruth:
    x = _turn_position(nt)
    tags, written_tags = _gt_emotion(rng, x, distress, R)
    binary = _gt_binary(rng, nt, R)
    comps, selected, has_alt, blinded = _gt_pairwise(rng, nt, om_quality, R)
    texts = []
    for j in range(nt):
        known = [lab for lab, _i, kn in tags[j] if kn]
        user = text.user_message(rng, topic, known[0] if known else None)
        texts.append((user, *text.replies(rng, topic)))
    post = _gt_post(rng, distress, om_quality, R)
    return _GroundTruth(
        nt=nt,
        x=x,
        tags=tags,
        written_tags=written_tags,
        comps=comps,
        selected=selected,
        has_alt=has_alt,
        blinded=blinded,
        texts=texts,
        **binary,
        **post,
    )


def _conversation_document(
    rng: np.random.Generator,
    cid: str,
    eff: TrueEffects,
    p: int,
    om: int,
    topic: str,
    gt: _GroundTruth,
    R: Mapping[str, float],
) -> dict[str, Any]:
    """The ground-truth file (spec 1.4), with the messiness of pairwise keys and winners."""
    nt = gt.nt
    day = int(rng.integers(0, 120))
    sec = int(rng.integers(0, 86400))
    conv_time = datetime(2025, 11, 1) + timedelta(days=day, seconds=sec)
    key_alias_u = rng.random((nt, 16))
    win_alias_u = rng.random((nt, 16, 2))
    turn_docs = []
    for j in range(nt):
        user, original, improved, human = gt.texts[j]
        alt: dict[str, str] | None = None
        if gt.has_alt[j]:
            if gt.blinded:
                alt = {"alternate1": improved, "alternate2": human}
            else:
                alt = {"llmImproved": improved, "humanEdited": human}
        pw_docs = []
        for i, (qid, a, b, win) in enumerate(gt.comps[j]):
            la, lb = (_MASKED[a], _MASKED[b]) if gt.blinded else (a, b)
            ka, kb = ("responseA", "responseB")
            if key_alias_u[j, i] < R["pairwise_key_alias"]:
                ka, kb = ("response_1", "response_2")
            if win == _NULL:
                wv: Any = None
            elif win_alias_u[j, i, 0] < R["winner_alias"]:
                wv = (("a", "response_1"), ("b", "response_2"))[win][int(win_alias_u[j, i, 1] * 2)]
            else:
                wv = "AB"[win]
            pw_docs.append({"questionId": qid, ka: la, kb: lb, "winner": wv})
        turn_docs.append(
            {
                "turnNumber": j + 1,
                "userMessage": user,
                "llmResponse": original,
                "moodShiftTags": gt.written_tags[j],
                "annotations": {
                    "binaryJudgements": gt.written_judgements[j],
                    "alternateResponses": alt,
                    "pairwiseComparisons": pw_docs,
                    "selectedPairwiseQuestions": gt.selected[j],
                },
            }
        )
    om_name = eff.original_models[om]
    return {
        "conversationId": cid,
        "metadata": {
            "conversationId": cid,
            "model": om_name,
            "provider": "anonymised",
            "timestamp": conv_time.isoformat() + "Z",
            "category": topic,
            "subtopic": text.SUBTOPICS[int(rng.integers(len(text.SUBTOPICS)))],
            "model_version": f"{om_name}-v1",
            "conversation_visibility": "private",
            "turnCount": nt,
        },
        "participant_profile": {
            "schema_version": "1.0",
            "participant_id": eff.participants[p],
            "responses": {"prior_ai_use": ("weekly", "daily", "rarely")[p % 3]},
            "age": eff.ages[p],
            "traits": list(eff.traits[p]),
            "goals": [text.PROFILE_GOALS[p % len(text.PROFILE_GOALS)]],
        },
        "prePanas": gt.pre_block,
        "postPanas": gt.post_block,
        "conversationWideQuestions": gt.survey_doc,
        "turns": turn_docs,
    }


# ---------------- predictions (each returns per predictor m, per turn j) -------------------
def _pred_behaviour(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta: np.ndarray,
    rho: np.ndarray,
    task_offset: np.ndarray,
    R: Mapping[str, float],
) -> tuple[list[list[list[dict[str, str]]]], list[list[dict[str, str]]]]:
    """Binary answers [m][j][task] and the draft judge's binary answers [m][j] (see module doc)."""
    nt, Q = gt.nt, len(_QIDS)
    ref = np.stack([gt.ref_om, gt.ref_hp, gt.ref_om, gt.ref_hp], axis=-1)[None]  # (1, nt, Q, 4)
    p_correct = _logistic(eta[:, :, _BEH][:, :, None, None] + task_offset[None, None, None, :])
    u1, u2 = _consensus_uniforms(rng, rho, (nt, Q, 4))
    correct = u1 < p_correct
    r_na, r_om = R["pred_no_as_na"], R["pred_no_omitted"]
    w_na, w_om = R["pred_wrong_na"], R["pred_wrong_omitted"]
    ans = np.where(u2 < 0.6, _NA, np.where(u2 < 0.8, _YES, _NO))  # unscored references
    correct_no = np.where(u2 < r_na, _NA, np.where(u2 < r_na + r_om, _OMIT, _NO))
    wrong_yes = np.where(u2 < w_na, _NA, np.where(u2 < w_na + w_om, _OMIT, _NO))
    ans = np.where(ref == _YES, np.where(correct, _YES, wrong_yes), ans)
    ans = np.where(ref == _NO, np.where(correct, correct_no, _YES), ans)
    ans_list = ans.transpose(0, 1, 3, 2).tolist()  # [m][j][task][q]
    p_resp = _logistic(eta[:, :, _RESP])
    d_ok = rng.random((eta.shape[0], nt, Q)) < p_resp[:, :, None]
    scored = (gt.ref_hp == _YES) | (gt.ref_hp == _NO)
    d_list = np.where(scored, np.where(d_ok, gt.ref_hp[None], 1 - gt.ref_hp[None]), _NO).tolist()
    asked = [np.flatnonzero(gt.answered[j]).tolist() for j in range(nt)]
    answers = [
        [
            [{_QIDS[q]: _BIN_STR[row[q]] for q in asked[j] if row[q] != _OMIT} for row in per_j]
            for j, per_j in enumerate(per_m)
        ]
        for per_m in ans_list
    ]
    drafts = [
        [{_QIDS[q]: _BIN_STR[per_m[j][q]] for q in asked[j]} for j in range(nt)] for per_m in d_list
    ]
    return answers, drafts


def _pred_preference(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta: np.ndarray,
    rho: np.ndarray,
    R: Mapping[str, float],
) -> list[list[dict[str, str]]]:
    """``em_pairwise_selections`` [m][j]."""
    P = eta.shape[0]
    flat = [(j, win) for j in range(gt.nt) for (_q, _a, _b, win) in gt.comps[j]]
    if not flat:
        return [[{} for _ in range(gt.nt)] for _ in range(P)]
    c_turn = np.array([f[0] for f in flat])
    c_win = np.array([f[1] for f in flat])
    p_correct = _logistic(eta[:, c_turn, _PREF])  # (P, n_comparisons)
    v1, v2 = _consensus_uniforms(rng, rho, (len(flat),))
    wrong = np.where(v2 < R["pred_pairwise_missing"], _NULL, 1 - c_win[None])
    sel = np.where(v1 < p_correct, c_win[None], wrong)
    undecided = np.where(v2 < 0.1, _NULL, np.where(v2 < 0.55, 0, 1))
    sel = np.where(c_win[None] == _NULL, undecided, sel).tolist()
    out = []
    for m in range(P):
        per_m, pos = [], 0
        for j in range(gt.nt):
            n = len(gt.comps[j])
            row = sel[m][pos : pos + n]
            pos += n
            per_m.append({str(i): "AB"[s] for i, s in enumerate(row) if s != _NULL})
        out.append(per_m)
    return out


def _pred_emotion(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta: np.ndarray,
    rho: np.ndarray,
    R: Mapping[str, float],
) -> list[list[list[dict[str, Any]]]]:
    """``em_emotion_tags`` [m][j] (see module doc for the exact recovery model)."""
    P, nt = eta.shape[0], gt.nt
    units = [(j, lab, inten) for j in range(nt) for lab, inten, kn in gt.tags[j] if kn]
    abstain = [j for j in range(nt) if not any(kn for _l, _i, kn in gt.tags[j])]
    p_emo = _logistic(eta[:, :, _EMO])  # (P, nt)
    if units:
        tu_turn = np.array([u[0] for u in units])
        e1, e2 = _consensus_uniforms(rng, rho, (len(units),))
        rec = (e1 < p_emo[:, tu_turn]).tolist()
        replace_u = e2.tolist()
        repl_pick = rng.random((P, len(units))).tolist()
        noise = rng.standard_normal((P, len(units))).tolist()
    if abstain:
        a1, a2 = _consensus_uniforms(rng, rho, (len(abstain),))
        abst_ok = (a1 < p_emo[:, abstain]).tolist()
        abst_pick = a2.tolist()
    spur_u, spur_pick, spur_int, unk_u, unk_pick, case_u = rng.random((6, P, nt))
    spurious = (spur_u < 0.4 * (1.0 - p_emo)).tolist()
    spur_pick_l, spur_int_l = spur_pick.tolist(), spur_int.tolist()
    unknown = (unk_u < R["pred_unknown_label"]).tolist()
    unk_pick_l = unk_pick.tolist()
    lower = (case_u < R["pred_label_case"]).tolist()
    int_null = (rng.random((P, nt, 6)) < R["pred_intensity_null"]).tolist()
    sd_int = (0.5 + 1.5 * (1.0 - p_emo)).tolist()

    start = np.cumsum([0] + [sum(1 for *_r, kn in gt.tags[j] if kn) for j in range(nt)]).tolist()
    abst_pos = {j: i for i, j in enumerate(abstain)}
    out = []
    for m in range(P):
        per_m = []
        for j in range(nt):
            gt_labels = [lab for lab, _i, _k in gt.tags[j]]
            chosen: list[tuple[str, int]] = []
            taken: list[str] = []
            if j in abst_pos:
                ai = abst_pos[j]
                if not abst_ok[m][ai]:
                    lab = _LABELS[int(abst_pick[m][ai] * 20)]
                    chosen.append((lab, 1 + int(spur_int_l[m][j] * 7)))
            else:
                for ui in range(start[j], start[j + 1]):
                    _tj, lab, inten = units[ui]
                    if rec[m][ui]:
                        centre = 4.0 if inten is None else float(inten)
                        sd = 1.5 if inten is None else sd_int[m][j]
                        chosen.append((lab, _clamp_int(centre + sd * noise[m][ui], 1, 7)))
                    elif replace_u[m][ui] < 0.6:
                        pool = _POS if _VALENCE[lab] == 0 else _NEG
                        taken = [c for c, _i in chosen]
                        cands = [c for c in pool if c not in gt_labels and c not in taken]
                        if cands:
                            lab2 = cands[int(repl_pick[m][ui] * len(cands))]
                            chosen.append((lab2, _clamp_int(4 + 1.5 * noise[m][ui], 1, 7)))
                if spurious[m][j]:
                    taken = [c for c, _i in chosen]
                    cands = [c for c in _LABELS if c not in gt_labels and c not in taken]
                    if cands:
                        lab3 = cands[int(spur_pick_l[m][j] * len(cands))]
                        chosen.append((lab3, 1 + int(spur_int_l[m][j] * 7)))
            tags = [
                {
                    "emotion": lab if lower[m][j] else _TITLE[lab],
                    "intensity": None if int_null[m][j][min(ti, 5)] else inten,
                }
                for ti, (lab, inten) in enumerate(chosen)
            ]
            if unknown[m][j]:
                n_unk = len(text.UNKNOWN_PRED_LABELS)
                lab = text.UNKNOWN_PRED_LABELS[int(unk_pick_l[m][j] * n_unk)]
                tags.append({"emotion": lab, "intensity": None})
            per_m.append(tags)
        out.append(per_m)
    return out


def _pred_response(
    rng: np.random.Generator, gt: _GroundTruth, eta: np.ndarray
) -> tuple[list[list[str]], list[list[list[float]]]]:
    """Drafted replies [m][j] and the four judge scores [m][j] (see module doc)."""
    P, nt = eta.shape[0], gt.nt
    refs = [(gt.texts[j][3] if gt.has_alt[j] else gt.texts[j][1]) for j in range(nt)]
    keep_p = 0.15 + 0.7 * _logistic(eta[:, :, _RESP])  # (P, nt)
    drafts: list[list[str]] = [[""] * nt for _ in range(P)]
    for j in range(nt):
        n_tok = len(refs[j].split())
        keep = rng.random((P, n_tok)) < keep_p[:, j : j + 1]
        fill = rng.integers(len(text.FILLER_TOKENS), size=(P, n_tok))
        for m in range(P):
            drafts[m][j] = text.draft_from_reference(refs[j], keep[m], fill[m])
    noisy = eta[:, :, _RESP][:, :, None] + 0.7 * rng.standard_normal((P, nt, 4))
    judge = np.clip(np.rint(1.0 + 6.0 * _logistic(noisy)), 1, 7).tolist()
    return drafts, judge


def _pred_holistic(
    rng: np.random.Generator,
    gt: _GroundTruth,
    eta_h: np.ndarray,
    rho: np.ndarray,
    survey_offset: np.ndarray,
    R: Mapping[str, float],
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Predicted post-PANAS items (P, 20) and ``predicted_conversation_wide`` per predictor."""
    P = eta_h.shape[0]
    p_h = _logistic(eta_h)
    p_sv = _logistic(eta_h[:, None] + survey_offset[None, :])  # (P, 3): q1, q2, q3
    h1, h2 = _consensus_uniforms(rng, rho, (4,))
    h_extra = rng.random((P, 3))
    panas_noise = _consensus_normals(rng, rho, (20,))
    sd_panas = 0.4 + 1.8 * (1.0 - p_h)
    pred_post = np.clip(np.rint(gt.post[None, :] + sd_panas[:, None] * panas_noise), 1, 7)
    fb_noise = _consensus_normals(rng, rho, (4,))
    sd_fb = 0.6 + 2.0 * (1.0 - p_h)
    fb_ref = np.where(gt.fb_rated, gt.fb_true, 5.0)
    pred_fb = np.clip(np.rint(fb_ref[None, :] + sd_fb[:, None] * fb_noise), 1, 7)
    fb_missing = rng.random((P, 4)) < R["pred_four_branch_missing"]
    q2, q3 = gt.q2_idx, gt.q3_idx
    out = []
    for m in range(P):
        q1_pred = _predict_q1(gt.q1_idx, h1[m, 0] < p_sv[m, 0], h2[m, 0], h_extra[m, 0])
        if h1[m, 1] < p_sv[m, 1]:
            q2_pred = K.Q2_OPTIONS[q2]
        elif h2[m, 1] < R["pred_survey_missing"]:
            q2_pred = ""
        else:
            others = [i for i in range(4) if i != q2]
            q2_pred = K.Q2_OPTIONS[others[int(h_extra[m, 1] * 3)]]
        if h1[m, 2] < p_sv[m, 2]:
            q3_pred = K.Q3_OPTIONS[q3]
        elif h2[m, 2] < R["pred_survey_missing"]:
            q3_pred = ""
        else:  # mostly an adjacent option (ordinal error), else any other
            adjacent = [i for i in (q3 - 1, q3 + 1) if 0 <= i <= 3]
            others = [i for i in range(4) if i != q3]
            u = h_extra[m, 2]
            pool, frac = (adjacent, u / 0.7) if u < 0.7 else (others, (u - 0.7) / 0.3)
            q3_pred = K.Q3_OPTIONS[pool[min(int(frac * len(pool)), len(pool) - 1)]]
        if h1[m, 3] < p_h[m]:
            fu_pred = [text.paraphrase(s) for s in gt.follow_up]
        else:
            cands = [s for s in text.FOLLOW_UP_PHRASES if s not in gt.follow_up]
            fu_pred = [cands[int(h2[m, 3] * len(cands))]]
        out.append(
            {
                "q1_lookingFor": q1_pred,
                "q2_emotionClarity": q2_pred,
                "q3_modelFit": q3_pred,
                "q3_followUp_whatFeltOff": fu_pred,
                "fourBranchScores": {
                    branch: int(pred_fb[m, b])
                    for b, branch in enumerate(K.FOUR_BRANCHES)
                    if not fb_missing[m, b]
                },
            }
        )
    return pred_post, out


def _simulate_conversation(ctx: _Context, k: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ground-truth document and the run documents of every predictor for conversation ``k``."""
    cfg, eff, st, R = ctx.cfg, ctx.eff, ctx.st, ctx.rates
    rng = np.random.default_rng(np.random.SeedSequence(ctx.seed, spawn_key=(2, k)))
    cid = st.ids[k]
    p, t, nt, om = int(st.participant[k]), int(st.topic[k]), int(st.n_turns[k]), int(st.om[k])
    g = int(eff.diagnosis_index[p])
    P = len(eff.predictors)
    topic = eff.topics[t]
    base = (
        eff.theta
        + eff.u[p]
        + eff.delta[g]
        + eff.gamma[:, g, :]
        + eff.v[t]
        + eff.topic_interaction[:, t, :]
        + st.w[k]
    )  # (P, C): conversation-level linear predictor
    x = _turn_position(nt)
    eta = base[:, None, :] + eff.beta[:, None, :] * x[None, :, None]  # (P, nt, C)
    om_quality = float(eff.original_model_quality[om]) + 0.7 * float(rng.standard_normal())

    gt = _ground_truth(rng, nt, topic, float(eff.participant_distress[p]), om_quality, R)
    conv_doc = _conversation_document(rng, cid, eff, p, om, topic, gt, R)

    binary, draft_binary = _pred_behaviour(
        rng, gt, eta, eff.rho, np.array(cfg.binary_task_offset), R
    )
    selections = _pred_preference(rng, gt, eta, eff.rho, R)
    emotion_tags = _pred_emotion(rng, gt, eta, eff.rho, R)
    drafts, judge = _pred_response(rng, gt, eta)
    pred_post, conv_wide = _pred_holistic(
        rng, gt, base[:, _HOL], eff.rho, np.array(cfg.survey_offset), R
    )
    omit = rng.random((P, nt)) < R["run_turn_missing"]
    omit[omit.all(axis=1), 0] = False  # a run keeps at least one turn
    is_delta = rng.random(P) < cfg.panas_delta_share
    run_secs = rng.integers(0, 3600, size=P)
    run_us = rng.integers(0, 1_000_000, size=P)
    dur_u = rng.random(P)

    # the runner records the ground-truth labels as read from the file (spec 1.6, port runner)
    label = _MASKED if gt.blinded else {lab: lab for lab in _MASKED}
    assignments = [
        {str(i): {"A": label[a], "B": label[b]} for i, (_q, a, b, _w) in enumerate(gt.comps[j])}
        for j in range(nt)
    ]
    pre_shown = _parsed_panas(gt.pre)
    runs: list[dict[str, Any]] = []
    for m in range(P):
        turn_results = []
        for j in range(nt):
            if omit[m, j]:
                ctx.missing_run_turns.append([eff.predictors[m], cid, j + 1])
                continue
            js = judge[m][j]
            judge_scores = dict(zip(_JUDGE_KEYS, js))
            turn_results.append(
                {
                    "turnNumber": j + 1,
                    "em_emotion_tags": emotion_tags[m][j],
                    "em_drafted_response": drafts[m][j],
                    "response_reasoning": None,
                    "emotion_reasoning": None,
                    "pairwise_assignment": assignments[j],
                    **dict(zip(_TASK_FIELDS, binary[m][j])),
                    "em_pairwise_selections": selections[m][j],
                    "em_four_branch_scores": {},
                    "em_draft_judge_scores": judge_scores,
                    "em_draft_judge_scores_by_model": {JUDGE_NAME: dict(judge_scores)},
                    "em_draft_binary_assessment": draft_binary[m][j],
                    "em_draft_binary_assessment_by_model": {JUDGE_NAME: dict(draft_binary[m][j])},
                }
            )
        predicted_post = _parsed_panas(pred_post[m])
        delta_doc: dict[str, int] = {}
        if is_delta[m]:  # spec 1.6: absolute prediction = pre + change (consistent here)
            ctx.delta_runs.append([eff.predictors[m], cid])
            for key in ("totalPositiveAffect", "totalNegativeAffect"):
                delta_doc[f"{key}_change"] = predicted_post[key] - pre_shown[key]
        human = eff.kinds[m] == "human"
        start = datetime(2026, 3, 2, 9, 0, 0) + timedelta(
            days=m, seconds=95 * k + int(run_secs[m]), microseconds=int(run_us[m])
        )
        per_turn = (45.0 if human else 6.0) * (0.7 + 0.6 * float(dur_u[m]))
        cost = None if human else round(0.0021 * nt * (0.8 + 0.4 * float(dur_u[m])), 4)
        runs.append(
            {
                "conversationId": cid,
                "source_file": f"conversation_{cid}.json",
                "em_model": eff.predictors[m],
                "run_timestamp": start.isoformat(),
                "mode": "default",
                "turns": turn_results,
                "post_conversation": {
                    "panas_strategy": "delta" if is_delta[m] else "absolute",
                    "pre_panas_shown": pre_shown,
                    "predicted_post_panas": predicted_post,
                    "predicted_panas_delta": delta_doc,
                    "predicted_conversation_wide": conv_wide[m],
                },
                "api_cost": cost,
                "duration_seconds": round(per_turn * nt, 1),
            }
        )
    return conv_doc, runs


def _predict_q1(truth_idx: list[int], correct: bool, u: float, u2: float) -> list[str]:
    """Q1 prediction: the true set when ``correct``; otherwise a different set."""
    if correct:
        return [K.Q1_OPTIONS[i] for i in truth_idx]
    absent = [i for i in range(len(K.Q1_OPTIONS)) if i not in truth_idx]
    chosen = list(truth_idx)
    if len(chosen) > 1 and u < 0.35:
        chosen.pop(int(u2 * len(chosen)))
    elif u < 0.7:
        chosen[int(u2 * len(chosen))] = absent[int(u2 * len(absent))]
    else:
        chosen.append(absent[int(u2 * len(absent))])
    return [K.Q1_OPTIONS[i] for i in sorted(set(chosen))]


# --------------------------------------------------------------------------------------------
# documents, truth, writing
# --------------------------------------------------------------------------------------------
def _jsonable(obj: Any) -> Any:
    """Replace NaN by None and numpy scalars/arrays by Python objects, recursively."""
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.floating | float):
        f = float(obj)
        return None if math.isnan(f) else f
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def _by_cap(vec: np.ndarray) -> dict[str, float]:
    return {c: float(v) for c, v in zip(CAPABILITIES, vec)}


def _dumps(doc: Any) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


@dataclass(frozen=True)
class SimulatedDocuments:
    """A simulated release held in memory: every document that :meth:`write` puts on disk.

    Attributes
    ----------
    conversations : dict
        ``"conversation_<N>.json"`` -> ground-truth document (spec 1.4).
    runs : dict
        Predictor directory name -> file name -> run-output document (spec 1.6).
    release_info : dict
        Content of ``release.json``.
    truth : dict
        Content of ``truth.json`` (JSON-able; see :func:`simulate_documents`).
    effects : TrueEffects
        The population the release was drawn from.
    """

    conversations: dict[str, dict[str, Any]]
    runs: dict[str, dict[str, dict[str, Any]]]
    release_info: dict[str, Any]
    truth: dict[str, Any]
    effects: TrueEffects

    def files(self) -> dict[str, bytes]:
        """Relative path -> bytes of every file of the release, in writing order."""
        out = {"release.json": _dumps(self.release_info)}
        for name, doc in self.conversations.items():
            out[f"conversations/{name}"] = _dumps(doc)
        for pred, files in self.runs.items():
            for name, doc in files.items():
                out[f"runs/{pred}/{name}"] = _dumps(doc)
        out["truth.json"] = _dumps(self.truth)
        return out

    def write(self, out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the release into ``out_dir`` atomically and return its path.

        Files go into a temporary directory beside ``out_dir`` that is renamed into place at
        the end; on any failure it is removed, so no half-written release is ever left.

        Raises
        ------
        FileExistsError
            ``out_dir`` exists, is not an empty directory and ``overwrite`` is false.
        """
        out = Path(out_dir)
        if out.exists():
            if not out.is_dir():
                raise FileExistsError(f"out_dir {str(out)!r} exists and is not a directory")
            if any(out.iterdir()) and not overwrite:
                raise FileExistsError(
                    f"out_dir {str(out)!r} is not empty; pass overwrite=True to replace it"
                )
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        try:
            made: set[Path] = set()
            for rel, data in self.files().items():
                path = tmp / rel
                if path.parent not in made:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    made.add(path.parent)
                _write_bytes(path, data)
            if out.exists():
                trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
                os.replace(out, trash / "old")
                try:
                    os.replace(tmp, out)
                except BaseException:
                    os.replace(trash / "old", out)
                    shutil.rmtree(trash, ignore_errors=True)
                    raise
                shutil.rmtree(trash, ignore_errors=True)
            else:
                os.replace(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return out


def _write_bytes(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)


def _probability_models(cfg: SimulationConfig) -> dict[str, Any]:
    return {
        "logistic": "L(a) = 1 / (1 + exp(-a))",
        "behaviour": {
            "unit": (
                "one ground-truth binary judgement of a turn whose reference value for the task "
                "is yes or no; reference = observedBehavior (fallback llmValue) for om and om_hp, "
                "preferredBehavior (fallback observedBehavior) for human and human_hp"
            ),
            "p_correct": "L(eta[m, k, j, behaviour] + task_offset[task])",
            "task_offset": dict(zip(BINARY_TASKS, cfg.binary_task_offset)),
            "task_fields": dict(zip(BINARY_TASKS, _TASK_FIELDS)),
            "correct_means": "scorer rule of spec 2.2: a missing or 'na' prediction counts as 'no'",
            "independence": (
                "independent across units and tasks given eta for models; human raters follow "
                "human_consensus"
            ),
        },
        "preference": {
            "unit": "one ground-truth pairwise comparison with a decided winner (A or B)",
            "p_correct": "L(eta[m, k, j, preference])",
            "wrong_answer": "the other letter, or (rate pred_pairwise_missing) no selection",
            "undecided": "winner null: selection A (p 0.45), B (p 0.45) or none (p 0.1)",
        },
        "emotion": {
            "unit": "one known (PANAS) ground-truth tag of a turn",
            "p_recovered": "L(eta[m, k, j, emotion])",
            "empty_turn": "no known ground-truth tag: empty prediction with probability L(eta)",
            "spurious": "one extra non-ground-truth tag per turn with probability 0.4 (1 - L(eta))",
            "intensity": "true + N(0, 0.5 + 1.5 (1 - L(eta))), rounded, clamped to 1..7",
        },
        "holistic": {
            "eta": "eta[m, k, holistic] (no turn term)",
            "q1_exact": "L(eta_h + survey_offset.q1)",
            "q2_correct": "L(eta_h + survey_offset.q2)",
            "q3_correct": "L(eta_h + survey_offset.q3)",
            "survey_offset": dict(zip(SURVEY_QUESTIONS, cfg.survey_offset)),
            "follow_up": "paraphrase of every true item with probability L(eta_h)",
            "panas_item": "post item + N(0, 0.4 + 1.8 (1 - L(eta_h))), rounded, clamped",
            "four_branch": "truth + N(0, 0.6 + 2 (1 - L(eta_h))), rounded, clamped",
        },
        "response": {
            "draft_token_kept": "0.15 + 0.7 L(eta[m, k, j, response])",
            "judge_score": "round(1 + 6 L(eta_response + 0.7 N(0, 1))), each of 4 scores",
            "draft_binary_correct": "L(eta_response) against preferred (fallback observed)",
        },
        "human_consensus": {
            "rho": cfg.rater_rho,
            "mechanism": (
                "per unit one shared uniform U; each human rater uses U with probability rho, "
                "else an own uniform; correct iff its uniform < p_r (models: rho = 0)"
            ),
            "marginal_p_correct": "p_r exactly",
            "pairwise_agreement": (
                "rho^2 (1 - |p_r - p_s|) + (1 - rho^2) (p_r p_s + (1 - p_r)(1 - p_s))"
            ),
            "continuous_noise": "sqrt(rho) Z_shared + sqrt(1 - rho) Z_own",
        },
    }


def _truth_document(
    cfg: SimulationConfig, seed: int, eff: TrueEffects, st: _Structure, ctx: _Context
) -> dict[str, Any]:
    preds = eff.predictors
    nm = eff.n_models
    ecfg = eff.config
    conv = {}
    for k, cid in enumerate(st.ids):
        p = int(st.participant[k])
        conv[cid] = {
            "participant": eff.participants[p],
            "diagnosis_group": eff.diagnosis[p],
            "topic": eff.topics[int(st.topic[k])],
            "n_turns": int(st.n_turns[k]),
            "original_model": eff.original_models[int(st.om[k])],
            "w": _by_cap(st.w[k]),
        }
    doc = {
        "format": TRUTH_FORMAT,
        "simulated": True,
        "label": K.SIMULATED_LABEL,
        "seed": seed,
        "effects_seed": eff.seed,
        "config": cfg.to_dict(),
        "effects_config": ecfg.to_dict(),
        "capabilities": list(CAPABILITIES),
        "covariate": {
            "name": "x",
            "definition": "x = (turn - 1) / (n_turns - 1); 0.5 when n_turns == 1",
            "enters": "beta[m, c] * x for turn-level capabilities; absent for holistic",
        },
        "linear_predictor": (
            "eta[m, k, j, c] = theta[m, c] + u[p(k), c] + delta[g(p(k)), c] + "
            "gamma[m, g(p(k)), c] + v[t(k), c] + topic_interaction[m, t(k), c] + w[k, c] + "
            "beta[m, c] * x[k, j]"
        ),
        "predictors": {
            m: {"kind": eff.kinds[i], "display_name": eff.display_names[i]}
            for i, m in enumerate(preds)
        },
        "theta": {m: _by_cap(eff.theta[i]) for i, m in enumerate(preds)},
        "beta": {m: _by_cap(eff.beta[i]) for i, m in enumerate(preds)},
        "mu": {
            "model": _by_cap(np.array(ecfg.skill_mean)),
            "human": _by_cap(np.array(ecfg.human_skill_mean)),
        },
        "sd": {
            "model": _by_cap(np.array(ecfg.skill_sd)),
            "human": _by_cap(np.array(ecfg.human_skill_sd)),
        },
        "skill_correlation": {
            "population": [list(r) for r in ecfg.skill_correlation],
            "realised_models": eff.realised_correlation("model"),
            "realised_humans": eff.realised_correlation("human"),
        },
        "participants": {
            pid: {
                "diagnosis_group": eff.diagnosis[i],
                "traits": list(eff.traits[i]),
                "age": eff.ages[i],
                "weight": float(eff.participant_weights[i]),
                "distress": float(eff.participant_distress[i]),
            }
            for i, pid in enumerate(eff.participants)
        },
        "u": {pid: _by_cap(eff.u[i]) for i, pid in enumerate(eff.participants)},
        "diagnosis_groups": list(DIAGNOSIS_CODES),
        "delta": {g: _by_cap(eff.delta[i]) for i, g in enumerate(DIAGNOSIS_CODES)},
        "gamma": {
            m: {g: _by_cap(eff.gamma[i, gi]) for gi, g in enumerate(DIAGNOSIS_CODES)}
            for i, m in enumerate(preds)
        },
        "topics": list(eff.topics),
        "v": {tn: _by_cap(eff.v[i]) for i, tn in enumerate(eff.topics)},
        "hardest_topic": HARDEST_TOPIC if HARDEST_TOPIC in eff.topics else None,
        "hardest_topic_effect": _by_cap(np.array(ecfg.hardest_topic_effect)),
        "hardest_topic_realised": eff.hardest_topics(),
        "topic_interaction": {
            m: {tn: _by_cap(eff.topic_interaction[i, ti]) for ti, tn in enumerate(eff.topics)}
            for i, m in enumerate(preds)
        },
        "original_models": {
            o: float(q) for o, q in zip(eff.original_models, eff.original_model_quality)
        },
        "conversations": conv,
        "human_raters": {
            "rho": float(ecfg.rater_rho),
            "raters": list(preds[nm:]),
            "skills": {m: _by_cap(eff.theta[nm + i]) for i, m in enumerate(preds[nm:])},
        },
        "probability_models": _probability_models(cfg),
        "messiness": cfg.messiness,
        "messiness_rates": cfg.messiness_rates,
        "missing_run_turns": ctx.missing_run_turns,
        "delta_strategy_runs": ctx.delta_runs,
    }
    return _jsonable(doc)


def _check_compatible(cfg: SimulationConfig, eff: TrueEffects) -> None:
    for name in ("n_participants", "n_topics", "n_models", "n_human_raters", "n_original_models"):
        if getattr(cfg, name) != getattr(eff.config, name):
            raise ValueError(
                f"config.{name} = {getattr(cfg, name)} does not match the effects "
                f"({getattr(eff.config, name)}); reused effects fix the population sizes"
            )


def simulate_documents(
    config: SimulationConfig | None = None,
    *,
    rng: RNGLike,
    effects: TrueEffects | None = None,
) -> SimulatedDocuments:
    """Simulate a complete release in memory.

    Parameters
    ----------
    config : SimulationConfig, optional
        Defaults to ``effects.config`` when ``effects`` is given, else the paper-like scenario.
    rng : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (:func:`attunestats._rng.root_seed`); the same int (and config) gives identical
        documents.
    effects : TrueEffects, optional
        Population effects to reuse (skills, drift, participants, diagnosis, topics, original
        models, raters); only conversations are drawn anew. Use it to draw a very large release
        from the same population as a previous one (population values of metrics). The
        population sizes of ``config`` must match. Otherwise effects are drawn with
        :func:`draw_effects` from ``seed``.

    Returns
    -------
    SimulatedDocuments

    Notes
    -----
    ``truth`` (written as ``truth.json``) has the keys ``format, simulated, label, seed,
    effects_seed, config, effects_config, capabilities, covariate, linear_predictor,
    predictors, theta, beta, mu, sd, skill_correlation, participants, u, diagnosis_groups,
    delta, gamma, topics, v, hardest_topic, hardest_topic_effect, hardest_topic_realised,
    topic_interaction, original_models, conversations, human_raters, probability_models,
    messiness, messiness_rates, missing_run_turns, delta_strategy_runs``. Per-capability values
    are mappings by capability name; nothing is rounded.

    Examples
    --------
    >>> docs = simulate_documents(SimulationConfig(n_conversations=5), rng=3)
    >>> sorted(docs.runs)[:2]
    ['sim-human-1', 'sim-human-2']
    """
    seed = root_seed(rng)
    if config is not None and not isinstance(config, SimulationConfig):
        raise TypeError(f"config must be a SimulationConfig; got {type(config).__name__}")
    if effects is not None:
        if not isinstance(effects, TrueEffects):
            raise TypeError(f"effects must be a TrueEffects; got {type(effects).__name__}")
        cfg = effects.config if config is None else config
        _check_compatible(cfg, effects)
        eff = effects
    else:
        cfg = SimulationConfig() if config is None else config
        eff = draw_effects(cfg, rng=seed)
    st = _draw_structure(cfg, eff, seed)
    ctx = _Context(cfg, eff, st, seed, cfg.messiness_rates, [], [])
    conversations: dict[str, dict[str, Any]] = {}
    runs: dict[str, dict[str, dict[str, Any]]] = {m: {} for m in eff.predictors}
    for k, cid in enumerate(st.ids):
        conv_doc, run_docs = _simulate_conversation(ctx, k)
        fname = f"conversation_{cid}.json"
        conversations[fname] = conv_doc
        for m, rd in zip(eff.predictors, run_docs):
            runs[m][fname] = rd
    import attunestats

    desc = (
        f"{K.SIMULATED_LABEL}. Release written by the attunestats simulator (scenario "
        f"{cfg.name!r}, seed {seed}): {cfg.n_conversations} conversations, "
        f"{cfg.n_participants} participants, {cfg.n_topics} topics, {cfg.n_models} simulated "
        f"models and {cfg.n_human_raters} simulated human raters. True parameters: truth.json."
    )
    if cfg.description:
        desc += " " + cfg.description
    release_info = {
        "format": RELEASE_FORMAT,
        "name": cfg.name,
        "simulated": True,
        "label": K.SIMULATED_LABEL,
        "seed": seed,
        "generator": f"attunestats {attunestats.__version__} simulate",
        "description": desc,
        "predictors": {
            m: {"kind": eff.kinds[i], "display_name": eff.display_names[i], "mode": "default"}
            for i, m in enumerate(eff.predictors)
        },
    }
    truth = _truth_document(cfg, seed, eff, st, ctx)
    return SimulatedDocuments(conversations, runs, release_info, truth, eff)


def simulate_release(
    out_dir: str | os.PathLike[str],
    *,
    rng: RNGLike,
    n_conversations: int | None = None,
    n_participants: int | None = None,
    n_topics: int | None = None,
    n_models: int | None = None,
    n_human_raters: int | None = None,
    config: SimulationConfig | None = None,
    effects: TrueEffects | None = None,
    overwrite: bool = False,
    **config_overrides: Any,
) -> Path:
    """Simulate a release and write it to ``out_dir`` (atomically); return the path.

    Parameters
    ----------
    out_dir : path
        Directory to create. Refused if it exists and is not empty, unless ``overwrite``.
    rng : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (:func:`attunestats._rng.root_seed`); the same int gives byte-identical files.
    n_conversations, n_participants, n_topics, n_models, n_human_raters : int, optional
        Sizes; ``None`` keeps the value of ``config`` (defaults 200, 11, 50, 11, 3).
    config : SimulationConfig, optional
        Base configuration (default: the paper-like scenario, ``SCENARIOS["paper"]``).
    effects : TrueEffects, optional
        Reuse a population (see :func:`simulate_documents`).
    overwrite : bool
        Replace a non-empty ``out_dir``.
    **config_overrides
        Any other :class:`SimulationConfig` field.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "rel"
    >>> simulate_release(out, rng=1, n_conversations=3).name
    'rel'
    """
    base = (
        config
        if config is not None
        else (effects.config if effects is not None else SimulationConfig())
    )
    if not isinstance(base, SimulationConfig):
        raise TypeError(f"config must be a SimulationConfig; got {type(base).__name__}")
    sizes = {
        "n_conversations": n_conversations,
        "n_participants": n_participants,
        "n_topics": n_topics,
        "n_models": n_models,
        "n_human_raters": n_human_raters,
    }
    overrides = {k: v for k, v in sizes.items() if v is not None}
    names = {f.name for f in fields(SimulationConfig)}
    unknown = sorted(set(config_overrides) - names)
    if unknown:
        raise TypeError(f"unknown simulate_release arguments {unknown}")
    overrides.update(config_overrides)
    cfg = replace(base, **overrides) if overrides else base
    docs = simulate_documents(cfg, rng=rng, effects=effects)
    return docs.write(out_dir, overwrite=overwrite)


def truth_from_file(path: str | os.PathLike[str]) -> TrueEffects:
    """Read the population effects back from ``truth.json`` (or a release directory).

    The returned :class:`TrueEffects` can be passed to :func:`simulate_documents` to draw new
    conversations from the same population.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "truth.json"
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise FileNotFoundError(f"truth file {str(p)!r} does not exist") from err
    except json.JSONDecodeError as err:
        raise ValueError(f"truth file {str(p)!r} is not valid JSON: {err}") from err
    if not isinstance(doc, dict) or doc.get("format") != TRUTH_FORMAT:
        raise ValueError(
            f"truth file {str(p)!r}: format must be {TRUTH_FORMAT!r}; "
            f"got {doc.get('format') if isinstance(doc, dict) else type(doc).__name__!r}"
        )
    cfg = SimulationConfig.from_dict(doc["effects_config"])

    def caps(d: Mapping[str, float]) -> list[float]:
        return [float(d[c]) for c in CAPABILITIES]

    preds = tuple(doc["predictors"])
    parts = tuple(doc["participants"])
    topics = tuple(doc["topics"])
    theta = np.array([caps(doc["theta"][m]) for m in preds])
    beta = np.array([caps(doc["beta"][m]) for m in preds])
    kinds = tuple(doc["predictors"][m]["kind"] for m in preds)
    return TrueEffects(
        config=cfg,
        seed=int(doc["effects_seed"]),
        predictors=preds,
        kinds=kinds,
        display_names=tuple(doc["predictors"][m]["display_name"] for m in preds),
        theta=theta,
        beta=beta,
        rho=np.array([cfg.rater_rho if k == "human" else 0.0 for k in kinds]),
        participants=parts,
        diagnosis=tuple(doc["participants"][q]["diagnosis_group"] for q in parts),
        traits=tuple(tuple(doc["participants"][q]["traits"]) for q in parts),
        ages=tuple(doc["participants"][q]["age"] for q in parts),
        participant_weights=np.array([doc["participants"][q]["weight"] for q in parts]),
        participant_distress=np.array([doc["participants"][q]["distress"] for q in parts]),
        u=np.array([caps(doc["u"][q]) for q in parts]),
        delta=np.array([caps(doc["delta"][g]) for g in DIAGNOSIS_CODES]),
        gamma=np.array([[caps(doc["gamma"][m][g]) for g in DIAGNOSIS_CODES] for m in preds]),
        topics=topics,
        v=np.array([caps(doc["v"][tn]) for tn in topics]),
        topic_interaction=np.array(
            [[caps(doc["topic_interaction"][m][tn]) for tn in topics] for m in preds]
        ),
        original_models=tuple(doc["original_models"]),
        original_model_quality=np.array([float(q) for q in doc["original_models"].values()]),
    )
