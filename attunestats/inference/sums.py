"""Statistics that are functions of per-conversation sums, and the scores -> statistic builder.

Every predictor-level AttuneBench metric is either a (null-aware) mean of conversation-level
values or a statistic of confusion counts summed over conversations. Both are functions of
*sums over conversations*: with conversation weights ``w`` (resample counts, jackknife
leave-outs, participant replicate weights) every statistic of every predictor is
``finalize(w @ X)``, where the columns of ``X`` hold the per-conversation sums. The bootstrap
and the participant-level (cluster) inference both evaluate statistics this way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores

# memory per block of resamples (sums and finalize temporaries): blocks of a few MB are reused
# by the allocator and stay in cache, where one block for all 10,000 resamples of ~1,000
# statistics allocates ~90 MB temporaries that cost a page fault per 4 KiB page (measured on the
# bundled release's full BCa pass: 16 MiB blocks ~20% faster than one block)
_DEFAULT_BATCH_BYTES = 16 * 2**20


# --------------------------------------------------------------------------------------------
# Statistics that are functions of per-conversation sums
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SumStatistic:
    """Statistics computable from weighted sums over conversations.

    ``values(W) = finalize(W @ X)``: ``X`` has one row per conversation and one column per
    summed quantity; ``finalize`` maps the (n, Q) sums to (n, L) statistics, one per label.
    """

    X: np.ndarray
    finalize: Callable[[np.ndarray], np.ndarray]
    labels: pd.DataFrame

    def evaluate(self, weights: np.ndarray, *, batch_size: int | None = None) -> np.ndarray:
        """Statistics for each row of ``weights`` (n, C) -> (n, L), in memory-bounded blocks.

        The result is stored column-major (each statistic's n resampled values contiguous), the
        layout its consumers read: quantiles, standard errors and BCa counts run down columns.
        The sums are formed as ``X.T @ W.T`` for the same reason (the product costs the same
        either way round; this way its output is column-major); ``finalize`` sees them as an
        (n, Q) column-major view, so it is written once for either layout.
        """
        weights = np.atleast_2d(weights)
        n = weights.shape[0]
        if batch_size is None:
            per_row = 8 * max(self.X.shape[1], len(self.labels)) * 3
            batch_size = max(1, _DEFAULT_BATCH_BYTES // max(per_row, 1))
        x_t = self.X.T
        with np.errstate(invalid="ignore", divide="ignore"):
            if batch_size >= n:  # one block: finalize's (column-major) output is the result
                return np.asfortranarray(self.finalize((x_t @ weights.T).T))
            out_t = np.empty((len(self.labels), n))  # (L, n): returned as its (n, L) transpose
            for start in range(0, n, batch_size):
                stop = min(n, start + batch_size)
                sums = (x_t @ weights[start:stop].T).T  # (b, Q), column-major
                out_t[:, start:stop] = self.finalize(sums).T
        return out_t.T


def mean_statistic(
    values: np.ndarray, labels: pd.DataFrame, *, mask: np.ndarray | None = None
) -> SumStatistic:
    """Null-aware means over conversations: column k is ``sum(w v_k m_k) / sum(w m_k)``.

    ``values`` is (C, L) with NaN for null; ``mask`` defaults to ``~isnan(values)``. Identical
    mask columns (most metrics are never null) share one summed column.
    """
    values = np.asarray(values, dtype=float)
    if mask is None:
        mask = ~np.isnan(values)
    filled = np.where(mask, np.nan_to_num(values), 0.0)
    n_labels = values.shape[1]
    unique_masks, mask_index = np.unique(mask.T, axis=0, return_inverse=True)
    mask_index = np.asarray(mask_index).reshape(-1)
    X = np.hstack([filled, unique_masks.T.astype(float)])
    # runs of consecutive labels sharing a mask: each run is one broadcast division of
    # contiguous columns (a gather of denominator columns per label is several times slower)
    starts = np.flatnonzero(np.diff(mask_index, prepend=-1))
    runs = [
        (int(a), int(b), n_labels + int(mask_index[a]))
        for a, b in zip(starts, [*starts[1:], n_labels], strict=True)
    ]

    def finalize(sums: np.ndarray) -> np.ndarray:
        out = np.empty((sums.shape[0], n_labels), order="F")
        for a, b, d in runs:
            np.divide(sums[:, a:b], sums[:, d : d + 1], out=out[:, a:b])
        return out

    return SumStatistic(X, finalize, labels.reset_index(drop=True))


def ratio_statistic(
    numerator: np.ndarray, denominator: np.ndarray, labels: pd.DataFrame
) -> SumStatistic:
    """Ratio-of-sums statistics: column k is ``sum(w a_k) / sum(w d_k)`` (pooled proportions)."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    n_labels = numerator.shape[1]
    X = np.hstack([numerator, denominator])

    def finalize(sums: np.ndarray) -> np.ndarray:
        return sums[:, :n_labels] / sums[:, n_labels:]

    return SumStatistic(X, finalize, labels.reset_index(drop=True))


def concat_statistics(parts: Sequence[SumStatistic]) -> SumStatistic:
    """One statistic evaluating several: X side by side, labels stacked."""
    parts = list(parts)
    if not parts:
        raise ValueError("concat_statistics needs at least one statistic")
    widths = np.cumsum([0] + [p.X.shape[1] for p in parts])
    offsets = np.cumsum([0] + [len(p.labels) for p in parts])
    X = np.hstack([p.X for p in parts])

    def finalize(sums: np.ndarray) -> np.ndarray:
        # filled part by part (no hstack copy), column-major like the sums evaluate() passes
        out = np.empty((sums.shape[0], int(offsets[-1])), order="F")
        for i, p in enumerate(parts):
            out[:, offsets[i] : offsets[i + 1]] = p.finalize(sums[:, widths[i] : widths[i + 1]])
        return out

    labels = pd.concat([p.labels for p in parts], ignore_index=True)
    return SumStatistic(X, finalize, labels)


# --------------------------------------------------------------------------------------------
# Scores -> statistics
# --------------------------------------------------------------------------------------------
def _codes(column: pd.Series, categories: Sequence[Any]) -> np.ndarray:
    """Position of each value of ``column`` in ``categories`` (-1 where absent or missing).

    Factorises the long column once (fast, whatever its string dtype) and looks up only its few
    distinct values, instead of hashing every row against the categories.
    """
    codes, uniques = pd.factorize(column)
    lookup = np.append(pd.Index(list(categories), dtype=object).get_indexer(uniques), -1)
    return lookup[codes]  # code -1 (missing) takes the appended -1


def scores_statistic(
    scores: Scores,
    *,
    metrics: Sequence[str] | None = None,
    predictors: Sequence[str] | None = None,
) -> tuple[SumStatistic, pd.DataFrame]:
    """The :class:`SumStatistic` of every (predictor, mode, metric) of ``scores``.

    Mean metrics use the null-aware conversation means; pooled metrics (registry aggregation
    ``"pooled"``) are recomputed from summed confusion counts. Returns the statistic and the
    design (one row per conversation, sorted by ``conversation_id``).
    """
    from attunestats.metrics.registry import METRICS, pooled_statistic

    conv = scores.conversation
    if predictors is not None:
        unknown = sorted(set(predictors) - set(conv["predictor"].unique()))
        if unknown:
            raise ValueError(
                f"unknown predictors {unknown}; available: {sorted(conv['predictor'].unique())}"
            )
        conv = conv[conv["predictor"].isin(list(predictors))]
    available = set(conv["metric"].unique())
    if metrics is None:
        metrics = [
            m for m, spec in METRICS.items() if spec.level == "conversation" and m in available
        ]
    else:
        bad = [m for m in metrics if m not in METRICS or METRICS[m].level != "conversation"]
        if bad:
            raise ValueError(
                f"not conversation-level metrics of the registry: {bad}; see attunestats.METRICS"
            )
    design = scores.design.sort_values("conversation_id", ignore_index=True)
    conv_ids = design["conversation_id"].astype(str).tolist()
    keys = conv[["predictor", "mode"]].drop_duplicates().sort_values(["predictor", "mode"])
    key_list = list(keys.itertuples(index=False, name=None))
    key_of = {k: i for i, k in enumerate(key_list)}
    n_keys = len(key_list)

    def key_codes(table: pd.DataFrame) -> np.ndarray:
        """Index into ``key_list`` of each row's (predictor, mode); -1 for other keys."""
        pred_codes, preds = pd.factorize(table["predictor"])
        mode_codes, modes = pd.factorize(table["mode"])
        lookup = np.full((len(preds) + 1, len(modes) + 1), -1, dtype=np.int64)
        for i, p in enumerate(preds):
            for j, md in enumerate(modes):
                lookup[i, j] = key_of.get((p, md), -1)
        return lookup[pred_codes, mode_codes]  # -1 codes index the last row/column: -1

    mean_metrics = [m for m in metrics if METRICS[m].aggregation == "mean"]
    pooled_metrics = [m for m in metrics if METRICS[m].aggregation == "pooled"]
    parts: list[SumStatistic] = []
    if mean_metrics:
        values = np.full((len(conv_ids), n_keys * len(mean_metrics)), np.nan)
        rows = _codes(conv["conversation_id"], conv_ids)
        metric = _codes(conv["metric"], mean_metrics)
        key = key_codes(conv)
        ok = (rows >= 0) & (metric >= 0) & (key >= 0)
        cols = key[ok] * len(mean_metrics) + metric[ok]
        values[rows[ok], cols] = conv["value"].to_numpy(dtype=float)[ok]
        labels = pd.DataFrame(
            [(p, md, m) for (p, md) in key_list for m in mean_metrics],
            columns=["predictor", "mode", "metric"],
        )
        parts.append(mean_statistic(values, labels))
    if pooled_metrics:
        counts = scores.counts
        if predictors is not None:
            counts = counts[counts["predictor"].isin(list(predictors))]
        # one block of (tp, tn, fp, fn) columns per (predictor, mode, task), shared by every
        # pooled statistic of that task
        tasks = list(dict.fromkeys(METRICS[m].pooled_task for m in pooled_metrics))
        X = np.zeros((len(conv_ids), 4 * n_keys * len(tasks)))
        rows = _codes(counts["conversation_id"], conv_ids)
        task = _codes(counts["task"], tasks)
        key = key_codes(counts)
        ok = (rows >= 0) & (task >= 0) & (key >= 0)
        block = key[ok] * len(tasks) + task[ok]
        for j, col in enumerate(("tp", "tn", "fp", "fn")):
            X[rows[ok], 4 * block + j] = counts[col].to_numpy(dtype=float)[ok]
        label_rows = [(p, md, m) for (p, md) in key_list for m in pooled_metrics]
        label_block = np.array(
            [key_of[(p, md)] * len(tasks) + tasks.index(METRICS[m].pooled_task)
             for p, md, m in label_rows]
        )  # fmt: skip
        label_stat = np.array([METRICS[m].pooled_stat for _, _, m in label_rows])
        stat_names = list(dict.fromkeys(label_stat))

        def finalize(sums: np.ndarray) -> np.ndarray:
            tp, tn, fp, fn = (sums[:, j::4] for j in range(4))
            out = np.empty((sums.shape[0], len(label_rows)), order="F")
            for stat in stat_names:
                sel = label_stat == stat
                out[:, sel] = pooled_statistic(stat, tp, tn, fp, fn)[:, label_block[sel]]
            return out

        labels = pd.DataFrame(label_rows, columns=["predictor", "mode", "metric"])
        parts.append(SumStatistic(X, finalize, labels))
    if not parts:
        raise ValueError("no metric to bootstrap")
    return concat_statistics(parts), design
