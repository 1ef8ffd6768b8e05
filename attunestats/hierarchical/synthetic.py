"""Small synthetic panels drawn from the simulator's linear predictor, with known truth.

:func:`simulate_panel` draws effects the way ``attunestats.release.simulate`` does (unconstrained
draws: ``theta ~ N(skill_mean, skill_sd)``, ``u ~ N(0, participant_sd)``, ``delta`` with the
first group 0, ``gamma ~ N(0, diagnosis_interaction_sd)`` with the first group 0, ``v ~ N(0,
topic_sd)``, ``topic_interaction ~ N(0, topic_interaction_sd)``, ``w ~ N(0, conversation_sd)``,
``beta ~ N(drift_mean, drift_sd)``) and outcomes from the model's likelihoods (binomial counts or
ordered-beta scores) directly, without writing a release. It is what the tests and the recovery
studies use when a full release is not needed (it takes milliseconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, check_rng
from attunestats.hierarchical.model import _logistic, _ordered_beta_draw
from attunestats.hierarchical.recovery import LatentTruth


@dataclass(frozen=True)
class SyntheticPanel:
    """A synthetic data set: ``data`` (model-constructor format), ``design`` and ``truth``."""

    data: pd.DataFrame
    design: pd.DataFrame
    truth: LatentTruth


def simulate_panel(
    family: str = "binomial",
    *,
    n_predictors: int = 4,
    n_conversations: int = 40,
    n_participants: int = 8,
    n_topics: int = 6,
    groups: Sequence[str] = ("none", "anxiety_depression", "asd_adhd"),
    n_turns: tuple[int, int] = (2, 6),
    trials: int = 9,
    level: str = "turn",
    skill_mean: float = 0.8,
    skill_sd: float = 0.5,
    drift_mean: float = -0.4,
    drift_sd: float = 0.3,
    participant_sd: float = 0.3,
    conversation_sd: float = 0.4,
    topic_sd: float = 0.3,
    diagnosis_effect: Sequence[float] = (-0.4, 0.3),
    diagnosis_interaction_sd: float = 0.15,
    topic_interaction_sd: float = 0.1,
    cutpoints: tuple[float, float] = (-0.5, 2.0),
    precision: float = 8.0,
    missing_rate: float = 0.0,
    participant_interaction_sd: float = 0.0,
    conversation_interaction_sd: float = 0.0,
    cell_noise_sd: float = 0.0,
    rng: RNGLike = None,
) -> SyntheticPanel:
    """Draw a synthetic panel from the shared linear predictor (module docstring).

    Parameters
    ----------
    family : {"binomial", "ordered_beta"}
        Binomial counts (``trials`` per cell) or ordered-beta scores.
    level : {"turn", "conversation"}
        Ordered beta only: turn-level scores (with drift) or one score per conversation.
    missing_rate : float
        Share of predictor x turn cells left out at random.
    participant_interaction_sd, conversation_interaction_sd : float
        Sd of iid predictor x participant (``pi[m, p]``) and predictor x conversation
        (``wi[m, k]``) interactions, drawn from their own stream (0: none; the other draws are
        then those of a panel without them).
    cell_noise_sd : float
        Binomial only: sd of a normal logit noise per predictor x turn cell, shared by the cell's
        trials (extra-binomial variation, logit-normal: not the beta-binomial of the
        ``overdispersion`` term), drawn from its own stream.
    rng : int, Generator or SeedSequence, optional
        Seed.

    Returns
    -------
    SyntheticPanel
        ``data`` has ``predictor, conversation_id, turn, successes, trials`` (binomial) or
        ``predictor, conversation_id, [turn,] value`` (ordered beta).
    """
    if family not in ("binomial", "ordered_beta"):
        raise ValueError(f"family must be 'binomial' or 'ordered_beta'; got {family!r}")
    if level not in ("turn", "conversation"):
        raise ValueError(f"level must be 'turn' or 'conversation'; got {level!r}")
    for name, val, low in (
        ("n_predictors", n_predictors, 1),
        ("n_conversations", n_conversations, 2),
        ("n_participants", n_participants, 1),
        ("n_topics", n_topics, 1),
        ("trials", trials, 1),
    ):
        if isinstance(val, bool) or not isinstance(val, int | np.integer) or val < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {val!r}")
    groups = list(groups)
    if len(diagnosis_effect) != len(groups) - 1:
        raise ValueError(
            f"diagnosis_effect must have {len(groups) - 1} values (groups after the first); "
            f"got {list(diagnosis_effect)}"
        )
    if not 0 <= missing_rate < 1:
        raise ValueError(f"missing_rate must be in [0, 1); got {missing_rate!r}")
    gen = check_rng(rng)
    M, K, P, T, G = n_predictors, n_conversations, n_participants, n_topics, len(groups)
    preds = [f"m{i + 1:02d}" for i in range(M)]
    parts = [f"p{i + 1:02d}" for i in range(P)]
    topics = [f"topic{i + 1:02d}" for i in range(T)]
    convs = [str(k + 1) for k in range(K)]

    theta = skill_mean + skill_sd * gen.standard_normal(M)
    beta = drift_mean + drift_sd * gen.standard_normal(M)
    u = participant_sd * gen.standard_normal(P)
    group_of_p = np.arange(P) % G  # every group gets participants
    gen.shuffle(group_of_p)
    delta = np.concatenate([[0.0], np.asarray(diagnosis_effect, dtype=float)])
    gamma = diagnosis_interaction_sd * gen.standard_normal((M, G))
    gamma[:, 0] = 0.0
    v = topic_sd * gen.standard_normal(T)
    ti = topic_interaction_sd * gen.standard_normal((M, T))
    w = conversation_sd * gen.standard_normal(K)
    # every participant and topic appears at least once when K allows
    p_k = np.concatenate([np.arange(min(P, K)), gen.integers(0, P, size=max(K - P, 0))])
    t_k = np.concatenate([np.arange(min(T, K)), gen.integers(0, T, size=max(K - T, 0))])
    gen.shuffle(p_k)
    gen.shuffle(t_k)
    lo, hi = n_turns
    nt = gen.integers(lo, hi + 1, size=K) if level == "turn" else np.ones(K, dtype=int)
    g_k = group_of_p[p_k]

    design = pd.DataFrame(
        {
            "conversation_id": convs,
            "participant_id": [parts[i] for i in p_k],
            "diagnosis_group": [groups[i] for i in g_k],
            "topic": [topics[i] for i in t_k],
            "n_turns": nt.astype("int64"),
        }
    ).astype({c: "str" for c in ("conversation_id", "participant_id", "diagnosis_group", "topic")})

    conv_r = np.repeat(np.arange(K), nt)
    turn_r = np.concatenate([np.arange(1, n + 1) for n in nt])
    nt_r = nt[conv_r]
    x = np.where(nt_r > 1, (turn_r - 1) / np.maximum(nt_r - 1, 1), 0.5)
    if level == "conversation":
        x = np.zeros_like(x, dtype=float)
    base = u[p_k] + delta[g_k] + v[t_k] + w  # (K,)
    eta = (
        theta[:, None]
        + base[None, conv_r]
        + gamma[:, g_k][:, conv_r]
        + ti[:, t_k][:, conv_r]
        + beta[:, None] * x[None, :]
    )
    pi = None
    if participant_interaction_sd > 0 or conversation_interaction_sd > 0:
        ext = np.random.default_rng(gen.integers(2**63))
        pi = participant_interaction_sd * ext.standard_normal((M, P))
        wi = conversation_interaction_sd * ext.standard_normal((M, K))
        eta = eta + pi[:, p_k][:, conv_r] + wi[:, conv_r]
    keep = gen.random(eta.shape) >= missing_rate
    mi, ri = np.nonzero(keep)
    frame = {
        "predictor": [preds[i] for i in mi],
        "conversation_id": [convs[k] for k in conv_r[ri]],
        "turn": turn_r[ri].astype("int64"),
    }
    if family == "binomial":
        if cell_noise_sd > 0:
            noise = np.random.default_rng(gen.integers(2**63)).standard_normal(eta.shape)
            succ = gen.binomial(trials, _logistic(eta + cell_noise_sd * noise))
        else:
            succ = gen.binomial(trials, _logistic(eta))
        frame["successes"] = succ[mi, ri].astype("int64")
        frame["trials"] = np.full(len(mi), trials, dtype="int64")
    else:
        y = _ordered_beta_draw(eta, cutpoints[0], cutpoints[1], precision, gen)
        frame["value"] = y[mi, ri]
    data = pd.DataFrame(frame).astype({"predictor": "str", "conversation_id": "str"})
    if family != "binomial" and level == "conversation":
        data = data.drop(columns="turn")
    truth = LatentTruth(
        theta=pd.Series(theta, index=preds),
        beta=pd.Series(beta if level == "turn" else np.zeros(M), index=preds),
        u=pd.Series(u, index=parts),
        delta=pd.Series(delta, index=groups),
        gamma=pd.DataFrame(gamma, index=preds, columns=groups),
        v=pd.Series(v, index=topics),
        topic_interaction=pd.DataFrame(ti, index=preds, columns=topics),
        w=pd.Series(w, index=convs),
        sd={
            "participant": participant_sd,
            "conversation": conversation_sd,
            "topic": topic_sd,
            "diagnosis_interaction": diagnosis_interaction_sd,
            "predictor_topic": topic_interaction_sd,
            "predictor_participant": participant_interaction_sd,
            "predictor_conversation": conversation_interaction_sd,
        },
        cutpoints=tuple(cutpoints) if family == "ordered_beta" else None,
        precision=float(precision) if family == "ordered_beta" else None,
        participant_interaction=None
        if pi is None
        else pd.DataFrame(pi, index=preds, columns=parts),
    )
    return SyntheticPanel(data=data, design=design, truth=truth)
