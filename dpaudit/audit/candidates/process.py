"""Candidate implementations run in an isolated worker process with time and memory limits.

A candidate is named ``module:callable``. It runs in a separate Python process (the
``spawn`` start method, so no state leaks from the auditor); each request has a time
limit and the process an address-space limit. A candidate that crashes, hangs, raises,
or returns NaN or inconsistent shapes raises :class:`~dpaudit.errors.CandidateError`
with the reason (and the candidate's traceback when it raised) — never a hung job.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import CandidateError, InvalidArgument

__all__ = ["CandidateLimits", "CandidateProcess", "CandidateRef", "parse_candidate"]


@dataclass(frozen=True)
class CandidateRef:
    """Where a candidate lives: ``module:attribute`` plus an optional folder put on ``sys.path``."""

    module: str
    attribute: str
    path: str | None = None

    def __str__(self) -> str:
        return f"{self.module}:{self.attribute}"


def parse_candidate(text: str, *, path: str | None = None) -> CandidateRef:
    """Parse ``module:callable``.

    Raises:
        InvalidArgument: when the text is not of that form.
    """
    if not isinstance(text, str) or text.count(":") != 1:
        raise InvalidArgument(f"candidate={text!r}: expected 'module:callable', e.g. 'mypkg.mech:dp_lsw'")
    module, attribute = (part.strip() for part in text.split(":"))
    if not module or not attribute or not all(piece.isidentifier() for piece in (*module.split("."), attribute)):
        raise InvalidArgument(f"candidate={text!r}: expected 'module:callable' with Python identifiers")
    return CandidateRef(module, attribute, path if path is not None else os.getcwd())


@dataclass(frozen=True)
class CandidateLimits:
    """Limits for a candidate: seconds per request, and the worker's address space in MiB."""

    timeout_seconds: float = 120.0
    memory_mib: int = 4096
    startup_seconds: float = 60.0

    def __post_init__(self) -> None:
        check_real("timeout_seconds", self.timeout_seconds, low=0.0, low_open=True)
        check_integer("memory_mib", self.memory_mib, low=64)
        check_real("startup_seconds", self.startup_seconds, low=0.0, low_open=True)


def _limit_memory(memory_mib: int) -> None:
    try:
        import resource
    except ImportError:  # not on POSIX: no address-space limit available
        return
    limit = memory_mib * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _load(ref: CandidateRef) -> Callable[..., Any]:
    if ref.path and ref.path not in sys.path:
        sys.path.insert(0, ref.path)
    module = importlib.import_module(ref.module)
    function = getattr(module, ref.attribute)
    if not callable(function):
        raise TypeError(f"{ref} is a {type(function).__name__}, not a callable")
    return function


def _serve(connection: Connection, ref: CandidateRef, memory_mib: int) -> None:
    """Worker loop: load the candidate, then answer ("sample", kwargs, n, seed) requests."""
    try:
        _limit_memory(memory_mib)
        function = _load(ref)
    except BaseException:
        connection.send(("error", f"could not load candidate {ref}:\n{traceback.format_exc()}"))
        return
    connection.send(("ready", None))
    while True:
        try:
            request = connection.recv()
        except EOFError:
            return
        if request is None:
            return
        _, kwargs, count, seed = request
        try:
            rng = np.random.default_rng(seed)
            outputs = [np.asarray(function(**kwargs, rng=rng), dtype=np.float64) for _ in range(count)]
            connection.send(("ok", outputs))
        except BaseException:
            connection.send(("error", f"candidate {ref} raised:\n{traceback.format_exc()}"))


class CandidateProcess:
    """A running candidate worker. Use as a context manager; it is killed on exit.

    Args:
        ref: the candidate.
        limits: time and memory limits.
    """

    def __init__(self, ref: CandidateRef, limits: CandidateLimits | None = None):
        self.ref = ref
        self.limits = limits or CandidateLimits()
        self._process: multiprocessing.process.BaseProcess | None = None
        self._connection: Connection | None = None

    def __enter__(self) -> CandidateProcess:
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Start the worker and wait until the candidate is imported.

        Raises:
            CandidateError: if the import fails or exceeds the startup limit.
        """
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, self.ref, self.limits.memory_mib), daemon=True, name=f"candidate {self.ref}"
        )
        self._process.start()
        child.close()
        self._connection = parent
        self._receive(self.limits.startup_seconds, "starting")

    @property
    def running(self) -> bool:
        """Whether the worker is up and connected."""
        return self._connection is not None and self._process is not None and self._process.is_alive()

    def stop(self) -> None:
        """Stop the worker (politely, then by force)."""
        if self._connection is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                self._connection.send(None)
            self._connection.close()
            self._connection = None
        if self._process is not None:
            self._process.join(timeout=2)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
            self._process = None

    def _receive(self, timeout: float, doing: str) -> Any:
        if self._connection is None or self._process is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        if not self._connection.poll(timeout):
            self.stop()
            raise CandidateError(f"candidate {self.ref} did not answer within {timeout:g} s while {doing}; stopped it")
        try:
            status, payload = self._connection.recv()
        except (EOFError, OSError):
            code = self._process.exitcode
            self.stop()
            raise CandidateError(
                f"candidate {self.ref} died while {doing} (exit code {code}; a memory limit of "
                f"{self.limits.memory_mib} MiB applies)"
            ) from None
        if status == "error":
            self.stop()
            raise CandidateError(payload)
        return payload

    def sample(self, kwargs: dict[str, Any], count: int, seed: np.random.SeedSequence) -> np.ndarray:
        """Call the candidate ``count`` times with ``kwargs`` and one Generator seeded by ``seed``.

        Returns:
            An array of shape ``(count, *output_shape)``.

        Raises:
            CandidateError: on a timeout, crash, exception, non-finite output or inconsistent shapes.
        """
        if self._connection is None:
            raise CandidateError(f"candidate {self.ref} is not running; use it as a context manager")
        count = check_integer("count", count, low=1)
        self._connection.send(("sample", kwargs, count, seed))
        outputs = self._receive(self.limits.timeout_seconds, f"producing {count} outputs")
        shapes = {output.shape for output in outputs}
        if len(shapes) != 1:
            raise CandidateError(f"candidate {self.ref} returned outputs of different shapes: {sorted(shapes)}")
        stacked = np.stack(outputs)
        if not np.isfinite(stacked).all():
            index = tuple(int(i) for i in np.argwhere(~np.isfinite(stacked))[0])
            raise CandidateError(f"candidate {self.ref} returned a non-finite value {stacked[index]!r} at {index}")
        return stacked
