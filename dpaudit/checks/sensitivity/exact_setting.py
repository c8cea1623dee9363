"""The setting the sensitivity statements share: the trajectory universe, the exact problem and its
float copies, and the exact decision of one comparison (rationals or mpmath at 60 digits)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import mpmath
import numpy as np

from dpaudit.checks.sensitivity.pair_sweep import (
    Comparison,
)
from dpaudit.mechanisms.policy_evaluation.exact_estimators import (
    LSLProblem,
    LSWProblem,
    exact_first_visit_statistics,
    exact_lsl_parameters,
    exact_lsw_parameters,
)
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import TrajectoryUniverse

__all__ = ["DIGITS"]


DIGITS = 60


_ERROR = mpmath.mpf(10) ** -45


def _mp(value: Any) -> mpmath.mpf:
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value)


def _decide(measured: Any, bound: Any) -> Comparison:
    """Exact when both sides are rational; else an mpmath decision with a 1e-45 relative error bound."""
    if isinstance(measured, (Fraction, int)) and isinstance(bound, (Fraction, int)):
        return Comparison.of(Fraction(measured), Fraction(bound))
    with mpmath.workdps(DIGITS):
        low, high = _mp(measured), _mp(bound)
        return Comparison.of(low, high, _ERROR * max(abs(low), abs(high), mpmath.mpf(1)))


def _squared_distance(a: Any, b: Any) -> Fraction:
    return sum(((x - y) ** 2 for x, y in zip(a, b, strict=False)), Fraction(0))


@dataclass(frozen=True, eq=False)
class _Setting:
    """The universe and the float copies of the exact problem used by the screens."""

    universe: TrajectoryUniverse
    problem: LSWProblem | LSLProblem

    @property
    def lsw(self) -> LSWProblem:
        """The problem, for the LSW statements (an LSL problem here is a programming error)."""
        if not isinstance(self.problem, LSWProblem):
            raise TypeError("an LSW statement was given an LSL problem")
        return self.problem

    @property
    def lsl(self) -> LSLProblem:
        """The problem, for the LSL statements."""
        if not isinstance(self.problem, LSLProblem):
            raise TypeError("an LSL statement was given an LSW problem")
        return self.problem

    @cached_property
    def features(self) -> np.ndarray:
        return np.array([[float(v) for v in row] for row in self.problem.features])

    @cached_property
    def tabular(self) -> bool:
        """Whether the features are the identity (one coordinate per state), so the LSL system is diagonal."""
        return self.features.shape[0] == self.features.shape[1] and np.array_equal(
            self.features, np.eye(self.features.shape[0])
        )

    @cached_property
    def return_bound(self) -> Fraction:
        return self.problem.r_max / (1 - self.problem.gamma)

    def exact_statistics(self, dataset: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[Fraction, ...]]:
        return exact_first_visit_statistics(self.universe, dataset)

    def exact_theta(self, dataset: tuple[int, ...]) -> tuple[Fraction, ...]:
        signature, average = self.exact_statistics(dataset)
        if isinstance(self.problem, LSWProblem):
            return exact_lsw_parameters(self.problem, average)
        return exact_lsl_parameters(self.problem, len(dataset), signature, average)

    @cached_property
    def lsw_operator(self) -> np.ndarray:
        return np.array([[float(v) for v in row] for row in self.lsw.solution_operator])

    def theta(self, block: Any) -> np.ndarray:
        """Float θ_X for every dataset of a DatasetBlock, shape (..., d) (memoised on the block)."""
        return _memoised(block, ("theta", id(self)), lambda: self._theta(block))

    def theta_distances(self, block: Any) -> np.ndarray:
        """Float ‖θ_X − θ_X'‖² for every pair of a PairBlock, shape (B, P, Q) (memoised on the block, read-only)."""
        return _memoised(
            block,
            ("theta-distances", id(self)),
            lambda: _pairwise_squared(self.theta(block.left), self.theta(block.right)),
        )

    def return_distances(self, block: Any) -> np.ndarray:
        """Float ‖F_X − F_X'‖²_{2,Γ} (LSW weights) for every pair of a PairBlock (memoised on the block, read-only)."""
        weights = np.array([float(v) for v in self.lsw.weights])
        return _memoised(
            block,
            ("return-distances", id(self)),
            lambda: _pairwise_squared(block.left.average_returns, block.right.average_returns, weights),
        )

    def _theta(self, block: Any) -> np.ndarray:
        if isinstance(self.problem, LSWProblem):
            return block.average_returns @ self.lsw_operator.T
        m = block.size
        rho = np.array([float(r) for r in self.problem.rho])
        frequencies = rho * block.counts / m
        if self.tabular:
            # Φ = I: the system is diagonal, θ_s = (ρ_s Σ_s / m) / (ρ_s n_s / m + λ / 2m) (LAPACK's bits here)
            return (rho * block.sums / m) / (frequencies + float(self.problem.lam) / (2 * m))
        matrix = np.einsum("sd,...s,se->...de", self.features, frequencies, self.features)
        matrix = matrix + float(self.problem.lam) / (2 * m) * np.eye(self.problem.dimension)
        rhs = np.einsum("sd,...s->...d", self.features, rho * block.sums / m)
        return np.linalg.solve(matrix, rhs[..., None])[..., 0]


def _memoised(block: Any, key: Any, compute: Any) -> np.ndarray:
    """``compute()`` once per block and key, kept read-only in the block's cache (shared by a sweep's statements)."""
    if key not in block.cache:
        value = compute()
        value.flags.writeable = False
        block.cache[key] = value
    return block.cache[key]


def _pairwise_squared(left: np.ndarray, right: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Σ_k w_k (left[b,p,k] − right[b,q,k])², shape (B, P, Q), from Gram matrices (BLAS)."""
    scaled = left if weights is None else left * weights
    left_norm = (scaled * left).sum(axis=-1)
    right_norm = ((right if weights is None else right * weights) * right).sum(axis=-1)
    squared = np.add(left_norm[:, :, None], right_norm[:, None, :])
    cross = np.matmul(scaled, np.swapaxes(right, -1, -2))
    cross *= 2.0
    squared -= cross
    return np.maximum(squared, 0.0, out=squared)
