"""The exact privacy profile of the Gaussian mechanism (Balle–Wang), in mpmath with an error bound.

A value is computed at two working precisions; the difference bounds the numerical error and
is reported with the result, so a verdict can require margin > error.
"""

from __future__ import annotations

import mpmath

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import NumericalError
from dpaudit.privacy.precise_values import DEFAULT_DIGITS, PreciseValue, two_precisions

__all__ = ["gaussian_delta", "gaussian_epsilon"]


def gaussian_delta(epsilon: float, sensitivity: float, sigma: float, *, digits: int = DEFAULT_DIGITS) -> PreciseValue:
    """The exact δ(ε) of the Gaussian mechanism N(f(x), σ² I) with L2 sensitivity Δ.

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ).

    Args:
        epsilon: ε >= 0.
        sensitivity: Δ > 0, the L2 sensitivity under the relation being audited.
        sigma: σ > 0, the noise standard deviation.
        digits: working precision in decimal digits (>= 30).

    Returns:
        δ(ε) with an absolute error bound. Inputs are taken as exact binary floats.

    References:
        Balle & Wang 2018, "Improving the Gaussian Mechanism for Differential Privacy", Theorem 8.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    delta_f = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    sig = check_real("sigma", sigma, low=0.0, low_open=True)
    digits = check_integer("digits", digits, low=30)

    def compute() -> mpmath.mpf:
        e, d, s = mpmath.mpf(eps), mpmath.mpf(delta_f), mpmath.mpf(sig)
        a = d / (2 * s)
        b = e * s / d
        return mpmath.ncdf(a - b) - mpmath.exp(e) * mpmath.ncdf(-a - b)

    return two_precisions(compute, digits)


def gaussian_epsilon(
    delta: float, sensitivity: float, sigma: float, *, digits: int = DEFAULT_DIGITS, tolerance: float = 1e-15
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An enclosure [ε_low, ε_high] of the smallest ε with δ(ε) <= delta for the Gaussian mechanism.

    δ(ε) is decreasing in ε, so bisection on the rigorous bounds of :func:`gaussian_delta`
    gives: the lower bound of δ(ε_low) exceeds ``delta`` (so ε_low is not enough) and the
    upper bound of δ(ε_high) is at most ``delta``.

    Returns:
        ``(epsilon_low, epsilon_high)`` with relative width <= ``tolerance`` (or 0 when δ(0) <= delta).

    References:
        Balle & Wang 2018, Theorem 8 (analytic Gaussian mechanism).
    """
    target = mpmath.mpf(check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True))
    if gaussian_delta(0.0, sensitivity, sigma, digits=digits).upper <= target:
        return mpmath.mpf(0), mpmath.mpf(0)
    low, high = 0.0, 1.0
    while gaussian_delta(high, sensitivity, sigma, digits=digits).upper > target:
        low, high = high, 2 * high
        if high > 1e6:
            raise NumericalError(f"no epsilon <= 1e6 reaches delta={delta!r}")
    while high - low > tolerance * high:
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if gaussian_delta(middle, sensitivity, sigma, digits=digits).upper > target:
            low = middle
        else:
            high = middle
    return mpmath.mpf(low), mpmath.mpf(high)


"""The series test their stopping rule every this many terms (the rule is valid at any term)."""
