"""First-visit Monte Carlo policy evaluation of Balle et al. 2016: LSW, LSL, DP-LSW and DP-LSL.

* :class:`LSW` minimises J_X^w(θ) = Σ_s w_s (F_{X,s} − φ_s^T θ)² (eq. (6)) with fixed
  weights w_s > 0; θ_X^w solves Φ^T Γ Φ θ = Φ^T Γ F_X (eq. (7)), Γ = diag(w), so
  θ_X^w = (Φ^T Γ Φ)^{-1} Φ^T Γ F_X (eq. (8)).
* :class:`LSL` minimises J_X^λ(θ) = J_X(θ) + λ/(2m) ‖θ‖² (eq. (10)) with
  J_X(θ) = (1/m) Σ_i Σ_{s ∈ S_{x_i}} ρ_s (F_{x_i,s} − φ_s^T θ)² (eq. (3)); its solution is
  θ_X^λ = (Φ^T Γ_X Φ + λ/(2m) I)^{-1} Φ^T Γ_X F_X (eq. (11)), Γ_X = diag(ρ_s |X_s| / m).
* :class:`DPLSW` (Algorithm 1) and :class:`DPLSL` (Algorithm 2) release θ_X + N(0, σ_X² I)
  with σ_X from :mod:`dpaudit.mechanisms.policy_evaluation_bounds` and the Lemma 1
  constants (α, β) of a named constant set of :mod:`dpaudit.mechanisms.smooth_gaussian`.

A dataset is a tuple of :class:`~dpaudit.rl.trajectory.Trajectory` or a
:class:`~dpaudit.rl.trajectory.TrajectoryBatch`. Everything the mechanisms compute from it
goes through :class:`FirstVisitStatistics` (signature ⟨X⟩, F_X, m), so the white-box
verifier can call ``*_from_statistics`` on statistics it builds itself.

Features are given as ``"tabular"``, ``"aggregation:<g>"`` (groups of g adjacent states,
Sec. 6 uses g = 2) or an explicit S × d matrix.

References:
    Balle, Gomrokchi & Precup, *Differentially Private Policy Evaluation*, ICML 2016,
    Sec. 2.2 (eqs. (3)-(5)), Sec. 3 (eqs. (6)-(12), Algorithms 1 and 2), Sec. 4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import check_choice, check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.mechanisms import policy_evaluation_bounds as bounds
from dpaudit.mechanisms.registry import register_mechanism
from dpaudit.mechanisms.smooth_gaussian import SmoothGaussianConstants, smooth_gaussian_constants
from dpaudit.privacy.relations import Relation
from dpaudit.rl.features import aggregated_features, tabular_features
from dpaudit.rl.first_visit import first_visit_return_matrix
from dpaudit.rl.trajectory import Trajectory, TrajectoryBatch
from dpaudit.rng import normalize_rng

__all__ = [
    "DPLSL",
    "DPLSW",
    "LSL",
    "LSW",
    "DpLslIntermediates",
    "DpLswIntermediates",
    "FirstVisitStatistics",
    "feature_matrix",
    "first_visit_statistics",
]


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


@dataclass(frozen=True, eq=False)
class FirstVisitStatistics:
    """What LSW/LSL and their DP versions use from a dataset X of m trajectories.

    Attributes:
        signature: ⟨X⟩, the counts |X_s| of trajectories visiting s (int64, shape (S,)).
        average_returns: F_X (eq. (4)), 0 at unvisited states (float64, shape (S,)).
        squared_returns: Σ_{x ∈ X_s} F_{x,s}² per state (for J_X, eq. (3)).
        m: the number of trajectories.
        max_return: the largest first-visit return F_{x,s} in X (for checking F_max).
    """

    signature: np.ndarray
    average_returns: np.ndarray
    squared_returns: np.ndarray
    m: int
    max_return: float

    @classmethod
    def from_arrays(
        cls,
        signature: Any,
        average_returns: Any,
        m: int,
        *,
        squared_returns: Any = None,
        max_return: float | None = None,
    ) -> FirstVisitStatistics:
        """Build statistics directly (e.g. from an enumerated signature), checking shapes and ranges.

        Raises:
            InvalidArgument: for negative or > m counts, mismatched shapes or non-finite returns.
        """
        m = check_integer("m", m, low=1)
        counts = np.asarray(signature)
        if counts.ndim != 1 or not np.issubdtype(counts.dtype, np.integer):
            raise InvalidArgument(f"signature: expected a 1-d integer array, got {counts!r:.80}")
        if ((counts < 0) | (counts > m)).any():
            position = int(np.argmax((counts < 0) | (counts > m)))
            raise InvalidArgument(f"signature[{position}]={int(counts[position])}: expected a count in [0, m={m}]")
        returns = check_finite_array("average_returns", average_returns, shape=(counts.size,))
        squares = (
            counts * returns**2
            if squared_returns is None
            else check_finite_array("squared_returns", squared_returns, shape=(counts.size,), nonnegative=True)
        )
        largest = float(returns.max(initial=0.0)) if max_return is None else check_real("max_return", max_return)
        return cls(counts.astype(np.int64), returns, squares, m, largest)


def _batch(data: Any, n_states: int) -> TrajectoryBatch:
    if isinstance(data, TrajectoryBatch):
        if data.n_states != n_states:
            raise InvalidArgument(f"data: a batch over {data.n_states} states, expected n_states={n_states}")
        return data
    if isinstance(data, Trajectory) or not isinstance(data, Sequence):
        raise InvalidType(f"data={data!r:.80}: expected a tuple of Trajectory or a TrajectoryBatch")
    return TrajectoryBatch.from_trajectories(data, n_states)


def first_visit_statistics(
    data: Any, *, n_states: int, gamma: float, r_max: float | None = None
) -> FirstVisitStatistics:
    """Compute ⟨X⟩, F_X and Σ F² per state from a dataset, checking rewards lie in [0, R_max].

    Args:
        data: a tuple of trajectories or a TrajectoryBatch over ``n_states`` states.
        gamma: the discount γ in [0, 1).
        r_max: the reward bound R_max; when given, every reward must be in [0, R_max].

    Raises:
        InvalidArgument: for an empty dataset, states out of range, or a reward outside
            [0, R_max] (naming the reward and the bound).

    References:
        Balle et al. 2016, Sec. 2.2 (0 <= r <= R_max; F_{x,s}; eq. (4); Γ_X).
    """
    n_states = check_integer("n_states", n_states, low=1)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    batch = _batch(data, n_states)
    rewards = batch.rewards
    if r_max is not None:
        bad = (rewards < 0) | (rewards > r_max)
        if bad.any():
            position = int(np.argmax(bad))
            raise InvalidArgument(
                f"rewards: a reward {rewards[position]!r} lies outside [0, R_max={r_max!r}]; "
                "the mechanisms' privacy proof needs 0 <= r <= R_max (Balle et al. 2016, Sec. 2.2)"
            )
    returns, visited = first_visit_return_matrix(batch, gamma, n_states)
    counts = visited.sum(axis=0).astype(np.int64)
    average = returns.sum(axis=0) / np.maximum(counts, 1)
    squares = (returns**2).sum(axis=0)
    return FirstVisitStatistics(counts, average, squares, batch.n_trajectories, float(returns.max(initial=0.0)))


@dataclass(frozen=True)
class LSW:
    """Least squares with fixed state weights w: θ_X^w of eqs. (6)-(8).

    Attributes:
        n_states: S.
        features: see :func:`feature_matrix`.
        gamma: discount γ in [0, 1) (for the first-visit returns).
        weights: w_s > 0 per state (a scalar or None means constant weights; θ_X^w does not
            depend on the scale of w).

    Raises:
        InvalidArgument: for d > S, a weight <= 0, or Φ^T Γ Φ singular (rank-deficient Φ).

    References:
        Balle et al. 2016, Sec. 3.1, eqs. (6), (7), (8).
    """

    n_states: int
    features: Any = "tabular"
    gamma: float = 0.99
    weights: Any = None
    phi: np.ndarray = field(init=False, repr=False, compare=False)
    w: np.ndarray = field(init=False, repr=False, compare=False)
    gram: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n_states = check_integer("n_states", self.n_states, low=1)
        object.__setattr__(self, "n_states", n_states)
        object.__setattr__(self, "gamma", check_real("gamma", self.gamma, low=0.0, high=1.0, high_open=True))
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

    @property
    def d(self) -> int:
        """The number of features d."""
        return int(self.phi.shape[1])

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
class LSL:
    """Ridge-regularised first-visit least squares: θ_X^λ of eqs. (10)-(11).

    Attributes:
        n_states: S.
        features: see :func:`feature_matrix`.
        gamma: discount γ in [0, 1).
        lam: λ > 0.
        rho: regression weights ρ_s in [0, 1] (None means all ones).

    References:
        Balle et al. 2016, eq. (3) and Sec. 3.2, eqs. (10), (11).
    """

    n_states: int
    features: Any = "tabular"
    gamma: float = 0.99
    lam: float = 1.0
    rho: Any = None
    phi: np.ndarray = field(init=False, repr=False, compare=False)
    weights: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n_states = check_integer("n_states", self.n_states, low=1)
        object.__setattr__(self, "n_states", n_states)
        object.__setattr__(self, "gamma", check_real("gamma", self.gamma, low=0.0, high=1.0, high_open=True))
        object.__setattr__(self, "lam", check_real("lam", self.lam, low=0.0, low_open=True))
        object.__setattr__(self, "phi", feature_matrix(self.features, n_states))
        object.__setattr__(
            self, "weights", _state_weights("rho", self.rho, n_states, positive=False, at_most_one=True)
        )

    @property
    def d(self) -> int:
        """The number of features d."""
        return int(self.phi.shape[1])

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


@dataclass(frozen=True, eq=False)
class DpLswIntermediates:
    """Every quantity DP-LSW (Algorithm 1) computes on one dataset, for reports and verifiers.

    Attributes:
        theta: θ_X^w (eq. (8)).
        sigma: σ_X.
        signature: ⟨X⟩; m: the number of trajectories.
        phi_profile: φ_X^w(k) for k = 0..K_X (eq. (9)).
        k_max: K_X = max_s |X_s|; k_argmax: the first k attaining ψ_X^w.
        psi: ψ_X^w = max_k e^{−kβ} φ_X^w(k).
        alpha, beta: the Lemma 1 constants of ``constant_set``.
        return_bound: R_max/(1−γ), or F_max when given.
        pinv_norm: ‖(Γ^{1/2} Φ)^†‖ (spectral norm).
        sensitivity_bound: the Corollary 3 / eq. (13) bound on ‖θ_X^w − θ_{X'}^w‖_2,
            return_bound · ‖(Γ^{1/2} Φ)^†‖ · √φ_X^w(0).
    """

    theta: np.ndarray
    sigma: float
    signature: np.ndarray
    m: int
    phi_profile: np.ndarray
    k_max: int
    k_argmax: int
    psi: float
    alpha: float
    beta: float
    epsilon: float
    delta: float
    d: int
    constant_set: str
    return_bound: float
    pinv_norm: float
    sensitivity_bound: float


@dataclass(frozen=True, eq=False)
class DpLslIntermediates:
    """Every quantity DP-LSL (Algorithm 2) computes on one dataset, for reports and verifiers.

    Attributes:
        theta: θ_X^λ (eq. (11)).
        sigma: σ_X.
        signature: ⟨X⟩; m: the number of trajectories.
        phi_profile: φ_X^λ(k) for k = 0..m (eq. (12), or Cor. 8 / Lemma 9 with saturation "max").
        k_argmax: the first k attaining ψ_X^λ.
        psi: ψ_X^λ = max_{0 <= k <= m} e^{−kβ} φ_X^λ(k).
        alpha, beta: the Lemma 1 constants of ``constant_set``.
        return_bound: R_max/(1−γ), or F_max when given.
        phi_norm: ‖Φ‖; rho_inf: ‖ρ‖_∞; rho_norm: ‖ρ‖_2; lam: λ.
        c_lambda: ‖Φ‖ ‖ρ‖_∞ / √(2λ).
        sensitivity_bound: the Corollary 8 bound on ‖θ_X^λ − θ_{X'}^λ‖_2,
            2 · return_bound · ‖Φ‖ / (λ − ‖Φ‖²‖ρ‖_∞) · √φ_X^λ(0).
        saturation: "min" (eq. (12)) or "max" (Corollary 8 / Lemma 9 as printed).
    """

    theta: np.ndarray
    sigma: float
    signature: np.ndarray
    m: int
    phi_profile: np.ndarray
    k_argmax: int
    psi: float
    alpha: float
    beta: float
    epsilon: float
    delta: float
    d: int
    constant_set: str
    return_bound: float
    phi_norm: float
    rho_inf: float
    rho_norm: float
    c_lambda: float
    lam: float
    sensitivity_bound: float
    saturation: str


def _privacy_parameters(epsilon: Any, delta: Any) -> tuple[float, float]:
    epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
    delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    return epsilon, delta


def _lemma1(constant_set: str, epsilon: float, delta: float, d: int) -> SmoothGaussianConstants:
    constants = smooth_gaussian_constants(constant_set, epsilon, delta, d)
    if not constants.preconditions_met:
        raise InvalidArgument(
            f"constant_set={constant_set!r}: preconditions {list(constants.preconditions)} fail at "
            f"epsilon={epsilon!r}, delta={delta!r}, d={d} (beta={constants.beta!r})"
        )
    if not (math.isfinite(constants.alpha) and constants.alpha > 0 and constants.beta > 0):
        raise InvalidArgument(
            f"epsilon={epsilon!r}, delta={delta!r}: the Lemma 1 constants alpha={constants.alpha!r}, "
            f"beta={constants.beta!r} are not finite and positive; expected a larger epsilon or delta"
        )
    return constants


def _gaussian_release(theta: np.ndarray, sigma: float, rng: Any, size: int | None) -> np.ndarray:
    generator = normalize_rng(rng)
    if size is None:
        return theta + sigma * generator.standard_normal(theta.shape)
    count = check_integer("size", size, low=1)
    return theta + sigma * generator.standard_normal((count, *theta.shape))


def _check_return_bound(statistics: FirstVisitStatistics, f_max: float | None) -> None:
    if f_max is not None and statistics.max_return > f_max:
        raise InvalidArgument(
            f"data: a first-visit return {statistics.max_return!r} exceeds f_max={f_max!r}; "
            "F_max must bound every return (Balle et al. 2016, Sec. 3.1)"
        )


class _SmoothSensitivityRelease:
    """What DP-LSW and DP-LSL share: Lemma 1's constants, input checks, and the release
    θ_X + N(0, σ_X² I_d) from the subclass's ``intermediates_from_statistics``."""

    def _check_public_bounds(self) -> None:
        """Validate and normalise ε, δ, R_max and the optional F_max (shared by both algorithms)."""
        epsilon, delta = _privacy_parameters(self.epsilon, self.delta)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "r_max", check_real("r_max", self.r_max, low=0.0, low_open=True))
        if self.f_max is not None:
            object.__setattr__(self, "f_max", check_real("f_max", self.f_max, low=0.0, low_open=True))

    @property
    def alpha(self) -> float:
        """α of the constant set (Lemma 1 condition (a))."""
        return self.constants.alpha

    @property
    def beta(self) -> float:
        """β of the constant set (Lemma 1 condition (b))."""
        return self.constants.beta

    def statistics(self, data: Any) -> FirstVisitStatistics:
        """Return the first-visit statistics of ``data``, checking rewards in [0, R_max] (and returns <= F_max)."""
        statistics = first_visit_statistics(data, n_states=self.n_states, gamma=self.gamma, r_max=self.r_max)
        _check_return_bound(statistics, self.f_max)
        return statistics

    def intermediates(self, data: Any) -> Any:
        """Return every quantity of the algorithm on a dataset."""
        return self.intermediates_from_statistics(self.statistics(data))

    def gaussian_view(self, data: Any) -> tuple[np.ndarray, float]:
        """White-box view: (θ_X, σ_X), the mean and the noise standard deviation of the release."""
        record = self.intermediates(data)
        return record.theta, record.sigma

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Return θ_X + N(0, σ_X² I_d); with ``size``, ``size`` independent releases as rows."""
        theta, sigma = self.gaussian_view(data)
        return _gaussian_release(theta, sigma, rng, size)

    def audit_pairs(self, relation: Relation) -> list[tuple[Any, Any, str]]:
        """Worst-case neighbouring datasets for black-box audits, from a white-box search on a small chain.

        Args:
            relation: ``replace_one`` or ``add_remove_one``.

        Returns:
            ``(X, X', label)`` tuples (datasets as tuples of trajectories), the least private first:
            see :func:`dpaudit.checks.worst_pairs.policy_evaluation_worst_pairs`.

        Raises:
            InvalidArgument: for another relation.
        """
        from dpaudit.checks.worst_pairs import policy_evaluation_worst_pairs

        return [pair.as_tuple() for pair in policy_evaluation_worst_pairs(self, relation)]


@register_mechanism(
    "dp_lsw", description="Balle et al. 2016 Algorithm 1: LSW + Gaussian noise with smooth sensitivity"
)
@dataclass(frozen=True)
class DPLSW(_SmoothSensitivityRelease):
    """DP-LSW: θ_X^w + N(0, σ_X² I) with σ_X from a β-smooth bound of eq. (9) (Algorithm 1).

    Attributes:
        n_states: S.
        features: see :func:`feature_matrix`.
        gamma: discount γ in [0, 1).
        r_max: reward bound R_max > 0 (rewards outside [0, R_max] are rejected).
        epsilon: ε > 0.
        delta: δ in (0, 1).
        weights: w_s > 0 (None: all ones).
        f_max: optional public bound F_max > 0 on every first-visit return, replacing
            R_max/(1−γ) in σ_X (Sec. 3.1, after Algorithm 1).
        constant_set: the Lemma 1 constants (α, β) to use, a name known to
            :func:`dpaudit.mechanisms.smooth_gaussian.smooth_gaussian_constants`: "main_text"
            (the paper's Algorithm 1), "supplementary" (its preconditions are enforced) or "tight".

    Raises:
        InvalidArgument: for ε <= 0, δ outside (0, 1), R_max <= 0, d > S, weights <= 0,
            rank-deficient features, or an unknown constant set.

    References:
        Balle et al. 2016, Algorithm 1, eqs. (8), (9), (14); Lemma 1; Theorem 6.
    """

    n_states: int
    features: Any
    gamma: float
    r_max: float
    epsilon: float
    delta: float
    weights: Any = None
    f_max: float | None = None
    constant_set: str = "main_text"
    estimator: LSW = field(init=False, repr=False, compare=False)
    constants: SmoothGaussianConstants = field(init=False, repr=False, compare=False)
    pinv_norm: float = field(init=False, repr=False, compare=False)
    return_bound: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check_public_bounds()
        estimator = LSW(self.n_states, self.features, self.gamma, self.weights)
        object.__setattr__(self, "n_states", estimator.n_states)
        object.__setattr__(self, "gamma", estimator.gamma)
        constants = _lemma1(self.constant_set, self.epsilon, self.delta, estimator.d)
        singular_values = np.linalg.svd(np.sqrt(estimator.w)[:, None] * estimator.phi, compute_uv=False)
        object.__setattr__(self, "estimator", estimator)
        object.__setattr__(self, "constants", constants)
        object.__setattr__(self, "pinv_norm", float(1.0 / singular_values.min()))
        object.__setattr__(self, "return_bound", bounds.return_bound(self.r_max, self.gamma, self.f_max))

    def intermediates_from_statistics(self, statistics: FirstVisitStatistics) -> DpLswIntermediates:
        """Return every quantity of Algorithm 1 for given statistics (⟨X⟩, F_X, m)."""
        profile = bounds.lsw_phi_profile(statistics.signature, self.estimator.w)
        psi, k_star = bounds.smooth_maximum(profile, self.beta)
        sigma = bounds.lsw_sigma(self.alpha, self.return_bound, self.pinv_norm, psi)
        return DpLswIntermediates(
            theta=self.estimator.solve(statistics.average_returns),
            sigma=float(sigma),
            signature=statistics.signature,
            m=statistics.m,
            phi_profile=profile,
            k_max=int(profile.size - 1),
            k_argmax=k_star,
            psi=psi,
            alpha=self.alpha,
            beta=self.beta,
            epsilon=self.epsilon,
            delta=self.delta,
            d=self.estimator.d,
            constant_set=self.constant_set,
            return_bound=self.return_bound,
            pinv_norm=self.pinv_norm,
            sensitivity_bound=self.return_bound * self.pinv_norm * math.sqrt(profile[0]),
        )



@register_mechanism(
    "dp_lsl", description="Balle et al. 2016 Algorithm 2: ridge LSL + Gaussian noise with smooth sensitivity"
)
@dataclass(frozen=True)
class DPLSL(_SmoothSensitivityRelease):
    """DP-LSL: θ_X^λ + N(0, σ_X² I) with σ_X from a β-smooth bound of eq. (12) (Algorithm 2).

    Attributes:
        n_states: S.
        features: see :func:`feature_matrix`.
        gamma: discount γ in [0, 1).
        r_max: reward bound R_max > 0.
        lam: λ, which must exceed ‖Φ‖² ‖ρ‖_∞ (Algorithm 2's input condition, Corollary 8).
        epsilon: ε > 0.
        delta: δ in (0, 1).
        rho: regression weights ρ_s in [0, 1] (None: all ones).
        f_max: optional public bound F_max > 0 on every first-visit return.
        constant_set: the Lemma 1 constants (α, β), as for :class:`DPLSW`.
        saturation: ``"min"`` (eq. (12), Algorithm 2) or ``"max"`` (Corollary 8 / Lemma 9 as printed).

    Raises:
        InvalidArgument: for ε <= 0, δ outside (0, 1), R_max <= 0, d > S, ρ outside [0, 1],
            λ <= ‖Φ‖² ‖ρ‖_∞, or an unknown constant set.

    References:
        Balle et al. 2016, Algorithm 2, eqs. (11), (12); Lemma 1; Corollary 8; Lemma 9; Theorem 10.
    """

    n_states: int
    features: Any
    gamma: float
    r_max: float
    lam: float
    epsilon: float
    delta: float
    rho: Any = None
    f_max: float | None = None
    constant_set: str = "main_text"
    saturation: str = "min"
    estimator: LSL = field(init=False, repr=False, compare=False)
    constants: SmoothGaussianConstants = field(init=False, repr=False, compare=False)
    phi_norm: float = field(init=False, repr=False, compare=False)
    rho_inf: float = field(init=False, repr=False, compare=False)
    rho_norm: float = field(init=False, repr=False, compare=False)
    c_lambda: float = field(init=False, repr=False, compare=False)
    return_bound: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check_public_bounds()
        check_choice("saturation", self.saturation, bounds.SATURATIONS)
        estimator = LSL(self.n_states, self.features, self.gamma, self.lam, self.rho)
        phi_norm = float(np.linalg.norm(estimator.phi, 2))
        rho_inf = float(estimator.weights.max())
        threshold = phi_norm**2 * rho_inf
        if not estimator.lam > threshold:
            raise InvalidArgument(
                f"lam={estimator.lam!r}: DP-LSL requires lam > ||Phi||^2 ||rho||_inf = {threshold!r} "
                "(Balle et al. 2016, Algorithm 2 input and Corollary 8)"
            )
        constants = _lemma1(self.constant_set, self.epsilon, self.delta, estimator.d)
        for name, value in (
            ("n_states", estimator.n_states),
            ("gamma", estimator.gamma),
            ("lam", estimator.lam),
            ("estimator", estimator),
            ("constants", constants),
            ("phi_norm", phi_norm),
            ("rho_inf", rho_inf),
            ("rho_norm", float(np.linalg.norm(estimator.weights))),
            ("c_lambda", float(bounds.lsl_c_lambda(phi_norm, rho_inf, estimator.lam))),
            ("return_bound", bounds.return_bound(self.r_max, estimator.gamma, self.f_max)),
        ):
            object.__setattr__(self, name, value)

    def intermediates_from_statistics(self, statistics: FirstVisitStatistics) -> DpLslIntermediates:
        """Return every quantity of Algorithm 2 for given statistics (⟨X⟩, F_X, m)."""
        profile = bounds.lsl_phi_profile(
            statistics.signature, self.estimator.weights, statistics.m, self.c_lambda, saturation=self.saturation
        )
        psi, k_star = bounds.smooth_maximum(profile, self.beta)
        sigma = bounds.lsl_sigma(self.alpha, self.return_bound, self.phi_norm, self.lam, self.rho_inf, psi)
        phi_zero = bounds.lsl_phi(
            statistics.signature.tolist(), self.estimator.weights.tolist(), statistics.m, self.c_lambda, 0
        )
        scale = 2 * self.return_bound * self.phi_norm / (self.lam - self.phi_norm**2 * self.rho_inf)
        return DpLslIntermediates(
            theta=self.estimator.solve(statistics),
            sigma=float(sigma),
            signature=statistics.signature,
            m=statistics.m,
            phi_profile=profile,
            k_argmax=k_star,
            psi=psi,
            alpha=self.alpha,
            beta=self.beta,
            epsilon=self.epsilon,
            delta=self.delta,
            d=self.estimator.d,
            constant_set=self.constant_set,
            return_bound=self.return_bound,
            phi_norm=self.phi_norm,
            rho_inf=self.rho_inf,
            rho_norm=self.rho_norm,
            c_lambda=self.c_lambda,
            lam=self.lam,
            sensitivity_bound=scale * math.sqrt(phi_zero),
            saturation=self.saturation,
        )

