"""Lemma 1's conditions (a) and (b) for DP-LSW/DP-LSL on neighbouring pairs: the implementation's
sigma_X against alpha ||theta_X - theta_X'|| and the log-ratio of sigma_X, screened and re-checked exactly.

References:
    Balle, Gomrokchi & Precup 2016, Lemma 1 (conditions (a), (b)); Algorithms 1-2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpaudit._validation import check_choice
from dpaudit.checks.sensitivity.exact_setting import (
    DIGITS,
    _decide,
    _mp,
    _Setting,
    _squared_distance,
)
from dpaudit.checks.sensitivity.pair_sweep import (
    Comparison,
    DatasetBlock,
    PairBlock,
)
from dpaudit.kernel.evidence import exact_fraction
from dpaudit.mechanisms.policy_evaluation.exact_estimators import LSWProblem
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import (
    DatasetIndex,
    TrajectoryUniverse,
)

__all__ = [
    "SIGMA_RELATIVE_ERROR",
    "ConditionA",
    "ConditionB",
    "SigmaEvaluation",
    "SigmaTable",
    "lemma1_constants_exact",
    "sigma_relative_error",
    "sigma_table",
]


def lemma1_constants_exact(constant_set: str, *, epsilon: Any, delta: Any, d: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(α, β) of Lemma 1 from the paper's formulas, in mpmath at 60 digits.

    Args:
        constant_set: ``main_text`` (Lemma 1 and Algorithms 1–2: α = 5√(2 ln(2/δ))/ε,
            β = ε/(4d + 4 ln(2/δ))) or ``supplementary`` (Appendix A, Lemma 14 / supp.
            Lemma 1: α = 15√(2 ln(4/δ))/ε, β = (2 ln 2) ε / (5 (√d + √(2 ln(4/δ)))²)).
        epsilon, delta: the privacy parameters (their exact binary values are used).
        d: the output dimension.

    Raises:
        InvalidArgument: for an unknown constant set.

    References:
        Balle et al. 2016, Lemma 1 (p. 4) and Algorithms 1–2; Appendix A, Lemma 14.
    """
    check_choice("constant_set", constant_set, ("main_text", "supplementary"))
    with mpmath.workdps(DIGITS):
        eps, dlt = _mp(epsilon), _mp(delta)
        if constant_set == "main_text":
            alpha = 5 * mpmath.sqrt(2 * mpmath.log(2 / dlt)) / eps
            beta = eps / (4 * d + 4 * mpmath.log(2 / dlt))
        else:
            alpha = 15 * mpmath.sqrt(2 * mpmath.log(4 / dlt)) / eps
            beta = 2 * mpmath.log(2) * eps / (5 * (mpmath.sqrt(d) + mpmath.sqrt(2 * mpmath.log(4 / dlt))) ** 2)
        return +alpha, +beta


SigmaTable = np.ndarray

SIGMA_RELATIVE_ERROR = Fraction(1, 10**12)
"""The floor of :func:`sigma_relative_error`: what a well-conditioned problem's σ_X gets."""

_UNIT = 2.0**-53


def sigma_relative_error(setting: _Setting) -> Fraction:
    """How far (relative) the implementation's float σ_X may move between IEEE-754 machines and supported
    library versions, from the problem's own conditioning.

    σ_X of Algorithms 1-2 is a product and quotient of about ten float factors (α from a log and a square
    root, R/(1 − γ), ‖Φ‖ or ‖(Γ^{1/2}Φ)†‖ from an SVD, λ − ‖Φ‖²‖ρ‖∞, √ψ with ψ a maximum over k of
    e^{−kβ} times a short sum), each libm call within 4 ulps: 100 u together. A backward-stable SVD
    moves each singular value by at most 8·d·u·‖A‖ (Golub & Van Loan, Matrix Computations, Sec. 8.6), so
    ‖A‖ = σ_max within 8·d·u relative, but ‖A†‖ = 1/σ_min within 8·d·u·κ, κ = σ_max/σ_min (DP-LSW; κ is
    taken twice over, for the float κ's own error). DP-LSL's gap λ − b, b = ‖Φ‖²‖ρ‖∞, carries b's
    16·d·u relative error amplified by (λ + b)/(λ − b). The sum, times 10, floored at
    :data:`SIGMA_RELATIVE_ERROR`; 1 (no bound: nothing certified from σ_X) when the SVD term reaches 1/2.
    """
    phi = setting.features
    d = phi.shape[1]
    if isinstance(setting.problem, LSWProblem):
        weights = np.array([float(v) for v in setting.problem.weights])
        singular = np.linalg.svd(np.sqrt(weights)[:, None] * phi, compute_uv=False)
        spectral = 8 * d * 2 * float(singular.max() / singular.min()) if singular.min() > 0 else np.inf
    else:
        problem = setting.lsl
        b = float(np.linalg.norm(phi, 2)) ** 2 * float(max(problem.rho))
        lam = float(problem.lam)
        spectral = 16 * d * (lam + b) / (lam - b) if lam > b else np.inf
    if not spectral * _UNIT < 0.5:
        return Fraction(1)
    return max(SIGMA_RELATIVE_ERROR, Fraction(10 * (100 + spectral) * _UNIT))


@dataclass(frozen=True)
class SigmaEvaluation:
    """The implementation's σ_X on the domain and how it was obtained.

    Attributes:
        table: σ_X by global dataset index.
        signatures: distinct (⟨X⟩, m) classes at which the implementation was called.
        spot_checks: random datasets at which σ_X was recomputed from their own F_X.
        mismatches: spot checks whose σ differed from the class value (must be 0).
    """

    table: SigmaTable
    signatures: int
    spot_checks: int
    mismatches: int


def _class_codes(counts: np.ndarray, size: np.ndarray) -> np.ndarray:
    """One integer per (⟨X⟩, m) class, in the lexicographic order of the rows (⟨X⟩, m).

    Every entry lies in 0..m_max, so the rows read as numbers in base m_max + 1; rows too long
    for int64 in that base are numbered by a lexicographic sort instead.
    """
    keys = np.concatenate([counts, size[:, None]], axis=1).astype(np.int64)
    base = int(keys.max()) + 1
    if base ** keys.shape[1] >= 2**62:
        return np.unique(keys, axis=0, return_inverse=True)[1].reshape(-1)
    codes = np.zeros(keys.shape[0], dtype=np.int64)
    for column in keys.T:
        codes = codes * base + column
    return codes


def sigma_table(
    universe: TrajectoryUniverse,
    m_max: int,
    sigma_of: Callable[[np.ndarray, np.ndarray, int], float],
    *,
    rng: np.random.Generator,
    spot_checks: int = 500,
) -> SigmaEvaluation:
    """Evaluate the implementation's σ_X on every dataset of sizes 1..m_max, per (⟨X⟩, m) class.

    Algorithms 1 and 2 compute σ_X from the signature ⟨X⟩ and m only (Balle et al. 2016,
    Sec. 4.1: σ "only depends on the dataset X through its signature"); the implementation
    is called once per distinct (⟨X⟩, m) with the F_X of the class's first dataset, and at
    ``spot_checks`` random datasets with their own F_X, where any difference is reported.

    Args:
        sigma_of: called as ``sigma_of(signature, average_returns, m)`` with float64 arrays.
        rng: the generator choosing the spot checks.

    Returns:
        The table (indexed by :meth:`DatasetIndex.global_index`) and the counts.
    """
    index = DatasetIndex(len(universe), m_max)
    counts_parts, average_parts, sizes = [], [], []
    for m in range(1, m_max + 1):
        block = DatasetBlock.of(universe, index.datasets(m))
        counts_parts.append(block.counts)
        average_parts.append(block.average_returns)
        sizes.append(np.full(block.counts.shape[0], m))
    counts = np.concatenate(counts_parts)
    averages = np.concatenate(average_parts)
    size = np.concatenate(sizes)
    _, first, inverse = np.unique(_class_codes(counts, size), return_index=True, return_inverse=True)
    values = np.array([sigma_of(counts[i], averages[i], int(size[i])) for i in first])
    table = values[inverse.reshape(-1)]
    chosen = rng.choice(table.size, size=min(spot_checks, table.size), replace=False)
    mismatches = sum(sigma_of(counts[i], averages[i], int(size[i])) != table[i] for i in chosen)
    return SigmaEvaluation(table, int(first.size), int(chosen.size), int(mismatches))


@dataclass(frozen=True, eq=False)
class ConditionA:
    """σ_X >= α ‖θ_X − θ_X'‖₂ (Balle et al. 2016, Lemma 1 (a)), compared squared.

    θ is the exact re-derivation (eq. (8) or (11)); σ_X is the implementation's float,
    taken at its exact binary value; α from :func:`lemma1_constants_exact`.
    """

    setting: _Setting
    sigmas: SigmaTable
    index: DatasetIndex
    alpha: mpmath.mpf
    sigma_error: Fraction
    name: str = "condition_a"

    @property
    def input_variation(self) -> Fraction:
        """The most the relative margin 1 − α²‖Δθ‖²/σ_X² moves when σ_X moves by ρ =
        ``sigma_error`` (:func:`sigma_relative_error`): (1 − margin)(1/(1 − ρ)² − 1) <= 3ρ for
        0 <= margin <= 1 and ρ <= 1/10; no bound (1) beyond."""
        return 3 * self.sigma_error if self.sigma_error <= Fraction(1, 10) else Fraction(1)

    def _sigma(self, rows: np.ndarray) -> np.ndarray:
        return self.sigmas[self.index.global_index(rows)]

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        measured = float(self.alpha) ** 2 * self.setting.theta_distances(block)
        sigma = self._sigma(block.left.rows)
        return measured, np.broadcast_to((sigma * sigma)[:, :, None], measured.shape)

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        measured = _squared_distance(self.setting.exact_theta(left), self.setting.exact_theta(right))
        sigma = float(self._sigma(np.array(left)))
        with mpmath.workdps(DIGITS):
            return _decide(self.alpha**2 * _mp(measured), _mp(sigma) ** 2)


@dataclass(frozen=True, eq=False)
class ConditionB:
    """|ln σ_X² − ln σ_X'²| <= β (Balle et al. 2016, Lemma 1 (b)), σ from the implementation."""

    sigmas: SigmaTable
    index: DatasetIndex
    beta: mpmath.mpf
    sigma_error: Fraction
    name: str = "condition_b"

    @property
    def input_variation(self) -> Fraction:
        """The most the relative margin (β − |ln σ_X² − ln σ_X'²|)/β moves when each σ moves by ρ =
        ``sigma_error`` (:func:`sigma_relative_error`): each ln σ² by at most 2ρ/(1 − ρ), so <= 5ρ/β for
        ρ <= 1/10; no bound (1) beyond."""
        if self.sigma_error > Fraction(1, 10):
            return Fraction(1)
        return 5 * self.sigma_error / exact_fraction(self.beta)

    def screen(self, block: PairBlock) -> tuple[np.ndarray, np.ndarray]:
        left = np.log(self.sigmas[self.index.global_index(block.left.rows)] ** 2)
        right = np.log(self.sigmas[self.index.global_index(block.right.rows)] ** 2)
        measured = np.abs(left[:, :, None] - right[:, None, :])
        return measured, np.broadcast_to(float(self.beta), measured.shape)

    def exact(self, left: tuple[int, ...], right: tuple[int, ...]) -> Comparison:
        a = float(self.sigmas[self.index.global_index(np.array(left))])
        b = float(self.sigmas[self.index.global_index(np.array(right))])
        with mpmath.workdps(DIGITS):
            measured = abs(2 * mpmath.log(_mp(a)) - 2 * mpmath.log(_mp(b)))
            return _decide(measured, self.beta)
