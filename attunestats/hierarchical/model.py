"""The hierarchical model of every outcome: one linear predictor, two likelihoods.

All four models (behaviour, emotion tracking, preference, holistic) share one linear predictor on
the logit scale, the one the release simulator uses (``attunestats.release.simulate``), so that
parameter recovery on simulated releases is a like-for-like check. For predictor ``m``,
conversation ``k`` (participant ``p(k)`` in diagnosis group ``g(k)``, topic ``t(k)``) and
observation row ``r`` of ``k`` (a turn, a turn x binary task, or the conversation itself)::

    eta[m, r] = C[k]                       conversation intercept
              + theta[m]                   predictor effect (sum to zero over predictors)
              + gamma[m, g(k)]             predictor x diagnosis interaction
              + tp[m, t(k)]                predictor x topic interaction
              + beta[m] * x[r]             turn drift (turn-level outcomes only)
              + tau[task(r)]               binary-task offset (behaviour with several tasks)

    C[k] ~ Normal(P[p(k)] + v[t(k)], sigma_conversation)
    P[p] ~ Normal(intercept + delta[g(p)], sigma_participant)
    v ~ ZeroSumNormal(sigma_topic)

with the turn position ``x = (turn - 1) / (n_turns - 1)`` (0.5 for one-turn conversations).
Participant effects are ``u[p] = P[p] - intercept - delta[g(p)]`` and conversation effects
``w[k] = C[k] - P[p(k)] - v[t(k)]``.

Priors (logit scale; weakly informative: they keep accuracies between about 5% and 95% a priori
and rule out effects larger than a few logits; the tests run a prior predictive check):

==============================  ==============================================================
``intercept``                   Normal(0, 1.5)
``predictor_effect`` (theta)    ZeroSumNormal(sigma=1.5) over predictors
``turn_slope`` (beta)           Normal(0, 1) per predictor (change from first to last turn)
``diagnosis_effect`` (delta)    Normal(0, 1) per non-reference group; 0 for the reference group
``diagnosis_interaction``       sigma_diagnosis_interaction * ZeroSumNormal(1) over predictors,
                                0 for the reference group; sigma ~ HalfNormal(0.5)
``predictor_topic``             sigma_predictor_topic * ZeroSumNormal(1) over predictors and
                                topics; sigma ~ HalfNormal(0.5)
``topic_effect`` (v)            ZeroSumNormal(sigma_topic); sigma_topic ~ HalfNormal(1)
``participant_intercept`` (P)   as above; sigma_participant ~ HalfNormal(1)
``conversation_intercept`` (C)  as above; sigma_conversation ~ HalfNormal(1)
``task_offset`` (tau)           Normal(0, 1) per non-reference task
``cutpoints`` (bounded only)    Normal((-1, 1), 2), ordered
``precision`` (bounded only)    Exponential(0.1) (mean 10)
==============================  ==============================================================

Parameterisation. The interactions (diagnosis and topic, weakly informed: one effect per
predictor x group or topic) are always non-centred. The participant, topic and conversation
intercepts are each centred or non-centred (``P = chol(Cov) z``, see below,
``v = sigma_topic * z``, ``C = P + v + sigma_conversation * z``) depending on how strongly the
data pin them down. The constructors' default ``parameterization="auto"``
(``data.auto_centring``) centres

- the conversation intercepts when the median conversation carries at least 300 effective binary
  observations (an ordered-beta score counts as 4),
- the topic intercepts when, in addition, the median topic has at least 8 conversations and
  1,000 effective observations,

and keeps the participant intercepts non-centred. Measured with nutpie on the paper-sized
behaviour data (about 880 judgements per conversation, 18 conversations per participant, 4 per
topic): 2 chains x (500 + 500), minimum bulk ESS centred 230, all non-centred 16; 4 chains x
(1000 + 1000), participants centred 9 divergent transitions (at small ``sigma_participant``),
"auto" 0 divergences and minimum bulk ESS 686. On small panels (about 140 judgements per
conversation) the centred form diverged (65-110 divergences in 4 x 1000 draws) while the
non-centred one passed the gate at ``target_accept=0.9``. Pass ``"centred"``, ``"noncentred"``
or a mapping by level to override.

Integrating out the intercept and the diagnosis effects. ``intercept`` and ``delta`` enter the
model only through the participant intercepts' prior, so the sampler sees them integrated out:
``P ~ MvNormal(0, sigma_participant^2 I + Z Sigma Z')`` with ``Z`` the participant x (intercept,
group indicators) design and ``Sigma`` their prior variances. After sampling, each posterior draw
gets an exact draw of ``(intercept, delta)`` from its conjugate normal conditional posterior
given ``P`` and ``sigma_participant`` (:func:`draw_participant_means`). This is the same model.
It removes the ridge between the non-centred participant intercepts and ``intercept`` /
``delta`` (with them sampled, the minimum bulk ESS on the paper-sized behaviour data was 87 per
1,000 draws, ``intercept`` and ``diagnosis_effect`` the worst), and the funnel between
``sigma_participant`` and the group means of the centred form.

Identifiability. The predictor effects, the topic effects and the interactions sum to zero
(over predictors, topics, or both), so ``intercept`` is the accuracy (logit) of the average
predictor, at the start of a conversation (``x = 0``), for the reference diagnosis group and the
average of the observed topics; ``delta[g] + gamma[m, g]`` is the diagnosis contrast of
predictor ``m``. The simulator's effects are draws, not centred; :mod:`.recovery` centres the
true values the same way before comparing.

Likelihoods
-----------
``binomial``: successes ~ Binomial(trials, logistic(eta)) per predictor x row (behaviour: correct
binary judgements; preference: correct comparisons among those with a decided winner; a
Bernoulli per comparison has the same likelihood kernel as the binomial count of its cell).

``ordered_beta``: bounded scores ``y`` in [0, 1] with exact 0 and 1 (ordered beta regression,
Kubinec 2023): with cutpoints ``k1 < k2``, ``P(y = 0) = 1 - L(eta - k1)``, ``P(y = 1) = L(eta -
k2)``, and otherwise ``y ~ Beta(mu * phi, (1 - mu) * phi)`` with ``mu = L(eta)`` and probability
``L(eta - k1) - L(eta - k2)``. One linear predictor drives all three parts, so effects keep one
meaning (higher = better scores). Turn scores such as emotion F1 take a few discrete values
between 0 and 1; the beta part smooths them, which the posterior predictive checks show is
adequate for means and for the shares of exact 0 and 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from attunestats.constants import SIMULATED_LABEL

Family = Literal["binomial", "ordered_beta"]
#: Levels whose intercepts can be centred or not, in the order of ``HierarchicalModel.centring``.
LEVELS = ("participant", "topic", "conversation")

#: Prior scales documented in the module docstring (one place; the tests read them).
PRIORS: dict[str, float] = {
    "intercept_sd": 1.5,
    "predictor_effect_sd": 1.5,
    "turn_slope_sd": 1.0,
    "diagnosis_effect_sd": 1.0,
    "task_offset_sd": 1.0,
    "sigma_participant_scale": 1.0,
    "sigma_topic_scale": 1.0,
    "sigma_conversation_scale": 1.0,
    "sigma_diagnosis_interaction_scale": 0.5,
    "sigma_predictor_topic_scale": 0.5,
    "cutpoint_sd": 2.0,
    "precision_rate": 0.1,
}
CUTPOINT_MEANS = (-1.0, 1.0)


def _logistic(a: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * a))


@dataclass(frozen=True, eq=False)
class HierarchicalModel:
    """Data and structure of one hierarchical model, ready to fit with :func:`~.fit`.

    Build it with :func:`~attunestats.hierarchical.behaviour_model` and friends (or their
    ``*_from_scores`` forms), not directly. Arrays are read-only.

    Attributes
    ----------
    outcome : str
        What is modelled, in words (e.g. ``"binary OM accuracy (task om)"``).
    family : {"binomial", "ordered_beta"}
        Likelihood (module docstring).
    predictors, conversations, participants, topics, diagnosis_groups, tasks : tuple of str
        Levels; ``diagnosis_groups[0]`` is the reference group, ``tasks[0]`` the reference task.
    participant_of_conversation, topic_of_conversation, group_of_conversation : ndarray
        Level index of each conversation.
    group_of_participant : ndarray
        Diagnosis-group index of each participant.
    conversation_of_row, task_of_row, turn_of_row : ndarray
        Per observation row (turn x task, or conversation).
    x : ndarray
        Turn position of each row (0 for conversation-level outcomes).
    successes, trials : ndarray, shape (n_predictors, n_rows)
        Binomial counts (``binomial`` family; ``trials == 0`` where there is no observation).
    values, observed : ndarray, shape (n_predictors, n_rows)
        Bounded scores in [0, 1] and their mask (``ordered_beta`` family).
    turn_slope : bool
        Whether the turn drift ``beta[m] * x`` is in the model.
    centring : tuple of bool
        Whether the participant, topic and conversation levels are centred (see
        :attr:`parameterization`).
    simulated : bool
        True when the data come from a simulated release (outputs carry the simulated label).
    metric : str
        Source metric name; ``scale`` maps it to [0, 1] (holistic errors: ``1 - error / scale``).
    """

    outcome: str
    family: Family
    predictors: tuple[str, ...]
    conversations: tuple[str, ...]
    participants: tuple[str, ...]
    topics: tuple[str, ...]
    diagnosis_groups: tuple[str, ...]
    tasks: tuple[str, ...]
    participant_of_conversation: np.ndarray
    topic_of_conversation: np.ndarray
    group_of_conversation: np.ndarray
    group_of_participant: np.ndarray
    conversation_of_row: np.ndarray
    task_of_row: np.ndarray
    turn_of_row: np.ndarray
    x: np.ndarray
    successes: np.ndarray | None = None
    trials: np.ndarray | None = None
    values: np.ndarray | None = None
    observed: np.ndarray | None = None
    turn_slope: bool = True
    centring: tuple[bool, bool, bool] = (True, True, True)
    simulated: bool = False
    metric: str = ""
    scale: float = 1.0
    capability: str = ""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    # ---------------------------------------------------------------- structure
    @property
    def n_predictors(self) -> int:
        return len(self.predictors)

    @property
    def n_rows(self) -> int:
        return len(self.conversation_of_row)

    @property
    def parameterization(self) -> str:
        """``"centred"``, ``"noncentred"`` or, when mixed, e.g. ``"participant=centred,
        topic=noncentred, conversation=centred"``."""
        if all(self.centring):
            return "centred"
        if not any(self.centring):
            return "noncentred"
        return ", ".join(
            f"{lev}={'centred' if c else 'noncentred'}" for lev, c in zip(LEVELS, self.centring)
        )

    @property
    def reference_group(self) -> str:
        return self.diagnosis_groups[0]

    @property
    def label(self) -> str:
        """``constants.SIMULATED_LABEL`` for simulated data, else ``""``."""
        return SIMULATED_LABEL if self.simulated else ""

    @property
    def has_predictor_effect(self) -> bool:
        return len(self.predictors) >= 2

    @property
    def has_topic_effect(self) -> bool:
        return len(self.topics) >= 2

    @property
    def has_diagnosis(self) -> bool:
        return len(self.diagnosis_groups) >= 2

    @property
    def has_diagnosis_interaction(self) -> bool:
        return self.has_diagnosis and self.has_predictor_effect

    @property
    def has_predictor_topic(self) -> bool:
        return self.has_topic_effect and self.has_predictor_effect

    @property
    def has_tasks(self) -> bool:
        return len(self.tasks) >= 2

    @property
    def n_observations(self) -> int:
        """Observed cells (predictor x row with data)."""
        if self.family == "binomial":
            return int(np.count_nonzero(self.trials))
        return int(np.count_nonzero(self.observed))

    def structure_key(self) -> tuple[Any, ...]:
        """What a compiled model depends on (not the data values): the compile-cache key."""
        return (
            self.family,
            self.turn_slope,
            self.centring,
            len(self.predictors),
            len(self.conversations),
            len(self.participants),
            len(self.topics),
            len(self.diagnosis_groups),
            len(self.tasks),
        )

    def coords(self) -> dict[str, list[str]]:
        """PyMC / ArviZ coordinates of the parameters."""
        return {
            "predictor": list(self.predictors),
            "conversation": list(self.conversations),
            "participant": list(self.participants),
            "topic": list(self.topics),
            "diagnosis": list(self.diagnosis_groups[1:]),
            "task": list(self.tasks[1:]),
        }

    def data_arrays(self) -> dict[str, np.ndarray]:
        """Values of the ``pm.Data`` containers, by name (swapped into cached compiled models)."""
        out: dict[str, np.ndarray] = {
            "conversation_of_row": self.conversation_of_row,
            "task_of_row": self.task_of_row,
            "x": self.x,
            "participant_of_conversation": self.participant_of_conversation,
            "topic_of_conversation": self.topic_of_conversation,
            "group_of_conversation": self.group_of_conversation,
            "group_of_participant": self.group_of_participant,
        }
        if self.family == "binomial":
            from scipy.special import gammaln

            n = self.trials.astype(float)
            k = self.successes.astype(float)
            out["successes"] = self.successes
            out["trials"] = self.trials
            out["log_binom_coef"] = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
        else:
            # observed cells, flat index into the (predictor x row) grid, sorted by category
            # (exact 0, exact 1, interior) so that the likelihood evaluates each branch only on
            # its own cells
            flat = self.values.ravel()
            idx = np.flatnonzero(self.observed.ravel())
            cat = np.where(flat[idx] == 0, 0, np.where(flat[idx] == 1, 1, 2))
            order = np.argsort(cat, kind="stable")
            out["obs_index"] = idx[order].astype(np.int64)
            out["obs_values"] = flat[idx[order]].astype(float)
            out["n_zero"] = np.array(int((cat == 0).sum()), dtype=np.int64)
            out["n_one"] = np.array(int((cat == 1).sum()), dtype=np.int64)
        return out

    def to_frame(self) -> Any:
        """The modelled data as a tidy table (one row per observed predictor x row)."""
        import pandas as pd

        m_idx, r_idx = np.nonzero(self.trials > 0 if self.family == "binomial" else self.observed)
        k = self.conversation_of_row[r_idx]
        df = pd.DataFrame(
            {
                "predictor": np.asarray(self.predictors, dtype=object)[m_idx],
                "conversation_id": np.asarray(self.conversations, dtype=object)[k],
                "turn": self.turn_of_row[r_idx],
                "task": np.asarray(self.tasks, dtype=object)[self.task_of_row[r_idx]],
                "x": self.x[r_idx],
            }
        )
        if self.family == "binomial":
            df["successes"] = self.successes[m_idx, r_idx]
            df["trials"] = self.trials[m_idx, r_idx]
        else:
            df["value"] = self.values[m_idx, r_idx]
        for col in ("predictor", "conversation_id", "task"):
            df[col] = df[col].astype("str")
        return df

    # ---------------------------------------------------------------- PyMC model
    def build(self) -> Any:
        """The PyMC model (imports PyMC)."""
        return _build_pymc(self)

    # ---------------------------------------------------------------- numpy mirror
    def linear_predictor(self, params: dict[str, np.ndarray]) -> np.ndarray:
        """``eta`` of shape ``(n_samples, n_predictors, n_rows)`` from parameter draws.

        ``params`` maps posterior variable names to arrays with a leading sample axis (as in
        the posterior group, chains and draws stacked): ``conversation_intercept``,
        ``predictor_effect``, ``diagnosis_interaction``, ``predictor_topic``, ``turn_slope``,
        ``task_offset`` (absent terms are zero).
        """
        C = np.asarray(params["conversation_intercept"], dtype=float)
        S = C.shape[0]
        M = self.n_predictors
        A = np.broadcast_to(C[:, None, :], (S, M, C.shape[1])).copy()
        if self.has_predictor_effect:
            A += np.asarray(params["predictor_effect"])[:, :, None]
        if self.has_diagnosis_interaction:
            gi = np.asarray(params["diagnosis_interaction"])  # (S, M, G-1)
            g_full = np.concatenate([np.zeros((S, M, 1)), gi], axis=2)
            A += g_full[:, :, self.group_of_conversation]
        if self.has_predictor_topic:
            A += np.asarray(params["predictor_topic"])[:, :, self.topic_of_conversation]
        eta = A[:, :, self.conversation_of_row]
        if self.turn_slope:
            eta += np.asarray(params["turn_slope"])[:, :, None] * self.x[None, None, :]
        if self.has_tasks:
            tau = np.concatenate([np.zeros((S, 1)), np.asarray(params["task_offset"])], axis=1)
            eta += tau[:, None, self.task_of_row]
        return eta

    def simulate_outcomes(
        self, params: dict[str, np.ndarray], rng: np.random.Generator
    ) -> np.ndarray:
        """Replicated outcomes ``(n_samples, n_predictors, n_rows)`` given parameter draws.

        Binomial: successes for the observed trials. Ordered beta: scores in [0, 1] (cells
        without an observation are NaN).
        """
        eta = self.linear_predictor(params)
        if self.family == "binomial":
            return rng.binomial(self.trials[None, :, :], _logistic(eta))
        k = np.asarray(params["cutpoints"], dtype=float)
        phi = np.asarray(params["precision"], dtype=float)[:, None, None]
        return _ordered_beta_draw(eta, k[:, 0, None, None], k[:, 1, None, None], phi, rng)


def _ordered_beta_draw(
    eta: np.ndarray, k1: Any, k2: Any, phi: Any, rng: np.random.Generator
) -> np.ndarray:
    eta, k1, k2, phi = np.broadcast_arrays(eta, k1, k2, phi)
    p_pos = _logistic(eta - k1)  # P(y > 0)
    p_one = _logistic(eta - k2)  # P(y = 1)
    u = rng.random(eta.shape)
    mu = np.clip(_logistic(eta), 1e-12, 1 - 1e-12)
    mid = rng.beta(mu * phi, (1.0 - mu) * phi)
    mid = np.clip(mid, 1e-12, 1 - 1e-12)
    return np.where(u >= p_pos, 0.0, np.where(u < p_one, 1.0, mid))


# --------------------------------------------------------------------------------------------
# PyMC
# --------------------------------------------------------------------------------------------
def _binomial_logp(value: Any, n: Any, eta: Any, log_coef: Any) -> Any:
    import pytensor.tensor as pt

    # k * eta - n * log(1 + exp(eta)) = log[p^k (1-p)^(n-k)] with p = logistic(eta)
    return log_coef + value * eta - n * pt.softplus(eta)


def _binomial_random(
    n: Any, eta: Any, log_coef: Any, rng: np.random.Generator | None = None, size: Any = None
) -> np.ndarray:
    return rng.binomial(n, _logistic(np.asarray(eta)), size=size)


def _ordered_beta_logp(value: Any, eta: Any, k1: Any, k2: Any, phi: Any, n0: Any, n1: Any) -> Any:
    """Ordered-beta log-density of ``value`` sorted as ``n0`` zeros, ``n1`` ones, interior."""
    import pytensor.tensor as pt

    n0 = pt.as_tensor(n0).flatten()[0]  # CustomDist gives the scalar parameters a batch axis
    n1 = pt.as_tensor(n1).flatten()[0]
    e0, e1, em = eta[:n0], eta[n0 : n0 + n1], eta[n0 + n1 :]
    lp_zero = -pt.softplus(e0 - k1)  # log(1 - L(eta - k1))
    lp_one = -pt.softplus(k2 - e1)  # log L(eta - k2)
    a = em - k1
    log_la = -pt.softplus(-a)  # log L(eta - k1)
    log_lb = -pt.softplus(k2 - em)  # log L(eta - k2)
    lp_cat = log_la + pt.log1mexp(log_lb - log_la)  # log(L(a) - L(b)), a > b
    y = pt.clip(value[n0 + n1 :], 1e-12, 1.0 - 1e-12)
    mu = pt.sigmoid(em)
    al = mu * phi
    be = phi - al
    lp_beta = (
        (al - 1.0) * pt.log(y)
        + (be - 1.0) * pt.log1p(-y)
        - (pt.gammaln(al) + pt.gammaln(be) - pt.gammaln(phi))
    )
    return pt.concatenate([lp_zero, lp_one, lp_cat + lp_beta])


def _ordered_beta_random(
    eta: Any,
    k1: Any,
    k2: Any,
    phi: Any,
    n0: Any,
    n1: Any,
    rng: np.random.Generator | None = None,
    size: Any = None,
) -> np.ndarray:
    eta = np.asarray(eta, dtype=float)
    if size is not None:
        eta = np.broadcast_to(eta, size)
    return _ordered_beta_draw(eta, k1, k2, phi, rng)


def _mean_prior_variances(n_groups: int) -> np.ndarray:
    """Prior variances of (intercept, diagnosis effects of the non-reference groups)."""
    return np.array(
        [PRIORS["intercept_sd"] ** 2] + [PRIORS["diagnosis_effect_sd"] ** 2] * (n_groups - 1)
    )


def _mean_design(group_of_participant: Any, n_groups: int, lib: Any = np) -> Any:
    """Z: participants x (intercept, indicator of each non-reference group)."""
    g = group_of_participant
    cols = [lib.ones_like(g, dtype="float64")]
    eq = lib.eq if hasattr(lib, "eq") else lib.equal  # pytensor / numpy
    cols += [eq(g, j).astype("float64") for j in range(1, n_groups)]
    return lib.stack(cols, axis=1)


def draw_participant_means(
    model: HierarchicalModel,
    participant_intercept: np.ndarray,
    sigma_participant: np.ndarray,
    rng: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact draws of ``intercept`` and ``diagnosis_effect`` given the participant intercepts.

    Given ``P`` and ``sigma_participant`` (``s``) the coefficients ``b = (intercept, delta)``
    have the conjugate normal posterior ``N(V Z' P / s^2, V)``, ``V = (Z'Z / s^2 +
    Sigma^-1)^-1`` (nothing else in the model involves them), so one draw per posterior draw
    of ``(P, s)`` gives exact posterior draws of ``b``.

    Parameters
    ----------
    model : HierarchicalModel
        Supplies the diagnosis group of each participant.
    participant_intercept : ndarray, shape (S, n_participants)
        Draws of ``P``.
    sigma_participant : ndarray, shape (S,)
        Draws of ``sigma_participant`` (positive).
    rng : int, Generator or SeedSequence, optional
        Seed.

    Returns
    -------
    intercept : ndarray, shape (S,)
    diagnosis_effect : ndarray, shape (S, n_groups - 1)
    """
    from attunestats._rng import check_rng

    gen = check_rng(rng)
    G = len(model.diagnosis_groups)
    n_p = len(model.participants)
    P = np.asarray(participant_intercept, dtype=float)
    s = np.asarray(sigma_participant, dtype=float).reshape(-1)
    if P.ndim != 2 or P.shape[1] != n_p or P.shape[0] != s.size:
        raise ValueError(
            f"participant_intercept must have shape (S, {n_p}) with S = len(sigma_participant) "
            f"= {s.size}; got {P.shape}"
        )
    if not np.all(s > 0):
        raise ValueError(
            f"sigma_participant must be positive; got minimum {float(np.min(s, initial=np.inf))}"
        )
    Z = _mean_design(np.asarray(model.group_of_participant), G)
    prior_prec = 1.0 / _mean_prior_variances(G)
    s2 = s**2
    prec = (Z.T @ Z)[None, :, :] / s2[:, None, None] + np.diag(prior_prec)[None, :, :]
    # b = mean + L^-T e with prec = L L': covariance (L L')^-1 = V
    L = np.linalg.cholesky(prec)
    rhs = (P @ Z) / s2[:, None]
    y = np.linalg.solve(L, rhs[:, :, None])  # L y = Z'P / s^2
    e = gen.standard_normal(rhs.shape)[:, :, None]
    Lt = np.swapaxes(L, 1, 2)
    b = np.linalg.solve(Lt, y + e)[:, :, 0]  # L' b = y + e: mean V Z'P/s^2, covariance V
    return b[:, 0], b[:, 1:]


def _build_pymc(spec: HierarchicalModel) -> Any:
    import pymc as pm
    import pytensor.tensor as pt

    P = PRIORS
    M = spec.n_predictors
    data = spec.data_arrays()
    with pm.Model(coords=spec.coords()) as model:
        d = {name: pm.Data(name, value) for name, value in data.items()}
        # intercept and diagnosis effects are integrated out (module docstring): the participant
        # intercepts are jointly normal with covariance sigma_participant^2 I + Z Sigma Z'
        s_p = pm.HalfNormal("sigma_participant", P["sigma_participant_scale"])
        s_c = pm.HalfNormal("sigma_conversation", P["sigma_conversation_scale"])
        if spec.has_topic_effect:
            s_t = pm.HalfNormal("sigma_topic", P["sigma_topic_scale"])
        Z = _mean_design(d["group_of_participant"], len(spec.diagnosis_groups), pt)
        prior_var = pt.as_tensor(_mean_prior_variances(len(spec.diagnosis_groups)))
        n_p = len(spec.participants)
        cov = s_p**2 * pt.eye(n_p) + (Z * prior_var[None, :]) @ Z.T
        centre_p, centre_t, centre_c = spec.centring
        if centre_p:
            part = pm.MvNormal(
                "participant_intercept", mu=pt.zeros(n_p), cov=cov, dims="participant"
            )
        else:
            z_p = pm.Normal("z_participant", 0.0, 1.0, dims="participant")
            chol = pt.linalg.cholesky(cov)
            part = pm.Deterministic("participant_intercept", chol @ z_p, dims="participant")
        conv_mean = part[d["participant_of_conversation"]]
        if spec.has_topic_effect:
            if centre_t:
                v = pm.ZeroSumNormal("topic_effect", sigma=s_t, dims="topic")
            else:
                z_t = pm.ZeroSumNormal("z_topic", sigma=1.0, dims="topic")
                v = pm.Deterministic("topic_effect", s_t * z_t, dims="topic")
            conv_mean = conv_mean + v[d["topic_of_conversation"]]
        if centre_c:
            conv = pm.Normal("conversation_intercept", conv_mean, s_c, dims="conversation")
        else:
            z_c = pm.Normal("z_conversation", 0.0, 1.0, dims="conversation")
            conv = pm.Deterministic(
                "conversation_intercept", conv_mean + s_c * z_c, dims="conversation"
            )
        A = pt.broadcast_to(conv[None, :], (M, len(spec.conversations)))
        if spec.has_predictor_effect:
            theta = pm.ZeroSumNormal(
                "predictor_effect", sigma=P["predictor_effect_sd"], dims="predictor"
            )
            A = A + theta[:, None]
        if spec.has_diagnosis_interaction:
            s_g = pm.HalfNormal(
                "sigma_diagnosis_interaction", P["sigma_diagnosis_interaction_scale"]
            )
            z_g = pm.ZeroSumNormal(
                "z_diagnosis_interaction", sigma=1.0, dims=("diagnosis", "predictor")
            )
            gamma = pm.Deterministic(
                "diagnosis_interaction", s_g * z_g.T, dims=("predictor", "diagnosis")
            )
            g_full = pt.concatenate([pt.zeros((M, 1)), gamma], axis=1)
            A = A + g_full[:, d["group_of_conversation"]]
        if spec.has_predictor_topic:
            s_pt = pm.HalfNormal("sigma_predictor_topic", P["sigma_predictor_topic_scale"])
            z_pt = pm.ZeroSumNormal(
                "z_predictor_topic", sigma=1.0, dims=("predictor", "topic"), n_zerosum_axes=2
            )
            tp = pm.Deterministic("predictor_topic", s_pt * z_pt, dims=("predictor", "topic"))
            A = A + tp[:, d["topic_of_conversation"]]
        eta = A[:, d["conversation_of_row"]]
        if spec.turn_slope:
            beta = pm.Normal("turn_slope", 0.0, P["turn_slope_sd"], dims="predictor")
            eta = eta + beta[:, None] * d["x"][None, :]
        if spec.has_tasks:
            tau = pm.Normal("task_offset", 0.0, P["task_offset_sd"], dims="task")
            tau_full = pt.concatenate([pt.zeros(1), tau])
            eta = eta + tau_full[d["task_of_row"]][None, :]
        if spec.family == "binomial":
            pm.CustomDist(
                "y",
                d["trials"],
                eta,
                d["log_binom_coef"],
                logp=_binomial_logp,
                random=_binomial_random,
                dtype="int64",
                observed=d["successes"],
            )
        else:
            from pymc.distributions.transforms import ordered

            k = pm.Normal(
                "cutpoints",
                mu=np.array(CUTPOINT_MEANS),
                sigma=P["cutpoint_sd"],
                transform=ordered,
                initval=np.array(CUTPOINT_MEANS),
            )
            phi = pm.Exponential("precision", P["precision_rate"], initval=10.0)
            eta_obs = eta.ravel()[d["obs_index"]]
            pm.CustomDist(
                "y",
                eta_obs,
                k[0],
                k[1],
                phi,
                d["n_zero"],
                d["n_one"],
                logp=_ordered_beta_logp,
                random=_ordered_beta_random,
                observed=d["obs_values"],
            )
    return model
