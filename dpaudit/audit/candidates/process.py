"""Candidate implementations run in a worker process of their own, through a channel that cannot be forged.

A candidate is named ``module:callable``. It runs in a fresh Python process
(:mod:`dpaudit.audit.candidates.worker`) in a session and process group of its own, with an
address-space limit. Nothing it sends is unpickled: requests are JSON lines, answers a JSON
header and raw float64 bytes, checked here for shape, size and finiteness before any check
sees them. Each call has a time limit, a batch a total budget, the candidate at most
:data:`MAX_PROCESSES` processes (counted while the auditor waits), and on a timeout, an error or
``stop()`` every process the candidate started is killed: its process group, the
descendants found in ``/proc`` (followed through their parents), and processes carrying the
worker's token in their environment or reparented to the auditor (a child subreaper on
Linux), so a child that calls ``setsid`` or double-forks does not survive the audit.
What the candidate prints is captured, truncated, and kept for the report.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from collections import deque
from collections.abc import Generator, Iterable
from typing import Any

import numpy as np

from dpaudit._bounded_json import loads_bounded
from dpaudit._validation import check_integer
from dpaudit.audit.candidates.capture import CaptureFile
from dpaudit.audit.candidates.channel import AnswerChannel, announced_shape, widen_pipe
from dpaudit.audit.candidates.descendants import (
    TOKEN_VARIABLE,
    become_subreaper,
    candidate_processes,
    kill_process_tree,
    start_time,
)
from dpaudit.audit.candidates.refs import CandidateLimits, CandidateRef
from dpaudit.audit.candidates.sandbox import protect_the_auditor
from dpaudit.errors import CandidateError, CandidateLimitReached, CandidateLoadError, CandidateRaised

__all__ = ["MAX_OUTPUT_MAGNITUDE", "MAX_PROCESSES", "CandidateProcess"]

_MAX_INPUT_BYTES = 64 << 20
_MAX_LABELS = 256
#: A sample request of at most this many bytes (its input small) goes two ahead of the answer being read: the
#: pipe to the worker (64 KiB) holds it while the worker writes the answer before, so neither waits on the other.
_SMALL_REQUEST_BYTES = 8 * 1024
_LIVE_WORKERS: set[int] = set()
#: The most processes a candidate may run at once, its worker included (checked while the auditor waits).
MAX_PROCESSES = 256
#: The largest magnitude of an output (its square, summed over 10^9 draws, stays finite in float64).
MAX_OUTPUT_MAGNITUDE = 1e100


class CandidateProcess:
    """A running candidate worker. Use as a context manager; it and its descendants are killed on exit.

    Args:
        ref: the candidate.
        limits: time and memory limits.
    """

    def __init__(self, ref: CandidateRef, limits: CandidateLimits | None = None):
        self.ref = ref
        self.limits = limits or CandidateLimits()
        self.vectorised = False
        self._process: subprocess.Popen[bytes] | None = None
        self._channel: AnswerChannel | None = None
        self._capture: CaptureFile | None = None
        self._token = ""
        self._started: int | None = None
        self._spent = 0.0
        self.captured_output = ""
        self.category_labels: dict[str, str] = {}
        self.used_global_random = False
        self.fences: tuple[str, ...] = ()

    def __enter__(self) -> CandidateProcess:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the worker and wait until the candidate is imported.

        Raises:
            CandidateLoadError: if the import fails or exceeds the startup limit.
        """
        become_subreaper()
        protect_the_auditor()
        self._capture = CaptureFile()
        self._token = secrets.token_hex(16)
        environment = {**os.environ, TOKEN_VARIABLE: self._token, "TMPDIR": self._capture.folder}
        command = [
            sys.executable,
            "-P",  # the working directory stays off sys.path: the worker places the candidate's folder itself
            "-m",
            "dpaudit.audit.candidates.worker",
            self.ref.module,
            self.ref.attribute,
            self.ref.path or "",
            self._capture.path,
            str(self.limits.memory_mib),
            *([self.ref.pickled] if self.ref.pickled is not None else []),
        ]
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment, start_new_session=True
        )
        self._started = start_time(self._process.pid)
        _LIVE_WORKERS.add(self._process.pid)
        if self._process.stdout is None:
            raise CandidateLoadError(f"candidate {self.ref}: the worker has no channel")
        self._channel = AnswerChannel(self._process.stdout.fileno())
        widen_pipe(self._process.stdout.fileno())
        self._spent = 0.0
        try:
            header = self._answer(0, self.limits.startup_seconds, time.monotonic() + self.limits.startup_seconds)
        except CandidateError as exc:
            raise CandidateLoadError(str(exc)) from None
        self.vectorised = bool(header.get("vectorised", False))
        fences = header.get("fences")
        self.fences = tuple(str(fence)[:200] for fence in fences[:8]) if isinstance(fences, list) else ()

    @property
    def running(self) -> bool:
        """Whether the worker is up."""
        return self._process is not None and self._process.poll() is None

    def stop(self, *, answering: bool = True) -> None:
        """Stop the worker and kill every process it started; keep what it printed. A worker ``answering``
        requests is asked to leave and given half a second; one that stopped answering is killed at once."""
        if self._process is not None:
            process, self._process = self._process, None
            if answering and process.stdin is not None:
                with contextlib.suppress(OSError, ValueError):
                    process.stdin.write(b'{"op": "stop"}\n')
                    process.stdin.flush()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=0.5)
            _LIVE_WORKERS.discard(process.pid)
            kill_process_tree(process.pid, self._token, self._started, frozenset(_LIVE_WORKERS))
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._channel = None
        if self._capture is not None:
            self.captured_output = self._capture.close()
            self._capture = None

    def _request(self, request: dict[str, Any]) -> int:
        """Send ``request``; the number of bytes sent."""
        if self._process is None or self._process.stdin is None:
            raise CandidateError(f"candidate {self.ref} is not running; use it as a context manager")
        line = json.dumps(request).encode("utf-8") + b"\n"
        try:
            self._process.stdin.write(line)
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._died("receiving a request")
        return len(line)

    def _count_processes(self) -> None:
        """Stop a candidate that runs more than :data:`MAX_PROCESSES` processes (a fork bomb would fill the
        machine's process table while the auditor waits), killing every one of them.

        Raises:
            CandidateLimitReached: naming the count and the limit.
        """
        if self._process is None:
            return
        worker = self._process.pid
        running = candidate_processes(
            worker, self._token, since=self._started, protect=frozenset(_LIVE_WORKERS - {worker})
        )
        if len(running) > MAX_PROCESSES:
            self.stop(answering=False)
            raise CandidateLimitReached(
                f"candidate {self.ref} ran {len(running)} processes, more than the limit of {MAX_PROCESSES}; "
                f"stopped it and killed them{_shown(self.captured_output)}"
            )

    def _died(self, doing: str) -> None:
        code = None
        if self._process is not None:  # its channel closed: the exit status follows within moments
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self._process.wait(timeout=2.0)
        self.stop()
        if code is not None and code >= 0:
            reason = f"exited with code {code}"
        elif code is not None:
            reason = f"killed by signal {-code}; a memory limit of {self.limits.memory_mib} MiB applies"
        else:
            reason = f"no exit status; a memory limit of {self.limits.memory_mib} MiB applies"
        raise CandidateLimitReached(f"candidate {self.ref} died while {doing} ({reason}){_shown(self.captured_output)}")

    def _answer(self, count: int, per_call: float, total_deadline: float) -> dict[str, Any]:
        if self._channel is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        doing = "starting" if count == 0 else f"producing {count} outputs"
        try:
            header = self._channel.ticks_then_header(per_call, total_deadline, self._count_processes)
        except TimeoutError:
            self.stop(answering=False)
            budget = "its total budget" if time.monotonic() >= total_deadline else f"{per_call:g} s"
            raise CandidateLimitReached(
                f"candidate {self.ref} did not answer within {budget} while {doing}; "
                f"stopped it{_shown(self.captured_output)}"
            ) from None
        except EOFError:
            self._died(doing)
        if header["status"] == "error":
            self.stop()
            message = header.get("message")
            raised, limit = header.get("raised") is True, header.get("limit") is True
            text = message if isinstance(message, str) else "unknown error"
            if limit:  # its first line names the limit: the last line of the traceback
                text = f"hit a limit ({text.strip().splitlines()[-1][:200]}); {text}"
            raise (CandidateRaised if raised else CandidateLimitReached if limit else CandidateError)(
                f"candidate {self.ref}: {text}{_shown(self.captured_output)}"
            )
        return header

    def check_signature(self, params: list[str], call: dict[str, Any]) -> None:
        """Check that the candidate accepts the call (``fn(input, **params, rng=...)`` by default).

        Raises:
            CandidateLoadError: naming the signature and the call that does not fit.
        """
        self._request({"op": "signature", "params": sorted(params), "call": call})
        try:
            self._answer(0, self.limits.startup_seconds, time.monotonic() + self.limits.startup_seconds)
        except CandidateError as exc:
            raise CandidateLoadError(str(exc)) from None

    def call_input_function(
        self, ref: str, args: list[Any], entropy: int | None = None, draw: dict[str, int] | None = None
    ) -> Any:
        """The result (plain JSON data) of the user's input function ``ref`` (``module:function``)
        called with ``args`` and, when ``entropy`` is given, a generator seeded by it last; when
        ``ref`` names a Hypothesis strategy, example ``draw["index"]`` of ``draw["count"]`` drawn under
        the seed ``draw["seed"]``.

        Raises:
            CandidateError: on a timeout, crash, exception, or a result that is not JSON data.
        """
        self._request({"op": "input_function", "ref": ref, "args": args, "entropy": entropy, "draw": draw})
        started = time.monotonic()
        deadline = min(started + self.limits.timeout_seconds, started + max(self.limits.total_seconds - self._spent, 0))
        header = self._answer(1, self.limits.timeout_seconds, deadline)
        size = header.get("bytes")
        if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= _MAX_INPUT_BYTES:
            raise CandidateError(f"{ref} returned {size!r} bytes of JSON; at most {_MAX_INPUT_BYTES >> 20} MiB")
        if self._channel is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        try:
            raw = self._channel.payload(size, deadline)
        except TimeoutError:
            self.stop(answering=False)
            raise CandidateLimitReached(f"{ref} stopped sending its result; stopped the worker") from None
        except EOFError:
            self._died(f"sending the result of {ref}")
        self._spent += time.monotonic() - started
        try:
            return loads_bounded(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise CandidateError(f"{ref}: the worker sent a malformed result") from None

    def sample(
        self,
        data: Any,
        params: dict[str, Any],
        call: dict[str, Any],
        count: int,
        seed: np.random.SeedSequence,
        *,
        categories: bool = False,
    ) -> np.ndarray:
        """``count`` outputs of the candidate on the plain input ``data`` with ``params``.

        One numpy Generator seeded by ``seed`` serves the whole batch; the candidate's
        ``sample(input, n, *, rng, **params)`` entry point is used when it has one. ``call``
        is the calling convention (:meth:`dpaudit.mechanisms.interface.CandidateCall.to_json`).
        With ``categories``, string outputs are accepted as category codes (see
        :mod:`dpaudit.audit.candidates.worker`); their names collect in :attr:`category_labels`.

        Returns:
            A float64 array of shape ``(count, *output_shape)``, every value finite.

        Raises:
            CandidateError: on a timeout, crash, exception, or output that is not real, finite,
                non-empty and of one shape.
        """
        with contextlib.closing(self.sample_stream(data, params, call, [(count, seed)], categories=categories)) as one:
            return next(one)

    def sample_each(
        self,
        data: Any,
        params: dict[str, Any],
        call: dict[str, Any],
        entropies: list[int],
        *,
        categories: bool = False,
    ) -> np.ndarray:
        """One output per entropy, stacked: row ``i`` is what one call of the callable itself (never its
        vectorised ``sample``: these are the single releases a batch is compared with) returns with a
        generator seeded by ``entropies[i]``, all sent as one request (one round trip, not one each).

        Raises:
            CandidateError: as :meth:`sample`.
        """
        count = check_integer("count", len(entropies), low=1)
        seeding = {"entropies": [int(entropy) for entropy in entropies]}
        self._request(self._sample_request(data, params, call, count, seeding, categories))
        return self._receive_sample(count, time.monotonic(), calls_of_one=True)

    def _sample_request(
        self,
        data: Any,
        params: dict[str, Any],
        call: dict[str, Any],
        count: int,
        seeding: dict[str, Any],
        categories: bool,
    ) -> dict[str, Any]:
        """A sample request to the worker; ``seeding`` holds its ``entropy`` or its ``entropies``."""
        request = {"op": "sample", "input": data, "params": params, "call": call, "count": count, **seeding}
        return {**request, "vectorised": self.vectorised, "categories": categories}

    def sample_stream(
        self,
        data: Any,
        params: dict[str, Any],
        call: dict[str, Any],
        batches: Iterable[tuple[int, np.random.SeedSequence]],
        *,
        categories: bool = False,
    ) -> Generator[np.ndarray, None, None]:
        """The batches of :meth:`sample` for each ``(count, seed)`` of ``batches``, requests sent ahead:
        the next one as soon as this batch is read, so the worker computes it while the caller uses this
        one, and, while the requests are small (:data:`_SMALL_REQUEST_BYTES`), one more, so the worker
        never waits for a request between answers. The outputs are those of
        calling :meth:`sample` batch by batch. A request sent ahead whose batch is not taken (the caller
        stopped early) is still read, so the channel stays in step.

        Raises:
            CandidateError: as :meth:`sample`.
        """
        ahead = iter(batches)
        pending: deque[int] = deque()

        def send_next() -> int:
            """Send the next request; the bytes sent (0 when there is none)."""
            batch = next(ahead, None)
            if batch is None:
                return 0
            count, seed = check_integer("count", batch[0], low=1), batch[1]
            entropy = seed.entropy
            if not isinstance(entropy, int):
                entropy = int(np.random.default_rng(seed).integers(2**63))
            sent = self._request(self._sample_request(data, params, call, count, {"entropy": entropy}, categories))
            pending.append(count)
            return sent

        if 0 < send_next() <= _SMALL_REQUEST_BYTES:
            send_next()
        started = time.monotonic()
        try:
            while pending:
                outputs = self._receive_sample(pending.popleft(), started)
                # the next request goes once this answer is read whole: the worker is then reading its input
                # or computing, never blocked writing an answer while the auditor is blocked writing a request
                # (a request sent further ahead is small: the pipe to the worker holds it)
                send_next()
                started = time.monotonic()
                yield outputs
        finally:
            while pending and self.running:
                with contextlib.suppress(CandidateError):
                    self._receive_sample(pending.popleft(), time.monotonic())

    def _receive_sample(self, count: int, started: float, *, calls_of_one: bool = False) -> np.ndarray:
        """The answer to a sample request of ``count`` outputs; the worker's time on it is counted from
        ``started`` (when it could begin: the request sent, or the previous answer read). A vectorised
        batch gets ``count`` times the per-call timeout, unless it is made of ``calls_of_one`` (one output
        per call, the worker ticking between calls)."""
        total_deadline = time.monotonic() + max(self.limits.total_seconds - self._spent, 0.0)
        per_call = self.limits.timeout_seconds * (count if self.vectorised and not calls_of_one else 1)
        header = self._answer(count, per_call, total_deadline)
        shape = announced_shape(header, count)
        self._note_labels(header.get("labels"))
        self.used_global_random |= header.get("global_random") is True
        if self._channel is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        try:
            raw = self._channel.payload(int(np.prod(shape)) * 8, total_deadline)
        except TimeoutError:
            self.stop(answering=False)
            raise CandidateLimitReached(f"candidate {self.ref} stopped sending its outputs; stopped it") from None
        except EOFError:
            self._died("sending its outputs")
        self._spent += time.monotonic() - started
        outputs = raw.view("<f8").reshape(shape)
        low, high = float(outputs.min()), float(outputs.max())  # NaN if any is: two passes, no copy
        if not -MAX_OUTPUT_MAGNITUDE <= low <= high <= MAX_OUTPUT_MAGNITUDE:
            if not np.isfinite(outputs).all():
                index = tuple(int(i) for i in np.argwhere(~np.isfinite(outputs))[0])
                raise CandidateError(
                    f"candidate {self.ref} returned a non-finite value {float(outputs[index])!r} at call {index[0]}, "
                    f"position {index[1:]}"
                )
            raise CandidateError(
                f"candidate {self.ref} returned a value of magnitude {max(-low, high):.3g}: dpaudit audits outputs up "
                f"to {MAX_OUTPUT_MAGNITUDE:g} (the event search squares and sums them in float64); release them on a "
                "smaller scale (a fixed rescaling changes no privacy guarantee)"
            )
        return outputs

    def _note_labels(self, labels: Any) -> None:
        """Keep the category names a batch reported (strings only, at most 256, 80 characters each)."""
        if not isinstance(labels, dict):
            return
        for code, name in labels.items():
            if len(self.category_labels) >= _MAX_LABELS:
                return
            if not (isinstance(code, str) and code.isdigit() and isinstance(name, str)):
                continue
            first = self.category_labels.setdefault(code, name[:80])
            if first != name[:80]:
                raise CandidateError(
                    f"candidate {self.ref} returned the categories {first!r} and {name[:80]!r} under one code: "
                    "dpaudit could not tell them apart"
                )


def _shown(captured: str) -> str:
    return f"\ncandidate output (stdout and stderr, truncated):\n{captured}" if captured.strip() else ""
