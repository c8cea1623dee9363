"""Exact LSW and LSL estimators on datasets of a trajectory universe, in rational arithmetic.

No floating point anywhere:

* LSW: Φᵀ Γ Φ θ = Φᵀ Γ F_X with Γ = diag(w) (Balle et al. 2016, eq. (7)–(8));
* LSL: (Φᵀ Γ_X Φ + λ/(2m) I) θ = Φᵀ Γ_X F_X with Γ_X = diag(ρ_s |X_s| / m) (eq. (10)–(11));
* the local sensitivity LS(X)² = max over neighbours of ‖θ_X − θ_X'‖₂² (Sec. 2.1).

References:
    Balle, Gomrokchi, Precup 2016, Sec. 2.1, Sec. 2.2 (eq. (3)–(5)), Sec. 3 (eq. (6)–(11)).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from dpaudit._validation import check_rational
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import Dataset, TrajectoryUniverse, neighbours

__all__ = [
    "LSLProblem",
    "LSWProblem",
    "LocalSensitivity",
    "exact_first_visit_statistics",
    "exact_local_sensitivity",
    "exact_lsl_parameters",
    "exact_lsw_parameters",
    "exact_parameters",
    "solve_rational",
]


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
