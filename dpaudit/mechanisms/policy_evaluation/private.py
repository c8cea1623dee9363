"""DP-LSW and DP-LSL (Balle et al. 2016, Algorithms 1 and 2): θ_X + N(0, σ_X² I).

* :class:`DPLSW` (Algorithm 1) and :class:`DPLSL` (Algorithm 2) release θ_X + N(0, σ_X² I)
  with σ_X from :mod:`dpaudit.mechanisms.policy_evaluation.bounds` and the Lemma 1
  constants (α, β) of a named constant set of :mod:`dpaudit.mechanisms.smooth_gaussian`.

A dataset is a tuple of :class:`~dpaudit.rl.trajectory.Trajectory` or a
:class:`~dpaudit.rl.trajectory.TrajectoryBatch`. Everything the mechanisms compute from it
goes through :class:`FirstVisitStatistics` (signature ⟨X⟩, F_X, m), so the white-box
verifier can call ``*_from_statistics`` on statistics it builds itself.

Features are given as ``"tabular"``, ``"aggregation:<g>"`` (groups of g adjacent states,
Sec. 6 uses g = 2) or an explicit S × d matrix.

References:
    Balle, Gomrokchi & Precup, ICML 2016, Sec. 3 (Algorithms 1 and 2), Sec. 4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_choice,
    check_integer,
    check_real,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.inputs import (
    TRAJECTORIES,
    one_trajectory,
)
from dpaudit.mechanisms.interface import CandidateSignature, Mechanism, OutputSpec
from dpaudit.mechanisms.policy_evaluation import bounds
from dpaudit.mechanisms.policy_evaluation.estimators import LSL, LSW, feature_matrix
from dpaudit.mechanisms.policy_evaluation.extreme_datasets import explore_datasets, screened_coverage_pairs
from dpaudit.mechanisms.policy_evaluation.intermediates import (
    DpLslIntermediates,
    DpLswIntermediates,
    SmoothReleaseIntermediates,
)
from dpaudit.mechanisms.policy_evaluation.statistics import (
    FirstVisitStatistics,
    first_visit_statistics,
)
from dpaudit.mechanisms.smooth_gaussian import (
    SmoothGaussianConstants,
    smooth_gaussian_constants,
)
from dpaudit.mechanisms.views import AuditPairsView, GaussianView, StatisticsView
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rng import normalize_rng

__all__ = ["DPLSL", "DPLSW", "DP_LSL", "DP_LSW"]


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


class _SmoothSensitivityRelease(GaussianView, AuditPairsView, StatisticsView):
    """What DP-LSW and DP-LSL share: Lemma 1's constants, input checks, and the release
    θ_X + N(0, σ_X² I_d) from the subclass's ``intermediates_from_statistics``."""

    n_states: int
    gamma: float
    r_max: float
    epsilon: float
    delta: float
    f_max: float | None
    constant_set: str
    constants: SmoothGaussianConstants
    estimator: Any
    return_bound: float

    def intermediates_from_statistics(self, statistics: FirstVisitStatistics) -> SmoothReleaseIntermediates:
        """Every quantity of the algorithm from first-visit statistics (defined by each algorithm)."""
        raise NotImplementedError

    def _smoothed(
        self,
        statistics: FirstVisitStatistics,
        theta: np.ndarray,
        profile: np.ndarray,
        sigma_of_psi: Callable[[float], float],
    ) -> dict[str, Any]:
        """The fields of :class:`SmoothReleaseIntermediates`, which both algorithms' intermediates share:
        ψ_X = max_k e^{−kβ} φ_X(k) and its first argmax over the φ-profile, σ_X = ``sigma_of_psi(ψ_X)``, θ_X,
        the statistics and the public constants."""
        psi, k_star = bounds.smooth_maximum(profile, bounds.rounding_safe_beta(self.beta))
        return {
            "theta": theta,
            "sigma": float(sigma_of_psi(psi)),
            "signature": statistics.signature,
            "m": statistics.m,
            "phi_profile": profile,
            "k_argmax": k_star,
            "psi": psi,
            "alpha": self.alpha,
            "beta": self.beta,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "d": self.estimator.d,
            "constant_set": self.constant_set,
            "return_bound": self.return_bound,
        }

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

    def intermediates(self, data: Any) -> SmoothReleaseIntermediates:
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
            see :func:`dpaudit.mechanisms.policy_evaluation.worst_pairs.policy_evaluation_worst_pairs`.

        Raises:
            InvalidArgument: for another relation.
        """
        from dpaudit.mechanisms.policy_evaluation.worst_pairs import (
            policy_evaluation_worst_pairs,
        )

        return [pair.as_tuple() for pair in policy_evaluation_worst_pairs(self, relation)]


@dataclass(frozen=True)
class DPLSW(_SmoothSensitivityRelease):
    """DP-LSW: θ_X^w + N(0, σ_X² I) with σ_X from a β-smooth bound of eq. (9) (Algorithm 1).

    Attributes:
        n_states: S.
        features: ``"tabular"`` (Φ = I), ``"aggregation:<g>"`` (indicators of runs of g adjacent
            states) or an S × d matrix (:func:`feature_matrix`).
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
        shared = self._smoothed(
            statistics,
            self.estimator.solve(statistics.average_returns),
            profile,
            lambda psi: bounds.lsw_sigma(self.alpha, self.return_bound, self.pinv_norm, psi),
        )
        return DpLswIntermediates(
            **shared,
            k_max=int(profile.size - 1),
            pinv_norm=self.pinv_norm,
            sensitivity_bound=self.return_bound * self.pinv_norm * math.sqrt(profile[0]),
        )


@dataclass(frozen=True)
class DPLSL(_SmoothSensitivityRelease):
    """DP-LSL: θ_X^λ + N(0, σ_X² I) with σ_X from a β-smooth bound of eq. (12) (Algorithm 2).

    Attributes:
        n_states, features, gamma, r_max, epsilon, delta, f_max, constant_set: as for :class:`DPLSW`.
        lam: λ, which must exceed ‖Φ‖² ‖ρ‖_∞ (Algorithm 2's input condition, Corollary 8).
        rho: regression weights ρ_s in [0, 1] (None: all ones).
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
        shared = self._smoothed(
            statistics,
            self.estimator.solve(statistics),
            profile,
            lambda psi: bounds.lsl_sigma(self.alpha, self.return_bound, self.phi_norm, self.lam, self.rho_inf, psi),
        )
        phi_zero = bounds.lsl_phi(
            statistics.signature.tolist(), self.estimator.weights.tolist(), statistics.m, self.c_lambda, 0
        )
        scale = 2 * self.return_bound * self.phi_norm / (self.lam - self.phi_norm**2 * self.rho_inf)
        return DpLslIntermediates(
            **shared,
            phi_norm=self.phi_norm,
            rho_inf=self.rho_inf,
            rho_norm=self.rho_norm,
            c_lambda=self.c_lambda,
            lam=self.lam,
            sensitivity_bound=scale * math.sqrt(phi_zero),
            saturation=self.saturation,
        )


def _theta_shape(params: Any, data: Any) -> tuple[int, ...]:
    return (int(feature_matrix(params["features"], int(params["n_states"])).shape[1]),)


def _policy_evaluation(name: str, factory: type, algorithm: str, estimator: str, keywords: str) -> Mechanism:
    """The Mechanism of DP-LSW or DP-LSL: datasets of trajectories in, θ_X + noise out."""
    return Mechanism(
        name=name,
        description=f"Balle et al. 2016 {algorithm}: {estimator} + Gaussian noise with smooth sensitivity",
        factory=factory,
        input_domain=TRAJECTORIES,
        relations=(REPLACE_ONE, ADD_REMOVE_ONE),
        neighbourhood=one_trajectory(explore=explore_datasets, screen=screened_coverage_pairs),
        output=OutputSpec("theta_X + noise: a vector of the feature dimension d", _theta_shape),
        views=frozenset({GaussianView, AuditPairsView, StatisticsView}),
        candidate=CandidateSignature("dataset", f"{name}(dataset, *, {keywords}, rng) -> ndarray"),
        source=f"Balle, Gomrokchi & Precup 2016, {algorithm}",
        noise_family="gaussian_release",
    )


DP_LSW = _policy_evaluation(
    "dp_lsw",
    DPLSW,
    "Algorithm 1",
    "LSW",
    "n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None, constant_set='main_text'",
)
DP_LSL = _policy_evaluation(
    "dp_lsl",
    DPLSL,
    "Algorithm 2",
    "ridge LSL",
    "n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None, constant_set='main_text', "
    "saturation='min'",
)
