"""Benchmark: replicates per second of the coverage study, serially vs a 2-worker Dask LocalCluster.

The coverage study (``attunestats.design.studies``, kind ``coverage``) draws a release, scores it and
bootstraps every predictor and paired difference per replicate. Baseline: the serial executor in
this process. Compared: a ``distributed.LocalCluster(n_workers=2, threads_per_worker=1)`` started
here (and, for reference, two local processes). Each executor runs the same replicates into its
own file; the files are checked to be byte-identical. Rates are replicates per second of compute
time (setup, i.e. the population values, excluded: it runs once per study) and per second of wall
time including the cluster start.

Run: .venv/bin/python benchmarks/bench_studies.py [n_replicates]   (prints times and the ratio)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from attunestats.design.studies import make_study, run_study

CONFIG = {
    "simulation": {"n_conversations": 80, "n_models": 3, "n_human_raters": 0, "n_topics": 20},
    "population_conversations": 1000,
    "population_chunk_size": 500,
    "n_resamples": 500,
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    study = make_study("coverage", CONFIG, n_replicates=n, rng=1)
    print(f"coverage study, {n} replicates: releases of 80 conversations x 3 models, "
          f"B = 500 BCa; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        results = {}
        for label, options in (
            ("serial", {"executor": "serial"}),
            ("dask LocalCluster x2", {"executor": "dask", "n_workers": 2}),
            ("processes x2", {"executor": "processes", "n_workers": 2}),
        ):
            start = time.perf_counter()
            res = run_study(study, out / f"{label.split()[0]}.parquet", progress=False, **options)
            wall = time.perf_counter() - start
            results[label] = res
            print(f"{label:22s} compute {res.compute_time:7.1f} s  "
                  f"{res.replicates_per_second:6.3f} replicates/s  "
                  f"(wall {wall:6.1f} s incl. setup {res.elapsed - res.compute_time:5.1f} s)")  # fmt: skip
        base = results["serial"]
        reference = base.path.read_bytes()
        for label, res in results.items():
            same = res.path.read_bytes() == reference
            ratio = res.replicates_per_second / base.replicates_per_second
            print(f"{label:22s} speed-up {ratio:5.2f}x over serial; identical file: {same}")


if __name__ == "__main__":
    main()
