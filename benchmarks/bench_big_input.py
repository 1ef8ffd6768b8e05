"""Benchmark: one long conversation (1,000 to 10,000 turns), loaded and scored: the scaling curve.

Issue 19's target: loading and scoring grow linearly with the number of turns; one 10,000-turn
conversation scores in under 5 s and 300 MB peak.

The release is written by the simulator (seed 1, messiness 0): one conversation of N turns, its
ground truth, one simulated model and one simulated human rater (the shape of the hand-written
``tests/data/release_small``); at 10,000 turns that is 101 MB of JSON (ground truth 37 MB, each
run 32 MB) and 1.15 million binary answers. Each size is measured in a fresh subprocess, so that
peak memory is that size's alone:

- CPU seconds (``time.process_time``) and wall seconds of ``load_release`` and of ``score``;
- peak resident memory (``VmHWM`` of ``/proc/self/status``; ``ru_maxrss`` is not used: after
  fork and exec it can report the parent's peak): after importing the package (numpy,
  pandas, scipy, pyarrow, pydantic: the same for every size), the peak after loading and the peak
  after scoring. "data peak" is the peak minus the memory after the imports: what the input
  costs.

The target is judged on CPU time (the machine is shared: wall time varies with what else runs)
and on the data peak; the total peak is printed too.

Run: .venv/bin/python benchmarks/bench_big_input.py [N ...]   (default sizes 1000 2500 5000 10000)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

SIZES = (1_000, 2_500, 5_000, 10_000)
TARGET_SECONDS = 5.0
TARGET_MB = 300.0

CHILD = r"""
import json, sys, time
def rss():  # peak resident set of this process (VmHWM: unlike ru_maxrss, not the parent's)
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024
from attunestats.metrics import score
from attunestats.release.load import load_release
out = {"rss_import": rss()}
cpu, wall = time.process_time(), time.perf_counter()
release = load_release(sys.argv[1], warn=False)
out["load_cpu"], out["load_wall"] = time.process_time() - cpu, time.perf_counter() - wall
out["rss_load"] = rss()
cpu, wall = time.process_time(), time.perf_counter()
scores = score(release)
out["score_cpu"], out["score_wall"] = time.process_time() - cpu, time.perf_counter() - wall
out["rss_score"] = rss()
out["answers"] = len(release.tables["pred_binary"])

print(json.dumps(out))
"""


def make_release(root: Path, n_turns: int) -> Path:
    from attunestats.release.simulate import simulate_release

    return simulate_release(
        root, rng=1, n_conversations=1, n_participants=1, n_topics=1, n_models=1,
        n_human_raters=1, n_turns_range=(n_turns, n_turns), messiness=0.0,
    )  # fmt: skip


def measure(root: Path) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(sizes: tuple[int, ...] = SIZES) -> list[dict[str, float]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            root = make_release(Path(tmp) / f"release_{n}", n)
            mb = sum(p.stat().st_size for p in root.rglob("*.json")) / 2**20
            r = measure(root)
            r.update(turns=n, json_mb=mb)
            r["cpu"] = r["load_cpu"] + r["score_cpu"]
            r["wall"] = r["load_wall"] + r["score_wall"]
            r["peak"] = max(r["rss_load"], r["rss_score"])
            r["data_peak"] = r["peak"] - r["rss_import"]
            rows.append(r)
            print(
                f"{n:>6} turns ({mb:5.1f} MB JSON, {r['answers']:>9,} answers): "
                f"load {r['load_cpu']:.2f} s CPU ({r['load_wall']:.2f} wall), "
                f"score {r['score_cpu']:.2f} s CPU ({r['score_wall']:.2f} wall), "
                f"peak {r['peak']:.0f} MB (imports {r['rss_import']:.0f}, data {r['data_peak']:.0f}; "
                f"after load {r['rss_load']:.0f})",
                flush=True,
            )
    first, last = rows[0], rows[-1]
    scale = last["turns"] / first["turns"]
    print(f"\n{first['turns']:,} -> {last['turns']:,} turns (x{scale:g}): "
          f"load CPU x{last['load_cpu'] / first['load_cpu']:.1f}, "
          f"score CPU x{last['score_cpu'] / first['score_cpu']:.1f}, "
          f"data peak x{last['data_peak'] / first['data_peak']:.1f}")  # fmt: skip
    if last["turns"] == 10_000:
        ok_t = last["cpu"] < TARGET_SECONDS
        ok_m = last["data_peak"] < TARGET_MB
        print(f"target (10,000 turns, load + score): {last['cpu']:.2f} s CPU < {TARGET_SECONDS:g} s: "
              f"{'met' if ok_t else 'NOT met'}; data peak {last['data_peak']:.0f} MB < {TARGET_MB:g} MB: "
              f"{'met' if ok_m else 'NOT met'} (total peak {last['peak']:.0f} MB)")  # fmt: skip
    return rows


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
