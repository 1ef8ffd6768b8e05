"""Coverage study: independent releases -> attunestats default pipeline.

usage: python study.py CELL N_REPS [N_BOOT]
CELL in icc0, icc01, icc05, unb_icc0, unb_icc01, unb_icc05
Appends one row per replicate x metric to results/<CELL>.csv (resumable).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import warnings

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402

import attunestats as at  # noqa: E402

SV = {  # calibrated by calib.py: observed conversation-level ICC of the C-A difference
    "0": {"binary": 0.0, "pairwise": 0.0},
    "01": {"binary": 0.1716, "pairwise": 0.2667},
    "05": {"binary": 0.5503, "pairwise": 0.8552},
}
METRIC_NAME = {"binary": "avg_binary_om_accuracy", "pairwise": "avg_pairwise_accuracy"}
NAMES = list(METRIC_NAME.values())
P = 11


def counts_for(cell, rng):
    if cell.startswith("unb"):
        return rng.integers(6, 31, P)
    return np.full(P, 18)


def main():
    cell, n_reps = sys.argv[1], int(sys.argv[2])
    n_boot = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    icc = cell.split("icc")[1]
    params = gen.Params(mu=gen.default_mu(), sv=SV[icc])
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    out = os.path.join(HERE, "results", f"{cell}.csv")
    done = set()
    if os.path.exists(out):
        done = set(pd.read_csv(out)["rep"].unique())
    relpath = os.path.join(HERE, f"work_{cell}")
    warn_log = open(os.path.join(HERE, "results", f"{cell}_warnings.txt"), "a")  # noqa: SIM115
    cell_seed = {"icc0": 1, "icc01": 2, "icc05": 3, "unb_icc0": 4, "unb_icc01": 5, "unb_icc05": 6}[
        cell
    ]
    t0 = time.time()
    for rep in range(n_reps):
        if rep in done:
            continue
        seed = cell_seed * 1_000_003 + rep
        crng = np.random.default_rng([seed, 99])
        counts = counts_for(cell, crng)
        shutil.rmtree(relpath, ignore_errors=True)
        latent = gen.generate_release(relpath, seed, params, counts)
        cond = gen.conditional_truth(params, latent)
        rows = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rel = at.load_release(relpath)
            scores = at.score(rel)
            res = at.infer_scores(scores, metrics=NAMES)
            cmp = at.compare_models(res, correction="none")
            boot = at.bootstrap_scores(
                scores, metrics=NAMES, unit="conversation", n_resamples=n_boot, rng=seed
            )
            bcmp = at.compare_models(boot, correction="none")
        for w in caught:
            warn_log.write(f"{rep}\t{w.category.__name__}\t{str(w.message)[:400]}\n")
        fr, bf = res.to_frame(), boot.to_frame()
        for k, mname in METRIC_NAME.items():
            row = {"rep": rep, "metric": k, "n_conv": int(counts.sum())}
            for j, m in enumerate(gen.MODELS):
                s = fr[(fr.metric == mname) & (fr.predictor == m)].iloc[0]
                b = bf[(bf.metric == mname) & (bf.predictor == m)].iloc[0]
                tag = m[-1]
                row.update(
                    {
                        f"est_{tag}": s.estimate,
                        f"se_{tag}": s.standard_error,
                        f"lo_{tag}": s.ci_low,
                        f"hi_{tag}": s.ci_high,
                        f"df_{tag}": s.df,
                        f"blo_{tag}": b.ci_low,
                        f"bhi_{tag}": b.ci_high,
                        f"bse_{tag}": b.standard_error,
                        f"cond_{tag}": cond[k][j],
                    }
                )
            for src, c in (("", cmp), ("b", bcmp)):
                pr = c.pairs[c.pairs.metric == mname]
                ab = pr[(pr.predictor_a == "model-A") & (pr.predictor_b == "model-B")].iloc[0]
                ac = pr[(pr.predictor_a == "model-A") & (pr.predictor_b == "model-C")].iloc[0]
                row.update(
                    {
                        f"{src}ab_diff": ab.difference,
                        f"{src}ab_p": ab.pvalue,
                        f"{src}ab_lo": ab.ci_low,
                        f"{src}ab_hi": ab.ci_high,
                        f"{src}ab_se": ab.standard_error,
                        # C - A = -(A - C)
                        f"{src}ca_diff": -ac.difference,
                        f"{src}ca_lo": -ac.ci_high,
                        f"{src}ca_hi": -ac.ci_low,
                        f"{src}ca_se": ac.standard_error,
                        f"{src}ca_p": ac.pvalue,
                        f"{src}ca_df": ac.df,
                    }
                )
            rows.append(row)
        pd.DataFrame(rows).to_csv(out, mode="a", header=not os.path.exists(out), index=False)
        if rep % 10 == 0:
            print(cell, rep, f"{time.time() - t0:.0f}s", flush=True)
    shutil.rmtree(relpath, ignore_errors=True)
    warn_log.close()


if __name__ == "__main__":
    main()
