"""Power from the release simulator (any registry metric, pooled ones too), run as a study.

Full releases are drawn with :mod:`attunestats.release.simulate` with two predictors whose skills
on one capability are set; each replicate draws new participants, topics and conversations,
scores the release and tests the paired difference with the package's cluster bootstrap. With
equal skills it measures the size of the test. It is the slow, assumption-free check of the
normal model of :mod:`~attunestats.design.power.curve`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, root_seed
from attunestats.constants import SIMULATED_LABEL
from attunestats.design.power._common import (
    _as_float_array,
    _as_int_array,
    _check_choice,
    _check_prob,
    _run,
    grid_cells,
)
from attunestats.design.power.curve import PowerResult, summarise_power
from attunestats.design.studies.runner import Study

if TYPE_CHECKING:
    from attunestats.release.simulate import SimulationConfig, TrueEffects

__all__ = ["release_power", "release_power_replicate", "release_power_setup"]


@dataclass(frozen=True, eq=False)
class _ReleaseContext:
    config: Any
    theta: np.ndarray  # (2, 5): the two predictors' skills
    capabilities: tuple[int, ...]
    settings: Mapping[str, Any]


def release_power_setup(config: Mapping[str, Any]) -> _ReleaseContext:
    """Context of the ``release_power`` study kind (parses the JSON config)."""
    from attunestats.release.simulate import CAPABILITIES, SimulationConfig

    base = SimulationConfig.from_dict(config["simulation"])
    theta = np.asarray(config["theta"], dtype=float)
    if theta.shape != (2, len(CAPABILITIES)):
        raise ValueError(f"theta must be 2 x {len(CAPABILITIES)}; got shape {theta.shape}")
    caps = tuple(CAPABILITIES.index(c) for c in config["capabilities"])
    return _ReleaseContext(base, theta, caps, dict(config))


def release_power_replicate(context: _ReleaseContext, rng: RNGLike) -> pd.DataFrame:
    """One simulated release per grid point and skill difference; paired bootstrap test.

    For grid point ``k`` (conversations ``n``, participants ``p``) the population (participants,
    their diagnoses, topics, interactions) is drawn from ``SeedSequence([seed, k])`` with
    ``seed = root_seed(rng)``; predictor 0 gets skills ``theta[0]``, predictor 1 ``theta[1]``
    with, on the contrast's capabilities, predictor 0's skill minus the logit difference
    (``None``: ``theta[1]`` as given); the same conversations' random draws are reused for every
    difference (common random numbers). The release is scored and the paired difference of
    ``metric`` (predictor 0 minus 1) bootstrapped with the package's cluster bootstrap.
    """
    import warnings
    from dataclasses import replace

    from attunestats.errors import AttunestatsWarning
    from attunestats.inference.bootstrap import bootstrap_scores
    from attunestats.inference.compare import bootstrap_pvalue
    from attunestats.metrics.score import score
    from attunestats.release.load import release_from_documents
    from attunestats.release.simulate import draw_effects, simulate_documents

    s = context.settings
    metric = s["metric"]
    seed = root_seed(rng)
    rows = []
    for k, (n, p) in enumerate(s["grid"]):
        cfg = replace(
            context.config,
            n_conversations=int(n),
            n_participants=int(p),
            n_models=2,
            n_human_raters=0,
            participant_weights=None,
        )
        sub = int(np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0] >> 1)
        base = draw_effects(cfg, rng=sub)
        for diff in s["logit_differences"]:
            theta = base.theta.copy()
            theta[0] = context.theta[0]
            theta[1] = context.theta[1]
            caps = list(context.capabilities)
            if diff is not None:
                theta[1, caps] = theta[0, caps] - float(diff)
            effects = replace(base, theta=theta)
            docs = simulate_documents(cfg, rng=sub, effects=effects)
            scores = score(release_from_documents(docs.conversations, docs.runs, docs.release_info))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", AttunestatsWarning)
                boot = bootstrap_scores(
                    scores, metrics=[metric], unit=s["unit"], method="percentile",
                    n_resamples=int(s["n_resamples"]), rng=sub,
                )  # fmt: skip
            ia = boot.index_of(predictor=effects.predictors[0], metric=metric)[0]
            ib = boot.index_of(predictor=effects.predictors[1], metric=metric)[0]
            est = float(boot.estimate[ia] - boot.estimate[ib])
            dist = boot.bootstrap_distribution[:, ia] - boot.bootstrap_distribution[:, ib]
            pval = float(bootstrap_pvalue(dist[:, None], np.array([est]))[0])
            rows.append(
                {
                    "n_conversations": int(n),
                    "n_participants": int(p),
                    "logit_difference": float(s["base_difference"] if diff is None else diff),
                    "estimate": est,
                    "standard_error": float(np.nanstd(dist, ddof=1)),
                    "pvalue": pval,
                    "reject": bool(pval < float(s["alpha"])),
                }
            )
    return pd.DataFrame(rows)


def release_power(
    config: SimulationConfig | None = None,
    *,
    metric: str,
    n_conversations: Any,
    n_participants: Any,
    logit_differences: Any = None,
    effects: TrueEffects | None = None,
    predictors: Sequence[str] | None = None,
    unit: Literal["participant", "conversation"] = "participant",
    n_simulations: int = 200,
    n_resamples: int = 499,
    alpha: float = 0.05,
    rng: RNGLike = 0,
    out: str | os.PathLike[str] | None = None,
    executor: str = "serial",
    n_workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> PowerResult:
    """Size and power of the paired bootstrap comparison on full simulated releases.

    Parameters
    ----------
    config : SimulationConfig, optional
        Generative model (default: ``effects.config``, else the paper-like scenario). Each
        simulated release has two predictors, no human raters, and ``n`` conversations from
        ``p`` participants drawn anew (a new population of participants per release).
    metric : str
        Any conversation-level registry metric, pooled ones included.
    n_conversations, n_participants : int or sequence of int
        The grid (``n >= p``; ``p >= 2`` with ``unit="participant"``).
    logit_differences : float, sequence or None
        Skill of predictor 0 minus predictor 1 on the metric's capability (every capability for
        a composite), logit scale: predictor 1's skill there is set to predictor 0's minus it
        (other capabilities keep the base skills). ``0`` measures the size of the test. ``None``:
        the base skills as they are (e.g. the planted difference of a simulated release),
        reported as their mean difference over the contrast's capabilities.
    effects, predictors : optional
        Base skills: the rows of ``predictors`` (two names) in ``effects`` (e.g.
        ``truth_from_file("release/truth.json")`` of a simulated release: its planted skills);
        default: the first two models of ``draw_effects(config, rng=seed)``.
    unit : {"participant", "conversation"}
        Resampling unit of the bootstrap (two-stage participant plan, or conversations).
    n_simulations : int
        Simulated releases per grid point and difference.
    n_resamples, alpha, rng, out, executor, n_workers, scheduler, progress
        See :func:`power_curve`. The study seed ``seed = root_seed(rng)`` also draws the default
        base skills.

    Returns
    -------
    PowerResult
        ``table`` rows per grid point and ``logit_difference``: ``power`` with its Monte Carlo
        interval and ``effect``, the mean estimated metric-scale difference (the expected effect
        on the metric at that logit difference), with ``effect_se``.
    """
    from attunestats.metrics.registry import METRICS
    from attunestats.release.simulate import CAPABILITIES, SimulationConfig, draw_effects

    spec = METRICS.get(metric)
    if spec is None or spec.level != "conversation":
        raise ValueError(f"metric must be a conversation-level registry metric; got {metric!r}")
    caps = list(CAPABILITIES) if spec.capability == "composite" else [spec.capability]
    _check_choice("unit", unit, ("participant", "conversation"))
    alpha = _check_prob("alpha", alpha)
    if config is None:
        config = effects.config if effects is not None else SimulationConfig()
    if not isinstance(config, SimulationConfig):
        raise TypeError(f"config must be a SimulationConfig; got {type(config).__name__}")
    seed = root_seed(rng)
    if effects is None:
        if predictors is not None:
            raise ValueError("predictors needs effects (the population they come from)")
        base = draw_effects(config, rng=seed)
        rows = [0, 1]
        if base.kinds[:2] != ("model", "model"):
            raise ValueError("config must have at least 2 models")
    else:
        base = effects
        names = list(predictors) if predictors is not None else list(effects.predictors[:2])
        if len(names) != 2 or any(n not in effects.predictors for n in names):
            raise ValueError(f"predictors must be two of {effects.predictors}; got {predictors!r}")
        rows = [effects.predictors.index(n) for n in names]
    theta = base.theta[rows]
    ns = _as_int_array("n_conversations", n_conversations, 2)
    ps = _as_int_array("n_participants", n_participants, 1)
    if unit == "participant" and np.any(ps < 2):
        # one participant: every participant resample is the release itself (p = 1 / (B + 1))
        raise ValueError(
            f"n_participants must be integers >= 2 with unit='participant'; got "
            f"{[int(v) for v in ps]}"
        )
    grid = grid_cells(ns, ps)
    if logit_differences is None:
        diffs: list[float | None] = [None]
    else:
        diffs = [float(d) for d in _as_float_array("logit_differences", logit_differences)]
    cap_idx = [CAPABILITIES.index(c) for c in caps]
    base_difference = float(np.mean(theta[0, cap_idx] - theta[1, cap_idx]))
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, int) or n_simulations < 2:
        raise ValueError(f"n_simulations must be an integer >= 2; got {n_simulations!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 2:
        raise ValueError(f"n_resamples must be an integer >= 2; got {n_resamples!r}")
    study_config = {
        "simulation": config.to_dict(),
        "theta": theta.tolist(),
        "capabilities": caps,
        "metric": metric,
        "grid": grid,
        "logit_differences": diffs,
        "base_difference": base_difference,
        "unit": unit,
        "n_resamples": int(n_resamples),
        "alpha": alpha,
    }
    study = Study(
        "attunestats.design.power.release:release_power_replicate", study_config,
        n_replicates=n_simulations, seed=seed,
        setup="attunestats.design.power.release:release_power_setup", name="release_power",
    )  # fmt: skip
    frame = _run(study, out, {"executor": executor, "n_workers": n_workers,
                              "scheduler": scheduler, "progress": progress})  # fmt: skip
    # ``out`` may hold an earlier, longer run of the same study: keep the releases asked for
    frame = frame[frame["replicate"] < n_simulations].reset_index(drop=True)
    table = summarise_power(frame, alpha=alpha)
    keys = ["n_conversations", "n_participants", "logit_difference"]
    eff = frame.groupby(keys)["estimate"].agg(["mean", "std", "count"]).reset_index()
    eff["effect_se"] = eff["std"] / np.sqrt(eff["count"])
    table = table.merge(eff.rename(columns={"mean": "effect"})[keys + ["effect", "effect_se"]],
                        on=keys, how="left")  # fmt: skip
    table["metric"] = metric
    table["unit"] = unit
    table["test"] = "bootstrap"
    table["design"] = "paired"
    table["contrast"] = f"{base.predictors[rows[0]]} - {base.predictors[rows[1]]}"
    table.attrs["label"] = SIMULATED_LABEL
    return PowerResult(
        table=table, model=None, alpha=alpha, alternative="two-sided", test="bootstrap",
        n_simulations=int(n_simulations), seed=seed, simulations=frame,
    )  # fmt: skip
