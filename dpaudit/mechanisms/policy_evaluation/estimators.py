"""The non-private estimators LSW and LSL of Balle et al. 2016, and their feature matrices.

* :class:`LSW` minimises J_X^w(θ) = Σ_s w_s (F_{X,s} − φ_s^T θ)² (eq. (6)) with fixed
  weights w_s > 0; θ_X^w solves Φ^T Γ Φ θ = Φ^T Γ F_X (eq. (7)), Γ = diag(w), so
  θ_X^w = (Φ^T Γ Φ)^{-1} Φ^T Γ F_X (eq. (8)).
* :class:`LSL` minimises J_X^λ(θ) = J_X(θ) + λ/(2m) ‖θ‖² (eq. (10)) with
  J_X(θ) = (1/m) Σ_i Σ_{s ∈ S_{x_i}} ρ_s (F_{x_i,s} − φ_s^T θ)² (eq. (3)); its solution is
  θ_X^λ = (Φ^T Γ_X Φ + λ/(2m) I)^{-1} Φ^T Γ_X F_X (eq. (11)), Γ_X = diag(ρ_s |X_s| / m).

References:
    Balle, Gomrokchi & Precup, ICML 2016, Sec. 3 (eqs. (6)-(11)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_choice,
    check_finite_array,
    check_integer,
    check_real,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.policy_evaluation.statistics import (
    FirstVisitStatistics,
    first_visit_statistics,
)
from dpaudit.rl.features import aggregated_features, tabular_features

__all__ = ["LSL", "LSW", "feature_matrix"]


def feature_matrix(features: Any, n_states: int) -> np.ndarray:
    """Return the S × d feature matrix Φ named by ``features``.

    Args:
        features: ``"tabular"`` (Φ = I), ``"aggregation:<g>"`` (indicators of runs of g
            adjacent states) or an explicit S × d matrix of finite numbers.
        n_states: S.

    Raises:
        InvalidArgument: for an unknown name, a matrix of the wrong number of rows, or
            d > S (more features than states).

    References:
        Balle et al. 2016, Sec. 2.2 (Φ ∈ R^{S×d}) and Sec. 6 (tabular; aggregated pairs).
    """
    n_states = check_integer("n_states", n_states, low=1)
    if isinstance(features, str):
        name, _, argument = features.partition(":")
        check_choice("features", name, ("tabular", "aggregation"))
        if name == "tabular":
            if argument:
                raise InvalidArgument(f"features={features!r}: 'tabular' takes no argument")
            matrix = tabular_features(n_states)
        else:
            try:
                group = int(argument)
            except ValueError as exc:
                raise InvalidArgument(f"features={features!r}: expected 'aggregation:<group size>'") from exc
            matrix = aggregated_features(n_states, check_integer("aggregation group size", group, low=1))
    else:
        matrix = check_finite_array("features", features, ndim=2)
        if matrix.shape[0] != n_states:
            raise InvalidArgument(f"features: expected {n_states} rows (one per state), got shape {matrix.shape}")
    if matrix.shape[1] > n_states:
        raise InvalidArgument(f"features: d={matrix.shape[1]} features > n_states={n_states}; expected d <= S")
    if matrix.shape[1] == 0:
        raise InvalidArgument("features: expected at least one feature (d >= 1)")
    matrix = np.array(matrix, dtype=np.float64)
    matrix.setflags(write=False)
    return matrix


def _state_weights(name: str, values: Any, n_states: int, *, positive: bool, at_most_one: bool) -> np.ndarray:
    if values is None:
        weights = np.ones(n_states)
    elif isinstance(values, (int, float, np.floating, np.integer)) and not isinstance(values, bool):
        weights = np.full(n_states, check_real(name, values))
    else:
        weights = check_finite_array(name, values, shape=(n_states,))
    low = weights <= 0 if positive else weights < 0
    if low.any():
        position = int(np.argmax(low))
        expected = "> 0" if positive else ">= 0"
        raise InvalidArgument(f"{name}[{position}]={weights[position]!r}: expected every weight {expected}")
    if at_most_one and (weights > 1).any():
        position = int(np.argmax(weights > 1))
        raise InvalidArgument(f"{name}[{position}]={weights[position]!r}: expected regression weights in [0, 1]")
    weights = np.array(weights, dtype=np.float64)
    weights.setflags(write=False)
    return weights


@dataclass(frozen=True)
class _FirstVisitLeastSquares:
    """What LSW and LSL share: S states (``n_states``), the S × d features Φ (``features``, see
    :func:`feature_matrix`) and the discount γ in [0, 1) of the first-visit returns (``gamma``)."""

    n_states: int
    features: Any = "tabular"
    gamma: float = 0.99
    phi: np.ndarray = field(init=False, repr=False, compare=False)

    def _check_states_and_discount(self) -> int:
        """Validate and normalise ``n_states`` and ``gamma``; return S."""
        n_states = check_integer("n_states", self.n_states, low=1)
        object.__setattr__(self, "n_states", n_states)
        object.__setattr__(self, "gamma", check_real("gamma", self.gamma, low=0.0, high=1.0, high_open=True))
        return n_states

    @property
    def d(self) -> int:
        """The number of features d."""
        return int(self.phi.shape[1])


@dataclass(frozen=True)
class LSW(_FirstVisitLeastSquares):
    """Least squares with fixed state weights w: θ_X^w of eqs. (6)-(8).

    Attributes:
        n_states: S.
        features: ``"tabular"`` (Φ = I), ``"aggregation:<g>"`` (indicators of runs of g adjacent
            states) or an S × d matrix (:func:`feature_matrix`).
        gamma: discount γ in [0, 1) (for the first-visit returns).
        weights: w_s > 0 per state (a scalar or None means constant weights; θ_X^w does not
            depend on the scale of w).

    Raises:
        InvalidArgument: for d > S, a weight <= 0, or Φ^T Γ Φ singular (rank-deficient Φ).

    References:
        Balle et al. 2016, Sec. 3.1, eqs. (6), (7), (8).
    """

    weights: Any = None
    w: np.ndarray = field(init=False, repr=False, compare=False)
    gram: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n_states = self._check_states_and_discount()
        phi = feature_matrix(self.features, n_states)
        w = _state_weights("weights", self.weights, n_states, positive=True, at_most_one=False)
        gram = phi.T @ (w[:, None] * phi)
        rank = int(np.linalg.matrix_rank(gram))
        if rank < phi.shape[1]:
            raise InvalidArgument(
                f"features: Phi^T Gamma Phi has rank {rank} < d={phi.shape[1]}; LSW requires it invertible "
                "(full column rank features, Balle et al. 2016, after eq. (7))"
            )
        gram.setflags(write=False)
        for name, value in (("phi", phi), ("w", w), ("gram", gram)):
            object.__setattr__(self, name, value)

    def solve(self, average_returns: Any) -> np.ndarray:
        """Return θ_X^w solving Φ^T Γ Φ θ = Φ^T Γ F_X (eq. (7)) for a given F_X.

        References:
            Balle et al. 2016, eqs. (7), (8).
        """
        returns = check_finite_array("average_returns", average_returns, shape=(self.n_states,))
        return np.linalg.solve(self.gram, self.phi.T @ (self.w * returns))

    def estimate(self, data: Any) -> np.ndarray:
        """Return θ_X^w for a dataset (eq. (8))."""
        return self.solve(first_visit_statistics(data, n_states=self.n_states, gamma=self.gamma).average_returns)

    def objective(self, theta: Any, average_returns: Any) -> float:
        """Return J_X^w(θ) = Σ_s w_s (F_{X,s} − φ_s^T θ)² (eq. (6))."""
        theta = check_finite_array("theta", theta, shape=(self.d,))
        returns = check_finite_array("average_returns", average_returns, shape=(self.n_states,))
        residual = returns - self.phi @ theta
        return float(np.sum(self.w * residual**2))


@dataclass(frozen=True)
class LSL(_FirstVisitLeastSquares):
    """Ridge-regularised first-visit least squares: θ_X^λ of eqs. (10)-(11).

    Attributes:
        n_states, features, gamma: as for :class:`LSW`.
        lam: λ > 0.
        rho: regression weights ρ_s in [0, 1] (None means all ones).

    References:
        Balle et al. 2016, eq. (3) and Sec. 3.2, eqs. (10), (11).
    """

    lam: float = 1.0
    rho: Any = None
    weights: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n_states = self._check_states_and_discount()
        object.__setattr__(self, "lam", check_real("lam", self.lam, low=0.0, low_open=True))
        object.__setattr__(self, "phi", feature_matrix(self.features, n_states))
        object.__setattr__(self, "weights", _state_weights("rho", self.rho, n_states, positive=False, at_most_one=True))

    def solve(self, statistics: FirstVisitStatistics) -> np.ndarray:
        """Return θ_X^λ = (Φ^T Γ_X Φ + λ/(2m) I)^{-1} Φ^T Γ_X F_X (eq. (11)).

        References:
            Balle et al. 2016, eq. (11); Γ_X(s, s) = ρ_s |X_s| / m (before eq. (5)).
        """
        gamma_x = self.weights * statistics.signature / statistics.m
        system = self.phi.T @ (gamma_x[:, None] * self.phi) + self.lam / (2 * statistics.m) * np.eye(self.d)
        return np.linalg.solve(system, self.phi.T @ (gamma_x * statistics.average_returns))

    def estimate(self, data: Any) -> np.ndarray:
        """Return θ_X^λ for a dataset (eq. (11))."""
        return self.solve(first_visit_statistics(data, n_states=self.n_states, gamma=self.gamma))

    def objective(self, theta: Any, statistics: FirstVisitStatistics) -> float:
        """Return J_X^λ(θ) = J_X(θ) + λ/(2m) ‖θ‖² (eqs. (3), (10)) from per-state sums.

        J_X(θ) = (1/m) Σ_s ρ_s (Σ_{x ∈ X_s} F_{x,s}² − 2 v_s |X_s| F_{X,s} + |X_s| v_s²), v = Φθ.
        """
        theta = check_finite_array("theta", theta, shape=(self.d,))
        values = self.phi @ theta
        counts = statistics.signature
        per_state = statistics.squared_returns - 2 * values * counts * statistics.average_returns + counts * values**2
        return float(np.sum(self.weights * per_state) / statistics.m + self.lam / (2 * statistics.m) * theta @ theta)
