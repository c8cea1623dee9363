"""Worst-case privacy of smooth-sensitivity Gaussian noise, and its tight calibration.

Lemma 1 of Balle et al. 2016 says: if Z_X = N(μ_X, σ_X² I_d) with (a) σ_X >= α‖μ_X − μ_X'‖₂
and (b) |ln σ_X² − ln σ_X'²| <= β for every pair of neighbours, the release is (ε, δ)-DP.
The true δ of such constants is the supremum of the exact profile
δ(ε) = sup_E P[Z_X ∈ E] − e^ε P[Z_X' ∈ E] over every admissible configuration. This module
computes it and finds the smallest α (for a given β) whose worst case is at most a target δ.

Reduction of the supremum (stated with each result):

* scale and rotation invariance: σ_X = 1 and μ_X' − μ_X on the first axis, so a
  configuration is a variance ratio r = σ_X'²/σ_X² ∈ [e^{−β}, e^{β}] and a shift
  s <= min(1, √r)/α (condition (a) for both members of the pair; the pair (X', X) is also
  a pair of neighbours, which covers both directions of the profile);
* the profile grows with the shift (checked numerically in the tests), so s = min(1, √r)/α;
* over the ratio the profile is evaluated at ln r ∈ {±β, ±β/2, 0}; the tests check on denser
  grids that the maximum sits at |ln r| = β (in practice at ln r = −β: the neighbour has the
  smaller variance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath

from dpaudit._records import record_json
from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.privacy.gaussian_pair_profile import GaussianPair, gaussian_pair_delta, gaussian_pair_delta_float64
from dpaudit.privacy.guarantees import MAX_EPSILON
from dpaudit.privacy.precise_values import DEFAULT_DIGITS, PreciseValue

__all__ = [
    "Lemma1WorstCase",
    "ParetoPoint",
    "SmoothGaussianCalibration",
    "boundary_pair",
    "calibrate_smooth_gaussian",
    "lemma1_worst_case",
    "smallest_alpha",
]

RATIO_FRACTIONS = (1.0, 0.5, 0.0, -0.5, -1.0)
PARETO_FRACTIONS = (0.1, 0.25, 0.5, 0.75, 0.9, 0.97)

#: The largest dimension calibrated: past it the exact profile's series outgrows its term budget
#: (already from d = 1000 at δ = 0.01) after minutes of work, so it is refused up front.
MAX_CALIBRATION_DIM = 10_000


def boundary_pair(alpha: float, log_ratio: float, dim: int) -> GaussianPair:
    """The admissible configuration with σ_X = 1, σ_X'² = e^{log_ratio} and the largest shift (a) allows.

    Returns:
        ``GaussianPair(shift=min(1, σ_X')/α, sigma1=1, sigma2=σ_X', dim)``.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1, condition (a) applied to (X, X') and (X', X).
    """
    alpha = check_real("alpha", alpha, low=0.0, low_open=True)
    log_ratio = check_real("log_ratio", log_ratio)
    sigma2 = math.exp(log_ratio / 2)
    return GaussianPair(min(1.0, sigma2) / alpha, 1.0, sigma2, dim)


@dataclass(frozen=True)
class Lemma1WorstCase:
    """The largest exact δ(ε) over the admissible configurations of Lemma 1 for given (α, β, d).

    Attributes:
        epsilon, alpha, beta, dim: the constants examined.
        delta: the exact δ(ε) of the maximising configuration, with its error bound.
        pair: the maximising configuration (σ_X = 1 normalisation; sigma2 is σ_X').
        candidates: every evaluated (ln(σ_X'²/σ_X²), δ) pair, for the report.
    """

    epsilon: float
    alpha: float
    beta: float
    dim: int
    delta: PreciseValue
    pair: GaussianPair
    candidates: tuple[tuple[float, mpmath.mpf], ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in evidence and calibration results: δ and its error as decimal strings."""
        return record_json(
            self,
            delta=mpmath.nstr(self.delta.value, 17),
            delta_error=mpmath.nstr(self.delta.error, 3),
            pair=self.pair.to_json(),
            candidates=[[log_ratio, mpmath.nstr(value, 17)] for log_ratio, value in self.candidates],
        )


def _check_constants(epsilon: float, alpha: float, beta: float, dim: int) -> tuple[float, float, float, int]:
    return (
        check_real("epsilon", epsilon, low=0.0),
        check_real("alpha", alpha, low=0.0, low_open=True),
        check_real("beta", beta, low=0.0),
        check_integer("dim", dim, low=1),
    )


def lemma1_worst_case(
    epsilon: float,
    alpha: float,
    beta: float,
    dim: int,
    *,
    digits: int = DEFAULT_DIGITS,
    ratio_fractions: tuple[float, ...] = RATIO_FRACTIONS,
) -> Lemma1WorstCase:
    """The exact worst-case δ(ε) of Gaussian noise whose variance satisfies Lemma 1's (a) and (b).

    Args:
        epsilon: ε >= 0.
        alpha: α > 0 of condition (a).
        beta: β >= 0 of condition (b).
        dim: the dimension d >= 1.
        digits: working precision of the exact profile (>= 30).
        ratio_fractions: the values f in [−1, 1] at which ln r = f β is evaluated.

    Returns:
        The maximum over the evaluated configurations on the boundary s = min(1, √r)/α.

    Raises:
        InvalidArgument: for out-of-range constants or fractions outside [−1, 1].

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1 (main text, Sec. 4) and supplementary Lemma 1.
    """
    epsilon, alpha, beta, dim = _check_constants(epsilon, alpha, beta, dim)
    fractions = tuple(check_real("ratio_fractions[]", f, low=-1.0, high=1.0) for f in ratio_fractions)
    if not fractions:
        raise InvalidArgument("ratio_fractions=(): expected at least one fraction in [-1, 1]")
    best: tuple[PreciseValue, GaussianPair] | None = None
    candidates = []
    for log_ratio in sorted({-f * beta for f in fractions}):
        pair = boundary_pair(alpha, log_ratio, dim)
        value = gaussian_pair_delta(epsilon, pair, digits=digits)
        candidates.append((log_ratio, value.value))
        if best is None or value.value > best[0].value:
            best = (value, pair)
    assert best is not None
    return Lemma1WorstCase(epsilon, alpha, beta, dim, best[0], best[1], tuple(candidates))


def _worst_float64(epsilon: float, alpha: float, beta: float, dim: int) -> float:
    return max(gaussian_pair_delta_float64(epsilon, boundary_pair(alpha, sign * beta, dim)) for sign in (-1.0, 1.0))


def _unshifted_delta(epsilon: float, beta: float, dim: int, *, digits: int) -> PreciseValue:
    """δ(ε) with no mean shift at the extreme ratio (the limit α → ∞), the larger of both directions."""
    sigma = math.exp(-beta / 2)
    values = [gaussian_pair_delta(epsilon, GaussianPair(0.0, 1.0, s2, dim), digits=digits) for s2 in (sigma, 1 / sigma)]
    return max(values, key=lambda v: v.value)


@dataclass(frozen=True)
class ParetoPoint:
    """One point of the (α, β) front: the smallest certified α for this β.

    Attributes:
        beta: β of condition (b).
        alpha: the certified α (worst-case δ <= target at it).
        alpha_lower: an α whose worst-case δ exceeds the target (certified), so the smallest
            admissible α lies in (alpha_lower, alpha].
        certified_delta: the upper end of the exact worst-case δ at ``alpha``.
    """

    beta: float
    alpha: float
    alpha_lower: float
    certified_delta: mpmath.mpf

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "beta": self.beta,
            "alpha": self.alpha,
            "alpha_lower": self.alpha_lower,
            "certified_delta": mpmath.nstr(self.certified_delta, 17),
        }


def smallest_alpha(
    epsilon: float, delta: float, dim: int, beta: float, *, digits: int = DEFAULT_DIGITS, tolerance: float = 1e-9
) -> tuple[ParetoPoint, Lemma1WorstCase]:
    """The smallest α such that the exact worst-case δ(ε) of Lemma 1's configurations is <= delta.

    The worst case decreases in α (the admissible shift is min(σ_X, σ_X')/α), so a float64
    bisection locates α; both ends are then certified with the exact profile: at ``alpha``
    the upper end of the worst case is <= delta, at ``alpha_lower`` its lower end exceeds it.

    Args:
        epsilon: ε >= 0; delta: the target δ in (0, 1); dim: d >= 1; beta: β >= 0.
        digits: precision of the certificate.
        tolerance: relative width of the bisection.

    Returns:
        The front point and the certified worst case at ``alpha``.

    Raises:
        InvalidArgument: if even an unshifted pair at ratio e^{±β} exceeds delta (β too large).
        NumericalError: if the certificate cannot be established.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1.
    """
    epsilon, _, beta, dim = _check_constants(epsilon, 1.0, beta, dim)
    target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    limit = _unshifted_delta(epsilon, beta, dim, digits=digits)
    if limit.upper > target:
        raise InvalidArgument(
            f"beta={beta!r}: even with no mean shift the ratio e^beta gives delta={mpmath.nstr(limit.value, 6)} "
            f"> delta={delta!r} at epsilon={epsilon!r}, d={dim}; choose a smaller beta"
        )
    low, high = 1.0, 1.0
    while _worst_float64(epsilon, high, beta, dim) > target:
        high *= 2
    while _worst_float64(epsilon, low, beta, dim) <= target and low > 1e-12:
        low /= 2
    while high - low > tolerance * high:
        middle = math.sqrt(low * high)
        if _worst_float64(epsilon, middle, beta, dim) > target:
            low = middle
        else:
            high = middle
    target_mp = mpmath.mpf(target)
    for _ in range(60):
        certified = lemma1_worst_case(epsilon, high, beta, dim, digits=digits)
        if certified.delta.upper <= target_mp:
            break
        high *= 1 + 1e-7
    else:
        raise NumericalError(f"could not certify an alpha near {high!r} for delta={delta!r}")
    for _ in range(60):
        failing = lemma1_worst_case(epsilon, low, beta, dim, digits=digits, ratio_fractions=(1.0, -1.0))
        if failing.delta.lower > target_mp:
            break
        low *= 1 - 1e-7
    else:
        raise NumericalError(f"could not certify a failing alpha near {low!r} for delta={delta!r}")
    return ParetoPoint(beta, high, low, certified.delta.upper), certified


def _largest_beta(epsilon: float, delta: float, dim: int) -> float:
    """The β at which an unshifted pair with ratio e^{±β} reaches delta (float64 bisection)."""

    def unshifted(beta: float) -> float:
        sigma = math.exp(-beta / 2)
        return max(gaussian_pair_delta_float64(epsilon, GaussianPair(0.0, 1.0, s2, dim)) for s2 in (sigma, 1 / sigma))

    low, high = 0.0, 1.0
    while unshifted(high) <= delta:
        low, high = high, 2 * high
        if high > 1e6:
            raise NumericalError(f"no beta <= 1e6 reaches delta={delta!r}")
    while high - low > 1e-12 * high:
        middle = (low + high) / 2
        if unshifted(middle) <= delta:
            low = middle
        else:
            high = middle
    return low


@dataclass(frozen=True)
class SmoothGaussianCalibration:
    """The tight calibration of Lemma 1's constants for one (ε, δ, d).

    Attributes:
        epsilon, delta, dim: the target guarantee and dimension.
        beta: the paper's (main-text) β = ε/(4d + 4 ln(2/δ)).
        alpha: the smallest certified α for that β.
        alpha_lower: a certified failing α just below ``alpha``.
        alpha_paper: the paper's (main-text) α = 5√(2 ln(2/δ))/ε, for comparison.
        certified_delta: the exact worst-case δ at ``alpha`` (value, error).
        worst_pair: the maximising configuration at ``alpha``.
        beta_limit: the β above which no α suffices (unshifted pair reaches δ).
        pareto: the (α, β) front, sorted by β.
        digits: the working precision of the certificates.
    """

    epsilon: float
    delta: float
    dim: int
    beta: float
    alpha: float
    alpha_lower: float
    alpha_paper: float
    certified_delta: PreciseValue
    worst_pair: GaussianPair
    beta_limit: float
    pareto: tuple[ParetoPoint, ...]
    digits: int

    def to_json(self) -> dict[str, Any]:
        """The JSON form printed by ``dpaudit calibrate smooth-gaussian``."""
        return {
            "mechanism": "smooth_gaussian",
            "source": "Balle, Gomrokchi & Precup 2016, Lemma 1 (main text)",
            "epsilon": self.epsilon,
            "delta": self.delta,
            "dim": self.dim,
            "beta": self.beta,
            "alpha": self.alpha,
            "alpha_lower": self.alpha_lower,
            "alpha_paper": self.alpha_paper,
            "alpha_ratio_tight_to_paper": self.alpha / self.alpha_paper,
            "certified_delta": mpmath.nstr(self.certified_delta.value, 17),
            "certified_delta_error": mpmath.nstr(self.certified_delta.error, 3),
            "worst_pair": self.worst_pair.to_json(),
            "beta_limit": self.beta_limit,
            "pareto": [point.to_json() for point in self.pareto],
            "digits": self.digits,
            "method": (
                "exact profile of Gaussian pairs (noncentral chi-square series in mpmath, error from two "
                "precisions); worst case over ratios ln r in {±beta, ±beta/2, 0} at the largest admissible shift"
            ),
        }


def calibrate_smooth_gaussian(
    epsilon: float,
    delta: float,
    dim: int,
    *,
    beta: float | None = None,
    pareto_points: int = 6,
    digits: int = DEFAULT_DIGITS,
) -> SmoothGaussianCalibration:
    """The smallest α for the paper's β, and the (α, β) front, certified by the exact profile.

    Args:
        epsilon: ε > 0.
        delta: δ in (0, 1).
        dim: the dimension d >= 1.
        beta: β of condition (b); default the main-text β = ε/(4d + 4 ln(2/δ)).
        pareto_points: how many β values of the front (fractions of the largest feasible β), >= 0.
        digits: precision of the certificates (>= 30).

    Returns:
        A frozen :class:`SmoothGaussianCalibration` with ``to_json()``.

    Raises:
        InvalidArgument: for out-of-range arguments or an infeasible β.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1 and Algorithms 1–2 (α, β of DP-LSW and DP-LSL).
    """
    epsilon = check_real("epsilon", epsilon, low=0.0, high=MAX_EPSILON, low_open=True)
    delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    dim = check_integer("dim", dim, low=1, high=MAX_CALIBRATION_DIM)
    pareto_points = check_integer("pareto_points", pareto_points, low=0, high=len(PARETO_FRACTIONS))
    digits = check_integer("digits", digits, low=30)
    log_term = math.log(2 / delta)
    paper_beta = epsilon / (4 * dim + 4 * log_term)
    beta = paper_beta if beta is None else check_real("beta", beta, low=0.0, high=MAX_EPSILON)
    point, certified = smallest_alpha(epsilon, delta, dim, beta, digits=digits)
    beta_limit = _largest_beta(epsilon, delta, dim)
    front = [point]
    for fraction in PARETO_FRACTIONS[:pareto_points]:
        front.append(smallest_alpha(epsilon, delta, dim, fraction * beta_limit, digits=digits)[0])
    return SmoothGaussianCalibration(
        epsilon=epsilon,
        delta=delta,
        dim=dim,
        beta=beta,
        alpha=point.alpha,
        alpha_lower=point.alpha_lower,
        alpha_paper=5 * math.sqrt(2 * log_term) / epsilon,
        certified_delta=certified.delta,
        worst_pair=certified.pair,
        beta_limit=beta_limit,
        pareto=tuple(sorted(front, key=lambda p: p.beta)),
        digits=digits,
    )
