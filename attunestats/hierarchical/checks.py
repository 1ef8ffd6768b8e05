"""Model checks in ArviZ's terms: PSIS-LOO comparisons of structures, posterior predictive data.

:func:`loo` computes Pareto-smoothed importance-sampling leave-one-out cross-validation
(``arviz.loo``'s algorithm, vectorised over cells in ``hierarchical._psis``) from the
pointwise log-likelihood of every observed cell (a predictor x turn count or score: leaving one
out keeps its conversation, so the estimate is about new cells of the same conversations; it
ranks how well structures describe the data, not how they generalise to new people).
:func:`compare_structures` fits one outcome with several structures (:class:`~.spec.ModelSpec`)
and compares them with
``arviz.compare``: the structure with the highest expected log predictive density is first,
``elpd_diff`` (``elpd - elpd of the best``: 0 or negative, ArviZ >= 1 convention) and its
standard error ``dse`` say by how much the others fall short (a difference within about two
``dse`` is not a difference). :func:`predictive_data` returns replicated and observed data as an
ArviZ ``DataTree`` (``posterior_predictive``, ``observed_data`` groups) for ArviZ's PPC plots; the
checks of :func:`~.summaries.posterior_predictive_check` are the tabular form.

The log-likelihood and replicated data use a thinned posterior (``n_draws`` draws, spread over
every chain), so memory stays at ``n_draws x cells`` doubles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from attunestats._rng import RNGLike, check_rng
from attunestats.errors import AttunestatsWarning, warn
from attunestats.hierarchical.fit import FitResult, _check_int
from attunestats.hierarchical.summaries import FAILED


def _check_fit(fit: Any, name: str = "fit") -> None:
    if not isinstance(fit, FitResult):
        raise TypeError(
            f"{name} must be a FitResult (from hierarchical.fit); got {type(fit).__name__}"
        )


def _thin(fit: FitResult, n_draws: int) -> tuple[dict[str, np.ndarray], int, int]:
    """Posterior variables at evenly spaced draws of every chain: (chains * kept, ...)."""
    _check_fit(fit)
    _check_int("n_draws", n_draws, 4)
    post = fit.idata["posterior"]
    n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
    keep = max(1, min(n_draw, int(n_draws) // n_chain))
    idx = np.unique(np.linspace(0, n_draw - 1, keep).round().astype(int))
    out = {}
    for name in post.data_vars:
        a = np.asarray(post[name].values, dtype=float)[:, idx]
        out[str(name)] = a.reshape((n_chain * len(idx),) + a.shape[2:])
    return out, n_chain, len(idx)


def log_likelihood(fit: FitResult, *, n_draws: int = 1000) -> Any:
    """An ArviZ ``DataTree`` with the thinned ``posterior`` and the pointwise ``log_likelihood``
    (variable ``y``, dims ``chain, draw, cell``; cells in the order of
    :meth:`HierarchicalModel.cells`)."""
    import xarray as xr

    params, n_chain, n_keep = _thin(fit, n_draws)
    ll = fit.model.log_likelihood(params)
    ll = ll.reshape(n_chain, n_keep, -1)
    coords = {"chain": np.arange(n_chain), "draw": np.arange(n_keep)}
    post = xr.Dataset(
        {k: (("chain", "draw", *[f"{k}_dim_{i}" for i in range(v.ndim - 1)]),
             v.reshape((n_chain, n_keep) + v.shape[1:])) for k, v in params.items()},
        coords=coords,
    )  # fmt: skip
    lik = xr.Dataset({"y": (("chain", "draw", "cell"), ll)}, coords=coords)
    return xr.DataTree.from_dict({"posterior": post, "log_likelihood": lik})


def loo(fit: FitResult, *, n_draws: int = 1000) -> Any:
    """PSIS-LOO of one fit on :func:`log_likelihood`: ``arviz.loo``'s algorithm and result
    (``arviz_stats.ELPDDataLOO``), computed on all cells at once (``hierarchical._psis``; ArviZ
    loops over cells in Python: 6.6-7.6 s per fit of the paper-sized behaviour model)."""
    from attunestats.hierarchical._psis import loo as psis_loo

    _check_fit(fit)
    model = fit.model
    label = f"{model.outcome} ({' + '.join(model.spec.terms)})"
    return psis_loo(log_likelihood(fit, n_draws=n_draws), var_name="y", label=label)


def compare_structures(fits: Mapping[str, FitResult], *, n_draws: int = 1000) -> pd.DataFrame:
    """PSIS-LOO comparison of fits of one outcome with different structures.

    Parameters
    ----------
    fits : mapping of str to FitResult
        Structure label -> fit (same data: the same observed cells).
    n_draws : int
        Posterior draws used per fit.

    Returns
    -------
    DataFrame
        ``arviz.compare``'s table (``rank, elpd_diff, dse, p_worse, p, elpd, se, weight`` and
        its diagnostic columns; ``elpd_diff`` is 0 for the best and negative for the others) with
        ``structure``, ``n_high_pareto_k`` (cells with Pareto k > 0.7), ``loo_note`` (missing, or
        why PSIS-LOO could not be computed for a structure: that structure then has a row with
        no numbers, after the others, and a warning says so), ``outcome``,
        ``diagnostics`` (of the fit) and ``simulated``; best structure first.
    """
    import arviz as az

    if not isinstance(fits, Mapping):
        raise TypeError(f"fits must be a mapping of structure label to FitResult; got {fits!r}")
    for k, f in fits.items():
        _check_fit(f, f"fits[{k!r}]")
    if len(fits) < 2:
        raise ValueError(f"fits must hold at least two structures; got {list(fits)}")
    cells = {k: int(f.model.n_observations) for k, f in fits.items()}
    if len(set(cells.values())) != 1:
        raise ValueError(f"fits must be of the same observed cells; got cells {cells}")
    first_key, *others = fits
    ref = _observed(fits[first_key].model)
    for k in others:
        differ = [n for n, v in _observed(fits[k].model).items() if not _same(v, ref[n])]
        if differ:
            raise ValueError(
                f"fits must be of the same observed cells; {k!r} differs from {first_key!r} in "
                f"its {', '.join(differ)}"
            )
    elpd, why = {}, {}
    for k, f in fits.items():
        try:
            elpd[k] = loo(f, n_draws=n_draws)
        except ValueError as err:  # PSIS cannot run, e.g. draws repeated by a stuck sampler
            why[k] = f"PSIS-LOO not computable: {err}"
    if len(elpd) < 2:
        raise ValueError(
            f"PSIS-LOO is computable for fewer than two of the structures {list(fits)}: {why}"
        )
    for k, reason in why.items():
        warn(
            f"compare_structures: structure {k!r} ({fits[k].model.outcome}) left out of the "
            f"comparison: {reason} (diagnostics: {'passed' if fits[k].passed else FAILED})",
            AttunestatsWarning,
        )
    table = az.compare(elpd, round_to="none")
    table = pd.DataFrame(table).reset_index().rename(columns={"index": "structure"})
    if "structure" not in table.columns:
        table = table.rename(columns={table.columns[0]: "structure"})
    table["n_high_pareto_k"] = [int((np.asarray(elpd[s].pareto_k) > 0.7).sum())
                                for s in table["structure"]]  # fmt: skip
    table["loo_note"] = None
    for col in ("warning", "diag_diff", "diag_elpd"):  # arviz's "" = no note: a missing value
        if col in table.columns and not pd.api.types.is_numeric_dtype(table[col]):
            table[col] = table[col].where(table[col] != "", None)
    if why:  # one row each, no numbers, saying why
        table = pd.concat([table, pd.DataFrame({"structure": list(why), "loo_note": list(why.values())})],
                          ignore_index=True)  # fmt: skip
    first = next(iter(fits.values()))
    table["outcome"] = first.model.outcome
    table["diagnostics"] = ["passed" if fits[s].passed else FAILED for s in table["structure"]]
    table["simulated"] = first.simulated
    for col in table.columns:
        if table[col].dtype == object:
            table[col] = table[col].astype("str")
    table.attrs["label"] = first.label
    return table


def _observed(model: Any) -> dict[str, Any]:
    """What PSIS-LOO scores: the observed cells (labels and positions) and their outcomes."""
    cells = model.cells()
    return {
        "predictors": model.predictors,
        "conversations": model.conversations,
        "cells": tuple(
            a[cells["r"]]
            for a in (model.conversation_of_row, model.task_of_row, model.item_of_row, model.x)
        )
        + (cells["m"],),
        "outcomes": tuple(cells[k] for k in ("successes", "trials", "value") if k in cells),
    }


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return all(_same(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


def predictive_data(fit: FitResult, *, n_draws: int = 200, rng: RNGLike = None) -> Any:
    """Replicated and observed data of the observed cells as an ArviZ ``DataTree``.

    ``posterior_predictive`` and ``observed_data`` hold ``y`` (successes of a binomial model,
    scores of an ordered-beta model) over ``cell``; ``constant_data`` holds ``trials`` and the
    cell's ``predictor``. For ArviZ's PPC plots (``arviz.plot_ppc_dist`` and friends).
    """
    import xarray as xr

    _check_int("n_draws", n_draws, 1)
    params, n_chain, n_keep = _thin(fit, max(n_draws, 4))
    m = fit.model
    rep = m.simulate_outcomes(params, check_rng(rng))
    cells = m.cells()
    y_rep = rep[:, cells["m"], cells["r"]].reshape(n_chain, n_keep, -1)
    coords = {"chain": np.arange(n_chain), "draw": np.arange(n_keep)}
    obs = cells["successes"] if m.family == "binomial" else cells["value"]
    const = {"predictor": ("cell", np.asarray(m.predictors, dtype=object)[cells["m"]].astype(str))}
    if m.family == "binomial":
        const["trials"] = ("cell", cells["trials"])
    return xr.DataTree.from_dict(
        {
            "posterior_predictive": xr.Dataset(
                {"y": (("chain", "draw", "cell"), y_rep)}, coords=coords
            ),  # fmt: skip
            "observed_data": xr.Dataset({"y": ("cell", obs)}),
            "constant_data": xr.Dataset(const),
        }
    )
