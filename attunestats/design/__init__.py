"""Study design: power and sample size, coverage and recovery studies, and the studies runner.

What lives here
---------------
- :mod:`~attunestats.design.power` (package): analytic and simulated power, minimum detectable
  effects (``analytic``, ``contrast``, ``curve``, ``release``, ``independence``);
- :mod:`~attunestats.design.coverage`: coverage of the package's intervals against planted truth;
- :mod:`~attunestats.design.studies` (package): one runner for every simulation study (serial,
  processes, Dask), resumable, byte-identical across executors (``runner``, ``store``,
  ``executors``, and the built-in study ``kinds``).

Inside: ``power`` imports the studies runner; the runner never imports ``power`` (study kinds
name their replicate functions by ``"module:function"`` strings, imported when a study runs).

May import: ``attunestats.release`` (the simulator), ``attunestats.metrics`` and every
statistics package. Never ``report``, ``artifacts`` or ``cli`` (figures of power curves are in
:mod:`attunestats.report.power`; the ``power`` and ``study`` commands in :mod:`attunestats.cli`).
"""
