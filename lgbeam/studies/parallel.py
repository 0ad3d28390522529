"""Independent runs in parallel on Dask (``distributed``): a local cluster or an existing scheduler.

Two entry points share one engine:

``map_runs(fn, items, scheduler=None, jobs=None, retries=1, progress=False)``
    ``[fn(item) for item in items]`` in parallel, results in the order of ``items``; a task that still
    fails after its retries raises ``RunFailed``. For callers that want every result or nothing (the EKF
    Monte-Carlo, ``lgbeam.studies.ekf_tables``).
``run_tasks(fn, items, ...)``
    the same, but never raises for a task: one ``TaskOutcome(value, error, attempts)`` per item, so a
    study can report a failed run as a row (``lgbeam.studies.runner``).

``scheduler`` picks where the tasks run:

``None`` or ``"processes"``
    a ``distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True)`` for the call
    (``jobs`` default: the number of CPUs, at most one per item); serially here if Dask is not installed;
``"threads"``
    Dask's threaded scheduler in this process (``jobs`` threads; for functions that release the GIL);
``"synchronous"``
    this process, one item after the other (no Dask machinery; the serial baseline, debugging);
an address (``tcp://host:8786``)
    an existing cluster (``dask scheduler`` + ``dask worker ADDRESS`` on the machines, each with the same
    lgbeam installed); ``jobs`` is ignored.

Retries. A task whose function raises, or whose worker process dies under it (killed, out of memory,
segfault), is tried again up to ``retries`` times; ``TaskOutcome.attempts`` counts the tries. The local
cluster's scheduler runs with ``allowed-failures = 0``, so a dead worker surfaces at once as ``KilledWorker``
and the resubmission here is the only retry (an external scheduler keeps its own setting and may retry a
killed worker's task by itself first).

``fn`` and the items must pickle (a module-level function; Dask ships it by reference, so the workers
must import the same module).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["RunFailed", "TaskOutcome", "dask_client", "default_jobs", "map_runs", "run_tasks"]

CONNECT_TIMEOUT_S = 10.0  # how long to wait for --scheduler ADDRESS before giving up

LOCAL = ("synchronous", "threads", "processes")


@dataclass(frozen=True)
class TaskOutcome:
    """What became of one item: its value (``error is None``) or the last error, after ``attempts`` tries."""

    value: Any = None
    error: str | None = None
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.error is None


class RunFailed(RuntimeError):
    """A task of ``map_runs`` failed on every try."""


def _describe(exc: BaseException) -> str:
    name = type(exc).__name__
    return f"{name}: {exc}" if str(exc) else name


def _is_address(scheduler: str | None) -> bool:
    return scheduler is not None and scheduler not in LOCAL


def default_jobs(n_items: int) -> int:
    """The CPUs of this machine, at most one per item (and at least 1)."""
    return max(1, min(os.cpu_count() or 1, n_items))


@contextlib.contextmanager
def dask_client(jobs: int, scheduler: str | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: to the address ``scheduler`` when given, else to a fresh local cluster of
    ``jobs`` single-threaded worker processes (closed on exit).

    Raises
    ------
    ValueError
        ``jobs < 1``, or the scheduler cannot be reached within ``CONNECT_TIMEOUT_S``.
    """
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    import dask
    from distributed import Client, LocalCluster

    if _is_address(scheduler):
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r} ({_describe(exc)}); start one with "
                             "`dask scheduler` (and workers with `dask worker ADDRESS`), or give --scheduler "
                             "processes, threads or synchronous") from None
        try:
            yield client
        finally:
            client.close()
        return
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # the scheduler and nannies live here: no INFO chatter on stderr
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
        try:
            client = Client(cluster)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()
    finally:
        quiet.setLevel(level)


def _progress_bar(total: int, enabled: bool, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr, disable=not enabled, leave=False)


def _attempt(fn: Callable[[Any], Any], item: Any, retries: int) -> TaskOutcome:
    """``fn(item)`` tried up to ``1 + retries`` times in this process."""
    outcome = TaskOutcome(None, "not run", 0)
    for attempt in range(1, retries + 2):
        try:
            return TaskOutcome(fn(item), None, attempt)
        except Exception as exc:  # noqa: BLE001 - a failed task is a result; the caller decides
            logger.debug("task failed (try %d): %s", attempt, traceback.format_exc())
            outcome = TaskOutcome(None, _describe(exc), attempt)
    return outcome


def _in_process(fn: Callable[[Any], Any], items: list[Any], retries: int, threads: int, bar: Any,
                done: Callable[[int, TaskOutcome], None]) -> list[TaskOutcome]:
    """Serially (``threads == 0``) or on Dask's threaded scheduler with ``threads`` threads."""
    if threads == 0:
        out = []
        for i, item in enumerate(items):
            out.append(_attempt(fn, item, retries))
            done(i, out[-1])
            bar.update(1)
        return out
    import dask

    def one(i: int) -> TaskOutcome:
        o = _attempt(fn, items[i], retries)
        done(i, o)
        bar.update(1)
        return o

    return list(dask.compute(*[dask.delayed(one)(i) for i in range(len(items))], scheduler="threads",
                             num_workers=threads))


def _on_cluster(client: Any, fn: Callable[[Any], Any], items: list[Any], retries: int, bar: Any,
                done: Callable[[int, TaskOutcome], None]) -> list[TaskOutcome]:
    from distributed import as_completed

    index: dict[Any, tuple[int, int]] = {}  # future -> (item index, attempt)

    def submit(i: int, attempt: int) -> Any:
        fut = client.submit(fn, items[i], pure=False, retries=0)
        index[fut] = (i, attempt)
        return fut

    results: list[TaskOutcome | None] = [None] * len(items)
    pending = as_completed([submit(i, 1) for i in range(len(items))])
    for fut in pending:
        i, attempt = index.pop(fut)
        if fut.status == "finished":
            results[i] = TaskOutcome(fut.result(), None, attempt)
        else:
            error = _describe(fut.exception())
            fut.release()
            if attempt <= retries:
                logger.warning("run %d failed (%s); trying again (try %d of %d)", i, error, attempt + 1, retries + 1)
                pending.add(submit(i, attempt + 1))
                continue
            results[i] = TaskOutcome(None, error, attempt)
        done(i, results[i])  # type: ignore[arg-type]
        bar.update(1)
    return results  # type: ignore[return-value]


def run_tasks(fn: Callable[[Any], Any], items: Sequence[Any], *, scheduler: str | None = None,
              jobs: int | None = None, retries: int = 1, progress: bool = False, desc: str = "runs",
              client: Any = None, on_done: Callable[[int, TaskOutcome], None] | None = None) -> list[TaskOutcome]:
    """Apply ``fn`` to every item (see the module docstring); one ``TaskOutcome`` per item, in order.

    Parameters
    ----------
    scheduler
        ``None``/``"processes"`` (local cluster), ``"threads"``, ``"synchronous"`` or a scheduler address.
    jobs
        Worker processes (or threads) of a local scheduler, ``>= 1``; default ``default_jobs(len(items))``.
    retries
        Further tries of a task that raised or whose worker died.
    progress
        A tqdm bar over the items on stderr.
    client
        An existing ``distributed.Client`` to use (overrides ``scheduler`` and ``jobs``).
    on_done
        Called as ``on_done(index, outcome)`` as each item finishes (in completion order).

    Raises
    ------
    ValueError
        ``jobs < 1``, ``retries < 0``, or an unreachable scheduler address.
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    items = list(items)
    n_jobs = jobs if jobs is not None else default_jobs(len(items))
    done = on_done or (lambda i, o: None)
    bar = _progress_bar(len(items), progress, desc)
    try:
        if client is not None:
            return _on_cluster(client, fn, items, retries, bar, done)
        if scheduler == "synchronous":
            return _in_process(fn, items, retries, 0, bar, done)
        if scheduler == "threads":
            return _in_process(fn, items, retries, n_jobs, bar, done)
        if not _is_address(scheduler) and importlib.util.find_spec("distributed") is None:
            logger.warning("dask.distributed is not installed: running the %d items one after the other", len(items))
            return _in_process(fn, items, retries, 0, bar, done)
        with dask_client(min(n_jobs, max(1, len(items))), scheduler) as cl:
            return _on_cluster(cl, fn, items, retries, bar, done) if items else []
    finally:
        bar.close()


def map_runs(fn: Callable[[Any], Any], items: Sequence[Any], *, scheduler: str | None = None,
             jobs: int | None = None, retries: int = 1, progress: bool = False, desc: str = "runs") -> list[Any]:
    """``[fn(item) for item in items]`` in parallel (see the module docstring); raises ``RunFailed`` naming the
    first item that failed on every try."""
    outcomes = run_tasks(fn, items, scheduler=scheduler, jobs=jobs, retries=retries, progress=progress, desc=desc)
    for i, o in enumerate(outcomes):
        if not o.ok:
            raise RunFailed(f"item {i} failed after {o.attempts} tries: {o.error}")
    return [o.value for o in outcomes]
