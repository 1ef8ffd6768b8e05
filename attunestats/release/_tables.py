"""Columns -> tables: the loader's columns as the typed tables of a :class:`Release`.

Private helper of :mod:`attunestats.release.load`. Every table gets exactly the columns and
dtypes of :data:`~attunestats.release.model.TABLE_SCHEMAS`; prediction tables get their key
columns (predictor, mode, conversation_id) from the run index. :func:`_report` builds the
:class:`~attunestats.release.model.LoadReport`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from attunestats._arrow import release_free_memory, str_array, str_dictionary, take_str
from attunestats.release._loader import _TASK_NAMES, _Loader, _natural, _resolve, _short
from attunestats.release.model import TABLE_SCHEMAS, LoadReport, coerce_table

#: Columns of at least this many rows are followed by :func:`release_free_memory`.
_BIG = 100_000


def _frame(name: str, cols: dict[str, Any]) -> pd.DataFrame:
    """The typed table ``name`` from ``cols``, which it consumes: each column is removed from
    ``cols`` as soon as it is converted, so that the loader's Python lists are freed one by one
    while the table is built (the memory peak of a large release is here)."""
    schema = TABLE_SCHEMAS[name]
    data = {}
    for col, dtype in schema.items():
        values = cols.pop(col)
        if dtype == "str":
            data[col] = (
                values
                if isinstance(values, pd.api.extensions.ExtensionArray)
                else str_array(values)
            )
        elif dtype == "int64":
            data[col] = np.asarray(values, dtype=np.int64)
        elif dtype == "float64":
            data[col] = np.asarray(values, dtype=np.float64)
        else:
            data[col] = np.asarray(values, dtype=dtype)
        big = len(data[col]) >= _BIG
        del values
        if big:  # the list just converted may sit in the C heap, which keeps it unless trimmed
            release_free_memory()
    return coerce_table(name, pd.DataFrame(data, copy=False), copy=False)


def _keyed(
    ld: _Loader, name: str, run_idx: Sequence[int] | np.ndarray, cols: dict[str, Any]
) -> pd.DataFrame:
    """A prediction table: ``cols`` (consumed, see :func:`_frame`) plus the key columns of each
    row's run (``run_idx``)."""
    idx = np.asarray(run_idx, dtype=np.int32 if len(ld.run_keys) < 2**31 else np.int64)
    keys = list(zip(*ld.run_keys)) if ld.run_keys else [(), (), ()]
    for col, values in zip(("predictor", "mode", "conversation_id"), keys):
        cols[col] = take_str(str_dictionary(values), idx)
    del idx
    return _frame(name, cols)


def _pop(ld: _Loader, *names: str) -> list[Any]:
    """The loader's columns ``names``, handed over: the loader no longer holds them."""
    out = [getattr(ld, n) for n in names]
    for n in names:
        setattr(ld, n, [])
    return out


def _tables(
    ld: _Loader, predictor_rows: list[tuple[str, str, str, int]]
) -> dict[str, pd.DataFrame]:
    """Every table of the release, built from the loader's columns, which it consumes (the loader
    keeps its events and counts; its columns are empty afterwards)."""
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
    pp_run, pp_item, pp_value = _pop(ld, "pp_run", "pp_item", "pp_value")
    t["pred_panas_items"] = _keyed(
        ld, "pred_panas_items", pp_run, {"item": pp_item, "value": pp_value}
    )
    del pp_run, pp_item, pp_value
    t["pred_survey_choices"] = _keyed(ld, "pred_survey_choices", *_pop(ld, "ps_run"), ld.ps.cols)
    t["pred_turns"] = _keyed(ld, "pred_turns", *_pop(ld, "pt_run"), ld.pt.cols)
    t["pred_emotion_tags"] = _keyed(ld, "pred_emotion_tags", *_pop(ld, "pe_run"), ld.pe.cols)
    # pred_binary: one row per answer (the largest table by far); int32 row indices
    run, turn, task, n = (
        np.asarray(v, dtype=np.int32 if name != "pb_block_turn" else np.int64)
        for name, v in zip(
            ("pb_block_run", "pb_block_turn", "pb_block_task", "pb_block_n"),
            _pop(ld, "pb_block_run", "pb_block_turn", "pb_block_task", "pb_block_n"),
        )
    )
    qid, value = _pop(ld, "pb_qid", "pb_value")
    tasks = str_dictionary(_TASK_NAMES)
    cols = {
        "turn": np.repeat(turn, n),
        "task": take_str(tasks, np.repeat(task, n)),
        "question_id": qid,
        "value": value,
    }
    del qid, value, turn, task
    t["pred_binary"] = _keyed(ld, "pred_binary", np.repeat(run, n), cols)
    del cols, run, n
    t["pred_pairwise"] = _keyed(ld, "pred_pairwise", *_pop(ld, "pw_run"), ld.pw.cols)
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
