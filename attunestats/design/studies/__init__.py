"""Simulation studies that scale out: one runner, any executor, resumable Parquet results.

The package's validity rests on simulation studies (interval coverage, test size and power,
hierarchical recovery, power curves) that need thousands of simulated releases. A study here is

- a *replicate function* ``replicate(context, rng) -> pandas.DataFrame``, named by its import path
  (``"package.module:function"``) so that any worker process or cluster node can import it;
- a JSON-able *config* and an optional *setup function* ``setup(config) -> context`` that builds the
  expensive shared state once (for the coverage study: the population and its population values);
- a study *seed* and a number of replicates.

Replicate ``i`` uses the seed :func:`replicate_seed` ``(seed, i)`` (``SeedSequence(seed).spawn``'s
child ``i``), which depends neither on the executor nor on the order in which replicates finish,
so a replicate is a pure function of (config, seed, i) and the results are the same numbers
whatever runs them. Every replicate runs with one BLAS/OpenMP thread in every executor
(``threadpoolctl`` and the thread environment variables): multi-threaded BLAS can add in another
order, and a last-bit difference is enough to flip a tie in a bootstrap count or to send an MCMC
chain elsewhere. :func:`run_study` runs the replicates that are not done yet

- ``executor="serial"``: in this process, one after the other;
- ``executor="processes"``: in local worker processes (``concurrent.futures`` with the spawn start
  method, so workers start clean on every platform);
- ``executor="dask"``: on a Dask distributed cluster (``scheduler="tcp://host:8786"``), or on a
  :class:`distributed.LocalCluster` started for the study when no address is given,

and writes every finished replicate at once as its own Parquet part file (written to a temporary
name, flushed, then renamed: a crash never leaves a half-written part), so an interrupted study
resumes where it stopped when the same call is made again: completed replicates are read, not
redone, and none is lost. When every replicate is done the parts are consolidated into one Parquet
file, rows ordered by replicate id, with the study recorded in its metadata; the consolidation is
deterministic, so a study interrupted and resumed gives a byte-identical file to one that ran
through. Running the same study again with more replicates extends the file.

A progress line on stderr (updated in place on a terminal, a line every 5% otherwise) shows the
replicates done, the rate and an estimate of the time left.

Built-in study kinds (:data:`STUDY_KINDS`, see :func:`make_study`): ``coverage`` (bootstrap
interval coverage against population values, :mod:`attunestats.design.coverage`), ``mean_coverage``
(coverage of the cluster-t interval of a clustered normal mean: a cheap, exactly calibrated study),
``power_curve`` (simulated power of a clustered contrast, :mod:`attunestats.design.power`),
``release_power`` (size and power of the paired bootstrap comparison on full simulated releases),
and ``recovery`` (hierarchical model recovery: simulate, fit with :mod:`attunestats.hierarchical`,
compare with the planted truth; :func:`recovery_replicate`).
Other modules add kinds with :func:`register_study_kind`. Everything a study produces is
simulated and labelled so (``constants.SIMULATED_LABEL``).

Running a study on a multi-node Dask cluster
--------------------------------------------
The same study gives the same numbers on a laptop and on a cluster: only the executor changes.

1. Install the same version of attunestats (with its ``dask`` extra) in the same Python
   environment on every node (``pip install 'attunestats[dask]'``; replicate results depend on
   the versions of numpy/scipy/pandas, so keep them identical across nodes).
2. Start a scheduler on one node: ``dask scheduler --port 8786``.
3. Start workers on every node, one single-threaded worker process per core (the replicates are
   single-threaded numpy): ``dask worker tcp://SCHEDULER:8786 --nworkers auto --nthreads 1``.
4. From any machine that can reach the scheduler (it needs no shared file system with the
   workers: results come back to the client, which alone writes the Parquet file), run::

       attunestats study run coverage --replicates 4000 --seed 1 \\
           --out studies/coverage.parquet --executor dask --scheduler tcp://SCHEDULER:8786

   or, from Python, ``run_study(make_study("coverage", n_replicates=4000, rng=1),
   "studies/coverage.parquet", executor="dask", scheduler="tcp://SCHEDULER:8786")``.
5. If the client, the scheduler or workers stop, run the same command again: the study resumes
   from the replicates already written to ``studies/coverage.parquet.parts/``. A worker that dies
   mid-replicate costs only that replicate, which Dask reschedules elsewhere.

The shared context (e.g. the population values of the coverage study) is computed once on the
client, cached in the parts folder, and broadcast to every worker once; the client keeps about
two replicates per worker thread in flight, so memory stays flat however long the study. Keep
``--nthreads 1``: replicates run single-threaded and several threads per worker process only
contend for the GIL. Byte-identical results across machines need identical library versions
and, strictly, the same BLAS kernels: OpenBLAS picks kernels by CPU type, so on a cluster of
mixed CPU generations set ``OPENBLAS_CORETYPE`` to one common type on every node (and on the
client) when bit-for-bit agreement with a laptop run matters. On a batch system (SLURM, PBS),
``dask-jobqueue`` starts the same workers as jobs; pass its scheduler address the same way.

Examples
--------
>>> study = make_study("mean_coverage", {"n_participants": 8}, n_replicates=20, rng=3)
>>> result = run_study(study, "mean_coverage.parquet", progress=False)   # doctest: +SKIP
>>> summarise_coverage(result.to_frame())                                # doctest: +SKIP

What lives here
---------------
- :mod:`~attunestats.design.studies.runner`: :class:`Study`, :func:`make_study`,
  :func:`run_study`, :func:`read_study`, :class:`StudyResult`, :func:`replicate_seed` and the
  registry of study kinds;
- :mod:`~attunestats.design.studies.store`: the atomic Parquet part store and its consolidation;
- :mod:`~attunestats.design.studies.executors`: the serial, process and Dask executors;
- :mod:`~attunestats.design.studies.kinds`: the built-in study kinds and their replicate
  functions, :func:`summarise_coverage`.

May import: ``attunestats.constants``, ``attunestats.errors``; the replicate functions of
``kinds`` import the statistics they run (release, metrics, inference, hierarchical,
:mod:`attunestats.design.coverage`) when a study runs. The runner, store and executors import
no statistics module and never :mod:`attunestats.design.power` (which imports the runner).
Never ``report``, ``artifacts`` or ``cli``.
"""

from attunestats.design.studies.executors import EXECUTORS, StudyError, resolve
from attunestats.design.studies.kinds import (
    CoverageContext,
    coverage_setup,
    coverage_study_replicate,
    mean_coverage_replicate,
    recovery_replicate,
    summarise_coverage,
)
from attunestats.design.studies.runner import (
    STUDY_KINDS,
    Study,
    StudyKind,
    StudyResult,
    make_study,
    read_study,
    register_study_kind,
    replicate_seed,
    run_study,
)

__all__ = [
    "EXECUTORS",
    "STUDY_KINDS",
    "CoverageContext",
    "Study",
    "StudyError",
    "StudyKind",
    "StudyResult",
    "coverage_setup",
    "coverage_study_replicate",
    "make_study",
    "mean_coverage_replicate",
    "read_study",
    "recovery_replicate",
    "register_study_kind",
    "replicate_seed",
    "resolve",
    "run_study",
    "summarise_coverage",
]
