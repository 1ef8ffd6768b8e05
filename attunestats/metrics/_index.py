"""Integer indexing of a release for the vectorised scoring kernels (private).

Conversations get codes ``c`` in the order of ``release.conversations``; ground-truth turns codes
``g`` (sorted by conversation, turn); runs (predictor, mode, conversation) codes ``r`` sorted by
predictor, mode and conversation; predictor x mode groups codes ``pm``; and the *scored* turns
(present in both the ground truth and the run, spec 4) codes ``k`` sorted by run and turn. Every
kernel works on numpy arrays indexed by these codes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from attunestats.metrics.conventions import ScoringOptions


def codes(values: pd.Series, categories: pd.Index) -> np.ndarray:
    """Position of each value in ``categories`` (-1 if absent or missing), as int64.

    Factorises first, so a long column of few distinct strings costs one hash pass.
    """
    codes, uniques = pd.factorize(values)
    mapping = categories.get_indexer(np.asarray(uniques, dtype=object))
    return np.append(mapping, -1).astype(np.int64).take(codes)


def _shown(df: pd.DataFrame, mask: np.ndarray, cols: list[str], n: int = 5) -> str:
    rows = df.loc[mask, cols].head(n).astype(str).agg("/".join, axis=1).tolist()
    more = int(mask.sum()) - len(rows)
    return ", ".join(rows) + (f" and {more} more" if more > 0 else "")


@dataclass
class ScoringIndex:
    """Codes and lookup arrays shared by the kernels."""

    release: object
    options: ScoringOptions
    conv_ids: pd.Index  # c -> conversation_id
    predictors: pd.Index
    modes: pd.Index
    turn_min: int
    turn_span: int
    # ground-truth turns
    gt_c: np.ndarray  # g -> c
    gt_turn: np.ndarray  # g -> turn number
    gt_key: np.ndarray  # sorted keys c * span + turn offset
    # runs
    runs: pd.DataFrame  # r -> predictor, mode, conversation_id (sorted)
    run_c: np.ndarray
    run_pm: np.ndarray
    run_key: np.ndarray  # sorted keys of runs
    pm: pd.DataFrame  # pm -> predictor, mode
    # scored turns
    turns: pd.DataFrame  # k -> predictor, mode, conversation_id, turn (sorted)
    k_run: np.ndarray
    k_g: np.ndarray
    k_key: np.ndarray  # sorted keys r * span + turn offset
    k_pred_row: np.ndarray  # k -> row of release.pred_turns

    @property
    def n_turns(self) -> int:
        return len(self.k_run)

    @property
    def n_runs(self) -> int:
        return len(self.run_c)

    @property
    def n_gt_turns(self) -> int:
        return len(self.gt_c)

    # --- key helpers --------------------------------------------------------------------------
    def _turn_offset(self, turns: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        t = turns.to_numpy(dtype=np.int64) - self.turn_min
        ok = (t >= 0) & (t < self.turn_span)
        return np.where(ok, t, 0), ok

    def conv_codes(self, df: pd.DataFrame) -> np.ndarray:
        return codes(df["conversation_id"], self.conv_ids)

    # The helpers below run over the answer tables (a million rows for one 10,000-turn
    # conversation): keys are built in place and temporaries freed as soon as they are used, so
    # that no more than a few row-length arrays are alive at once.
    def gt_turn_codes(self, df: pd.DataFrame) -> np.ndarray:
        """g of each row (conversation_id, turn); -1 if not a ground-truth turn."""
        key = self.conv_codes(df)
        t, ok = self._turn_offset(df["turn"])
        ok &= key >= 0
        key *= self.turn_span
        key += t
        del t
        return _lookup(self.gt_key, key, ok)

    def run_codes(self, df: pd.DataFrame) -> np.ndarray:
        """r of each row (predictor, mode, conversation_id); -1 if not a run."""
        key = codes(df["predictor"], self.predictors)
        ok = key >= 0
        for col, index in (("mode", self.modes), ("conversation_id", self.conv_ids)):
            part = codes(df[col], index)
            ok &= part >= 0
            key *= len(index)
            key += part
            del part
        return _lookup(self.run_key, key, ok)

    def turn_codes(self, df: pd.DataFrame) -> np.ndarray:
        """k of each row (predictor, mode, conversation_id, turn); -1 if not a scored turn."""
        key = self.run_codes(df)
        t, ok = self._turn_offset(df["turn"])
        ok &= key >= 0
        key *= self.turn_span
        key += t
        del t
        return _lookup(self.k_key, key, ok)


def _lookup(sorted_keys: np.ndarray, keys: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Position of each key in ``sorted_keys`` (-1 where absent or not ``ok``); overwrites
    ``keys`` and ``ok``."""
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    pos = np.searchsorted(sorted_keys, keys)
    np.minimum(pos, len(sorted_keys) - 1, out=pos)
    ok &= sorted_keys[pos] == keys
    del keys
    pos[~ok] = -1
    return pos.astype(np.int64, copy=False)


def build_index(release: object, options: ScoringOptions) -> ScoringIndex:
    """Codes for every conversation, ground-truth turn, run and scored turn of ``release``.

    Raises ``ValueError`` for run files or run turns that the ground truth lacks (spec 4), for
    duplicated keys and for run turns without a run.
    """
    t = release.tables
    conv = t["conversations"]
    conv_ids = pd.Index(conv["conversation_id"].astype(object), dtype=object)
    if conv_ids.has_duplicates:
        dup = conv_ids[conv_ids.duplicated()].unique().tolist()[:5]
        raise ValueError(f"release.conversations has duplicated conversation_id values {dup}")

    gt_turns = t["turns"]
    pred_turns = t["pred_turns"]
    runs = t["runs"]
    all_turns = np.concatenate(
        [gt_turns["turn"].to_numpy(np.int64), pred_turns["turn"].to_numpy(np.int64)]
    )
    turn_min = int(all_turns.min()) if len(all_turns) else 0
    turn_span = int(all_turns.max()) - turn_min + 1 if len(all_turns) else 1

    # ground-truth turns
    gc = codes(gt_turns["conversation_id"], conv_ids)
    if (gc < 0).any():
        bad = gc < 0
        raise ValueError(
            "release.turns has turns of conversations missing from release.conversations: "
            + _shown(gt_turns, bad, ["conversation_id", "turn"])
        )
    gkey = gc * turn_span + (gt_turns["turn"].to_numpy(np.int64) - turn_min)
    order = np.argsort(gkey, kind="stable")
    gkey = gkey[order]
    if len(gkey) and (np.diff(gkey) == 0).any():
        raise ValueError("release.turns has duplicated (conversation_id, turn) rows")
    gt_c = gc[order]
    gt_turn = gt_turns["turn"].to_numpy(np.int64)[order]

    # runs
    rc = codes(runs["conversation_id"], conv_ids)
    if (rc < 0).any():
        raise ValueError(
            "release.runs has run files for conversations the ground truth lacks (spec 4): "
            + _shown(runs, rc < 0, ["predictor", "mode", "conversation_id"])
        )
    predictors = pd.Index(sorted(runs["predictor"].astype(object).unique()), dtype=object)
    modes = pd.Index(sorted(runs["mode"].astype(object).unique()), dtype=object)
    rp = codes(runs["predictor"], predictors)
    rm = codes(runs["mode"], modes)
    rkey = (rp * len(modes) + rm) * len(conv_ids) + rc
    # sort runs by predictor, mode, then conversation order of release.conversations
    order = np.argsort(rkey, kind="stable")
    rkey = rkey[order]
    if len(rkey) and (np.diff(rkey) == 0).any():
        raise ValueError("release.runs has duplicated (predictor, mode, conversation_id) rows")
    runs_sorted = runs.iloc[order][["predictor", "mode", "conversation_id"]].reset_index(drop=True)
    run_c = rc[order]
    pm_code = (rp * len(modes) + rm)[order]
    pm_unique, run_pm = np.unique(pm_code, return_inverse=True)
    pm = pd.DataFrame(
        {
            "predictor": pd.array(predictors.to_numpy()[pm_unique // len(modes)], dtype="str"),
            "mode": pd.array(modes.to_numpy()[pm_unique % len(modes)], dtype="str"),
        }
    )

    index = ScoringIndex(
        release=release,
        options=options,
        conv_ids=conv_ids,
        predictors=predictors,
        modes=modes,
        turn_min=turn_min,
        turn_span=turn_span,
        gt_c=gt_c,
        gt_turn=gt_turn,
        gt_key=gkey,
        runs=runs_sorted,
        run_c=run_c,
        run_pm=run_pm.astype(np.int64),
        run_key=rkey,
        pm=pm,
        turns=pd.DataFrame(),
        k_run=np.zeros(0, np.int64),
        k_g=np.zeros(0, np.int64),
        k_key=np.zeros(0, np.int64),
        k_pred_row=np.zeros(0, np.int64),
    )

    # scored turns: run turns (pred_turns) whose ground-truth turn exists
    pr = index.run_codes(pred_turns)
    if (pr < 0).any():
        raise ValueError(
            "release.pred_turns has turns of runs missing from release.runs: "
            + _shown(pred_turns, pr < 0, ["predictor", "mode", "conversation_id", "turn"])
        )
    pg = index.gt_turn_codes(pred_turns)
    if (pg < 0).any():
        raise ValueError(
            "release.pred_turns has run turns the ground truth lacks (spec 4): "
            + _shown(pred_turns, pg < 0, ["predictor", "mode", "conversation_id", "turn"])
        )
    kkey = pr * turn_span + (pred_turns["turn"].to_numpy(np.int64) - turn_min)
    order = np.argsort(kkey, kind="stable")
    kkey = kkey[order]
    if len(kkey) and (np.diff(kkey) == 0).any():
        raise ValueError(
            "release.pred_turns has duplicated (predictor, mode, conversation_id, turn)"
        )
    k_run = pr[order]
    k_g = pg[order]
    index.k_run = k_run
    index.k_g = k_g
    index.k_key = kkey
    index.k_pred_row = order.astype(np.int64)
    index.turns = pd.DataFrame(
        {
            "predictor": runs_sorted["predictor"].to_numpy()[k_run],
            "mode": runs_sorted["mode"].to_numpy()[k_run],
            "conversation_id": runs_sorted["conversation_id"].to_numpy()[k_run],
            "turn": gt_turn[k_g],
        }
    )
    return index


def expand(group_of_row: np.ndarray, n_groups: int, targets_group: np.ndarray):
    """Pair every target with every row of its group.

    ``group_of_row`` gives the group of each row of a table sorted by group; ``targets_group`` the
    group of each target (e.g. the ground-truth turn of each scored turn). Returns
    ``(target, row)`` arrays listing, for each target in order, the rows of its group in order.
    """
    counts = np.bincount(group_of_row, minlength=n_groups)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    per_target = counts[targets_group]
    total = int(per_target.sum())
    target = np.repeat(np.arange(len(targets_group), dtype=np.int64), per_target)
    first = np.repeat(starts[targets_group], per_target)
    offsets = np.arange(total, dtype=np.int64) - np.repeat(
        np.cumsum(per_target) - per_target, per_target
    )
    return target, first + offsets
