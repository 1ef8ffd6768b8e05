"""Releases of AttuneBench: the data model, reading, validating, describing, simulating.

The first layer of the package; everything else starts from a :class:`~.model.Release`.

:mod:`~attunestats.release.model`
    The schema: :class:`~.model.Release` (tidy tables), :data:`~.model.TABLE_SCHEMAS`,
    :class:`~.model.LoadReport` and its :data:`~.model.REPORT_RULES`.
:mod:`~attunestats.release.load`
    Reading and validating the official JSON files: :func:`~.load.load_release`,
    :func:`~.load.release_from_documents`, :func:`~.load.validate_release`,
    :func:`~.load.check_release`,
    :func:`~.load.diagnosis_group`. Helpers: ``_loader`` (the single pass over the documents),
    ``_tables`` (columns -> typed tables), ``_diagnosis`` (diagnosis groups from traits).
:mod:`~attunestats.release.schema`
    One pydantic model per kind of file (ground truth, run output, human rater output,
    ``release.json``): types, ranges, aliases, required and expected fields.
:mod:`~attunestats.release.check`
    Findings (errors and warnings, each naming file, JSON path, value and expectation), the
    rules they are grouped by, :class:`~.check.ReleaseWarning`; ``load.check_release`` gives the
    whole report of a directory.
:mod:`~attunestats.release.normalize`
    The value normalisation rules of spec 1.4 (aliases, intensities, PANAS blocks, ...).
:mod:`~attunestats.release.describe`
    Describing a release: participants, topics, diagnosis groups, lengths, PANAS trajectories.
:mod:`~attunestats.release.simulate`
    The simulator: complete releases in the official format with known truth (writing).
:mod:`~attunestats.release.bundled`
    The bundled default release (simulated, generated on first use into a cache directory).

What it may import: of attunestats only :mod:`attunestats.constants`, :mod:`attunestats.errors`,
``attunestats._rng``, ``attunestats._results`` and ``attunestats._io`` (and the package version), never metrics,
statistics, report, artifacts or cli; of other packages pydantic (schema, check).
"""
