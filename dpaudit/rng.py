"""Random-number handling (SPEC 7): one keyword-only ``rng``, no global seeding.

``normalize_rng`` turns ``None``, an int seed, a :class:`numpy.random.SeedSequence`
or a :class:`numpy.random.Generator` into a Generator. ``spawn_generators`` derives
independent child streams, so that chunked or parallel work gives the same numbers
whatever the executor. ``SeedRecord`` is what a report stores to replay a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.errors import InvalidArgument, InvalidType

__all__ = ["SeedRecord", "normalize_rng", "seed_sequence", "spawn_generators", "spawn_seed_sequences"]

RngLike = None | int | np.random.SeedSequence | np.random.Generator


def seed_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    """Return a SeedSequence for ``seed`` (fresh OS entropy when ``None``).

    Raises:
        InvalidArgument: for negative seeds; InvalidType for other types.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InvalidType(f"seed={seed!r}: expected a non-negative integer, a SeedSequence or None")
    if seed < 0:
        raise InvalidArgument(f"seed={seed}: expected a non-negative integer")
    return np.random.SeedSequence(int(seed))


def normalize_rng(rng: Any) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng``.

    Accepts a Generator (returned as is), a SeedSequence, a non-negative int, or
    ``None`` (fresh entropy; not reproducible).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.RandomState):
        raise InvalidType("rng=RandomState(...): expected a numpy Generator; use np.random.default_rng(seed)")
    return np.random.default_rng(seed_sequence(rng))


def spawn_seed_sequences(parent: int | np.random.SeedSequence | None, count: int) -> list[np.random.SeedSequence]:
    """Return ``count`` independent child SeedSequences of ``parent``.

    The children depend only on the parent's entropy, spawn key and the number of
    children spawned from it before, so the same parent gives the same children.
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise InvalidArgument(f"count={count!r}: expected a non-negative integer")
    return seed_sequence(parent).spawn(int(count))


def spawn_generators(parent: int | np.random.SeedSequence | None, count: int) -> list[np.random.Generator]:
    """Return ``count`` independent Generators derived from ``parent`` (see :func:`spawn_seed_sequences`)."""
    return [np.random.default_rng(child) for child in spawn_seed_sequences(parent, count)]


@dataclass(frozen=True)
class SeedRecord:
    """What a report records to replay a random computation: root entropy and spawn key."""

    entropy: int
    spawn_key: tuple[int, ...] = ()

    @classmethod
    def of(cls, sequence: np.random.SeedSequence) -> SeedRecord:
        """Record ``sequence``'s root entropy and spawn key."""
        entropy = sequence.entropy
        if not isinstance(entropy, int):
            raise InvalidArgument("seed: a SeedSequence with a recorded integer entropy is expected")
        return cls(entropy=entropy, spawn_key=tuple(int(k) for k in sequence.spawn_key))

    def sequence(self) -> np.random.SeedSequence:
        """Rebuild the recorded SeedSequence."""
        return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {"entropy": self.entropy, "spawn_key": list(self.spawn_key)}
