"""Where replicates run: in this process, in local worker processes, or on a Dask cluster.

Every replicate runs with one BLAS/OpenMP thread in every executor (``threadpoolctl`` and the
thread environment variables): multi-threaded BLAS can add in another order, and a last-bit
difference is enough to flip a tie in a bootstrap count or to send an MCMC chain elsewhere.
Replicate functions are named by their import path (``"package.module:function"``,
:func:`resolve`) so that any worker process or cluster node can import them.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import multiprocessing
import os
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import pandas as pd

from attunestats.design.studies.store import StudyLike

EXECUTORS: tuple[str, ...] = ("serial", "processes", "dask")
Executor = Literal["serial", "processes", "dask"]


class StudyError(RuntimeError):
    """A replicate failed (the message names the replicate, its seed and the error)."""


def resolve(reference: str) -> Callable[..., Any]:
    """Import ``"package.module:function"`` (attribute chains allowed after the colon)."""
    module_name, _, attr = reference.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as err:
        raise ImportError(f"cannot import module {module_name!r} of {reference!r}: {err}") from err
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as err:
            raise ImportError(f"{reference!r}: module {module_name!r} has no {attr!r}") from err
    return obj


_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _single_threaded() -> Iterator[None]:
    """One BLAS/OpenMP thread while a replicate runs, in every executor.

    Multi-threaded BLAS may sum in another order than single-threaded BLAS (Dask workers run
    with one thread), and a last-bit difference can flip a tie in a bootstrap count or change
    the path of an MCMC chain; pinning one thread everywhere makes a replicate's numbers
    independent of where it runs. Libraries already loaded are limited with ``threadpoolctl``;
    libraries loaded during the replicate (e.g. compiled PyTensor modules) read the thread
    environment variables, which are set to 1 meanwhile (they keep one thread afterwards).
    Parallelism comes from running replicates side by side.
    """
    saved = {k: os.environ.get(k) for k in _ONE_THREAD}
    os.environ.update(dict.fromkeys(_ONE_THREAD, "1"))
    try:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - threadpoolctl comes with the scientific stack
            yield
        else:
            with threadpool_limits(limits=1):
                yield
    finally:
        _restore_env(saved)


def _restore_env(saved: Mapping[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _call(reference: str, context: Any, seed: int) -> pd.DataFrame:
    with _single_threaded():
        return resolve(reference)(context, seed)


_WORKER_CONTEXT: Any = None


def _init_worker(context: Any) -> None:
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = context


def _process_task(reference: str, seed: int) -> pd.DataFrame:
    return _call(reference, _WORKER_CONTEXT, seed)


def _failure(study: StudyLike, replicate: int, err: BaseException) -> StudyError:
    detail = "".join(traceback.format_exception_only(type(err), err)).strip()
    return StudyError(
        f"replicate {replicate} (seed {study.replicate_seed(replicate)}) of study "
        f"{study.name!r} failed: {detail}"
    )


def _run_serial(study: StudyLike, context: Any, todo: Sequence[int]) -> Iterator[tuple[int, Any]]:
    for i in todo:
        try:
            frame = _call(study.replicate, context, study.replicate_seed(i))
        except Exception as err:
            raise _failure(study, i, err) from err
        yield i, frame


def _warm(reference: str) -> int:
    resolve(reference)  # import the replicate's module in the worker
    return os.getpid()


def _start_pool(context: Any, n_workers: int, reference: str) -> cf.ProcessPoolExecutor:
    """Spawn the worker processes and import the replicate's module in them (before timing).

    Workers start with one BLAS thread (environment variables set while they are spawned, as
    Dask's nanny does), so no idle BLAS threads compete with the other workers for the cores.
    """
    saved = {k: os.environ.get(k) for k in _ONE_THREAD}
    os.environ.update(dict.fromkeys(_ONE_THREAD, "1"))
    pool = cf.ProcessPoolExecutor(
        max_workers=n_workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(context,),
    )
    try:
        for fut in [pool.submit(_warm, reference) for _ in range(2 * n_workers)]:
            fut.result()
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        _restore_env(saved)
    return pool


def _run_processes(
    study: StudyLike, todo: Sequence[int], pool: cf.ProcessPoolExecutor, n_workers: int
) -> Iterator[tuple[int, Any]]:
    window = 2 * n_workers
    pending: dict[cf.Future, int] = {}
    queue = iter(todo)
    try:
        for i in queue:
            pending[pool.submit(_process_task, study.replicate, study.replicate_seed(i))] = i
            if len(pending) >= window:
                break
        while pending:
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                try:
                    frame = fut.result()
                except Exception as err:
                    raise _failure(study, i, err) from err
                nxt = next(queue, None)
                if nxt is not None:
                    seed = study.replicate_seed(nxt)
                    pending[pool.submit(_process_task, study.replicate, seed)] = nxt
                yield i, frame
    finally:
        for fut in pending:
            fut.cancel()


def _dask_client(
    client: Any, scheduler: str | None, n_workers: int | None
) -> tuple[Any, list[Any]]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:  # pragma: no cover - dask is an optional extra
        raise ImportError(
            "executor='dask' needs dask.distributed: pip install 'attunestats[dask]'"
        ) from err
    if client is not None:
        return client, []
    if scheduler:
        c = Client(scheduler)
        return c, [c]
    cluster = LocalCluster(
        n_workers=n_workers or 2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )
    c = Client(cluster)
    return c, [c, cluster]


def _run_dask(
    study: StudyLike, context: Any, todo: Sequence[int], client: Any
) -> Iterator[tuple[int, Any]]:
    from distributed import as_completed

    resolve(study.replicate)
    n_threads = max(1, sum(client.nthreads().values()))
    window = max(4, 2 * n_threads)
    [ctx_future] = client.scatter([context], broadcast=True)
    queue = iter(todo)
    keys: dict[str, int] = {}

    def submit(i: int) -> Any:
        fut = client.submit(_call, study.replicate, ctx_future, study.replicate_seed(i), pure=False)
        keys[fut.key] = i
        return fut

    first = [submit(i) for _, i in zip(range(window), queue)]
    stream = as_completed(first)
    try:
        for fut in stream:
            i = keys.pop(fut.key)
            try:
                frame = fut.result()
            except Exception as err:
                raise _failure(study, i, err) from err
            fut.release()
            nxt = next(queue, None)
            if nxt is not None:
                stream.add(submit(nxt))
            yield i, frame
    finally:
        for fut in list(stream.futures):
            fut.cancel()
        ctx_future.release()
