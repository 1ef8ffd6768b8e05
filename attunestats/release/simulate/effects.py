"""Population effects of a simulated release: :class:`TrueEffects` and :func:`draw_effects`.

Everything except the conversations: skills, drift, participants and their diagnosis groups,
topics, interactions, original models and human raters. :func:`truth_from_file` reads them back
from ``truth.json`` so that a population can be reused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attunestats import constants as K
from attunestats._rng import RNGLike, root_seed
from attunestats.release.simulate import _text as text
from attunestats.release.simulate.config import (
    _HOL,
    CAPABILITIES,
    DIAGNOSIS_CODES,
    TRUTH_FORMAT,
    SimulationConfig,
)


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
    participant_interaction : ndarray or None, shape (n_predictors, n_participants, 5)
        Predictor x participant interactions (``None``: none).
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
    participant_interaction: np.ndarray | None = None

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
    >>> from attunestats.release.simulate import SCENARIOS
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
    if cfg.model_skills is not None:
        theta[:nm] = np.array(cfg.model_skills)
    people = _people(cfg, P, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3,))))
    if people is not None:
        groups, traits, ages, distress, u, pi = people
        diagnosis = tuple(DIAGNOSIS_CODES[g] for g in groups)
    else:
        pi = None

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
        participant_interaction=pi,
    )


def _uses_extensions(cfg: SimulationConfig) -> bool:
    return (
        cfg.diagnosis_assignment != "fixed"
        or cfg.participant_distribution != "normal"
        or max(cfg.participant_interaction_sd) > 0
    )


def _people(
    cfg: SimulationConfig, n_predictors: int, rng: np.random.Generator, *, force: bool = False
) -> tuple[np.ndarray, tuple, tuple, np.ndarray, np.ndarray, np.ndarray | None] | None:
    """Participants drawn with the configuration's extensions, or None when it uses none.

    Returns group codes, traits, ages, distress, participant effects ``u`` and predictor x
    participant interactions (None when their sd is 0). The default simulation draws its
    participants in :func:`draw_effects`'s main stream; a configuration with extensions (or
    :func:`redraw_participants`) draws them all here, from their own stream.
    """
    if not (force or _uses_extensions(cfg)):
        return None
    npart, C = cfg.n_participants, len(CAPABILITIES)
    if cfg.diagnosis_assignment == "random":
        prob = np.array(cfg.diagnosis_counts, dtype=float)
        groups = rng.choice(3, size=npart, p=prob / prob.sum())
    else:
        groups = rng.permutation(
            np.repeat(np.arange(3), _scaled_counts(cfg.diagnosis_counts, npart))
        )
    traits = tuple(
        text.DIAGNOSIS_TRAITS[DIAGNOSIS_CODES[g]][
            int(rng.integers(len(text.DIAGNOSIS_TRAITS[DIAGNOSIS_CODES[g]])))
        ]
        for g in groups
    )
    ages = tuple(text.AGE_BANDS[int(i)] for i in rng.integers(len(text.AGE_BANDS), size=npart))
    distress = np.array([0.0, 1.0, 0.4])[groups] + 0.5 * rng.standard_normal(npart)
    sd = np.array(cfg.participant_sd)
    if cfg.participant_distribution == "t3":  # Student t(3) scaled to variance sd^2
        z = rng.standard_t(3, size=(npart, C)) / np.sqrt(3.0)
    else:
        z = rng.standard_normal((npart, C))
    if cfg.participant_distribution == "outliers" and cfg.n_outlier_participants:
        who = rng.choice(npart, size=cfg.n_outlier_participants, replace=False)
        z[who] -= cfg.outlier_shift  # outlying participants: much harder for every predictor
    u = sd * z
    pi_sd = np.array(cfg.participant_interaction_sd)
    pi = pi_sd * rng.standard_normal((n_predictors, npart, C)) if pi_sd.max() > 0 else None
    return groups, traits, ages, distress, u, pi


def redraw_participants(
    effects: TrueEffects, *, rng: RNGLike, n_participants: int | None = None
) -> TrueEffects:
    """The same population of models and topics with *new participants* drawn from it.

    Participant effects, predictor x participant interactions, diagnosis groups (fixed counts
    or random, as configured), traits, ages and distress are drawn anew; skills, topics,
    interactions with topics and diagnosis, and the original models are kept. This is how a
    new study would differ from this one (new people): the sampling the participant-level
    intervals describe. ``n_participants`` draws another number of participants, each with
    the same share of conversations (e.g. thousands, to compute population values).

    Examples
    --------
    >>> from attunestats.release.simulate import SCENARIOS
    >>> eff = draw_effects(SCENARIOS["null"], rng=1)
    >>> new = redraw_participants(eff, rng=2)
    >>> bool((new.theta == eff.theta).all()), bool((new.u == eff.u).all())
    (True, False)
    >>> len(redraw_participants(eff, rng=2, n_participants=500).participants)
    500
    """
    from dataclasses import replace

    if not isinstance(effects, TrueEffects):
        raise TypeError(f"effects must be a TrueEffects; got {type(effects).__name__}")
    if n_participants is not None and (
        isinstance(n_participants, bool)
        or not isinstance(n_participants, int | np.integer)
        or n_participants < 1
    ):
        raise ValueError(f"n_participants must be a positive integer; got {n_participants!r}")
    cfg = effects.config
    weights = effects.participant_weights
    participants = effects.participants
    if n_participants is not None and n_participants != cfg.n_participants:
        n_participants = int(n_participants)
        share = cfg.n_outlier_participants / cfg.n_participants  # outliers keep their share
        cfg = replace(cfg, n_participants=n_participants, participant_weights=None,
                      n_outlier_participants=int(round(share * n_participants)))  # fmt: skip
        weights = np.full(n_participants, 1.0 / n_participants)
        wp = max(2, len(str(n_participants)))
        participants = tuple(f"sim-p{i:0{wp}d}" for i in range(1, n_participants + 1))
    seed = root_seed(rng)
    gen = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(6,)))
    groups, traits, ages, distress, u, pi = _people(cfg, len(effects.predictors), gen, force=True)
    return replace(
        effects, config=cfg, participants=participants, participant_weights=weights,
        diagnosis=tuple(DIAGNOSIS_CODES[g] for g in groups), traits=traits, ages=ages,
        participant_distress=distress, u=u, participant_interaction=pi,
    )  # fmt: skip


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
        participant_interaction=(
            np.array([[caps(doc["participant_interaction"][m][q]) for q in parts] for m in preds])
            if "participant_interaction" in doc
            else None
        ),
    )
