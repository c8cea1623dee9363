"""Where Monte Carlo work runs: serial, thread or process pools, or a Dask cluster.

Every executor is a :class:`concurrent.futures.Executor`. Checkers hand their chunks
to :func:`run_tasks`, which returns the results in task order, so a result never
depends on which executor ran it or how many workers it had. Dask is an optional
extra (``pip install dpaudit[dask]``) and is imported only when asked for.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import (
    Executor,
    Future,
    InvalidStateError,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
)
from contextlib import suppress
from typing import IO, Any

import numpy as np

from dpaudit.errors import InvalidArgument, InvalidType

__all__ = ["DaskExecutor", "SerialExecutor", "leave_with", "make_executor", "process_pool", "run_tasks", "stop_at_once"]

log = logging.getLogger("dpaudit")

_DASK_MISSING = (
    "the Dask executor needs the optional 'dask' extra: pip install 'dpaudit[dask]' "
    "(or pip install 'dask[distributed]')"
)


class SerialExecutor(Executor):
    """Runs each submitted call at once in the calling thread (no pickling, no workers)."""

    def __init__(self) -> None:
        self._shut = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` now and return a finished future."""
        if self._shut:
            raise RuntimeError("cannot submit to a SerialExecutor after shutdown")
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse further submissions."""
        self._shut = True


class DaskExecutor(Executor):
    """A :class:`concurrent.futures.Executor` on a Dask ``distributed.Client``.

    Args:
        client: a connected ``distributed.Client``.
        owns_client: close the client on :meth:`shutdown` (true when
            :func:`make_executor` opened it from a ``dask://`` address).
    """

    def __init__(self, client: Any, *, owns_client: bool) -> None:
        self.client = client
        self._owns_client = owns_client
        self._inner = client.get_executor(pure=False)
        self._closed = threading.Event()
        threading.Thread(target=self._watch_workers, name="dpaudit-dask-workers", daemon=True).start()
        try:  # a diagnostic: a worker that cannot answer (another dpaudit, dying) is left out
            answers = client.run(_trim_threshold, on_error="return")
        except Exception:
            answers = {}
        slow = sorted(worker for worker, value in answers.items() if isinstance(value, str))
        if slow:
            log.warning(
                "%d Dask worker(s) run with MALLOC_TRIM_THRESHOLD_ set (the nanny's default): every numpy "
                "batch array then goes through mmap and dpaudit's sampling runs 2-4x slower; start the "
                "workers without it (docs/executors.md)",
                len(slow),
            )

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Submit ``fn(*args, **kwargs)`` to the cluster."""
        return self._inner.submit(fn, *args, **kwargs)

    def submit_all(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Future]:
        """Submit ``fn(task)`` for every task, as concurrent futures in task order.

        The tasks go in one message to the scheduler (``submit`` sends one each: about twice the
        overhead per task), as :data:`BUNDLES_PER_THREAD` bundles of consecutive tasks per worker
        thread: each Dask task costs the scheduler, the worker and the client milliseconds of the
        cores the work runs on. A bundle that raises fails each of its tasks with that error.
        """
        tasks = list(tasks)
        threads = sum(self.client.nthreads().values())
        edges = np.linspace(0, len(tasks), min(len(tasks), BUNDLES_PER_THREAD * max(threads, 1)) + 1).astype(int)
        bundles = [tasks[low:high] for low, high in itertools.pairwise(edges)]
        remote = self.client.map(_run_bundle, [fn] * len(bundles), bundles, pure=False)
        return [mirror for future, part in zip(remote, bundles, strict=True) for mirror in _mirrored(future, len(part))]

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Wait for (or cancel) outstanding work; close the client if this executor opened it."""
        self._inner.shutdown(wait=wait and not cancel_futures)
        self._closed.set()
        if self._owns_client:
            self.client.close()

    #: Seconds between two looks at the cluster's workers, and without one before each warning.
    worker_check_seconds = 5.0
    no_worker_seconds = 30.0

    def _watch_workers(self) -> None:
        """Warn while the cluster has no worker left and tasks wait (they would wait for ever, silently): once
        every :attr:`no_worker_seconds` without one."""
        without = 0.0
        while not self._closed.wait(self.worker_check_seconds):
            try:
                workers = self.client.scheduler_info().get("workers") or {}
                waiting = bool(self.client.futures)
            except Exception:  # the client closing or the scheduler gone: its own errors say so
                continue
            without = 0.0 if workers or not waiting else without + self.worker_check_seconds
            if without >= self.no_worker_seconds:
                log.warning(
                    "the Dask cluster has had no worker for %.0f s: dpaudit's tasks wait until one joins "
                    "(start a worker, or stop with Ctrl-C)",
                    without,
                )
                without = 0.0


#: Dask tasks per worker thread in :meth:`DaskExecutor.submit_all`: two, so that the scheduler can
#: still move a queued bundle to an idle worker; each task costs the scheduler, a worker and the
#: client CPU on the cores the work runs on. Measured on a 2-core LocalCluster, the benchmark's Monte
#: Carlo workload (42 chunks in 3 rounds), best of 10 interleaved runs: one task per chunk 0.65 s,
#: 2 bundles per thread 0.57 s, 1 bundle 0.51 s; a process pool 0.53 s.
BUNDLES_PER_THREAD = 2


def _run_bundle(fn: Callable[[Any], Any], bundle: Sequence[Any]) -> list[Any]:
    return [fn(task) for task in bundle]


def _mirrored(remote: Any, count: int) -> list[Future]:
    """``count`` concurrent futures, one per task of the Dask future ``remote`` (a bundle): each ends
    with its task's result, or with the bundle's error; cancelling any of them cancels ``remote``."""
    mirrors: list[Future] = [Future() for _ in range(count)]

    def copy(done: Any) -> None:  # Dask calls this in its own thread when the bundle ends
        try:
            values = done.result()
        except BaseException as exc:
            for mirror in mirrors:
                with suppress(InvalidStateError):  # the mirror was cancelled first
                    mirror.set_exception(exc)
            return
        for mirror, value in zip(mirrors, values, strict=True):
            with suppress(InvalidStateError):
                mirror.set_result(value)

    def cancel_remote(ended: Future) -> None:
        if ended.cancelled():
            remote.cancel()

    for mirror in mirrors:
        mirror.add_done_callback(cancel_remote)
    remote.add_done_callback(copy)
    return mirrors


def _trim_threshold() -> str | None:
    """MALLOC_TRIM_THRESHOLD_ in this (worker) process: set, glibc stops adapting its mmap threshold."""
    return os.environ.get("MALLOC_TRIM_THRESHOLD_")


def _worker_count(spec: str, text: str | None) -> int | None:
    if text is None or text == "":
        return None
    if not text.isdigit() or int(text) < 1:
        raise InvalidArgument(f"executor={spec!r}: the worker count after ':' must be a positive integer")
    return int(text)


def _is_dask_client(value: Any) -> bool:
    module = type(value).__module__ or ""
    if not module.startswith("distributed"):
        return False
    try:
        from distributed import Client
    except ImportError:
        return False
    return isinstance(value, Client)


#: How long to wait for a Dask scheduler before giving up (exit 2 naming the address).
_DASK_CONNECT_SECONDS = 10.0


def _dask_executor(spec: str, address: str) -> DaskExecutor:
    if not address:
        raise InvalidArgument(f"executor={spec!r}: expected dask://HOST:PORT")
    try:
        from distributed import Client
    except ImportError as exc:
        raise InvalidArgument(f"executor={spec!r}: {_DASK_MISSING}") from exc
    target = address if "://" in address else f"tcp://{address}"
    try:
        client = Client(target, timeout=_DASK_CONNECT_SECONDS)
    except (OSError, TimeoutError) as exc:
        raise InvalidArgument(
            f"executor={spec!r}: no Dask scheduler answers at {target} within {_DASK_CONNECT_SECONDS:g} s ({exc})"
        ) from None
    return DaskExecutor(client, owns_client=True)


def forkserver_context(preload: Sequence[str] = ()) -> Any:
    """The ``forkserver`` start context, its server started now with SIGINT blocked.

    A Ctrl-C reaches the terminal's whole process group. The server inherits this thread's signal
    mask and keeps it, and so do the workers it forks: SIGINT stays blocked in them, so a worker never
    prints a KeyboardInterrupt traceback of its own (the auditor, which gets the Ctrl-C, stops them).
    This process only blocks it for the server's start and never ignores it: a Ctrl-C meanwhile waits
    and then reaches its handler, or another thread takes it for the main one (an ignored SIGINT, as
    before, was discarded, and the audit ran on to its end). The resource tracker starts first (it
    unblocks SIGINT and SIGTERM once it has started); the caller's mask is restored as it was. From
    another thread the server starts as Python starts it (signals belong to the main thread).
    """
    from multiprocessing import forkserver, resource_tracker

    context = multiprocessing.get_context("forkserver")
    if preload:
        context.set_forkserver_preload(list(preload))
    if threading.current_thread() is not threading.main_thread():
        return context
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        resource_tracker.ensure_running()  # it ends by unblocking SIGINT and SIGTERM: block SIGINT again
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)  # the caller's mask as it was
    return context


#: How often a pool worker looks whether the process that started its pool is still there (seconds).
_WATCH_SECONDS = 1.0


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A local process pool of ``workers`` forkserver workers that leave with this process: each watches it
    and exits once it is gone (SIGKILLed, it could not shut its pool down; without the watch the workers,
    the forkserver and its resource tracker would wait for work for ever)."""
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=forkserver_context(), initializer=leave_with, initargs=(os.getpid(),)
    )


def stop_at_once(executor: Executor) -> None:
    """Shut ``executor`` down without waiting for its running tasks: the queued ones cancelled, a local pool's
    worker processes terminated (they would otherwise finish their tasks, however long, before this process may
    exit). A task that started a process of its own should end it with its worker (:func:`leave_with`)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())  # a ProcessPoolExecutor's, by pid
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with suppress(OSError, ValueError):
            process.terminate()


def leave_with(owner: int) -> None:
    """Start a daemon thread that ends this process once the process ``owner`` is gone (or a zombie): a pool
    worker's initializer, or a task's own process watching the worker that started it."""

    def watch() -> None:
        while _alive(owner):
            time.sleep(_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="dpaudit-leave-with-the-pool-owner", daemon=True).start()


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not): ``/proc`` on Linux, else a null signal."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
        return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def make_executor(spec: Any = "process") -> Executor:
    """Return the executor that ``spec`` names.

    Args:
        spec: ``"serial"``; ``"thread"`` or ``"thread:N"``; ``"process"`` or
            ``"process:N"`` (a local process pool, N workers, default one per CPU);
            ``"dask://HOST:PORT"`` (a Dask scheduler; needs the ``dask`` extra);
            an existing :class:`concurrent.futures.Executor` (returned as is); or a
            ``distributed.Client`` (wrapped, left open on shutdown).

    Returns:
        An executor; the caller shuts it down (``with make_executor(...) as ex:``).

    Raises:
        InvalidArgument: for an unknown form, a bad worker count, or ``dask://`` without Dask.
        InvalidType: for a value that is neither a string, an Executor nor a Client.
    """
    if isinstance(spec, Executor):
        return spec
    if _is_dask_client(spec):
        return DaskExecutor(spec, owns_client=False)
    if not isinstance(spec, str):
        raise InvalidType(
            f"executor={spec!r}: expected a string such as 'process:4', a concurrent.futures.Executor "
            "or a distributed.Client"
        )
    text = spec.strip()
    if text.startswith("dask://"):
        return _dask_executor(spec, text[len("dask://") :])
    kind, _, count = text.partition(":")
    if kind == "serial":
        if count:
            raise InvalidArgument(f"executor={spec!r}: 'serial' takes no worker count")
        return SerialExecutor()
    if kind == "thread":
        return ThreadPoolExecutor(max_workers=_worker_count(spec, count))
    if kind == "process":
        workers = _worker_count(spec, count) or os.cpu_count() or 1
        return process_pool(workers)
    raise InvalidArgument(f"executor={spec!r}: expected 'serial', 'thread[:N]', 'process[:N]' or 'dask://HOST:PORT'")


class _ProgressBar:
    """A one-line progress bar on a terminal stream; silent elsewhere."""

    def __init__(self, total: int, label: str, stream: IO[str] | None) -> None:
        self.total = total
        self.label = label
        self.stream = stream
        self.done = 0

    def advance(self) -> None:
        self.done += 1
        if self.stream is None:
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def _progress_stream(progress: bool | None) -> IO[str] | None:
    if progress is False:
        return None
    stream = sys.stderr
    if progress is None and not (hasattr(stream, "isatty") and stream.isatty()):
        return None
    return stream


def run_tasks(
    function: Callable[[Any], Any],
    tasks: Sequence[Any],
    *,
    executor: Executor | None = None,
    progress: bool | None = None,
    label: str = "sampling",
) -> list[Any]:
    """Apply ``function`` to every task and return the results in task order.

    Args:
        function: a picklable (module-level) function of one argument.
        tasks: picklable arguments, one per call.
        executor: where to run; ``None`` runs in the calling thread.
        progress: draw a progress bar on stderr: ``None`` only when stderr is a
            terminal, ``True`` always, ``False`` never.
        label: the text in front of the bar.

    Returns:
        ``[function(task) for task in tasks]``, whatever the completion order.
    """
    bar = _ProgressBar(len(tasks), label, _progress_stream(progress))
    if executor is None:
        results = []
        for task in tasks:
            results.append(function(task))
            bar.advance()
        return results
    submit_all = getattr(executor, "submit_all", None)
    futures = submit_all(function, tasks) if submit_all else [executor.submit(function, task) for task in tasks]
    try:
        for _ in as_completed(futures):
            bar.advance()
        return [future.result() for future in futures]
    except BaseException:  # interrupted or out of time: drop the work not yet started
        for future in futures:
            future.cancel()
        raise
