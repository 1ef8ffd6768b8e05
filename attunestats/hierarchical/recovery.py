"""Parameter recovery: compare a fit with the true effects of a simulated data set.

The release simulator (``attunestats.release.simulate``) draws its effects without constraints:
``theta[m]``, ``u[p] ~ N(0, sd)``, ``delta[g]`` with ``delta[none] = 0``, ``gamma[m, g]`` with
``gamma[m, none] = 0``, ``v[t]``, ``topic_interaction[m, t]``, ``w[k]``, ``beta[m]``. The model
of :mod:`.model` has the same linear predictor but sums the predictor effects, topic effects and
interactions to zero. :func:`true_quantities` therefore maps the truth to the model's
identifiable quantities by centring it the same way (``mean_M`` = mean over the modelled
predictors, ``mean_T`` over the observed topics, ``ti`` = topic interaction, ``r`` = reference
group, ``tau`` = task offsets, ``t0`` = reference task)::

    intercept              = mean_M theta + mean_T (v + mean_M ti) + delta[r] + mean_M gamma[., r]
                             + tau[t0]
    predictor_effect[m]    = theta[m] + mean_T ti[m, .] + gamma[m, r] - mean_M (same)
    turn_slope[m]          = beta[m]
    diagnosis_effect[g]    = delta[g] - delta[r] + mean_M (gamma[., g] - gamma[., r])
    diagnosis_contrast[m,g]= delta[g] - delta[r] + gamma[m, g] - gamma[m, r]
    topic_effect[t]        = v[t] + mean_M ti[., t] - mean_T (same)
    participant_effect[p]  = u[p] + mean_M pi[., p]     (pi = predictor x participant)
    task_offset[task]      = tau[task] - tau[t0]
    sigma_*                = the simulator's standard deviations

(a derivation: substitute the centred terms into the simulator's linear predictor; what each
centring removes is absorbed by the intercept, the predictor effect or the topic effect).
Population standard deviations are compared with the posterior of the model's ``sigma_*``; the
simulator adds a planted shift to the hardest topic, so ``sigma_topic`` is only compared when
that shift is zero. The predictor x participant interactions ``pi[m, p]`` (and the
per-conversation ``wi[m, k]``) are iid draws with population mean 0: the predictor effects, a
population quantity, do not contain them, and ``sigma_predictor_participant`` /
``sigma_predictor_conversation`` are their simulator standard deviations (the model's zero-sum
deviations ``pi[m, p] - mean_M pi[., p]`` have the same law as ``sigma * ZeroSumNormal``).
A standard deviation whose true value is 0 (a term the simulator did not generate) is left out:
0 is the boundary of a scale's range, no equal-tailed interval of a positive parameter contains
it, so it is not a coverage target (it would count as a miss whatever the model did).
"""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from attunestats.hierarchical.fit import FitResult
from attunestats.hierarchical.model import HierarchicalModel
from attunestats.hierarchical.summaries import _interval, posterior_quantities

_SD_NAMES = (
    "participant",
    "conversation",
    "topic",
    "diagnosis_interaction",
    "predictor_topic",
    "predictor_participant",
    "predictor_conversation",
)


@dataclass(frozen=True)
class LatentTruth:
    """True effects on the logit scale, labelled by level names (one capability).

    Attributes
    ----------
    theta, beta : Series
        By predictor.
    u : Series
        By participant.
    delta : Series
        By diagnosis group (any reference; contrasts are taken against the model's).
    gamma : DataFrame
        Predictor x diagnosis group.
    v : Series
        By topic.
    topic_interaction : DataFrame
        Predictor x topic.
    w : Series
        By conversation.
    task_offset : Series
        By task (empty when there is a single task).
    sd : Mapping
        Population standard deviations by component (keys among ``participant,
        conversation, topic, diagnosis_interaction, predictor_topic, predictor_participant,
        predictor_conversation``).
    cutpoints, precision : optional
        Ordered-beta cutpoints and precision (synthetic data of that family).
    participant_interaction : DataFrame, optional
        Predictor x participant interactions ``pi`` (None: none planted).
    """

    theta: pd.Series
    beta: pd.Series
    u: pd.Series
    delta: pd.Series
    gamma: pd.DataFrame
    v: pd.Series
    topic_interaction: pd.DataFrame
    w: pd.Series
    task_offset: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))
    sd: Mapping[str, float] = field(default_factory=dict)
    cutpoints: tuple[float, float] | None = None
    precision: float | None = None
    participant_interaction: pd.DataFrame | None = None


def truth_from_simulation(
    truth: Mapping[str, Any] | str | os.PathLike[str],
    capability: str,
    *,
    task_offsets: bool = True,
) -> LatentTruth:
    """The true effects of one capability from a simulator ``truth.json`` (dict or path).

    ``capability`` is one of the simulator's capabilities (``behaviour``, ``preference``,
    ``emotion``, ``holistic``, ``response``). For ``behaviour`` the task offsets
    (``binary_task_offset``) are included.
    """
    if not isinstance(truth, Mapping):
        p = Path(truth)
        if p.is_dir():
            p = p / "truth.json"
        try:
            truth = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError as err:
            raise FileNotFoundError(f"truth file {str(p)!r} does not exist") from err
    caps = truth.get("capabilities", [])
    if capability not in caps:
        raise ValueError(f"capability must be one of {caps}; got {capability!r}")

    def series(d: Mapping[str, Mapping[str, float]]) -> pd.Series:
        return pd.Series({k: float(v[capability]) for k, v in d.items()}, dtype=float)

    def frame(d: Mapping[str, Mapping[str, Mapping[str, float]]]) -> pd.DataFrame:
        return pd.DataFrame(
            {k: {kk: float(vv[capability]) for kk, vv in v.items()} for k, v in d.items()}
        ).T

    cfg = truth.get("effects_config", truth.get("config", {}))

    def cap_value(name: str, default: float | None = None) -> float:
        if name not in cfg and default is not None:
            return default  # an extension field left out of truth.json at its default
        val = cfg[name]
        if isinstance(val, Mapping):
            return float(val[capability])
        if isinstance(val, list | tuple):
            return float(val[caps.index(capability)])
        return float(val)

    sd = {
        "participant": cap_value("participant_sd"),
        "conversation": cap_value("conversation_sd"),
        "diagnosis_interaction": cap_value("diagnosis_interaction_sd"),
        "predictor_topic": cap_value("topic_interaction_sd"),
        "predictor_participant": cap_value("participant_interaction_sd", 0.0),
        "predictor_conversation": cap_value("conversation_interaction_sd", 0.0),
    }
    if cap_value("hardest_topic_effect") == 0.0:
        sd["topic"] = cap_value("topic_sd")
    tasks = pd.Series(dtype=float)
    if capability == "behaviour" and task_offsets and "binary_task_offset" in cfg:
        off = cfg["binary_task_offset"]
        names = ("om", "human", "om_hp", "human_hp")
        tasks = pd.Series(
            dict(off) if isinstance(off, Mapping) else dict(zip(names, off)), dtype=float
        )
    w = pd.Series(
        {k: float(c["w"][capability]) for k, c in truth["conversations"].items()}, dtype=float
    )
    return LatentTruth(
        theta=series(truth["theta"]),
        beta=series(truth["beta"]),
        u=series(truth["u"]),
        delta=series(truth["delta"]),
        gamma=frame(truth["gamma"]),
        v=series(truth["v"]),
        topic_interaction=frame(truth["topic_interaction"]),
        w=w,
        task_offset=tasks,
        sd=sd,
        participant_interaction=(
            frame(truth["participant_interaction"]) if "participant_interaction" in truth else None
        ),
    )


def true_quantities(model: HierarchicalModel, truth: LatentTruth) -> pd.DataFrame:
    """The model's identifiable quantities computed from the truth (module docstring).

    Returns
    -------
    DataFrame
        ``parameter, quantity, truth`` with the labels of
        :func:`~.summaries.posterior_quantities`.
    """
    if not isinstance(model, HierarchicalModel):
        raise TypeError(f"model must be a HierarchicalModel; got {type(model).__name__}")
    if not isinstance(truth, LatentTruth):
        raise TypeError(f"truth must be a LatentTruth; got {type(truth).__name__}")
    M, T, G = list(model.predictors), list(model.topics), list(model.diagnosis_groups)
    needs = [
        ("theta", truth.theta.index, M),
        ("v", truth.v.index, T),
        ("u", truth.u.index, model.participants),
        ("delta", truth.delta.index, G),
        ("gamma", truth.gamma.index, M),
        ("gamma", truth.gamma.columns, G),
        ("topic_interaction", truth.topic_interaction.index, M),
        ("topic_interaction", truth.topic_interaction.columns, T),
    ]
    if model.turn_slope:
        needs.append(("beta", truth.beta.index, M))
    if model.has_tasks:
        needs.append(("task_offset", truth.task_offset.index, model.tasks))
    for name, have, need in needs:
        missing = [x for x in need if x not in have]
        if missing:
            raise ValueError(f"truth.{name} lacks the level(s) {missing[:5]} of the model")
    ti = truth.topic_interaction.reindex(index=M, columns=T).to_numpy(dtype=float)
    gam = truth.gamma.reindex(index=M, columns=G).to_numpy(dtype=float)
    theta = truth.theta.reindex(M).to_numpy(dtype=float)
    v = truth.v.reindex(T).to_numpy(dtype=float)
    delta = truth.delta.reindex(G).to_numpy(dtype=float)
    row = theta + ti.mean(axis=1) + gam[:, 0]  # the reference group's predictor effects
    col = v + ti.mean(axis=0)
    rows: list[tuple[str, str, float]] = []

    def add(quantity: str, levels: tuple[str, ...], value: float) -> None:
        label = quantity if not levels else f"{quantity}[{', '.join(levels)}]"
        rows.append((label, quantity, float(value)))

    tau0 = 0.0
    if model.has_tasks:
        tau = truth.task_offset.reindex(list(model.tasks)).to_numpy(dtype=float)
        tau0 = tau[0]
    elif len(truth.task_offset) and model.tasks[0] in truth.task_offset.index:
        tau0 = float(truth.task_offset[model.tasks[0]])
    add("intercept", (), theta.mean() + col.mean() + delta[0] + gam[:, 0].mean() + tau0)
    if model.has_predictor_effect:
        for i, m in enumerate(M):
            add("predictor_effect", (m,), row[i] - row.mean())
    if model.turn_slope:
        beta = truth.beta.reindex(M).to_numpy(dtype=float)
        for i, m in enumerate(M):
            add("turn_slope", (m,), beta[i])
    if model.has_diagnosis:
        for j, g in enumerate(G[1:], start=1):
            add("diagnosis_effect", (g,), delta[j] - delta[0] + (gam[:, j] - gam[:, 0]).mean())
        for i, m in enumerate(M):
            for j, g in enumerate(G[1:], start=1):
                add("diagnosis_contrast", (m, g), delta[j] - delta[0] + gam[i, j] - gam[i, 0])
    if model.has_topic_effect:
        for t_i, t in enumerate(T):
            add("topic_effect", (t,), col[t_i] - col.mean())
    pi_mean = pd.Series(0.0, index=list(model.participants))
    if truth.participant_interaction is not None:
        pi = truth.participant_interaction.reindex(index=M, columns=list(model.participants))
        pi_mean = pi.mean(axis=0)
    for p in model.participants:
        add("participant_effect", (p,), truth.u[p] + pi_mean[p])
    if model.has_tasks:
        for j, t in enumerate(model.tasks[1:], start=1):
            add("task_offset", (t,), tau[j] - tau[0])
    present = {
        "participant": True,
        "conversation": True,
        "topic": model.has_topic_effect,
        "diagnosis_interaction": model.has_diagnosis_interaction,
        "predictor_topic": model.has_predictor_topic,
        "predictor_participant": model.has_predictor_participant,
        "predictor_conversation": model.has_predictor_conversation,
    }
    for name in _SD_NAMES:
        if name in truth.sd and present[name] and truth.sd[name] > 0:  # 0: boundary, left out
            add(f"sigma_{name}", (), truth.sd[name])
    if model.family == "ordered_beta" and truth.cutpoints is not None:
        add("cutpoints", ("1",), truth.cutpoints[0])
        add("cutpoints", ("2",), truth.cutpoints[1])
    if model.family == "ordered_beta" and truth.precision is not None:
        add("precision", (), truth.precision)
    return pd.DataFrame(rows, columns=["parameter", "quantity", "truth"]).astype(
        {"parameter": "str", "quantity": "str"}
    )


def recovery_table(fit: FitResult, truth: LatentTruth, *, ci_prob: float = 0.94) -> pd.DataFrame:
    """Posterior mean and interval of each identifiable quantity next to its true value.

    Works on any fit (recovery studies use short chains; no diagnostics gate here, the table
    carries ``passed``, the fit's gate result).

    Returns
    -------
    DataFrame
        ``parameter, quantity, truth, mean, ci_low, ci_high, covered, ci_prob, passed,
        simulated``.
    """
    if not isinstance(fit, FitResult):
        raise TypeError(f"fit must be a FitResult; got {type(fit).__name__}")
    if isinstance(ci_prob, bool) or not isinstance(ci_prob, numbers.Real) or not 0 < ci_prob < 1:
        raise ValueError(f"ci_prob must be in (0, 1); got {ci_prob!r}")
    tq = true_quantities(fit.model, truth)
    post: dict[str, tuple[float, float, float]] = {}
    for name, (a, labels) in posterior_quantities(fit).items():
        a2 = a.reshape(a.shape[0], -1)
        lo, hi = _interval(a2, ci_prob)
        mean = a2.mean(axis=0)
        for j, lev in enumerate(labels):
            label = name if not lev else f"{name}[{', '.join(lev)}]"
            post[label] = (float(mean[j]), float(lo[j]), float(hi[j]))
    missing = [p for p in tq["parameter"] if p not in post]
    if missing:
        raise ValueError(f"the fit lacks the quantities {missing[:5]}")
    vals = np.array([post[p] for p in tq["parameter"]])
    out = tq.assign(mean=vals[:, 0], ci_low=vals[:, 1], ci_high=vals[:, 2])
    out["covered"] = (out["truth"] >= out["ci_low"]) & (out["truth"] <= out["ci_high"])
    out["ci_prob"] = float(ci_prob)
    out["passed"] = fit.passed
    out["simulated"] = True
    return out
