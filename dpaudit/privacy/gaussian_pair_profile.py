"""The exact privacy profile of two Gaussians with different means and variances.

For Z1 = N(μ1, σ1² I_d) and Z2 = N(μ2, σ2² I_d) the privacy loss is a quadratic form; after
a rotation that puts μ2 − μ1 on the first axis it depends on z only through ‖z − c‖² for a
centre c on that axis, so δ(ε) is a difference of two noncentral χ²_d tails (Poisson mixtures
of regularised incomplete gamma functions, summed from the mode). An independent path
integrates over the coordinate along μ2 − μ1 with the central χ²_{d−1} law of the orthogonal
part, and a float64 path uses scipy. These are the pairs of the smooth-sensitivity Gaussian
mechanism (Balle, Gomrokchi & Precup 2016, Lemma 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gmpy2
import mpmath

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidType, NumericalError
from dpaudit.privacy.precise_values import DEFAULT_DIGITS, PreciseValue, two_precisions

__all__ = []


MAX_SERIES_TERMS = 2_000_000


_STOP_CHECK_STRIDE = 16


@dataclass(frozen=True)
class GaussianPair:
    """Two isotropic Gaussians Z1 = N(μ1, σ1² I_d) and Z2 = N(μ2, σ2² I_d).

    Only ‖μ1 − μ2‖₂ matters for every privacy profile (rotation invariance), so the
    pair is described by that distance.

    Attributes:
        shift: ‖μ1 − μ2‖₂ >= 0.
        sigma1: σ1 > 0, standard deviation of Z1 (the distribution on the left of δ(ε)).
        sigma2: σ2 > 0, standard deviation of Z2.
        dim: the dimension d >= 1.
    """

    shift: float
    sigma1: float
    sigma2: float
    dim: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "shift", check_real("shift", self.shift, low=0.0))
        object.__setattr__(self, "sigma1", check_real("sigma1", self.sigma1, low=0.0, low_open=True))
        object.__setattr__(self, "sigma2", check_real("sigma2", self.sigma2, low=0.0, low_open=True))
        object.__setattr__(self, "dim", check_integer("dim", self.dim, low=1))

    def swapped(self) -> GaussianPair:
        """The pair in the other direction (Z2 on the left)."""
        return GaussianPair(self.shift, self.sigma2, self.sigma1, self.dim)

    def to_json(self) -> dict[str, float | int]:
        """The JSON form stored in evidence."""
        return {"shift": self.shift, "sigma1": self.sigma1, "sigma2": self.sigma2, "dim": self.dim}


@dataclass(frozen=True)
class _LossQuadraticForm:
    """The privacy loss ln(p1/p2)(z) = const + slope · ‖z/σ1 − centre·e1‖² (z relative to μ1).

    With z in units of σ1, r = σ2²/σ1² and s = ‖μ2 − μ1‖/σ1: the loss is
    (d/2) ln r + ‖z − s e1‖²/(2r) − ‖z‖²/2. For r ≠ 1 this is const + slope ‖z − c e1‖² with
    slope = (1 − r)/(2r), c = s/(1 − r), const = (d/2) ln r − s²/(2(1 − r)). Under Z1,
    ‖z − c e1‖² is noncentral χ²_d with noncentrality c²; under Z2 it is r times a
    noncentral χ²_d with noncentrality s² r/(1 − r)².
    """

    ratio: mpmath.mpf
    scaled_shift: mpmath.mpf
    dim: int

    @property
    def slope(self) -> mpmath.mpf:
        return (1 - self.ratio) / (2 * self.ratio)

    @property
    def centre(self) -> mpmath.mpf:
        return self.scaled_shift / (1 - self.ratio)

    @property
    def const(self) -> mpmath.mpf:
        s, r = self.scaled_shift, self.ratio
        return self.dim * mpmath.log(r) / 2 - s**2 / (2 * (1 - r))

    @property
    def noncentrality_z1(self) -> mpmath.mpf:
        return self.centre**2

    @property
    def noncentrality_z2(self) -> mpmath.mpf:
        s, r = self.scaled_shift, self.ratio
        return s**2 * r / (1 - r) ** 2


def _poisson_lower_cut(half: mpmath.mpf, log_half: mpmath.mpf, unit: mpmath.mpf) -> tuple[int, mpmath.mpf]:
    """The start J <= ⌊λ/2⌋ of a Poisson(λ/2) sum and a bound on P[N < J] (<= unit/2 unless J = 0).

    Σ_{j<J} w_j <= w_{J−1}/(1 − (J − 1)/(λ/2)) because w_{j−1}/w_j = j/(λ/2) <= (J − 1)/(λ/2) < 1 below J.
    """
    start = int(mpmath.floor(half))
    step = max(1, int(mpmath.sqrt(half)))
    while start > 0:
        previous = mpmath.exp(-half + (start - 1) * log_half - mpmath.loggamma(start))
        tail = previous / (1 - (start - 1) / half)
        if tail <= unit / 2:
            return start, tail
        start = max(0, start - step)
    return 0, mpmath.mpf(0)


def _noncentral_chi2_upper(dof: int, noncentrality: mpmath.mpf, x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """P[χ'²_dof(λ) > x] as a Poisson mixture of regularised upper incomplete gammas, with a truncation bound.

    The sum Σ_j w_j Q(a + j, h) (w_j the Poisson(λ/2) weights, a = dof/2, h = x/2) starts at the
    index J of :func:`_poisson_lower_cut`: Q increases in j, so the skipped terms are at most
    Q(a + J, h) P[N < J]. Upwards, Q(a + j + 1, h) = Q(a + j, h) + h^{a+j} e^{−h}/Γ(a + j + 1)
    (additions only), and the remainder after j is at most min(P[N > j], term_j ρ_j/(1 − ρ_j)):
    Q <= 1, and since Γ(b, h) >= h^{b−1} e^{−h} for b >= 1 the ratio of consecutive terms is at
    most ρ_j = (λ/2)/(j + 1) · (1 + h/(a + j)). Starting near the Poisson mode keeps the number of
    terms of order √λ instead of λ.
    """
    half, h, a = noncentrality / 2, x / 2, mpmath.mpf(dof) / 2
    if half == 0:
        return mpmath.gammainc(a, h, mpmath.inf, regularized=True), mpmath.mpf(0)
    unit = mpmath.mpf(2) ** (-mpmath.mp.prec)
    log_half = mpmath.log(half)
    start, skipped = _poisson_lower_cut(half, log_half, unit)
    q = mpmath.gammainc(a + start, h, mpmath.inf, regularized=True)
    skipped *= q
    increment = mpmath.exp((a + start) * mpmath.log(h) - h - mpmath.loggamma(a + start + 1))
    weight = mpmath.exp(-half + start * log_half - mpmath.loggamma(start + 1))
    total, bound = _at_working_precision(_upper_series, (half, h, a, q, increment, weight, unit), start)
    return total, bound + skipped


def _upper_series(half: Any, h: Any, a: Any, q: Any, increment: Any, weight: Any, unit: Any, start: int) -> Any:
    """The sum of :func:`_noncentral_chi2_upper` from its first term at ``start`` on, and its remainder bound."""
    total = weight * q
    for j in range(start + 1, start + MAX_SERIES_TERMS):
        q += increment
        increment *= h / (a + j)
        weight *= half / j
        term = weight * q
        total += term
        if j % _STOP_CHECK_STRIDE:
            continue
        bounds = []
        rho = half / (j + 1) * (1 + h / (a + j))
        if rho < 1:
            bounds.append(term * rho / (1 - rho))
        if half < j + 2:
            bounds.append(weight * half / (j + 1) / (1 - half / (j + 2)))
        if bounds and min(bounds) <= total * unit:
            return total, min(bounds)
    raise NumericalError(f"noncentral chi-square series did not converge in {MAX_SERIES_TERMS} terms (λ/2={half})")


def _noncentral_chi2_lower(dof: int, noncentrality: mpmath.mpf, x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """P[χ'²_dof(λ) < x] as a Poisson mixture of regularised lower incomplete gammas, with a truncation bound.

    P(a + j, h) decreases in j, so the terms after J sum to at most P(a + J, h) P[N > J]
    (N ~ Poisson(λ/2)) <= total · P[N > J]/P[N <= J]. J is the first index > λ/2 + 1 (so P[N <= J] >= 1/2) with
    P[N > J] <= w_{J+1}/(1 − (λ/2)/(J + 2)) below the working precision; the sum runs
    down from J with P(b, h) = P(b + 1, h) + h^b e^{−h}/Γ(b + 1) (additions only) and stops at j
    once the terms below are at most min(P[N < j], term_j r_j/(1 − r_j)) <= total · 2^−prec, where
    r_j = (j/(λ/2)) (1 + (a + j)/h) bounds the ratio of consecutive terms downwards
    (P(b, h)/P(b + 1, h) <= 1 + (b + 1)/h from the first term of the series of P(b + 1, h)).
    """
    half, h, a = noncentrality / 2, x / 2, mpmath.mpf(dof) / 2
    if half == 0:
        return mpmath.gammainc(a, 0, h, regularized=True), mpmath.mpf(0)
    unit = mpmath.mpf(2) ** (-mpmath.mp.prec)
    top = int(mpmath.ceil(half)) + 1
    log_half = mpmath.log(half)
    while True:
        if top > MAX_SERIES_TERMS:
            raise NumericalError(f"noncentral chi-square series needs more than {MAX_SERIES_TERMS} terms")
        next_weight = mpmath.exp(-half + (top + 1) * log_half - mpmath.loggamma(top + 2))
        poisson_tail = next_weight / (1 - half / (top + 2))
        if poisson_tail <= unit / 2:
            break
        top += max(1, int(mpmath.sqrt(half)))
    p = mpmath.gammainc(a + top, 0, h, regularized=True)
    weight = mpmath.exp(-half + top * log_half - mpmath.loggamma(top + 1))
    increment = mpmath.exp((a + top - 1) * mpmath.log(h) - h - mpmath.loggamma(a + top))
    total, below = _at_working_precision(_lower_series, (half, h, a, p, increment, weight, unit), top)
    return total, total * 2 * poisson_tail + below


def _lower_series(half: Any, h: Any, a: Any, p: Any, increment: Any, weight: Any, unit: Any, top: int) -> Any:
    """The sum of :func:`_noncentral_chi2_lower` from its first term at ``top`` down, and the bound on the rest."""
    total = weight * p
    below = 0 * total  # zero in the series' own number type (mpmath or MPFR)
    for j in range(top - 1, -1, -1):
        p += increment
        increment *= (a + j) / h
        weight *= (j + 1) / half
        term = weight * p
        total += term
        if j == 0:
            break
        if j % _STOP_CHECK_STRIDE:
            continue
        bounds = []
        ratio = j / half * (1 + (a + j) / h)
        if ratio < 1:
            bounds.append(term * ratio / (1 - ratio))
        if j - 1 < half:
            bounds.append(weight * j / half / (1 - (j - 1) / half))
        if bounds and min(bounds) <= total * unit:
            below = min(bounds)
            break
    return total, below


def _at_working_precision(series: Callable[..., Any], numbers: tuple[mpmath.mpf, ...], index: int) -> Any:
    """``series(*numbers, index)`` on MPFR numbers (gmpy2) at mpmath's working precision, as mpmath values.

    The series use only +, −, ×, ÷ and comparisons. MPFR rounds each to nearest (ties to even) at
    the working precision; so does mpmath, but for one case: an addition whose operands' exponents
    differ by more than 100 bits, one of them carrying more bits than the precision (as mpmath's
    gammainc may return), can be rounded differently there. The result then differs from
    mpmath's own arithmetic in its last bits at most (no difference in 20,000 random calls); the
    error of the value is measured the same way either way (two precisions plus the series'
    truncation bound, :func:`~dpaudit.privacy.precise_values.two_precisions`). About 5x sooner
    than mpmath. Where a value leaves MPFR's exponent range (mpmath's exponents are unbounded),
    or an input is not finite, the series runs on the mpmath values instead.
    """
    converted = [_to_mpfr(value) for value in numbers]
    if any(value is None for value in converted):
        return series(*numbers, index)
    try:
        with gmpy2.context(
            precision=mpmath.mp.prec, round=gmpy2.RoundToNearest, trap_underflow=True, trap_overflow=True
        ):
            return tuple(_to_mpf(value) for value in series(*converted, index))
    except (gmpy2.UnderflowResultError, gmpy2.OverflowResultError):
        return series(*numbers, index)


def _to_mpfr(value: mpmath.mpf) -> Any:
    """The exact MPFR copy of an mpmath value (as many bits as it has: mpmath's functions may return more
    than the working precision, and both libraries round only results, never operands); None for an
    infinity or NaN, or a value outside MPFR's exponent range."""
    sign, mantissa, exponent, bits = value._mpf_
    if not mantissa and exponent:
        return None
    try:
        with gmpy2.context(precision=max(bits, 1), trap_underflow=True, trap_overflow=True):
            return gmpy2.mul_2exp(gmpy2.mpfr(-mantissa if sign else mantissa), exponent)
    except (gmpy2.UnderflowResultError, gmpy2.OverflowResultError, OverflowError):
        return None  # OverflowError: an exponent past a C long, which gmpy2 cannot even take


def _to_mpf(value: Any) -> mpmath.mpf:
    mantissa, exponent = value.as_mantissa_exp()
    return mpmath.mpf((int(mantissa), int(exponent)))


def _pair_delta(epsilon: float, pair: GaussianPair) -> tuple[mpmath.mpf, mpmath.mpf]:
    e = mpmath.mpf(epsilon)
    sigma1 = mpmath.mpf(pair.sigma1)
    s = mpmath.mpf(pair.shift) / sigma1
    r = (mpmath.mpf(pair.sigma2) / sigma1) ** 2
    if r == 1:
        if s == 0:
            return mpmath.mpf(0), mpmath.mpf(0)
        return mpmath.ncdf(s / 2 - e / s) - mpmath.exp(e) * mpmath.ncdf(-s / 2 - e / s), mpmath.mpf(0)
    loss = _LossQuadraticForm(r, s, pair.dim)
    threshold = (e - loss.const) / loss.slope
    if threshold <= 0:
        return mpmath.mpf(0), mpmath.mpf(0)
    tail = _noncentral_chi2_upper if r < 1 else _noncentral_chi2_lower
    p1, bound1 = tail(pair.dim, loss.noncentrality_z1, threshold)
    p2, bound2 = tail(pair.dim, loss.noncentrality_z2, threshold / r)
    return p1 - mpmath.exp(e) * p2, bound1 + mpmath.exp(e) * bound2


def gaussian_pair_delta(epsilon: float, pair: GaussianPair, *, digits: int = DEFAULT_DIGITS) -> PreciseValue:
    """The exact δ(ε) = sup_E P[Z1 ∈ E] − e^ε P[Z2 ∈ E] of a pair of isotropic Gaussians.

    δ(ε) = P[L(Z1) > ε] − e^ε P[L(Z2) > ε] with L = ln(p1/p2). For σ1 ≠ σ2, L is an affine
    function of ‖z − c‖² (see :class:`_LossQuadraticForm`), so both probabilities are
    noncentral χ²_d tails: upper tails when σ2 < σ1, lower tails when σ2 > σ1 (then L is
    bounded above and δ(ε) = 0 for ε at or above that bound). For σ1 = σ2 it is the
    Balle–Wang closed form. The other direction is ``gaussian_pair_delta(ε, pair.swapped())``.

    Args:
        epsilon: ε >= 0.
        pair: the two Gaussians (inputs are taken as exact binary floats).
        digits: working precision in decimal digits (>= 30).

    Returns:
        δ(ε) with an absolute error bound (two precisions plus the series truncation bounds).

    Raises:
        InvalidArgument: for ε < 0, NaN or infinite.
        NumericalError: if the series does not converge or the two precisions disagree.

    References:
        Balle, Gomrokchi & Precup 2016, supplementary Lemma 1, eqs. (1)/(8) (the privacy loss
        of two Gaussians); Balle & Wang 2018, Theorem 5 (δ(ε) = P[L > ε] − e^ε P'[L > ε]) and
        Theorem 8 (equal variances); Johnson, Kotz & Balakrishnan, Continuous Univariate
        Distributions vol. 2, ch. 29 (noncentral χ² as a Poisson mixture).
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    if not isinstance(pair, GaussianPair):
        raise InvalidType(f"pair={pair!r}: expected a GaussianPair")
    digits = check_integer("digits", digits, low=30)
    return two_precisions(lambda: _pair_delta(eps, pair), digits)


def gaussian_pair_delta_float64(epsilon: float, pair: GaussianPair) -> float:
    """δ(ε) of a Gaussian pair in float64 with scipy's noncentral χ² (a cross-check, not a certificate).

    Underflows to 0 below about 1e-300 and loses relative accuracy when δ(ε) is much
    smaller than the two tail probabilities it is the difference of.

    References:
        As :func:`gaussian_pair_delta`.
    """
    from scipy import special, stats

    eps = check_real("epsilon", epsilon, low=0.0)
    if not isinstance(pair, GaussianPair):
        raise InvalidType(f"pair={pair!r}: expected a GaussianPair")
    s = pair.shift / pair.sigma1
    r = (pair.sigma2 / pair.sigma1) ** 2
    if r == 1.0:
        if s == 0.0:
            return 0.0
        return float(special.ndtr(s / 2 - eps / s) - math.exp(eps) * special.ndtr(-s / 2 - eps / s))
    slope = (1 - r) / (2 * r)
    centre = s / (1 - r)
    const = pair.dim * math.log(r) / 2 - s**2 / (2 * (1 - r))
    threshold = (eps - const) / slope
    if threshold <= 0:
        return 0.0
    lam1, lam2 = centre**2, s**2 * r / (1 - r) ** 2
    tail = stats.ncx2.sf if r < 1 else stats.ncx2.cdf
    return float(tail(threshold, pair.dim, lam1) - math.exp(eps) * tail(threshold / r, pair.dim, lam2))
