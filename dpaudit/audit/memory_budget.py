"""Memory budgets: an audit that would exhaust the machine stops with ``inconclusive (budget)``.

The ceiling ``memory_mib`` bounds the auditor's data segment (``RLIMIT_DATA``: heap and private
writable mappings, where numpy's arrays live). The command line's ceiling (the machine's
physical memory unless lowered) is set once when a command starts, so every worker process the
audit starts inherits it; a spec's ``[ceilings] memory_mib`` lowers it further while that spec's
obligations run, each in a child process forked for it (:func:`run_in_child`). An allocation past the
limit raises MemoryError, which the runner reports as ``inconclusive`` (budget: memory); nothing is
claimed from the partial work. Some libraries crash instead of raising (numpy 2.4 segfaults when a
buffered ufunc's buffer is refused with the interpreter lock released): in the child, such a crash ends
the child, not the audit, and the obligation is ``inconclusive`` (budget: memory) too. A candidate
audit's obligations stay in the auditor's process (the candidate's worker and its accounts live
there); a candidate's own processes have their separate ``--memory`` limit.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import select
import signal
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NoReturn, TypeVar

__all__ = ["ChildEnded", "lift_memory_limit", "limit_memory", "memory_limit", "run_in_child"]

T = TypeVar("T")

_MIB = 2**20


def limit_memory(mib: float) -> None:
    """Lower this process's data-segment limit to ``mib`` (never raise it), once scipy's BLAS is loaded
    (:func:`_load_blas`)."""
    _load_blas()
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = int(mib * _MIB)
    for limit in (soft, hard):
        if limit != resource.RLIM_INFINITY:
            wanted = min(wanted, limit)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))


def _load_blas() -> None:
    """Load and warm numpy's and scipy's BLAS before a ceiling applies. OpenBLAS allocates its threads'
    buffers when the library loads (scipy's at the first import of ``scipy.linalg``, which a check may do
    lazily) and a call's work buffer at the first call that needs one; when a ceiling refuses that memory
    it retries without end, in C, where no signal's handler runs: the audit hung past its time limit, deaf
    to SIGTERM. One small factorisation in each library allocates the buffer OpenBLAS then reuses; the
    check's own allocations then fail as MemoryError (or end the child, see :func:`run_in_child`)."""
    import numpy as np
    import scipy.linalg

    matrix = np.eye(4) + np.ones((4, 4))
    np.linalg.cholesky(matrix)
    scipy.linalg.cho_factor(matrix)


@contextmanager
def memory_limit(mib: float | None) -> Iterator[None]:
    """Lower the data-segment limit to ``mib`` inside the body and restore it after (nothing for ``None``)."""
    if mib is None:
        yield
        return
    previous = resource.getrlimit(resource.RLIMIT_DATA)
    limit_memory(mib)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, previous)


def lift_memory_limit() -> None:
    """Raise the soft limit back to the hard one (to report an exhausted budget)."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))


@dataclass(frozen=True)
class ChildEnded:
    """How a child of :func:`run_in_child` ended without an answer: by ``signal`` (its name), or with
    exit ``code``, or killed by the parent when ``overdue``."""

    signal: str | None = None
    code: int | None = None
    overdue: bool = False

    def describe(self) -> str:
        if self.overdue:
            return "was stopped by the auditor (it overran its time limit)"
        if self.signal is not None:
            return f"ended by {self.signal}"
        return f"exited with code {self.code} without an answer"


def run_in_child(body: Callable[[], T], *, wait_seconds: float | None) -> T | ChildEnded:
    """``body()`` run in a forked child of this process, its result pickled back; how the child ended
    when it gave no result (a library that cannot survive a refused allocation crashes instead of
    raising MemoryError: numpy 2.4's buffered iterators do, with the interpreter lock released).

    Only the auditor's own code and objects cross this pipe (the caller never runs a candidate in the
    child); ``wait_seconds`` bounds the wait (the child's own time limit fires first), then the child is
    killed.
    """
    readable, writable = os.pipe()
    with warnings.catch_warnings():  # the child runs only the body and exits (no thread it copied is used)
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: measured through the parent)
        os.close(readable)
        _answer_and_exit(body, writable)
    os.close(writable)
    payload = None
    try:
        payload = _read_all(readable, wait_seconds)
    finally:
        os.close(readable)
        if payload is None:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if payload is None:
        return ChildEnded(overdue=True)
    if os.WIFSIGNALED(status):
        return ChildEnded(signal=signal.Signals(os.WTERMSIG(status)).name)
    if os.WEXITSTATUS(status) != 0 or not payload:
        return ChildEnded(code=os.WEXITSTATUS(status))
    result: T = pickle.loads(payload)
    return result


def _answer_and_exit(body: Callable[[], object], writable: int) -> NoReturn:  # pragma: no cover (a child)
    """The child's part: write ``body()`` pickled to ``writable`` and exit (code 1 when the body raised)."""
    faulthandler.disable()  # a crash is reported by the parent, not dumped over the audit's output
    code = 1
    try:
        answer = pickle.dumps(body())
        with os.fdopen(writable, "wb") as stream:
            stream.write(answer)
        code = 0
    finally:
        os._exit(code)


def _read_all(descriptor: int, wait_seconds: float | None) -> bytes | None:
    """Everything written to ``descriptor`` until its writer closes it, or ``None`` past ``wait_seconds``."""
    deadline = None if wait_seconds is None else time.monotonic() + wait_seconds
    chunks: list[bytes] = []
    while True:
        timeout = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        ready, _, _ = select.select([descriptor], [], [], timeout)
        if not ready:
            return None
        chunk = os.read(descriptor, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
