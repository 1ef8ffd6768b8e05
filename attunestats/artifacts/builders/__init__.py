"""Builders: the functions that make each table and figure of the artefact registry.

One module per topic (the story of one notebook). A builder is ``builder(ctx) -> Built``: it
calls the statistics and report layers with the seed and settings of its artefact (from
``ctx``, an :class:`attunestats.artifacts.context.ArtefactContext`) and returns the tables and
figures to write; it writes nothing itself. Intermediate results shared by several artefacts
(the scores, a bootstrap, a comparison, an MCMC fit) go through ``ctx.memo`` so a build computes
them once.

May import every layer below ``artifacts`` (release, metrics, the statistics packages, report);
never ``cli``.
"""
