"""Where each parameter block of a model sits in the unconstrained vector, and back again.

Shared by the PyMC model (:mod:`.pymc_model`, which creates its free variables in this order) and
the numba kernel (:mod:`.kernel`, which reads them at these offsets): :func:`blocks` is the one
definition. :func:`kernel_args` packs a model for the kernel; :func:`constrained` turns draws of
the unconstrained vector into the posterior variables (the names of the PyMC model's
deterministics), vectorised over draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from attunestats.hierarchical import kernel as KN
from attunestats.hierarchical.model import CUTPOINT_MEANS, HierarchicalModel
from attunestats.hierarchical.spec import SCALE_PRIORS

#: Scale variables, by kernel block id.
SCALES = {
    KN.S_P: "sigma_participant",
    KN.S_C: "sigma_conversation",
    KN.S_T: "sigma_topic",
    KN.S_G: "sigma_diagnosis_interaction",
    KN.S_PT: "sigma_predictor_topic",
    KN.S_PP: "sigma_predictor_participant",
    KN.S_PC: "sigma_predictor_conversation",
    KN.S_I: "sigma_item",
}
#: Key of each scale's prior scale in :data:`~.spec.PRIORS`, by kernel block id.
_SCALE_PRIORS = {b: SCALE_PRIORS[name] for b, name in SCALES.items()}


@dataclass(frozen=True)
class Block:
    """One free variable: kernel block id, PyMC name, shape of its unconstrained value."""

    block: int
    name: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


def blocks(model: HierarchicalModel) -> list[Block]:
    """The free variables of ``model`` in the order of the unconstrained vector."""
    M, K, P = model.n_predictors, len(model.conversations), len(model.participants)
    T, G, NT, NI = (
        len(model.topics),
        len(model.diagnosis_groups),
        len(model.tasks),
        len(model.items),
    )
    present = {
        KN.S_P: True,
        KN.S_C: True,
        KN.S_T: model.has_topic_effect,
        KN.S_G: model.has_diagnosis_interaction,
        KN.S_PT: model.has_predictor_topic,
        KN.S_PP: model.has_predictor_participant,
        KN.S_PC: model.has_predictor_conversation,
        KN.S_I: model.has_item,
    }
    out = [Block(b, SCALES[b], ()) for b in range(8) if present[b]]
    c = model.is_centred
    out.append(
        Block(KN.B_PART, "participant_intercept" if c("participant") else "z_participant", (P,))
    )
    if model.has_topic_effect:
        out.append(Block(KN.B_TOPIC, "topic_effect" if c("topic") else "z_topic", (T - 1,)))
    out.append(
        Block(KN.B_CONV, "conversation_intercept" if c("conversation") else "z_conversation", (K,))
    )
    if model.has_predictor_effect:
        out.append(Block(KN.B_THETA, "predictor_effect", (M - 1,)))
    if model.has_diagnosis_interaction:
        out.append(Block(KN.B_GAMMA, "z_diagnosis_interaction", (G - 1, M - 1)))
    if model.has_predictor_topic:
        out.append(Block(KN.B_PTOPIC, "z_predictor_topic", (M - 1, T - 1)))
    if model.has_predictor_participant:
        out.append(Block(KN.B_PPART, "z_predictor_participant", (P, M - 1)))
    if model.has_predictor_conversation:
        out.append(Block(KN.B_PCONV, "z_predictor_conversation", (K, M - 1)))
    if model.turn_slope:
        out.append(Block(KN.B_BETA, "turn_slope", (M,)))
    if model.has_tasks:
        out.append(Block(KN.B_TASK, "task_offset", (NT - 1,)))
    if model.has_item:
        out.append(Block(KN.B_ITEM, "item_effect" if c("item") else "z_item", (NI - 1,)))
    if model.family == "ordered_beta":
        out.append(Block(KN.B_CUT, "cutpoints", (2,)))
        out.append(Block(KN.B_PREC, "precision", ()))
    if model.has_overdispersion:
        out.append(Block(KN.B_OD, "overdispersion", ()))
    return out


def offsets(model: HierarchicalModel) -> tuple[np.ndarray, int]:
    """Offsets of every kernel block (-1 when absent) and the dimension of the vector."""
    off = np.full(KN.N_BLOCKS, -1, dtype=np.int64)
    pos = 0
    for b in blocks(model):
        off[b.block] = pos
        pos += b.size
    return off, pos


def kernel_args(model: HierarchicalModel) -> tuple[tuple[Any, ...], int]:
    """Arguments of :func:`.kernel.logp_grad` after ``(q, grad)``, and the dimension."""
    off, ndim = offsets(model)
    meta = np.zeros(KN.META_OFFSETS, dtype=np.int64)
    meta[KN.M_M] = model.n_predictors
    meta[KN.M_K] = len(model.conversations)
    meta[KN.M_P] = len(model.participants)
    meta[KN.M_T] = len(model.topics)
    meta[KN.M_G] = len(model.diagnosis_groups)
    meta[KN.M_NT] = len(model.tasks)
    meta[KN.M_NI] = len(model.items) if model.has_item else 1
    meta[KN.M_FAMILY] = KN.FAMILY_CODE[model.family]
    for j, lev in enumerate(("participant", "topic", "conversation", "item",
                             "predictor:participant", "predictor:conversation")):  # fmt: skip
        meta[KN.C_PART + j] = int(model.is_centred(lev))
    fmeta = np.zeros(KN.N_FMETA)
    for b, name in _SCALE_PRIORS.items():
        fmeta[b] = model.prior(name)
        fmeta[KN.F_SFAM + b] = float(model.spec.scale_family(SCALES[b]) == "gamma")
    fmeta[KN.F_THETA] = model.prior("predictor_effect_sd")
    fmeta[KN.F_BETA] = model.prior("turn_slope_sd")
    fmeta[KN.F_TASK] = model.prior("task_offset_sd")
    fmeta[KN.F_CUTSD] = model.prior("cutpoint_sd")
    fmeta[KN.F_CUT1], fmeta[KN.F_CUT2] = CUTPOINT_MEANS
    fmeta[KN.F_PRATE] = model.prior("precision_rate")
    fmeta[KN.F_OD] = model.prior("overdispersion_scale")
    d = model.data_arrays()
    if model.family == "binomial":
        a, b, c = d["cell_successes"], d["cell_trials"], np.zeros(1)
    else:
        y = d["cell_value"]
        a = np.where(y == 0, 0.0, np.where(y == 1, 1.0, 2.0))
        with np.errstate(divide="ignore"):
            b = np.where(a == 2, np.log(np.clip(y, 1e-12, 1 - 1e-12)), 0.0)
            c = np.where(a == 2, np.log1p(-np.clip(y, 1e-12, 1 - 1e-12)), 0.0)
    args = (
        meta,
        off,
        fmeta,
        np.ascontiguousarray(model.participant_of_conversation, dtype=np.int64),
        np.ascontiguousarray(model.topic_of_conversation, dtype=np.int64),
        np.ascontiguousarray(model.group_of_conversation, dtype=np.int64),
        np.ascontiguousarray(d["participant_U"], dtype=float),
        np.ascontiguousarray(d["participant_lambda"], dtype=float),
        np.ascontiguousarray(d["cell_conversation"], dtype=np.int64),
        np.ascontiguousarray(d["cell_predictor"], dtype=np.int64),
        np.ascontiguousarray(d["cell_x"], dtype=float),
        np.ascontiguousarray(d["cell_task"], dtype=np.int64),
        np.ascontiguousarray(d["cell_item"], dtype=np.int64),
        np.ascontiguousarray(a, dtype=float),
        np.ascontiguousarray(b, dtype=float),
        np.ascontiguousarray(c, dtype=float),
    )
    return args, ndim


# --------------------------------------------------------------------------------------------
# unconstrained draws -> posterior variables (numpy, vectorised over draws)
# --------------------------------------------------------------------------------------------
def _ext(f: np.ndarray, axis: int) -> np.ndarray:
    """PyMC's ZeroSumTransform.extend_axis along ``axis`` (free coordinates -> zero-sum)."""
    n = f.shape[axis] + 1.0
    s = f.sum(axis=axis, keepdims=True)
    norm = s / (np.sqrt(n) + n)
    fill = norm - s / np.sqrt(n)
    return np.concatenate([f, fill], axis=axis) - norm


def constrained(model: HierarchicalModel, Q: np.ndarray) -> dict[str, np.ndarray]:
    """Posterior variables from draws ``Q`` (S, ndim) of the unconstrained vector.

    Returns arrays with a leading draw axis, named as the PyMC model's variables:
    ``sigma_*``, ``participant_intercept``, ``topic_effect``, ``conversation_intercept``,
    ``predictor_effect``, ``diagnosis_interaction`` (S, M, G-1), ``predictor_topic`` (S, M,
    T), ``predictor_participant`` (S, M, P), ``predictor_conversation`` (S, M, K),
    ``turn_slope``, ``task_offset``, ``item_effect``, ``cutpoints``, ``precision``.
    """
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    S = Q.shape[0]
    blk = {b.block: b for b in blocks(model)}
    off, ndim = offsets(model)
    if Q.shape[1] != ndim:
        raise ValueError(f"Q must have {ndim} columns (the model's dimension); got {Q.shape[1]}")

    def get(b: int) -> np.ndarray:
        return Q[:, off[b] : off[b] + blk[b].size].reshape((S, *blk[b].shape))

    out: dict[str, np.ndarray] = {}
    for b, name in SCALES.items():
        if b in blk:
            out[name] = np.exp(Q[:, off[b]])
    c = model.is_centred
    U, lam = model.participant_covariance_root()
    if c("participant"):
        P = get(KN.B_PART)
    else:
        d = np.sqrt(out["sigma_participant"][:, None] ** 2 + lam[None, :])
        P = (d * get(KN.B_PART)) @ U.T
    out["participant_intercept"] = P
    mean = P[:, model.participant_of_conversation]
    if model.has_topic_effect:
        v = _ext(get(KN.B_TOPIC), 1)
        if not c("topic"):
            v = v * out["sigma_topic"][:, None]
        out["topic_effect"] = v
        mean = mean + v[:, model.topic_of_conversation]
    if c("conversation"):
        out["conversation_intercept"] = get(KN.B_CONV)
    else:
        out["conversation_intercept"] = mean + out["sigma_conversation"][:, None] * get(KN.B_CONV)
    if model.has_predictor_effect:
        out["predictor_effect"] = _ext(get(KN.B_THETA), 1)
    if model.has_diagnosis_interaction:
        z = _ext(get(KN.B_GAMMA), 2)  # (S, G-1, M)
        out["diagnosis_interaction"] = out["sigma_diagnosis_interaction"][:, None, None] * (
            np.swapaxes(z, 1, 2)
        )
    if model.has_predictor_topic:
        z = _ext(_ext(get(KN.B_PTOPIC), 1), 2)
        out["predictor_topic"] = out["sigma_predictor_topic"][:, None, None] * z
    for blk_id, name, lev in (
        (KN.B_PPART, "predictor_participant", "predictor:participant"),
        (KN.B_PCONV, "predictor_conversation", "predictor:conversation"),
    ):
        if blk_id in blk:
            z = np.swapaxes(_ext(get(blk_id), 2), 1, 2)  # (S, M, P or K)
            if not c(lev):
                z = z * out[f"sigma_{name}"][:, None, None]
            out[name] = z
    if model.turn_slope:
        out["turn_slope"] = get(KN.B_BETA)
    if model.has_tasks:
        out["task_offset"] = get(KN.B_TASK)
    if model.has_item:
        q = _ext(get(KN.B_ITEM), 1)
        if not c("item"):
            q = q * out["sigma_item"][:, None]
        out["item_effect"] = q
    if model.family == "ordered_beta":
        raw = get(KN.B_CUT)
        out["cutpoints"] = np.stack([raw[:, 0], raw[:, 0] + np.exp(raw[:, 1])], axis=1)
        out["precision"] = np.exp(Q[:, off[KN.B_PREC]])
    if model.has_overdispersion:
        out["overdispersion"] = np.exp(Q[:, off[KN.B_OD]])
    return out


#: Dimensions of each posterior variable (after the chain and draw axes).
DIMS = {
    "participant_intercept": ("participant",),
    "topic_effect": ("topic",),
    "conversation_intercept": ("conversation",),
    "predictor_effect": ("predictor",),
    "diagnosis_interaction": ("predictor", "diagnosis"),
    "predictor_topic": ("predictor", "topic"),
    "predictor_participant": ("predictor", "participant"),
    "predictor_conversation": ("predictor", "conversation"),
    "turn_slope": ("predictor",),
    "task_offset": ("task",),
    "item_effect": ("item",),
    "cutpoints": ("cutpoint",),
}


def initial_point(model: HierarchicalModel, rng: np.random.Generator) -> np.ndarray:
    """A jittered start: ``U(-1, 1)`` on every coordinate, log scales around half their prior
    scale, centred intercepts around the data's overall logit, cutpoints at their prior means."""
    off, ndim = offsets(model)
    q = rng.uniform(-1.0, 1.0, size=ndim)
    for b, name in _SCALE_PRIORS.items():
        if off[b] >= 0:
            q[off[b]] = np.log(0.5 * model.prior(name)) + rng.uniform(-0.5, 0.5)
    base = _overall_logit(model)
    if model.is_centred("conversation"):
        o = off[KN.B_CONV]
        q[o : o + len(model.conversations)] += base
    if model.is_centred("participant"):
        o = off[KN.B_PART]
        q[o : o + len(model.participants)] += base
    if model.family == "ordered_beta":
        o = off[KN.B_CUT]
        q[o] = CUTPOINT_MEANS[0] + rng.uniform(-0.5, 0.5)
        q[o + 1] = np.log(CUTPOINT_MEANS[1] - CUTPOINT_MEANS[0]) + rng.uniform(-0.5, 0.5)
        q[off[KN.B_PREC]] = np.log(10.0) + rng.uniform(-0.5, 0.5)
    if model.has_overdispersion:
        q[off[KN.B_OD]] = np.log(0.5 * model.prior("overdispersion_scale")) + rng.uniform(-0.5, 0.5)
    return q


def _overall_logit(model: HierarchicalModel) -> float:
    if model.family == "binomial":
        p = (model.successes.sum() + 0.5) / (model.trials.sum() + 1.0)
    else:
        p = float(np.clip(np.nanmean(np.where(model.observed, model.values, np.nan)), 0.02, 0.98))
    return float(np.log(p / (1 - p)))
