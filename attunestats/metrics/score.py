"""``score(release) -> Scores``: every metric of spec sections 2 and 3 as tidy long tables.

Rounding happens only at display; every value here is unrounded float64 (NaN = null). The scoring
conventions used (spec 4) are recorded in ``Scores.options`` and in ``DataFrame.attrs`` of every
table; outputs computed from a simulated release carry ``constants.SIMULATED_LABEL``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from attunestats._arrow import release_free_memory, str_dictionary, take_str
from attunestats._io import write_files
from attunestats._results import ResultMixin, describe_conventions
from attunestats.constants import SIMULATED_LABEL
from attunestats.metrics._index import ScoringIndex, build_index
from attunestats.metrics.composite import composite_z
from attunestats.metrics.conventions import ScoringOptions, round_display
from attunestats.metrics.conversation import conversation_metrics
from attunestats.metrics.registry import (
    BINARY_TASKS,
    METRICS,
    MetricContext,
    iter_specs,
    pooled_statistic,
)
from attunestats.metrics.turn import turn_metrics

_COUNT_COLS = ("tp", "tn", "fp", "fn")
#: the predictor-level metrics ``Scores.summary()`` shows: the composite and its three pillars
SUMMARY_METRICS = ("composite_score", "emotion_tracking", "evaluation_quality",
                   "holistic_comprehension")  # fmt: skip


@dataclass(frozen=True, repr=False)
class Scores(ResultMixin):
    """Every metric of a release, as tidy long tables.

    A result (:mod:`attunestats._results`): ``to_frame()`` is the predictor-level table (one row
    per predictor, mode and metric, with a ``simulated`` column), ``summary()`` a short table of
    the composite and its three pillars per predictor with the release, its counts and the
    conventions, and the repr one line of counts.

    Attributes
    ----------
    turn : pandas.DataFrame
        ``predictor, mode, conversation_id, turn, metric, value``: one row per scored turn and
        turn-level metric (value float64, NaN = null).
    conversation : pandas.DataFrame
        ``predictor, mode, conversation_id, metric, value``: averages over turns, pooled
        per-conversation binary metrics, post-conversation metrics, pillars and composites.
    counts : pandas.DataFrame
        ``predictor, mode, conversation_id, task, tp, tn, fp, fn`` (int64) summed over the
        conversation's scored turns, task in ``om, human, om_hp, human_hp``: what resampling needs
        to recompute pooled metrics (:func:`~attunestats.metrics.registry.pooled_statistic`).
    turn_counts : pandas.DataFrame
        The same per scored turn (with ``turn``).
    comparisons : pandas.DataFrame
        ``predictor, mode, conversation_id, turn, comparison, question_id, has_winner, correct``:
        one row per ground-truth pairwise comparison of a scored turn.
    predictor : pandas.DataFrame
        ``predictor, mode, metric, value, standard_error, n``: unweighted null-aware means over
        conversations (SE = sample SD / sqrt(n)); pooled metrics from the summed counts (SE NaN:
        use the bootstrap); ``composite_z`` across predictor x mode rows.
    design : pandas.DataFrame
        ``conversation_id, participant_id, diagnosis_group, topic, n_turns``.
    predictors : pandas.DataFrame
        ``predictor, kind, display_name``.
    options : ScoringOptions
        The conventions used.
    release_info : Mapping
        ``simulated`` (bool), ``checksum`` and ``name`` of the release.
    """

    turn: pd.DataFrame
    conversation: pd.DataFrame
    counts: pd.DataFrame
    turn_counts: pd.DataFrame
    comparisons: pd.DataFrame
    predictor: pd.DataFrame
    design: pd.DataFrame
    predictors: pd.DataFrame
    options: ScoringOptions
    release_info: Mapping[str, Any] = field(default_factory=dict)

    _title = "Benchmark scores (predictor-level means over conversations)"

    @property
    def simulated(self) -> bool:
        """True when the scored release was written by the simulator."""
        return bool(self.release_info.get("simulated", False))

    @property
    def n_predictors(self) -> int:
        """Number of predictors scored (evaluated models and human raters)."""
        return int(self.predictors["predictor"].nunique())

    @property
    def n_conversations(self) -> int:
        """Number of ground-truth conversations."""
        return int(self.design["conversation_id"].nunique())

    @property
    def n_participants(self) -> int:
        """Number of participants (clusters of conversations)."""
        return int(self.design["participant_id"].nunique())

    def to_frame(self) -> pd.DataFrame:
        """The predictor-level metrics, tidy: one row per predictor, mode and metric.

        Columns ``predictor, mode, metric, value, standard_error, n, simulated`` (unrounded;
        ``standard_error`` is the naive SD / sqrt(n) over conversations, NaN for pooled metrics
        and ``composite_z``: for intervals use :func:`attunestats.infer_scores`).

        Examples
        --------
        >>> import attunestats as at
        >>> scores = at.score(at.load_bundled_release())
        >>> frame = scores.to_frame()
        >>> frame.columns.tolist()
        ['predictor', 'mode', 'metric', 'value', 'standard_error', 'n', 'simulated']
        >>> composite = frame[frame["metric"] == "composite_score"].reset_index(drop=True)
        >>> composite[["predictor", "value", "simulated"]].round(1).head(2)
             predictor  value  simulated
        0  sim-human-1   66.2       True
        1  sim-human-2   64.7       True
        >>> print(scores.summary())  # composite and pillars per predictor  # doctest: +SKIP
        """
        frame = self.predictor.copy()
        frame["simulated"] = self.simulated
        return frame

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        info = self.release_info
        release = str(info.get("name") or "(unnamed)")
        if info.get("checksum"):
            release += f" (checksum {str(info['checksum'])[:12]})"
        meta = {
            "Release": release,
            "Units": f"{self.n_predictors} predictors, {self.n_conversations} conversations, "
            f"{self.n_participants} participants",
            "Values": "unweighted means over conversations (pooled metrics from summed counts)",
            "Conventions": describe_conventions(self.options),
        }
        table = self.wide("predictor")
        shown = [m for m in SUMMARY_METRICS if m in table.columns]
        kinds = self.predictors.set_index("predictor")["kind"].astype(str)
        table.insert(1, "kind", table["predictor"].map(kinds).fillna(""))
        keys = ["predictor", "kind"] + (["mode"] if table["mode"].nunique() > 1 else [])
        table = table.loc[:, keys + shown]
        n_metrics = self.predictor["metric"].nunique()
        notes = [
            "summary() shows composite_score (0-100) and its pillars; summary(metric=...) or "
            f"summary(predictor=...) other rows; all {n_metrics} metrics with SE and n: to_frame()",
            "uncertainty for the population of participants: attunestats.infer_scores(scores)",
        ]
        return self._title, meta, table, notes

    def __repr__(self) -> str:
        changed = [f.name for f in fields(self.options)
                   if getattr(self.options, f.name) != f.default]  # fmt: skip
        conventions = f"conventions changed: {', '.join(changed)}" if changed else (
            "default conventions")  # fmt: skip
        return (f"<Scores: {self.predictors['predictor'].nunique()} predictors x "
                f"{self.design['conversation_id'].nunique()} conversations; "
                f"{self.turn['metric'].nunique()} turn and "
                f"{self.conversation['metric'].nunique()} conversation metrics; {conventions}; "
                f"{'SIMULATED' if self.simulated else 'not marked simulated'}>")  # fmt: skip

    @property
    def label(self) -> str:
        """``constants.SIMULATED_LABEL`` for simulated releases, else ``""``."""
        return SIMULATED_LABEL if self.simulated else ""

    def names(self, kind: str | None = None) -> list[str]:
        """Sorted predictor names, all or of one ``kind`` ("model" or "human").

        Examples
        --------
        >>> import attunestats as at
        >>> scores = at.score(at.load_bundled_release())
        >>> scores.names("human")                    # the human raters
        ['sim-human-1', 'sim-human-2', 'sim-human-3']
        """
        table = self.predictors
        if kind is not None:
            kinds = sorted(table["kind"].astype(str).unique())
            if kind not in ("model", "human"):
                raise ValueError(f"kind must be 'model', 'human' or None; got {kind!r}")
            table = table[table["kind"].astype(str) == kind]
            if table.empty:
                raise ValueError(f"no predictor of kind {kind!r}; kinds present: {kinds}")
        return sorted(table["predictor"].astype(str).unique())

    def wide(self, level: str = "conversation") -> pd.DataFrame:
        """One column per metric: ``level`` is "turn", "conversation" or "predictor".

        Index columns are kept as ordinary columns (predictor, mode, conversation_id[, turn]);
        metric columns follow registry order.
        """
        if level == "turn":
            df, keys = self.turn, ["predictor", "mode", "conversation_id", "turn"]
        elif level == "conversation":
            df, keys = self.conversation, ["predictor", "mode", "conversation_id"]
        elif level == "predictor":
            df, keys = self.predictor, ["predictor", "mode"]
        else:
            raise ValueError(f"level must be 'turn', 'conversation' or 'predictor', got {level!r}")
        out = df.pivot(index=keys, columns="metric", values="value")
        order = [m for m in METRICS if m in out.columns]
        out = out.loc[:, order].reset_index()
        out.columns.name = None
        if level == "conversation":
            pos = {c: i for i, c in enumerate(self.design["conversation_id"])}
            out = out.assign(_o=out["conversation_id"].map(pos)).sort_values(
                ["predictor", "mode", "_o"], kind="stable"
            )
            out = out.drop(columns="_o").reset_index(drop=True)
        return out

    def display_composite(self) -> pd.DataFrame:
        """Predictor composites rounded to 2 decimals with the ``composite_rounding`` convention."""
        p = self.predictor
        p = p.loc[p["metric"].isin(["composite_score", "equal_weight_composite"])].copy()
        p["value"] = round_display(p["value"].to_numpy(), 2, method=self.options.composite_rounding)
        return p.reset_index(drop=True)


# ------------------------------------------------------------------------------------------------


def _str_col(values: Any) -> Any:
    return pd.array(np.asarray(values, dtype=object), dtype="str")


def _str_take(column: pd.Series, rows: np.ndarray) -> Any:
    """``column[rows]`` as a ``str`` array, via factorised codes (fast for repeated strings)."""
    codes, uniques = pd.factorize(column)
    return _codes_to_str(np.asarray(uniques, dtype=object), codes[rows])


def _codes_to_str(uniques: np.ndarray, codes: np.ndarray) -> Any:
    dictionary = str_dictionary([*uniques, None])
    return take_str(dictionary, np.where(codes < 0, len(uniques), codes))


def _long(keys: pd.DataFrame, metrics: list[str], values: dict, emitted: dict) -> pd.DataFrame:
    """Long table of ``metrics`` over the rows of ``keys`` (rows not emitted are left out)."""
    n = len(keys)
    m = len(metrics)
    mat = np.full((n, m), np.nan)
    emit = np.ones((n, m), bool)
    for j, name in enumerate(metrics):
        mat[:, j] = values[name]
        if name in emitted:
            emit[:, j] = emitted[name]
    flat = emit.ravel()
    rows = np.repeat(np.arange(n), m)[flat]
    metric_idx = np.tile(np.arange(m), n)[flat]
    out = {}
    for col in keys.columns:
        if col == "turn":
            out[col] = keys[col].to_numpy(np.int64)[rows]
        else:
            out[col] = _str_take(keys[col], rows)
    out["metric"] = _codes_to_str(np.asarray(metrics, dtype=object), metric_idx)
    out["value"] = mat.ravel()[flat]
    return pd.DataFrame(out)


def _counts_table(keys: pd.DataFrame, counts: dict[str, np.ndarray]) -> pd.DataFrame:
    n = len(keys)
    tasks = list(BINARY_TASKS)
    stacked = np.stack([counts[t] for t in tasks], axis=1).reshape(n * len(tasks), 4)
    rows = np.repeat(np.arange(n), len(tasks))
    out = {}
    for col in keys.columns:
        if col == "turn":
            out[col] = keys[col].to_numpy(np.int64)[rows]
        else:
            out[col] = _str_take(keys[col], rows)
    out["task"] = _codes_to_str(np.asarray(tasks, dtype=object), np.tile(np.arange(len(tasks)), n))
    for j, c in enumerate(_COUNT_COLS):
        out[c] = stacked[:, j].astype(np.int64)
    return pd.DataFrame(out)


def _custom_metrics(
    level: str, keys: pd.DataFrame, values: dict, release, options, counts=None
) -> None:
    for spec in iter_specs(level):
        if spec.builtin or spec.source is not None:  # averages come from the turn values
            continue
        if spec.aggregation == "pooled":
            c = counts[spec.pooled_task]
            values[spec.name] = pooled_statistic(spec.pooled_stat, *(c[:, j] for j in range(4)))
            continue
        ctx = MetricContext(
            level=level,
            keys=keys,
            values=pd.DataFrame({k: v for k, v in values.items()}),
            release=release,
            options=options,
        )
        result = np.asarray(spec.compute(ctx), dtype=np.float64)
        if result.shape != (len(keys),):
            raise ValueError(
                f"compute of metric {spec.name!r} returned shape {result.shape}, "
                f"expected ({len(keys)},)"
            )
        values[spec.name] = result


def _predictor_table(
    ix: ScoringIndex,
    conv_values: dict[str, np.ndarray],
    conv_emitted: dict[str, np.ndarray],
    counts: dict[str, np.ndarray],
) -> pd.DataFrame:
    n_pm = len(ix.pm)
    pm = ix.run_pm
    rows = []
    for spec in iter_specs("conversation"):
        if spec.name not in conv_values:
            continue
        emitted = conv_emitted.get(spec.name, np.ones(ix.n_runs, bool))
        v = conv_values[spec.name]
        if spec.aggregation == "pooled":
            c = counts[spec.pooled_task]
            sums = [np.bincount(pm, weights=c[:, j], minlength=n_pm) for j in range(4)]
            value = pooled_statistic(spec.pooled_stat, *sums)
            n = np.bincount(pm, minlength=n_pm)
            se = np.full(n_pm, np.nan)
        else:
            ok = ~np.isnan(v) & emitted
            n = np.bincount(pm[ok], minlength=n_pm)
            s = np.bincount(pm[ok], weights=v[ok], minlength=n_pm)
            value = np.where(n > 0, s / np.maximum(n, 1), np.nan)
            dev = np.where(ok, v - value[pm], 0.0)
            ss = np.bincount(pm, weights=dev**2, minlength=n_pm)
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.where(n > 1, np.sqrt(ss / np.maximum(n - 1, 1)) / np.sqrt(n), np.nan)
        pm_emit = np.bincount(pm, weights=emitted, minlength=n_pm) > 0
        for i in np.flatnonzero(pm_emit):
            rows.append((i, spec.name, value[i], se[i], int(n[i])))
    df = pd.DataFrame(rows, columns=["pm", "metric", "value", "standard_error", "n"])
    df = df.astype({"pm": np.int64, "value": np.float64, "standard_error": np.float64,
                    "n": np.int64})  # fmt: skip
    comp = df.loc[df["metric"] == "composite_score"].sort_values("pm")
    z = composite_z(comp["value"].to_numpy())
    zdf = pd.DataFrame(
        {
            "pm": comp["pm"].to_numpy(),
            "metric": "composite_z",
            "value": z,
            "standard_error": np.nan,
            "n": comp["n"].to_numpy(),
        }
    )
    df = pd.concat([df, zdf], ignore_index=True)
    order = {name: i for i, name in enumerate(METRICS)}
    df["_o"] = df["metric"].map(order)
    df = df.sort_values(["pm", "_o"], kind="stable").reset_index(drop=True)
    return pd.DataFrame(
        {
            "predictor": _str_col(ix.pm["predictor"].to_numpy()[df["pm"].to_numpy()]),
            "mode": _str_col(ix.pm["mode"].to_numpy()[df["pm"].to_numpy()]),
            "metric": _str_col(df["metric"].to_numpy(dtype=object)),
            "value": df["value"].to_numpy(np.float64),
            "standard_error": df["standard_error"].to_numpy(np.float64),
            "n": df["n"].to_numpy(np.int64),
        }
    )


def _release_info(release: Any) -> dict[str, Any]:
    info = dict(getattr(release, "info", {}) or {})
    root = getattr(release, "root", None)
    name = info.get("name") or (Path(root).name if root is not None else "")
    return {
        "simulated": bool(info.get("simulated", False)),
        "checksum": str(getattr(release, "checksum", "") or ""),
        "name": str(name),
    }


def _check_release(release: Any) -> None:
    tables = getattr(release, "tables", None)
    if not isinstance(tables, Mapping):
        raise TypeError(f"release must be an attunestats Release, got {type(release).__name__}")
    from attunestats.release.model import GROUND_TRUTH_TABLES, PREDICTION_TABLES, TABLE_SCHEMAS

    for name in GROUND_TRUTH_TABLES + PREDICTION_TABLES:
        if name not in tables:
            raise ValueError(f"release lacks table {name!r}")
        missing = [c for c in TABLE_SCHEMAS[name] if c not in tables[name].columns]
        if missing:
            raise ValueError(f"release table {name!r} lacks columns {missing}")


def score(release: Any, *, options: ScoringOptions | None = None) -> Scores:
    """Score every predictor of a release on every metric of spec sections 2 and 3.

    Parameters
    ----------
    release : Release
        Ground truth and run outputs (``attunestats.load_release`` or the simulator).
    options : ScoringOptions, optional
        Scoring conventions (spec 4); the spec's defaults when omitted.

    Returns
    -------
    Scores
        Long turn-, conversation- and predictor-level tables, confusion counts, comparisons, the
        design table and the options used.

    Raises
    ------
    ValueError
        If a run file or run turn has no ground truth (spec 4), or keys are duplicated.

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())
    >>> scores
    <Scores: 14 predictors x 200 conversations; 21 turn and 78 conversation metrics; default conventions; SIMULATED>
    >>> scores.wide("predictor")[["predictor", "composite_score"]].round(1).head(3)
         predictor  composite_score
    0  sim-human-1             66.2
    1  sim-human-2             64.7
    2  sim-human-3             64.4
    """
    if options is None:
        options = ScoringOptions()
    if not isinstance(options, ScoringOptions):
        raise TypeError(f"options must be a ScoringOptions, got {type(options).__name__}")
    _check_release(release)
    ix = build_index(release, options)

    tr = turn_metrics(ix)
    turn_values = dict(tr.values)
    turn_keys = ix.turns
    _custom_metrics("turn", turn_keys, turn_values, release, options)
    for name in turn_values:
        if name not in tr.values:  # custom turn metric: add its average
            tr.values[name] = turn_values[name]

    conv_values, conv_emitted, counts = conversation_metrics(ix, tr)
    run_keys = ix.runs
    _custom_metrics("conversation", run_keys, conv_values, release, options, counts)

    turn_names = [s.name for s in iter_specs("turn") if s.name in turn_values]
    conv_names = [s.name for s in iter_specs("conversation") if s.name in conv_values]
    release_free_memory()  # what the kernels freed, before the long tables are built
    turn_df = _long(turn_keys, turn_names, turn_values, tr.emitted)
    conv_df = _long(run_keys, conv_names, conv_values, conv_emitted)

    counts_df = _counts_table(run_keys, counts)
    turn_counts_df = _counts_table(turn_keys, tr.counts)
    comp = tr.comparisons
    k = comp["k"]
    comparisons = pd.DataFrame(
        {
            "predictor": _str_take(turn_keys["predictor"], k),
            "mode": _str_take(turn_keys["mode"], k),
            "conversation_id": _str_take(turn_keys["conversation_id"], k),
            "turn": turn_keys["turn"].to_numpy(np.int64)[k],
            "comparison": comp["comparison"].astype(np.int64),
            "question_id": _str_col(comp["question_id"]),
            "has_winner": comp["has_winner"].astype(bool),
            "correct": comp["correct"].astype(bool),
        }
    )
    predictor_df = _predictor_table(ix, conv_values, conv_emitted, counts)

    conv = release.tables["conversations"]
    design = conv.loc[
        :, ["conversation_id", "participant_id", "diagnosis_group", "topic", "n_turns"]
    ].reset_index(drop=True)
    predictors = release.tables["predictors"].loc[:, ["predictor", "kind", "display_name"]]
    predictors = predictors.sort_values("predictor", kind="stable").reset_index(drop=True)
    info = _release_info(release)
    attrs = {
        "scoring_options": options.to_dict(),
        "simulated": info["simulated"],
        "label": SIMULATED_LABEL if info["simulated"] else "",
        "release_checksum": info["checksum"],
    }
    tables = (turn_df, conv_df, counts_df, turn_counts_df, comparisons, predictor_df, design,
              predictors)  # fmt: skip
    for df in tables:
        df.attrs.update(attrs)
    return Scores(
        turn=turn_df,
        conversation=conv_df,
        counts=counts_df,
        turn_counts=turn_counts_df,
        comparisons=comparisons,
        predictor=predictor_df,
        design=design,
        predictors=predictors,
        options=options,
        release_info=info,
    )


# ------------------------------------------------------------------------------------------------
# writing


_TABLES = ("turn", "predictor", "counts", "turn_counts", "comparisons", "design", "predictors")


def _json_value(x: Any) -> Any:
    if isinstance(x, float | np.floating):
        x = float(x)
        return None if math.isnan(x) or math.isinf(x) else x
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def summary_dict(scores: Scores) -> dict[str, Any]:
    """The per-predictor summary written as JSON by :func:`write_scores`."""
    p = scores.predictor
    names = scores.predictors.set_index("predictor")
    out_rows = []
    for (pred, mode), grp in p.groupby(["predictor", "mode"], sort=True):
        metrics = {
            row.metric: {
                "value": _json_value(row.value),
                "standard_error": _json_value(row.standard_error),
                "n": int(row.n),
            }
            for row in grp.itertuples(index=False)
        }
        comp = metrics.get("composite_score", {}).get("value")
        out_rows.append(
            {
                "predictor": pred,
                "mode": mode,
                "kind": str(names["kind"].get(pred, "")) if pred in names.index else "",
                "display_name": str(names["display_name"].get(pred, pred))
                if pred in names.index
                else pred,
                "composite_score_display": None
                if comp is None
                else round_display(comp, 2, method=scores.options.composite_rounding),
                "metrics": metrics,
            }
        )
    return {
        "label": scores.label,
        "simulated": scores.simulated,
        "release": dict(scores.release_info),
        "scoring_options": scores.options.to_dict(),
        "conventions": scores.options.describe().to_dict(orient="records"),
        "predictors": out_rows,
    }


def write_scores(scores: Scores, out: Path | str) -> list[Path]:
    """Write the score tables and a per-predictor summary JSON.

    ``out`` names the conversation-level table; its extension (``.csv`` or ``.parquet``) sets the
    format of every table. Siblings ``<stem>_turn``, ``_predictor``, ``_counts``,
    ``_turn_counts``, ``_comparisons``, ``_design`` and ``_predictors`` (same extension) and
    ``<stem>_summary.json`` are written next to it. Tables of a simulated release get a column
    ``simulated`` (all true) when they have none. Files are written to temporary names first and
    renamed only when all succeeded, so a failure leaves nothing half-written
    (:func:`attunestats._io.write_files`; modes 0666 less the umask).

    Parameters
    ----------
    scores : Scores
    out : path-like
        Path of the conversation-level table, ending in ``.csv`` or ``.parquet``.

    Returns
    -------
    list of pathlib.Path
        Every file written, the conversation table first and the summary JSON last.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> [p.name for p in at.write_scores(scores, out)][:3]
    ['scores.csv', 'scores_turn.csv', 'scores_predictor.csv']
    >>> pd.read_csv(out).columns.tolist()  # no options needed to read it back
    ['predictor', 'mode', 'conversation_id', 'metric', 'value', 'simulated']
    """
    if not isinstance(scores, Scores):
        raise TypeError(f"scores must be a Scores, got {type(scores).__name__}")
    out = Path(out)
    ext = out.suffix.lower()
    if ext not in (".csv", ".parquet"):
        raise ValueError(f"out must end in .csv or .parquet, got {str(out)!r}")
    if not out.parent.exists():
        raise ValueError(f"out's directory does not exist: {str(out.parent)!r}")
    simulated = bool((getattr(scores, "release_info", None) or {}).get("simulated", False))

    def labelled(df: pd.DataFrame) -> pd.DataFrame:
        # a table from a simulated release says so in its own rows (it may travel alone)
        return df.assign(simulated=True) if simulated and "simulated" not in df.columns else df

    targets: list[tuple[Path, Any]] = [(out, labelled(scores.conversation))]
    for name in _TABLES:
        targets.append(
            (out.with_name(f"{out.stem}_{name}{out.suffix}"), labelled(getattr(scores, name)))
        )
    summary_path = out.with_name(f"{out.stem}_summary.json")
    summary = summary_dict(scores)
    summary["files"] = [p.name for p, _ in targets] + [summary_path.name]
    text = json.dumps(summary, indent=2, allow_nan=False) + "\n"

    def table_writer(df: pd.DataFrame) -> Any:
        if ext == ".csv":
            return lambda tmp: df.to_csv(tmp, index=False, lineterminator="\n")
        return lambda tmp: df.to_parquet(tmp, index=False)

    files: dict[Path, Any] = {path: table_writer(df) for path, df in targets}
    files[summary_path] = lambda tmp: Path(tmp).write_text(text, encoding="utf-8")
    # attunestats._io: temporary siblings (0666 less the umask), renamed only when all are written
    return write_files(files, what="out")
