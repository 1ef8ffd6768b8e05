"""How much each scoring convention (spec 4) moves each predictor's composite."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from attunestats._results import ResultMixin
from attunestats.constants import SIMULATED_LABEL
from attunestats.metrics.conventions import ScoringOptions, round_display
from attunestats.metrics.score import score


@dataclass(frozen=True, repr=False)
class ConventionSensitivity(ResultMixin):
    """How much each alternative scoring convention moves each predictor's composite.

    Attributes
    ----------
    table : pandas.DataFrame
        ``predictor, mode, convention, alternative, composite_default, composite_alternative,
        difference``: one row per predictor x mode x alternative, in convention order;
        ``difference`` is the alternative's composite minus the default's (composite points,
        0-100). ``table.attrs["scoring_options"]`` holds the reference conventions.
    scoring_options : dict
        The reference conventions (:meth:`ScoringOptions.to_dict`).
    simulated : bool
        Whether the release was simulated.
    """

    table: pd.DataFrame = field(repr=False)
    scoring_options: dict[str, Any]
    simulated: bool

    _title = "Sensitivity of the composite to the scoring conventions"
    estimand = ("each predictor's composite on this release (no sampling uncertainty): the "
                "change when one scoring convention is switched, all others at the reference")  # fmt: skip
    method = "the release rescored once per alternative convention"

    def to_frame(self) -> pd.DataFrame:
        """The table (one row per predictor x mode x alternative), ``simulated`` column added."""
        frame = self.table.copy()
        frame["simulated"] = self.simulated
        return frame

    def largest(self) -> pd.DataFrame:
        """One row per convention and alternative: the largest absolute change of any predictor's
        composite (``max_abs_difference``, composite points) and the predictor and mode it is
        for (blank when no composite moves), in convention order."""
        t = self.table.assign(abs_difference=self.table["difference"].abs())
        rows = []
        for (conv, alt), group in t.groupby(["convention", "alternative"], sort=False):
            top = group.loc[group["abs_difference"].idxmax()] if group["abs_difference"].notna(
                ).any() else group.iloc[0]  # fmt: skip
            moved = bool(top["abs_difference"] > 0)  # no predictor named when none moves
            rows.append({"convention": conv, "alternative": alt,
                         "max_abs_difference": float(top["abs_difference"]),
                         "predictor": top["predictor"] if moved else "",
                         "mode": top["mode"] if moved else ""})  # fmt: skip
        return pd.DataFrame(rows)

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        title, meta, _, notes = super()._summary_parts()
        meta["Predictors"] = str(self.table[["predictor", "mode"]].drop_duplicates().shape[0])
        notes = [*notes, "largest change of any predictor's composite per alternative "
                 "(composite points); to_frame() has every predictor"]  # fmt: skip
        return title, meta, self.largest(), notes

    def __repr__(self) -> str:
        n = self.table[["predictor", "mode"]].drop_duplicates().shape[0]
        worst = self.largest()
        top = ""
        if len(worst) and worst["max_abs_difference"].notna().any():
            w = worst.loc[worst["max_abs_difference"].idxmax()]
            top = f"; largest {w['max_abs_difference']:.3g} points ({w['convention']})"
        tag = f"; {SIMULATED_LABEL.split('.')[0]}" if self.simulated else ""
        return f"<ConventionSensitivity: {worst.shape[0]} alternatives x {n} predictors{top}{tag}>"


def _composites(release: Any, options: ScoringOptions) -> pd.Series:
    p = score(release, options=options).predictor
    p = p.loc[p["metric"] == "composite_score"]
    return p.set_index(["predictor", "mode"])["value"]


def convention_sensitivity(release: Any, *,
                           base: ScoringOptions | None = None) -> ConventionSensitivity:  # fmt: skip
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
    ConventionSensitivity
        ``to_frame()``: ``predictor, mode, convention, alternative, composite_default,
        composite_alternative, difference`` (alternative minus default), one row per predictor x
        mode x alternative, in convention order; ``largest()``: the largest change per
        alternative; ``summary()`` shows it.

    Examples
    --------
    >>> import attunestats as at
    >>> sens = at.convention_sensitivity(at.load_bundled_release())
    >>> sens.largest()[["convention", "max_abs_difference"]].round(2).head(2)
                    convention  max_abs_difference
    0       unknown_gt_emotion                0.13
    1  f1_intensity_both_empty                0.00
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
    return ConventionSensitivity(table=out, scoring_options=base.to_dict(),
                                 simulated=bool(getattr(release, "simulated", False)))  # fmt: skip
