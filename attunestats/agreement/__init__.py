"""Inter-rater agreement: Krippendorff's alpha, Cohen's, Fleiss' and Gwet's coefficients, ICC, W.

One API throughout: data first -- a raters x units array (NaN/None = missing rating; strings or
other hashable values allowed for nominal data) or a long DataFrame with unit, rater and value
columns named by ``columns=`` -- then keyword-only options; results are frozen dataclasses with
``.to_frame()``.

* :func:`krippendorff_alpha` -- nominal, ordinal, interval, ratio or a user distance
  (:func:`masi_distance`, :func:`jaccard_distance` for emotion-tag sets,
  :func:`valence_arousal_distance` for single emotion labels); bootstrap intervals over units
  (vectorised) or by the Hayes & Krippendorff (2007) algorithm.
* :func:`cohen_kappa` -- unweighted or weighted, ASE and ASE0 as SAS PROC FREQ.
* :func:`fleiss_kappa` -- missing ratings allowed; Gwet's and Fleiss-Nee-Landis standard errors.
* :func:`gwet_ac1` -- AC1, or AC2 with weights.
* :func:`icc` -- the six Shrout-Fleiss / McGraw-Wong ICCs with F-based intervals.
* :func:`kendall_w` -- Kendall's W with Friedman's test.

May import: numpy, scipy, pandas, krippendorff and the shared modules (``constants``,
``errors``, ``_rng``, ``_results``); nothing else of attunestats (it works on plain arrays and
tables, so the baseline and independence analyses can use it).
"""

from attunestats.agreement._results import ConfidenceInterval
from attunestats.agreement.alpha import AlphaResult, krippendorff_alpha
from attunestats.agreement.concordance import KendallWResult, kendall_w
from attunestats.agreement.distances import (
    jaccard_distance,
    masi_distance,
    valence_arousal_distance,
)
from attunestats.agreement.icc import ICC_FORMS, ICCResult, icc
from attunestats.agreement.kappa import (
    CohenKappaResult,
    FleissKappaResult,
    GwetResult,
    agreement_weights,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
)

__all__ = [
    "ICC_FORMS",
    "AlphaResult",
    "CohenKappaResult",
    "ConfidenceInterval",
    "FleissKappaResult",
    "GwetResult",
    "ICCResult",
    "KendallWResult",
    "agreement_weights",
    "cohen_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "icc",
    "jaccard_distance",
    "kendall_w",
    "krippendorff_alpha",
    "masi_distance",
    "valence_arousal_distance",
]
