"""The sensitivity statements of Balle et al. 2016 and Lemma 1's conditions, as screens (float64,
vectorised over blocks of neighbouring pairs) with an exact re-check (rationals, mpmath).

References:
    Balle, Gomrokchi & Precup 2016: Lemma 2, Corollary 3, eqs. (13)-(14), Corollary 8, Lemma 1 (a), (b).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import mpmath
import numpy as np

from dpaudit._validation import check_rational
from dpaudit.checks.sensitivity.exact_setting import (
    DIGITS,
    _decide,
    _mp,
    _Setting,
    _squared_distance,
)
from dpaudit.checks.sensitivity.pair_sweep import (
    Comparison,
    PairBlock,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.policy_evaluation.exact_estimators import LSLProblem, LSWProblem

__all__ = [
    "LSL_STATEMENTS",
    "LSW_STATEMENTS",
    "LslCorollary8",
    "LswCorollary3",
    "LswLemma2",
    "LswParameters",
    "SignatureDistance",
    "mechanism_problem",
]


LSW_STATEMENTS = ("signature", "lemma2", "corollary3", "lsw_parameters", "condition_a", "condition_b")


LSL_STATEMENTS = ("signature", "corollary8", "condition_a", "condition_b")


@dataclass(frozen=True, eq=False)
class SignatureDistance:
    """‖⟨X⟩ − ⟨X'⟩‖∞ <= 1 (Balle et al. 2016, Sec. 4.1, the sentence after eq. (15))."""

    setting: _Setting
    name: str = "signature"
    screen_is_exact: bool = True

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        if block.core is not None:
            # replace one: rows p and q are X° + x_p and X° + x_q, so ⟨X⟩ − ⟨X'⟩ = v(x_p) − v(x_q) for every X°
            visits = self.setting.universe.visits_array.astype(np.int64)
            table = np.abs(visits[:, None, :] - visits[None, :, :]).max(axis=-1).astype(np.float64)
            return np.broadcast_to(table, block.mask.shape), np.broadcast_to(1.0, block.mask.shape)
        left, right = block.left.counts.astype(np.int16), block.right.counts.astype(np.int16)
        gap = np.zeros(block.mask.shape, dtype=np.int16)
        for s in range(left.shape[-1]):
            np.maximum(gap, np.abs(left[:, :, None, s] - right[:, None, :, s]), out=gap)
        return gap.astype(np.float64), np.broadcast_to(1.0, gap.shape)

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        a, _ = self.setting.exact_statistics(left)
        b, _ = self.setting.exact_statistics(right)
        return Comparison.of(Fraction(max(abs(x - y) for x, y in zip(a, b, strict=False))), Fraction(1))


@dataclass(frozen=True, eq=False)
class LswCorollary3:
    """‖F_X − F_X'‖²_{2,Γ} <= (R_max/(1−γ))² Σ_s w_s / max{|X_s|, 1}² (Balle et al. 2016, Corollary 3)."""

    setting: _Setting
    name: str = "corollary3"

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        w = np.array([float(v) for v in self.setting.lsw.weights])
        measured = self.setting.return_distances(block)
        phi = (w / np.maximum(block.left.counts, 1) ** 2).sum(axis=-1)
        bound = float(self.setting.return_bound) ** 2 * phi
        return measured, np.broadcast_to(bound[:, :, None], measured.shape)

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        w = self.setting.lsw.weights
        counts, f_left = self.setting.exact_statistics(left)
        _, f_right = self.setting.exact_statistics(right)
        measured = sum((ws * (a - b) ** 2 for ws, a, b in zip(w, f_left, f_right, strict=False)), Fraction(0))
        phi = sum((ws / Fraction(max(c, 1) ** 2) for ws, c in zip(w, counts, strict=False)), Fraction(0))
        return Comparison.of(measured, self.setting.return_bound**2 * phi)


def _replaced(left: tuple[int, ...], right: tuple[int, ...]) -> tuple[tuple[int, ...], int, int]:
    """(X°, x, x') for a replace-one pair X = X° + x, X' = X° + x'."""
    rest = list(left)
    for item in right:
        if item in rest:
            rest.remove(item)
    core = list(left)
    core.remove(rest[0])
    added = list(right)
    for item in core:
        added.remove(item)
    return tuple(core), rest[0], added[0]


@dataclass(frozen=True, eq=False)
class LswLemma2:
    """‖F_X − F_X'‖²_{2,Γ} <= (R_max/(1−γ))² Σ_{s ∈ S_x ∪ S_x'} w_s/(|X°_s| + 1)² (Balle et al. 2016, Lemma 2).

    Stated for X = (x_1..x_{m−1}, x), X' = (x_1..x_{m−1}, x'): replace-one pairs only.
    """

    setting: _Setting
    name: str = "lemma2"

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        w = np.array([float(v) for v in self.setting.lsw.weights])
        measured = self.setting.return_distances(block)
        patterns, union = self._unions
        if block.core is None:
            core_counts = np.zeros((measured.shape[0], patterns.shape[-1]))
        else:
            core_counts = block.core.counts[:, 0, :]
        terms = w / (core_counts + 1.0) ** 2
        # the bound depends on (p, q) only through S_x ∪ S_x': one sum per distinct union, then a lookup
        per_union = float(self.setting.return_bound) ** 2 * np.einsum("bs,pqs->bpq", terms, patterns)[:, 0, :]
        return measured, per_union[:, union]

    @cached_property
    def _unions(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct visit-set unions S_x ∪ S_x' as 0/1 rows (1, K, S), and each pair's row, (U, U)."""
        visits = self.setting.universe.visits_array.astype(bool)
        union = visits[:, None, :] | visits[None, :, :]
        patterns, which = np.unique(union.reshape(-1, union.shape[-1]), axis=0, return_inverse=True)
        return patterns.astype(np.float64)[None, :, :], which.reshape(union.shape[:2])

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        w = self.setting.lsw.weights
        core, x, x_prime = _replaced(left, right)
        core_counts = self.setting.exact_statistics(core)[0] if core else (0,) * len(w)
        _, f_left = self.setting.exact_statistics(left)
        _, f_right = self.setting.exact_statistics(right)
        measured = sum((ws * (a - b) ** 2 for ws, a, b in zip(w, f_left, f_right, strict=False)), Fraction(0))
        profiles = self.setting.universe.profiles
        union = profiles[x].visits | profiles[x_prime].visits
        total = sum((w[s] / Fraction((core_counts[s] + 1) ** 2) for s in union), Fraction(0))
        return Comparison.of(measured, self.setting.return_bound**2 * total)


def _lsw_pinv_norm_squared(problem: LSWProblem) -> Fraction | mpmath.mpf:
    """‖(Γ^{1/2} Φ)†‖² = 1 / λ_min(Φᵀ Γ Φ): exact for a diagonal normal matrix, else mpmath."""
    gram = problem.normal_matrix
    d = len(gram)
    if all(gram[i][j] == 0 for i in range(d) for j in range(d) if i != j):
        return 1 / min(gram[i][i] for i in range(d))
    with mpmath.workdps(DIGITS):
        eigenvalues = mpmath.eigsy(mpmath.matrix([[_mp(v) for v in row] for row in gram]), eigvals_only=True)
        return 1 / min(eigenvalues)


@dataclass(frozen=True, eq=False)
class LswParameters:
    """‖θ^w_X − θ^w_X'‖₂² <= ‖(Γ^{1/2}Φ)†‖² (R_max/(1−γ))² φ^w(⟨X⟩).

    References:
        Balle et al. 2016, eq. (13) with Corollary 3, eq. (14).
    """

    setting: _Setting
    name: str = "lsw_parameters"

    @cached_property
    def constant(self) -> Any:
        return _lsw_pinv_norm_squared(self.setting.lsw) * self.setting.return_bound**2

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        w = np.array([float(v) for v in self.setting.lsw.weights])
        measured = self.setting.theta_distances(block)
        bound = float(self.constant) * (w / np.maximum(block.left.counts, 1) ** 2).sum(axis=-1)
        return measured, np.broadcast_to(bound[:, :, None], measured.shape)

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        w = self.setting.lsw.weights
        counts, _ = self.setting.exact_statistics(left)
        measured = _squared_distance(self.setting.exact_theta(left), self.setting.exact_theta(right))
        phi = sum((ws / Fraction(max(c, 1) ** 2) for ws, c in zip(w, counts, strict=False)), Fraction(0))
        return _decide(measured, self.constant * phi)


def _spectral_norm(features: tuple[tuple[Fraction, ...], ...]) -> mpmath.mpf:
    with mpmath.workdps(DIGITS):
        matrix = mpmath.matrix([[_mp(v) for v in row] for row in features])
        eigenvalues = mpmath.eigsy(matrix.T * matrix, eigvals_only=True)
        return mpmath.sqrt(max(eigenvalues))


@dataclass(frozen=True, eq=False)
class LslCorollary8:
    """‖θ^λ_X − θ^λ_X'‖₂² <= C_λ² φ^λ_X with C_λ = 2R‖Φ‖/((1−γ)(λ − ‖Φ‖²‖ρ‖∞)) and
    φ^λ_X = (‖Φ‖‖ρ‖∞/√(2λ) √(Σ_s ρ_s |X_s|) + ‖ρ‖₂)² (Balle et al. 2016, Corollary 8).

    Raises:
        InvalidArgument: when λ <= ‖Φ‖² ‖ρ‖∞ (the corollary's hypothesis fails).
    """

    setting: _Setting
    name: str = "corollary8"

    @cached_property
    def constants(self) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
        """(C_λ², c_λ, ‖ρ‖₂) at 60 digits."""
        problem = self.setting.lsl
        with mpmath.workdps(DIGITS):
            norm = _spectral_norm(problem.features)
            rho_inf = _mp(max(problem.rho))
            lam = _mp(problem.lam)
            gap = lam - norm**2 * rho_inf
            if not gap > 0:
                raise InvalidArgument(
                    f"lam={problem.lam}: Corollary 8 needs lam > ||Phi||^2 ||rho||_inf = "
                    f"{mpmath.nstr(norm**2 * rho_inf, 10)}"
                )
            scale = 2 * _mp(self.setting.return_bound) * norm / gap
            c_lambda = norm * rho_inf / mpmath.sqrt(2 * lam)
            rho_norm = mpmath.sqrt(sum(_mp(r) ** 2 for r in problem.rho))
            return scale**2, c_lambda, rho_norm

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        scale2, c_lambda, rho_norm = (float(v) for v in self.constants)
        rho = np.array([float(r) for r in self.setting.lsl.rho])
        measured = self.setting.theta_distances(block)
        phi = (c_lambda * np.sqrt((rho * block.left.counts).sum(axis=-1)) + rho_norm) ** 2
        return measured, np.broadcast_to((scale2 * phi)[:, :, None], measured.shape)

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        scale2, c_lambda, rho_norm = self.constants
        counts, _ = self.setting.exact_statistics(left)
        measured = _squared_distance(self.setting.exact_theta(left), self.setting.exact_theta(right))
        with mpmath.workdps(DIGITS):
            visits = sum((_mp(r) * c for r, c in zip(self.setting.lsl.rho, counts, strict=False)), mpmath.mpf(0))
            bound = scale2 * (c_lambda * mpmath.sqrt(visits) + rho_norm) ** 2
        return _decide(measured, bound)


def _binary_exact(values: Any) -> tuple[Fraction, ...]:
    """The exact binary values of a vector of floats."""
    return tuple(Fraction(float(v)) for v in values)


def _binary_exact_matrix(rows: Any) -> tuple[tuple[Fraction, ...], ...]:
    """The exact binary values of a matrix of floats, row by row."""
    return tuple(_binary_exact(row) for row in rows)


def _reward_bound_and_discount(mechanism: Any) -> tuple[Fraction, Fraction]:
    """R_max and γ of a DP-LSW/DP-LSL mechanism, exact."""
    return check_rational("r_max", mechanism.r_max), check_rational("gamma", mechanism.gamma)


def mechanism_problem(mechanism: Any) -> LSWProblem | LSLProblem:
    """The exact LSW/LSL problem of a DP-LSW/DP-LSL mechanism's public parameters.

    Features, weights, γ, R_max and λ are converted at their exact binary values.

    Raises:
        InvalidArgument: for a mechanism that is neither.
    """
    from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW

    if isinstance(mechanism, DPLSW):
        features, weights = _binary_exact_matrix(mechanism.estimator.phi), _binary_exact(mechanism.estimator.w)
        return LSWProblem(features, weights, *_reward_bound_and_discount(mechanism))
    if isinstance(mechanism, DPLSL):
        ridge = mechanism.estimator
        features, weights = _binary_exact_matrix(ridge.phi), _binary_exact(ridge.weights)
        lam = check_rational("lam", ridge.lam)
        return LSLProblem(features, weights, lam, *_reward_bound_and_discount(mechanism))
    raise InvalidArgument(f"mechanism={type(mechanism).__name__}: expected DP-LSW or DP-LSL")
