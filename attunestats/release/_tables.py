"""Columns -> tables: the loader's columns as the typed tables of a :class:`Release`.

Private helper of :mod:`attunestats.release.load`. Every table gets exactly the columns and
dtypes of :data:`~attunestats.release.model.TABLE_SCHEMAS`; prediction tables get their key
columns (predictor, mode, conversation_id) from the run index. :func:`_report` builds the
:class:`~attunestats.release.model.LoadReport`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from attunestats.release._loader import _TASK_NAMES, _Loader, _natural, _resolve, _short
from attunestats.release.model import TABLE_SCHEMAS, LoadReport, coerce_table


def _str_array(values: Sequence[Any]) -> pd.api.extensions.ExtensionArray:
    return pd.array(pa.array(values, type=pa.large_string()), dtype="str")


def _frame(name: str, cols: Mapping[str, Any]) -> pd.DataFrame:
    schema = TABLE_SCHEMAS[name]
    data = {}
    for col, dtype in schema.items():
        values = cols[col]
        if dtype == "str":
            data[col] = (
                values
                if isinstance(values, pd.api.extensions.ExtensionArray)
                else _str_array(values)
            )
        elif dtype == "int64":
            data[col] = np.asarray(values, dtype=np.int64)
        elif dtype == "float64":
            data[col] = np.asarray(values, dtype=np.float64)
        else:
            data[col] = np.asarray(values, dtype=dtype)
    return coerce_table(name, pd.DataFrame(data, copy=False), copy=False)


def _take(dictionary: pa.Array, indices: np.ndarray) -> pd.api.extensions.ExtensionArray:
    return pd.array(pc.take(dictionary, pa.array(indices)), dtype="str")


def _keyed(
    ld: _Loader, name: str, run_idx: Sequence[int] | np.ndarray, cols: Mapping[str, Any]
) -> pd.DataFrame:
    idx = np.asarray(run_idx, dtype=np.int64)
    keys = list(zip(*ld.run_keys)) if ld.run_keys else [(), (), ()]
    full = dict(cols)
    for col, values in zip(("predictor", "mode", "conversation_id"), keys):
        full[col] = _take(pa.array(list(values), type=pa.large_string()), idx)
    return _frame(name, full)


def _tables(
    ld: _Loader, predictor_rows: list[tuple[str, str, str, int]]
) -> dict[str, pd.DataFrame]:
    t: dict[str, pd.DataFrame] = {}
    parts = sorted(ld.participants.values(), key=lambda r: _natural(r[0]))
    t["participants"] = _frame(
        "participants", dict(zip(TABLE_SCHEMAS["participants"], zip(*parts) if parts else [[]] * 5))
    )
    t["conversations"] = _frame("conversations", ld.conversations.cols)
    t["panas_items"] = _frame("panas_items", ld.panas_items.cols)
    t["survey_choices"] = _frame("survey_choices", ld.survey.cols)
    t["turns"] = _frame("turns", ld.turns.cols)
    t["emotion_tags"] = _frame("emotion_tags", ld.tags.cols)
    t["binary_judgements"] = _frame("binary_judgements", ld.judgements.cols)
    t["pairwise_comparisons"] = _frame("pairwise_comparisons", ld.pairwise.cols)

    t["predictors"] = _frame(
        "predictors",
        dict(
            zip(TABLE_SCHEMAS["predictors"], zip(*predictor_rows) if predictor_rows else [[]] * 4)
        ),
    )
    t["runs"] = _keyed(ld, "runs", np.arange(len(ld.run_keys)), ld.runs.cols)
    t["pred_panas_items"] = _keyed(
        ld, "pred_panas_items", ld.pp_run, {"item": ld.pp_item, "value": ld.pp_value}
    )
    t["pred_survey_choices"] = _keyed(ld, "pred_survey_choices", ld.ps_run, ld.ps.cols)
    t["pred_turns"] = _keyed(ld, "pred_turns", ld.pt_run, ld.pt.cols)
    t["pred_emotion_tags"] = _keyed(ld, "pred_emotion_tags", ld.pe_run, ld.pe.cols)
    counts = np.asarray(ld.pb_block_n, dtype=np.int64)
    tasks = pa.array(_TASK_NAMES, type=pa.large_string())
    t["pred_binary"] = _keyed(
        ld,
        "pred_binary",
        np.repeat(np.asarray(ld.pb_block_run, dtype=np.int64), counts),
        {
            "turn": np.repeat(np.asarray(ld.pb_block_turn, dtype=np.int64), counts),
            "task": _take(tasks, np.repeat(np.asarray(ld.pb_block_task, dtype=np.int64), counts)),
            "question_id": ld.pb_qid,
            "value": ld.pb_value,
        },
    )
    t["pred_pairwise"] = _keyed(ld, "pred_pairwise", ld.pw_run, ld.pw.cols)
    return t  # fmt: skip


def _report(ld: _Loader, pre_events: list[tuple[str, str, str, str, str]]) -> LoadReport:
    files, paths, rules, origs, results = (
        (list(c) for c in zip(*pre_events)) if pre_events else ([], [], [], [], [])
    )
    for file, path, rule, original, result in ld.ev:
        files.append(file)
        paths.append(_resolve(path))
        rules.append(rule)
        origs.append(_short(original))
        results.append("" if result is None else _short(result))
    frame = pd.DataFrame({
        "file": pd.Series(files, dtype="str"),
        "path": pd.Series(paths, dtype="str"),
        "rule": pd.Series(rules, dtype="str"),
        "original": pd.Series(origs, dtype="str"),
        "result": pd.Series(results, dtype="str"),
    })  # fmt: skip
    return LoadReport(events=frame)
