"""Exhaustive sweeps over neighbouring dataset pairs: float64 pre-screen, exact re-check.

Every ordered pair (X, X') of neighbouring datasets of sizes 1..m_max over a
:class:`~dpaudit.mechanisms.policy_evaluation.trajectory_universe.TrajectoryUniverse` is visited in blocks:

* ``replace_one``: a block holds B cores X° of size m − 1; X = X° + x_i and X' = X° + x_j
  for every i ≠ j (each unordered pair once per direction, since X° = X ∩ X');
* ``add_remove_one``: a block holds B datasets X of size m < m_max; the pairs are
  (X, X + x_j) and (X + x_j, X).

A :class:`PairStatement` states "measured(X, X') <= bound(X, X')". Its float64 screen
computes both sides for a whole block; any pair whose float margin is not above a
relative guard band (default 1e-9 of the bound), and any NaN, is re-decided by the
statement's exact method (rationals, or mpmath at >= 50 digits with a stated error).
The floats only decide pairs far from the bound: every quantity is a short sum of
non-negative terms or a well-conditioned d × d solve, whose forward error is below
1e-12 of the bound for the domains used here (see :func:`sweep_pairs`), so the guard
band leaves a factor >= 1000 of room.

A block whose every pair clears both the guard band and the tightest margin seen so far is
skipped after one reduction per row (:func:`_no_pair_below`, exact for a bound that depends on X
only), which changes nothing that is reported.

Sizes are swept in increasing order and the sweep stops at the first exact violation,
so a counterexample has the smallest dataset size among all violations.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any, Protocol

import mpmath
import numpy as np

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.evidence import exact_fraction
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import (
    DatasetIndex,
    TrajectoryUniverse,
)
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE

__all__ = [
    "GUARD_BAND",
    "Comparison",
    "DatasetBlock",
    "PairBlock",
    "PairStatement",
    "SweepResult",
    "exact_margin_text",
    "pair_blocks",
    "pair_count",
    "sweep_pairs",
    "sweep_statements",
]

GUARD_BAND = 1e-9
"""Pairs whose float margin is below this fraction of the bound are re-checked exactly."""

SCREEN_RELATIVE_ERROR = Fraction(1, 10**11)
"""A bound on |float relative margin − exact relative margin| of one pair, for a screen that is not
exact: both sides within 1e-12 of the bound (:func:`sweep_statements`), so their difference within
2e-12, the scale |bound| within 1e-12 relatively and the division within one rounding; <= 4e-12."""

_EXACT_SLACK = Fraction(1, 10**40)
"""Covers the rounding of an exact check's mpmath bound (60 digits, 1e-45 relative) in a relative margin."""


@dataclass(frozen=True, eq=False)
class DatasetBlock:
    """A batch of datasets as sorted profile-index rows, with their first-visit statistics.

    Attributes:
        rows: int64 array (..., m) of sorted profile indices.
        counts: the signatures ⟨X⟩, int64 (..., S).
        sums: Σ_{x ∈ X_s} F_{x,s}, float64 (..., S).
        cache: per-block memo of derived arrays (e.g. θ), shared by the statements of a sweep.
    """

    rows: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    cache: dict[Any, np.ndarray] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, universe: TrajectoryUniverse, rows: np.ndarray) -> DatasetBlock:
        """Compute the statistics of ``rows`` from the universe's tables."""
        return cls(
            rows, _sum_over_records(universe.visits_array, rows), _sum_over_records(universe.returns_array, rows)
        )

    @property
    def size(self) -> int:
        """m, the number of trajectories in each dataset."""
        return int(self.rows.shape[-1])

    @property
    def average_returns(self) -> np.ndarray:
        """F_X (0 where unvisited), float64 (..., S) (Balle et al. 2016, eq. (4))."""
        return self.sums / np.maximum(self.counts, 1)


def _sum_over_records(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Σ_i table[rows[..., i]], added record by record in index order, without the (..., m, S) temporary of
    ``table[rows].sum(axis=-2)`` (the same bits for S >= 2; numpy sums a single column pairwise)."""
    if rows.shape[-1] == 0:
        return np.zeros(rows.shape[:-1] + table.shape[1:], dtype=table.dtype)
    total = table[rows[..., 0]]
    for i in range(1, rows.shape[-1]):
        total += table[rows[..., i]]
    return total


@dataclass(frozen=True, eq=False)
class PairBlock:
    """Ordered pairs (left[b, p], right[b, q]) for every (b, p, q) with ``mask`` set.

    Attributes:
        left: datasets of shape (B, P, m_left).
        right: datasets of shape (B, Q, m_right).
        mask: bool (B, P, Q), the pairs that are neighbours.
        relation: the relation the pairs belong to.
        core: for replace-one blocks, the common part X° as rows (B, m − 1); else None. Such a block has
            left = right, whose row p (for every b) is X°_b plus profile p.
        cache: per-block memo of pairwise arrays (e.g. ‖θ_X − θ_X'‖²), shared by the statements of a sweep.
    """

    left: DatasetBlock
    right: DatasetBlock
    mask: np.ndarray
    relation: str
    core: DatasetBlock | None = None
    cache: dict[Any, np.ndarray] = field(default_factory=dict, repr=False)

    def pair(self, b: int, p: int, q: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The pair at (b, p, q) as two sorted tuples of profile indices."""
        return tuple(int(v) for v in self.left.rows[b, p]), tuple(int(v) for v in self.right.rows[b, q])


def _insert(cores: np.ndarray, n_profiles: int) -> np.ndarray:
    """Rows core + i for every profile i: shape (B, U, m), sorted."""
    batch = cores.shape[0]
    added = np.broadcast_to(np.arange(n_profiles)[None, :, None], (batch, n_profiles, 1))
    grown = np.concatenate([np.broadcast_to(cores[:, None, :], (batch, n_profiles, cores.shape[1])), added], axis=2)
    return np.sort(grown, axis=2)


def pair_count(n_profiles: int, relation: str, m_max: int) -> int:
    """The number of ordered pairs :func:`pair_blocks` yields (masked-out diagonal included),
    without enumerating them: replace_one visits U² rows per core of size 0..m_max − 1,
    add_remove_one 2U per dataset of size 1..m_max − 1 (C(U + m − 1, m) datasets of size m).

    Raises:
        InvalidArgument: for a relation other than replace_one / add_remove_one.
    """
    if relation == REPLACE_ONE:
        return sum(comb(n_profiles + m - 2, m - 1) for m in range(1, m_max + 1)) * n_profiles * n_profiles
    if relation == ADD_REMOVE_ONE:
        return sum(comb(n_profiles + m - 1, m) for m in range(1, m_max)) * 2 * n_profiles
    raise InvalidArgument(f"relation={relation!r}: expected {REPLACE_ONE!r} or {ADD_REMOVE_ONE!r}")


def pair_blocks(universe: TrajectoryUniverse, relation: str, m_max: int, *, chunk: int = 96) -> Iterator[PairBlock]:
    """Yield every ordered neighbouring pair of datasets of sizes 1..m_max, in blocks, smallest sizes first.

    Raises:
        InvalidArgument: for a relation other than replace_one / add_remove_one.
    """
    index = DatasetIndex(len(universe), m_max)
    n = len(universe)
    if relation == REPLACE_ONE:
        for m in range(1, m_max + 1):
            cores = index.datasets(m - 1)
            for start in range(0, cores.shape[0], chunk):
                core = cores[start : start + chunk]
                grown = DatasetBlock.of(universe, _insert(core, n))
                mask = np.broadcast_to(~np.eye(n, dtype=bool), (core.shape[0], n, n))
                yield PairBlock(
                    grown, grown, mask, relation, DatasetBlock.of(universe, core[:, None, :]) if core.shape[1] else None
                )
    elif relation == ADD_REMOVE_ONE:
        for m in range(1, m_max):
            smaller = index.datasets(m)
            for start in range(0, smaller.shape[0], chunk):
                core = smaller[start : start + chunk]
                small = DatasetBlock.of(universe, core[:, None, :])
                large = DatasetBlock.of(universe, _insert(core, n))
                yield PairBlock(small, large, np.ones((core.shape[0], 1, n), dtype=bool), relation)
                yield PairBlock(large, small, np.ones((core.shape[0], n, 1), dtype=bool), relation)
    else:
        raise InvalidArgument(f"relation={relation!r}: expected {REPLACE_ONE!r} or {ADD_REMOVE_ONE!r}")


@dataclass(frozen=True)
class Comparison:
    """An exact (or rigorous) decision of measured <= bound for one pair.

    Attributes:
        holds: True, False, or None when precision did not decide it.
        measured, bound: the two sides (Fraction or mpmath value).
        margin: bound − measured.
        error: a bound on the error of ``margin`` (0 for rationals).
    """

    holds: bool | None
    measured: Any
    bound: Any
    margin: Any
    error: Any = 0

    @classmethod
    def of(cls, measured: Any, bound: Any, error: Any = 0) -> Comparison:
        """Decide measured <= bound; with a non-zero error, only when |margin| > error."""
        margin = bound - measured
        if error == 0:
            return cls(bool(margin >= 0), measured, bound, margin, 0)
        if margin > error:
            return cls(True, measured, bound, margin, error)
        if margin < -error:
            return cls(False, measured, bound, margin, error)
        return cls(None, measured, bound, margin, error)


class PairStatement(Protocol):
    """A statement measured(X, X') <= bound(X, X') over neighbouring pairs.

    A statement whose screen computes both sides exactly (small integers) sets
    ``screen_is_exact = True``; its pairs are flagged only when measured > bound.
    """

    name: str

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        """Float64 (measured, bound) of every pair in the block, shape (B, P, Q)."""

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        """The exact decision for one pair."""


@dataclass
class SweepResult:
    """What a sweep checked and found.

    Attributes:
        relation: the relation swept.
        m_max: the largest dataset size.
        datasets: the number of datasets in the domain (multisets of profiles, sizes 1..m_max).
        pairs: ordered neighbouring pairs screened.
        flagged: pairs the float screen could not clear (re-checked exactly).
        exact_checks: exact decisions made.
        undecided: flagged pairs whose exact check was not decisive (mpmath margin within error).
        counterexample: the first exact violation (smallest size), or None.
        tightest: the exact comparison of the pair with the smallest float relative margin.
        tightest_pair: that pair.
        min_relative_margin: the smallest float (bound − measured)/bound seen.
        relative_margin_enclosure: an enclosure of the smallest exact (bound − measured)/|bound| over
            every pair, in rationals, whichever IEEE-754 machine ran the screen (see
            :func:`_relative_margin_enclosure`); None when nothing was swept.
    """

    relation: str
    m_max: int
    datasets: int
    pairs: int = 0
    flagged: int = 0
    exact_checks: int = 0
    undecided: int = 0
    counterexample: tuple[tuple[int, ...], tuple[int, ...], Comparison] | None = None
    tightest: Comparison | None = None
    tightest_pair: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    min_relative_margin: float = float("inf")
    relative_margin_enclosure: tuple[Fraction, Fraction] | None = None
    flagged_low: Fraction | None = field(default=None, repr=False)

    @property
    def holds(self) -> bool | None:
        """True when every pair held, False on a violation, None when some pair was undecided."""
        if self.counterexample is not None:
            return False
        return None if self.undecided else True


def _relative_margins(measured: np.ndarray, bound: np.ndarray, outside: np.ndarray | None) -> np.ndarray:
    """(bound − measured) / |bound| per pair: NaN read as −inf (undecided: re-checked), +inf off the mask."""
    scale = np.abs(bound[..., :1] if bound.strides[-1] == 0 else bound)  # a bound constant along q, once per row
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.subtract(bound, measured)
        relative /= scale
    if np.isnan(relative.min()):  # the minimum is NaN exactly when some entry is
        np.copyto(relative, -np.inf, where=np.isnan(relative))
    if outside is not None:
        np.copyto(relative, np.inf, where=outside)
    return relative


def _no_pair_below(measured: np.ndarray, bound: np.ndarray, level: float, *, strict: bool) -> bool:
    """True when every pair's float relative margin, as :func:`_relative_margins` computes it, is >= ``level``
    (> ``level`` when ``strict``), so the block can neither be flagged nor hold a new tightest pair.

    Decided per row (b, p) from its extremes over q: with 0 < min bound, max bound finite and
    max measured <= min bound, every pair of the row has fl(b − m) >= fl(min b − max m) >= 0 and
    |b| <= max b, so (rounding being monotone) fl(fl(b − m)/|b|) >= fl(fl(min b − max m)/max b). When
    the bound is constant along q this is the row's smallest margin, so the test is as sharp as the
    margins themselves. A NaN makes its row's test fail.
    """
    if bound.strides[-1] == 0:
        low_bound = high_bound = bound[..., 0]
    else:
        low_bound, high_bound = bound.min(axis=-1), bound.max(axis=-1)
    high_measured = measured.max(axis=-1)
    if not np.all((low_bound > 0.0) & (high_bound < np.inf) & (high_measured <= low_bound)):
        return False
    least = float(((low_bound - high_measured) / high_bound).min())
    return least > level if strict else least >= level


def sweep_pairs(
    statement: PairStatement,
    universe: TrajectoryUniverse,
    relation: str,
    m_max: int,
    **options: Any,
) -> SweepResult:
    """Decide one statement on every ordered neighbouring pair of sizes 1..m_max (see :func:`sweep_statements`)."""
    return sweep_statements({statement.name: statement}, universe, relation, m_max, **options)[statement.name]


def sweep_statements(
    statements: dict[str, PairStatement],
    universe: TrajectoryUniverse,
    relation: str,
    m_max: int,
    *,
    guard_band: float = GUARD_BAND,
    max_exact: int = 20000,
    chunk: int = 96,
) -> dict[str, SweepResult]:
    """Decide several statements in one pass over every ordered neighbouring pair of sizes 1..m_max.

    Float error: the screened sides are short sums of non-negative float terms (relative
    rounding error <= (S·(m_max + 1) + 4)·2⁻⁵³), squared distances from Gram matrices
    (absolute error <= 4 d 2⁻⁵³ (‖a‖² + ‖b‖²), and ‖a‖² is within a small factor of the bound
    on these domains), or solutions of d × d systems with condition number at most
    1 + 2m‖Φ‖²‖ρ‖∞/λ; all are below 1e-12 of the bound, far inside the 1e-9 guard band.
    A statement stops recording after its first exact violation (the smallest size).

    Args:
        statements: the statements by name.
        universe: the trajectory universe.
        relation: ``replace_one`` or ``add_remove_one``.
        m_max: the largest dataset size.
        guard_band: pairs with float margin <= guard_band × |bound| are re-checked exactly.
        max_exact: the most exact re-checks per statement; beyond it flagged pairs are undecided.
        chunk: cores per block.

    Returns:
        One :class:`SweepResult` per statement: counts, first violation, tightest pair.
    """
    total = DatasetIndex(len(universe), m_max).total
    results = {name: SweepResult(relation, m_max, total) for name in statements}
    tightest: dict[str, tuple[float, PairBlock, tuple[int, int, int]]] = {}
    for block in pair_blocks(universe, relation, m_max, chunk=chunk):
        count = int(block.mask.sum())
        outside = None if count == block.mask.size else ~block.mask
        for name, statement in statements.items():
            result = results[name]
            result.pairs += count
            if result.counterexample is not None:
                continue
            measured, bound = statement.screen(block)
            band = 0.0 if getattr(statement, "screen_is_exact", False) else guard_band
            if name in tightest and _no_pair_below(measured, bound, max(tightest[name][0], band), strict=band > 0):
                continue
            relative = _relative_margins(measured, bound, outside)
            position = np.unravel_index(int(np.argmin(relative)), relative.shape)
            if name not in tightest or relative[position] < tightest[name][0]:
                first, second, third = (int(i) for i in position)
                tightest[name] = (float(relative[position]), block, (first, second, third))
            smallest = relative[position]
            if not (smallest < 0 if band == 0.0 else smallest <= band):
                continue  # no pair below the band: the smallest margin clears it
            flagged = np.argwhere(relative < 0 if band == 0.0 else relative <= band)
            result.flagged += int(flagged.shape[0])
            for b, p, q in flagged:
                if result.exact_checks >= max_exact:
                    result.undecided += 1
                    continue
                left, right = block.pair(int(b), int(p), int(q))
                comparison = statement.exact(left, right)
                result.exact_checks += 1
                low = _relative_range(comparison)[0]
                result.flagged_low = low if result.flagged_low is None else min(result.flagged_low, low)
                if comparison.holds is None:
                    result.undecided += 1
                elif not comparison.holds:
                    result.counterexample = (left, right, comparison)
                    break
    for name, (margin, block, (b, p, q)) in tightest.items():
        result = results[name]
        result.min_relative_margin = margin
        result.tightest_pair = block.pair(b, p, q)
        result.tightest = statements[name].exact(*result.tightest_pair)
        result.exact_checks += 1
        band = 0.0 if getattr(statements[name], "screen_is_exact", False) else guard_band
        result.relative_margin_enclosure = _relative_margin_enclosure(result, result.tightest, statements[name], band)
    return results


def _relative_range(comparison: Comparison) -> tuple[Fraction, Fraction]:
    """The exact relative margin (bound − measured)/|bound| of one exactly checked pair, enclosed."""
    bound = exact_fraction(comparison.bound)
    if bound == 0:
        raise InvalidArgument("a pair statement with a zero bound has no relative margin")
    margin, error = exact_fraction(comparison.margin), abs(exact_fraction(comparison.error))
    return (margin - error) / abs(bound) - _EXACT_SLACK, (margin + error) / abs(bound) + _EXACT_SLACK


def _relative_margin_enclosure(
    result: SweepResult, tightest: Comparison, statement: PairStatement, band: float
) -> tuple[Fraction, Fraction]:
    """An enclosure of min over every pair of the exact relative margin, valid on any IEEE-754 machine.

    Every pair not flagged has a float relative margin above ``band`` and at least the smallest
    one seen, so its exact margin is at least max(band, smallest) − E (E =
    :data:`SCREEN_RELATIVE_ERROR`, 0 for an exact screen); every flagged pair was checked exactly.
    The minimum is at most the exact margin of the tightest pair. A statement reading the
    implementation's floats widens both ends by its ``input_variation``: the most its relative
    margins move between conforming machines and library versions.
    """
    exact_screen = getattr(statement, "screen_is_exact", False)
    error = Fraction(0) if exact_screen else SCREEN_RELATIVE_ERROR
    variation = Fraction(getattr(statement, "input_variation", 0))
    smallest = result.min_relative_margin  # -inf when a NaN was screened (that pair was flagged)
    low = (max(Fraction(band), Fraction(smallest)) if math.isfinite(smallest) else Fraction(band)) - error
    if result.flagged_low is not None:
        low = min(low, result.flagged_low)
    high = _relative_range(tightest)[1]
    return low - variation, high + variation


def exact_margin_text(comparison: Comparison) -> str:
    """A short text of an exact comparison's margin, for summaries."""
    if isinstance(comparison.margin, Fraction):
        return f"{float(comparison.margin):.6g} (exact rational)"
    return f"{mpmath.nstr(comparison.margin, 8)} (error <= {mpmath.nstr(mpmath.mpf(comparison.error), 2)})"
