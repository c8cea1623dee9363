"""Candidate kinds: how a user implementation of a mechanism is called, derived from its
:class:`~dpaudit.mechanisms.interface.Mechanism`.

A candidate implements one mechanism that has a candidate signature (``dpaudit list
mechanisms``). dpaudit calls it in an isolated worker (:mod:`dpaudit.audit.candidates.process`)
with plain arguments: the input converted by the mechanism's input domain as the first
argument (named as the signature names it), every public parameter of the claim's mechanism
(the spec's ``[claim.mechanism] params``) as a keyword argument, and a keyword-only ``rng``
(:class:`numpy.random.Generator`). It returns one release as an array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.audit.candidates.process import (
    CandidateLimits,
    CandidateProcess,
    CandidateRef,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue import get_mechanism, list_mechanisms
from dpaudit.mechanisms.interface import Mechanism

__all__ = ["CandidateMechanism", "candidate_arguments", "candidate_kind_for", "candidate_kinds"]


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


def candidate_arguments(kind: Mechanism, params: dict[str, Any], data: Any) -> dict[str, Any]:
    """The keyword arguments of one candidate call on ``data`` (without ``rng``)."""
    if kind.candidate is None:
        raise InvalidArgument(f"mechanism={kind.name!r}: candidates cannot implement it")
    return {kind.candidate.first_argument: kind.input_domain.to_plain(data), **params}


class CandidateMechanism:
    """A candidate seen as a mechanism: ``release(data, *, rng, size=None)``.

    The isolated worker starts on the first release and is started again after a
    failure (a hang or crash stops it), so one bad call fails one check, not the audit.
    Each call draws a fresh seed from ``rng`` for the worker, so the releases are a
    deterministic function of the audit's seed. Not picklable: it samples in the main
    process (the candidate itself is isolated in its worker). Use as a context manager.
    """

    def __init__(self, ref: CandidateRef, limits: CandidateLimits, kind: Mechanism, params: dict[str, Any]):
        self.ref = ref
        self.limits = limits
        self.kind = kind
        self.params = dict(params)
        self._process: CandidateProcess | None = None

    def __enter__(self) -> CandidateMechanism:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker if it runs."""
        if self._process is not None:
            self._process.stop()
            self._process = None

    def release(self, data: Any, *, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        """One release (or ``size`` of them, stacked) of the candidate on ``data``.

        Raises:
            CandidateError: when the candidate fails to load, crashes, hangs or returns bad output.
        """
        seed = np.random.SeedSequence(int(rng.integers(2**63)))
        if self._process is None or not self._process.running:
            self._process = CandidateProcess(self.ref, self.limits)
            self._process.start()
        outputs = self._process.sample(
            candidate_arguments(self.kind, self.params, data), 1 if size is None else size, seed
        )
        return outputs[0] if size is None else outputs
