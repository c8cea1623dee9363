"""Shrinking a violating neighbouring pair to a small example.

When the Monte Carlo audit refutes a claim on a pair with many records (often one the input
search built), the records both inputs share are removed in ever smaller chunks, as long as
the smaller pair still refutes the claim on fresh draws. Both inputs lose the same records, so
the pair stays one record apart; the mechanism's neighbourhood is checked again anyway. Each
attempt is certified by its own run at the audit's confidence, on its own seed: the shrunk
pair's bound is a statement of its own, and the verdict never depends on it.

Inputs shrink when their plain form (the spec's form of the input domain) is a list of records
(each a list): gradient rows, trajectories. Vectors, probability vectors and tables do not.

References:
    Zeller & Hildebrandt 2002 (delta debugging: removing chunks while a failure persists).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.interface import Mechanism
from dpaudit.privacy.relations import Relation

__all__ = ["MAX_SHRINK_ATTEMPTS", "SHRINK_SEED_PATH", "ShrunkPair", "shrink_pair"]

#: Certification runs one shrink may spend (a count, not a wall time: the report must not depend on
#: how fast the machine is).
MAX_SHRINK_ATTEMPTS = 4

#: The seed path below the audit's root of shrink attempt k: (SHRINK_SEED_PATH, k); the audit's own
#: draws use paths that start with a pair index (far below it).
SHRINK_SEED_PATH = 2**31


@dataclass(frozen=True)
class ShrunkPair:
    """The smallest violating pair found, its certified bound and what it took."""

    pair: NeighbourPair
    epsilon_lower_bound: float
    records: tuple[int, int]
    original_records: tuple[int, int]
    attempts: int


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True)


def _split(items: list[Any], other: list[Any]) -> tuple[list[Any], list[Any]]:
    """``items`` split into the records ``other`` also holds (as a multiset) and the rest, both in the
    order of ``items``."""
    remaining = Counter(_key(item) for item in other)
    shared, rest = [], []
    for item in items:
        key = _key(item)
        if remaining[key] > 0:
            remaining[key] -= 1
            shared.append(item)
        else:
            rest.append(item)
    return shared, rest


def _shared(first: list[Any], second: list[Any]) -> list[Any]:
    """The records both lists hold (as a multiset), in the order of ``first``."""
    return _split(first, second)[0]


def _without(items: list[Any], removed: list[Any]) -> list[Any]:
    """``items`` less the records of ``removed`` (as a multiset), in their order."""
    return _split(items, removed)[1]


def shrink_pair(
    pair: NeighbourPair,
    mechanism: Mechanism,
    params: dict[str, Any],
    relation: Relation,
    refutes: Callable[[NeighbourPair, int], float | None],
    *,
    max_attempts: int = MAX_SHRINK_ATTEMPTS,
) -> ShrunkPair | None:
    """Remove shared records from both inputs while ``refutes`` still certifies a violation.

    Args:
        pair: the violating pair.
        mechanism: its mechanism (input domain and neighbourhood).
        params: the claim's mechanism parameters.
        relation: the audited relation.
        refutes: ``refutes(candidate_pair, attempt)`` certifies the claim on fresh draws and returns
            the certified epsilon lower bound when it refutes the claim, else None.
        max_attempts: the most certification runs.

    Returns:
        The smallest refuting pair, or None when nothing could be removed.
    """
    try:
        first, second = mechanism.input_domain.to_plain(pair.first), mechanism.input_domain.to_plain(pair.second)
    except (TypeError, ValueError, InvalidArgument):
        return None
    if not all(
        isinstance(side, list) and side and all(isinstance(row, list) for row in side) for side in (first, second)
    ):
        return None  # only lists of records shrink (not a vector's coordinates)
    original = (len(first), len(second))
    best: ShrunkPair | None = None
    chunk = len(_shared(first, second)) // 2
    attempts = 0
    while chunk >= 1 and attempts < max_attempts:
        shared = _shared(first, second)
        if len(shared) < chunk or len(first) - chunk < 1 or len(second) - chunk < 1:
            chunk //= 2
            continue
        removed = shared[:chunk]
        smaller = (_without(first, removed), _without(second, removed))
        try:
            inputs = tuple(mechanism.input_domain.from_plain(side) for side in smaller)
            mechanism.check_neighbours(inputs[0], inputs[1], relation, params)
        except InvalidArgument:
            chunk //= 2
            continue
        attempts += 1
        label = f"{pair.label}, shrunk to {len(smaller[0])} and {len(smaller[1])} records"
        candidate = replace(pair, first=inputs[0], second=inputs[1], label=label)  # a screened pair stays screened
        bound = refutes(candidate, attempts)
        if bound is None:
            chunk //= 2
            continue
        first, second = smaller
        best = ShrunkPair(candidate, bound, (len(first), len(second)), original, attempts)
    if best is not None:
        best = ShrunkPair(best.pair, best.epsilon_lower_bound, best.records, original, attempts)
    return best
