"""Power, minimum detectable effects and required sample sizes for model comparisons,
diagnosis/topic contrasts and the independence test.

*How many participants, and how many conversations each, for 80% power?*
:func:`sample_size` (and :func:`required_participants`, :func:`required_conversations`,
:func:`minimum_detectable_effect`) solve it for the participant-level ``t`` test that the package
uses by default (paired model differences, ``P - 1`` df; diagnosis contrasts, ``P - 2`` df);
:func:`independence_sample_size` simulates the number of models the independence test needs.
See :mod:`attunestats.design.power.required`; ``attunestats power --target-power 0.8 ...``.

Methodologists extending the benchmark ask how many conversations or participants they need to
separate two models, detect a diagnosis or topic effect, or confirm independence of capabilities.
Conversations are clustered within participants, so the answer depends on both counts. This module
answers it three ways, which check each other:

Analytic (means)
    A conversation-level contrast with total variance ``sd^2`` and intraclass correlation ``icc``
    between conversations of one participant has the design effect (Kish; Eldridge, Ashby & Kerry
    2006 for unequal cluster sizes with coefficient of variation ``cv``)::

        deff = 1 + ((cv^2 + 1) * m - 1) * icc,        m = n_conversations / n_participants

    so ``n`` clustered conversations carry the information of ``n / deff`` independent ones (ICC
    0.20 with 10-conversation clusters: deff 2.8). :func:`analytic_power` gives the power of the
    z test with ``n_eff = n / deff`` (``method="z"``, the design-effect approximation) and of the
    cluster-level t test (``method="t"``: noncentral t with ``n_participants - 1`` degrees of
    freedom, ``- 2`` for a between-participant contrast), which is *exact* for normal data with
    equal cluster sizes. :func:`analytic_mde` inverts either.

Simulation from a clustered normal model (:class:`ContrastModel`, any mean metric)
    ``y = effect * x + u[participant] + e`` with ``Var(u) = icc sd^2``, ``Var(e) = (1 - icc) sd^2``
    for three designs: ``"paired"`` (the per-conversation difference of two predictors on one
    metric; ``x = 1``), ``"between"`` (a participant-level contrast such as a diagnosis group;
    ``x`` = group of the participant, share ``allocation`` of participants) and ``"within"`` (a
    conversation-level contrast such as one topic against the rest; ``x`` drawn per conversation
    with probability ``allocation``). :func:`fit_contrast` estimates ``effect, sd, icc`` and the
    cluster-size spread from a scored release (real or simulated; moment/ANOVA estimators).
    :func:`power_curve` simulates datasets over a grid of conversation and participant counts and
    tests each with the cluster-aware test of the design: the cluster-robust (CR1) t test of the
    pooled mean with ``G - 1`` degrees of freedom (``paired``; for equal cluster sizes identical
    to the t test on participant means), the difference of the pooled group means with
    cluster-robust variances on a residual scale pooled over the two groups and ``G - 2``
    degrees of freedom (``between``; for equal cluster sizes identical to the pooled two-sample
    t test on participant means, at any allocation), or
    the participant fixed-effects regression slope (participant-demeaned OLS, ``n - G - 1``
    degrees of freedom; ``within``), exact for this random-intercept model (a participant x
    contrast random slope, not modelled here, would need a cluster-robust variance);
    ``test="bootstrap"`` uses the package's cluster bootstrap instead (``paired`` only: one
    cluster bootstrap of the mean, two-sided bootstrap p-value of :mod:`attunestats.inference.compare`;
    for ``alternative="greater"``/``"less"`` the one-sided share of the null-centred resamples).
    Every test here is shift-equivariant with a shift-invariant standard error, so each simulated
    dataset is drawn once under ``effect = 0`` and the power at any effect is read off the same
    datasets (common random numbers): curves are smooth in the effect and the minimum detectable
    effect is found by root finding on them (:meth:`PowerResult.minimum_detectable_effect`).

Simulation from the release simulator (:func:`release_power`, any registry metric, pooled too)
    Full releases are drawn with :mod:`attunestats.release.simulate` with two predictors whose
    skills on one capability are set (from a simulated release's ``truth.json`` through
    :func:`attunestats.release.simulate.truth_from_file`, or given on the logit scale); each
    replicate draws new participants, topics and conversations, scores the release and tests the
    paired difference with the package's cluster bootstrap (:func:`attunestats.inference.bootstrap.
    bootstrap_scores` with ``unit="participant"`` or ``"conversation"``). With equal skills it
    measures the size of the test. It is the slow, assumption-free check of the normal model.

Independence (:func:`independence_power_curve`)
    The tests of :mod:`attunestats.independence` act on model means, whose reliability grows with
    the number of conversations: ``rel(n) = s^2 / (s^2 + sigma^2 deff / n)`` with ``s^2`` the
    between-model variance of true scores and ``sigma^2`` the per-conversation noise variance
    (fitted from a :class:`~attunestats.independence.MetricMatrix` by
    :func:`fit_independence_noise`). The curve runs
    :func:`attunestats.independence.independence_power` at ``rel(n)`` for every ``n``.

Every simulated quantity is labelled simulated; Monte Carlo intervals (Wilson) accompany every
simulated power. Simulations run through :mod:`attunestats.design.studies`, so they can be spread over
local processes or a Dask cluster and give the same numbers on any executor.

Command line: ``attunestats power analytic|curve|release ...`` (:mod:`attunestats.cli.power`).

What lives here
---------------
- :mod:`~attunestats.design.power.analytic`: :func:`design_effect`, :func:`analytic_power`,
  :func:`analytic_mde`;
- :mod:`~attunestats.design.power.contrast`: :class:`ContrastModel`, :func:`fit_contrast`,
  :func:`fit_contrast_values`;
- :mod:`~attunestats.design.power.curve`: :func:`power_curve` (and its study replicate),
  :class:`PowerResult`, :func:`summarise_power`;
- :mod:`~attunestats.design.power.release`: :func:`release_power` (and its study setup and
  replicate);
- :mod:`~attunestats.design.power.independence`: :func:`independence_power_curve`,
  :func:`fit_independence_noise`, :func:`reliability_at`;
- :mod:`~attunestats.design.power.required`: :func:`sample_size`,
  :func:`required_participants`, :func:`required_conversations`,
  :func:`minimum_detectable_effect`, :func:`sample_size_power`, :class:`SampleSizeResult`,
  :func:`independence_sample_size`.

The figures are :func:`attunestats.report.power.plot_power_curves` (simulated power curves) and
:func:`attunestats.report.power.plot_sample_size` (power against participants and against
conversations per participant, with the target).

May import: ``attunestats.release``, ``attunestats.metrics``, ``attunestats.inference``,
``attunestats.independence`` and the runner of :mod:`attunestats.design.studies` (which never
imports this package). Never ``report``, ``artifacts`` or ``cli``.
"""

from attunestats.design.power._common import ALTERNATIVES, DESIGNS, TESTS
from attunestats.design.power.analytic import analytic_mde, analytic_power, design_effect
from attunestats.design.power.contrast import ContrastModel, fit_contrast, fit_contrast_values
from attunestats.design.power.curve import (
    PowerResult,
    power_curve,
    power_curve_replicate,
    summarise_power,
)
from attunestats.design.power.independence import (
    fit_independence_noise,
    independence_power_curve,
    independence_power_replicate,
    reliability_at,
)
from attunestats.design.power.release import (
    release_power,
    release_power_replicate,
    release_power_setup,
)
from attunestats.design.power.required import (
    IndependenceSampleSize,
    SampleSizeResult,
    independence_sample_size,
    minimum_detectable_effect,
    required_conversations,
    required_participants,
    sample_size,
    sample_size_power,
)

__all__ = [
    "ALTERNATIVES",
    "DESIGNS",
    "TESTS",
    "ContrastModel",
    "IndependenceSampleSize",
    "PowerResult",
    "SampleSizeResult",
    "analytic_mde",
    "analytic_power",
    "design_effect",
    "fit_contrast",
    "fit_contrast_values",
    "fit_independence_noise",
    "independence_power_curve",
    "independence_sample_size",
    "independence_power_replicate",
    "minimum_detectable_effect",
    "power_curve",
    "power_curve_replicate",
    "release_power",
    "release_power_replicate",
    "release_power_setup",
    "reliability_at",
    "required_conversations",
    "required_participants",
    "sample_size",
    "sample_size_power",
    "summarise_power",
]
