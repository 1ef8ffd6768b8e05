"""The hierarchical model of every outcome: one linear predictor, two likelihoods.

All four models (behaviour, emotion tracking, preference, holistic) share one linear predictor on
the logit scale. For predictor ``m``, conversation ``k`` (participant ``p(k)`` in diagnosis group
``g(k)``, topic ``t(k)``) and observation row ``r`` of ``k`` (a turn, a turn x binary task, a turn
x question, or the conversation itself)::

    eta[m, r] = C[k]                       conversation intercept
              + theta[m]                   predictor effect (sum to zero over predictors)
              + gamma[m, g(k)]             predictor x diagnosis          [predictor:diagnosis]
              + tp[m, t(k)]                predictor x topic              [predictor:topic]
              + b[m, p(k)]                 predictor x participant        [predictor:participant]
              + c[m, k]                    predictor x conversation       [predictor:conversation]
              + beta[m] * x[r]             turn drift                     [turn]
              + tau[task(r)]               binary-task offset (several tasks)
              + q[item(r)]                 item (question) intercept      [item]

    C[k] ~ Normal(P[p(k)] + v[t(k)], sigma_conversation)
    P[p] ~ Normal(intercept + delta[g(p)], sigma_participant)
    v ~ ZeroSumNormal(sigma_topic)

with the turn position ``x = (turn - 1) / (n_turns - 1)`` (0.5 for one-turn conversations). The
bracketed terms are optional (:class:`~.spec.ModelSpec`; all on by default). ``b[., p]`` and
``c[., k]`` sum to zero over predictors (their mean is the participant's or conversation's
intercept) and are *not* constrained over participants or conversations: ``theta[m]`` is the
predictor's effect in the population of participants (and conversations) of the reference
diagnosis group (``gamma[m, reference] = 0``; without the ``predictor:diagnosis`` term, of every
group), and a contrast ``theta[m] - theta[m']`` carries the uncertainty of which participants
happened to take part. The effect averaged over diagnosis groups, ``theta[m] + sum_g w_g
gamma[m, g]``, is what :func:`~.summaries.predictor_effects` reports.
Participant effects are ``u[p] = P[p] - intercept - delta[g(p)]``.

Priors (logit scale; weakly informative; the tests run a prior predictive check; every scale is
set by ``ModelSpec(priors=...)``, defaults in :data:`~.spec.PRIORS`; the family of each
random-effect scale's prior by ``ModelSpec(scale_priors=...)``, defaults in
:data:`~.spec.SCALE_FAMILIES`):

==================================  ==========================================================
``intercept``                       Normal(0, 1.5)
``predictor_effect`` (theta)        ZeroSumNormal(sigma=1.5) over predictors
``turn_slope`` (beta)               Normal(0, 1) per predictor (change from first to last turn)
``diagnosis_effect`` (delta)        Normal(0, 1) per non-reference group; 0 for the reference
``diagnosis_interaction``           sigma * ZeroSumNormal(1) over predictors, 0 for the reference
                                    group; sigma ~ HalfNormal(0.5)
``predictor_topic``                 sigma * ZeroSumNormal(1) over predictors and topics;
                                    sigma ~ HalfNormal(0.5)
``predictor_participant``           sigma * ZeroSumNormal(1) over predictors, per participant;
                                    sigma ~ HalfNormal(0.5)
``predictor_conversation``          the same per conversation; sigma ~ Gamma(2, 4) (mean 0.5;
                                    left out for one score per predictor x conversation)
``topic_effect`` (v)                ZeroSumNormal(sigma_topic); sigma_topic ~ Gamma(2, 2)
                                    (mean 1, mode 0.5, density 0 at 0: boundary-avoiding,
                                    see :mod:`~.spec`)
``item_effect`` (q)                 ZeroSumNormal(sigma_item); sigma_item ~ Gamma(2, 2)
``participant_intercept`` (P)       as above; sigma_participant ~ HalfNormal(1)
``conversation_intercept`` (C)      as above; sigma_conversation ~ HalfNormal(1)
``task_offset`` (tau)               Normal(0, 1) per non-reference task
``cutpoints`` (bounded only)        Normal((-1, 1), 2), ordered
``precision`` (bounded only)        Exponential(0.1) (mean 10)
``overdispersion`` (binary only)    HalfNormal(0.5); 0 is the binomial
==================================  ==========================================================

Why these random-effect terms. AttuneBench has 11 participants, and how much better one model is
than another differs between people (the participant ICC of paired differences that makes
conversation-level intervals too narrow, issue 16). Without ``b`` the model attributes all of the
data's information on a predictor contrast to its ~200 conversations and its posterior interval
is that of a conditional analysis of these 11 people; with ``b`` the interval widens by the
between-participant spread of the contrast divided by the number of participants. The recovery
study (:mod:`attunestats.design.recovery`, ``benchmarks/RESULTS.md``) shows both: the issue-6
structure covers predictor contrasts in far fewer than 90% of replicates when models' differences
vary across participants, the default structure does not (0.93 and 0.91 of 90% intervals at
interaction ICCs of 0.1 and 0.5, 90-100 replicates each). With the default structure and priors,
predictor contrasts, topic effects and turn slopes cover 0.87-0.93 in all seven scenarios; the
diagnosis effect covers 0.90-0.94, and over-covers (0.96) with heavy-tailed or outlying
participants (see there). On 100 releases written by a generator outside the package
(``benchmarks/study_recovery_independent.py``: heavy-tailed participants, predictor x
participant variation, within-cell heterogeneity that is not beta-binomial), the behaviour and
preference models cover 0.89-0.935 of 90% intervals in every family. Correlations of
``b`` across predictors are not modelled (an LKJ over 11 predictors from 11 participants is not
identified); the shared scale with a zero-sum constraint is the exchangeable special case.

Parameterisation. Interactions are non-centred. The participant, topic, conversation and item
intercepts and the predictor x participant / conversation deviations are each centred or
non-centred depending on how strongly the data pin them down (``parameterization="auto"``,
:func:`.data.auto_centring`). Participants are non-centred through an exact square root of their
prior covariance (below).

Integrating out the intercept and the diagnosis effects. ``intercept`` and ``delta`` enter the
model only through the participant intercepts' prior, so the sampler sees them integrated out:
``P ~ MvNormal(0, sigma_participant^2 I + B)``, ``B = Z Sigma Z'`` with ``Z`` the participant x
(intercept, group indicators) design and ``Sigma`` their prior variances. With the eigen
decomposition ``B = U diag(lambda) U'`` the covariance is ``U diag(sigma^2 + lambda) U'``, so ``P =
U (sqrt(sigma^2 + lambda) * z)`` with ``z ~ N(0, I)`` is an exact non-centred form whose
derivative in ``sigma`` is elementwise. After sampling, each draw gets an exact draw of
``(intercept, delta)`` from their conjugate normal conditional posterior given ``P`` and
``sigma_participant`` (:func:`draw_participant_means`).

Identifiability. The predictor effects, topic effects, item effects and the interactions sum to
zero (over predictors, topics, items, or both), so ``intercept`` is the accuracy (logit) of the
average predictor, at the start of a conversation (``x = 0``), for the reference diagnosis group,
the average topic and item and the reference task; ``delta[g] + gamma[m, g]`` is the diagnosis
contrast of predictor ``m``. The simulator's effects are draws, not centred; :mod:`.recovery`
centres the true values the same way before comparing.

Likelihoods
-----------
``binomial``: successes ~ Binomial(trials, logistic(eta)) per predictor x row (behaviour: correct
binary judgements; preference: correct comparisons among those with a decided winner; a
Bernoulli per comparison has the same likelihood kernel as the binomial count of its cell). With
the ``overdispersion`` term (in the default structure) the cell is beta-binomial instead:
``successes ~ BetaBinomial(trials, mu * phi, (1 - mu) * phi)``, ``mu = logistic(eta)``, ``phi = 1 /
overdispersion^2``, which lets the judgements of one cell (a predictor's answers about one turn)
share variation beyond the other terms; as the overdispersion goes to 0 it is the binomial.

``ordered_beta``: bounded scores ``y`` in [0, 1] with exact 0 and 1 (ordered beta regression,
Kubinec 2023): with cutpoints ``k1 < k2``, ``P(y = 0) = 1 - L(eta - k1)``, ``P(y = 1) = L(eta -
k2)``, and otherwise ``y ~ Beta(mu * phi, (1 - mu) * phi)`` with ``mu = L(eta)`` and probability
``L(eta - k1) - L(eta - k2)``. One linear predictor drives all three parts, so effects keep one
meaning (higher = better scores).

Two implementations of one density: the PyMC model (:mod:`.pymc_model`, sampled by PyMC's NUTS
with ``fit(sampler="pymc")``) and a numba kernel in the same coordinates (:mod:`.kernel`, sampled
by nutpie, the default), checked against each other in the tests.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from attunestats.constants import SIMULATED_LABEL
from attunestats.hierarchical.spec import PRIORS, ModelSpec

Family = Literal["binomial", "ordered_beta"]
#: Levels whose effects can be centred or not, in the order of ``HierarchicalModel.centring``.
LEVELS = (
    "participant",
    "topic",
    "conversation",
    "item",
    "predictor:participant",
    "predictor:conversation",
)
CUTPOINT_MEANS = (-1.0, 1.0)
__all__ = ["CUTPOINT_MEANS", "LEVELS", "PRIORS", "HierarchicalModel", "draw_participant_means"]


def _logistic(a: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * a))


@dataclass(frozen=True, eq=False, repr=False)
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
    predictors, conversations, participants, topics, diagnosis_groups, tasks, items : tuple
        Levels; ``diagnosis_groups[0]`` is the reference group, ``tasks[0]`` the reference task.
    participant_of_conversation, topic_of_conversation, group_of_conversation : ndarray
        Level index of each conversation.
    group_of_participant : ndarray
        Diagnosis-group index of each participant.
    conversation_of_row, task_of_row, turn_of_row, item_of_row : ndarray
        Per observation row (turn x task x item, or conversation).
    x : ndarray
        Turn position of each row (0 for conversation-level outcomes).
    successes, trials : ndarray, shape (n_predictors, n_rows)
        Binomial counts (``binomial`` family; ``trials == 0`` where there is no observation).
    values, observed : ndarray, shape (n_predictors, n_rows)
        Bounded scores in [0, 1] and their mask (``ordered_beta`` family).
    turn_slope : bool
        Whether the turn drift ``beta[m] * x`` is in the model.
    centring : tuple of bool
        Whether each level of :data:`LEVELS` is centred (see :attr:`parameterization`).
    spec : ModelSpec
        The structure asked for (terms, priors); the terms the data can carry are the
        ``has_*`` properties.
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
    centring: tuple[bool, ...] = (False,) * len(LEVELS)
    simulated: bool = False
    metric: str = ""
    scale: float = 1.0
    capability: str = ""
    items: tuple[str, ...] = ("all",)
    item_of_row: np.ndarray | None = None
    spec: ModelSpec = field(default_factory=ModelSpec)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.item_of_row is None:
            a = np.zeros(len(self.conversation_of_row), dtype=np.int64)
            a.flags.writeable = False
            object.__setattr__(self, "item_of_row", a)
        if len(self.centring) != len(LEVELS):
            raise ValueError(
                f"centring must have {len(LEVELS)} flags ({LEVELS}); got {self.centring}"
            )

    def __repr__(self) -> str:
        """One line: outcome, family, the levels' sizes, observations and structure (no arrays)."""
        sim = f", {SIMULATED_LABEL}" if self.simulated else ""
        return (
            f"HierarchicalModel({self.outcome!r}, family={self.family!r}, "
            f"predictors={self.n_predictors}, participants={len(self.participants)}, "
            f"conversations={len(self.conversations)}, topics={len(self.topics)}, "
            f"rows={self.n_rows}, observations={self.n_observations}, structure={str(self.spec)!r}{sim})"
        )

    # ---------------------------------------------------------------- structure
    @property
    def n_predictors(self) -> int:
        return len(self.predictors)

    @property
    def n_rows(self) -> int:
        return len(self.conversation_of_row)

    def levels_present(self) -> tuple[str, ...]:
        """The levels of :data:`LEVELS` this model has."""
        have = {
            "participant": True,
            "topic": self.has_topic_effect,
            "conversation": True,
            "item": self.has_item,
            "predictor:participant": self.has_predictor_participant,
            "predictor:conversation": self.has_predictor_conversation,
        }
        return tuple(lev for lev in LEVELS if have[lev])

    def is_centred(self, level: str) -> bool:
        return bool(self.centring[LEVELS.index(level)])

    @property
    def parameterization(self) -> str:
        """``"centred"``, ``"noncentred"`` or, when mixed, e.g. ``"participant=noncentred,
        topic=noncentred, conversation=centred"`` (levels the model has)."""
        present = self.levels_present()
        flags = [self.is_centred(lev) for lev in present]
        if all(flags):
            return "centred"
        if not any(flags):
            return "noncentred"
        return ", ".join(
            f"{lev}={'centred' if c else 'noncentred'}" for lev, c in zip(present, flags)
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
        return (
            self.has_diagnosis
            and self.has_predictor_effect
            and self.spec.has("predictor:diagnosis")
        )

    @property
    def has_predictor_topic(self) -> bool:
        return (
            self.has_topic_effect and self.has_predictor_effect and self.spec.has("predictor:topic")
        )

    @property
    def has_predictor_participant(self) -> bool:
        return (
            self.has_predictor_effect
            and len(self.participants) >= 2
            and self.spec.has("predictor:participant")
        )

    @property
    def has_predictor_conversation(self) -> bool:
        """The ``predictor:conversation`` term, unless the data cannot tell it from the residual.

        It is left out when every predictor x conversation has at most one observed cell and that
        cell's residual has a free scale (an ordered-beta score, e.g. a conversation-level
        holistic outcome, or a beta-binomial cell): each deviation would then have a single
        observation, its variance and the residual's (the precision, the overdispersion) trade
        off along a ridge, and the sampler's scale wanders along it. Measured on the paper-sized
        bundled release, holistic outcome, 4 chains x 2,000 draws: with the term max r_hat 1.05
        and bulk ESS 142 for ``sigma_predictor_conversation`` (1.047 / 126 with a gamma prior on
        it), without it 1.010 / 1,212, in half the time.
        """
        return (
            self.has_predictor_effect
            and self.spec.has("predictor:conversation")
            and not self._one_cell_per_predictor_conversation
        )

    @functools.cached_property
    def _one_cell_per_predictor_conversation(self) -> bool:
        """At most one observed cell per predictor x conversation, with a free residual scale."""
        if self.family == "binomial" and not self.has_overdispersion:
            return False  # binomial cells: the deviation is extra-binomial variation, identified
        cells = self.cells()
        k = np.asarray(self.conversation_of_row)[cells["r"]]
        n_k = len(self.conversations)
        counts = np.bincount(cells["m"] * n_k + k, minlength=self.n_predictors * n_k)
        return bool(counts.max(initial=0) <= 1)

    @property
    def has_item(self) -> bool:
        return len(self.items) >= 2 and self.spec.has("item")

    @property
    def has_overdispersion(self) -> bool:
        """Beta-binomial cells: binomial family with the ``overdispersion`` term, and some cell
        with two or more trials (with one trial per cell the term cannot be told apart from the
        binomial and is left out)."""
        return (
            self.family == "binomial"
            and self.spec.has("overdispersion")
            and self.trials is not None
            and bool(np.max(self.trials, initial=0) >= 2)
        )

    @property
    def has_tasks(self) -> bool:
        return len(self.tasks) >= 2

    @property
    def n_observations(self) -> int:
        """Observed cells (predictor x row with data)."""
        if self.family == "binomial":
            return int(np.count_nonzero(self.trials))
        return int(np.count_nonzero(self.observed))

    def prior(self, name: str) -> float:
        """Prior scale ``name`` of this model (:meth:`ModelSpec.prior`)."""
        return self.spec.prior(name)

    def structure_key(self) -> tuple[Any, ...]:
        """What a compiled PyMC model depends on (not the data values): the compile-cache key."""
        return (
            self.family,
            self.turn_slope,
            tuple(self.centring),
            str(self.spec),
            len(self.predictors),
            len(self.conversations),
            len(self.participants),
            len(self.topics),
            len(self.diagnosis_groups),
            len(self.tasks),
            len(self.items) if self.has_item else 1,
            # terms left out for reasons of the data values, not the sizes (one trial per cell,
            # one cell per predictor x conversation)
            self.has_overdispersion,
            self.has_predictor_conversation,
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
            "item": list(self.items),
        }

    def participant_covariance_root(self) -> tuple[np.ndarray, np.ndarray]:
        """``(U, lambda)``: eigen decomposition of ``B = Z Sigma Z'`` (module docstring)."""
        G = len(self.diagnosis_groups)
        Z = _mean_design(np.asarray(self.group_of_participant), G)
        B = (Z * _mean_prior_variances(G, self.spec)[None, :]) @ Z.T
        lam, U = np.linalg.eigh(B)
        return np.ascontiguousarray(U), np.clip(lam, 0.0, None)

    def cells(self) -> dict[str, np.ndarray]:
        """The observed cells as flat arrays (predictor, row, and the outcome per cell)."""
        mask = self.trials > 0 if self.family == "binomial" else self.observed
        m_idx, r_idx = np.nonzero(mask)
        order = np.lexsort((m_idx, r_idx))  # row-major: cells of a row next to each other
        m_idx, r_idx = m_idx[order], r_idx[order]
        out = {"m": m_idx.astype(np.int64), "r": r_idx.astype(np.int64)}
        if self.family == "binomial":
            out["successes"] = self.successes[m_idx, r_idx].astype(float)
            out["trials"] = self.trials[m_idx, r_idx].astype(float)
        else:
            out["value"] = self.values[m_idx, r_idx].astype(float)
        return out

    def data_arrays(self) -> dict[str, np.ndarray]:
        """Values of the ``pm.Data`` containers, by name (swapped into cached compiled models)."""
        U, lam = self.participant_covariance_root()
        cells = self.cells()
        r = cells["r"]
        out: dict[str, np.ndarray] = {
            "participant_of_conversation": self.participant_of_conversation,
            "topic_of_conversation": self.topic_of_conversation,
            "group_of_conversation": self.group_of_conversation,
            "participant_U": U,
            "participant_lambda": lam,
            "cell_conversation": self.conversation_of_row[r].astype(np.int64),
            "cell_predictor": cells["m"],
            "cell_x": self.x[r].astype(float),
            "cell_task": self.task_of_row[r].astype(np.int64),
            "cell_item": (self.item_of_row[r] if self.has_item else np.zeros_like(r)).astype(
                np.int64
            ),
        }
        if self.family == "binomial":
            out["cell_successes"] = cells["successes"]
            out["cell_trials"] = cells["trials"]
        else:
            out["cell_value"] = cells["value"]
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
                "item": np.asarray(self.items, dtype=object)[self.item_of_row[r_idx]],
                "x": self.x[r_idx],
            }
        )
        if self.family == "binomial":
            df["successes"] = self.successes[m_idx, r_idx]
            df["trials"] = self.trials[m_idx, r_idx]
        else:
            df["value"] = self.values[m_idx, r_idx]
        for col in ("predictor", "conversation_id", "task", "item"):
            df[col] = df[col].astype("str")
        return df

    # ---------------------------------------------------------------- PyMC model
    def build(self) -> Any:
        """The PyMC model (imports PyMC; :mod:`.pymc_model`)."""
        from attunestats.hierarchical.pymc_model import build_pymc

        return build_pymc(self)

    # ---------------------------------------------------------------- numpy mirror
    def linear_predictor(self, params: dict[str, np.ndarray]) -> np.ndarray:
        """``eta`` of shape ``(n_samples, n_predictors, n_rows)`` from parameter draws.

        ``params`` maps posterior variable names to arrays with a leading sample axis (as in
        the posterior group, chains and draws stacked): ``conversation_intercept``,
        ``predictor_effect``, ``diagnosis_interaction``, ``predictor_topic``,
        ``predictor_participant``, ``predictor_conversation``, ``turn_slope``, ``task_offset``,
        ``item_effect`` (absent terms are zero).
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
        if self.has_predictor_participant:
            A += np.asarray(params["predictor_participant"])[:, :, self.participant_of_conversation]
        if self.has_predictor_conversation:
            A += np.asarray(params["predictor_conversation"])
        eta = A[:, :, self.conversation_of_row]
        if self.turn_slope:
            eta += np.asarray(params["turn_slope"])[:, :, None] * self.x[None, None, :]
        if self.has_tasks:
            tau = np.concatenate([np.zeros((S, 1)), np.asarray(params["task_offset"])], axis=1)
            eta += tau[:, None, self.task_of_row]
        if self.has_item:
            eta += np.asarray(params["item_effect"])[:, None, self.item_of_row]
        return eta

    def simulate_outcomes(
        self, params: dict[str, np.ndarray], rng: np.random.Generator
    ) -> np.ndarray:
        """Replicated outcomes ``(n_samples, n_predictors, n_rows)`` given parameter draws.

        Binomial: successes for the observed trials. Ordered beta: scores in [0, 1] (cells
        without an observation are NaN).
        """
        eta = self.linear_predictor(params)
        if self.has_overdispersion:
            phi = 1.0 / np.asarray(params["overdispersion"], dtype=float)[:, None, None] ** 2
            mu = np.clip(_logistic(eta), 1e-12, 1 - 1e-12)
            return rng.binomial(self.trials[None, :, :], rng.beta(mu * phi, (1.0 - mu) * phi))
        if self.family == "binomial":
            return rng.binomial(self.trials[None, :, :], _logistic(eta))
        k = np.asarray(params["cutpoints"], dtype=float)
        phi = np.asarray(params["precision"], dtype=float)[:, None, None]
        return _ordered_beta_draw(eta, k[:, 0, None, None], k[:, 1, None, None], phi, rng)

    def log_likelihood(self, params: dict[str, np.ndarray]) -> np.ndarray:
        """Pointwise log-likelihood ``(n_samples, n_cells)`` of the observed cells (order of
        :meth:`cells`), with the binomial coefficient: the input of PSIS-LOO."""
        from scipy.special import betaln, gammaln

        eta_all = self.linear_predictor(params)
        cells = self.cells()
        eta = eta_all[:, cells["m"], cells["r"]]
        if self.family == "binomial":
            s, n = cells["successes"], cells["trials"]
            coef = gammaln(n + 1) - gammaln(s + 1) - gammaln(n - s + 1)
            if self.has_overdispersion:
                phi = 1.0 / np.asarray(params["overdispersion"], dtype=float)[:, None] ** 2
                return coef + _betabinom_kernel(eta, phi, s, n)
            # s eta - n softplus(eta) written as -s softplus(-eta) - (n - s) softplus(eta): no
            # cancellation, so a cell far in the tail keeps its (tiny) dependence on eta and
            # PSIS-LOO never sees a log-likelihood that is constant over draws
            return coef - s * np.logaddexp(0.0, -eta) - (n - s) * np.logaddexp(0.0, eta)
        y = cells["value"]
        k = np.asarray(params["cutpoints"], dtype=float)
        k1, k2 = k[:, :1], k[:, 1:2]
        phi = np.asarray(params["precision"], dtype=float)[:, None]
        lp0 = -np.logaddexp(0.0, eta - k1)
        lp1 = -np.logaddexp(0.0, k2 - eta)
        la1 = -np.logaddexp(0.0, k1 - eta)
        la2 = -np.logaddexp(0.0, k2 - eta)
        with np.errstate(divide="ignore", invalid="ignore"):
            logd = la1 + np.log(-np.expm1(la2 - la1))
            mu = np.clip(_logistic(eta), 1e-12, 1 - 1e-12)
            yc = np.clip(y, 1e-12, 1 - 1e-12)[None, :]
            a, b = mu * phi, (1.0 - mu) * phi
            lpb = (a - 1) * np.log(yc) + (b - 1) * np.log1p(-yc) - betaln(a, b)
        return np.where(y[None] == 0, lp0, np.where(y[None] == 1, lp1, logd + lpb))


def _betabinom_kernel(eta: np.ndarray, phi: np.ndarray, s: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Beta-binomial log-likelihood without the binomial coefficient, mean ``logistic(eta)``,
    precision ``phi``: ``R(a, s) + R(b, n - s) - R(phi, n)`` with ``R`` the log rising factorial,
    ``a = phi logistic(eta)``, ``b = phi logistic(-eta)``.

    Written so that nothing cancels far in the tails: with ``small`` the smaller of ``a`` and
    ``b`` and ``k`` its count (``b`` and ``n - s`` when ``eta >= 0``, else ``a`` and ``s``),
    ``R(big, n - k) - R(phi, n - k) = sum_{j<n-k} log1p(-small / (phi + j))`` and ``R(phi, n) -
    R(phi, n - k) = R(phi + n - k, k)``. (``R(a, n) - R(phi, n)`` computed directly is exactly 0
    once ``a`` rounds to ``phi``.)
    """
    from scipy.special import expit  # accurate in both tails (tanh loses the smaller share)

    small = phi * expit(-np.abs(eta))
    k = np.where(eta >= 0, n - s, s)  # count of the smaller share
    rest = n - k
    tail = np.zeros(np.broadcast_shapes(small.shape, rest.shape))
    for j in range(int(np.max(rest, initial=0))):
        tail += np.where(j < rest, np.log1p(-small / (phi + j)), 0.0)
    return tail + _log_rising(small, k) - _log_rising(phi + rest, k)


def _log_rising(a: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``log(a (a + 1) ... (a + n - 1))`` = ``lgamma(a + n) - lgamma(a)`` for whole ``n``.

    Through the Pochhammer symbol (``scipy.special.poch``), which stays accurate where the
    difference of log-gamma functions cancels (``a`` large: an overdispersion near 0); the
    difference where the product overflows.
    """
    from scipy.special import gammaln, poch

    a, n = np.broadcast_arrays(a, n)
    with np.errstate(over="ignore", divide="ignore"):
        out = np.log(poch(a, n))
    bad = ~np.isfinite(out)
    if bad.any():
        out[bad] = gammaln(a[bad] + n[bad]) - gammaln(a[bad])
    return out


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


def _mean_prior_variances(n_groups: int, spec: ModelSpec | None = None) -> np.ndarray:
    """Prior variances of (intercept, diagnosis effects of the non-reference groups)."""
    spec = ModelSpec() if spec is None else spec
    return np.array(
        [spec.prior("intercept_sd") ** 2]
        + [spec.prior("diagnosis_effect_sd") ** 2] * (n_groups - 1)
    )


def _mean_design(group_of_participant: Any, n_groups: int) -> np.ndarray:
    """Z: participants x (intercept, indicator of each non-reference group)."""
    g = np.asarray(group_of_participant)
    cols = [np.ones(g.shape, dtype="float64")]
    cols += [(g == j).astype("float64") for j in range(1, n_groups)]
    return np.stack(cols, axis=1)


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
        Supplies the diagnosis group of each participant and the prior scales.
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
    prior_prec = 1.0 / _mean_prior_variances(G, model.spec)
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
