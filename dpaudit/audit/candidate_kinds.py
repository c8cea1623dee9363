"""Candidate kinds: the documented call signature of a user implementation per mechanism.

A candidate implements one reference mechanism. dpaudit calls it in an isolated worker
(:mod:`dpaudit.audit.candidates`) with plain, picklable arguments: the dataset as the
first argument, every public parameter of the claim's mechanism (the spec's
``[claim.mechanism] params``) as a keyword argument, and a keyword-only ``rng``
(:class:`numpy.random.Generator`). It returns one release as an array.

Signatures (one per kind):

* ``gaussian(value, *, sigma, sensitivity, rng) -> ndarray`` — ``value`` is f(X), a list of floats.
* ``dirichlet(p, *, k, eta=None, rng) -> ndarray`` — ``p`` a probability vector (list of floats).
* ``dp_lsw(dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None,
  constant_set="main_text", rng) -> ndarray`` — ``dataset`` a list of trajectories, each a list of
  ``[state, action, reward]`` triples; ``features`` is ``"tabular"``, ``"aggregation:g"`` or a matrix.
* ``dp_lsl(dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
  constant_set="main_text", saturation="min", rng) -> ndarray`` — as ``dp_lsw``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.audit.candidates import CandidateLimits, CandidateProcess, CandidateRef
from dpaudit.errors import InvalidArgument

__all__ = ["CANDIDATE_KINDS", "CandidateKind", "CandidateMechanism", "candidate_kind_for"]


def _vector(data: Any) -> list[float]:
    return [float(v) for v in np.asarray(data, dtype=np.float64).ravel()]


def _trajectories(data: Any) -> list[list[list[float]]]:
    return [
        [[int(s), int(a), float(r)] for s, a, r in zip(x.states, x.actions, x.rewards, strict=True)] for x in data
    ]


def _with_params(name: str, convert: Callable[[Any], Any]) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    def arguments(params: dict[str, Any], data: Any) -> dict[str, Any]:
        return {name: convert(data), **params}

    return arguments


@dataclass(frozen=True)
class CandidateKind:
    """How to call a candidate implementing reference mechanism ``mechanism``.

    Attributes:
        mechanism: the registered reference mechanism's name.
        signature: the documented call signature.
        arguments: maps (the claim's mechanism params, a dataset) to the keyword arguments.
    """

    mechanism: str
    signature: str
    arguments: Callable[[dict[str, Any], Any], dict[str, Any]]


CANDIDATE_KINDS: dict[str, CandidateKind] = {
    "gaussian": CandidateKind(
        "gaussian", "gaussian(value, *, sigma, sensitivity, rng) -> ndarray", _with_params("value", _vector)
    ),
    "dirichlet": CandidateKind("dirichlet", "dirichlet(p, *, k, eta=None, rng) -> ndarray", _with_params("p", _vector)),
    "dp_lsw": CandidateKind(
        "dp_lsw",
        "dp_lsw(dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None, "
        "constant_set='main_text', rng) -> ndarray",
        _with_params("dataset", _trajectories),
    ),
    "dp_lsl": CandidateKind(
        "dp_lsl",
        "dp_lsl(dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None, "
        "constant_set='main_text', saturation='min', rng) -> ndarray",
        _with_params("dataset", _trajectories),
    ),
}


def candidate_kind_for(mechanism: str) -> CandidateKind:
    """The candidate kind of reference mechanism ``mechanism``.

    Raises:
        InvalidArgument: listing the mechanisms candidates can implement.
    """
    try:
        return CANDIDATE_KINDS[mechanism]
    except KeyError:
        known = ", ".join(sorted(CANDIDATE_KINDS))
        raise InvalidArgument(f"mechanism={mechanism!r}: candidates can implement {known}") from None


class CandidateMechanism:
    """A candidate seen as a mechanism: ``release(data, *, rng, size=None)``.

    The isolated worker starts on the first release and is started again after a
    failure (a hang or crash stops it), so one bad call fails one check, not the audit.
    Each call draws a fresh seed from ``rng`` for the worker, so the releases are a
    deterministic function of the audit's seed. Not picklable: it samples in the main
    process (the candidate itself is isolated in its worker). Use as a context manager.
    """

    def __init__(self, ref: CandidateRef, limits: CandidateLimits, kind: CandidateKind, params: dict[str, Any]):
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
        outputs = self._process.sample(self.kind.arguments(self.params, data), 1 if size is None else size, seed)
        return outputs[0] if size is None else outputs
