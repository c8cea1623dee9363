"""The auditor's end of a candidate worker's answers: progress ticks, a JSON header (bounded in
size and depth, its status and announced shape checked) and raw float64 payloads read with
deadlines. Nothing is unpickled."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit._bounded_json import loads_bounded
from dpaudit.errors import CandidateError

__all__ = ["WATCH_SECONDS", "AnswerChannel", "announced_shape", "read_header", "widen_pipe"]


_MAX_OUTPUT_BYTES = 1 << 30


_MAX_HEADER_BYTES = 1 << 20
#: How often a wait for an answer looks at what the candidate runs (its processes).
WATCH_SECONDS = 1.0


class AnswerChannel:
    """Reads the worker's answers with deadlines: progress ticks, header lines and raw payloads."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()

    def _fill(self, deadline: float) -> bool:
        """Read what is available before ``deadline``; False on timeout, EOFError when closed."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([self.fd], [], [], remaining)
        if not ready:
            return False
        # ticks and headers are short; an answer's outputs are read by `payload` straight into their array (a
        # read of 1 MiB here cost an allocation and two more copies of each answer: 9% of a candidate's check)
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            raise EOFError
        self.buffer.extend(chunk)
        return True

    def ticks_then_header(
        self, per_call: float, total_deadline: float, watch: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """Consume progress ticks (each within ``per_call`` seconds of the last), then a header line; while
        waiting, call ``watch`` (which may raise) every :data:`WATCH_SECONDS`."""
        deadline = min(time.monotonic() + per_call, total_deadline)
        watched = time.monotonic()
        while True:
            if watch is not None and time.monotonic() - watched >= WATCH_SECONDS:
                watch()
                watched = time.monotonic()
            while self.buffer[:1] == b".":
                del self.buffer[:1]
                deadline = min(time.monotonic() + per_call, total_deadline)
            newline = self.buffer.find(b"\n")
            if newline >= 0 and self.buffer[:1] != b".":
                line = bytes(self.buffer[:newline])
                del self.buffer[: newline + 1]
                return read_header(line)
            if len(self.buffer) > _MAX_HEADER_BYTES:
                raise CandidateError("the candidate worker sent a malformed answer (no header line)")
            until = deadline if watch is None else min(deadline, watched + WATCH_SECONDS)
            if not self._fill(until) and until >= deadline:
                raise TimeoutError

    def payload(self, size: int, deadline: float) -> np.ndarray:
        """Exactly ``size`` bytes, read straight into a new array (no intermediate copies)."""
        out = np.empty(size, dtype=np.uint8)
        filled = min(size, len(self.buffer))
        out[:filled] = np.frombuffer(self.buffer, dtype=np.uint8, count=filled)
        del self.buffer[:filled]
        view = out.data
        while filled < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                raise TimeoutError
            count = os.readv(self.fd, [view[filled:]])
            if count == 0:
                raise EOFError
            filled += count
        return out


def read_header(line: bytes) -> dict[str, Any]:
    try:
        header = loads_bounded(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CandidateError(f"the candidate worker sent a malformed header {line[:80]!r}") from None
    if not isinstance(header, dict) or header.get("status") not in ("ok", "error", "ready"):
        raise CandidateError(f"the candidate worker sent a malformed header {line[:80]!r}")
    return header


def announced_shape(header: dict[str, Any], count: int) -> tuple[int, ...]:
    shape = header.get("shape")
    if (
        not isinstance(shape, list)
        or not 1 <= len(shape) <= 8
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in shape)
        or shape[0] != count
    ):
        raise CandidateError(f"the candidate worker announced outputs of shape {shape!r} for {count} calls")
    if int(np.prod(shape, dtype=np.float64)) * 8 > _MAX_OUTPUT_BYTES:
        raise CandidateError(f"the candidate's outputs of shape {shape} exceed {_MAX_OUTPUT_BYTES >> 20} MiB")
    return tuple(shape)


def widen_pipe(fd: int) -> None:
    """Ask Linux for a 1 MiB pipe buffer (fewer wake-ups for large outputs); elsewhere do nothing."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass
