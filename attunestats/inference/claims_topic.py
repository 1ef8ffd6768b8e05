"""Claim (d): romantic relationships is the hardest topic for nearly every model (hierarchical).

Bayesian: the posterior of a hierarchical model gives the share of models whose hardest topic is
the topic; the verdict compares posterior probabilities with ``confidence_level`` (no p-value).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, seed_record
from attunestats.inference.claims import CLAIMS, ClaimResult, _models, _simulated, part_frame

Verdict = str

CLAIM_D_TOPIC = "romantic relationships"


def claim_d(
    scores: Any,
    *,
    topic: str = CLAIM_D_TOPIC,
    outcome: Literal["behaviour", "emotion"] = "behaviour",
    nearly_every: float = 0.8,
    fit: Any = None,
    parameterization: Any = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    accept_failed_diagnostics: bool = False,
    retries: int = 1,
    n_resamples: int | None = None,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimResult:
    """Claim (d): ``topic`` is the hardest topic for nearly every model (hierarchical posterior).

    A hierarchical model of the outcome (``"behaviour"``: binary OM accuracy,
    :func:`attunestats.hierarchical.behaviour_model_from_scores`; ``"emotion"``: turn-level
    emotion F1) with topic effects and predictor x topic interactions is fitted to the evaluated
    models. In each posterior draw, model ``m``'s topic effect is ``topic_effect[t] +
    predictor_topic[m, t]`` (adjusted for participant, diagnosis, conversation and turn); the draw
    counts the share of models whose lowest effect is ``topic``'s. The effect is the posterior
    mean of that share (interval: its equal-tailed ``confidence_level`` posterior interval);
    ``posterior_probability`` is P(share >= ``nearly_every``).

    Verdict: supported if P(share >= nearly_every) >= ``confidence_level``; contradicted if
    P(share < 0.5) >= ``confidence_level`` (the topic is the hardest for fewer than half the models);
    else inconclusive. "Nearly every" = at least 80% of the models by default (our reading; the
    paper gives no number). With about 4 conversations per topic, a topic has to be much harder
    than the rest to be shown hardest: inconclusive is a frequent, honest verdict. A fit that fails
    the diagnostics gate gives "inconclusive" unless ``accept_failed_diagnostics=True``; before
    that, a fit that fails is refitted ``retries`` times (default once, as ``reproduce`` does)
    with twice the tuning steps and draws (:func:`attunestats.hierarchical.fit`; the details'
    ``attempts`` column counts the fits).

    ``parameterization`` is passed to the model constructor (``"auto"``: see
    :mod:`attunestats.hierarchical.model`; when topics barely differ, ``sigma_topic`` near 0,
    the centred topic level mixes badly and ``{"topic": "noncentred"}`` passes the gate).
    ``fit`` reuses a :class:`~attunestats.hierarchical.FitResult` of such a model (then
    ``outcome``, ``parameterization``, ``draws``, ``tune``, ``chains`` and ``retries`` are not
    used; only its evaluated models count, human raters in it are left out of the share).
    ``n_resamples`` is accepted for the audit's uniform call and not used (no resampling).
    """
    from attunestats import hierarchical as H
    from attunestats.hierarchical.summaries import draws as posterior_draws

    del n_resamples
    if not 0 < nearly_every <= 1:
        raise ValueError(f"nearly_every must be in (0, 1]; got {nearly_every!r}")
    if fit is None:
        models = _models(scores)
        if outcome == "behaviour":
            m = H.behaviour_model_from_scores(
                scores, task="om", predictors=models, parameterization=parameterization
            )
        elif outcome == "emotion":
            m = H.emotion_model_from_scores(
                scores, metric="emotion_f1", predictors=models, parameterization=parameterization
            )
        else:
            raise ValueError(f"outcome must be 'behaviour' or 'emotion'; got {outcome!r}")
    else:
        m = fit.model
    # checked before any sampling
    if topic not in m.topics:
        raise ValueError(f"topic {topic!r} is not in the release; topics: {list(m.topics)[:8]} ...")
    if not m.has_topic_effect:
        raise ValueError("the model has no topic effects (a single topic)")
    if fit is None:
        fit = H.fit(m, draws=draws, tune=tune, chains=chains, rng=rng, progress_bar=False,
                    retries=retries)  # fmt: skip
    common = dict(statement=CLAIMS["d"], confidence_level=confidence_level,
                  simulated=_simulated(scores), seed=seed_record(rng),
                  estimand="posterior share of these models whose hardest topic is the topic")  # fmt: skip
    method = (f"hierarchical {m.outcome} model ({fit.sampler}, {fit.chains} x {fit.draws} draws): "
              "posterior share of models whose lowest topic effect is the topic's")  # fmt: skip
    rule = (f"supported if P(share of models >= {nearly_every:g}) >= {confidence_level:g}; "
            f"contradicted if P(share < 0.5) >= {confidence_level:g}; fits failing the diagnostics "
            "gate are inconclusive")  # fmt: skip
    if fit.earlier_attempts:  # the reader sees that the first fit failed the gate
        method += (f"; fit {1 + len(fit.earlier_attempts)} of this model (the earlier "
                   f"{'one' if len(fit.earlier_attempts) == 1 else 'ones'} failed the "
                   "diagnostics gate, each refit with twice the tuning and draws)")  # fmt: skip
    if not fit.passed and accept_failed_diagnostics:
        method += f"; DIAGNOSTICS FAILED, reported on request ({len(fit.failures)} failures)"
    if not fit.passed and not accept_failed_diagnostics:
        return ClaimResult(
            claim="d", verdict="inconclusive", rule=rule + f" ({fit.failure_message()})",
            method=method, parts=part_frame("d", []), details=pd.DataFrame([fit.overview()]),
            **common,
        )  # fmt: skip
    evaluated = set(_models(scores))
    keep = [i for i, p in enumerate(m.predictors) if p in evaluated]
    if not keep:
        raise ValueError("the fitted model contains none of the evaluated models")
    v = posterior_draws(fit, "topic_effect")  # (S, T)
    if m.has_predictor_topic:
        tp = posterior_draws(fit, "predictor_topic")[:, keep, :]
    else:
        tp = np.zeros((v.shape[0], len(keep), v.shape[1]))
    total = v[:, None, :] + tp  # (S, M, T)
    t = list(m.topics).index(topic)
    hardest = np.argmin(total, axis=2)  # (S, M)
    is_topic = hardest == t
    share = is_topic.mean(axis=1)
    alpha = 1 - confidence_level
    lo, hi = np.quantile(share, [alpha / 2, 1 - alpha / 2])
    p_nearly = float((share >= nearly_every - 1e-12).mean())
    p_below_half = float((share < 0.5).mean())
    if p_nearly >= confidence_level:
        verdict: Verdict = "supported"
    elif p_below_half >= confidence_level:
        verdict = "contradicted"
    else:
        verdict = "inconclusive"
    n_t = total.shape[2]
    mode_topic = [m.topics[int(np.bincount(hardest[:, i], minlength=n_t).argmax())]
                  for i in range(len(keep))]  # fmt: skip
    eff = total[:, :, t]
    details = pd.DataFrame(
        {
            "predictor": [m.predictors[i] for i in keep], "topic": topic,
            "p_hardest": is_topic.mean(axis=0), "topic_effect": eff.mean(axis=0),
            "ci_low": np.quantile(eff, alpha / 2, axis=0), "ci_high": np.quantile(eff, 1 - alpha / 2, axis=0),
            "most_probable_hardest_topic": mode_topic,
            "p_share_at_least_nearly_every": p_nearly, "p_share_below_half": p_below_half,
            "fit_passed": fit.passed,
        }
    )  # fmt: skip
    row = {
        "part": f"share of models whose hardest topic is {topic!r}",
        "quantity": f"posterior share ({m.outcome}); per model in details", "claimed":
        f">= {nearly_every:g}", "test": "posterior", "estimate": float(share.mean()),
        "ci_low": float(lo), "ci_high": float(hi), "interval_level": confidence_level,
        "pvalue": np.nan, "pvalue_unadjusted": np.nan,
        "family": "posterior probability (no p-value)", "n_units": len(keep), "unit": "models",
    }  # fmt: skip
    parts = part_frame("d", [row])
    parts["shown"] = verdict == "supported"
    parts["opposite_shown"] = verdict == "contradicted"
    return ClaimResult(
        claim="d", verdict=verdict, rule=rule, method=method, parts=parts, details=details,
        posterior_probability=p_nearly, **common,
    )  # fmt: skip
