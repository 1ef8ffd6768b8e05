"""Does the recovery study's chain length change its coverage? (issue 20)

The recovery study (:mod:`attunestats.design.recovery`, ``attunestats study run
hierarchical_recovery``) fits each replicate with 4 chains x (300 tuning + 500 draws), too short
for the diagnostics gate: none of the 1,400 fits behind the table of benchmarks/RESULTS.md passed
it (median worst r_hat 1.016-1.032, median smallest bulk ESS 150-290 per scenario). This script
fits the same replicates (same seeds, so the same simulated releases) twice, with the study's
chains and with the full build's 4 x (1,000 + 2,000), and writes both sets of rows, so that
intervals and coverage can be compared quantity by quantity: if the short chains changed the
study's answer, the two would disagree beyond their Monte Carlo noise.

Usage::

    python benchmarks/study_recovery_chains.py SCENARIO N_REPLICATES OUT.parquet [ROOT_SEED]

Each replicate is appended to OUT.parquet as soon as both fits are done (a stopped run keeps what
it finished). Simulated data only: these numbers check the method, not real models.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from attunestats.design.recovery import replicate, study_config

SHORT = {"draws": 500, "tune": 300, "chains": 4}  # the study's defaults
LONG = {"draws": 2000, "tune": 1000, "chains": 4}  # the full build's


def main(scenario: str, n_replicates: int, out: Path, root: int = 20261207) -> None:
    seeds = np.random.SeedSequence([root, len(scenario)]).generate_state(n_replicates, np.uint64)
    done = pd.read_parquet(out) if out.exists() else pd.DataFrame()
    finished = set(done["replicate_seed"]) if len(done) else set()
    for i, seed in enumerate(int(s) >> 1 for s in seeds):
        if seed in finished:
            continue
        frames = []
        for label, chains in (("study", SHORT), ("full build", LONG)):
            config = study_config(misspecification=scenario, structures=("default",), **chains)
            t0 = time.perf_counter()
            rows = replicate(config, rng=seed)
            frames.append(rows.assign(chains_setting=label, replicate=i, replicate_seed=seed,
                                      wall_seconds=time.perf_counter() - t0))  # fmt: skip
        done = pd.concat([done, *frames], ignore_index=True)
        tmp = out.with_suffix(".tmp.parquet")
        done.to_parquet(tmp)
        tmp.replace(out)
        long = frames[1]
        print(f"{scenario} replicate {i}: long chains passed={bool(long['passed'].iloc[0])} "
              f"max r_hat {long['max_r_hat'].iloc[0]:.4f} "
              f"({frames[0]['wall_seconds'].iloc[0]:.0f} s + {long['wall_seconds'].iloc[0]:.0f} s)",
              flush=True)  # fmt: skip


def compare(paths: list[Path]) -> pd.DataFrame:
    """Per scenario and family: coverage with each chain length on the same replicates, how
    often the two disagree on covering, and how far the interval ends move (in widths)."""
    d = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    key = ["scenario", "replicate_seed", "family", "parameter"]
    wide = d.pivot_table(index=key, columns="chains_setting",
                         values=["covered", "ci_low", "ci_high", "width", "passed"],
                         aggfunc="first")  # fmt: skip
    s, f = "study", "full build"
    shift = np.maximum(abs(wide[("ci_low", s)] - wide[("ci_low", f)]),
                       abs(wide[("ci_high", s)] - wide[("ci_high", f)])) / wide[("width", f)]  # fmt: skip
    frame = pd.DataFrame({
        "covered_study": wide[("covered", s)].astype(float),
        "covered_full": wide[("covered", f)].astype(float),
        "disagree": (wide[("covered", s)] != wide[("covered", f)]).astype(float),
        "end_shift_in_widths": shift,
        "width_ratio": wide[("width", s)] / wide[("width", f)],
        "full_passed": wide[("passed", f)].astype(float),
    }).reset_index()  # fmt: skip
    g = frame.groupby(["scenario", "family"])
    out = g.agg(quantities=("disagree", "size"), replicates=("replicate_seed", "nunique"),
                coverage_study=("covered_study", "mean"), coverage_full=("covered_full", "mean"),
                disagree=("disagree", "mean"), median_end_shift=("end_shift_in_widths", "median"),
                median_width_ratio=("width_ratio", "median"),
                full_passed=("full_passed", "mean"))  # fmt: skip
    return out.reset_index()


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        print(compare([Path(p) for p in sys.argv[2:]]).round(3).to_string(index=False))
    else:
        root = int(sys.argv[4]) if len(sys.argv) > 4 else 20261207
        main(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), root)
