"""Whole simulated releases: :func:`simulate_documents`, :func:`simulate_release`, ``truth.json``.

:class:`SimulatedDocuments` holds every document of a release in memory and writes them
atomically; :func:`_truth_document` records every true parameter (``truth.json``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from attunestats import _io
from attunestats import constants as K
from attunestats._rng import RNGLike, root_seed
from attunestats.errors import AttunestatsWarning, warn
from attunestats.release.simulate.config import (
    _TASK_FIELDS,
    BINARY_TASKS,
    CAPABILITIES,
    DIAGNOSIS_CODES,
    HARDEST_TOPIC,
    RELEASE_FORMAT,
    SURVEY_QUESTIONS,
    TRUTH_FORMAT,
    SimulationConfig,
)
from attunestats.release.simulate.conversation import (
    _Context,
    _draw_structure,
    _simulate_conversation,
    _Structure,
)
from attunestats.release.simulate.effects import TrueEffects, draw_effects


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
        attunestats._io.OutputError
            ``overwrite`` is true but ``out_dir`` is a non-empty directory that is not a release
            written by the simulator (a ``release.json`` marked simulated and a ``truth.json``):
            a real release, or any other folder, is never replaced.
        """
        out = Path(out_dir)
        if out.exists():
            if not out.is_dir():
                raise FileExistsError(f"out_dir {str(out)!r} exists and is not a directory")
            if any(out.iterdir()) and not overwrite:
                raise FileExistsError(
                    f"out_dir {str(out)!r} is not empty; pass overwrite=True to replace it"
                )
            _io.check_dir_destination(
                out, what="out_dir", ours=_is_simulated_release,
                kind="a release written by the simulator (release.json marked simulated, and "
                "truth.json)",
            )  # fmt: skip
        # attunestats._io: a staging sibling (0777 less the umask, leftovers of killed runs
        # cleaned), swapped in atomically; the files are those of files(), byte for byte
        tmp = _io.staging_dir(out, what="out_dir")
        try:
            made: set[Path] = set()
            for rel, data in self.files().items():
                path = tmp / rel
                if path.parent not in made:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    made.add(path.parent)
                _write_bytes(path, data)
            _io.replace_dir(tmp, out, what="out_dir")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return out


def _is_simulated_release(path: Path) -> bool:
    """A folder ``write(overwrite=True)`` may replace: an earlier simulated release."""
    try:
        info = json.loads((path / "release.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(info, dict) and info.get("simulated") is True and (path / "truth.json").is_file()
    )


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


def _linear_predictor(cfg: SimulationConfig, eff: TrueEffects) -> str:
    """The formula of ``eta`` in truth.json, with the terms of the extensions that are planted."""
    out = (
        "eta[m, k, j, c] = theta[m, c] + u[p(k), c] + delta[g(p(k)), c] + "
        "gamma[m, g(p(k)), c] + v[t(k), c] + topic_interaction[m, t(k), c] + w[k, c] + "
        "beta[m, c] * x[k, j]"
    )
    if eff.participant_interaction is not None:
        out += " + participant_interaction[m, p(k), c]"
    if max(cfg.conversation_interaction_sd) > 0:
        out += " + wi[m, k, c] (conversations[k].wi)"
    if cfg.binary_overdispersion_sd > 0:
        out += (
            "; for behaviour also + binary_noise[m, k, j] (conversations[k].binary_noise, "
            "one value per turn)"
        )
    return out


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
        draws = ctx.extension_draws.get(cid, {})
        if "wi" in draws:  # only written when planted
            conv[cid]["wi"] = {m: _by_cap(draws["wi"][i]) for i, m in enumerate(preds)}
        if "binary_noise" in draws:
            conv[cid]["binary_noise"] = {
                m: [float(v) for v in draws["binary_noise"][i]] for i, m in enumerate(preds)
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
        "linear_predictor": _linear_predictor(cfg, eff),
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
    if eff.participant_interaction is not None:  # only written when planted
        doc["participant_interaction"] = {
            m: {
                q: _by_cap(eff.participant_interaction[i, j])
                for j, q in enumerate(eff.participants)
            }
            for i, m in enumerate(preds)
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
    messiness, messiness_rates, missing_run_turns, delta_strategy_runs``, plus
    ``participant_interaction`` and each conversation's ``wi`` and ``binary_noise`` when those
    extensions are planted. Per-capability values are mappings by capability name; nothing is
    rounded.

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

    # participants and topics are drawn per conversation: with few conversations some of the
    # configured ones get none and are not in the release; the description counts what is
    n_part, n_top = len(set(st.participant.tolist())), len(set(st.topic.tolist()))
    unused = [f"{have} of the {want} configured {what} ({want - have} drew no conversation)"
              for have, want, what in ((n_part, cfg.n_participants, "participants"),
                                       (n_top, cfg.n_topics, "topics")) if have < want]  # fmt: skip
    if n_part < cfg.n_participants:  # topics left out of a small release are no surprise
        warn(f"the simulated release has {unused[0]}", AttunestatsWarning)
    desc = (
        f"{K.SIMULATED_LABEL}. Release written by the attunestats simulator (scenario "
        f"{cfg.name!r}, seed {seed}): {cfg.n_conversations} conversations, "
        f"{n_part} participants, {n_top} topics, {cfg.n_models} simulated "
        f"models and {cfg.n_human_raters} simulated human raters"
        + (f" ({'; '.join(unused)})" if unused else "")
        + ". True parameters: truth.json."
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
