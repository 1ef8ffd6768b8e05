"""Study design: power and sample size, coverage and recovery studies, and the studies runner.

What lives here
---------------
- :mod:`~attunestats.design.power`: analytic and simulated power, minimum detectable effects;
- :mod:`~attunestats.design.coverage`: coverage of the package's intervals against planted truth;
- :mod:`~attunestats.design.studies`: one runner for every simulation study (serial, processes,
  Dask), resumable, byte-identical across executors.

May import: ``attunestats.release`` (the simulator), ``attunestats.metrics`` and every
statistics package. Never ``report``, ``artifacts`` or ``cli``.
"""
