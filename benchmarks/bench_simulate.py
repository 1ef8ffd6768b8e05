"""Benchmark: simulate and write a paper-sized release (200 conversations, 11 models + 3 raters).

Baseline in the same process: writing the same documents with ``json.dump`` per file (indent 2,
the simulator's format) after simulating them, i.e. simulation cost vs raw serialisation cost.

Run: .venv/bin/python benchmarks/bench_simulate.py
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from attunestats.release.simulate import simulate_documents


def main() -> None:
    start = time.perf_counter()
    docs = simulate_documents(rng=1)
    simulate = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        docs.write(Path(tmp) / "release")
        write = time.perf_counter() - start
        start = time.perf_counter()
        raw = Path(tmp) / "raw"
        for name, doc in docs.conversations.items():
            (raw / "conversations").mkdir(parents=True, exist_ok=True)
            (raw / "conversations" / name).write_text(json.dumps(doc, indent=2, ensure_ascii=False))
        for predictor, files in docs.runs.items():
            (raw / "runs" / predictor).mkdir(parents=True, exist_ok=True)
            for name, doc in files.items():
                (raw / "runs" / predictor / name).write_text(
                    json.dumps(doc, indent=2, ensure_ascii=False)
                )
        baseline = time.perf_counter() - start
    n_files = len(docs.conversations) + sum(len(f) for f in docs.runs.values())
    print(f"files: {n_files}")
    print(f"simulate (in memory): {simulate:6.2f} s")
    print(f"write (atomic, checked): {write:6.2f} s")
    print(
        f"baseline json.dump of the same documents: {baseline:6.2f} s   (write / baseline = {write / baseline:.2f}x)"
    )


if __name__ == "__main__":
    main()
