"""Build :class:`~.model.HierarchicalModel` objects from tidy tables (and from ``Scores``).

The model-building layer takes plain DataFrames so that it can be tested on synthetic data:

- ``design``: one row per conversation with ``conversation_id, participant_id,
  diagnosis_group, topic, n_turns`` (``Scores.design``);
- outcome tables, one row per predictor x conversation x turn (x task): ``successes`` and
  ``trials`` (behaviour), ``correct`` per comparison (preference), ``value`` (emotion), or one
  row per predictor x conversation with ``value`` (holistic).

The ``*_from_scores`` constructors only select columns of :class:`attunestats.metrics.score.Scores`
and call these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from attunestats.hierarchical._scores import scores_design, scores_table
from attunestats.hierarchical._scores import simulated as _simulated
from attunestats.hierarchical.centring import (  # noqa: F401 - re-exported
    AUTO_CENTRED_MIN_CONVERSATIONS,
    AUTO_CENTRED_MIN_OBS,
    AUTO_CENTRED_MIN_OBS_INTERACTION,
    AUTO_CENTRED_MIN_OBS_LEVEL,
    _resolve,
    auto_centring,
)
from attunestats.hierarchical.model import LEVELS, HierarchicalModel
from attunestats.hierarchical.spec import ModelSpec, as_spec

_DESIGN_COLUMNS = ("conversation_id", "participant_id", "diagnosis_group", "topic", "n_turns")
Parameterization = str | Mapping[str, str]
_PARAMETERIZATIONS = ("auto", "centred", "noncentred")
#: Effective binary observations of one ordered-beta score (a rough equivalence, see docs).
BOUNDED_EFFECTIVE_TRIALS = 4.0
#: Maximum error of the holistic metrics (spec 2.5): the model uses ``1 - error / max``.
HOLISTIC_MAX_ERROR = {"four_branch_mae": 6.0, "panas_mae": 60.0}
DEFAULT_REFERENCE_GROUP = "none"


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _check_frame(df: Any, name: str, columns: Sequence[str]) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame; got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}; has {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{name} has no rows")
    return df


def _check_design(design: Any) -> pd.DataFrame:
    design = _check_frame(design, "design", _DESIGN_COLUMNS)
    d = design.loc[:, list(_DESIGN_COLUMNS)].copy()
    for col in ("conversation_id", "participant_id", "diagnosis_group", "topic"):
        if d[col].isna().any():
            bad = d.loc[d[col].isna(), "conversation_id"].tolist()[:5]
            raise ValueError(f"design.{col} is missing for conversation(s) {bad}")
        d[col] = d[col].astype("str")
    dup = d["conversation_id"][d["conversation_id"].duplicated()].tolist()
    if dup:
        raise ValueError(f"design.conversation_id has duplicates: {dup[:5]}")
    n_turns = pd.to_numeric(d["n_turns"], errors="coerce")
    wrong = n_turns.isna() | (n_turns < 1) | (n_turns != np.round(n_turns))
    if wrong.any():
        bad = d.loc[wrong, "n_turns"].tolist()[:5]
        raise ValueError(f"design.n_turns must be integers >= 1; got {bad}")
    d["n_turns"] = n_turns.astype("int64")
    groups = d.groupby("participant_id")["diagnosis_group"].nunique()
    mixed = groups[groups > 1].index.tolist()
    if mixed:
        raise ValueError(
            f"design.diagnosis_group must be constant per participant; participant(s) {mixed[:5]} "
            "have several"
        )
    return d


def _check_ids(df: pd.DataFrame, name: str, columns: Sequence[str]) -> None:
    """No missing identifiers (``astype("str")`` keeps them missing; group sums drop them)."""
    for col in (c for c in columns if c in df.columns):
        if (miss := df[col].isna()).any():
            raise ValueError(f"{name}.{col} is missing in {int(miss.sum())} row(s)")


def _numbers(values: pd.Series, name: str) -> pd.Series:
    """Floats; missing values stay NaN, any other value that is not a number is an error."""
    v = pd.to_numeric(values, errors="coerce")
    if (wrong := v.isna() & values.notna()).any():
        raise ValueError(f"{name} must be numbers; got {values[wrong].tolist()[:5]}")
    return v.astype(float)


def _booleans(values: pd.Series, name: str) -> pd.Series:
    if values.isna().any() or not set(pd.unique(values.astype(object))) <= {True, False}:
        shown = sorted(map(repr, pd.unique(values)))[:5]
        raise ValueError(f"{name} must be boolean; got values {shown}")
    return values.astype(bool)


def _check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {value!r}")


def _select_predictors(df: pd.DataFrame, predictors: Sequence[str] | None) -> list[str]:
    present = list(dict.fromkeys(df["predictor"].astype("str")))
    if predictors is None:
        return sorted(present)
    if isinstance(predictors, str) or not isinstance(predictors, Sequence):
        raise TypeError(f"predictors must be a sequence of names; got {predictors!r}")
    if len(predictors) == 0:
        raise ValueError(f"predictors is empty; available: {sorted(present)}")
    unknown = [p for p in predictors if p not in present]
    if unknown:
        raise ValueError(f"predictors {unknown} have no data; available: {sorted(present)}")
    if len(set(predictors)) != len(predictors):
        raise ValueError(f"predictors has duplicates: {list(predictors)}")
    return list(predictors)


# --------------------------------------------------------------------------------------------
# panel assembly
# --------------------------------------------------------------------------------------------
def _levels(
    design: pd.DataFrame, conversations: Sequence[str], reference_group: str | None
) -> dict[str, Any]:
    d = design.set_index("conversation_id").loc[list(conversations)]
    participants = sorted(d["participant_id"].unique())
    topics = sorted(d["topic"].unique())
    groups = sorted(d["diagnosis_group"].unique())
    ref = DEFAULT_REFERENCE_GROUP if reference_group is None else reference_group
    if ref in groups:
        groups = [ref] + [g for g in groups if g != ref]
    elif reference_group is not None:
        raise ValueError(
            f"reference_group {reference_group!r} is not a diagnosis group of the data; "
            f"groups: {groups}"
        )
    p_index = {p: i for i, p in enumerate(participants)}
    t_index = {t: i for i, t in enumerate(topics)}
    g_index = {g: i for i, g in enumerate(groups)}
    p_k = d["participant_id"].map(p_index).to_numpy(dtype=np.int64)
    g_k = d["diagnosis_group"].map(g_index).to_numpy(dtype=np.int64)
    g_p = np.zeros(len(participants), dtype=np.int64)
    g_p[p_k] = g_k
    return {
        "conversations": tuple(conversations),
        "participants": tuple(participants),
        "topics": tuple(topics),
        "diagnosis_groups": tuple(groups),
        "participant_of_conversation": p_k,
        "topic_of_conversation": d["topic"].map(t_index).to_numpy(dtype=np.int64),
        "group_of_conversation": g_k,
        "group_of_participant": g_p,
        "n_turns": d["n_turns"].to_numpy(dtype=np.int64),
    }


def _turn_rows(
    data: pd.DataFrame,
    design: pd.DataFrame,
    name: str,
    tasks: Sequence[str],
    reference_group: str | None,
    items: Sequence[str] = ("all",),
) -> tuple[pd.DataFrame, dict[str, Any], dict[str, Any]]:
    """Rows (conversation x task x item x turn) and per-row arrays; adds a ``_row`` column to
    data (which has ``task`` and ``item`` columns)."""
    conv_ids = set(design["conversation_id"])
    present = set(data["conversation_id"].unique())  # once: not per conversation of the design
    unknown = sorted(present - conv_ids)
    if unknown:
        raise ValueError(f"{name} has conversation_id(s) not in design: {unknown[:5]}")
    order = [c for c in design["conversation_id"] if c in present]
    lv = _levels(design, order, reference_group)
    k_index = {c: i for i, c in enumerate(order)}
    t_index = {t: i for i, t in enumerate(tasks)}
    i_index = {t: i for i, t in enumerate(items)}
    turns = pd.to_numeric(data["turn"], errors="coerce")
    wrong = turns.isna() | (turns != np.round(turns))
    if wrong.any():
        raise ValueError(
            f"{name}.turn must be integers; got {data.loc[wrong, 'turn'].tolist()[:5]}"
        )
    data = data.assign(
        _k=data["conversation_id"].map(k_index).astype("int64"),
        _task=data["task"].map(t_index).astype("int64"),
        _item=data["item"].map(i_index).astype("int64"),
        turn=turns.astype("int64"),
    )
    n_turns = lv["n_turns"][data["_k"].to_numpy()]
    bad = (data["turn"].to_numpy() < 1) | (data["turn"].to_numpy() > n_turns)
    if bad.any():
        row = data.loc[bad].iloc[0]
        raise ValueError(
            f"{name}.turn must lie in 1..n_turns of its conversation; conversation "
            f"{row['conversation_id']!r} has turn {int(row['turn'])} "
            f"(n_turns {int(n_turns[np.flatnonzero(bad)[0]])})"
        )
    keys = ["_k", "_task", "_item", "turn"]
    rows = data[keys].drop_duplicates().sort_values(keys, kind="stable").reset_index(drop=True)
    rows["_row"] = np.arange(len(rows), dtype=np.int64)
    data = data.merge(rows, on=keys, how="left")
    nt = lv["n_turns"][rows["_k"].to_numpy()]
    t = rows["turn"].to_numpy()
    x = np.where(nt > 1, (t - 1) / np.maximum(nt - 1, 1), 0.5).astype(float)
    row_arrays = {
        "conversation_of_row": rows["_k"].to_numpy(dtype=np.int64),
        "task_of_row": rows["_task"].to_numpy(dtype=np.int64),
        "item_of_row": rows["_item"].to_numpy(dtype=np.int64),
        "turn_of_row": t.astype(np.int64),
        "x": x,
    }
    return data, lv, row_arrays


def _finalise(arrays: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in arrays.items():
        if isinstance(v, np.ndarray):
            v = np.ascontiguousarray(v)
            v.flags.writeable = False
        out[k] = v
    return out


def _grid(data: pd.DataFrame, predictors: list[str], n_rows: int, column: str, fill: Any) -> Any:
    m_index = {p: i for i, p in enumerate(predictors)}
    mi = data["predictor"].map(m_index).to_numpy(dtype=np.int64)
    ri = data["_row"].to_numpy(dtype=np.int64)
    vals = data[column].to_numpy()
    out = np.full((len(predictors), n_rows), fill, dtype=np.asarray(fill).dtype)
    out[mi, ri] = vals
    return out


def _check_common(parameterization: Any, simulated: Any) -> None:
    if isinstance(parameterization, Mapping):
        unknown = sorted(set(parameterization) - set(LEVELS))
        if unknown:
            raise ValueError(f"parameterization keys must be among {list(LEVELS)}; got {unknown}")
        for lev, val in parameterization.items():
            _check_choice(f"parameterization[{lev!r}]", val, _PARAMETERIZATIONS)
    else:
        _check_choice("parameterization", parameterization, _PARAMETERIZATIONS)
    if not isinstance(simulated, bool):
        raise TypeError(f"simulated must be a bool; got {simulated!r}")


def _duplicates(df: pd.DataFrame, keys: list[str], name: str) -> None:
    if (dup := df.duplicated(keys)).any():
        row = df.loc[dup, keys].iloc[0].to_dict()
        raise ValueError(f"{name} has more than one row for {row}")


# --------------------------------------------------------------------------------------------
# public constructors
# --------------------------------------------------------------------------------------------
def binomial_model(
    counts: pd.DataFrame,
    design: pd.DataFrame,
    *,
    outcome: str,
    capability: str = "",
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    turn_slope: bool = True,
    parameterization: Parameterization = "auto",
    simulated: bool = False,
    metric: str = "",
    structure: ModelSpec | str | None = None,
) -> HierarchicalModel:
    """Binomial-logit model of counts per predictor x conversation x turn (x task x item).

    Parameters
    ----------
    counts : DataFrame
        ``predictor, conversation_id, turn, successes, trials`` and optionally ``task`` (several
        tasks get task offsets; the first task in order of appearance is the reference) and
        ``item`` (item intercepts when the structure has the ``item`` term; otherwise counts
        of the items of a turn are summed). Rows with ``trials == 0`` carry no information and
        are dropped.
    design : DataFrame
        ``conversation_id, participant_id, diagnosis_group, topic, n_turns``.
    outcome : str
        Description of the outcome (for tables).
    capability : str
        Capability of the simulator the outcome measures (``"behaviour"``, ``"preference"``).
    predictors : sequence of str, optional
        Predictors to model, in this order (default: all, sorted).
    reference_group : str, optional
        Reference diagnosis group (default ``"none"`` when present, else the first in sorted
        order).
    turn_slope : bool
        Include the per-predictor turn drift.
    parameterization : {"auto", "centred", "noncentred"} or mapping
        Of the participant / topic / conversation intercepts (see :mod:`.model`); a mapping
        sets it per level (``{"topic": "noncentred"}``; levels not given are ``"auto"``).
        ``"auto"`` (default) centres a level when the data pin its intercepts down
        (:func:`auto_centring`), where the centred form samples best.
    simulated : bool
        Whether the data come from a simulated release.
    metric : str
        Source metric name, recorded.
    structure : ModelSpec or str, optional
        Terms and priors (:class:`~.spec.ModelSpec`; default: every term).

    Returns
    -------
    HierarchicalModel
    """
    spec = as_spec(structure)
    counts = _check_frame(
        counts, "counts", ("predictor", "conversation_id", "turn", "successes", "trials")
    )
    _check_common(parameterization, simulated)
    design = _check_design(design)
    df = counts.copy()
    if "task" not in df.columns:
        df["task"] = "all"
    summed = "item" in df.columns and not spec.has("item")  # items summed within a turn
    if summed:
        df["_item_given"] = df["item"]
    if "item" not in df.columns or not spec.has("item"):
        df["item"] = "all"
    _check_ids(df, "counts", ("predictor", "conversation_id", "task", "item"))
    for col in ("predictor", "conversation_id", "task", "item"):
        df[col] = df[col].astype("str")
    for col in ("successes", "trials"):
        v = pd.to_numeric(df[col], errors="coerce")
        if v.isna().any() or (v < 0).any() or (v != np.round(v)).any():
            bad = df.loc[v.isna() | (v < 0) | (v != np.round(v)), col].tolist()[:5]
            raise ValueError(f"counts.{col} must be non-negative integers; got {bad}")
        df[col] = v.astype("int64")
    over = df["successes"] > df["trials"]
    if over.any():
        row = df.loc[over].iloc[0]
        raise ValueError(
            f"counts.successes exceeds counts.trials for predictor {row['predictor']!r}, "
            f"conversation {row['conversation_id']!r}, turn {row['turn']!r}: "
            f"{int(row['successes'])} > {int(row['trials'])}"
        )
    df = df[df["trials"] > 0]
    if df.empty:
        raise ValueError("counts has no row with trials > 0")
    preds = _select_predictors(df, predictors)
    df = df[df["predictor"].isin(preds)]
    keys = ["predictor", "conversation_id", "task", "item", "turn"]
    if summed:  # one row per item before the sum, as with the item term
        _duplicates(df.assign(item=df["_item_given"]), keys, "counts")
        df = (
            df.groupby(keys, sort=False, observed=True)[["successes", "trials"]].sum().reset_index()
        )
    _duplicates(df, keys, "counts")
    tasks = list(dict.fromkeys(df["task"]))
    items = sorted(dict.fromkeys(df["item"]))
    df, lv, rows = _turn_rows(df, design, "counts", tasks, reference_group, items)
    n_rows = len(rows["x"])
    succ = _grid(df, preds, n_rows, "successes", np.int64(0))
    trials = _grid(df, preds, n_rows, "trials", np.int64(0))
    lv.pop("n_turns")
    arrays = _finalise(
        {**lv, **rows, "successes": succ.astype(np.int64), "trials": trials.astype(np.int64)}
    )
    per_conv = np.bincount(
        rows["conversation_of_row"], weights=trials.sum(axis=0), minlength=len(lv["conversations"])
    )
    per_item = None
    if len(items) >= 2:
        per_item = np.bincount(rows["item_of_row"], weights=trials.sum(axis=0),
                               minlength=len(items))  # fmt: skip
    return HierarchicalModel(
        outcome=outcome,
        family="binomial",
        predictors=tuple(preds),
        tasks=tuple(tasks),
        items=tuple(items),
        turn_slope=bool(turn_slope) and spec.has("turn"),
        centring=_resolve(
            parameterization, per_conv, lv, n_predictors=len(preds), per_item=per_item
        ),  # fmt: skip
        simulated=simulated,
        metric=metric,
        capability=capability,
        spec=spec,
        **arrays,
    )


def behaviour_model(
    counts: pd.DataFrame,
    design: pd.DataFrame,
    *,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
    simulated: bool = False,
) -> HierarchicalModel:
    """Turn-level binary behaviour correctness: correct judgements out of scored ones.

    ``counts`` has ``predictor, conversation_id, turn, successes, trials`` (optionally ``task``).
    See :func:`binomial_model` for the other arguments and :mod:`.model` for the model.

    Examples
    --------
    >>> import pandas as pd
    >>> design = pd.DataFrame({"conversation_id": ["1", "2"], "participant_id": ["a", "b"],
    ...     "diagnosis_group": ["none", "none"], "topic": ["t", "u"], "n_turns": [2, 1]})
    >>> counts = pd.DataFrame({"predictor": ["m1"] * 3, "conversation_id": ["1", "1", "2"],
    ...     "turn": [1, 2, 1], "successes": [3, 2, 4], "trials": [5, 5, 5]})
    >>> behaviour_model(counts, design).x.tolist()
    [0.0, 1.0, 0.5]
    """
    return binomial_model(
        counts,
        design,
        outcome="binary behaviour accuracy",
        capability="behaviour",
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=simulated,
        metric="binary_accuracy",
    )


def behaviour_model_from_scores(
    scores: Any,
    *,
    task: str | Sequence[str] = "om",
    mode: str | None = None,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
) -> HierarchicalModel:
    """:func:`behaviour_model` on ``scores.turn_counts`` (correct = tp + tn, trials = all four).

    ``task`` is one of ``om, human, om_hp, human_hp`` or a sequence of them (then with task
    offsets, the first task the reference).
    """
    from attunestats.metrics.registry import BINARY_TASKS

    tasks = [task] if isinstance(task, str) else list(task)
    for t in tasks:
        _check_choice("task", t, BINARY_TASKS)
    tc = scores_table(scores, "turn_counts", mode)
    tc = tc[tc["task"].isin(tasks)]
    counts = pd.DataFrame(
        {
            "predictor": tc["predictor"],
            "conversation_id": tc["conversation_id"],
            "turn": tc["turn"],
            "task": tc["task"],
            "successes": tc["tp"] + tc["tn"],
            "trials": tc["tp"] + tc["tn"] + tc["fp"] + tc["fn"],
        }
    )
    counts = counts.sort_values("task", key=lambda s: s.map(tasks.index), kind="stable")
    model = binomial_model(
        counts,
        scores_design(scores),
        outcome=f"binary behaviour accuracy (task {', '.join(tasks)})",
        capability="behaviour",
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=_simulated(scores),
        metric="binary_accuracy",
    )
    return model


def preference_model(
    comparisons: pd.DataFrame,
    design: pd.DataFrame,
    *,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    decided_only: bool = True,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
    simulated: bool = False,
) -> HierarchicalModel:
    """Pairwise preference correctness: a Bernoulli per comparison, with the shared structure.

    Parameters
    ----------
    comparisons : DataFrame
        ``predictor, conversation_id, turn, correct`` (bool), optionally ``has_winner`` and
        ``question_id``: one row per ground-truth comparison. Comparisons of one predictor x
        turn (x question, when the structure has the ``item`` term and ``question_id`` is
        given: question intercepts) are summed to a binomial count (the Bernoulli likelihood
        of the comparisons and the binomial likelihood of their sum have the same kernel, hence
        the same posterior).
    decided_only : bool
        Drop comparisons without a decided ground-truth winner (``has_winner`` False; they are
        wrong by convention, spec 4, and carry no information on the predictor).

    Other arguments as in :func:`binomial_model`.
    """
    comparisons = _check_frame(
        comparisons, "comparisons", ("predictor", "conversation_id", "turn", "correct")
    )
    df = comparisons
    if decided_only and "has_winner" in df.columns:
        df = df[_booleans(df["has_winner"], "comparisons.has_winner")]
    if df.empty:
        raise ValueError("comparisons has no comparison with a decided winner")
    correct = _booleans(df["correct"], "comparisons.correct")
    keys = ["predictor", "conversation_id", "turn"]
    use_items = "question_id" in df.columns and as_spec(structure).has("item")
    _check_ids(df, "comparisons", keys + (["question_id"] if use_items else []))
    extra = {}
    if use_items:
        keys.append("item")
        extra["item"] = df["question_id"].astype("str")
    agg = (
        df.assign(
            predictor=df["predictor"].astype("str"),
            conversation_id=df["conversation_id"].astype("str"),
            _c=correct.astype("int64"),
            **extra,
        )
        .groupby(keys, sort=False, observed=True)["_c"]
        .agg(["sum", "size"])
        .reset_index()
        .rename(columns={"sum": "successes", "size": "trials"})
    )
    return binomial_model(
        agg,
        design,
        outcome="pairwise preference accuracy",
        capability="preference",
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=simulated,
        metric="pairwise_accuracy",
    )


def preference_model_from_scores(
    scores: Any,
    *,
    mode: str | None = None,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    decided_only: bool = True,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
) -> HierarchicalModel:
    """:func:`preference_model` on ``scores.comparisons``."""
    comp = scores_table(scores, "comparisons", mode)
    return preference_model(
        comp,
        scores_design(scores),
        predictors=predictors,
        reference_group=reference_group,
        decided_only=decided_only,
        parameterization=parameterization,
        structure=structure,
        simulated=_simulated(scores),
    )


def bounded_model(
    values: pd.DataFrame,
    design: pd.DataFrame,
    *,
    outcome: str,
    capability: str = "",
    level: str = "turn",
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    simulated: bool = False,
    metric: str = "",
    scale: float = 1.0,
    structure: ModelSpec | str | None = None,
) -> HierarchicalModel:
    """Ordered-beta model of scores in [0, 1] (exact 0 and 1 allowed); see :mod:`.model`.

    Parameters
    ----------
    values : DataFrame
        ``predictor, conversation_id, value`` and, for ``level="turn"``, ``turn``. Missing
        values (NaN) are dropped; values outside [0, 1] are an error.
    level : {"turn", "conversation"}
        Turn-level scores (with turn drift) or conversation-level scores (no drift).

    Other arguments as in :func:`binomial_model`.
    """
    spec = as_spec(structure)
    _check_choice("level", level, ("turn", "conversation"))
    cols = ("predictor", "conversation_id", "value") + (("turn",) if level == "turn" else ())
    values = _check_frame(values, "values", cols)
    _check_common(parameterization, simulated)
    design = _check_design(design)
    df = values.copy()
    _check_ids(df, "values", ("predictor", "conversation_id"))
    for col in ("predictor", "conversation_id"):
        df[col] = df[col].astype("str")
    df["value"] = _numbers(df["value"], "values.value")
    df = df[df["value"].notna()]
    if df.empty:
        raise ValueError("values has no non-missing value")
    out = (df["value"] < 0) | (df["value"] > 1)
    if out.any():
        row = df.loc[out].iloc[0]
        raise ValueError(
            f"values.value must lie in [0, 1]; predictor {row['predictor']!r}, conversation "
            f"{row['conversation_id']!r} has {row['value']!r}"
        )
    if level == "conversation":
        df["turn"] = 1
    df["task"] = "all"
    df["item"] = "all"
    preds = _select_predictors(df, predictors)
    df = df[df["predictor"].isin(preds)]
    _duplicates(df, ["predictor", "conversation_id", "turn"], "values")
    df, lv, rows = _turn_rows(df, design, "values", ["all"], reference_group)
    if level == "conversation":
        rows["x"] = np.zeros_like(rows["x"])
    n_rows = len(rows["x"])
    vals = _grid(df, preds, n_rows, "value", np.float64(np.nan))
    lv.pop("n_turns")
    arrays = _finalise({**lv, **rows, "values": vals, "observed": ~np.isnan(vals)})
    per_conv = BOUNDED_EFFECTIVE_TRIALS * np.bincount(
        rows["conversation_of_row"],
        weights=(~np.isnan(vals)).sum(axis=0),
        minlength=len(lv["conversations"]),
    )
    return HierarchicalModel(
        outcome=outcome,
        family="ordered_beta",
        predictors=tuple(preds),
        tasks=("all",),
        turn_slope=level == "turn" and spec.has("turn"),
        centring=_resolve(parameterization, per_conv, lv, n_predictors=len(preds)),
        simulated=simulated,
        metric=metric,
        scale=float(scale),
        capability=capability,
        spec=spec,
        **arrays,
    )


def emotion_model(
    values: pd.DataFrame,
    design: pd.DataFrame,
    *,
    metric: str = "emotion_f1",
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
    simulated: bool = False,
) -> HierarchicalModel:
    """Turn-level emotion tracking score in [0, 1] (``emotion_f1`` or ``emotion_va_score``).

    ``values`` has ``predictor, conversation_id, turn, value``. Ordered-beta likelihood.
    """
    return bounded_model(
        values,
        design,
        outcome=f"turn-level {metric}",
        capability="emotion",
        level="turn",
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=simulated,
        metric=metric,
    )


def emotion_model_from_scores(
    scores: Any,
    *,
    metric: str = "emotion_f1",
    mode: str | None = None,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
) -> HierarchicalModel:
    """:func:`emotion_model` on ``scores.turn`` rows of ``metric``."""
    _check_choice("metric", metric, ("emotion_f1", "emotion_va_score"))
    t = scores_table(scores, "turn", mode)
    t = t[t["metric"] == metric]
    if t.empty:
        raise ValueError(f"scores.turn has no rows of metric {metric!r}")
    return emotion_model(
        t.loc[:, ["predictor", "conversation_id", "turn", "value"]],
        scores_design(scores),
        metric=metric,
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=_simulated(scores),
    )


def holistic_model(
    errors: pd.DataFrame,
    design: pd.DataFrame,
    *,
    metric: str = "four_branch_mae",
    max_error: float | None = None,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
    simulated: bool = False,
) -> HierarchicalModel:
    """Conversation-level holistic prediction error, modelled as ``1 - error / max_error``.

    ``errors`` has ``predictor, conversation_id, value`` (the error, e.g. ``four_branch_mae`` in
    0..6 or ``panas_mae`` in 0..60). The model is the ordered-beta model on the normalised
    accuracy ``1 - error / max_error`` (1 = perfect prediction, so positive effects mean better,
    as in the other models), with predictor, participant, topic, conversation and diagnosis
    effects and no turn drift.
    """
    if max_error is None:
        if metric not in HOLISTIC_MAX_ERROR:
            raise ValueError(
                f"max_error is needed for metric {metric!r} (known: {sorted(HOLISTIC_MAX_ERROR)})"
            )
        max_error = HOLISTIC_MAX_ERROR[metric]
    if not isinstance(max_error, int | float) or not np.isfinite(max_error) or max_error <= 0:
        raise ValueError(f"max_error must be a positive number; got {max_error!r}")
    errors = _check_frame(errors, "errors", ("predictor", "conversation_id", "value"))
    err = _numbers(errors["value"], "errors.value")
    bad = (err < 0) | (err > max_error)
    if bad.any():
        raise ValueError(
            f"errors.value must lie in [0, {max_error}] for {metric}; got {err[bad].tolist()[:5]}"
        )
    vals = errors.loc[:, ["predictor", "conversation_id"]].assign(value=1.0 - err / max_error)
    return bounded_model(
        vals,
        design,
        outcome=f"holistic 1 - {metric} / {max_error:g}",
        capability="holistic",
        level="conversation",
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=simulated,
        metric=metric,
        scale=float(max_error),
    )


def holistic_model_from_scores(
    scores: Any,
    *,
    metric: str = "four_branch_mae",
    mode: str | None = None,
    predictors: Sequence[str] | None = None,
    reference_group: str | None = None,
    parameterization: Parameterization = "auto",
    structure: ModelSpec | str | None = None,
) -> HierarchicalModel:
    """:func:`holistic_model` on ``scores.conversation`` rows of ``metric``."""
    _check_choice("metric", metric, tuple(HOLISTIC_MAX_ERROR))
    c = scores_table(scores, "conversation", mode)
    c = c[c["metric"] == metric]
    if c.empty:
        raise ValueError(f"scores.conversation has no rows of metric {metric!r}")
    return holistic_model(
        c.loc[:, ["predictor", "conversation_id", "value"]],
        scores_design(scores),
        metric=metric,
        predictors=predictors,
        reference_group=reference_group,
        parameterization=parameterization,
        structure=structure,
        simulated=_simulated(scores),
    )
