"""δ(ε) of a Gaussian pair (:class:`~dpaudit.privacy.gaussian_pair_profile.GaussianPair`) by a path independent of
the noncentral χ² series: quadrature along μ2 − μ1, with the central χ²_{d−1} law of the orthogonal part
across it. Slower than :func:`~dpaudit.privacy.gaussian_pair_profile.gaussian_pair_delta`; it re-checks it,
and its one-precision form with tanh-sinh's own error estimate is a certificate route
(:mod:`dpaudit.checks.certificates.routes`).

References:
    Balle, Gomrokchi & Precup 2016, supplementary Lemma 1, eq. (11).
"""

from __future__ import annotations

import mpmath

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidType
from dpaudit.privacy.gaussian_pair_profile import GaussianPair
from dpaudit.privacy.precise_values import DEFAULT_DIGITS, PreciseValue, two_precisions

__all__ = ["gaussian_pair_delta_quadrature", "gaussian_pair_delta_quadrature_estimate"]


#: The most degrees of freedom :func:`_chi2_tail` sums in closed form (its sums have dof/2 terms); above it,
#: :func:`mpmath.gammainc`.
CLOSED_FORM_DOF = 200


def _chi2_tail(dof: int, x: mpmath.mpf, *, upper: bool) -> mpmath.mpf:
    """P(χ²_dof > x) (``upper``) or P(χ²_dof <= x), dof >= 1, at the working precision: the regularised
    incomplete gamma functions Q(a, z) and P(a, z) at a = dof/2, z = x/2. Up to :data:`CLOSED_FORM_DOF`, by sums
    of positive terms (no cancellation) in fixed point, several times faster than :func:`mpmath.gammainc` at
    dof <= 100, with the exponents and √z taken at extra precision (their rounding grows with z and a·|ln z|).

    References:
        DLMF §8.4 (Q(1, z) = e^{-z}, Q(1/2, z) = erfc(√z), and Q(a + 1, z) = Q(a, z) + z^a e^{-z}/Γ(a + 1));
        DLMF §8.7.1 (P(a, z) = z^a e^{-z} Σ_k z^k/Γ(a + k + 1)).
    """
    a = mpmath.mpf(dof) / 2
    z = x / 2
    if mpmath.isnan(z):
        return z
    if z <= 0 or mpmath.isinf(z):
        return mpmath.mpf(1 if upper == (z <= 0) else 0)
    if dof > CLOSED_FORM_DOF:
        return (
            mpmath.gammainc(a, z, mpmath.inf, regularized=True) if upper else mpmath.gammainc(a, 0, z, regularized=True)
        )
    # guard bits for the exponents' rounding: |z| and a·|ln z| <= (dof/2)(|mag z| + 1)
    size = int(mpmath.mag(z))
    with mpmath.extraprec(16 + max(size, 0) + dof.bit_length() + (abs(size) + 1).bit_length()):
        if not upper and z < a:
            # P(a, z) = z^a e^{-z}/Γ(a + 1) · Σ_{k>=0} Π_{i<=k} 2z/(dof + 2i)
            tail = mpmath.exp(a * mpmath.log(z) - z - mpmath.loggamma(a + 1)) * _ratio_series(z, dof + 2, None)
        else:
            if dof % 2 == 0:  # Q(m, z) = e^{-z} Σ_{k<m} z^k/k!
                tail = mpmath.exp(-z) * _ratio_series(z, 2, dof // 2 - 1)
            else:  # Q(m + 1/2, z) = erfc(√z) + e^{-z} √z/Γ(3/2) · Σ_{k<m} Π_{i<=k} 2z/(2i + 1), Γ(3/2) = √π/2
                tail = mpmath.erfc(mpmath.sqrt(z))
                if dof > 1:
                    tail += 2 * mpmath.exp(-z) * mpmath.sqrt(z / mpmath.pi) * _ratio_series(z, 3, dof // 2 - 1)
            # for z >= a, Q(a, z) <= Q(a, a) < 1/2: P = 1 − Q without cancellation
            tail = tail if upper else 1 - tail
    return +tail  # rounded to the working precision


def _ratio_series(z: mpmath.mpf, first: int, terms: int | None) -> mpmath.mpf:
    """Σ_{k=0}^{terms} Π_{i=1}^{k} 2z/(first + 2(i − 1)) (every term while they are not yet below the last bit when
    ``terms`` is None: there 2z < first, so they fall geometrically), in fixed point with 64 guard bits: each term
    is positive and the sum at least 1, so the error is a few units of the working precision."""
    bits = mpmath.mp.prec + 64
    doubled = int(mpmath.floor(mpmath.ldexp(2 * z, bits)))
    total = term = 1 << bits
    k = 0
    while term and (terms is None or k < terms):
        term = ((term * doubled) >> bits) // (first + 2 * k)
        total += term
        k += 1
    return mpmath.ldexp(total, -bits)


def _pair_delta_by_quadrature(epsilon: float, pair: GaussianPair) -> mpmath.mpf:
    return _pair_delta_with_quadrature_error(epsilon, pair)[0]


def _pair_delta_with_quadrature_error(epsilon: float, pair: GaussianPair) -> tuple[mpmath.mpf, mpmath.mpf]:
    e = mpmath.mpf(epsilon)
    sigma1 = mpmath.mpf(pair.sigma1)
    s = mpmath.mpf(pair.shift) / sigma1
    r = (mpmath.mpf(pair.sigma2) / sigma1) ** 2
    sd2 = mpmath.sqrt(r)
    orthogonal = pair.dim - 1
    curvature = (1 / r - 1) / 2
    scale = mpmath.exp(e)
    quad_a, quad_b = curvature, -s / r
    quad_c = pair.dim * mpmath.log(r) / 2 + s**2 / (2 * r) - e

    def excess(x: mpmath.mpf) -> mpmath.mpf:
        return quad_a * x**2 + quad_b * x + quad_c

    orthogonal_log_ratio = orthogonal * mpmath.log(r) / 2

    def whole_slice(x: mpmath.mpf, u: mpmath.mpf) -> mpmath.mpf:
        # φ1 − e^ε φ2 = −φ1 expm1(ε − ln(φ1/φ2)), free of cancellation; ln(φ1/φ2) = A(x) − ((d−1)/2) ln r.
        return -mpmath.npdf(x) * mpmath.expm1(orthogonal_log_ratio - u)

    def integrand(x: mpmath.mpf) -> mpmath.mpf:
        u = excess(x)
        if orthogonal == 0 or curvature == 0:
            return whole_slice(x, u) if u > 0 else mpmath.mpf(0)
        density1 = mpmath.npdf(x)
        density2 = mpmath.npdf(x, s, sd2)
        if curvature > 0:
            if u >= 0:
                return whole_slice(x, u)
            y1, y2 = -u / curvature, -u / (curvature * r)
            return density1 * _chi2_tail(orthogonal, y1, upper=True) - scale * density2 * _chi2_tail(
                orthogonal, y2, upper=True
            )
        if u <= 0:
            return mpmath.mpf(0)
        y1, y2 = u / -curvature, u / (-curvature * r)
        return density1 * _chi2_tail(orthogonal, y1, upper=False) - scale * density2 * _chi2_tail(
            orthogonal, y2, upper=False
        )

    breaks = {mpmath.mpf(0), s}
    if quad_a == 0:
        if quad_b != 0:
            breaks.add(-quad_c / quad_b)
    else:
        discriminant = quad_b**2 - 4 * quad_a * quad_c
        if discriminant > 0:
            root = mpmath.sqrt(discriminant)
            breaks.update({(-quad_b - root) / (2 * quad_a), (-quad_b + root) / (2 * quad_a)})
    finite = sorted(breaks)
    # mpmath.quad stops on an absolute error below 2^-prec: rescale by the integrand's size
    # near the break points so that the tolerance becomes relative to the value.
    samples = [point + offset for point in finite for offset in mpmath.linspace(-10, 10, 81)]
    size = max(abs(integrand(x)) for x in samples)
    if size == 0:
        size = mpmath.mpf(1)
    points = [-mpmath.inf, *finite, mpmath.inf]
    value, error = mpmath.quad(lambda x: integrand(x) / size, points, error=True)
    return value * size, error * size


def gaussian_pair_delta_quadrature(epsilon: float, pair: GaussianPair, *, digits: int = DEFAULT_DIGITS) -> PreciseValue:
    """δ(ε) of a Gaussian pair by an independent path: quadrature along μ2 − μ1, χ²_{d−1} across.

    Writing z = (x, y) with x along μ2 − μ1, the loss is A(x) + c‖y‖² with
    c = (1/σ2² − 1/σ1²)/2 (σ1 = 1 after scaling), so for each x the slice of {L > ε} is a
    ball or the outside of one in y, whose probability is a central χ²_{d−1} tail;
    δ(ε) = ∫ [φ1(x) G1(x) − e^ε φ2(x) G2(x)] dx by tanh-sinh quadrature split at the roots of
    A(x) = ε. Slower than :func:`gaussian_pair_delta`; used to re-check it.

    Args:
        epsilon: ε >= 0.
        pair: the two Gaussians.
        digits: working precision (>= 30).

    Returns:
        δ(ε) with an error estimate from two working precisions.

    References:
        Balle, Gomrokchi & Precup 2016, supplementary Lemma 1, eq. (11) (the decomposition of
        the loss along Δ and its orthogonal complement).
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    if not isinstance(pair, GaussianPair):
        raise InvalidType(f"pair={pair!r}: expected a GaussianPair")
    digits = check_integer("digits", digits, low=30)
    return two_precisions(lambda: _pair_delta_by_quadrature(eps, pair), digits)


def gaussian_pair_delta_quadrature_estimate(
    epsilon: float, pair: GaussianPair, *, digits: int = 30
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """δ(ε) of a Gaussian pair by the quadrature of :func:`gaussian_pair_delta_quadrature` at one working
    precision, with tanh-sinh's own error estimate (the difference of its last two levels) times 10
    plus 10^(5 − digits) relative: about a third of the cost of two precisions.

    Returns:
        (δ(ε), a bound on its absolute error, by that estimate).

    References:
        As :func:`gaussian_pair_delta_quadrature`.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    if not isinstance(pair, GaussianPair):
        raise InvalidType(f"pair={pair!r}: expected a GaussianPair")
    digits = check_integer("digits", digits, low=20)
    with mpmath.workdps(digits):
        value, error = _pair_delta_with_quadrature_error(eps, pair)
        return +value, 10 * abs(error) + abs(value) * mpmath.mpf(10) ** (5 - digits)
