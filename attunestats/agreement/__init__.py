"""Inter-rater agreement: Krippendorff's alpha, Cohen's, Fleiss' and Gwet's coefficients, ICC.

One API throughout: data first (a raters x units array with NaN/None for missing ratings, or a
long DataFrame with unit, rater and value columns named by ``columns=``), keyword-only options,
frozen result objects with ``.to_frame()``.
"""

from attunestats.agreement._results import ConfidenceInterval
from attunestats.agreement.alpha import AlphaResult, krippendorff_alpha
from attunestats.agreement.distances import (
    jaccard_distance,
    masi_distance,
    valence_arousal_distance,
)

__all__ = [
    "AlphaResult",
    "ConfidenceInterval",
    "jaccard_distance",
    "krippendorff_alpha",
    "masi_distance",
    "valence_arousal_distance",
]
