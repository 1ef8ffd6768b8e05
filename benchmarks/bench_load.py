"""Benchmark: load a paper-sized release (200 conversations, 14 predictors, ~3,000 files).

The release is written by the simulator (``simulate_release``, seed 20260521: 200 conversations,
11 simulated models and 3 human raters, one default-mode run per predictor and conversation).

Timed, in the same process, on the same files (read once before timing, so the OS cache is warm):

- floor: ``json.loads`` of every file, nothing else;
- ``load_release``: parse, validate, normalise and build every table (best of 3);
- baseline: the straightforward pandas reading, file by file: ``pandas.json_normalize`` of the
  turns and of their nested records (tags, judgements, comparisons), the run turns flattened to
  wide columns and melted to long binary answers, one small DataFrame per file and table, then
  ``pandas.concat`` (no validation, no normalisation rules, no load report). It takes minutes on
  the full release (about 43 ms per run file), so it is timed on every ground-truth file and on
  the run files of 2 of the 14 predictors, and its run part is scaled by the number of run files
  (the cost per run file is flat); the printout says so;
- ``load_release`` with the cyclic garbage collector left running (our first version): the same
  code without pausing the collector.

Target (issue 2): ``load_release`` under 10 s on this machine. Wall times depend on what else runs
on the machine; CPU time (``time.process_time``) is printed as well.

Run: .venv/bin/python benchmarks/bench_load.py  (prints times and the ratio)
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pandas as pd

from attunestats.release.load import _load, load_release
from attunestats.release.simulate import simulate_release

SEED = 20260521
TARGET_SECONDS = 10.0
TASKS = {
    "em_binary_om_assessment": "om",
    "em_binary_human_prediction": "human",
    "em_binary_om_assessment_hp": "om_hp",
    "em_binary_human_prediction_hp": "human_hp",
    "em_draft_binary_assessment": "draft",
}


def json_floor(root: Path) -> int:
    n = 0
    for p in sorted(root.rglob("*.json")):
        json.loads(p.read_bytes())
        n += 1
    return n


def baseline_ground_truth(root: Path) -> dict[str, pd.DataFrame]:
    """Per-file pandas reading of the ground truth into long tables (no validation)."""
    parts: dict[str, list[pd.DataFrame]] = {}

    def add(name: str, df: pd.DataFrame) -> None:
        parts.setdefault(name, []).append(df)

    for p in sorted((root / "conversations").glob("conversation_*.json")):
        doc = json.loads(p.read_bytes())
        cid = doc["conversationId"]
        turns = [t for t in doc["turns"] if t.get("annotations")]
        add("conversations", pd.json_normalize({k: v for k, v in doc.items() if k != "turns"}))
        add("turns", pd.json_normalize(doc["turns"]).assign(conversation_id=cid))
        add("emotion_tags", pd.json_normalize(doc["turns"], "moodShiftTags", ["turnNumber"]).assign(conversation_id=cid))  # fmt: skip
        add("binary_judgements", pd.json_normalize(turns, ["annotations", "binaryJudgements"], ["turnNumber"]).assign(conversation_id=cid))  # fmt: skip
        add("pairwise_comparisons", pd.json_normalize(turns, ["annotations", "pairwiseComparisons"], ["turnNumber"]).assign(conversation_id=cid))  # fmt: skip
    return {name: pd.concat(dfs, ignore_index=True) for name, dfs in parts.items()}


def baseline_runs(files: list[Path]) -> dict[str, pd.DataFrame]:
    """Per-file pandas reading of run files into long tables (no validation)."""
    parts: dict[str, list[pd.DataFrame]] = {}

    def add(name: str, df: pd.DataFrame) -> None:
        parts.setdefault(name, []).append(df)

    for p in files:
        doc = json.loads(p.read_bytes())
        key = {"predictor": p.parent.name, "mode": doc.get("mode"), "conversation_id": doc["conversationId"]}  # fmt: skip
        add("runs", pd.json_normalize({k: v for k, v in doc.items() if k != "turns"}).assign(**key))  # fmt: skip
        wide = pd.json_normalize(doc["turns"]).assign(**key)
        add("pred_turns", wide)
        binary_cols = [c for c in wide.columns if c.split(".")[0] in TASKS]
        long = wide.melt(id_vars=["turnNumber"], value_vars=binary_cols, var_name="field")
        long = long.dropna(subset=["value"])
        field = long["field"].str.split(".", n=1, expand=True)
        long = long.assign(task=field[0].map(TASKS), question_id=field[1], **key)
        add("pred_binary", long.drop(columns="field"))
        add("pred_emotion_tags", pd.json_normalize(doc["turns"], "em_emotion_tags", ["turnNumber"]).assign(**key))  # fmt: skip
        sel = [
            {"turnNumber": t["turnNumber"], "comparison": int(i), "selection": s}
            for t in doc["turns"]
            for i, s in (t.get("em_pairwise_selections") or {}).items()
        ]
        add("pred_pairwise", pd.DataFrame(sel).assign(**key))
    return {name: pd.concat(dfs, ignore_index=True) for name, dfs in parts.items()}


def timed(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = simulate_release(Path(tmp) / "release", rng=SEED)
        n_files = json_floor(root)  # warm the OS cache
        _, floor_wall, floor_cpu = timed(json_floor, root)

        runs = [timed(load_release, root) for _ in range(3)]
        release, ours_wall, ours_cpu = min(runs, key=lambda r: r[1])
        _, gc_wall, gc_cpu = timed(_load, root, None)  # garbage collector running

        run_files = sorted((root / "runs").rglob("*.json"))
        predictors = sorted({p.parent.name for p in run_files})
        sample = [p for p in run_files if p.parent.name in predictors[:: len(predictors) // 2][:2]]
        scale = len(run_files) / len(sample)
        base_gt, gt_wall, gt_cpu = timed(baseline_ground_truth, root)
        base_runs, br_wall, br_cpu = timed(baseline_runs, sample)
        base_wall, base_cpu = gt_wall + scale * br_wall, gt_cpu + scale * br_cpu

    print(f"paper-sized release: {n_files} JSON files, {len(release.conversations)} conversations, "
          f"{len(release.predictors)} predictors, {len(release.runs)} runs")  # fmt: skip
    print("rows: " + ", ".join(f"{k} {len(v):,}" for k, v in release.tables.items()))
    print(f"baseline rows: binary_judgements {len(base_gt['binary_judgements']):,}; on "
          f"{len(sample)} of {len(run_files)} run files: pred_binary "
          f"{len(base_runs['pred_binary']):,}, pred_emotion_tags "
          f"{len(base_runs['pred_emotion_tags']):,}")  # fmt: skip
    print(
        f"json.loads of every file (floor):      {floor_wall:7.2f} s wall, {floor_cpu:7.2f} s CPU"
    )
    print(f"load_release (best of 3):              {ours_wall:7.2f} s wall, {ours_cpu:7.2f} s CPU")
    print(f"load_release, garbage collector on:    {gc_wall:7.2f} s wall, {gc_cpu:7.2f} s CPU")
    print(
        f"baseline, per-file json_normalize:     {base_wall:7.2f} s wall, {base_cpu:7.2f} s CPU"
        f"  (ground truth {gt_wall:.2f} s measured + runs {br_wall:.2f} s on "
        f"{len(sample)} files x {scale:.1f})"
    )
    print(f"ratio baseline / load_release: {base_wall / ours_wall:.1f}x wall, "
          f"{base_cpu / ours_cpu:.1f}x CPU; garbage collector on / off: "
          f"{gc_wall / ours_wall:.2f}x wall, {gc_cpu / ours_cpu:.2f}x CPU")  # fmt: skip
    verdict = "meets" if ours_wall < TARGET_SECONDS else "MISSES"
    print(f"load_release {verdict} the {TARGET_SECONDS:.0f} s target ({ours_wall:.2f} s wall)")


if __name__ == "__main__":
    main()
