"""Configuration of the release simulator: :class:`SimulationConfig` and :data:`SCENARIOS`.

Also the vocabularies every part of the simulator shares: :data:`CAPABILITIES` (and their
indices), :data:`DIAGNOSIS_CODES`, :data:`BINARY_TASKS` (with the run-file fields they are
written to), the survey questions, the format tags of ``release.json`` and ``truth.json``, and
:data:`MESSINESS_RATES`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

import numpy as np

from attunestats.release.simulate import _text as text

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


def _star_correlation(r: float) -> tuple[tuple[float, ...], ...]:
    """Holistic correlated ``r`` with every other capability; the others uncorrelated."""
    m = np.eye(5)
    m[_HOL, :] = r
    m[:, _HOL] = r
    m[_HOL, _HOL] = 1.0
    return tuple(tuple(float(v) for v in row) for row in m)


_PAPER_CORRELATION = _star_correlation(-0.4)

#: Fields of :class:`SimulationConfig` holding one value per capability (``CapLike``), written
#: by :meth:`SimulationConfig.to_dict` as mappings by capability.
_CAP_FIELDS: tuple[str, ...] = (
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
    "participant_interaction_sd",
    "conversation_interaction_sd",
)

#: A per-capability value as accepted by :class:`SimulationConfig`: one number for every
#: capability, five numbers in the order of :data:`CAPABILITIES`, or a mapping by name.
CapLike = float | Sequence[float] | Mapping[str, float]


def _is_real(value: Any) -> bool:
    """A real number (int or float, numpy ones too), not a bool."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


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
    model_skills : sequence of CapLike or None
        Explicit skills ``theta`` of the evaluated models (one per model), instead of drawing
        them from ``skill_mean`` / ``skill_sd`` (e.g. two equally good models for a test's size).
    participant_interaction_sd : CapLike
        Sd of predictor x participant interactions ``pi[m, p, c]``: models' differences vary
        across participants (what makes conversation-level intervals of paired differences too
        narrow). 0 by default.
    conversation_interaction_sd : CapLike
        Sd of predictor x conversation interactions ``wi[m, k, c]`` (drawn per conversation).
    participant_distribution : {"normal", "t3", "outliers"}
        Law of the participant effects ``u``: normal; Student t with 3 df scaled to sd
        ``participant_sd`` (heavy tails); or normal with ``n_outlier_participants`` participants
        shifted by ``outlier_shift`` participant sds (``u = participant_sd * (z - shift)``,
        ``z ~ N(0, 1)``: in every capability's direction of worse; nothing for a capability
        whose ``participant_sd`` is 0).
    n_outlier_participants : int
        Number of outlying participants for ``participant_distribution="outliers"`` (ignored
        by the other laws).
    outlier_shift : float
        Shift, in units of ``participant_sd`` (not on the logit scale), of the outlying
        participants' effects.
    binary_overdispersion_sd : float
        Sd of a logit noise shared by the binary judgements of one predictor and turn:
        judgements are then overdispersed relative to the binomial the models assume.
    diagnosis_assignment : {"fixed", "random"}
        ``"fixed"``: exactly ``diagnosis_counts`` participants per group (permuted);
        ``"random"``: each participant's group drawn independently with the probabilities of
        ``diagnosis_counts`` (a simple random sample of people, as a recruitment would be).

    The fields from ``model_skills`` on are left out of :meth:`to_dict` when they have their
    default value, so releases simulated without them are unchanged.
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
    model_skills: tuple[CapLike, ...] | None = None
    participant_interaction_sd: CapLike = 0.0
    conversation_interaction_sd: CapLike = 0.0
    participant_distribution: str = "normal"
    n_outlier_participants: int = 0
    outlier_shift: float = 4.0
    binary_overdispersion_sd: float = 0.0
    diagnosis_assignment: str = "fixed"

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
            pw_in = self.participant_weights
            if (
                not isinstance(pw_in, Sequence)
                or isinstance(pw_in, str)
                or not all(_is_real(v) for v in pw_in)
            ):
                pw: tuple[float, ...] = ()
            else:
                pw = tuple(float(v) for v in pw_in)
            if len(pw) != self.n_participants or not all(math.isfinite(v) and v > 0 for v in pw):
                raise ValueError(
                    f"participant_weights must be {self.n_participants} positive numbers; "
                    f"got {self.participant_weights!r}"
                )
            set_(self, "participant_weights", pw)
        for fname in _CAP_FIELDS:
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
        self._check_extensions()

    def _check_extensions(self) -> None:
        set_ = object.__setattr__
        if self.model_skills is not None:
            ms = self.model_skills
            if isinstance(ms, str | Mapping) or not isinstance(ms, Sequence):
                raise ValueError(f"model_skills must be a sequence of n_models skills; got {ms!r}")
            if len(ms) != self.n_models:
                raise ValueError(
                    f"model_skills must give one skill per evaluated model ({self.n_models}); "
                    f"got {len(ms)}"
                )
            set_(self, "model_skills",
                 tuple(_cap_vector(f"model_skills[{i}]", v) for i, v in enumerate(ms)))  # fmt: skip
        if self.participant_distribution not in PARTICIPANT_DISTRIBUTIONS:
            raise ValueError(
                f"participant_distribution must be one of {PARTICIPANT_DISTRIBUTIONS}; got "
                f"{self.participant_distribution!r}"
            )
        if self.diagnosis_assignment not in ("fixed", "random"):
            raise ValueError(
                f"diagnosis_assignment must be 'fixed' or 'random'; got {self.diagnosis_assignment!r}"
            )
        n_out = self.n_outlier_participants
        if (
            isinstance(n_out, bool)
            or not isinstance(n_out, int | np.integer)
            or not (0 <= n_out <= self.n_participants)
        ):
            raise ValueError(
                f"n_outlier_participants must be an integer in [0, n_participants]; got {n_out!r}"
            )
        set_(self, "n_outlier_participants", int(n_out))
        for fname in ("outlier_shift", "binary_overdispersion_sd"):
            val = getattr(self, fname)
            if (
                isinstance(val, bool)
                or not isinstance(val, int | float | np.integer | np.floating)
                or not math.isfinite(float(val))
            ):
                raise ValueError(f"{fname} must be a finite number; got {val!r}")
            set_(self, fname, float(val))
        if self.binary_overdispersion_sd < 0:
            raise ValueError(
                f"binary_overdispersion_sd must be >= 0; got {self.binary_overdispersion_sd!r}"
            )

    # -- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of every field (per-capability values as mappings by capability)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            val = getattr(self, f.name)
            if f.name in _EXTENSION_DEFAULTS and val == _EXTENSION_DEFAULTS[f.name]:
                continue  # releases simulated without the extensions stay byte-identical
            if f.name == "model_skills":
                out[f.name] = [dict(zip(CAPABILITIES, v)) for v in val]
            elif f.name == "skill_correlation":
                out[f.name] = [list(row) for row in val]
            elif f.name == "diagnosis_effect":
                out[f.name] = {
                    g: dict(zip(CAPABILITIES, v)) for g, v in zip(DIAGNOSIS_CODES[1:], val)
                }
            elif f.name == "binary_task_offset":
                out[f.name] = dict(zip(BINARY_TASKS, val))
            elif f.name == "survey_offset":
                out[f.name] = dict(zip(SURVEY_QUESTIONS, val))
            elif f.name in _CAP_FIELDS:
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
        for key in ("n_turns_range", "diagnosis_counts", "participant_weights", "model_skills"):
            if kwargs.get(key) is not None and key in kwargs:
                kwargs[key] = tuple(kwargs[key])
        return cls(**kwargs)

    @property
    def messiness_rates(self) -> dict[str, float]:
        """The effective rates: :data:`MESSINESS_RATES` times ``messiness``, capped at 1."""
        return {k: min(1.0, v * self.messiness) for k, v in MESSINESS_RATES.items()}


#: Laws of the participant effects (:attr:`SimulationConfig.participant_distribution`).
PARTICIPANT_DISTRIBUTIONS: tuple[str, ...] = ("normal", "t3", "outliers")
_EXTENSION_DEFAULTS: dict[str, Any] = {
    "model_skills": None,
    "participant_interaction_sd": (0.0,) * 5,
    "conversation_interaction_sd": (0.0,) * 5,
    "participant_distribution": "normal",
    "n_outlier_participants": 0,
    "outlier_shift": 4.0,
    "binary_overdispersion_sd": 0.0,
    "diagnosis_assignment": "fixed",
}


def icc_sd(icc: float, residual_sd: float) -> float:
    """Sd of a participant effect giving latent-scale intraclass correlation ``icc``.

    ``icc = sd^2 / (sd^2 + residual_sd^2)`` on the logit scale, with ``residual_sd`` the sd of
    the conversation-level effect it is compared with (``conversation_sd`` for an outcome,
    ``conversation_interaction_sd`` for a paired difference).

    Examples
    --------
    >>> round(icc_sd(0.5, 0.4), 6)
    0.4
    """
    if not _is_real(icc) or not 0.0 <= float(icc) < 1.0:
        raise ValueError(f"icc must be a number in [0, 1); got {icc!r}")
    if not _is_real(residual_sd) or not 0.0 < float(residual_sd) < math.inf:
        raise ValueError(f"residual_sd must be a finite number > 0; got {residual_sd!r}")
    icc, residual_sd = float(icc), float(residual_sd)
    return float(residual_sd * math.sqrt(icc / (1.0 - icc)))


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
