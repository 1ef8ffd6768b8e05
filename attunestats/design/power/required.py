"""How many participants, and how many conversations each, for a target power.

The question a study designer asks is the inverse of :func:`~attunestats.design.power.
analytic_power`: *for 80% power, how many participants do I need, and how many conversations
per participant?* This module answers it for the tests the package uses by default.

Paired model differences (``design="paired"``)
    The default test of "model A beats model B" is on the population of participants: the
    participant jackknife of :func:`attunestats.infer_scores` with ``t`` on ``P - 1`` degrees of
    freedom. With ``m`` conversations per participant and equal participants it is exactly the
    one-sample ``t`` test on the ``P`` participant means of the per-conversation difference, whose
    variance is ``sd^2 (icc + (1 - icc) / m) = sd^2 deff / m`` with the design effect
    ``deff = 1 + (m - 1) icc``. Its power is the noncentral ``t`` with ``P - 1`` degrees of
    freedom and noncentrality ``effect sqrt(P) / (sd sqrt(icc + (1 - icc) / m))``.
Diagnosis contrasts (``design="between"``)
    Participants of one diagnosis group against another (a share ``allocation`` in the focal
    group): the two-sample ``t`` on participant means with ``P - 2`` degrees of freedom.
The independence test
    :func:`independence_sample_size`: the global permutation test of
    :mod:`attunestats.independence` acts on model means, so its sample size is the number of
    *models*; its power has no closed form and is simulated (labelled simulated).

Solving
    :func:`required_participants` finds the smallest ``P`` (power is increasing in ``P``: a
    doubling search, then bisection on integers); :func:`required_conversations` the smallest
    ``m`` for a fixed ``P``, which may not exist: as ``m`` grows the variance of a participant
    mean falls only to ``icc sd^2``, so the power is capped at the power of ``P`` participants
    observed without within-participant noise (reported as ``max_power``).
    :func:`minimum_detectable_effect` is the effect with the target power at a given size.
    :func:`sample_size` tabulates all three over grids and returns a :class:`SampleSizeResult`;
    :func:`attunestats.report.power.plot_sample_size` draws power against both sizes.

The inputs (``effect``, ``sd``, ``icc``) of a paired or diagnosis contrast can be estimated from a
scored release with :func:`~attunestats.design.power.fit_contrast` (a pilot study, or the
bundled simulated release) and passed as a :class:`~attunestats.design.power.ContrastModel`.

References: Kish (1965) for the design effect; Donner and Klar (2000), *Design and Analysis of
Cluster Randomization Trials in Health Research*, ch. 5 for the cluster-level ``t``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, check_rng, root_seed
from attunestats.constants import SIMULATED_LABEL
from attunestats.design.power._common import (
    ALTERNATIVES,
    Alternative,
    _check_choice,
    _check_prob,
)
from attunestats.design.power.analytic import analytic_mde, analytic_power
from attunestats.design.power.contrast import ContrastModel

__all__ = [
    "IndependenceSampleSize",
    "SampleSizeResult",
    "independence_sample_size",
    "minimum_detectable_effect",
    "required_conversations",
    "required_participants",
    "sample_size",
    "sample_size_power",
]

_SOLVABLE = ("paired", "between")
_MAX_PARTICIPANTS = 1_000_000
_MAX_CONVERSATIONS = 2**40


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _check_positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number; got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return v


def _options(
    design: str, icc: Any, cv: Any, allocation: Any, alpha: Any, alternative: str
) -> dict[str, Any]:
    _check_choice("design", design, _SOLVABLE)
    _check_choice("alternative", alternative, ALTERNATIVES)
    if alternative == "less":
        raise ValueError(
            "alternative='less' tests negative effects: give the effect's size and "
            "alternative='greater' (the sample size is the same)"
        )
    if isinstance(cv, bool) or not isinstance(cv, int | float) or not 0 <= cv < math.inf:
        raise ValueError(f"cv must be a finite number >= 0; got {cv!r}")
    return {
        "design": design,
        "icc": _check_prob("icc", icc, open_low=False),
        "cv": float(cv),
        "allocation": _check_prob("allocation", allocation),
        "alpha": _check_prob("alpha", alpha),
        "alternative": alternative,
    }


def sample_size_power(
    effect: float,
    *,
    sd: float,
    n_participants: int,
    conversations_per_participant: int,
    icc: float = 0.0,
    design: str = "paired",
    allocation: float = 0.5,
    cv: float = 0.0,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> float:
    """Power of the participant-level ``t`` test with ``P`` participants x ``m`` conversations.

    The noncentral ``t`` of the module docstring (``P - 1`` degrees of freedom for ``paired``,
    ``P - 2`` for ``between``); ``effect`` is on the metric's scale, ``sd`` the total standard
    deviation of one conversation-level value (of the paired difference for ``paired``).

    Examples
    --------
    The paper's size (11 participants x 18 conversations) for two models 0.03 apart whose
    per-conversation difference has sd 0.15 and participant ICC 0.1:

    >>> round(sample_size_power(0.03, sd=0.15, n_participants=11,
    ...                         conversations_per_participant=18, icc=0.1), 3)
    0.341
    """
    opts = _options(design, icc, cv, allocation, alpha, alternative)
    p = _check_int("n_participants", n_participants, 3 if design == "between" else 2)
    m = _check_int("conversations_per_participant", conversations_per_participant, 1)
    return float(
        analytic_power(
            float(effect),
            sd=_check_positive("sd", sd),
            n_conversations=p * m,
            n_participants=p,
            method="t",
            **opts,
        )  # fmt: skip
    )


def _power(effect: float, sd: float, p: int, m: int, opts: dict[str, Any]) -> float:
    return float(
        analytic_power(effect, sd=sd, n_conversations=p * m, n_participants=p, method="t", **opts)
    )


def required_participants(
    effect: float,
    *,
    sd: float,
    conversations_per_participant: int,
    icc: float = 0.0,
    power: float = 0.8,
    design: str = "paired",
    allocation: float = 0.5,
    cv: float = 0.0,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> int:
    """Smallest number of participants whose participant-level ``t`` test reaches ``power``.

    Parameters
    ----------
    effect : float
        The true difference to detect, on the metric's scale (e.g. 0.05 accuracy), > 0.
    sd : float
        Total standard deviation of one conversation-level value of the contrast (for paired
        model differences: of the per-conversation difference between the two models).
    conversations_per_participant : int
        ``m``; every participant contributes ``m`` conversations.
    icc : float
        Share of ``sd^2`` between participants (the participant intraclass correlation).
    power : float
        Target power, in (0, 1).
    design : {"paired", "between"}
        Paired model difference (``t`` on ``P - 1`` df) or a contrast between two groups of
        participants such as a diagnosis (``allocation`` of them in the focal group; ``P - 2``
        df).
    allocation, cv, alpha, alternative
        As in :func:`~attunestats.design.power.analytic_power` (``cv``: coefficient of variation
        of conversations per participant; 0 for equal participants).

    Returns
    -------
    int

    Examples
    --------
    Two models 0.03 apart on a metric whose per-conversation difference has sd 0.15,
    participant ICC 0.1, 18 conversations per participant:

    >>> required_participants(0.03, sd=0.15, conversations_per_participant=18, icc=0.1)
    32
    """
    opts = _options(design, icc, cv, allocation, alpha, alternative)
    d = _check_positive("effect", effect)
    s = _check_positive("sd", sd)
    m = _check_int("conversations_per_participant", conversations_per_participant, 1)
    target = _check_prob("power", power)
    low = 3 if design == "between" else 2
    if _power(d, s, low, m, opts) >= target:
        return low
    high = low
    while _power(d, s, high, m, opts) < target:
        low, high = high, high * 2
        if high > _MAX_PARTICIPANTS:
            raise ValueError(
                f"power {target:g} needs more than {_MAX_PARTICIPANTS:,} participants "
                f"(effect {d:g}, sd {s:g}, icc {opts['icc']:g})"
            )
    while high - low > 1:  # power(low) < target <= power(high)
        mid = (low + high) // 2
        if _power(d, s, mid, m, opts) >= target:
            high = mid
        else:
            low = mid
    return int(high)


def _max_power(d: float, s: float, p: int, opts: dict[str, Any]) -> float:
    """Power with infinitely many conversations per participant (participant means exact)."""
    icc = opts["icc"]
    if icc <= 0:
        return 1.0
    # m -> inf: deff / (P m) -> (1 + cv^2) icc / P, i.e. m = 1 with sd' = sd sqrt((1 + cv^2) icc)
    sd_limit = s * math.sqrt((1.0 + opts["cv"] ** 2) * icc)
    return _power(d, sd_limit, p, 1, {**opts, "icc": 0.0, "cv": 0.0})


def required_conversations(
    effect: float,
    *,
    sd: float,
    n_participants: int,
    icc: float = 0.0,
    power: float = 0.8,
    design: str = "paired",
    allocation: float = 0.5,
    cv: float = 0.0,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> int | None:
    """Smallest number of conversations per participant reaching ``power`` with ``P`` participants.

    Returns None when no number of conversations is enough: with a participant ICC the variance
    of a participant mean never falls below ``icc sd^2``, so the power is capped (see
    :func:`sample_size`'s ``max_power`` column); recruit more participants instead.
    Arguments as in :func:`required_participants`.

    Examples
    --------
    >>> required_conversations(0.03, sd=0.15, n_participants=40, icc=0.1)
    10
    >>> required_conversations(0.03, sd=0.15, n_participants=11, icc=0.1) is None
    True
    """
    opts = _options(design, icc, cv, allocation, alpha, alternative)
    d = _check_positive("effect", effect)
    s = _check_positive("sd", sd)
    p = _check_int("n_participants", n_participants, 3 if design == "between" else 2)
    target = _check_prob("power", power)
    if _max_power(d, s, p, opts) < target:
        return None
    low, high = 0, 1  # power(0) := 0
    while _power(d, s, p, high, opts) < target:
        low, high = high, high * 2
        if high > min(_MAX_CONVERSATIONS, 2**62 // p):
            # the cap is above the target, so some m reaches it; only when the gap is below
            # floating-point resolution does no representable m (then: unreachable)
            return None
    while high - low > 1:
        mid = (low + high) // 2
        if _power(d, s, p, mid, opts) >= target:
            high = mid
        else:
            low = mid
    return int(high)


def minimum_detectable_effect(
    *,
    sd: float,
    n_participants: int,
    conversations_per_participant: int,
    icc: float = 0.0,
    power: float = 0.8,
    design: str = "paired",
    allocation: float = 0.5,
    cv: float = 0.0,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> float:
    """Smallest effect the participant-level ``t`` test detects with ``power`` at this size.

    Examples
    --------
    >>> round(minimum_detectable_effect(sd=0.15, n_participants=11,
    ...                                 conversations_per_participant=18, icc=0.1), 4)
    0.0545
    """
    opts = _options(design, icc, cv, allocation, alpha, alternative)
    p = _check_int("n_participants", n_participants, 3 if design == "between" else 2)
    m = _check_int("conversations_per_participant", conversations_per_participant, 1)
    return float(
        analytic_mde(
            sd=_check_positive("sd", sd),
            n_conversations=p * m,
            n_participants=p,
            power=_check_prob("power", power),
            method="t",
            **opts,
        )  # fmt: skip
    )


@dataclass(frozen=True, repr=False)
class SampleSizeResult(ResultMixin):
    """Participants and conversations needed for a target power, and the MDE at each size.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per size: ``solve_for`` ("participants": the participants needed for a given
        ``conversations_per_participant``; "conversations": the conversations per participant
        needed for given ``n_participants``; "mde": the minimum detectable effect at the given
        size), ``n_participants``, ``conversations_per_participant``, ``n_conversations``,
        ``power`` (achieved at that size and ``effect``), ``mde`` (at that size and the target
        power), ``max_power`` (the cap with infinitely many conversations per participant),
        ``reachable``.
    effect, sd, icc, cv, allocation : float
        The contrast's assumed values (effect on the metric's scale).
    design : str
        ``"paired"`` or ``"between"``.
    target_power, alpha : float
    alternative : str
    label, metric : str
        What is compared (from a :class:`ContrastModel` when one was given).
    simulated : bool
        True when the inputs were fitted on a simulated release.
    """

    _title = "Required sample size (participant-level t test)"

    table: pd.DataFrame
    effect: float
    sd: float
    icc: float
    design: str
    target_power: float
    alpha: float
    alternative: str
    cv: float = 0.0
    allocation: float = 0.5
    label: str = ""
    metric: str = ""
    simulated: bool = False
    source: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The table (one row per size; unrounded)."""
        return self.table.copy()

    @property
    def estimand(self) -> str:
        """What is being detected, in words."""
        what = (
            "paired difference between two predictors"
            if self.design == "paired"
            else "difference between two groups of participants"
        )
        on = f" on {self.metric}" if self.metric else ""
        return f"the {what}{on} in the population of participants"

    @property
    def method(self) -> str:
        """The test whose power is computed."""
        if self.design == "paired":
            return (
                "t test on participant means (P - 1 df; the participant jackknife's test with "
                "equal participants); noncentral t power with design effect 1 + (m - 1) ICC"
            )
        return "two-sample t test on participant means (P - 2 df); noncentral t power"

    def _summary_meta(self) -> dict[str, str]:
        meta = super()._summary_meta()
        meta["Target power"] = f"{self.target_power:g} at alpha {self.alpha:g} ({self.alternative})"
        meta["Assumed"] = (
            f"effect {self.effect:.4g}, sd {self.sd:.4g}, ICC {self.icc:.3g}"
            + (f", cv of sizes {self.cv:.3g}" if self.cv else "")
            + (f", allocation {self.allocation:g}" if self.design == "between" else "")
        )
        if self.label:
            meta["Contrast"] = self.label
        return meta

    def _summary_notes(self) -> list[str]:
        notes = [
            "solve_for=participants: participants needed with that many conversations each; "
            "conversations: conversations per participant needed with that many participants "
            "(reachable=no: more conversations cannot reach the target, recruit participants); "
            "mde: smallest effect with the target power at that size.",
        ]
        if self.source:
            notes.append(
                "effect, sd and ICC were estimated from a release; the observed difference is "
                "not the difference worth detecting: give effect= for a design."
            )
        if self.icc > 0:
            notes.append(
                f"With ICC {self.icc:.3g}, power is capped by the number of participants "
                "(max_power: infinitely many conversations each)."
            )
        return notes

    def power_grid(
        self, n_participants: Sequence[int], conversations_per_participant: Sequence[int]
    ) -> pd.DataFrame:
        """Power at every combination of sizes (for :func:`~attunestats.report.power.plot_sample_size`)."""
        opts = _options(self.design, self.icc, self.cv, self.allocation, self.alpha,
                        self.alternative)  # fmt: skip
        rows = [
            {
                "n_participants": int(p),
                "conversations_per_participant": int(m),
                "n_conversations": int(p) * int(m),
                "power": _power(self.effect, self.sd, int(p), int(m), opts),
            }
            for p in n_participants
            for m in conversations_per_participant
        ]
        return pd.DataFrame(rows)


def _contrast_inputs(
    model: ContrastModel | None, effect: Any, sd: Any, icc: Any, design: Any, allocation: Any,
    cv: Any,
) -> dict[str, Any]:  # fmt: skip
    if model is None:
        if effect is None or sd is None:
            raise ValueError("give a ContrastModel, or effect= and sd=")
        return {"effect": effect, "sd": sd, "icc": 0.0 if icc is None else icc,
                "design": design or "paired", "allocation": 0.5 if allocation is None
                else allocation, "cv": 0.0 if cv is None else cv, "label": "", "metric": "",
                "simulated": False, "source": {}}  # fmt: skip
    if not isinstance(model, ContrastModel):
        raise TypeError(f"model must be a ContrastModel (fit_contrast); got {type(model).__name__}")
    if model.design not in _SOLVABLE:
        raise ValueError(f"sample sizes are solved for designs {_SOLVABLE}; got {model.design!r}")
    if design is not None and design != model.design:
        raise ValueError(
            f"design={design!r} differs from the model's design {model.design!r} (its effect, "
            "sd and ICC describe that design); fit or specify a model of the other design"
        )
    eff = abs(model.effect) if effect is None else effect
    return {
        "effect": eff, "sd": model.sd if sd is None else sd,
        "icc": model.icc if icc is None else icc, "design": model.design,
        "allocation": model.allocation if allocation is None else allocation,
        "cv": model.cluster_cv if cv is None else cv, "label": model.label,
        "metric": model.metric, "simulated": model.simulated, "source": dict(model.source),
    }  # fmt: skip


def sample_size(
    model: ContrastModel | None = None,
    *,
    power: float = 0.8,
    effect: float | None = None,
    sd: float | None = None,
    icc: float | None = None,
    design: str | None = None,
    allocation: float | None = None,
    cv: float | None = None,
    conversations_per_participant: Sequence[int] = (6, 12, 18, 24, 36),
    n_participants: Sequence[int] = (6, 11, 20, 40),
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> SampleSizeResult:
    """Participants needed per number of conversations each, conversations needed per number of
    participants, and the minimum detectable effect at every combination.

    Give the contrast either as a :class:`~attunestats.design.power.ContrastModel` (from
    :func:`~attunestats.design.power.fit_contrast` on a pilot or simulated release; ``effect``,
    ``sd``, ``icc``, ... override its values) or by ``effect``, ``sd`` and ``icc``.

    Examples
    --------
    >>> res = sample_size(effect=0.03, sd=0.15, icc=0.1, conversations_per_participant=[18],
    ...                   n_participants=[11, 40])
    >>> res.to_frame().query("solve_for == 'participants'")["n_participants"].tolist()
    [32]
    >>> res.to_frame().query("solve_for == 'conversations'")["conversations_per_participant"].tolist()
    [<NA>, 10]
    """
    c = _contrast_inputs(model, effect, sd, icc, design, allocation, cv)
    opts = _options(c["design"], c["icc"], c["cv"], c["allocation"], alpha, alternative)
    d = _check_positive("effect", c["effect"])
    s = _check_positive("sd", c["sd"])
    target = _check_prob("power", power)
    if target <= opts["alpha"]:
        raise ValueError(
            f"power must exceed alpha, the power at effect 0 (any effect reaches a lower target); "
            f"got power {target:g}, alpha {opts['alpha']:g}"
        )
    for name, sizes in (("n_participants", n_participants),
                        ("conversations_per_participant", conversations_per_participant)):  # fmt: skip
        if len(sizes) == 0:
            raise ValueError(f"{name} must list at least one size; got {sizes!r}")
    ms = [_check_int("conversations_per_participant", m, 1) for m in conversations_per_participant]
    low = 3 if opts["design"] == "between" else 2
    ps = [_check_int("n_participants", p, low) for p in n_participants]
    kw = {k: opts[k] for k in ("icc", "design", "allocation", "cv", "alpha", "alternative")}
    rows = []
    for m in ms:
        p = required_participants(d, sd=s, conversations_per_participant=m, power=target, **kw)
        rows.append(_row("participants", d, s, p, m, target, opts))
    for p in ps:
        m = required_conversations(d, sd=s, n_participants=p, power=target, **kw)
        rows.append(_row("conversations", d, s, p, m, target, opts))
    for p in ps:
        for m in ms:
            rows.append(_row("mde", d, s, p, m, target, opts))
    table = pd.DataFrame(rows)
    for col in ("conversations_per_participant", "n_conversations"):
        table[col] = table[col].astype("Int64")
    return SampleSizeResult(
        table=table, effect=d, sd=s, icc=opts["icc"], design=opts["design"],
        target_power=target, alpha=opts["alpha"], alternative=alternative, cv=opts["cv"],
        allocation=opts["allocation"], label=c["label"], metric=c["metric"],
        simulated=bool(c["simulated"]), source=c["source"],
    )  # fmt: skip


def _row(
    solve_for: str, d: float, s: float, p: int, m: int | None, target: float,
    opts: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    kw = {k: opts[k] for k in ("icc", "design", "allocation", "cv", "alpha", "alternative")}
    reachable = m is not None
    mm = m
    return {
        "solve_for": solve_for,
        "n_participants": int(p),
        "conversations_per_participant": mm if mm is not None else pd.NA,
        "n_conversations": int(p) * mm if mm is not None else pd.NA,
        "power": _power(d, s, p, mm, opts) if mm is not None else math.nan,
        "mde": (
            minimum_detectable_effect(
                sd=s, n_participants=p, conversations_per_participant=mm, power=target, **kw
            )  # fmt: skip
            if mm is not None
            else math.nan
        ),
        "max_power": _max_power(d, s, p, opts),
        "reachable": reachable,
    }


# --------------------------------------------------------------------------------------------
# the independence test: simulated
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class IndependenceSampleSize(ResultMixin):
    """Simulated power of the global independence test against the number of models.

    ``table``: one row per number of models with ``power`` (simulated), ``ci_low, ci_high``
    (Wilson 95% Monte Carlo interval), ``n_simulations``; ``needed`` is the smallest number of
    models in the grid whose simulated power reaches ``target_power`` (None if none does).
    """

    _title = "Models needed for the global independence test"

    table: pd.DataFrame
    needed: int | None
    correlation: float
    reliability: float
    n_metrics: int
    target_power: float
    alpha: float
    n_simulations: int
    seed: int
    simulated: bool = True

    def to_frame(self) -> pd.DataFrame:
        """The table, labelled simulated."""
        out = self.table.copy()
        out.attrs["label"] = SIMULATED_LABEL
        return out

    @property
    def estimand(self) -> str:
        """What the power is about."""
        return (
            f"probability that the global test rejects independence of {self.n_metrics} metrics "
            f"when every pair of true skills correlates {self.correlation:g}"
        )

    @property
    def method(self) -> str:
        """The test and the simulation."""
        return (
            "global permutation test (sum of squared Kendall tau) on simulated model means "
            f"with reliability {self.reliability:g}"
        )

    def _summary_meta(self) -> dict[str, str]:
        meta = super()._summary_meta()
        meta["Target power"] = f"{self.target_power:g} at alpha {self.alpha:g}"
        meta["Models needed"] = (
            "not reached in the grid" if self.needed is None else str(self.needed)
        )
        meta["Simulations"] = f"{self.n_simulations} per number of models; seed {self.seed}"
        return meta


def independence_sample_size(
    correlation: float,
    *,
    reliability: float = 0.95,
    n_models: Sequence[int] = (8, 11, 15, 20, 30, 50),
    n_metrics: int = 5,
    power: float = 0.8,
    alpha: float = 0.05,
    n_simulations: int = 200,
    n_permutations: int = 199,
    rng: RNGLike = 0,
) -> IndependenceSampleSize:
    """Smallest number of models for which the global independence test reaches ``power``.

    Simulated with :func:`attunestats.independence.independence_power` at each number of models
    (true skills with ``correlation`` between every pair of ``n_metrics`` metrics, model means
    with the given ``reliability``, the global permutation test). The reliability of the model
    means grows with the number of conversations
    (:func:`~attunestats.design.power.reliability_at`), so more conversations act through it.
    ``needed`` is the first grid value whose simulated power reaches the target (read it with
    the Monte Carlo interval beside it).
    """
    from attunestats.independence import independence_power

    target = _check_prob("power", power)
    alpha = _check_prob("alpha", alpha)
    r = float(correlation)
    if not -1 < r < 1:
        raise ValueError(f"correlation must lie in (-1, 1); got {correlation!r}")
    grid = sorted({_check_int("n_models", int(m) if isinstance(m, np.integer) else m, 4)
                   for m in n_models})  # fmt: skip
    seed = root_seed(rng)
    check_rng(seed)
    rows = []
    for k, m in enumerate(grid):
        res = independence_power(
            [r], n_models=m, n_metrics=n_metrics, reliability=reliability,
            n_simulations=n_simulations, n_permutations=n_permutations, alpha=alpha,
            rng=np.random.SeedSequence([seed, k]),
        )  # fmt: skip
        g = np.asarray(res.details[f"{r:g}"]["global_p"], dtype=float)
        hits = int(np.sum(g < alpha))
        low, high = _wilson(hits, g.size)
        rows.append({"n_models": m, "power": hits / g.size, "ci_low": low, "ci_high": high,
                     "n_simulations": int(g.size), "simulated": True})  # fmt: skip
    table = pd.DataFrame(rows)
    reached = table.loc[table["power"] >= target, "n_models"]
    needed = int(reached.iloc[0]) if len(reached) else None
    return IndependenceSampleSize(
        table=table, needed=needed, correlation=r, reliability=float(reliability),
        n_metrics=int(n_metrics), target_power=target, alpha=alpha,
        n_simulations=int(n_simulations), seed=seed,
    )  # fmt: skip


def _wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    from scipy import stats

    from attunestats.design._intervals import wilson_interval

    return wilson_interval(k / n, n, float(stats.norm.ppf(0.5 + level / 2)))
