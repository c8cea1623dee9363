"""A bounded trajectory universe and exact LSW/LSL parameters, in rational arithmetic.

The universe holds every trajectory of a small chain up to a horizon cap, grouped into
*profiles*: two trajectories with the same visit set S_x and the same first-visit
returns F_{x,s} are interchangeable for every quantity of Balle et al. 2016 (F_X, the
signature ⟨X⟩, Γ_X, θ^w_X, θ^λ_X, φ, ψ), so a dataset is a multiset of profiles. Datasets
of size 1..m_max are enumerated as sorted index tuples and ranked in colex order, so
that vectorised sweeps can find the index of X° + x without hashing.

Exact estimators (no floating point anywhere):

* LSW: Φᵀ Γ Φ θ = Φᵀ Γ F_X with Γ = diag(w) (Balle et al. 2016, eq. (7)–(8));
* LSL: (Φᵀ Γ_X Φ + λ/(2m) I) θ = Φᵀ Γ_X F_X with Γ_X = diag(ρ_s |X_s| / m) (eq. (10)–(11)).

References:
    Balle, Gomrokchi, Precup 2016, Sec. 2.2 (F_{x,s}, eq. (3)–(5)), Sec. 3 (eq. (6)–(11)),
    Sec. 4.1 (the signature ⟨X⟩).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb
from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_rational
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE
from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.first_visit import first_visit_returns
from dpaudit.rl.trajectory import Trajectory

__all__ = [
    "DatasetIndex",
    "LSLProblem",
    "LSWProblem",
    "TrajectoryProfile",
    "TrajectoryUniverse",
    "chain_universe",
    "exact_first_visit_statistics",
    "exact_local_sensitivity",
    "exact_lsl_parameters",
    "exact_lsw_parameters",
    "exact_parameters",
    "neighbours",
    "solve_rational",
]

Dataset = tuple[int, ...]
"""A dataset as a sorted tuple of profile indices (a multiset of trajectories)."""


@dataclass(frozen=True)
class TrajectoryProfile:
    """The visit set and exact first-visit returns shared by a class of trajectories.

    Attributes:
        visits: S_x, the states the trajectories visit.
        returns: F_{x,s} for every state (0 where not visited), exact.
        representative: one trajectory of the class (the first enumerated).
        multiplicity: how many enumerated trajectories share the profile.
    """

    visits: frozenset[int]
    returns: tuple[Fraction, ...]
    representative: Trajectory
    multiplicity: int


@dataclass(frozen=True, eq=False)
class TrajectoryUniverse:
    """Every trajectory of a finite domain up to a horizon cap, grouped into profiles.

    Attributes:
        n_states: the number S of states.
        gamma: the discount, exact.
        profiles: the distinct profiles, in enumeration order.
        n_trajectories: the number of enumerated trajectories (before grouping).
        description: the domain in words (for evidence).
    """

    n_states: int
    gamma: Fraction
    profiles: tuple[TrajectoryProfile, ...]
    n_trajectories: int
    description: str

    def __len__(self) -> int:
        return len(self.profiles)

    @cached_property
    def returns_array(self) -> np.ndarray:
        """F_{x,s} as a float64 array of shape (U, S) (for vectorised pre-screens only)."""
        return np.array([[float(r) for r in p.returns] for p in self.profiles], dtype=np.float64)

    @cached_property
    def visits_array(self) -> np.ndarray:
        """The indicator of s ∈ S_x as an int64 array of shape (U, S)."""
        table = np.zeros((len(self.profiles), self.n_states), dtype=np.int64)
        for i, profile in enumerate(self.profiles):
            table[i, sorted(profile.visits)] = 1
        return table

    def trajectories(self, dataset: Sequence[int]) -> tuple[Trajectory, ...]:
        """The representative trajectories of a dataset given by profile indices."""
        return tuple(self.profiles[i].representative for i in dataset)


def chain_universe(n_states: int, p: Any, gamma: Any, horizon: int) -> TrajectoryUniverse:
    """Enumerate every chain trajectory with at most ``horizon`` triples from every start state.

    Args:
        n_states: N, the chain's states including the absorbing goal (N - 1 non-absorbing).
        p: staying probability (rational, in [0, 1)).
        gamma: discount (rational, in [0, 1)).
        horizon: the cap L on the number of triples; trajectories cut at L are kept.

    Returns:
        The universe, profiles in enumeration order (start state, then depth-first).

    References:
        Balle et al. 2016, Sec. 6 (the chain domain).
    """
    chain = Chain(n_states=n_states, p=p, gamma=gamma)
    return _chain_universe(chain.n_states, chain.p, chain.gamma, check_integer("horizon", horizon, low=1))


@lru_cache(maxsize=16)
def _chain_universe(n_states: int, p: Fraction, gamma: Fraction, cap: int) -> TrajectoryUniverse:
    """:func:`chain_universe` on checked arguments, kept per process (a spec's validation counts
    the pairs of the same universe that its checker then sweeps)."""
    chain = Chain(n_states=n_states, p=p, gamma=gamma)
    groups: dict[tuple[frozenset[int], tuple[Fraction, ...]], list[Trajectory]] = {}
    total = 0
    for start in range(chain.n_states):
        for trajectory, _ in chain.enumerate_trajectories(start, cap):
            returns = tuple(first_visit_returns(trajectory, chain.gamma, chain.n_states))
            groups.setdefault((frozenset(trajectory.states), returns), []).append(trajectory)
            total += 1
    profiles = tuple(
        TrajectoryProfile(visits, returns, members[0], len(members)) for (visits, returns), members in groups.items()
    )
    description = (
        f"chain N={chain.n_states} ({chain.n_states - 1} non-absorbing), p={chain.p}, gamma={chain.gamma}, "
        f"horizon cap {cap}: {total} trajectories in {len(profiles)} profiles"
    )
    return TrajectoryUniverse(chain.n_states, chain.gamma, profiles, total, description)


@dataclass(frozen=True, eq=False)
class DatasetIndex:
    """All datasets (multisets of profiles) of sizes 1..m_max, ranked in colex order per size.

    A sorted multiset a_1 <= ... <= a_m maps to the strictly increasing b_i = a_i + i - 1,
    whose colex rank Σ_i C(b_i, i) (1-based i) is the dataset's rank among size-m datasets.

    Attributes:
        n_profiles: U, the universe size.
        m_max: the largest dataset size.
    """

    n_profiles: int
    m_max: int
    _binomials: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_integer("n_profiles", self.n_profiles, low=1)
        check_integer("m_max", self.m_max, low=1)
        top = self.n_profiles + self.m_max + 1
        table = np.array([[comb(n, k) for k in range(self.m_max + 2)] for n in range(top)], dtype=np.int64)
        object.__setattr__(self, "_binomials", table)

    def count(self, m: int) -> int:
        """The number of datasets of size m: C(U + m - 1, m)."""
        return comb(self.n_profiles + m - 1, m)

    @property
    def total(self) -> int:
        """The number of datasets of every size 1..m_max."""
        return sum(self.count(m) for m in range(1, self.m_max + 1))

    def offset(self, m: int) -> int:
        """The global index of the first dataset of size m."""
        return sum(self.count(k) for k in range(1, m))

    def datasets(self, m: int) -> np.ndarray:
        """All size-m datasets as an int64 array (count(m), m) of sorted rows, in rank order."""
        rows = np.zeros((1, 0), dtype=np.int64)
        for k in range(1, m + 1):
            # Size k in colex order: by largest element L, then the size-(k - 1) datasets within 0..L, which
            # are the first C(L + k - 1, k - 1) of the previous size's colex order.
            prefixes = self._binomials[np.arange(k - 1, self.n_profiles + k - 1), k - 1]
            largest = np.repeat(np.arange(self.n_profiles, dtype=np.int64), prefixes)
            starts = np.repeat(np.cumsum(prefixes) - prefixes, prefixes)
            rows = np.concatenate([rows[np.arange(largest.size) - starts], largest[:, None]], axis=1)
        return rows

    def rank(self, rows: np.ndarray) -> np.ndarray:
        """The colex rank of each sorted row among datasets of its size (vectorised)."""
        m = rows.shape[-1]
        shifted = rows + np.arange(m, dtype=np.int64)
        ranks = np.zeros(rows.shape[:-1], dtype=np.int64)
        for i in range(m):
            ranks += self._binomials[shifted[..., i], i + 1]
        return ranks

    def global_index(self, rows: np.ndarray) -> np.ndarray:
        """The index of each sorted row among all datasets of sizes 1..m_max."""
        return self.offset(rows.shape[-1]) + self.rank(rows)


def neighbours(dataset: Sequence[int], relation: str, n_profiles: int, m_max: int) -> Iterator[Dataset]:
    """Yield every neighbour of a dataset inside the domain of sizes 1..m_max (each once).

    ``replace_one``: replace one element by a different profile. ``add_remove_one``: add any
    profile (if the size stays <= m_max) or remove one element (if one remains).
    """
    items = tuple(sorted(dataset))
    distinct = sorted(set(items))
    seen: set[Dataset] = set()
    if relation == REPLACE_ONE:
        for removed in distinct:
            rest = list(items)
            rest.remove(removed)
            for added in range(n_profiles):
                if added != removed:
                    candidate = tuple(sorted([*rest, added]))
                    if candidate not in seen:
                        seen.add(candidate)
                        yield candidate
    elif relation == ADD_REMOVE_ONE:
        if len(items) < m_max:
            for added in range(n_profiles):
                yield tuple(sorted((*items, added)))
        if len(items) > 1:
            for removed in distinct:
                rest = list(items)
                rest.remove(removed)
                yield tuple(rest)
    else:
        raise InvalidArgument(f"relation={relation!r}: expected {REPLACE_ONE!r} or {ADD_REMOVE_ONE!r}")


def _fraction_matrix(name: str, value: Any) -> tuple[tuple[Fraction, ...], ...]:
    rows = tuple(tuple(value_row) for value_row in value)
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise InvalidArgument(f"{name}: expected a non-empty rectangular matrix")
    return tuple(tuple(check_rational(f"{name}[{i}][{j}]", v) for j, v in enumerate(r)) for i, r in enumerate(rows))


def _fraction_vector(name: str, value: Any, length: int, **bounds: Any) -> tuple[Fraction, ...]:
    items = tuple(value)
    if len(items) != length:
        raise InvalidArgument(f"{name}: expected {length} entries, got {len(items)}")
    return tuple(check_rational(f"{name}[{i}]", v, **bounds) for i, v in enumerate(items))


@dataclass(frozen=True)
class LSWProblem:
    """The public inputs of LSW as exact rationals (Balle et al. 2016, Sec. 3.1, Alg. 1).

    Attributes:
        features: Φ, S × d, full column rank.
        weights: w_s > 0 (Γ = diag(w)).
        r_max: R_max > 0.
        gamma: the discount in [0, 1).
    """

    features: tuple[tuple[Fraction, ...], ...]
    weights: tuple[Fraction, ...]
    r_max: Fraction
    gamma: Fraction

    def __post_init__(self) -> None:
        features = _fraction_matrix("features", self.features)
        object.__setattr__(self, "features", features)
        object.__setattr__(
            self, "weights", _fraction_vector("weights", self.weights, len(features), low=0.0, low_open=True)
        )
        object.__setattr__(self, "r_max", check_rational("r_max", self.r_max, low=0.0, low_open=True))
        object.__setattr__(self, "gamma", check_rational("gamma", self.gamma, low=0.0, high=1.0, high_open=True))

    @property
    def dimension(self) -> int:
        """d, the number of features."""
        return len(self.features[0])

    @cached_property
    def normal_matrix(self) -> tuple[tuple[Fraction, ...], ...]:
        """Φᵀ Γ Φ (d × d), exact."""
        return _gram(self.features, self.weights)

    @cached_property
    def solution_operator(self) -> tuple[tuple[Fraction, ...], ...]:
        """A = (Φᵀ Γ Φ)⁻¹ Φᵀ Γ (d × S), so that θ^w_X = A F_X (eq. (8)).

        Raises:
            NumericalError: when Φᵀ Γ Φ is singular (Φ not of full column rank).
        """
        d, n = self.dimension, len(self.features)
        columns = []
        for s in range(n):
            rhs = tuple(self.features[s][j] * self.weights[s] for j in range(d))
            columns.append(solve_rational(self.normal_matrix, rhs))
        return tuple(tuple(columns[s][j] for s in range(n)) for j in range(d))


@dataclass(frozen=True)
class LSLProblem:
    """The public inputs of LSL as exact rationals (Balle et al. 2016, Sec. 3.2, Alg. 2).

    Attributes:
        features: Φ, S × d.
        rho: regression weights ρ_s in [0, 1].
        lam: the ridge parameter λ > 0.
        r_max: R_max > 0.
        gamma: the discount in [0, 1).
    """

    features: tuple[tuple[Fraction, ...], ...]
    rho: tuple[Fraction, ...]
    lam: Fraction
    r_max: Fraction
    gamma: Fraction

    def __post_init__(self) -> None:
        features = _fraction_matrix("features", self.features)
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "rho", _fraction_vector("rho", self.rho, len(features), low=0.0, high=1.0))
        object.__setattr__(self, "lam", check_rational("lam", self.lam, low=0.0, low_open=True))
        object.__setattr__(self, "r_max", check_rational("r_max", self.r_max, low=0.0, low_open=True))
        object.__setattr__(self, "gamma", check_rational("gamma", self.gamma, low=0.0, high=1.0, high_open=True))

    @property
    def dimension(self) -> int:
        """d, the number of features."""
        return len(self.features[0])


def _gram(features: tuple[tuple[Fraction, ...], ...], diagonal: Sequence[Fraction]) -> tuple[tuple[Fraction, ...], ...]:
    """Φᵀ diag Φ exactly; the terms with a zero feature are 0 and left out (tabular Φ: all but one)."""
    d = len(features[0])
    return tuple(
        tuple(
            sum(
                (
                    features[s][i] * diagonal[s] * features[s][j]
                    for s in range(len(features))
                    if features[s][i] and features[s][j]
                ),
                Fraction(0),
            )
            for j in range(d)
        )
        for i in range(d)
    )


def solve_rational(matrix: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Solve A x = b exactly by Gaussian elimination over the rationals.

    Raises:
        NumericalError: when A is singular.
    """
    n = len(rhs)
    rows = [[Fraction(v) for v in matrix[i]] + [Fraction(rhs[i])] for i in range(n)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r][col] != 0), None)
        if pivot is None:
            raise NumericalError(f"solve_rational: the {n}x{n} matrix is singular (no pivot in column {col})")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / head[col]
            if factor:
                rows[r] = [a - factor * b for a, b in zip(rows[r], head, strict=False)]
    solution = [Fraction(0)] * n
    for i in range(n - 1, -1, -1):
        total = rows[i][n] - sum((rows[i][j] * solution[j] for j in range(i + 1, n)), Fraction(0))
        solution[i] = total / rows[i][i]
    return tuple(solution)


def exact_first_visit_statistics(
    universe: TrajectoryUniverse, dataset: Sequence[int]
) -> tuple[tuple[int, ...], tuple[Fraction, ...]]:
    """Return the signature ⟨X⟩ and F_X of a dataset of profile indices, exactly.

    References:
        Balle et al. 2016, eq. (4) (F_X, 0 at unvisited states) and Sec. 4.1 (⟨X⟩).
    """
    if not dataset:
        raise InvalidArgument("dataset: expected at least one trajectory")
    counts = [0] * universe.n_states
    sums = [Fraction(0)] * universe.n_states
    for i in dataset:
        profile = universe.profiles[i]
        for s in profile.visits:
            counts[s] += 1
            sums[s] += profile.returns[s]
    return tuple(counts), tuple(total / c if c else Fraction(0) for total, c in zip(sums, counts, strict=False))


def exact_lsw_parameters(problem: LSWProblem, average_returns: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """θ^w_X = (Φᵀ Γ Φ)⁻¹ Φᵀ Γ F_X in exact arithmetic (Balle et al. 2016, eq. (8))."""
    operator = problem.solution_operator
    return tuple(sum((a * f for a, f in zip(row, average_returns, strict=False)), Fraction(0)) for row in operator)


def exact_lsl_parameters(
    problem: LSLProblem, m: int, signature: Sequence[int], average_returns: Sequence[Fraction]
) -> tuple[Fraction, ...]:
    """θ^λ_X = (Φᵀ Γ_X Φ + λ/(2m) I)⁻¹ Φᵀ Γ_X F_X exactly, for |X| = m (Balle et al. 2016, eq. (11)).

    Γ_X = diag(ρ_s |X_s| / m), so Φᵀ Γ_X F_X = Σ_s φ_s ρ_s |X_s| F_X(s) / m.
    """
    frequencies = [rho * c / m for rho, c in zip(problem.rho, signature, strict=False)]
    matrix = [list(row) for row in _gram(problem.features, frequencies)]
    for i in range(problem.dimension):
        matrix[i][i] += problem.lam / (2 * m)
    rhs = tuple(
        sum(
            (
                problem.features[s][j] * frequencies[s] * average_returns[s]
                for s in range(len(frequencies))
                if problem.features[s][j]
            ),
            Fraction(0),
        )
        for j in range(problem.dimension)
    )
    return solve_rational(matrix, rhs)


def exact_parameters(
    problem: LSWProblem | LSLProblem, universe: TrajectoryUniverse, dataset: Sequence[int]
) -> tuple[Fraction, ...]:
    """θ_X of LSW (eq. (8)) or LSL (eq. (11)) for a dataset of profile indices, exactly."""
    signature, average = exact_first_visit_statistics(universe, dataset)
    if isinstance(problem, LSWProblem):
        return exact_lsw_parameters(problem, average)
    return exact_lsl_parameters(problem, len(dataset), signature, average)


@dataclass(frozen=True)
class LocalSensitivity:
    """LS(X)² = max over neighbours X' of ‖θ_X − θ_X'‖₂², with a maximising neighbour."""

    squared: Fraction
    neighbour: Dataset | None
    neighbours_checked: int


def exact_local_sensitivity(
    problem: LSWProblem | LSLProblem,
    universe: TrajectoryUniverse,
    dataset: Sequence[int],
    relation: str,
    m_max: int,
) -> LocalSensitivity:
    """The exact squared local sensitivity of θ at X over its neighbours in sizes 1..m_max.

    References:
        Balle et al. 2016, Sec. 2.1 (LS_p(f, X) = sup_{X' ≃ X} ‖f(X) − f(X')‖_p).
    """
    base = exact_parameters(problem, universe, dataset)
    best, arg, count = Fraction(0), None, 0
    for other in neighbours(dataset, relation, len(universe), m_max):
        theta = exact_parameters(problem, universe, other)
        value = sum(((a - b) ** 2 for a, b in zip(base, theta, strict=False)), Fraction(0))
        count += 1
        if arg is None or value > best:
            best, arg = value, other
    return LocalSensitivity(best, arg, count)
