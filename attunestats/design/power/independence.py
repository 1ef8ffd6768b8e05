"""Power of the global independence test of :mod:`attunestats.independence` against conversations.

The tests act on model means, whose reliability grows with the number of conversations:
``rel(n) = s^2 / (s^2 + sigma^2 deff / n)`` (:func:`reliability_at`), with ``s^2`` the
between-model variance of true scores and ``sigma^2`` the per-conversation noise variance, fitted
from a :class:`~attunestats.independence.MetricMatrix` by :func:`fit_independence_noise`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, root_seed
from attunestats.constants import SIMULATED_LABEL
from attunestats.design.power._common import (
    _as_float_array,
    _as_int_array,
    _check_prob,
    _run,
)
from attunestats.design.power.curve import PowerResult, summarise_power
from attunestats.design.studies.runner import Study

__all__ = [
    "fit_independence_noise",
    "independence_power_curve",
    "independence_power_replicate",
    "reliability_at",
]


def fit_independence_noise(matrix: Any) -> pd.DataFrame:
    """Between-model and per-conversation noise variance of each metric of a MetricMatrix.

    From :func:`attunestats.independence.capability_matrix`: the noise variance of a model mean
    is the bootstrap variance (mean over models); times the number of conversations it is the
    per-conversation noise ``sigma^2`` (with ``unit="participant"`` an effective one that includes
    the clustering: the design effect of this release's conversations per participant, so give
    :func:`reliability_at` no further ``design_effect``); the true-score variance is the variance
    of the estimates across models minus the noise variance (floored at 0). Reliability at ``n``
    conversations: ``s^2 / (s^2 + sigma^2 / n)``.
    """
    est = np.asarray(matrix.estimate, dtype=float)
    dist = np.asarray(matrix.bootstrap_distribution, dtype=float)
    n_units = int(matrix.n_units)
    weights = np.asarray(getattr(matrix, "weights", np.empty((0, 0))))
    design = getattr(matrix, "design", None)
    if weights.ndim == 2 and weights.shape[1] > 0:
        n_conv = int(weights.shape[1])
    elif design is not None:
        n_conv = len(design)
    else:
        n_conv = n_units
    noise_var_mean = np.nanmean(np.nanvar(dist, axis=0, ddof=1), axis=0)  # (K,)
    between = np.var(est, axis=0, ddof=1)
    skill_var = np.maximum(between - noise_var_mean, 0.0)
    # per conversation: the bootstrap variance of a mean of n_conv conversations, times n_conv
    # (times the number of participants would describe a participant, not a conversation)
    sigma2 = noise_var_mean * n_conv
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = skill_var / (skill_var + noise_var_mean)
    out = pd.DataFrame(
        {
            "metric": list(matrix.metrics),
            "capability": list(matrix.capabilities),
            "skill_sd": np.sqrt(skill_var),
            "noise_sd": np.sqrt(sigma2),
            "n_units": n_units,
            "n_conversations": n_conv,
            "reliability": rel,
            "simulated": bool(matrix.simulated),
        }
    )
    return out


def reliability_at(
    n_conversations: Any, *, skill_sd: Any, noise_sd: Any, design_effect: float = 1.0
) -> np.ndarray:
    """Reliability ``s^2 / (s^2 + sigma^2 deff / n)`` of model means at ``n`` conversations.

    Arrays broadcast: ``n`` along the first axis, per-metric ``skill_sd``/``noise_sd`` along
    the last.
    """
    n = _as_int_array("n_conversations", n_conversations, 1).astype(float)[:, None]
    s2 = _as_float_array("skill_sd", skill_sd, low=0.0) ** 2
    e2 = _as_float_array("noise_sd", noise_sd, low=0.0) ** 2
    ok = not isinstance(design_effect, bool) and isinstance(
        design_effect, int | float | np.integer | np.floating
    )
    if not (ok and 1 <= design_effect < math.inf):
        raise ValueError(f"design_effect must be a finite number >= 1; got {design_effect!r}")
    return s2 / (s2 + e2 * float(design_effect) / n)


def independence_power_replicate(config: Mapping[str, Any], rng: RNGLike) -> pd.DataFrame:
    """A batch of simulated benchmarks per number of conversations (independence test power).

    Number of conversations ``k`` draws from ``SeedSequence([root_seed(rng), k])``.
    """
    seed = root_seed(rng)
    try:
        from attunestats.independence import independence_power
    except ImportError as err:  # pragma: no cover - depends on the independence module
        raise ImportError(f"independence power needs attunestats.independence: {err}") from err
    rows = []
    for k, (n, rel) in enumerate(zip(config["n_conversations"], config["reliability"],
                                     strict=True)):  # fmt: skip
        res = independence_power(
            config["correlations"], n_models=int(config["n_models"]),
            n_metrics=int(config["n_metrics"]), reliability=float(min(rel, 1.0)),
            n_simulations=int(config["batch"]), n_permutations=int(config["n_permutations"]),
            alpha=float(config["alpha"]), rng=np.random.SeedSequence([seed, k]),
        )  # fmt: skip
        for r in config["correlations"]:
            g = np.asarray(res.details[f"{float(r):g}"]["global_p"])
            for j, pv in enumerate(g):
                rows.append(
                    {
                        "n_conversations": int(n),
                        "n_participants": -1,
                        "true_correlation": float(r),
                        "reliability": float(rel),
                        "dataset": j,
                        "pvalue": float(pv),
                        "reject": bool(pv < float(config["alpha"])),
                    }
                )
    return pd.DataFrame(rows)


def independence_power_curve(
    n_conversations: Any,
    *,
    skill_sd: Any,
    noise_sd: Any,
    correlations: Any = (0.0, 0.3, 0.5),
    design_effect: float = 1.0,
    n_models: int = 11,
    n_metrics: int = 5,
    n_simulations: int = 400,
    n_permutations: int = 999,
    alpha: float = 0.05,
    rng: RNGLike = 0,
    batch_size: int = 100,
    out: str | os.PathLike[str] | None = None,
    executor: str = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> PowerResult:
    """Power of the global independence test against the number of conversations.

    The reliability of the model means at each ``n`` (:func:`reliability_at`; per metric, then
    averaged over metrics because :func:`attunestats.independence.independence_power` takes one
    reliability) feeds :func:`attunestats.independence.independence_power`. Rows with
    ``true_correlation = 0`` give the size. ``skill_sd``/``noise_sd`` may come from
    :func:`fit_independence_noise`.
    """
    alpha = _check_prob("alpha", alpha)
    for name, v in (("n_simulations", n_simulations), ("batch_size", batch_size)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {v!r}")
    ns = _as_int_array("n_conversations", n_conversations, 1)
    ns = np.asarray(list(dict.fromkeys(ns.tolist())), dtype=np.int64)  # a repeat is one point
    rel = reliability_at(ns, skill_sd=skill_sd, noise_sd=noise_sd, design_effect=design_effect)
    rel = np.nanmean(rel, axis=1)
    if not np.all((rel > 0) & np.isfinite(rel)):
        raise ValueError("skill_sd must be > 0 for some metric: the reliability is 0")
    corr = _as_float_array("correlations", correlations)
    batch = min(int(batch_size), int(n_simulations))
    config = {
        "n_conversations": [int(n) for n in ns],
        "reliability": [float(r) for r in rel],
        "correlations": [float(r) for r in corr],
        "n_models": int(n_models),
        "n_metrics": int(n_metrics),
        "batch": batch,
        "n_permutations": int(n_permutations),
        "alpha": alpha,
    }
    study = Study(
        "attunestats.design.power.independence:independence_power_replicate", config,
        n_replicates=math.ceil(n_simulations / batch), seed=root_seed(rng),
        name="independence_power",
    )  # fmt: skip
    frame = _run(study, out, {"executor": executor, "n_workers": n_workers,
                              "scheduler": scheduler, "progress": progress})  # fmt: skip
    frame = frame[frame["replicate"] * batch + frame["dataset"] < n_simulations]
    table = summarise_power(frame, alpha=alpha)
    table = table.merge(
        pd.DataFrame({"n_conversations": ns, "reliability": rel}), on="n_conversations"
    )
    table["test"] = "global independence (permutation)"
    table.attrs["label"] = SIMULATED_LABEL
    return PowerResult(
        table=table, model=None, alpha=alpha, alternative="two-sided",
        test="independence", n_simulations=int(n_simulations), seed=study.seed, simulations=frame,
    )  # fmt: skip
