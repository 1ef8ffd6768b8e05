"""Coverage of the bootstrap intervals, checked against planted truth (validation study).

A *population* is one draw of the simulator's effects (predictor skills, participants, topics,
diagnosis; :class:`~attunestats.release.simulate.TrueEffects`). Releases drawn from it differ only in
their conversations, which is exactly the sampling that a conversation-level bootstrap describes.
The population value of a predictor-level metric is its value on an (effectively) infinite release:
:func:`population_values` scores a very large release drawn from the same population, in chunks,
and combines the chunks exactly (sums of values and of non-null counts for mean metrics, summed
confusion counts for pooled metrics). :func:`coverage_replicate` draws one release, bootstraps it
and says, for every predictor and metric and for every paired difference, whether the interval
covers the population value. Every replicate is a pure function of its inputs and seed, so a study
can run them in any order or place (see ``attunestats.design.studies``).

Participants: a release drawn from a fixed population reuses its participants, so the conversation
bootstrap targets the population *of these participants*; the two-stage participant plan targets a
population of participants, which a fixed-participant study cannot check: its coverage is reported
against the same values, where it should over-cover (and with 11 participants it may still misbehave);
the slow study measures and documents it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, root_seed
from attunestats.inference.bootstrap import bootstrap_scores
from attunestats.release.load import release_from_documents
from attunestats.release.simulate import (
    SimulationConfig,
    TrueEffects,
    draw_effects,
    simulate_documents,
)


def _score_documents(docs):
    from attunestats.metrics.score import score

    return score(release_from_documents(docs.conversations, docs.runs, docs.release_info))


def population_values(
    effects: TrueEffects,
    *,
    n_conversations: int = 20_000,
    chunk_size: int = 500,
    rng: RNGLike = 0,
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Predictor-level values of every conversation-level metric on a very large release.

    Returns a frame (predictor, mode, metric, value, n_conversations). With ``seed =
    root_seed(rng)`` (``rng`` itself when an int), chunks use seeds ``(seed, chunk index)`` so
    they are independent of each other and of the replicates (which use other seeds).
    """
    from attunestats.metrics.registry import METRICS, pooled_statistic

    for name, value in (("n_conversations", n_conversations), ("chunk_size", chunk_size)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
    seed = root_seed(rng)

    if n_conversations < chunk_size:
        chunk_size = n_conversations
    n_chunks = int(np.ceil(n_conversations / chunk_size))
    sums: pd.Series | None = None
    counts: pd.Series | None = None
    conf: pd.DataFrame | None = None
    config = effects.config
    from dataclasses import replace

    for k in range(n_chunks):
        size = min(chunk_size, n_conversations - k * chunk_size)
        chunk_cfg = replace(config, n_conversations=size)
        chunk_seed = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
        scores = _score_documents(simulate_documents(chunk_cfg, rng=chunk_seed, effects=effects))
        conv = scores.conversation
        if metrics is not None:
            conv = conv[conv["metric"].isin(list(metrics))]
        keys = ["predictor", "mode", "metric"]
        s = conv.groupby(keys)["value"].sum(min_count=1)
        c = conv.groupby(keys)["value"].count()
        t = scores.counts.groupby(["predictor", "mode", "task"])[["tp", "tn", "fp", "fn"]].sum()
        sums = s if sums is None else sums.add(s, fill_value=0.0)
        counts = c if counts is None else counts.add(c, fill_value=0)
        conf = t if conf is None else conf.add(t, fill_value=0)
    assert sums is not None and counts is not None and conf is not None
    frame = pd.DataFrame({"sum": sums, "n": counts}).reset_index()
    rows = []
    for (pred, mode, metric), sub in frame.groupby(["predictor", "mode", "metric"], sort=True):
        spec = METRICS.get(metric)
        if spec is None or spec.level != "conversation":
            continue
        if spec.aggregation == "pooled":
            tp, tn, fp, fn = conf.loc[(pred, mode, spec.pooled_task)].to_numpy(dtype=float)
            value = float(pooled_statistic(spec.pooled_stat, tp, tn, fp, fn))
        else:
            n = float(sub["n"].iloc[0])
            value = float(sub["sum"].iloc[0]) / n if n > 0 else np.nan
        rows.append((pred, mode, metric, value, n_conversations))
    return pd.DataFrame(rows, columns=["predictor", "mode", "metric", "value", "n_conversations"])


def coverage_replicate(
    effects: TrueEffects,
    population: pd.DataFrame,
    rng: RNGLike,
    *,
    n_conversations: int | None = None,
    n_resamples: int = 1000,
    method: str = "bca",
    unit: str = "conversation",
    confidence_level: float = 0.95,
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One replicate: draw a release from ``effects``, bootstrap it, check coverage.

    Returns one row per predictor x metric (``kind="mean"``) and per predictor pair x metric
    (``kind="difference"``): estimate, ci_low, ci_high, truth, covered, seed (the int seed of the
    release and of the bootstrap: ``rng`` itself when an int, else drawn from it).
    """
    import warnings
    from dataclasses import replace

    from attunestats.errors import AttunestatsWarning

    seed = root_seed(rng)

    config = (
        effects.config
        if n_conversations is None
        else replace(effects.config, n_conversations=n_conversations)
    )
    scores = _score_documents(simulate_documents(config, rng=int(seed), effects=effects))
    truth = population.set_index(["predictor", "mode", "metric"])["value"]
    if metrics is None:
        metrics = sorted(set(population["metric"]))
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", AttunestatsWarning
        )  # degenerate BCa falls back; counted below
        boot = bootstrap_scores(
            scores, metrics=list(metrics), unit=unit, method=method, n_resamples=n_resamples,
            confidence_level=confidence_level, rng=int(seed),
        )  # fmt: skip
    labels = boot.labels
    keys = list(zip(labels["predictor"], labels["mode"], labels["metric"], strict=True))
    true_vals = np.array([truth.get(k, np.nan) for k in keys])
    out = [
        pd.DataFrame(
            {
                "kind": "mean",
                "predictor": labels["predictor"],
                "predictor_b": "",
                "metric": labels["metric"],
                "estimate": boot.estimate,
                "ci_low": boot.ci_low,
                "ci_high": boot.ci_high,
                "truth": true_vals,
                "method_used": boot.method_used,
            }
        )
    ]
    from attunestats.inference.bootstrap import confidence_interval

    for metric in metrics:
        idx = np.flatnonzero((labels["metric"] == metric).to_numpy())
        pairs = list(combinations(idx, 2))
        if not pairs:
            continue
        ia = np.array([a for a, _ in pairs])
        ib = np.array([b for _, b in pairs])
        d_est = boot.estimate[ia] - boot.estimate[ib]
        d_dist = boot.bootstrap_distribution[:, ia] - boot.bootstrap_distribution[:, ib]
        jack = boot.jackknife_distribution
        d_jack = jack[:, ia] - jack[:, ib] if jack is not None else None
        lo, hi, degenerate = confidence_interval(
            d_dist, d_est, method=method, confidence_level=confidence_level, jackknife=d_jack
        )
        out.append(
            pd.DataFrame(
                {
                    "kind": "difference",
                    "predictor": labels["predictor"].to_numpy()[ia],
                    "predictor_b": labels["predictor"].to_numpy()[ib],
                    "metric": metric,
                    "estimate": d_est,
                    "ci_low": lo,
                    "ci_high": hi,
                    "truth": true_vals[ia] - true_vals[ib],
                    "method_used": np.where(degenerate, "percentile", method),
                }
            )
        )
    frame = pd.concat(out, ignore_index=True)
    frame["covered"] = (frame["ci_low"] <= frame["truth"]) & (frame["truth"] <= frame["ci_high"])
    frame["seed"] = int(seed)
    frame["unit"] = unit
    frame["method"] = method
    return frame


def coverage_population(config: SimulationConfig, *, rng: RNGLike) -> TrueEffects:
    """The population (effects) of a coverage study (``rng`` as in :func:`draw_effects`)."""
    return draw_effects(config, rng=rng)
