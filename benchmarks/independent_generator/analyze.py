"""Summarise results/<cell>.csv against independently computed population truths."""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
from study import SV  # noqa: E402

CELLS = ["icc0", "icc01", "icc05", "unb_icc0", "unb_icc01", "unb_icc05"]
BAND_COV, BAND_SIZE = (0.925, 0.975), (0.025, 0.075)


def truths(cell):
    icc = cell.split("icc")[1]
    params = gen.Params(mu=gen.default_mu(), sv=SV[icc])
    if cell.startswith("unb"):
        sampler = lambda rng, n: rng.integers(6, 31, n)  # noqa: E731
    else:
        sampler = lambda rng, n: np.full(n, 18)  # noqa: E731
    mc = gen.population_truth_mc(params, sampler, n_part=2_000_000, seed=777)
    exact = gen.population_truth_exact(params)
    return mc, exact


def prop(x):
    x = np.asarray(x, dtype=float)
    p = x.mean()
    return p, np.sqrt(p * (1 - p) / len(x))


def ratio_boot(se, est, B=2000, seed=0):
    rng = np.random.default_rng(seed)
    se, est = np.asarray(se), np.asarray(est)
    r = se.mean() / est.std(ddof=1)
    idx = rng.integers(0, len(se), (B, len(se)))
    rb = se[idx].mean(1) / est[idx].std(1, ddof=1)
    return r, rb.std(ddof=1)


def flag(p, s, band):
    lo, hi = band
    if lo <= p <= hi:
        return ""
    if p + 1.96 * s < lo or p - 1.96 * s > hi:
        return "FLAG"
    return "(out, within MC err)"


def main():
    rows, truth_rows = [], []
    for cell in CELLS:
        try:
            d = pd.read_csv(os.path.join(HERE, "results", f"{cell}.csv"))
        except FileNotFoundError:
            continue
        mc, exact = truths(cell)
        for k in gen.METRICS:
            x = d[d.metric == k]
            R = len(x)
            T = mc[k]["means"]
            tca = mc[k]["C-A"]
            truth_rows.append(
                {
                    "cell": cell,
                    "metric": k,
                    "truth_A": T[0],
                    "truth_B": T[1],
                    "truth_C": T[2],
                    "truth_C-A": tca,
                    "mcse_C-A": mc[k]["mcse_C-A"],
                    "exact_A": exact[k][0],
                    "exact_C": exact[k][2],
                    "exact_C-A": exact[k][2] - exact[k][0],
                }
            )
            out = {"cell": cell, "metric": k, "R": R}
            for j, tag in enumerate("ABC"):
                c, s = prop((x[f"lo_{tag}"] <= T[j]) & (T[j] <= x[f"hi_{tag}"]))
                out[f"cov_{tag}"], out[f"cov_{tag}_se"] = c, s
                out[f"cov_{tag}_flag"] = flag(c, s, BAND_COV)
                r, rs = ratio_boot(x[f"se_{tag}"], x[f"est_{tag}"])
                out[f"ser_{tag}"], out[f"ser_{tag}_se"] = r, rs
                out[f"bias_{tag}"] = x[f"est_{tag}"].mean() - T[j]
                out[f"bias_{tag}_se"] = x[f"est_{tag}"].std(ddof=1) / np.sqrt(R)
                # conditional analysis vs the population truth and vs its own (conditional) truth
                c, s = prop((x[f"blo_{tag}"] <= T[j]) & (T[j] <= x[f"bhi_{tag}"]))
                out[f"bcov_{tag}"], out[f"bcov_{tag}_se"] = c, s
                c, s = prop(
                    (x[f"blo_{tag}"] <= x[f"cond_{tag}"]) & (x[f"cond_{tag}"] <= x[f"bhi_{tag}"])
                )
                out[f"bcovcond_{tag}"], out[f"bcovcond_{tag}_se"] = c, s
                r, rs = ratio_boot(x[f"bse_{tag}"], x[f"est_{tag}"])
                out[f"bser_{tag}"], out[f"bser_{tag}_se"] = r, rs
            c, s = prop((x.ca_lo <= tca) & (tca <= x.ca_hi))
            out["cov_CA"], out["cov_CA_se"], out["cov_CA_flag"] = c, s, flag(c, s, BAND_COV)
            r, rs = ratio_boot(x.ca_se, x.ca_diff)
            out["ser_CA"], out["ser_CA_se"] = r, rs
            out["bias_CA"] = x.ca_diff.mean() - tca
            out["bias_CA_se"] = x.ca_diff.std(ddof=1) / np.sqrt(R)
            c, s = prop(x.ab_p < 0.05)
            out["size_AB"], out["size_AB_se"], out["size_AB_flag"] = c, s, flag(c, s, BAND_SIZE)
            c2, _ = prop((x.ab_lo > 0) | (x.ab_hi < 0))
            out["size_AB_from_ci"] = c2
            r, rs = ratio_boot(x.ab_se, x.ab_diff)
            out["ser_AB"], out["ser_AB_se"] = r, rs
            out["power_CA"] = prop(x.ca_p < 0.05)[0]
            out["mean_df_CA"] = x.ca_df.mean()
            out["mean_df_A"] = x.df_A.mean()
            # conditional (conversation bootstrap)
            c, s = prop((x.bca_lo <= tca) & (tca <= x.bca_hi))
            out["bcov_CA"], out["bcov_CA_se"] = c, s
            condca = x.cond_C - x.cond_A
            c, s = prop((x.bca_lo <= condca) & (condca <= x.bca_hi))
            out["bcovcond_CA"], out["bcovcond_CA_se"] = c, s
            c, s = prop(x.bab_p < 0.05)
            out["bsize_AB"], out["bsize_AB_se"] = c, s
            condab = x.cond_A - x.cond_B
            c, s = prop((x.bab_lo <= condab) & (condab <= x.bab_hi))
            out["bcovcond_AB"], out["bcovcond_AB_se"] = c, s
            r, rs = ratio_boot(x.bca_se, x.ca_diff)
            out["bser_CA"], out["bser_CA_se"] = r, rs
            r, rs = ratio_boot(x.bab_se, x.ab_diff)
            out["bser_AB"], out["bser_AB_se"] = r, rs
            rows.append(out)
    res = pd.DataFrame(rows)
    tr = pd.DataFrame(truth_rows)
    res.to_csv(os.path.join(HERE, "results", "summary.csv"), index=False)
    tr.to_csv(os.path.join(HERE, "results", "truths.csv"), index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 60)
    print(tr.round(5).to_string(index=False))

    def f(v, s):
        return f"{v:.3f}±{s:.3f}"

    def col(name):
        """A column of ``res`` with its Monte Carlo SE (``<name>_se``), as "value±se"."""
        return [f(a, b) for a, b in zip(res[name], res[f"{name}_se"])]

    print("\n== Population (default: participant jackknife) ==")
    tab = pd.DataFrame(
        {
            "cell": res.cell,
            "metric": res.metric,
            "R": res.R,
            "cov A": col("cov_A"),
            "cov B": col("cov_B"),
            "cov C": col("cov_C"),
            "cov C-A": col("cov_CA"),
            "size A-B": col("size_AB"),
            "SEr A": col("ser_A"),
            "SEr C": col("ser_C"),
            "SEr C-A": col("ser_CA"),
            "SEr A-B": col("ser_AB"),
            "df": res.mean_df_CA.round(2),
            "flags": [
                " ".join(
                    x
                    for x in (
                        r.cov_A_flag and f"covA:{r.cov_A_flag}",
                        r.cov_B_flag and f"covB:{r.cov_B_flag}",
                        r.cov_C_flag and f"covC:{r.cov_C_flag}",
                        r.cov_CA_flag and f"covCA:{r.cov_CA_flag}",
                        r.size_AB_flag and f"size:{r.size_AB_flag}",
                    )
                    if x
                )
                for r in res.itertuples()
            ],
        }
    )
    print(tab.to_string(index=False))
    print("\n== Conditional (conversation bootstrap, BCa, by name) ==")
    tab2 = pd.DataFrame(
        {
            "cell": res.cell,
            "metric": res.metric,
            "cov A (pop)": col("bcov_A"),
            "cov C (pop)": col("bcov_C"),
            "cov C-A (pop)": col("bcov_CA"),
            "size A-B (pop null)": col("bsize_AB"),
            "SEr A": col("bser_A"),
            "SEr C-A": col("bser_CA"),
            "cov A (cond)": col("bcovcond_A"),
            "cov C-A (cond)": col("bcovcond_CA"),
            "cov A-B (cond)": col("bcovcond_AB"),
        }
    )
    print(tab2.to_string(index=False))
    print("\n== bias (estimate mean - truth) and power ==")
    print(
        res[
            [
                "cell",
                "metric",
                "bias_A",
                "bias_A_se",
                "bias_C",
                "bias_C_se",
                "bias_CA",
                "bias_CA_se",
                "power_CA",
                "size_AB_from_ci",
            ]
        ]
        .round(4)
        .to_string(index=False)
    )


if __name__ == "__main__":
    main()
