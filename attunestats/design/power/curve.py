"""Simulated power curves of the clustered normal model, run as a study; power results.

:func:`power_curve` simulates datasets over a grid of conversation and participant counts
(:func:`power_curve_replicate`, the ``power_curve`` study kind) and tests each with the
cluster-aware test of the design; every dataset is drawn once under ``effect = 0`` and the power
at any effect is read off the same datasets (common random numbers). :func:`summarise_power`
turns simulated datasets into power with Wilson Monte Carlo intervals and :class:`PowerResult`
holds them (also for :mod:`~attunestats.design.power.release` and
:mod:`~attunestats.design.power.independence`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from attunestats._results import ResultMixin
from attunestats._rng import RNGLike, root_seed
from attunestats.constants import SIMULATED_LABEL
from attunestats.design.power._common import (
    ALTERNATIVES,
    TESTS,
    Alternative,
    _as_float_array,
    _as_int_array,
    _check_choice,
    _check_prob,
    _run,
    grid_cells,
)
from attunestats.design.power.analytic import _safe_mde
from attunestats.design.power.contrast import ContrastModel
from attunestats.design.studies.runner import Study

__all__ = [
    "PowerResult",
    "power_curve",
    "power_curve_replicate",
    "summarise_power",
]


# --------------------------------------------------------------------------------------------
# simulation kernels
# --------------------------------------------------------------------------------------------
def _cluster_sizes(n: int, p: int, cv: float, rng: np.random.Generator) -> np.ndarray:
    """Conversations per participant: as equal as possible, or with coefficient of variation
    ``cv`` (in expectation) when ``cv > 0``.

    Every participant gets at least one conversation; with ``cv > 0`` the other ``n - p`` are
    shared in proportion to Dirichlet(a) weights (rounded by largest remainder), ``a`` chosen so
    that the expected squared CV of the sizes (population form, as :func:`fit_contrast_values`
    measures it) is ``cv^2``: ``(n - p)^2 (p - 1) / (n^2 (p a + 1))``, less the rounding's
    ``1 / (12 m^2)``. (Multinomial draws would add ``(n - p)(p - 1) / n^2`` on their own: 0.17
    at 10 participants x 4 conversations, twice a cv of 0.3.) A ``cv`` beyond what ``n - p``
    extra conversations allow gives the most unequal sizes.
    """
    if cv <= 0 or n == p:
        sizes = np.full(p, n // p)
        sizes[: n % p] += 1
        return sizes
    extra = n - p
    m = n / p
    target = max(cv**2 - 1.0 / (12.0 * m * m), 1e-12)
    a = max((extra**2 * (p - 1) / (n**2 * target) - 1.0) / p, 1e-3)
    w = rng.gamma(a, size=p)
    if not (np.all(np.isfinite(w)) and w.sum() > 0):  # pragma: no cover - underflow at tiny a
        w = np.ones(p)
    y = extra * w / w.sum()
    base = np.floor(y).astype(np.int64)
    order = np.argsort(-(y - base), kind="stable")
    base[order[: extra - int(base.sum())]] += 1
    return 1 + base


def _cr1_mean(y: np.ndarray, codes: np.ndarray, g: int) -> tuple[float, float]:
    """Pooled mean and its CR1 cluster-robust standard error (NaN with one cluster)."""
    n = y.size
    mean = float(y.mean())
    if g < 2:
        return mean, math.nan
    s = np.bincount(codes, weights=y - mean, minlength=g)
    var = g / (g - 1) * float(np.sum(s**2)) / n**2
    return mean, math.sqrt(var)


def _simulate_null(
    model: ContrastModel, n: int, p: int | None, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One dataset under ``effect = 0``: values, cluster codes, focal indicator."""
    if p is None:
        codes = np.arange(n)
        u = np.zeros(n)
        e = rng.normal(0.0, model.sd, size=n)
    else:
        sizes = _cluster_sizes(n, p, model.cluster_cv, rng)
        codes = np.repeat(np.arange(p), sizes)
        u = rng.normal(0.0, model.sd * math.sqrt(model.icc), size=p)[codes]
        e = rng.normal(0.0, model.sd * math.sqrt(1.0 - model.icc), size=n)
    if model.design == "between":
        g = codes.max() + 1
        k = min(g - 1, max(1, int(round(model.allocation * g))))
        x = codes < k
    elif model.design == "within":
        x = rng.random(n) < model.allocation
    else:
        x = np.ones(n, dtype=bool)
    return u + e, codes, x


def _cluster_test(
    design: str, y: np.ndarray, codes: np.ndarray, x: np.ndarray, clustered: bool
) -> tuple[float, float, float]:
    """Estimate, standard error and degrees of freedom of the design's cluster-aware test."""
    g = int(codes.max()) + 1
    if design == "paired":
        if not clustered:
            return float(y.mean()), float(y.std(ddof=1) / math.sqrt(y.size)), y.size - 1.0
        est, se = _cr1_mean(y, codes, g)
        return est, se, g - 1.0
    if design == "between":
        # pooled group means; CR1 variances with the residual scale pooled over the two groups
        # (sum_c s_c^2 / (G - 2), s_c a cluster's residual total), so that with equal cluster
        # sizes this is the pooled two-sample t on participant means (exact, G - 2 df) at any
        # allocation; per-group scales with G - 2 df over-reject with unequal groups
        means, counts, q = [], [], 0.0
        for sel in (x, ~x):
            yy, cc = y[sel], codes[sel]
            uc, cc = np.unique(cc, return_inverse=True)
            mean = float(yy.mean())
            q += float(np.sum(np.bincount(cc, weights=yy - mean, minlength=len(uc)) ** 2))
            means.append(mean)
            counts.append((len(uc), yy.size))
        if g < 3:
            return means[0] - means[1], math.nan, math.nan
        scale = q / (g - 2.0)
        var = sum(scale * gk / nk**2 for gk, nk in counts)
        return means[0] - means[1], math.sqrt(var), g - 2.0
    # within: participant fixed-effects slope (participant-demeaned OLS), n - G - 1 df
    xf = x.astype(float)
    if clustered:
        m = np.bincount(codes, minlength=g).astype(float)
        yd = y - (np.bincount(codes, weights=y, minlength=g) / m)[codes]
        xd = xf - (np.bincount(codes, weights=xf, minlength=g) / m)[codes]
        df = y.size - g - 1.0
    else:
        yd, xd = y - y.mean(), xf - xf.mean()
        df = y.size - 2.0
    sxx = float(np.sum(xd**2))
    if sxx <= 1e-12 or df < 1:
        return math.nan, math.nan, math.nan  # the contrast does not vary within participants
    b = float(np.sum(xd * yd) / sxx)
    r = yd - b * xd
    var = float(np.sum(r**2)) / df / sxx
    return b, math.sqrt(var), df


def power_curve_replicate(config: Mapping[str, Any], rng: RNGLike) -> pd.DataFrame:
    """One batch of simulated datasets for every grid point (the ``power_curve`` study kind).

    ``config``: ``model`` (:meth:`ContrastModel.to_dict`), ``grid`` (list of
    ``[n_conversations, n_participants or None]``), ``batch`` (datasets per grid point),
    ``test`` (``cluster_t`` or ``bootstrap``), ``effects`` and ``n_resamples`` (bootstrap only).
    Dataset ``j`` of grid point ``k`` draws from ``SeedSequence([seed, k, j])`` with
    ``seed = root_seed(rng)`` (``rng`` itself when an int, as the study runner passes). Rows: one
    per grid point and dataset with the estimate under ``effect = 0`` (``estimate0``), its standard
    error and degrees of freedom (``cluster_t``), or bootstrap p-values per effect.
    """
    model = ContrastModel.from_dict(config["model"])
    test = config.get("test", "cluster_t")
    batch = int(config["batch"])
    seed = root_seed(rng)
    rows: dict[str, list[Any]] = {
        k: [] for k in ("n_conversations", "n_participants", "dataset", "estimate0",
                        "standard_error", "df", "effect", "pvalue")
    }  # fmt: skip
    for k, (n, p) in enumerate(config["grid"]):
        n = int(n)
        p = None if p is None else int(p)
        for j in range(batch):
            gen = np.random.default_rng(np.random.SeedSequence([seed, k, j]))
            y, codes, x = _simulate_null(model, n, p, gen)
            if test == "cluster_t":
                est, se, df = _cluster_test(model.design, y, codes, x, p is not None)
                entries = [(est, se, df, math.nan, math.nan)]
            else:
                entries = _bootstrap_entries(y, codes, config, gen)
            for est, se, df, effect, pval in entries:
                rows["n_conversations"].append(n)
                rows["n_participants"].append(-1 if p is None else p)
                rows["dataset"].append(j)
                rows["estimate0"].append(est)
                rows["standard_error"].append(se)
                rows["df"].append(df)
                rows["effect"].append(effect)
                rows["pvalue"].append(pval)
    return pd.DataFrame(rows)


def _bootstrap_entries(
    y: np.ndarray, codes: np.ndarray, config: Mapping[str, Any], rng: np.random.Generator
) -> list[tuple[float, float, float, float, float]]:
    """Cluster-bootstrap p-values of the paired mean at every effect (same resamples).

    Two-sided: :func:`attunestats.inference.compare.bootstrap_pvalue`; ``greater`` / ``less``
    (``config["alternative"]``): the share of the null-centred distribution at or beyond the
    estimate on that side, ``(1 + #) / (B + 1)``.
    """
    from attunestats.inference.bootstrap import cluster_bootstrap_mean
    from attunestats.inference.compare import bootstrap_pvalue

    boot = cluster_bootstrap_mean(
        y, codes, method="percentile", n_resamples=int(config.get("n_resamples", 999)), rng=rng
    )
    est0 = float(boot.estimate[0])
    se = float(boot.standard_error[0])
    dist0 = boot.bootstrap_distribution[:, 0]
    alternative = config.get("alternative", "two-sided")
    null = dist0[np.isfinite(dist0)] - est0  # the distribution centred at the null
    out = []
    for d in config["effects"]:
        d = float(d)
        if alternative == "two-sided":
            p = float(bootstrap_pvalue((dist0 + d)[:, None], np.array([est0 + d]))[0])
        elif not math.isfinite(est0) or null.size == 0:
            p = math.nan
        else:
            beyond = null >= est0 + d if alternative == "greater" else null <= est0 + d
            p = (1.0 + float(np.sum(beyond))) / (null.size + 1.0)
        out.append((est0, se, math.nan, d, p))
    return out


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------
def _wilson(k: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    z = stats.norm.ppf(0.5 + level / 2)
    p = k / n
    denom = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return centre - half, centre + half


def _rejections(sims: pd.DataFrame, effect: float, alpha: float, alternative: str) -> np.ndarray:
    """Rejection indicators of the cluster t test at ``effect`` (datasets shifted by it)."""
    se = sims["standard_error"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, (sims["estimate0"].to_numpy() + effect) / se, np.nan)
    df = sims["df"].to_numpy()
    if alternative == "two-sided":
        p = 2 * stats.t.sf(np.abs(t), df)
    elif alternative == "greater":
        p = stats.t.sf(t, df)
    else:
        p = stats.t.cdf(t, df)
    return np.where(np.isfinite(p), p < alpha, False)


def summarise_power(
    frame: pd.DataFrame,
    *,
    effects: Any = None,
    alpha: float | None = None,
    alternative: str | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Power per grid point and effect, with a Wilson Monte Carlo interval.

    ``frame`` holds simulated datasets: rows of :func:`power_curve_replicate` (cluster t:
    ``estimate0, standard_error, df``; power at any ``effects``) or rows with a ``reject`` column
    (bootstrap and release studies, grouped by their settings).
    """
    confidence_level = _check_prob("confidence_level", confidence_level)
    study = frame.attrs.get("study", {}).get("study", {}).get("config", {})
    alpha = _check_prob("alpha", alpha if alpha is not None else study.get("alpha", 0.05))
    alternative = alternative or study.get("alternative", "two-sided")
    _check_choice("alternative", alternative, ALTERNATIVES)
    keys = [c for c in ("n_conversations", "n_participants") if c in frame.columns]
    rows = []
    if "reject" in frame.columns or frame.get("pvalue", pd.Series(dtype=float)).notna().any():
        data = frame
        if "reject" not in data.columns:
            data = data.assign(reject=data["pvalue"] < alpha)
        extra = [c for c in ("effect", "logit_difference", "true_correlation") if c in data.columns]
        for key, sub in data.groupby(keys + extra, sort=True):
            k, n = int(sub["reject"].sum()), int(sub.shape[0])
            rows.append((*key, k, n, sub))
        cols = keys + extra
    else:
        if effects is None:
            effects = study.get("effects", [0.0])
        effects = _as_float_array("effects", effects)
        cols = keys + ["effect"]
        for key, sub in frame.groupby(keys, sort=True):
            for d in effects:
                rej = _rejections(sub, float(d), alpha, alternative)
                rows.append((*key, float(d), int(rej.sum()), int(rej.size), sub))
    out = pd.DataFrame([r[:-1] for r in rows], columns=cols + ["n_reject", "n_simulations"])
    k = out["n_reject"].to_numpy(float)
    n = out["n_simulations"].to_numpy(float)
    out["power"] = k / n
    out["mc_se"] = np.sqrt(out["power"] * (1 - out["power"]) / n)
    low, high = _wilson(k, n, confidence_level)
    out["ci_low"], out["ci_high"] = low, high
    if "n_participants" in out.columns:
        out["n_participants"] = out["n_participants"].astype("int64")
    out["alpha"] = alpha
    out["alternative"] = alternative
    out["simulated"] = True
    out.attrs["label"] = SIMULATED_LABEL
    return out


@dataclass(frozen=True, repr=False)
class PowerResult(ResultMixin):
    """Simulated power over a grid, with the analytic approximation alongside.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ``n_conversations, n_participants, effect``: ``power`` (simulated),
        ``mc_se``, ``ci_low, ci_high`` (Wilson interval at ``confidence_level``),
        ``analytic_z`` (design-effect approximation), ``analytic_t`` (cluster-level noncentral t;
        ``between``: at the split into whole participants that was simulated),
        ``design_effect`` (variance of the estimate relative to as many independent
        conversations: ``1 + ((cv^2 + 1) m - 1) icc``; ``(1 - icc) n / (n - G)`` for
        ``within``), ``n_simulations``, the settings and ``simulated``. ``n_participants``
        is -1 for independent conversations.
    model : ContrastModel or None
        The clustered normal model (None for :func:`release_power` and
        :func:`independence_power_curve`).
    simulations : pandas.DataFrame
        The simulated datasets' rows.
    alpha, alternative, test, n_simulations : the settings.
    seed : int
        The study seed (``root_seed`` of the ``rng`` given): rerun with ``rng=seed``.

    ``summary()`` prints the table with the settings; ``to_frame()`` is the table.
    """

    _title = "Simulated power"
    _summary_columns = (
        "n_conversations", "n_participants", "effect", "logit_difference", "true_correlation",
        "reliability", "power", "ci_low", "ci_high", "analytic_z", "analytic_t", "n_simulations",
    )  # fmt: skip

    table: pd.DataFrame
    model: ContrastModel | None
    alpha: float
    alternative: str
    test: str
    n_simulations: int
    seed: int
    simulated: bool = True
    simulations: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    def to_frame(self) -> pd.DataFrame:
        """The table, labelled simulated."""
        out = self.table.copy()
        out.attrs["label"] = SIMULATED_LABEL
        return out

    @property
    def estimand(self) -> str:
        """What ``power`` estimates, in words."""
        return (
            f"probability that the test rejects at alpha {self.alpha:g} ({self.alternative}), "
            "per sample size and effect"
        )

    @property
    def method(self) -> str:
        """The test and the simulation, in words."""
        if self.test == "independence":
            return "global independence permutation test on simulated benchmarks"
        if self.model is None:
            return "paired cluster bootstrap (percentile p-value) on simulated releases"
        test = "cluster bootstrap" if self.test == "bootstrap" else "cluster-aware t test"
        return f"{test} of a {self.model.design} contrast on clustered normal datasets"

    def _summary_meta(self) -> dict[str, str]:
        meta = super()._summary_meta()
        meta["Simulations"] = f"{self.n_simulations} per grid point"
        if self.model is not None:
            m = self.model
            meta["Model"] = (
                f"{m.label or m.design} on {m.metric or 'values'}: effect {m.effect:.4g}, "
                f"sd {m.sd:.4g}, icc {m.icc:.3g}, cluster cv {m.cluster_cv:.3g}"
            )
        return meta

    def _summary_notes(self) -> list[str]:
        notes = ["ci_low, ci_high: Wilson 95% Monte Carlo interval of the simulated power."]
        if "analytic_z" in self.table.columns:
            notes.append(
                "analytic_z: design-effect (z) approximation; analytic_t: cluster-level "
                "noncentral t."
            )
        return notes

    def power_at(self, effect: Any) -> pd.DataFrame:
        """Simulated power at other effects, on the same simulated datasets (cluster t only)."""
        if self.test != "cluster_t" or self.model is None:
            raise ValueError("power_at needs test='cluster_t' (bootstrap p-values are per effect)")
        table = summarise_power(
            self.simulations, effects=effect, alpha=self.alpha, alternative=self.alternative
        )
        return _with_analytic(table, self.model, self.alpha, self.alternative)

    def minimum_detectable_effect(self, power: float = 0.8) -> pd.DataFrame:
        """Smallest effect whose simulated power reaches ``power``, per grid point.

        Root finding on the simulated power curve of the same datasets (cluster t only), next to
        the analytic z and t values. ``mde`` is NaN when not reached below ``20 sd``.
        """
        power = _check_prob("power", power)
        if self.test != "cluster_t" or self.model is None:
            raise ValueError("minimum_detectable_effect needs test='cluster_t'")
        if self.alternative == "less":
            raise ValueError("alternative='less': the MDE is defined for positive effects")
        rows = []
        for (n, p), sub in self.simulations.groupby(["n_conversations", "n_participants"]):

            def frac(d: float, sub: pd.DataFrame = sub) -> float:
                return float(_rejections(sub, d, self.alpha, self.alternative).mean()) - power

            hi = self.model.sd * 20.0
            grid = np.linspace(0.0, hi, 401)
            vals = np.array([frac(d) for d in grid])
            above = np.flatnonzero(vals >= 0)
            if above.size == 0:
                mde = math.nan
            elif above[0] == 0:
                mde = 0.0
            else:
                lo_d, hi_d = grid[above[0] - 1], grid[above[0]]
                for _ in range(50):
                    mid = 0.5 * (lo_d + hi_d)
                    lo_d, hi_d = (mid, hi_d) if frac(mid) < 0 else (lo_d, mid)
                mde = hi_d
            pp = None if p < 0 else int(p)
            opts = {
                "icc": self.model.icc, "cv": self.model.cluster_cv, "design": self.model.design,
                "allocation": _as_simulated(self.model, pp).allocation, "alpha": self.alpha,
                "alternative": self.alternative,
            }  # fmt: skip
            rows.append(
                {
                    "n_conversations": int(n),
                    "n_participants": int(p),
                    "power": power,
                    "mde": mde,
                    "analytic_z": _safe_mde(self.model.sd, int(n), pp, power, method="z", **opts),
                    "analytic_t": _safe_mde(self.model.sd, int(n), pp, power, method="t", **opts),
                    "n_simulations": int(sub.shape[0]),
                    "simulated": True,
                }
            )
        out = pd.DataFrame(rows)
        out.attrs["label"] = SIMULATED_LABEL
        return out


def _as_simulated(model: ContrastModel, p: int | None) -> ContrastModel:
    """The model with the split of ``p`` participants the simulation uses (``between``: whole
    participants, ``round(allocation * p)`` of them focal, as :func:`_simulate_null` draws)."""
    if model.design != "between" or p is None:
        return model
    from dataclasses import replace

    k = min(p - 1, max(1, int(round(model.allocation * p))))
    return replace(model, allocation=k / p)


def _with_analytic(
    table: pd.DataFrame, model: ContrastModel, alpha: float, alternative: str
) -> pd.DataFrame:
    p = table["n_participants"].to_numpy()
    n = table["n_conversations"].to_numpy()
    out = table.copy()
    for method in ("z", "t"):
        vals = []
        for ni, pi, d in zip(n, p, out["effect"], strict=True):
            try:
                vals.append(
                    _as_simulated(model, None if pi < 0 else int(pi)).analytic_power(
                        int(ni),
                        None if pi < 0 else int(pi),
                        effect=float(d),
                        method=method,
                        alpha=alpha,
                        alternative=alternative,
                    )  # fmt: skip
                )
            except ValueError:
                vals.append(math.nan)
        out[f"analytic_{method}"] = vals
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(p > 0, n / np.where(p > 0, p, 1), 1.0)
    if model.design == "within":
        # variance relative to n independent conversations: (1 - icc) n / (n - G)
        with np.errstate(divide="ignore", invalid="ignore"):
            deff = (1.0 - model.icc) * n / (n - np.where(p > 0, p, 0))
    else:
        deff = 1.0 + ((model.cluster_cv**2 + 1.0) * m - 1.0) * model.icc
    out["design_effect"] = np.where(p > 0, deff, 1.0)
    out["design"] = model.design
    out["metric"] = model.metric
    out["contrast"] = model.label
    return out


# --------------------------------------------------------------------------------------------
# power curves (clustered normal model), run as a study
# --------------------------------------------------------------------------------------------
def power_curve(
    model: ContrastModel,
    *,
    n_conversations: Any,
    n_participants: Any = None,
    effects: Any = None,
    n_simulations: int = 1000,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
    test: Literal["cluster_t", "bootstrap"] = "cluster_t",
    n_resamples: int = 999,
    rng: RNGLike = 0,
    batch_size: int = 100,
    out: str | os.PathLike[str] | None = None,
    executor: str = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> PowerResult:
    """Simulated power of the cluster-aware test over a grid of conversations x participants.

    Parameters
    ----------
    model : ContrastModel
        Specified, or fitted with :func:`fit_contrast`.
    n_conversations, n_participants : int or sequence of int
        The grid (every combination with ``n_conversations >= n_participants``). ``None``
        participants: independent conversations.
    effects : float or sequence, optional
        Effects at which power is reported (default: the model's effect). With the cluster t
        test every effect is evaluated on the same datasets.
    n_simulations : int
        Datasets per grid point.
    alpha, alternative : test settings.
    test : {"cluster_t", "bootstrap"}
        ``"bootstrap"``: the package's cluster bootstrap (percentile p-value; paired only;
        about ``n_resamples`` times slower).
    rng : int, numpy Generator or SeedSequence, or None
        Seeds the study: the study seed is ``root_seed(rng)`` (``rng`` itself when an int; same
        seed, same numbers on any executor), recorded as ``PowerResult.seed``.
    batch_size : int
        Datasets per study replicate (a replicate is the unit of work and of resumption).
    out : path, optional
        Keep the simulated datasets in this Parquet study file (resumable); default: a
        temporary file.
    executor, n_workers, scheduler, progress
        As in :func:`attunestats.design.studies.run_study`.

    Returns
    -------
    PowerResult
    """
    if not isinstance(model, ContrastModel):
        raise TypeError(f"model must be a ContrastModel; got {type(model).__name__}")
    _check_choice("test", test, TESTS)
    _check_choice("alternative", alternative, ALTERNATIVES)
    alpha = _check_prob("alpha", alpha)
    if test == "bootstrap" and model.design != "paired":
        raise ValueError("test='bootstrap' is implemented for design='paired' only")
    ns = _as_int_array("n_conversations", n_conversations, 2)
    ps = (
        [None]
        if n_participants is None
        else list(_as_int_array("n_participants", n_participants, 2))
    )
    if model.design == "between" and ps == [None]:
        raise ValueError("design='between' compares participants: give n_participants")
    if model.design == "between":
        for p in ps:
            k = min(p - 1, max(1, round(model.allocation * p)))
            if k < 2 or p - k < 2:
                raise ValueError(
                    f"design='between' needs at least 2 participants in each group; "
                    f"n_participants={p} with allocation {model.allocation:g} gives {k} and {p - k}"
                )
    grid = grid_cells(ns, ps, extra=2 if model.design == "within" else 0)
    effects_arr = _as_float_array("effects", model.effect if effects is None else effects)
    for name, v, low in (("n_simulations", n_simulations, 2), ("batch_size", batch_size, 1),
                         ("n_resamples", n_resamples, 2)):  # fmt: skip
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {v!r}")
    batch = min(int(batch_size), int(n_simulations))
    n_rep = math.ceil(n_simulations / batch)
    config = {
        "model": model.to_dict(),
        "grid": grid,
        "batch": batch,
        "test": test,
        "effects": [float(d) for d in effects_arr],
        "n_resamples": int(n_resamples),
        "alpha": alpha,
        "alternative": alternative,
    }
    study = Study(
        "attunestats.design.power.curve:power_curve_replicate", config, n_replicates=n_rep,
        seed=root_seed(rng), name="power_curve",
    )  # fmt: skip
    frame = _run(study, out, {"executor": executor, "n_workers": n_workers,
                              "scheduler": scheduler, "progress": progress})  # fmt: skip
    frame = frame[frame["replicate"] * batch + frame["dataset"] < n_simulations]
    table = summarise_power(frame, effects=effects_arr, alpha=alpha, alternative=alternative)
    table = _with_analytic(table, model, alpha, alternative)
    table["test"] = test
    return PowerResult(
        table=table,
        model=model,
        alpha=alpha,
        alternative=alternative,
        test=test,
        n_simulations=int(n_simulations),
        seed=study.seed,
        simulations=frame.reset_index(drop=True),
    )
