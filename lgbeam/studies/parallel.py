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
    a pool of ``jobs`` threads in this process (for functions that release the GIL);
``"synchronous"``
    this process, one item after the other (no Dask machinery; the serial baseline, debugging);
an address (``tcp://host:8786``)
    an existing cluster (``dask scheduler`` + ``dask worker ADDRESS`` on the machines, each with the same
    lgbeam installed); ``jobs`` is ignored.

Retries. A task whose function raises, or whose worker process dies under it (killed, out of memory,
segfault), is tried again up to ``retries`` times; ``TaskOutcome.attempts`` counts the tries and
``TaskOutcome.history`` keeps why each earlier try failed. The local cluster is set up so that one dead
worker costs exactly one try of exactly one task, and the retry gets a working worker:

- the scheduler runs with ``allowed-failures = 0``: a dead worker surfaces at once as ``KilledWorker`` and the
  resubmission here is the only retry (an external scheduler keeps its own setting and may retry a killed
  worker's task by itself first);
- at most ``jobs`` tasks are submitted at a time (one per single-threaded worker), so a worker only ever
  holds the task it is running: Dask charges a death to every task *assigned* to the dead worker, and a
  task merely queued behind the killed run would otherwise lose a try without having started;
- ``distributed.deploy.lost-worker-timeout`` is set to a day for the cluster's lifetime. The nanny restarts a
  killed worker process by itself, but ``SpecCluster`` also closes a worker (nanny included) that has not come
  back within that timeout (15 s by default). On a loaded machine the restart takes longer than that, and
  a restarted worker that had just registered and received the retried run was closed under it: the retry
  died too (``KilledWorker … tried 2 times`` for one SIGKILL, reliability review t3 §D).

Interrupts. ``KeyboardInterrupt`` in the calling thread (SIGINT; or a signal recorded by
``signals_recorded``, which ``lgbeam study`` uses for SIGINT and SIGTERM and the loop over the tasks checks
every ``POLL_S``) stops the work promptly: nothing more is submitted, the runs in flight get a ``KeyboardInterrupt``
raised in their threads (``interrupt_running``, sent to every worker; an app records its run as
``interrupted`` and the task returns), the rest are cancelled, the cluster is closed and the interrupt is
re-raised. The local cluster's workers ignore SIGINT themselves (a Ctrl-C in a terminal reaches the whole
process group): the caller decides.

``fn`` and the items must pickle (a module-level function; Dask ships it by reference, so the workers
must import the same module).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.util
import logging
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["Interrupted", "RunFailed", "TaskOutcome", "check_signals", "dask_client", "default_jobs",
           "deferred_interrupts", "interrupt_running", "map_runs", "run_tasks", "signals_recorded"]

CONNECT_TIMEOUT_S = 10.0  # how long to wait for --scheduler ADDRESS before giving up
INTERRUPT_GRACE_S = 60.0  # after an interrupt, how long the runs in flight get to record themselves
POLL_S = 0.25  # how often the loop over the tasks looks at the cluster while nothing finishes
NO_WORKER_S = 600.0  # a local cluster without any worker this long (none could be restarted): its tasks fail
CLUSTER_CONFIG = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.deploy.lost-worker-timeout": "86400s",
}

LOCAL = ("synchronous", "threads", "processes")


@dataclass(frozen=True)
class TaskOutcome:
    """What became of one item: its value (``error is None``) or the last error, after ``attempts`` tries."""

    value: Any = None
    error: str | None = None
    attempts: int = 1
    history: tuple[str, ...] = ()  # why each earlier try failed (``attempts - 1`` entries)

    @property
    def ok(self) -> bool:
        return self.error is None


class RunFailed(RuntimeError):
    """A task of ``map_runs`` failed on every try."""


def _describe(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":  # Dask's own text is a paragraph with a link; say what happened
        last = getattr(getattr(exc, "last_worker", None), "address", None)
        return f"KilledWorker: its worker process died while running it{f' ({last})' if last else ''}"
    return f"{name}: {exc}" if str(exc) else name


# --- the runs in flight of this process, so that an interrupt can reach their threads -------------------

_RUNNING: dict[int, str] = {}  # thread ident -> "open", "deferred", "pending" (deferred and asked) or "sent"
_RUNNING_LOCK = threading.Lock()


class Interrupted:
    """The value of a task whose run was stopped by ``interrupt_running`` (it recorded itself first)."""

    def __repr__(self) -> str:
        return "Interrupted()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Interrupted)

    def __hash__(self) -> int:
        return 0


def _guarded(fn: Callable[[Any], Any], item: Any) -> Any:
    """``fn(item)`` registered as a run in flight; a ``KeyboardInterrupt`` raised into it by ``interrupt_running``
    ends it with ``Interrupted()`` instead of escaping into Dask's thread pool."""
    me = threading.get_ident()
    try:
        with _RUNNING_LOCK:
            _RUNNING[me] = "open"
        try:
            return fn(item)
        finally:
            with _RUNNING_LOCK:  # after this no interrupt is sent to this thread any more
                _RUNNING.pop(me, None)
    except KeyboardInterrupt:
        return Interrupted()


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Inside a task, a block that ``interrupt_running`` must not cut in two (replacing a folder, say): an
    interrupt asked meanwhile is raised as ``KeyboardInterrupt`` when the block ends. Outside a task: no effect."""
    me = threading.get_ident()
    with _RUNNING_LOCK:
        mine = _RUNNING.get(me) == "open"
        if mine:
            _RUNNING[me] = "deferred"
    try:
        yield
    finally:
        if mine:
            with _RUNNING_LOCK:
                asked = _RUNNING.get(me) == "pending"
                _RUNNING[me] = "sent" if asked else "open"
            if asked:
                raise KeyboardInterrupt


def interrupt_running() -> int:
    """Raise ``KeyboardInterrupt`` in every thread of this process that runs a task (once each); the number of
    threads reached. Run on every worker by an interrupted ``run_tasks``: the exception arrives at the next
    Python bytecode of the run (between steps, never inside a compiled kernel) and the app records the run as
    ``interrupted`` (``lgbeam.cli.cmd_run.run_case``)."""
    sent = 0
    with _RUNNING_LOCK:
        for ident, state in list(_RUNNING.items()):
            if state == "open":
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(KeyboardInterrupt))
                _RUNNING[ident] = "sent"
                sent += 1
            elif state == "deferred":
                _RUNNING[ident] = "pending"
                sent += 1
    return sent


_SIGNALLED: list[int] = []  # signals recorded by ``signals_recorded``'s handler, first first


def _record(signum: int, frame: Any) -> None:
    _SIGNALLED.append(signum)


def check_signals() -> None:
    """Raise ``KeyboardInterrupt`` when ``signals_recorded`` has recorded a signal (called between tasks and by
    the loop over the tasks, which wakes every ``POLL_S``)."""
    if _SIGNALLED:
        raise KeyboardInterrupt


def _raise(signum: int, frame: Any) -> None:
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def _raised_here() -> Iterator[None]:
    """Within ``signals_recorded``: the recorded signals raise ``KeyboardInterrupt`` again (a run executing in
    this thread, ``--scheduler synchronous``, must be stopped by them)."""
    ours = [s for s in (signal.SIGINT, signal.SIGTERM) if threading.current_thread() is threading.main_thread()
            and signal.getsignal(s) is _record]
    for s in ours:
        signal.signal(s, _raise)
    try:
        yield
    finally:
        for s in ours:
            signal.signal(s, _record)


@contextlib.contextmanager
def signals_recorded(*signums: int) -> Iterator[Callable[[], int | None]]:
    """Within the block (main thread), ``signums`` are recorded instead of raised, and ``run_tasks`` acts on them
    at its next poll (``check_signals``); yields a function giving the first signal recorded (or None).

    A ``KeyboardInterrupt`` raised by a signal handler lands wherever the main thread is: inside a garbage
    collector callback or a ``__del__`` it is printed and swallowed ("Exception ignored in …"), and the
    interrupt is lost (seen once in 20 SIGINTs to `lgbeam study`). Recording it and raising at a point of our
    own loses nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    previous = {s: signal.signal(s, _record) for s in signums}
    del _SIGNALLED[:]
    try:
        yield lambda: _SIGNALLED[0] if _SIGNALLED else None
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        del _SIGNALLED[:]


def dask_setup(worker: Any) -> None:
    """Worker preload of the local cluster (``preload=["lgbeam.studies.parallel"]``): ignore SIGINT (the parent
    decides what an interrupt does) and give lgbeam's messages the command line's ``LEVEL: message`` form."""
    with contextlib.suppress(ValueError):  # not the main thread: leave the handler alone
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    log = logging.getLogger("lgbeam")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.WARNING)
        log.propagate = False


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
            with _quiet_dask():
                yield client
        finally:
            client.close()
        return
    # the whole lifetime of the cluster: SpecCluster reads the lost-worker timeout when a worker dies
    with _quiet_dask(), dask.config.set(CLUSTER_CONFIG):
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.CRITICAL, preload=[__name__])
        try:
            client = Client(cluster)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()


QUIET_LOGGERS = ("distributed", "tornado", "asyncio")  # Dask's, and those of the event loop it runs on


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own loggers at CRITICAL while a study holds a cluster (the scheduler, the nannies and the client live
    in this process; the workers get ``silence_logs``): a killed worker or an interrupted study then prints
    lgbeam's one line (``run … was retried``, ``interrupted by SIGINT …``), not Dask's tracebacks of the closed
    connections; what failed is in each run's ``TaskOutcome`` and in study.csv."""
    loggers = [logging.getLogger(name) for name in QUIET_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def _progress_bar(total: int, enabled: bool, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr, disable=not enabled, leave=False)


def _attempt(fn: Callable[[Any], Any], item: Any, retries: int) -> TaskOutcome:
    """``fn(item)`` tried up to ``1 + retries`` times in this process."""
    history: list[str] = []
    for attempt in range(1, retries + 2):
        try:
            return TaskOutcome(fn(item), None, attempt, tuple(history))
        except Exception as exc:  # noqa: BLE001 - a failed task is a result; the caller decides
            logger.debug("task failed (try %d): %s", attempt, traceback.format_exc())
            history.append(_describe(exc))
    return TaskOutcome(None, history[-1], len(history), tuple(history[:-1]))


def _in_process(fn: Callable[[Any], Any], items: list[Any], retries: int, threads: int, bar: Any,
                done: Callable[[int, TaskOutcome], None]) -> list[TaskOutcome]:
    """Serially (``threads == 0``; an interrupt reaches the run itself) or on a pool of ``threads`` threads (an
    interrupt of the caller is passed on to the runs' threads)."""
    if threads == 0:
        out = []
        for i, item in enumerate(items):
            check_signals()
            with _raised_here():  # the run is in this thread: the signal must reach it (or its driver)
                out.append(_attempt(fn, item, retries))
            done(i, out[-1])
            bar.update(1)
        return out

    def one(i: int) -> TaskOutcome:
        o = _attempt(functools.partial(_guarded, fn), items[i], retries)
        done(i, o)
        bar.update(1)
        return o

    pool = ThreadPoolExecutor(threads, thread_name_prefix="lgbeam-run")
    try:
        futures = [pool.submit(one, i) for i in range(len(items))]
        while futures_wait(futures, timeout=POLL_S).not_done:
            check_signals()
        return [f.result() for f in futures]
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)  # nothing queued starts any more
        deadline = time.monotonic() + INTERRUPT_GRACE_S
        while interrupt_running() or (_RUNNING and time.monotonic() < deadline):
            time.sleep(0.05)  # the runs record themselves as interrupted before the threads are left behind
        raise
    finally:
        pool.shutdown(wait=False)


def _live_workers(client: Any) -> int:
    """The workers the scheduler knows now (a fresh query, not the client's cached view)."""
    try:
        return len(client.scheduler_info()["workers"])
    except (OSError, KeyError, TimeoutError):
        return 0


def _on_cluster(client: Any, fn: Callable[[Any], Any], items: list[Any], retries: int, bar: Any,
                done: Callable[[int, TaskOutcome], None], limit: int | None, label: Callable[[int], str]
                ) -> list[TaskOutcome]:
    """The tasks on a Dask cluster, each resubmitted after a failure up to ``retries`` times.

    ``limit`` (a local cluster of ``limit`` single-threaded workers): a task is submitted only when a worker
    that the scheduler knows *now* is free, so a worker never holds a task it is not running, and a run whose
    worker died waits for the restarted worker (or another free one) instead of queueing behind a busy one.
    ``None`` (an external scheduler): everything is submitted at once and the scheduler places it. On an
    interrupt the runs in flight are stopped (``_stop``)."""
    from distributed import wait

    in_flight: dict[Any, tuple[int, int]] = {}  # future -> (item index, attempt)
    history: dict[int, list[str]] = {}
    queue: deque[tuple[int, int]] = deque((i, 1) for i in range(len(items)))  # retries go to the front
    results: list[TaskOutcome | None] = [None] * len(items)
    no_workers_since: float | None = None
    try:
        while queue or in_flight:
            check_signals()
            free = 0 if not queue else len(queue) if limit is None else \
                min(limit, _live_workers(client)) - len(in_flight)
            while queue and free > 0:
                i, attempt = queue.popleft()
                in_flight[client.submit(_guarded, fn, items[i], pure=False, retries=0)] = (i, attempt)
                free -= 1
            if not in_flight:  # every worker is gone (restarting, or for good)
                no_workers_since = no_workers_since or time.monotonic()
                if time.monotonic() - no_workers_since > NO_WORKER_S:
                    for i, attempt in queue:
                        results[i] = TaskOutcome(None, f"no Dask worker left to run it (none for {NO_WORKER_S:.0f} "
                                                 "s)", attempt, tuple(history.get(i, ())))
                        done(i, results[i])  # type: ignore[arg-type]
                    break
                time.sleep(POLL_S)
                continue
            no_workers_since = None
            try:
                finished, _ = wait(list(in_flight), timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for fut in finished:
                i, attempt = in_flight.pop(fut)
                if fut.status == "finished":
                    lost = _lost_workers(client, fut) if limit is None else 0  # an external scheduler's own retries
                    earlier = [*history.get(i, ()), *[LOST_WORKER] * lost]
                    results[i] = TaskOutcome(fut.result(), None, attempt + lost, tuple(earlier))
                else:
                    error = _describe(fut.exception())
                    fut.release()
                    if attempt <= retries:
                        logger.warning("run %s failed (%s); trying again (try %d of %d)", label(i), error,
                                       attempt + 1, retries + 1)
                        history.setdefault(i, []).append(error)
                        queue.appendleft((i, attempt + 1))
                        continue
                    results[i] = TaskOutcome(None, error, attempt, tuple(history.get(i, ())))
                done(i, results[i])  # type: ignore[arg-type]
                bar.update(1)
    except KeyboardInterrupt:
        _stop(client, list(in_flight))
        raise
    return results  # type: ignore[return-value]

LOST_WORKER = "KilledWorker: its worker process died while running it (the scheduler ran it again)"


def _lost_workers(client: Any, fut: Any) -> int:
    """How many times the scheduler ran the task ``fut`` again because its worker died (``TaskState.suspicious``):
    an external scheduler retries such a task by itself (``distributed.scheduler.allowed-failures``, default 3),
    so the study would otherwise record one attempt. 0 when the scheduler cannot say. The probe is a closure,
    pickled by value: the scheduler need not import lgbeam."""
    def suspicious(dask_scheduler: Any, key: Any) -> int:
        ts = dask_scheduler.tasks.get(key)
        return 0 if ts is None else int(getattr(ts, "suspicious", 0))

    try:
        return max(0, int(client.run_on_scheduler(suspicious, key=fut.key)))
    except Exception:  # noqa: BLE001 - the count is a record, never a reason to fail a finished run
        return 0


def _stop(client: Any, in_flight: list[Any]) -> None:
    """Stop the runs in flight: a ``KeyboardInterrupt`` in their threads on every worker (``interrupt_running``),
    then up to ``INTERRUPT_GRACE_S`` for them to record themselves; a second interrupt skips the wait."""
    from distributed import wait

    logger.debug("interrupt: stopping %d runs in flight", len(in_flight))
    # client.run blocks until every worker answered: from a thread, so a stuck worker cannot hold us here
    sender = threading.Thread(target=lambda: client.run(interrupt_running, on_error="ignore"), daemon=True)
    sender.start()
    try:
        sender.join(INTERRUPT_GRACE_S)
        with contextlib.suppress(Exception):
            wait(in_flight, timeout=INTERRUPT_GRACE_S)
    finally:
        with contextlib.suppress(Exception):
            client.cancel(in_flight, force=True)

def run_tasks(fn: Callable[[Any], Any], items: Sequence[Any], *, scheduler: str | None = None,
              jobs: int | None = None, retries: int = 1, progress: bool = False, desc: str = "runs",
              client: Any = None, on_done: Callable[[int, TaskOutcome], None] | None = None,
              label: Callable[[Any], str] | None = None) -> list[TaskOutcome]:
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
    label
        An item's name in the messages about retries (default: its index).

    Raises
    ------
    ValueError
        ``jobs < 1``, ``retries < 0``, or an unreachable scheduler address.
    KeyboardInterrupt
        After the runs in flight were stopped (see the module docstring).
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    items = list(items)
    check_signals()
    n_jobs = jobs if jobs is not None else default_jobs(len(items))
    done = on_done or (lambda i, o: None)
    name = (lambda i: label(items[i])) if label is not None else str
    bar = _progress_bar(len(items), progress, desc)
    try:
        if client is not None:
            return _on_cluster(client, fn, items, retries, bar, done, None, name)
        if scheduler == "synchronous":
            return _in_process(fn, items, retries, 0, bar, done)
        if scheduler == "threads":
            return _in_process(fn, items, retries, n_jobs, bar, done)
        if not _is_address(scheduler) and importlib.util.find_spec("distributed") is None:
            logger.warning("dask.distributed is not installed: running the %d items one after the other", len(items))
            return _in_process(fn, items, retries, 0, bar, done)
        n_workers = min(n_jobs, max(1, len(items)))
        with dask_client(n_workers, scheduler) as cl:  # a local cluster: one task per worker at a time
            limit = None if _is_address(scheduler) else n_workers
            return _on_cluster(cl, fn, items, retries, bar, done, limit, name) if items else []
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
