"""The human baseline: agreement among human raters, with the participants, and humans vs models.

AttuneBench's human baseline has a few people do the evaluated model's (EM's) task on the same
conversations. Claim (f) of the paper is that this baseline "beats most models at predicting
preferences but is weak at predicting conversation goals". This package answers it with numbers:

* :func:`rater_agreement` -- how much the human raters agree with *each other*, per annotation
  type (Krippendorff's alpha with the right metric, plus Fleiss' kappa or the ICC where they
  apply), with intervals for the population of participants (delete-one-participant jackknife,
  t on ``P - 1`` df; the conversation and unit bootstraps by name);
* :func:`rater_vs_participant` -- each rater against the participants' own first-person
  annotations (the participant is one more "rater"), and whether raters agree with each other more
  than with the participants (a paired difference, same jackknife);
* :func:`common_ground` -- the units one rater actually rated (conversations, turns, answered
  judgements, selected comparisons, holistic answers), as a restricted release to score;
* :func:`humans_vs_models` -- differences between the human raters (each, and their mean) and
  every model, per metric (and pillar), on each rater's common ground (or on all units, by name),
  for the population of participants (participant jackknife; the conversation bootstrap by name),
  with adjusted intervals that agree with the adjusted tests and effect sizes;
* :func:`claim_f` -- the verdict on claim (f), one evidence row per tested quantity, with its
  rule, effect sizes, intervals and corrected p-values;
* :func:`baseline_tables` -- every table notebook 07 shows. Its figures are drawn by
  :mod:`attunestats.report.baseline` (``plot_rater_agreement``, ``plot_rater_vs_participant``,
  ``plot_humans_vs_models``, ``plot_claim_f``).

Modules, one job each:

``annotations``
    The annotation types (:data:`ANNOTATION_TYPES`) and the long tables of their ratings
    (:func:`annotation_ratings`).
``kernel``
    Krippendorff's alpha of many rater subsets on shared participant-jackknife replicates or
    (cluster) bootstrap resamples; :func:`masi_matrix`.
``agreement``
    :func:`rater_agreement`, :func:`rater_vs_participant` and their results.
``ground``
    :func:`common_ground`, :class:`CommonGround`, :data:`COMMON_GROUND_RULE` (which units are
    compared, and how a binary judgement answered in some tasks only is handled).
``comparison``
    :func:`humans_vs_models` and its result.
``claim``
    :func:`claim_f`, :class:`ClaimFResult`, the claim and its rule.
``tables``
    :func:`baseline_tables`.

Everything computed from a simulated release carries ``simulated=True``.

May import: ``attunestats.release``, ``attunestats.metrics``, ``attunestats.agreement``,
``attunestats.inference`` and the shared modules (``constants``, ``errors``, ``_rng``,
``_results``). Never ``report``, ``artifacts`` or ``cli``.
"""

from attunestats.baseline.agreement import (
    ParticipantAgreementResult,
    RaterAgreementResult,
    rater_agreement,
    rater_vs_participant,
)
from attunestats.baseline.annotations import (
    ANNOTATION_TYPES,
    PARTICIPANT,
    AnnotationType,
    annotation_ratings,
)
from attunestats.baseline.claim import (
    CLAIM_F_RULE,
    CLAIM_F_STATEMENT,
    ClaimFResult,
    claim_f,
)
from attunestats.baseline.comparison import (
    COMPARISONS,
    HumansVsModelsResult,
    humans_vs_models,
)
from attunestats.baseline.ground import COMMON_GROUND_RULE, CommonGround, common_ground
from attunestats.baseline.kernel import masi_matrix
from attunestats.baseline.tables import baseline_tables

__all__ = [
    "ANNOTATION_TYPES",
    "CLAIM_F_RULE",
    "CLAIM_F_STATEMENT",
    "COMMON_GROUND_RULE",
    "COMPARISONS",
    "PARTICIPANT",
    "AnnotationType",
    "ClaimFResult",
    "CommonGround",
    "HumansVsModelsResult",
    "ParticipantAgreementResult",
    "RaterAgreementResult",
    "annotation_ratings",
    "baseline_tables",
    "claim_f",
    "common_ground",
    "humans_vs_models",
    "masi_matrix",
    "rater_agreement",
    "rater_vs_participant",
]
