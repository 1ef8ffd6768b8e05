"""The clustered normal model of a conversation-level contrast and its fit to a scored release.

:class:`ContrastModel` holds ``effect, sd, icc`` and the cluster-size spread of a ``paired``,
``between`` or ``within`` contrast; :func:`fit_contrast_values` estimates them from
conversation-level values (moment/ANOVA estimators) and :func:`fit_contrast` from a scored
release (real or simulated).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin, _shorten
from attunestats.design.power._common import (
    DESIGNS,
    Alternative,
    Design,
    _check_choice,
    _check_prob,
)
from attunestats.design.power.analytic import analytic_power

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

__all__ = ["ContrastModel", "fit_contrast", "fit_contrast_values"]

#: what each parameter of :meth:`ContrastModel.to_frame` is, in words (shown by ``summary()``)
_PARAMETERS = {
    "effect": "the contrast, in the metric's units",
    "sd": "total SD of a conversation's value",
    "standardized_effect": "effect / sd",
    "icc": "variance share between participants",
    "cluster_cv": "CV of conversations per participant",
    "allocation": "share of {unit} in focal group",
}
_DESIGN_WORDS = {
    "paired": "paired difference of two predictors per conversation",
    "between": "difference between groups of participants",
    "within": "difference between groups of conversations within participants",
}


@dataclass(frozen=True, repr=False)
class ContrastModel(ResultMixin):
    """Clustered normal model of a conversation-level contrast (see the module docstring).

    A result (:mod:`attunestats._results`): ``to_frame()`` is one row per parameter (``effect,
    sd, standardized_effect, icc, cluster_cv`` and, unless ``paired``, ``allocation``),
    ``summary()`` the same with what each parameter means and where it was fitted, and the repr
    one line with the numbers.

    Attributes
    ----------
    design : {"paired", "between", "within"}
    effect : float
        True contrast (metric scale).
    sd : float
        Total sd of a conversation-level value.
    icc : float
        Share of the variance between participants.
    allocation : float
        Share of participants (between) or conversations (within) in the focal group; unused for
        paired.
    cluster_cv : float
        Coefficient of variation of conversations per participant (0: as equal as possible).
    metric, label : str
        What the contrast is (for tables).
    source : mapping
        Where the parameters come from (release name, counts, ``simulated``).
    simulated : bool
        True when fitted on a simulated release (results carry the simulated label either way:
        power is a simulation).

    Examples
    --------
    >>> from attunestats.design.power import ContrastModel
    >>> model = ContrastModel("paired", effect=0.03, sd=0.15, icc=0.1, metric="avg_emotion_f1")
    >>> model
    <ContrastModel: paired on avg_emotion_f1; effect=0.03, sd=0.15, icc=0.1, cluster_cv=0; specified>
    >>> model.to_frame()[["parameter", "value"]]
                 parameter  value
    0               effect   0.03
    1                   sd   0.15
    2  standardized_effect   0.20
    3                  icc   0.10
    4           cluster_cv   0.00
    >>> print(model.summary())  # the parameters in words  # doctest: +SKIP
    """

    design: Design
    effect: float
    sd: float
    icc: float
    allocation: float = 0.5
    cluster_cv: float = 0.0
    metric: str = ""
    label: str = ""
    source: Mapping[str, Any] = field(default_factory=dict)
    simulated: bool = False

    def __post_init__(self) -> None:
        _check_choice("design", self.design, DESIGNS)
        for name in ("effect", "sd", "cluster_cv"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
                raise TypeError(f"{name} must be a number; got {v!r}")
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be finite; got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.sd <= 0:
            raise ValueError(f"sd must be > 0; got {self.sd!r}")
        if self.cluster_cv < 0:
            raise ValueError(f"cluster_cv must be >= 0; got {self.cluster_cv!r}")
        object.__setattr__(self, "icc", _check_prob("icc", self.icc, open_low=False))
        object.__setattr__(self, "allocation", _check_prob("allocation", self.allocation))

    def analytic_power(
        self,
        n_conversations: Any,
        n_participants: Any = None,
        *,
        effect: Any = None,
        method: Literal["z", "t"] = "z",
        alpha: float = 0.05,
        alternative: Alternative = "two-sided",
    ) -> Any:
        """:func:`analytic_power` with this model's parameters."""
        return analytic_power(
            self.effect if effect is None else effect,
            sd=self.sd,
            n_conversations=n_conversations,
            n_participants=n_participants,
            icc=self.icc,
            cv=self.cluster_cv,
            design=self.design,
            allocation=self.allocation,
            alpha=alpha,
            alternative=alternative,
            method=method,
        )

    # -- result protocol ------------------------------------------------------------------------
    _title = "Clustered normal model of a contrast"

    @property
    def n_conversations(self) -> int | None:
        """Conversations the model was fitted on (None when specified)."""
        n = self.source.get("n_conversations")
        return int(n) if isinstance(n, int | np.integer) else None

    @property
    def n_participants(self) -> int | None:
        """Participants the model was fitted on (None when specified)."""
        n = self.source.get("n_participants")
        return int(n) if isinstance(n, int | np.integer) else None

    @property
    def estimand(self) -> str:
        """What the contrast is, in words."""
        what = self.label or f"{self.design} contrast"
        return f"{what} on {self.metric or 'values'}: {_DESIGN_WORDS[self.design]}"

    @property
    def method(self) -> str:
        """How the parameters were obtained, in words."""
        if self.n_conversations is None:
            return "specified (not fitted)"
        return (
            "moment estimates (one-way random-effects ANOVA of the residuals) from "
            f"{self.n_conversations} conversations of {self.n_participants} participants"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per parameter: ``design, metric, label, parameter, value, n_conversations,
        n_participants`` (-1 when specified) and ``simulated``."""
        names = [n for n in _PARAMETERS if n != "allocation" or self.design != "paired"]
        values = {n: getattr(self, n) for n in names if n != "standardized_effect"}
        values["standardized_effect"] = self.effect / self.sd
        return pd.DataFrame(
            {
                "design": self.design,
                "metric": self.metric,
                "label": self.label,
                "parameter": names,
                "value": [float(values[n]) for n in names],
                "n_conversations": -1 if self.n_conversations is None else self.n_conversations,
                "n_participants": -1 if self.n_participants is None else self.n_participants,
                "simulated": self.simulated,
            }
        )

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        meta = {"Estimand": self.estimand, "Method": self.method}
        if self.n_conversations is not None:
            meta["Units"] = (f"{self.n_participants} participants, {self.n_conversations} "
                             "conversations")  # fmt: skip
        release = self.source.get("release")
        if release:
            meta["Release"] = str(release)
        frame = self.to_frame()
        unit = "participants" if self.design == "between" else "conversations"
        meaning = [_PARAMETERS[n].format(unit=unit) for n in frame["parameter"]]
        table = frame[["parameter", "value"]].assign(meaning=meaning)
        notes = ["power and sample sizes from this model: power_curve(model, ...), "
                 "sample_size(model=model, ...), model.analytic_power(...)"]  # fmt: skip
        return self._title, meta, table, notes

    def __repr__(self) -> str:
        what = f"{self.design} {_shorten(self.label, 40)!r}" if self.label else self.design
        numbers = (f"effect={self.effect:.4g}, sd={self.sd:.4g}, icc={self.icc:.3g}, "
                   f"cluster_cv={self.cluster_cv:.3g}")  # fmt: skip
        if self.design != "paired":
            numbers += f", allocation={self.allocation:.3g}"
        fitted = (f"fitted on {self.n_conversations} conversations of {self.n_participants} "
                  "participants" if self.n_conversations is not None else "specified")  # fmt: skip
        flag = "; SIMULATED" if self.simulated else ""
        return (f"<ContrastModel: {what} on {self.metric or 'values'}; {numbers}; "
                f"{fitted}{flag}>")  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-able parameters."""
        return {
            "design": self.design,
            "effect": self.effect,
            "sd": self.sd,
            "icc": self.icc,
            "allocation": self.allocation,
            "cluster_cv": self.cluster_cv,
            "metric": self.metric,
            "label": self.label,
            "source": dict(self.source),
            "simulated": self.simulated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContrastModel:
        """Inverse of :meth:`to_dict`."""
        return cls(**dict(data))


def _anova_components(
    y: np.ndarray, codes: np.ndarray, n_groups_fixed: int = 1
) -> tuple[float, float]:
    """One-way random-effects ANOVA estimates ``(sigma_b^2, sigma_w^2)`` (unequal sizes).

    ``n_groups_fixed`` fixed means already removed from ``y`` reduce the between degrees of
    freedom (1 for the grand mean).
    """
    g = int(codes.max()) + 1
    m = np.bincount(codes, minlength=g).astype(float)
    sums = np.bincount(codes, weights=y, minlength=g)
    means = sums / m
    n = y.size
    grand = y.mean()
    ssb = float(np.sum(m * (means - grand) ** 2))
    ssw = float(np.sum((y - means[codes]) ** 2))
    if n - g <= 0:
        raise ValueError("every participant has one conversation: the ICC is not identifiable")
    msw = ssw / (n - g)
    df_b = g - n_groups_fixed
    if df_b <= 0:
        return 0.0, msw
    msb = ssb / df_b
    n0 = (n - float(np.sum(m**2)) / n) / (g - 1)  # = m for equal cluster sizes
    return max(0.0, (msb - msw) / n0), msw


def fit_contrast_values(
    values: Any,
    clusters: Any,
    *,
    design: Design = "paired",
    x: Any = None,
    metric: str = "",
    label: str = "",
    simulated: bool = False,
) -> ContrastModel:
    """Moment estimates of a :class:`ContrastModel` from conversation-level values.

    Parameters
    ----------
    values : array
        One value per conversation: the paired difference (``paired``) or the metric value
        (``between``, ``within``). NaN rows are dropped.
    clusters : array
        Participant of each conversation.
    design : {"paired", "between", "within"}
    x : array of bool, optional
        Focal group indicator per conversation (``between``: constant within participant;
        ``within``: e.g. the topic). Required unless ``paired``.

    Notes
    -----
    ``paired``: ``effect`` is the pooled mean; ``between``: the difference of pooled group means;
    ``within``: the slope of the participant-demeaned regression of ``values`` on ``x``. The
    residuals (values minus the fitted effect and grand mean; group means for ``between``) give
    the one-way ANOVA variance components, ``sd^2 = sigma_b^2 + sigma_w^2`` and
    ``icc = sigma_b^2 / sd^2`` (for balanced data these equal REML estimates when positive).
    """
    _check_choice("design", design, DESIGNS)
    y = np.asarray(values, dtype=float)
    c = np.asarray(clusters)
    if y.ndim != 1 or c.shape != y.shape:
        raise ValueError(f"values and clusters must be 1-d of one length; got {y.shape}, {c.shape}")
    keep = np.isfinite(y)
    xv = None
    if design != "paired":
        if x is None:
            raise ValueError(f"design={design!r} needs x (the focal-group indicator)")
        xv = np.asarray(x)
        if xv.shape != y.shape:
            raise ValueError(f"x must have the shape of values {y.shape}; got {xv.shape}")
        xv = xv.astype(bool)
    y, c = y[keep], c[keep]
    xv = None if xv is None else xv[keep]
    codes, uniques = pd.factorize(pd.Series(c), sort=True)
    g = len(uniques)
    if y.size < 3 or g < 2:
        raise ValueError(f"need at least 3 values in 2 participants; got {y.size} in {g}")
    sizes = np.bincount(codes, minlength=g).astype(float)
    cv = float(sizes.std(ddof=0) / sizes.mean())
    allocation = 0.5
    if design == "paired":
        effect = float(y.mean())
        resid = y - effect
        sb, sw = _anova_components(resid, codes, 1)
    elif design == "between":
        per_part = pd.Series(xv).groupby(codes).agg(["min", "max"])
        if (per_part["min"] != per_part["max"]).any():
            raise ValueError("design='between' needs x constant within each participant")
        part_x = per_part["min"].to_numpy()
        if part_x.all() or not part_x.any():
            raise ValueError("design='between' needs participants in both groups")
        allocation = float(part_x.mean())
        m1, m0 = y[xv].mean(), y[~xv].mean()
        effect = float(m1 - m0)
        resid = y - np.where(xv, m1, m0)
        sb, sw = _anova_components(resid, codes, 2)
    else:
        if xv.all() or not xv.any():
            raise ValueError("design='within' needs conversations in both groups")
        allocation = float(xv.mean())
        ym = y - (np.bincount(codes, weights=y) / sizes)[codes]
        xm = xv - (np.bincount(codes, weights=xv.astype(float)) / sizes)[codes]
        sxx = float(np.sum(xm**2))
        if sxx <= 0:
            raise ValueError("design='within' needs the focal group to vary within participants")
        effect = float(np.sum(xm * ym) / sxx)
        resid = y - effect * xv
        resid = resid - resid.mean()
        sb, sw = _anova_components(resid, codes, 1)
    total = sb + sw
    if total <= 0:
        raise ValueError("the values have no variance; power is undefined")
    return ContrastModel(
        design=design,
        effect=effect,
        sd=math.sqrt(total),
        icc=sb / total,
        allocation=allocation,
        cluster_cv=cv,
        metric=metric,
        label=label,
        source={"n_conversations": int(y.size), "n_participants": int(g)},
        simulated=simulated,
    )


def fit_contrast(
    scores: Scores,
    *,
    metric: str,
    predictors: Sequence[str] | None = None,
    diagnosis: str | None = None,
    reference: str = "none",
    topic: str | None = None,
    predictor: str | None = None,
    mode: str = "default",
) -> ContrastModel:
    """Fit a :class:`ContrastModel` to a scored release (real or simulated).

    Exactly one of:

    - ``predictors=(a, b)``: the paired difference ``a - b`` of ``metric`` (``paired``);
    - ``diagnosis=g``: participants of diagnosis group ``g`` against ``reference``
      (``between``);
    - ``topic=t``: conversations on topic ``t`` against the other topics (``within``).

    For the diagnosis and topic contrasts the value of a conversation is ``metric`` of
    ``predictor``, or its mean over the evaluated models when ``predictor`` is None. ``metric``
    must be a mean-aggregated conversation-level registry metric (pooled metrics are not means
    of conversation values: use :func:`release_power`).

    Examples
    --------
    >>> import attunestats as at
    >>> from attunestats.design.power import fit_contrast
    >>> scores = at.score(at.load_bundled_release())
    >>> model = fit_contrast(scores, metric="avg_emotion_f1",
    ...                      predictors=("sim-model-02", "sim-model-01"))
    >>> model  # doctest: +ELLIPSIS
    <ContrastModel: paired 'sim-model-02 - sim-model-01' on avg_emotion_f1; effect=0.04774, ...; SIMULATED>
    >>> model.to_frame()[["parameter", "value"]].round(3)
                 parameter  value
    0               effect  0.048
    1                   sd  0.242
    2  standardized_effect  0.197
    3                  icc  0.000
    4           cluster_cv  0.479
    >>> print(model.summary())  # estimand, method, units, the parameters  # doctest: +SKIP
    """
    from attunestats.metrics.registry import METRICS

    spec = METRICS.get(metric)
    if spec is None or spec.level != "conversation" or spec.aggregation != "mean":
        raise ValueError(
            f"metric must be a mean-aggregated conversation-level registry metric; got {metric!r}"
            " (pooled metrics: use release_power)"
        )
    chosen = [v is not None for v in (predictors, diagnosis, topic)]
    if sum(chosen) != 1:
        raise ValueError("give exactly one of predictors=(a, b), diagnosis=..., topic=...")
    conv = scores.conversation
    conv = conv[(conv["metric"] == metric) & (conv["mode"] == mode)]
    if conv.empty:
        raise ValueError(f"no values of metric {metric!r} in mode {mode!r}")
    wide = conv.pivot_table(
        index="conversation_id", columns="predictor", values="value", aggfunc="first"
    )
    design = scores.design.set_index("conversation_id")
    simulated = bool(getattr(scores, "simulated", False))
    source = {"release": str(scores.release_info.get("name", "")), "simulated": simulated}
    if predictors is not None:
        if len(predictors) != 2 or predictors[0] == predictors[1]:
            raise ValueError(f"predictors must be two different names; got {predictors!r}")
        missing = [p for p in predictors if p not in wide.columns]
        if missing:
            raise ValueError(f"unknown predictors {missing}; available: {sorted(wide.columns)}")
        a, b = predictors
        diff = (wide[a] - wide[b]).dropna()
        clusters = design.loc[diff.index, "participant_id"].to_numpy()
        model = fit_contrast_values(
            diff.to_numpy(), clusters, design="paired", metric=metric, label=f"{a} - {b}",
            simulated=simulated,
        )  # fmt: skip
    else:
        if predictor is not None:
            if predictor not in wide.columns:
                raise ValueError(
                    f"unknown predictor {predictor!r}; available: {sorted(wide.columns)}"
                )
            y = wide[predictor]
            who = predictor
        else:
            kinds = scores.predictors.set_index("predictor")["kind"]
            models = [p for p in wide.columns if kinds.get(p) == "model"]
            if not models:
                raise ValueError("no evaluated models in scores; give predictor=")
            y = wide[models].mean(axis=1, skipna=True)
            who = "mean of models"
        y = y.dropna()
        d = design.loc[y.index]
        if diagnosis is not None:
            groups = set(d["diagnosis_group"].astype(str))
            for name, g in (("diagnosis", diagnosis), ("reference", reference)):
                if g not in groups:
                    raise ValueError(
                        f"{name} group {g!r} not in the release; have {sorted(groups)}"
                    )
            keep = d["diagnosis_group"].isin([diagnosis, reference]).to_numpy()
            y, d = y[keep], d[keep]
            x = (d["diagnosis_group"] == diagnosis).to_numpy()
            model = fit_contrast_values(
                y.to_numpy(), d["participant_id"].to_numpy(), design="between", x=x,
                metric=metric, label=f"{diagnosis} - {reference} ({who})", simulated=simulated,
            )  # fmt: skip
        else:
            topics = set(d["topic"].astype(str))
            if topic not in topics:
                raise ValueError(f"topic {topic!r} not in the release")
            x = (d["topic"] == topic).to_numpy()
            model = fit_contrast_values(
                y.to_numpy(), d["participant_id"].to_numpy(), design="within", x=x,
                metric=metric, label=f"{topic} - other topics ({who})", simulated=simulated,
            )  # fmt: skip
    return ContrastModel(**{**model.to_dict(), "source": {**source, **model.source}})
