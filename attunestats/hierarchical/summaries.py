"""Tidy summaries of a :class:`~.fit.FitResult`.

Every function refuses to report a fit that failed the diagnostics gate (it raises
:class:`~attunestats.errors.DiagnosticsError` naming the failed parameters) unless called with
``accept_failed_diagnostics=True``. Every row of every table says how its fit fared: a
``diagnostics`` column (``"passed"`` or ``"diagnostics failed"``) and, for a failed fit, a
``warning`` column naming the failures; ``attrs["diagnostics_failed"]`` is True then. Tables
carry a ``simulated`` column and ``attrs["label"]`` (``constants.SIMULATED_LABEL`` for
simulated data).

Intervals are equal-tailed posterior intervals of probability ``ci_prob`` (default 0.94):
``ci_low``, ``ci_high``. "Average participant / topic / conversation" predictions set those
random effects to zero (conditional, not population-averaged, predictions).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, check_rng
from attunestats.errors import NotApplicable
from attunestats.hierarchical.fit import FitResult
from attunestats.hierarchical.model import HierarchicalModel, _logistic

#: Variance of the standard logistic distribution: the latent residual variance of a logit model.
LOGISTIC_VARIANCE = np.pi**2 / 3.0


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _check_fit(fit: Any, ci_prob: Any, accept: Any) -> str:
    if not isinstance(fit, FitResult):
        raise TypeError(
            f"fit must be a FitResult (from hierarchical.fit); got {type(fit).__name__}"
        )
    if isinstance(ci_prob, bool) or not isinstance(ci_prob, numbers.Real) or not 0 < ci_prob < 1:
        raise ValueError(f"ci_prob must be in (0, 1); got {ci_prob!r}")
    return fit.check(accept_failed_diagnostics=accept)


#: Value of the ``diagnostics`` column of rows built from a fit that failed the gate.
FAILED = "diagnostics failed"


#: What each summary estimates (its ``estimand`` column); participants, topics, conversations
#: and items are random effects, so quantities "in the population" are about new participants.
ESTIMANDS = {
    "parameter_summary": "the model's parameters (participants, topics, conversations and "
    "items as random effects)",
    "variance_decomposition": "variance components of the populations of participants, topics, "
    "conversations and items (latent logit scale)",
    "topic_effects": "these topics' effects relative to the average observed topic",
    "predictor_effects": "each predictor's effect in the population of participants, averaged "
    "over diagnosis groups in proportion to their conversations",
    "diagnosis_contrasts": "differences between diagnosis groups in the population of participants",
    "turn_drift": "change from the first to the last turn in the population of participants",
    "posterior_predictive_check": "none (a model check: observed statistics against their "
    "posterior predictive distribution)",
}


def _finish(df: pd.DataFrame, fit: FitResult, warning: str, summary: str) -> pd.DataFrame:
    df = df.reset_index(drop=True)
    df["estimand"] = ESTIMANDS[summary]
    df["method"] = (
        f"hierarchical Bayesian model ({fit.model.spec}), {fit.sampler} MCMC, "
        f"{fit.chains} x {fit.draws} draws: posterior means and equal-tailed intervals"
    )
    df["outcome"] = fit.model.outcome
    df["simulated"] = fit.simulated
    df["diagnostics"] = "passed" if fit.passed else FAILED
    if warning:
        df["warning"] = warning
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].astype("str")
    df.attrs["label"] = fit.label
    df.attrs["simulated"] = fit.simulated
    df.attrs["diagnostics_failed"] = not fit.passed
    return df


def draws(fit: FitResult, name: str) -> np.ndarray:
    """Posterior draws of variable ``name`` with chains and draws stacked on axis 0."""
    post = fit.idata["posterior"]
    if name not in post.data_vars:
        raise KeyError(f"{name!r} is not a posterior variable; have {sorted(post.data_vars)}")
    a = np.asarray(post[name].values, dtype=float)
    return a.reshape((a.shape[0] * a.shape[1],) + a.shape[2:])


def _interval(a: np.ndarray, ci_prob: float, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    lo = (1.0 - ci_prob) / 2.0
    q = np.quantile(a, [lo, 1.0 - lo], axis=axis)
    return q[0], q[1]


def _stats(a: np.ndarray, ci_prob: float) -> dict[str, np.ndarray]:
    lo, hi = _interval(a, ci_prob)
    return {"mean": a.mean(axis=0), "sd": a.std(axis=0, ddof=1), "ci_low": lo, "ci_high": hi}


def posterior_parameters(fit: FitResult) -> dict[str, np.ndarray]:
    """Draws of every posterior variable, chains and draws stacked (the input of
    :meth:`HierarchicalModel.linear_predictor`)."""
    return {str(n): draws(fit, str(n)) for n in fit.idata["posterior"].data_vars}


def posterior_quantities(fit: FitResult) -> dict[str, tuple[np.ndarray, list[tuple[str, ...]]]]:
    """Identifiable quantities: name -> (draws ``(S, ...)``, level labels of each element).

    ``intercept``, ``predictor_effect[m]``, ``turn_slope[m]``, ``diagnosis_effect[g]``,
    ``diagnosis_contrast[m, g]`` (= ``diagnosis_effect[g] + diagnosis_interaction[m, g]``),
    ``topic_effect[t]``, ``participant_effect[p]`` (``P[p] - intercept - delta[g(p)]``),
    ``task_offset[task]``, the standard deviations ``sigma_*`` and, for ordered-beta models,
    ``cutpoints[1]``, ``cutpoints[2]`` and ``precision``, for beta-binomial ones
    ``overdispersion``.
    """
    m = fit.model
    p = posterior_parameters(fit)
    out: dict[str, tuple[np.ndarray, list[tuple[str, ...]]]] = {}
    out["intercept"] = (p["intercept"], [()])
    if m.has_predictor_effect:
        out["predictor_effect"] = (p["predictor_effect"], [(x,) for x in m.predictors])
    if m.turn_slope:
        out["turn_slope"] = (p["turn_slope"], [(x,) for x in m.predictors])
    groups = m.diagnosis_groups[1:]
    if m.has_diagnosis:
        out["diagnosis_effect"] = (p["diagnosis_effect"], [(g,) for g in groups])
        contrast = np.broadcast_to(
            p["diagnosis_effect"][:, None, :],
            (p["intercept"].shape[0], m.n_predictors, len(groups)),
        ).copy()
        if m.has_diagnosis_interaction:
            contrast = contrast + p["diagnosis_interaction"]
        out["diagnosis_contrast"] = (
            contrast.reshape(contrast.shape[0], -1),
            [(x, g) for x in m.predictors for g in groups],
        )
    if m.has_topic_effect:
        out["topic_effect"] = (p["topic_effect"], [(t,) for t in m.topics])
    shift = p["intercept"][:, None] * np.ones((1, len(m.participants)))
    if m.has_diagnosis:
        d_full = np.concatenate([np.zeros((shift.shape[0], 1)), p["diagnosis_effect"]], axis=1)
        shift = shift + d_full[:, m.group_of_participant]
    out["participant_effect"] = (
        p["participant_intercept"] - shift,
        [(x,) for x in m.participants],
    )
    if m.has_tasks:
        out["task_offset"] = (p["task_offset"], [(t,) for t in m.tasks[1:]])
    if m.has_item:
        out["item_effect"] = (p["item_effect"], [(t,) for t in m.items])
    if m.family == "ordered_beta":
        out["cutpoints"] = (p["cutpoints"], [("1",), ("2",)])
        out["precision"] = (p["precision"], [()])
    if m.has_overdispersion:
        out["overdispersion"] = (p["overdispersion"], [()])
    for name in (
        "sigma_participant",
        "sigma_topic",
        "sigma_conversation",
        "sigma_diagnosis_interaction",
        "sigma_predictor_topic",
        "sigma_predictor_participant",
        "sigma_predictor_conversation",
        "sigma_item",
    ):
        if name in p:
            out[name] = (p[name], [()])
    return out


def _label(name: str, levels: tuple[str, ...]) -> str:
    return name if not levels else f"{name}[{', '.join(levels)}]"


def parameter_summary(
    fit: FitResult, *, ci_prob: float = 0.94, accept_failed_diagnostics: bool = False
) -> pd.DataFrame:
    """Every identifiable quantity (:func:`posterior_quantities`) with mean, sd and interval.

    Columns ``parameter, quantity, mean, sd, ci_low, ci_high, ci_prob``.
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    rows = []
    for name, (a, labels) in posterior_quantities(fit).items():
        a2 = a.reshape(a.shape[0], -1)
        st = _stats(a2, ci_prob)
        for j, lev in enumerate(labels):
            rows.append(
                {
                    "parameter": _label(name, lev),
                    "quantity": name,
                    "mean": float(st["mean"][j]),
                    "sd": float(st["sd"][j]),
                    "ci_low": float(st["ci_low"][j]),
                    "ci_high": float(st["ci_high"][j]),
                }
            )
    df = pd.DataFrame(rows)
    df["ci_prob"] = float(ci_prob)
    return _finish(df, fit, warning, "parameter_summary")


# --------------------------------------------------------------------------------------------
# variance decomposition
# --------------------------------------------------------------------------------------------
def variance_decomposition(
    fit: FitResult, *, ci_prob: float = 0.94, accept_failed_diagnostics: bool = False
) -> pd.DataFrame:
    """Share of the variance of the linear predictor from participant, topic and conversation.

    The random-effect variances are ``sigma_participant**2``, ``sigma_topic**2``,
    ``sigma_conversation**2`` and (when in the model) ``sigma_predictor_topic**2``,
    ``sigma_predictor_participant**2``, ``sigma_predictor_conversation**2`` and
    ``sigma_item**2`` (the zero-sum deviations' scales: the variance of one predictor's deviation
    is ``(1 - 1/M)`` times it; the shares use the scales as they are). ``share`` is
    each one's share of their sum; ``share_latent`` its share of the sum plus the latent
    residual variance of the logistic link, ``pi**2 / 3`` (the latent-scale intra-class
    correlation of Nakagawa & Schielzeth 2010; for the ordered-beta model the same logistic
    residual is used, an approximation). Per-draw shares are summarised with their intervals.

    Returns
    -------
    DataFrame
        ``component, sd, variance, share, share_ci_low, share_ci_high, share_latent,
        share_latent_ci_low, share_latent_ci_high, ci_prob`` (``sd`` and ``variance`` are
        posterior means), one row per component plus ``residual (latent logistic)``.
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    p = posterior_parameters(fit)
    comps = {
        "participant": "sigma_participant",
        "topic": "sigma_topic",
        "conversation": "sigma_conversation",
        "predictor x topic": "sigma_predictor_topic",
        "predictor x participant": "sigma_predictor_participant",
        "predictor x conversation": "sigma_predictor_conversation",
        "item": "sigma_item",
    }
    names = [c for c, v in comps.items() if v in p]
    var = np.stack([p[comps[c]] ** 2 for c in names], axis=1)  # (S, C)
    total = var.sum(axis=1, keepdims=True)
    share = var / total
    latent = np.concatenate([var, np.full((var.shape[0], 1), LOGISTIC_VARIANCE)], axis=1)
    share_latent = latent / latent.sum(axis=1, keepdims=True)
    rows = []
    for j, c in enumerate(names + ["residual (latent logistic)"]):
        is_res = j == len(names)
        v = latent[:, j]
        row = {
            "component": c,
            "sd": float(np.sqrt(v).mean()),
            "variance": float(v.mean()),
            "share": np.nan if is_res else float(share[:, j].mean()),
            "share_ci_low": np.nan,
            "share_ci_high": np.nan,
        }
        if not is_res:
            row["share_ci_low"], row["share_ci_high"] = map(float, _interval(share[:, j], ci_prob))
        row["share_latent"] = float(share_latent[:, j].mean())
        lo, hi = _interval(share_latent[:, j], ci_prob)
        row["share_latent_ci_low"], row["share_latent_ci_high"] = float(lo), float(hi)
        rows.append(row)
    df = pd.DataFrame(rows)
    df["ci_prob"] = float(ci_prob)
    return _finish(df, fit, warning, "variance_decomposition")


# --------------------------------------------------------------------------------------------
# topics
# --------------------------------------------------------------------------------------------
def topic_effects(
    fit: FitResult,
    *,
    by_predictor: bool = False,
    ci_prob: float = 0.94,
    accept_failed_diagnostics: bool = False,
) -> pd.DataFrame:
    """Topic effects (logit, relative to the average topic) and P(topic is the hardest).

    ``p_hardest`` is the posterior probability that the topic has the lowest effect of all
    topics (the share of draws in which it is the minimum). With ``by_predictor=True`` the
    effect is ``topic_effect[t] + predictor_topic[m, t]`` per predictor (one block of rows per
    predictor, ``p_hardest`` within the predictor).

    Returns
    -------
    DataFrame
        ``[predictor,] topic, n_conversations, mean, sd, ci_low, ci_high, p_below_average,
        p_hardest, rank_mean, ci_prob``, sorted by ``mean`` within predictor.
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    m = fit.model
    if not m.has_topic_effect:
        raise NotApplicable("the model has a single topic: no topic effects")
    v = draws(fit, "topic_effect")  # (S, T)
    n_conv = np.bincount(m.topic_of_conversation, minlength=len(m.topics))
    blocks: list[tuple[str | None, np.ndarray]] = []
    if by_predictor:
        tp = draws(fit, "predictor_topic") if m.has_predictor_topic else 0.0
        for i, pred in enumerate(m.predictors):
            blocks.append((pred, v + (tp[:, i, :] if m.has_predictor_topic else 0.0)))
    else:
        blocks.append((None, v))
    frames = []
    for pred, a in blocks:
        st = _stats(a, ci_prob)
        hardest = np.bincount(np.argmin(a, axis=1), minlength=a.shape[1]) / a.shape[0]
        ranks = np.argsort(np.argsort(a, axis=1), axis=1) + 1  # 1 = hardest
        df = pd.DataFrame(
            {
                "topic": list(m.topics),
                "n_conversations": n_conv,
                "mean": st["mean"],
                "sd": st["sd"],
                "ci_low": st["ci_low"],
                "ci_high": st["ci_high"],
                "p_below_average": (a < 0).mean(axis=0),
                "p_hardest": hardest,
                "rank_mean": ranks.mean(axis=0),
            }
        )
        if pred is not None:
            df.insert(0, "predictor", pred)
        frames.append(df.sort_values("mean", kind="stable"))
    out = pd.concat(frames, ignore_index=True)
    out["ci_prob"] = float(ci_prob)
    return _finish(out, fit, warning, "topic_effects")


# --------------------------------------------------------------------------------------------
# linear-predictor helpers for probability-scale summaries
# --------------------------------------------------------------------------------------------
def _response_mean(fit: FitResult, eta: np.ndarray) -> np.ndarray:
    """Mean outcome on the data scale: accuracy (binomial) or expected score (ordered beta)."""
    if fit.model.family == "binomial":
        return _logistic(eta)
    k = draws(fit, "cutpoints")
    extra = eta.ndim - 1
    k1 = k[:, 0].reshape((-1,) + (1,) * extra)
    k2 = k[:, 1].reshape((-1,) + (1,) * extra)
    p_one = _logistic(eta - k2)
    p_mid = _logistic(eta - k1) - p_one
    return p_one + p_mid * _logistic(eta)


def _cell_eta(fit: FitResult, x: float) -> np.ndarray:
    """eta of each predictor x diagnosis group for an average participant, topic and
    conversation, reference task, at turn position ``x``: shape (S, M, G)."""
    m = fit.model
    p = posterior_parameters(fit)
    S = p["intercept"].shape[0]
    eta = np.broadcast_to(p["intercept"][:, None, None], (S, m.n_predictors, 1)).copy()
    if m.has_predictor_effect:
        eta = eta + p["predictor_effect"][:, :, None]
    if m.turn_slope:
        eta = eta + x * p["turn_slope"][:, :, None]
    G = len(m.diagnosis_groups)
    eta = np.broadcast_to(eta, (S, m.n_predictors, G)).copy()
    if m.has_diagnosis:
        eta[:, :, 1:] += p["diagnosis_effect"][:, None, :]
        if m.has_diagnosis_interaction:
            eta[:, :, 1:] += p["diagnosis_interaction"]
    return eta


def _group_weights(m: HierarchicalModel) -> np.ndarray:
    w = np.bincount(m.group_of_conversation, minlength=len(m.diagnosis_groups)).astype(float)
    return w / w.sum()


def _x_mid(m: HierarchicalModel) -> float:
    return 0.5 if m.turn_slope else 0.0


# --------------------------------------------------------------------------------------------
def predictor_effects(
    fit: FitResult, *, ci_prob: float = 0.94, accept_failed_diagnostics: bool = False
) -> pd.DataFrame:
    """Predictor effects adjusted for participant, topic, conversation and diagnosis group.

    ``effect`` is the predictor's logit effect relative to the average predictor (at the start
    of a conversation), averaged over diagnosis groups in proportion to their conversations:
    ``theta[m] + sum_g w_g gamma[m, g]``. With the ``predictor:diagnosis`` term the posterior's
    ``predictor_effect`` (``theta``) alone is the effect in the reference group only, so it is
    not what this column reports. ``adjusted_mean`` is the accuracy (binomial) or expected score
    (ordered beta) of the predictor for an average participant, topic and conversation, at
    mid-conversation (turn-level outcomes), averaged over diagnosis groups in the same
    proportions. ``p_best`` is the posterior probability that the predictor has the
    highest ``adjusted_mean``; ``rank_mean`` its mean rank (1 = best).

    Returns
    -------
    DataFrame
        ``predictor, effect, effect_sd, effect_ci_low, effect_ci_high, adjusted_mean,
        adjusted_ci_low, adjusted_ci_high, p_best, rank_mean, ci_prob``, sorted by
        ``adjusted_mean`` (best first).
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    m = fit.model
    S = draws(fit, "intercept").shape[0]
    w = _group_weights(m)
    theta = draws(fit, "predictor_effect") if m.has_predictor_effect else np.zeros((S, 1))
    if m.has_diagnosis_interaction:  # gamma[m, reference] = 0: average over the groups
        theta = theta + (draws(fit, "diagnosis_interaction") * w[None, None, 1:]).sum(axis=2)
    eta = _cell_eta(fit, _x_mid(m))
    mean = (_response_mean(fit, eta) * w[None, None, :]).sum(axis=2)  # (S, M)
    st_e = _stats(theta, ci_prob)
    lo, hi = _interval(mean, ci_prob)
    best = np.bincount(np.argmax(mean, axis=1), minlength=m.n_predictors) / S
    ranks = (np.argsort(np.argsort(-mean, axis=1), axis=1) + 1).mean(axis=0)
    df = pd.DataFrame(
        {
            "predictor": list(m.predictors),
            "effect": st_e["mean"],
            "effect_sd": st_e["sd"],
            "effect_ci_low": st_e["ci_low"],
            "effect_ci_high": st_e["ci_high"],
            "adjusted_mean": mean.mean(axis=0),
            "adjusted_ci_low": lo,
            "adjusted_ci_high": hi,
            "p_best": best,
            "rank_mean": ranks,
        }
    ).sort_values("adjusted_mean", ascending=False, kind="stable")
    df["ci_prob"] = float(ci_prob)
    return _finish(df, fit, warning, "predictor_effects")


def diagnosis_contrasts(
    fit: FitResult, *, ci_prob: float = 0.94, accept_failed_diagnostics: bool = False
) -> pd.DataFrame:
    """Diagnosis-group contrasts per predictor (each group against the reference group).

    ``contrast`` is ``diagnosis_effect[g] + diagnosis_interaction[m, g]`` on the logit scale;
    ``difference`` the same contrast on the data scale (accuracy or expected score) for an
    average participant, topic and conversation at mid-conversation; ``p_positive`` the
    posterior probability that the group does better than the reference. Rows with predictor
    ``"(average)"`` give ``diagnosis_effect[g]``, the contrast of the average predictor.

    Returns
    -------
    DataFrame
        ``predictor, group, reference, contrast, contrast_sd, ci_low, ci_high, p_positive,
        difference, difference_ci_low, difference_ci_high, ci_prob``.
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    m = fit.model
    if not m.has_diagnosis:
        raise NotApplicable("the data have a single diagnosis group: no contrasts")
    q = posterior_quantities(fit)
    contrast = q["diagnosis_contrast"][0].reshape(-1, m.n_predictors, len(m.diagnosis_groups) - 1)
    avg = q["diagnosis_effect"][0]  # (S, G-1)
    eta = _cell_eta(fit, _x_mid(m))
    mu = _response_mean(fit, eta)  # (S, M, G)
    diff = mu[:, :, 1:] - mu[:, :, :1]
    # average predictor: intercept (+ drift average) with diagnosis_effect only
    base = draws(fit, "intercept")
    if m.turn_slope:
        base = base + _x_mid(m) * draws(fit, "turn_slope").mean(axis=1)
    eta_avg = np.concatenate([base[:, None], base[:, None] + avg], axis=1)
    mu_avg = _response_mean(fit, eta_avg)
    diff_avg = mu_avg[:, 1:] - mu_avg[:, :1]
    rows = []
    targets = [(pred, contrast[:, i, :], diff[:, i, :]) for i, pred in enumerate(m.predictors)]
    targets.append(("(average)", avg, diff_avg))
    for pred, c, d in targets:
        st = _stats(c, ci_prob)
        dlo, dhi = _interval(d, ci_prob)
        for j, g in enumerate(m.diagnosis_groups[1:]):
            rows.append(
                {
                    "predictor": pred,
                    "group": g,
                    "reference": m.reference_group,
                    "contrast": float(st["mean"][j]),
                    "contrast_sd": float(st["sd"][j]),
                    "ci_low": float(st["ci_low"][j]),
                    "ci_high": float(st["ci_high"][j]),
                    "p_positive": float((c[:, j] > 0).mean()),
                    "difference": float(d[:, j].mean()),
                    "difference_ci_low": float(dlo[j]),
                    "difference_ci_high": float(dhi[j]),
                }
            )
    df = pd.DataFrame(rows)
    df["ci_prob"] = float(ci_prob)
    return _finish(df, fit, warning, "diagnosis_contrasts")


def turn_drift(
    fit: FitResult, *, ci_prob: float = 0.94, accept_failed_diagnostics: bool = False
) -> pd.DataFrame:
    """Turn-drift slopes: change of the logit from the first to the last turn, per predictor.

    ``slope`` is ``turn_slope[m]``; ``change`` the change of accuracy (or expected score) from
    the first to the last turn for an average participant, topic and conversation of the
    reference group; ``p_negative`` the posterior probability of a decline. The row
    ``"(average)"`` is the mean slope over predictors.

    Returns
    -------
    DataFrame
        ``predictor, slope, slope_sd, ci_low, ci_high, p_negative, change, change_ci_low,
        change_ci_high, ci_prob``.
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    m = fit.model
    if not m.turn_slope:
        why = (
            f"its structure has no 'turn' term ({m.spec})"
            if not m.spec.has("turn")
            else "conversation-level outcome"
        )
        raise NotApplicable(f"the model has no turn drift: {why}")
    beta = draws(fit, "turn_slope")
    start = _cell_eta(fit, 0.0)[:, :, 0]
    end = _cell_eta(fit, 1.0)[:, :, 0]
    change = _response_mean(fit, end) - _response_mean(fit, start)
    beta_all = np.concatenate([beta, beta.mean(axis=1, keepdims=True)], axis=1)
    change_all = np.concatenate([change, change.mean(axis=1, keepdims=True)], axis=1)
    st = _stats(beta_all, ci_prob)
    clo, chi = _interval(change_all, ci_prob)
    df = pd.DataFrame(
        {
            "predictor": list(m.predictors) + ["(average)"],
            "slope": st["mean"],
            "slope_sd": st["sd"],
            "ci_low": st["ci_low"],
            "ci_high": st["ci_high"],
            "p_negative": (beta_all < 0).mean(axis=0),
            "change": change_all.mean(axis=0),
            "change_ci_low": clo,
            "change_ci_high": chi,
        }
    )
    df["ci_prob"] = float(ci_prob)
    return _finish(df, fit, warning, "turn_drift")


# --------------------------------------------------------------------------------------------
# posterior predictive checks
# --------------------------------------------------------------------------------------------
def _binomial_stats(m: HierarchicalModel, succ: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """Test statistics of (S, M, R) success counts (S may be 1 for the data)."""
    n = m.trials.astype(float)
    out: dict[tuple[str, str], np.ndarray] = {}
    tot = n.sum()
    out[("accuracy", "all")] = succ.sum(axis=(1, 2)) / tot
    for i, pred in enumerate(m.predictors):
        out[("accuracy", pred)] = succ[:, i, :].sum(axis=1) / n[i].sum()
    bins = np.digitize(m.x, [1 / 3, 2 / 3])
    for b, name in enumerate(("turn position [0, 1/3)", "[1/3, 2/3)", "[2/3, 1]")):
        sel = bins == b
        if n[:, sel].sum() > 0:
            out[("accuracy", name)] = succ[:, :, sel].sum(axis=(1, 2)) / n[:, sel].sum()
    for g, grp in enumerate(m.diagnosis_groups):
        sel = m.group_of_conversation[m.conversation_of_row] == g
        if n[:, sel].sum() > 0:
            out[("accuracy", f"group {grp}")] = succ[:, :, sel].sum(axis=(1, 2)) / n[:, sel].sum()
    # spread of conversation-level accuracy (pooled over predictors): overdispersion check
    K = len(m.conversations)
    conv_n = np.bincount(m.conversation_of_row, weights=n.sum(axis=0), minlength=K)
    ok = conv_n > 0
    conv_s = np.stack(
        [np.bincount(m.conversation_of_row, weights=s.sum(axis=0), minlength=K) for s in succ]
    )
    out[("sd of conversation accuracy", "all")] = (conv_s[:, ok] / conv_n[ok]).std(axis=1)
    # spread of predictor x conversation-turn cell accuracy
    cell = np.where(n > 0, succ / np.maximum(n, 1), np.nan)
    out[("sd of cell accuracy", "all")] = np.nanstd(cell.reshape(cell.shape[0], -1), axis=1)
    _interaction_stats(m, succ, n[None], out, "accuracy")
    return out


def _interaction_stats(
    m: HierarchicalModel, num: np.ndarray, den: np.ndarray, out: dict, what: str
) -> None:
    """sd of the double-centred predictor x participant and predictor x conversation means
    (``num / den`` summed per group): how much models' differences vary across people and
    conversations. A model without those terms under-predicts them when they are in the data."""
    if m.n_predictors < 2:
        return
    k_row = m.conversation_of_row
    for name, index, n_groups in (
        ("participant", m.participant_of_conversation[k_row], len(m.participants)),
        ("conversation", k_row, len(m.conversations)),
    ):
        onehot = np.zeros((len(index), n_groups))
        onehot[np.arange(len(index)), index] = 1.0
        s = num @ onehot  # (S, M, groups)
        t = den @ onehot
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(t > 0, s / np.where(t > 0, t, 1.0), np.nan)
        dev = r - np.nanmean(r, axis=1, keepdims=True)
        dev = dev - np.nanmean(dev, axis=2, keepdims=True)
        if n_groups >= 2:
            out[(f"sd of predictor x {name} {what}", "all")] = np.nanstd(
                dev.reshape(dev.shape[0], -1), axis=1
            )


def _bounded_stats(m: HierarchicalModel, y: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    obs = m.observed
    out: dict[tuple[str, str], np.ndarray] = {}
    yy = np.where(obs[None], y, np.nan).reshape(y.shape[0], -1)
    out[("mean", "all")] = np.nanmean(yy, axis=1)
    out[("sd", "all")] = np.nanstd(yy, axis=1)
    out[("share of exact 0", "all")] = np.nanmean(np.where(np.isnan(yy), np.nan, yy == 0), axis=1)
    out[("share of exact 1", "all")] = np.nanmean(np.where(np.isnan(yy), np.nan, yy == 1), axis=1)
    for i, pred in enumerate(m.predictors):
        yi = np.where(obs[i][None], y[:, i, :], np.nan)
        out[("mean", pred)] = np.nanmean(yi, axis=1)
    _interaction_stats(m, np.where(obs[None], y, 0.0), obs[None].astype(float), out, "mean")
    return out


def posterior_predictive_check(
    fit: FitResult,
    *,
    n_draws: int = 200,
    rng: RNGLike = None,
    ci_prob: float = 0.94,
    accept_failed_diagnostics: bool = False,
) -> pd.DataFrame:
    """Posterior predictive checks: replicated data from ``n_draws`` posterior draws.

    Statistics. Binomial models: overall accuracy, accuracy per predictor, per third of the
    conversation (turn position), per diagnosis group, the sd of conversation-level accuracy and
    the sd of cell (predictor x turn) accuracy (overdispersion). Ordered-beta models: mean, sd,
    share of exact 0, share of exact 1, mean per predictor. Both: the sd of the double-centred
    predictor x participant and predictor x conversation accuracies (or means), which a model
    without those interaction terms under-predicts when the data have them.

    ``ppp`` is the posterior predictive p-value ``P(T(y_rep) >= T(y))`` (ties count one half);
    values near 0 or 1 flag misfit.

    Returns
    -------
    DataFrame
        ``statistic, group, observed, replicated_mean, replicated_sd, ci_low, ci_high, ppp,
        n_draws, ci_prob``.
    """
    warning = _check_fit(fit, ci_prob, accept_failed_diagnostics)
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer; got {n_draws!r}")
    gen = check_rng(rng)
    m = fit.model
    params = posterior_parameters(fit)
    S = params["intercept"].shape[0]
    idx = gen.choice(S, size=min(int(n_draws), S), replace=False)
    sub = {k: v[idx] for k, v in params.items()}
    rep = m.simulate_outcomes(sub, gen)
    if m.family == "binomial":
        obs_stats = _binomial_stats(m, m.successes[None].astype(float))
        rep_stats = _binomial_stats(m, rep.astype(float))
    else:
        obs_stats = _bounded_stats(m, m.values[None])
        rep_stats = _bounded_stats(m, rep)
    rows = []
    for key, o in obs_stats.items():
        r = rep_stats[key]
        o = float(o[0])
        lo, hi = _interval(r, ci_prob)
        rows.append(
            {
                "statistic": key[0],
                "group": key[1],
                "observed": o,
                "replicated_mean": float(r.mean()),
                "replicated_sd": float(r.std(ddof=1)) if r.size > 1 else float("nan"),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "ppp": float((r > o).mean() + 0.5 * (r == o).mean()),
            }
        )
    df = pd.DataFrame(rows)
    df["n_draws"] = len(idx)
    df["ci_prob"] = float(ci_prob)
    return _finish(df, fit, warning, "posterior_predictive_check")
