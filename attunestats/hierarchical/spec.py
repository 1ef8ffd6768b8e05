"""The structure of a hierarchical model: which terms, which priors (:class:`ModelSpec`).

Every model has the *base* terms: an intercept, predictor effects (sum to zero), diagnosis-group
effects, and participant, topic and conversation intercepts (task offsets when several binary
tasks are modelled). On top of them a :class:`ModelSpec` switches the optional terms on or off:

======================  =========================================================================
``predictor:participant``  each participant's deviation from each predictor's effect
                           (``sigma_predictor_participant * ZeroSumNormal`` over predictors, per
                           participant): the models' differences vary across people. Predictor
                           effects are then *population* means over participants, and their
                           intervals include the spread of that variation.
``predictor:conversation`` each conversation's deviation per predictor (same form, per
                           conversation): the models' differences vary across conversations
                           beyond their topic and participant. Left out where each predictor
                           x conversation has one score (conversation-level outcomes): there
                           it cannot be told from the residual.
``predictor:topic``        predictor x topic interaction (zero sum over predictors and topics).
``predictor:diagnosis``    predictor x diagnosis-group interaction (zero sum over predictors; 0
                           for the reference group).
``item``                   question (item) intercepts, zero sum over items, for outcomes with
                           several judgements per turn that carry an item id (pairwise
                           preference: ``question_id``).
``turn``                   per-predictor turn drift ``beta[m] * x`` (turn-level outcomes only).
``overdispersion``         binary outcomes only: beta-binomial cells instead of binomial ones,
                           mean ``logistic(eta)`` and precision ``1 / overdispersion^2``
                           (``overdispersion ~ HalfNormal(0.5)``; 0 is the binomial). It absorbs
                           variation shared by the judgements of one cell (one predictor and
                           turn) that no other term explains.
======================  =========================================================================

The defaults (:data:`DEFAULT_TERMS`) include every term. Evidence (the recovery study of
:mod:`attunestats.design.recovery`, simulated releases whose truth is not drawn from these models;
benchmarks/RESULTS.md): the issue-6 structure (:data:`LEGACY_TERMS`, no predictor x participant
or predictor x conversation term) gives predictor-contrast intervals that are far too narrow when
models' differences vary across participants; without ``overdispersion``, turn-slope and
predictor-contrast intervals fall short when the judgements of one turn share variation (0.82
and 0.87 of 90% intervals over 20 paired replicates, against 0.89 and 0.91 with it), while in the
scenarios without that variation the term changes coverage and widths by less than the Monte
Carlo error (its scale shrinks towards 0). The terms cost sampling time (the beta-binomial
likelihood about doubles the cost of a gradient). Compare structures on your data with
:func:`attunestats.hierarchical.compare_structures` (PSIS-LOO).

Priors of the random-effect scales (``sigma_*``). Each scale has a prior scale ``s`` (the
``sigma_*_scale`` keys of :data:`PRIORS`) and one of two families (:data:`SCALE_FAMILIES`):

==============  ==========================================================================
``halfnormal``  HalfNormal(s): mean 0.80 s, largest density at 0.
``gamma``       Gamma(shape 2, rate 2 / s): mean s, mode s / 2, density 0 at 0 (a
                *boundary-avoiding* prior: Chung, Rabe-Hesketh, Dorie, Gelman and Liu 2013,
                Psychometrika 78(4), 685-709).
==============  ==========================================================================

``sigma_topic``, ``sigma_item`` and ``sigma_predictor_conversation`` have the gamma prior by
default, every other scale the half-normal one. Why ``sigma_topic``: with
12 topics, conversations that do not separate topic from participant, and a topic spread small
against the conversation spread, the likelihood cannot rule out ``sigma_topic = 0``; under the
half-normal the posterior of some replicates sits near 0, the topic effects are shrunk to nearly
nothing and their intervals miss the larger true effects. In the recovery study of
:mod:`attunestats.design.recovery` (simulated releases, 170 replicates over its seven scenarios,
each fitted with both priors) the gamma prior raised the coverage of 90% topic-effect intervals
by 0.019 (Monte Carlo standard error 0.005; from 0.84-0.89 to 0.86-0.91 per scenario) and
changed the other families by no more than their Monte Carlo error (benchmarks/RESULTS.md). With
the gamma prior on every scale (8 replicates only) coverage did not change and predictor-contrast
and diagnosis intervals were 3-4% wider: no evidence for changing the other scales, so the
default changes ``sigma_topic`` only. ``sigma_item`` has the gamma prior too, for a sampling
reason: with 16 preference questions carrying thousands of judgements each and no question effect
in the data, its posterior under the half-normal reaches down to 0, where the (centred) item
effects form a funnel's neck; a short fit of the bundled simulated release stuck there (298
divergent transitions in 300 draws), and over eight further seeds of the same short fit the
gamma prior gave no divergence (the half-normal 2) and a larger minimum bulk ESS in most
(benchmarks/RESULTS.md). Item effects are not among the quantities the package reports.
``sigma_predictor_conversation`` has it for a sampling reason too: the full build's fits of the
bundled simulated release (4 chains x 2,000 draws, its seed) failed the diagnostics gate on that
scale under the half-normal (behaviour max r_hat 1.016; emotion F1 1.019 and bulk ESS 320) and
passed under the gamma prior (1.005 and ESS 1,058; 1.009 and 570). The recovery table of
benchmarks/RESULTS.md with 90-100 replicates per scenario was measured with the half-normal on
this scale; the table of the committed default (190-210 replicates per scenario, 2026-12-07) has
27 of its 28 scenario x family cells inside the 0.86-0.94 band and the diagnosis effect with
outlying participants at 0.945 (Monte Carlo SE 0.012).

A structure can be written as a string: a base (``default``, ``legacy`` or ``base``) followed by
``+ term`` / ``- term``, then optionally ``;`` and, separated by commas, prior scales
``name=value`` (keys of :data:`PRIORS`) and scale families ``sigma_name=family``::

    ModelSpec.parse("default - predictor:conversation")
    ModelSpec.parse("legacy + predictor:participant; sigma_predictor_participant_scale=0.3")
    ModelSpec.parse("predictor:participant + turn")        # base terms + these two
    ModelSpec.parse("default; sigma_topic=halfnormal")    # the half-normal prior on sigma_topic

Examples
--------
>>> spec = ModelSpec.parse("default - item; sigma_participant_scale=0.5")
>>> spec.has("item"), spec.has("predictor:participant"), spec.prior("sigma_participant_scale")
(False, True, 0.5)
>>> spec.scale_family("sigma_topic"), spec.scale_family("sigma_item")
('gamma', 'gamma')
>>> spec.scale_family("sigma_participant")
'halfnormal'
>>> ModelSpec.parse("default; sigma_topic=halfnormal").scale_family("sigma_topic")
'halfnormal'
>>> str(ModelSpec.parse("legacy"))
'base + predictor:topic + predictor:diagnosis + turn'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

#: Optional terms, in the order they are written.
TERMS: tuple[str, ...] = (
    "predictor:participant",
    "predictor:conversation",
    "predictor:topic",
    "predictor:diagnosis",
    "item",
    "turn",
    "overdispersion",
)
#: The default structure: every optional term.
DEFAULT_TERMS: tuple[str, ...] = TERMS
#: The structure of the issue-6 models (one conversation intercept shared by the predictors).
LEGACY_TERMS: tuple[str, ...] = ("predictor:topic", "predictor:diagnosis", "turn")
_BASES = {"default": DEFAULT_TERMS, "legacy": LEGACY_TERMS, "base": ()}

#: Prior scales (logit scale; see :mod:`attunestats.hierarchical.model`). One place; the tests
#: read them. ``ModelSpec(priors=...)`` overrides any of them.
PRIORS: Mapping[str, float] = MappingProxyType(
    {
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
        "sigma_predictor_participant_scale": 0.5,
        "sigma_predictor_conversation_scale": 0.5,
        "sigma_item_scale": 1.0,
        "cutpoint_sd": 2.0,
        "precision_rate": 0.1,
        "overdispersion_scale": 0.5,
    }
)

#: The random-effect scales, each with the key of its prior scale in :data:`PRIORS`.
SCALE_PRIORS: Mapping[str, str] = MappingProxyType(
    {
        name: f"{name}_scale"
        for name in (
            "sigma_participant",
            "sigma_conversation",
            "sigma_topic",
            "sigma_diagnosis_interaction",
            "sigma_predictor_topic",
            "sigma_predictor_participant",
            "sigma_predictor_conversation",
            "sigma_item",
        )
    }
)
#: Families of the scale priors (module docstring).
FAMILIES: tuple[str, ...] = ("halfnormal", "gamma")
#: Default family of each random-effect scale; ``ModelSpec(scale_priors=...)`` overrides.
SCALE_FAMILIES: Mapping[str, str] = MappingProxyType(
    {
        name: (
            "gamma"
            if name in ("sigma_topic", "sigma_item", "sigma_predictor_conversation")
            else "halfnormal"
        )
        for name in SCALE_PRIORS
    }
)


@dataclass(frozen=True)
class ModelSpec:
    """Which optional terms a hierarchical model has, and its prior scales.

    Parameters
    ----------
    terms : sequence of str
        Optional terms (:data:`TERMS`); default :data:`DEFAULT_TERMS`. A term the data cannot
        carry (``item`` without item ids, ``turn`` for a conversation-level outcome,
        ``predictor:conversation`` with one score per predictor and conversation, where it
        is the residual, interactions with a single predictor, topic or group) is left out of
        that model.
    priors : mapping of str to float
        Prior scales overriding :data:`PRIORS` (positive numbers).
    scale_priors : mapping of str to str
        Families of the random-effect scale priors overriding :data:`SCALE_FAMILIES`
        (``{"sigma_topic": "halfnormal"}``; families :data:`FAMILIES`).
    """

    terms: tuple[str, ...] = DEFAULT_TERMS
    priors: Mapping[str, float] = field(default_factory=dict)
    scale_priors: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        terms = self.terms
        if isinstance(terms, str) or not isinstance(terms, tuple | list | frozenset | set):
            raise TypeError(f"ModelSpec.terms must be a sequence of term names; got {terms!r}")
        odd = [t for t in terms if not isinstance(t, str)]
        if odd:
            raise TypeError(f"ModelSpec.terms must be term names (strings); got {odd!r}")
        unknown = sorted(set(terms) - set(TERMS))
        if unknown:
            raise ValueError(f"ModelSpec.terms: unknown term(s) {unknown}; known: {list(TERMS)}")
        object.__setattr__(self, "terms", tuple(t for t in TERMS if t in set(terms)))
        if not isinstance(self.priors, Mapping):
            raise TypeError(f"ModelSpec.priors must be a mapping; got {self.priors!r}")
        bad = sorted(set(self.priors) - set(PRIORS))
        if bad:
            raise ValueError(f"ModelSpec.priors: unknown prior(s) {bad}; known: {sorted(PRIORS)}")
        clean = {}
        for key, val in self.priors.items():
            if (
                isinstance(val, bool)
                or not isinstance(val, numbers.Real)
                or not (math.isfinite(val) and val > 0)
            ):
                raise ValueError(
                    f"ModelSpec.priors[{key!r}] must be a positive number; got {val!r}"
                )
            if float(val) != PRIORS[key]:  # only real overrides, so equal specs compare equal
                clean[key] = float(val)
        object.__setattr__(self, "priors", dict(sorted(clean.items())))
        if not isinstance(self.scale_priors, Mapping):
            raise TypeError(f"ModelSpec.scale_priors must be a mapping; got {self.scale_priors!r}")
        fams = {}
        for key, val in self.scale_priors.items():
            if key not in SCALE_PRIORS:
                raise ValueError(
                    f"ModelSpec.scale_priors: unknown scale {key!r}; known: {list(SCALE_PRIORS)}"
                )
            if val not in FAMILIES:
                raise ValueError(
                    f"ModelSpec.scale_priors[{key!r}] must be one of {list(FAMILIES)}; got {val!r}"
                )
            if val != SCALE_FAMILIES[key]:  # only real overrides, so equal specs compare equal
                fams[key] = val
        object.__setattr__(self, "scale_priors", dict(sorted(fams.items())))

    def __hash__(self) -> int:
        return hash(str(self))

    # ---------------------------------------------------------------- constructors
    @classmethod
    def parse(cls, text: str) -> ModelSpec:
        """A :class:`ModelSpec` from its string form (module docstring).

        Every term after the base needs its ``+`` or ``-``; a term or prior named twice, an
        operator without a term and an unknown name are errors naming them.
        """
        if not isinstance(text, str):
            raise TypeError(f"structure must be a string or a ModelSpec; got {text!r}")
        struct, _, prior_text = text.partition(";")
        tokens = struct.replace("+", " + ").replace("-", " - ").split()
        # term names contain no + or -: the operators are tokens of their own. Every term but a
        # leading base needs its operator (a missing one is an error, not the previous sign)
        terms: set[str] = set()
        seen: set[str] = set()
        sign: str | None = None
        for i, tok in enumerate(tokens):
            if tok in ("+", "-"):
                if sign is not None:
                    raise ValueError(
                        f"structure {text!r}: two operators in a row ({sign!r} then {tok!r})"
                    )
                sign = tok
                continue
            if tok in _BASES:
                if i != 0:
                    raise ValueError(
                        f"structure {text!r}: the base {tok!r} must come first (bases: "
                        f"{', '.join(_BASES)})"
                    )
                terms = set(_BASES[tok])
                continue
            if tok not in TERMS:
                raise ValueError(
                    f"structure {text!r}: unknown term {tok!r}; a base ({', '.join(_BASES)}) "
                    f"then + or - terms among {list(TERMS)}"
                )
            if sign is None and i != 0:
                raise ValueError(f"structure {text!r}: + or - before {tok!r} is missing")
            if tok in seen:
                raise ValueError(f"structure {text!r}: term {tok!r} more than once")
            seen.add(tok)
            if sign == "-":
                terms.discard(tok)
            else:
                terms.add(tok)
            sign = None
        if sign is not None:
            raise ValueError(f"structure {text!r} ends with {sign!r}: a term must follow it")
        priors: dict[str, float] = {}
        families: dict[str, str] = {}
        for item in filter(None, (s.strip() for s in prior_text.split(","))):
            key, eq, val = item.partition("=")
            key, val = key.strip(), val.strip()
            if not eq:
                raise ValueError(f"structure {text!r}: prior {item!r} must be name=value")
            if key in priors or key in families:
                raise ValueError(f"structure {text!r}: prior {key!r} more than once")
            if key in SCALE_PRIORS:
                if val not in FAMILIES:
                    raise ValueError(
                        f"structure {text!r}: the family of {key} must be one of "
                        f"{list(FAMILIES)}; got {val!r}"
                    )
                families[key] = val
                continue
            if key not in PRIORS:
                raise ValueError(
                    f"structure {text!r}: unknown prior {key!r}; prior scales "
                    f"{sorted(PRIORS)} or scale families {list(SCALE_PRIORS)}"
                )
            try:
                priors[key] = float(val)
            except ValueError as err:
                raise ValueError(f"structure {text!r}: prior {item!r} is not a number") from err
        return cls(terms=tuple(terms), priors=priors, scale_priors=families)

    @classmethod
    def legacy(cls) -> ModelSpec:
        """The issue-6 structure (:data:`LEGACY_TERMS`)."""
        return cls(terms=LEGACY_TERMS)

    # ---------------------------------------------------------------- queries
    def has(self, term: str) -> bool:
        """Whether ``term`` (one of :data:`TERMS`) is switched on."""
        if term not in TERMS:
            raise ValueError(f"unknown term {term!r}; known: {list(TERMS)}")
        return term in self.terms

    def prior(self, name: str) -> float:
        """Prior scale ``name`` (the override, else :data:`PRIORS`)."""
        if name not in PRIORS:
            raise KeyError(f"unknown prior {name!r}; known: {sorted(PRIORS)}")
        return float(self.priors.get(name, PRIORS[name]))

    def scale_family(self, name: str) -> str:
        """Family of the prior of random-effect scale ``name`` (``"halfnormal"`` or ``"gamma"``)."""
        if name not in SCALE_PRIORS:
            raise KeyError(f"unknown scale {name!r}; known: {list(SCALE_PRIORS)}")
        return self.scale_priors.get(name, SCALE_FAMILIES[name])

    def all_priors(self) -> dict[str, float]:
        """Every prior scale with the overrides applied."""
        return {k: self.prior(k) for k in PRIORS}

    def __str__(self) -> str:
        parts = ["base", *self.terms]
        out = " + ".join(parts)
        # exact (shortest round-trip) values: the string is part of the compile-cache key
        extra = [f"{k}={_number(v)}" for k, v in self.priors.items()]
        extra += [f"{k}={v}" for k, v in self.scale_priors.items()]
        if extra:
            out += "; " + ", ".join(extra)
        return out

    def __repr__(self) -> str:
        return f"ModelSpec({str(self)!r})"


def _number(value: float) -> str:
    """``value`` as ``:g`` writes it when that is exact, else its shortest round-trip form."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def as_spec(structure: Any) -> ModelSpec:
    """``None`` (the default structure), a string (:meth:`ModelSpec.parse`) or a ModelSpec."""
    if structure is None:
        return ModelSpec()
    if isinstance(structure, ModelSpec):
        return structure
    if isinstance(structure, str):
        return ModelSpec.parse(structure)
    raise TypeError(f"structure must be None, a string or a ModelSpec; got {structure!r}")
