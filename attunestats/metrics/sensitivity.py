"""How much each scoring convention (spec 4) moves each predictor's composite."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from attunestats.metrics.conventions import ScoringOptions, round_display
from attunestats.metrics.score import score


def _composites(release: Any, options: ScoringOptions) -> pd.Series:
    p = score(release, options=options).predictor
    p = p.loc[p["metric"] == "composite_score"]
    return p.set_index(["predictor", "mode"])["value"]


def convention_sensitivity(release: Any, *, base: ScoringOptions | None = None) -> pd.DataFrame:
    """Predictor composites under every alternative of every scoring convention.

    The release is scored once with ``base`` and once per alternative (one convention changed at a
    time). For ``composite_rounding``, which only affects display, both columns hold the displayed
    composite (rounded to 2 decimals with the base and with the alternative rule); every other row
    holds unrounded composites.

    Parameters
    ----------
    release : Release
    base : ScoringOptions, optional
        Reference conventions (the spec's defaults when omitted).

    Returns
    -------
    pandas.DataFrame
        ``predictor, mode, convention, alternative, composite_default, composite_alternative,
        difference`` (alternative minus default), one row per predictor x mode x alternative,
        in convention order.

    Examples
    --------
    >>> import attunestats as at
    >>> table = at.convention_sensitivity(at.load_bundled_release())
    >>> largest = table.assign(size=table["difference"].abs()).groupby("convention", sort=False)
    >>> largest["size"].max().round(2).head(2)  # composite points, worst predictor
    convention
    unknown_gt_emotion         0.13
    f1_intensity_both_empty    0.00
    Name: size, dtype: float64
    """
    if base is None:
        base = ScoringOptions()
    if not isinstance(base, ScoringOptions):
        raise TypeError(f"base must be a ScoringOptions, got {type(base).__name__}")
    ref = _composites(release, base)
    frames = []
    for name, value in base.alternatives():
        if name == "composite_rounding":
            default = round_display(ref.to_numpy(), 2, method=base.composite_rounding)
            alt = round_display(ref.to_numpy(), 2, method=value)
            alt_s = pd.Series(alt, index=ref.index)
            default_s = pd.Series(default, index=ref.index)
        else:
            alt_s = _composites(release, base.replace(**{name: value})).reindex(ref.index)
            default_s = ref
        frames.append(
            pd.DataFrame(
                {
                    "predictor": ref.index.get_level_values("predictor"),
                    "mode": ref.index.get_level_values("mode"),
                    "convention": name,
                    "alternative": str(value),
                    "composite_default": default_s.to_numpy(np.float64),
                    "composite_alternative": alt_s.to_numpy(np.float64),
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out["difference"] = out["composite_alternative"] - out["composite_default"]
    for col in ("predictor", "mode", "convention", "alternative"):
        out[col] = out[col].astype("str")
    out.attrs["scoring_options"] = base.to_dict()
    return out
