"""The neighbourhood of points of the probability simplex: Gohari et al. 2020's b-adjacency, and its input search.

References:
    Gohari, Hale & Topcu 2020, Def. 2 (b-adjacency) and Sec. II-D (the Dirichlet mechanism).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dpaudit.mechanisms.inputs import PROBABILITY_VECTOR
from dpaudit.mechanisms.interface import Neighbourhood
from dpaudit.privacy.relations import SIMPLEX_ADJACENT, Relation

__all__ = ["simplex_adjacency"]


def simplex_adjacency() -> Neighbourhood:
    """Gohari et al. 2020, Def. 2: two points of the simplex differing in at most two coordinates,
    with L1 distance at most the relation's bound b.

    Its search moves b/2 between two coordinates of the uniform point, the given points, points near
    a vertex and (from 3 coordinates) a point with two small entries, whose move swaps them (the
    worst case from 3 coordinates on), in the given pairs' dimensions only: a claim is often stated
    for the rows its user has (the 2-simplex), and no spec field says otherwise."""

    def distance(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
        a, b = PROBABILITY_VECTOR.from_plain(first), PROBABILITY_VECTOR.from_plain(second)
        if a.shape != b.shape or int(np.count_nonzero(a != b)) > 2:
            return float("inf")
        return float(np.abs(a - b).sum())

    def radius(params: Mapping[str, Any], relation: Relation) -> float:
        if relation.kind != SIMPLEX_ADJACENT or relation.bound is None:
            return 0.0
        return float(relation.bound)

    def explore(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
        bound = radius(params, relation)
        floor = float(params.get("eta") or 0.0)
        found: list[tuple[Any, Any, str]] = []
        for length in sorted({len(PROBABILITY_VECTOR.to_plain(x)) for pair in pairs for x in pair}):
            starts = [("uniform p", np.full(length, 1.0 / length))]
            starts += [
                ("given p", np.asarray(PROBABILITY_VECTOR.to_plain(x)))
                for pair in pairs
                for x in pair
                if len(x) == length
            ]
            for edge in sorted({1e-3, 0.01, 0.05, 0.1, bound / 2 + 1e-3, floor, floor + bound / 2} - {0.0}):
                if edge * (length - 1) < 1.0:
                    start = np.full(length, edge)
                    start[0] = 1.0 - edge * (length - 1)
                    starts.append((f"p near a vertex (others {edge:g})", start))
            small = max(floor, 0.01)
            if length >= 3 and small * (length - 1) + bound / 2 < 1.0:
                start = np.full(length, small)
                start[2] += bound / 2
                start[0] = 1.0 - float(start[1:].sum())
                starts.append((f"two small entries {small:g} and {small + bound / 2:g}", start))
            moves = ((0, 1), (1, 0), (1, 2), (2, 1)) if length >= 3 else ((0, 1), (1, 0))
            for name, start in starts:
                for i, j in moves:
                    moved = start.copy()
                    moved[i] += bound / 2
                    moved[j] -= bound / 2
                    if moved.min() > 0:
                        found.append(
                            (
                                PROBABILITY_VECTOR.to_plain(start),
                                PROBABILITY_VECTOR.to_plain(moved),
                                f"search: {length}-d {name}, b/2 from {j} to {i}",
                            )
                        )
        return found

    return Neighbourhood(
        "p, p' differ in at most two coordinates and ||p - p'||_1 <= b", distance, radius, explore=explore
    )
