"""Releases of AttuneBench: the data model, reading, validating, describing, simulating.

The first layer of the package; everything else starts from a :class:`~.model.Release`.

:mod:`~attunestats.release.model`
    The schema: :class:`~.model.Release` (tidy tables), :data:`~.model.TABLE_SCHEMAS`,
    :class:`~.model.LoadReport` and its :data:`~.model.REPORT_RULES`.
:mod:`~attunestats.release.load`
    Reading and validating the official JSON files: :func:`~.load.load_release`,
    :func:`~.load.release_from_documents`, :func:`~.load.validate_release`,
    :func:`~.load.diagnosis_group`. Helpers: ``_loader`` (the single pass over the documents),
    ``_tables`` (columns -> typed tables), ``_diagnosis`` (diagnosis groups from traits).
:mod:`~attunestats.release.normalize`
    The value normalisation rules of spec 1.4 (aliases, intensities, PANAS blocks, ...).
:mod:`~attunestats.release.describe`
    Describing a release: participants, topics, diagnosis groups, lengths, PANAS trajectories.
:mod:`~attunestats.release.simulate`
    The simulator: complete releases in the official format with known truth (writing).
:mod:`~attunestats.release.bundled`
    The bundled default release (simulated, generated on first use into a cache directory).

What it may import: of attunestats only :mod:`attunestats.constants`, :mod:`attunestats.errors`,
``attunestats._rng`` and ``attunestats._results`` (and the package version), never metrics,
statistics, report, artifacts or cli.
"""
