"""Candidate kinds: how a user implementation of a mechanism is called, derived from its
:class:`~dpaudit.mechanisms.interface.Mechanism`.

A candidate implements one mechanism that has a candidate signature (``dpaudit list
mechanisms``). dpaudit calls it in an isolated worker (:mod:`dpaudit.audit.candidates.process`)
with plain arguments: the input converted by the mechanism's input domain as the first
argument (by position, whatever its name), every public parameter of the claim's mechanism
(the spec's ``[claim.mechanism] params``) as a keyword argument, and a keyword-only ``rng``
(:class:`numpy.random.Generator`), unless the spec's ``[candidate]`` table says otherwise
(:class:`~dpaudit.mechanisms.interface.CandidateCall`). It returns one release as an array.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable
from typing import Any

import numpy as np

from dpaudit.audit.candidates.process import CandidateProcess
from dpaudit.audit.candidates.refs import CandidateLimits, CandidateRef
from dpaudit.errors import CandidateError, InvalidArgument
from dpaudit.mechanisms.catalogue import get_mechanism, list_mechanisms
from dpaudit.mechanisms.interface import CandidateCall, Mechanism
from dpaudit.privacy.relations import Relation

__all__ = ["USER_PAIR_PILOT", "CandidateMechanism", "candidate_kind_for", "candidate_kinds"]

#: Pilot draws per side of a pair the user's functions made, past the first two (the pilot ranks them).
USER_PAIR_PILOT = 2000


def candidate_kinds() -> list[Mechanism]:
    """The mechanisms a candidate can implement (those with a candidate signature), by name."""
    return [mechanism for mechanism in list_mechanisms() if mechanism.candidate is not None]


def candidate_kind_for(name: str) -> Mechanism:
    """The mechanism ``name``, when candidates can implement it.

    Raises:
        InvalidArgument: listing the mechanisms candidates can implement.
    """
    mechanism = get_mechanism(name)
    if mechanism.candidate is None:
        known = ", ".join(kind.name for kind in candidate_kinds())
        raise InvalidArgument(f"mechanism={name!r}: candidates can implement {known}")
    return mechanism


#: The outputs (float64 bytes) one request to a candidate's worker asks for at the least: fewer round trips
#: than one request per counting batch, and an answer that a widened pipe (1 MiB) holds whole, so the worker
#: writes it while the auditor counts the answer before (with 8 MiB, a whole chunk of draws in one request,
#: the auditor waited for the worker's draws and for both copies of every answer).
REQUEST_BYTES = 1 << 20

#: The most outputs one request asks for: a request carries its input, so one whose input is large (a dataset
#: of long trajectories) asks for up to 8 times the input's JSON in outputs, and at most this.
MAX_REQUEST_BYTES = 1 << 23


def _request_bytes(input_bytes: int) -> int:
    """The outputs (bytes) a request whose input's JSON takes ``input_bytes`` asks for (see :data:`REQUEST_BYTES`)."""
    return min(max(REQUEST_BYTES, 8 * input_bytes), MAX_REQUEST_BYTES)


def _grouped(sizes: list[int], width: int, limit_bytes: int = REQUEST_BYTES) -> list[list[int]]:
    """Consecutive ``sizes`` merged into groups of at most ``limit_bytes`` of outputs of ``width`` numbers each
    (a size larger than that alone)."""
    limit = max(1, limit_bytes // (8 * max(width, 1)))
    groups: list[list[int]] = []
    for size in sizes:
        if groups and sum(groups[-1]) + size <= limit:
            groups[-1].append(size)
        else:
            groups.append([size])
    return groups


def _without_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(size for size in shape if size != 1)


class CandidateMechanism:
    """A candidate seen as a mechanism: ``release(data, *, rng, size=None)``.

    The worker starts with :meth:`start` (or on the first release) and is started again
    after a failure (a hang or crash stops it), so one bad call fails one check, not the
    audit. The candidate is called with ``call.params`` (the spec's ``[candidate] params``, its
    own parameters) when given, else with the reference's ``params``, which also fix the
    expected output shape. Inputs are converted by the mechanism's input domain to plain values; outputs
    are checked against the mechanism's declared output shape. Each call draws a fresh seed
    from ``rng`` for the worker, so the releases are a deterministic function of the audit's
    seed. Not picklable: it samples in the main process (the candidate itself is isolated in
    its worker). Use as a context manager.
    """

    def __init__(
        self,
        ref: CandidateRef,
        limits: CandidateLimits,
        kind: Mechanism,
        params: dict[str, Any],
        call: CandidateCall | None = None,
    ):
        self.ref = ref
        self.limits = limits
        self.kind = kind
        self.params = dict(params)
        convention = call or CandidateCall()
        self.call_params = convention.call_params(self.params)
        self.call = convention.to_json(list(self.call_params))
        self.captured_output: list[str] = []
        self.category_labels: dict[str, str] = {}
        self.used_global_random = False
        self.fences: tuple[str, ...] = ()
        self.proposed_pairs: dict[str, list[tuple[Any, Any, str]]] = {}
        self._process: CandidateProcess | None = None

    def __enter__(self) -> CandidateMechanism:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker if it runs, keeping what the candidate printed."""
        if self._process is not None:
            self._process.stop()
            if self._process.captured_output.strip():
                self.captured_output.append(self._process.captured_output)
            self._process = None

    def start(self) -> None:
        """Start the worker and check that the candidate accepts the documented call.

        Raises:
            CandidateLoadError: when the module or callable cannot be imported or the signature does not fit.
        """
        self.close()
        process = CandidateProcess(self.ref, self.limits)
        try:
            process.start()
            process.check_signature(list(self.call_params), self.call)
        except CandidateError:
            process.stop()
            raise
        self._process = process
        self.fences = self.fences or process.fences

    @property
    def vectorised(self) -> bool:
        """Whether the running candidate has a vectorised entry point (``sample``)."""
        return self._process is not None and self._process.vectorised

    def user_pairs(self, relation: Relation) -> list[tuple[Any, Any, str, int | None]]:
        """The pairs the user's input functions made under ``relation``
        (:func:`dpaudit.audit.candidates.user_inputs.user_pairs`), each with the pilot it gets:
        the first two the budget's pilot, the others :data:`USER_PAIR_PILOT` draws per side."""
        found = self.proposed_pairs.get(relation.name, [])
        return [(*pair, None if index < 2 else USER_PAIR_PILOT) for index, pair in enumerate(found)]

    def call_input_function(
        self, ref: str, args: list[Any], entropy: int | None = None, draw: dict[str, int] | None = None
    ) -> Any:
        """The result of the user's input function ``ref`` run in the candidate's worker
        (:meth:`CandidateProcess.call_input_function`); the worker is restarted after a failure.

        Raises:
            CandidateError: when the function fails, hangs or returns what is not JSON data.
        """
        if self._process is None or not self._process.running:
            self.start()
        if self._process is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        try:
            return self._process.call_input_function(ref, args, entropy, draw)
        except CandidateError:
            self.close()
            raise

    def fresh_batch(self, data: Any, count: int, entropy: int) -> np.ndarray:
        """``count`` releases on ``data`` from a worker started for them alone (the candidate's
        module imported afresh), with a generator seeded by ``entropy``: what a run of the
        candidate in a new process releases. Used to tell public noise (a module-level fixed seed)
        from noise that is merely not replayable.

        Raises:
            CandidateError: when the candidate fails, hangs or returns bad output.
        """
        process = CandidateProcess(self.ref, self.limits)
        try:
            process.start()
            return process.sample(
                self.kind.input_domain.to_plain(data),
                self.call_params,
                self.call,
                count,
                np.random.SeedSequence(entropy),
                categories=self.kind.categorical_outputs,
            )
        finally:
            process.stop()
            if process.captured_output.strip():
                self.captured_output.append(process.captured_output)

    def release(self, data: Any, *, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        """One release (or ``size`` of them, stacked) of the candidate on ``data``.

        Raises:
            CandidateError: when the candidate fails to load, crashes, hangs or returns bad output.
        """
        stream = self.release_stream(data, [1 if size is None else size], rng=rng)
        try:
            outputs = next(stream)
        finally:
            stream.close()
        return outputs[0] if size is None else outputs

    def release_each(self, data: Any, seeds: list[int]) -> np.ndarray:
        """One call of the candidate's callable itself on ``data`` with ``rng=np.random.default_rng(seed)`` for
        each seed, stacked, in one round trip to the worker (never its vectorised ``sample``: these single
        releases are what a batch is compared with).

        Raises:
            CandidateError: as :meth:`release`.
        """
        if self._process is None or not self._process.running:
            self.start()
        process = self._process
        if process is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        entropies = [int(np.random.default_rng(seed).integers(2**63)) for seed in seeds]
        plain = self.kind.input_domain.to_plain(data)
        try:
            outputs = process.sample_each(
                plain, self.call_params, self.call, entropies, categories=self.kind.categorical_outputs
            )
        except CandidateError:
            self.close()
            raise
        self.category_labels.update(process.category_labels)
        self.used_global_random |= process.used_global_random
        return self._shaped(outputs, data)

    def release_stream(
        self, data: Any, sizes: Iterable[int], *, rng: np.random.Generator
    ) -> Generator[np.ndarray, None, None]:
        """``release(data, rng=rng, size=n)`` for each ``n`` of ``sizes`` in turn, with the next request
        sent before this one is handed over, so that the candidate's worker draws it while the caller
        counts this one.

        Consecutive sizes travel as one request of up to :func:`_request_bytes` of outputs (the first
        alone, to learn the output's width when the kind does not declare it), each request with its
        own seed drawn from ``rng``; the answer is handed over in the sizes asked for. The grouping
        depends only on the sizes, the output's shape and the input, so a seed gives the same outputs on
        every run.

        Raises:
            CandidateError: when the candidate fails to load, crashes, hangs or returns bad output.
        """
        sizes = list(sizes)
        width = self._declared_width(data)
        if width is None and sizes:
            first = self._requested(data, [[sizes[0]]], rng)
            try:
                (batch,) = next(first)
            finally:
                first.close()
            yield batch
            width, sizes = int(np.prod(batch.shape[1:], dtype=np.int64)), sizes[1:]
        limit = _request_bytes(len(json.dumps(self.kind.input_domain.to_plain(data))))
        yield from (
            batch for group in self._requested(data, _grouped(sizes, width or 1, limit), rng) for batch in group
        )

    def _declared_width(self, data: Any) -> int | None:
        """How many numbers one release holds, when the kind declares its shape for ``data``."""
        if self.kind.output.shape is None:
            return None
        return int(np.prod(tuple(self.kind.output.shape(self.params, data)), dtype=np.int64))

    def _requested(
        self, data: Any, groups: list[list[int]], rng: np.random.Generator
    ) -> Generator[list[np.ndarray], None, None]:
        """One request per group of sizes, one ahead; each answer split into the group's sizes."""
        if self._process is None or not self._process.running:
            self.start()
        process = self._process
        if process is None:
            raise CandidateError(f"candidate {self.ref} is not running")
        requests = ((sum(group), np.random.SeedSequence(int(rng.integers(2**63)))) for group in groups)
        plain = self.kind.input_domain.to_plain(data)
        stream = process.sample_stream(
            plain, self.call_params, self.call, requests, categories=self.kind.categorical_outputs
        )
        try:
            for group in groups:
                try:
                    outputs = next(stream, None)
                except CandidateError:
                    self.close()
                    raise
                if outputs is None:
                    return
                self.category_labels.update(process.category_labels)
                self.used_global_random |= process.used_global_random
                shaped = self._shaped(outputs, data)
                yield np.split(shaped, np.cumsum(group)[:-1])
        finally:
            stream.close()

    def _shaped(self, outputs: np.ndarray, data: Any) -> np.ndarray:
        """``outputs`` in the kind's release shape for ``data`` (a scalar for (1,), a row for a column)."""
        if self.kind.output.shape is None:
            return outputs
        expected = tuple(self.kind.output.shape(self.params, data))
        if _without_ones(outputs.shape[1:]) == _without_ones(expected):
            outputs = outputs.reshape((outputs.shape[0], *expected))
        if outputs.shape[1:] != expected:
            raise CandidateError(
                f"candidate {self.ref} returned outputs of shape {outputs.shape[1:]}; the {self.kind.name} "
                f"mechanism releases {self.kind.output.description} (shape {expected}) for this input"
            )
        return outputs
