"""The input search of private policy synthesis: transition matrices the spec did not name.

A spec usually moves one row P(s, a) in the middle of the simplex. Two things it then never
tries: several rows moved at once (under ``simplex_adjacent(b)`` every row may differ, and the
rows' releases compose), and rows at the simplex's boundary, where the Dirichlet mechanism is
least private (a small entry p_i gives the small shape k p_i). The search proposes, from the
spec's matrices and from matrices of the same shape (rows at the boundary, uniform rows),
pairs where every row, two rows, or one row (the first or the last) moves b/2 onto or off its
smallest entry. Each proposal stays in the mechanism's domain: every entry on a row's support
at least ``eta`` (or positive), and under ``structural_zeros = 'keep'`` the zeros of the
spec's matrix at the same places in both inputs (a row with one possible successor stays).

References:
    Gohari, Hale, Topcu 2020, Algorithm 1 (step 1), Def. 2 (b-adjacency), Sec. II-D;
    Gohari, Wu, Hale, Topcu, ACC 2020 (the lower bound eta).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dpaudit.privacy.relations import BOUNDED_KINDS, SIMPLEX_ADJACENT, Relation

__all__ = ["SEARCH_FLOORS", "explore_transitions"]

#: Smallest entries of the boundary rows when the claim has no lower bound eta.
SEARCH_FLOORS = (1e-3, 0.01)

#: Slack (absolute) within which an entry moved down to the floor is set to the floor itself:
#: 0.3 - 0.1 is 0.19999999999999998 in float64, below eta = 0.2.
_FLOOR_SLACK = 1e-12

_Start = tuple[str, np.ndarray, np.ndarray]  # (name, matrix, support)


def _smallest_and_largest(row: np.ndarray, support: np.ndarray) -> tuple[int, int] | None:
    """The indices of a row's smallest and largest entries on its support (distinct; ties: the
    first is the smallest, the last the largest); ``None`` for a row with one possible successor."""
    indices = np.flatnonzero(support)
    if indices.size < 2:
        return None
    ordered = sorted(indices.tolist(), key=lambda index: (row[index], index))
    return int(ordered[0]), int(ordered[-1])


def _moved_row(row: np.ndarray, source: int, target: int, amount: float, floor: float) -> np.ndarray | None:
    """``amount`` moved from entry ``source`` to entry ``target``; ``None`` when ``source`` would
    fall below ``floor`` (more than float64 rounding) or to zero. Within rounding it stops at the floor."""
    remaining = float(row[source]) - amount
    if remaining < floor - _FLOOR_SLACK or max(remaining, floor) <= 0.0:
        return None
    moved = row.copy()
    moved[source] = max(remaining, floor)
    moved[target] += float(row[source]) - float(moved[source])
    return moved


def _moved(
    start: np.ndarray, support: np.ndarray, rows: Sequence[int], onto: bool, bound: float, floor: float
) -> np.ndarray | None:
    """``start`` with b/2 moved onto (``onto``) or off each listed row's smallest entry; ``None``
    when a listed row cannot move so."""
    moved = start.reshape(-1, start.shape[-1]).copy()
    flat_support = support.reshape(moved.shape)
    for index in rows:
        ends = _smallest_and_largest(moved[index], flat_support[index])
        if ends is None:
            return None
        smallest, largest = ends
        source, target = (largest, smallest) if onto else (smallest, largest)
        row = _moved_row(moved[index], source, target, bound / 2.0, floor)
        if row is None:
            return None
        moved[index] = row
    return moved.reshape(start.shape)


def _boundary_matrix(support: np.ndarray, floor: float, bound: float) -> np.ndarray | None:
    """Every row at ``floor`` on its support but for its last entry, which holds the rest;
    ``None`` when a row cannot then give b/2 from its largest entry and keep it >= floor."""
    matrix = np.where(support, floor, 0.0)
    for index in np.ndindex(support.shape[:-1]):
        entries = np.flatnonzero(support[index])
        rest = 1.0 - floor * (entries.size - 1)
        if entries.size > 1 and rest - bound / 2.0 < floor:
            return None
        matrix[(*index, int(entries[-1]))] = rest
    return matrix


def _uniform_matrix(support: np.ndarray, floor: float) -> np.ndarray | None:
    counts = support.sum(axis=-1, keepdims=True)
    matrix = np.where(support, 1.0 / counts, 0.0)
    return matrix if float(matrix[support].min()) >= floor else None


def _given(pairs: Sequence[tuple[Any, Any]], keep: bool) -> list[np.ndarray]:
    """The spec's matrices, distinct, in order: arrays (S, A, S) of finite entries with a support."""
    found: list[np.ndarray] = []
    for pair in pairs:
        for data in pair[:2]:
            try:
                matrix = np.asarray(data, dtype=np.float64)
            except (TypeError, ValueError):
                continue
            if matrix.ndim != 3 or matrix.shape[0] != matrix.shape[2] or not np.all(np.isfinite(matrix)):
                continue
            if not np.all((matrix > 0.0).any(axis=-1)) or (not keep and np.any(matrix <= 0.0)):
                continue
            if not any(matrix.shape == other.shape and np.array_equal(matrix, other) for other in found):
                found.append(matrix)
    return found


def _starts(
    given: list[np.ndarray], floors: Sequence[float], floor: float, bound: float, keep: bool
) -> list[list[_Start]]:
    """Starting matrices in three groups: rows at the boundary, the spec's matrices (those inside
    the domain), uniform rows (one per shape and support pattern of the spec's matrices)."""
    patterns: list[np.ndarray] = []
    for matrix in given:
        support = matrix > 0.0 if keep else np.ones(matrix.shape, dtype=bool)
        if not any(support.shape == other.shape and np.array_equal(support, other) for other in patterns):
            patterns.append(support)
    boundary: list[_Start] = []
    uniform: list[_Start] = []
    for support in patterns:
        for smallest in floors:
            edge = _boundary_matrix(support, smallest, bound)
            if edge is not None:
                boundary.append((f"rows at the simplex's boundary (smallest entries {smallest:g})", edge, support))
        rows = _uniform_matrix(support, floor)
        if rows is not None:
            uniform.append(("uniform rows", rows, support))
    spec = [
        (f"the spec's input {index + 1}", matrix, matrix > 0.0 if keep else np.ones(matrix.shape, dtype=bool))
        for index, matrix in enumerate(given)
        if float(matrix[matrix > 0.0].min()) >= floor  # else outside the claim's domain (below eta)
    ]
    return [boundary, spec, uniform]


def _row_name(index: int, actions: int) -> str:
    state, action = divmod(index, actions)
    return f"P({state}, {action})"


def _row_sets(shape: tuple[int, ...], support: np.ndarray, relation: Relation) -> list[tuple[int, str, list[int]]]:
    """Which rows move, each set with its rank: under simplex_adjacent every row (0), then two rows
    (1), then one (2); else one row (2). One row is the first, then the last, that can move."""
    movable = [index for index, row in enumerate(support.reshape(-1, shape[-1])) if int(row.sum()) > 1]
    actions = shape[1]
    single = [
        (2, f"row {_row_name(index, actions)} alone", [index]) for index in dict.fromkeys(movable[:1] + movable[-1:])
    ]
    if relation.kind != SIMPLEX_ADJACENT or len(movable) < 2:
        return single
    sets = [(0, "every row", movable)]
    if len(movable) > 2:
        first, second = movable[:2]
        sets.append((1, f"rows {_row_name(first, actions)} and {_row_name(second, actions)}", [first, second]))
    return sets + single


def _pair(
    start: np.ndarray, support: np.ndarray, rows: list[int], onto: bool, bound: float, floor: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """(X, X') with b/2 moved onto or off the rows' smallest entries; off an entry at the floor, the
    move onto it read backwards. ``None`` when the rows cannot move so."""
    moved = _moved(start, support, rows, onto, bound, floor)
    if moved is not None:
        return start, moved
    if onto:
        return None
    back = _moved(start, support, rows, True, bound, floor)
    return None if back is None else (back, start)


def explore_transitions(
    pairs: Sequence[tuple[Any, Any]], params: Mapping[str, Any], relation: Relation
) -> list[tuple[Any, Any, str]]:
    """Neighbouring transition matrices around the spec's, most informative first: under
    ``simplex_adjacent(b)`` every row moved at once, then two rows, then one; under
    ``row_adjacent(b)`` one row (the first, the last). Each from rows at the simplex's boundary
    (smallest entries ``eta``, or :data:`SEARCH_FLOORS` without it), the spec's matrices and
    uniform rows, with b/2 moved onto the row's smallest entry and off it.

    References:
        Gohari et al. 2020, Def. 2 (b-adjacency); Sec. III-B (neighbouring MDPs).
    """
    if relation.kind not in BOUNDED_KINDS or relation.bound is None or relation.bound <= 0:
        return []
    bound = float(relation.bound)
    eta = params.get("eta")
    floor = float(eta) if isinstance(eta, int | float) and not isinstance(eta, bool) and eta > 0 else 0.0
    floors = (floor,) if floor > 0 else SEARCH_FLOORS
    keep = params.get("structural_zeros", "reject") == "keep"
    groups = _starts(_given(pairs, keep), floors, floor, bound, keep)
    found: list[tuple[Any, Any, str]] = []
    for rank in range(3):
        for group in groups:
            for name, start, support in group:
                for _, rows_text, rows in (s for s in _row_sets(start.shape, support, relation) if s[0] == rank):
                    for onto in (True, False):
                        pair = _pair(start, support, rows, onto, bound, floor)
                        if pair is not None:
                            text = "onto" if onto else "off"
                            label = f"search: {name}, {rows_text}: b/2 moved {text} the row's smallest entry"
                            found.append((pair[0].tolist(), pair[1].tolist(), label))
    return found
