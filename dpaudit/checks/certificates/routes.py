"""Independent routes that re-derive a certified quantity from its exact inputs.

A checker computes δ(ε) by a closed form (an error function, a regularised incomplete
beta); the route here integrates the densities instead: δ(ε) = ∫ max(0, p − e^ε q) over
the region where the privacy loss exceeds ε, by tanh-sinh quadrature in mpmath at
:data:`ROUTE_DIGITS` digits with its own error estimate. A bug in one formula does not
repeat in the other, so an enclosure that contains the replayed value is evidence that
both are right (Balle & Wang 2018, Thm 5: δ(ε) = P[L > ε] − e^ε P[L' < −ε], the same
integral written with the privacy-loss variables).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import mpmath

from dpaudit.errors import InvalidArgument
from dpaudit.privacy.gaussian_pair_profile import GaussianPair
from dpaudit.privacy.gaussian_pair_quadrature import gaussian_pair_delta_quadrature_estimate

__all__ = ["MAX_RELATIVE_WIDTH", "ROUTES", "ROUTE_DIGITS", "Replay", "replay"]

#: Working precision of every route.
ROUTE_DIGITS = 50

#: The widest enclosure (relative to its larger end) a certificate of these routes may state:
#: the checkers compute at 50+ digits, so a wider one was not written by them.
MAX_RELATIVE_WIDTH = 1e-15

Replay = tuple[mpmath.mpf, mpmath.mpf]
"""A replayed value and a bound on its absolute error."""


def _number(inputs: Mapping[str, str], name: str) -> mpmath.mpf:
    try:
        value = mpmath.mpf(inputs[name])
    except KeyError:
        raise InvalidArgument(f"the certificate has no input {name!r}") from None
    except (TypeError, ValueError):
        raise InvalidArgument(f"input {name}={inputs[name]!r} is not a number") from None
    if not mpmath.isfinite(value):
        raise InvalidArgument(f"input {name}={inputs[name]!r} is not finite")
    return value


def _integral(integrand: Callable[[mpmath.mpf], mpmath.mpf], points: list[mpmath.mpf]) -> Replay:
    value, error = mpmath.quad(integrand, points, error=True, maxdegree=10)
    # the estimate of tanh-sinh is the difference of the last two levels; a factor 10 and one
    # unit in the last working digit cover its usual optimism
    return value, 10 * abs(error) + abs(value) * mpmath.mpf(10) ** (-ROUTE_DIGITS + 5)


def _gaussian_shift(inputs: Mapping[str, str]) -> Replay:
    """δ(ε) of N(0, σ²) against N(Δ, σ²): the loss exceeds ε left of Δ/2 − εσ²/Δ."""
    sigma, shift, epsilon = (_number(inputs, key) for key in ("sigma", "sensitivity", "epsilon"))
    if sigma <= 0 or shift <= 0:
        raise InvalidArgument("sigma and sensitivity must be positive")
    norm = 1 / (sigma * mpmath.sqrt(2 * mpmath.pi))
    factor = mpmath.exp(epsilon)

    def integrand(x: mpmath.mpf) -> mpmath.mpf:
        return norm * (mpmath.exp(-(x**2) / (2 * sigma**2)) - factor * mpmath.exp(-((x - shift) ** 2) / (2 * sigma**2)))

    threshold = shift / 2 - epsilon * sigma**2 / shift
    return _integral(integrand, [-mpmath.inf, min(threshold, mpmath.mpf(0)), threshold])


def _laplace_shift(inputs: Mapping[str, str]) -> Replay:
    """δ(ε) of Lap(0, b) against Lap(Δ, b): the loss (|x − Δ| − |x|)/b exceeds ε left of (Δ − εb)/2."""
    scale, shift, epsilon = (_number(inputs, key) for key in ("scale", "sensitivity", "epsilon"))
    if scale <= 0 or shift <= 0:
        raise InvalidArgument("scale and sensitivity must be positive")
    threshold = (shift - epsilon * scale) / 2
    if threshold <= 0:
        return mpmath.mpf(0), mpmath.mpf(0)  # the loss never exceeds epsilon
    factor = mpmath.exp(epsilon)

    def integrand(x: mpmath.mpf) -> mpmath.mpf:
        return (mpmath.exp(-abs(x) / scale) - factor * mpmath.exp(-abs(x - shift) / scale)) / (2 * scale)

    return _integral(integrand, [-mpmath.inf, mpmath.mpf(0), threshold])


def _beta_pair(inputs: Mapping[str, str]) -> Replay:
    """δ(ε) of Beta(a_p, b_p) against Beta(a_q, b_q) with a_p + b_p = a_q + b_q.

    The loss is (a_p − a_q) logit(u) + const, monotone in u, so the region where it
    exceeds ε is one interval with an end at 0 or 1 (Gohari et al. 2020's Dirichlet
    mechanism on one pair of coordinates, by the aggregation property). With V = U (the region
    {U < u*}) or V = 1 − U ({U > u*}), V ~ Beta(α, β), the region is {V < v*}, integrated in
    s = −ln V: the density of s is e^(−α s) (1 − e^(−s))^(β − 1) / B(α, β) on (−ln v*, ∞). A small
    shape α puts V's mass near e^(−1/α), and v* can be e^(−800): in u a quadrature saw neither
    (a reviewer's pair of shape 0.026 came out 1.03e-6 for 1.22e-6); in s the mass lies on a
    scale of 1/α, which the quadrature's points follow.
    """
    a_p, b_p, a_q, b_q, epsilon = (_number(inputs, key) for key in ("a_p", "b_p", "a_q", "b_q", "epsilon"))
    if min(a_p, b_p, a_q, b_q) <= 0:
        raise InvalidArgument("Beta parameters must be positive")
    if abs((a_p + b_p) - (a_q + b_q)) > mpmath.mpf(10) ** (-12) * (a_p + b_p):
        raise InvalidArgument("the two Beta laws must have the same total concentration")
    log_norm = mpmath.log(mpmath.beta(a_q, b_q)) - mpmath.log(mpmath.beta(a_p, b_p))
    # loss(u) = (a_p - a_q) ln u + (b_p - b_q) ln(1 - u) + log_norm = slope logit(u) + log_norm (b_p - b_q = -slope)
    slope = a_p - a_q
    if slope == 0:
        return mpmath.mpf(0), mpmath.mpf(0)  # identical laws up to rounding of the inputs
    logit = (epsilon - log_norm) / slope  # of u*
    if slope > 0:  # {U > u*} = {V < 1 - u*}, V = 1 - U ~ Beta(b, a)
        shapes, start = ((b_p, a_p), (b_q, a_q)), mpmath.log1p(mpmath.exp(logit))
    else:
        shapes, start = ((a_p, b_p), (a_q, b_q)), mpmath.log1p(mpmath.exp(-logit))
    (alpha_p, beta_p), (alpha_q, beta_q) = shapes
    log_beta_p, log_beta_q = mpmath.log(mpmath.beta(alpha_p, beta_p)), mpmath.log(mpmath.beta(alpha_q, beta_q))
    factor = mpmath.exp(epsilon)

    def integrand(s: mpmath.mpf) -> mpmath.mpf:
        tail = mpmath.log(-mpmath.expm1(-s))  # ln(1 - e^-s)
        p = mpmath.exp(-alpha_p * s + (beta_p - 1) * tail - log_beta_p)
        q = mpmath.exp(-alpha_q * s + (beta_q - 1) * tail - log_beta_q)
        return p - factor * q

    scale = 1 / min(alpha_p, alpha_q)  # the decay length of the integrand
    points = [start + 10**j for j in range(-2, int(mpmath.log10(200 * scale)) + 2)]
    for alpha, beta in shapes:  # large shapes: a peak of width about sqrt(beta / (alpha (alpha + beta))) in s
        if beta > 1:
            mode, width = mpmath.log((alpha + beta - 1) / alpha), mpmath.sqrt(beta / (alpha * (alpha + beta)))
            points += [mode + j * width for j in range(-12, 13)]
    split = [start, *sorted({point for point in points if point > start}), mpmath.inf]
    value, error = _integral(integrand, split)
    with mpmath.workdps(mpmath.mp.dps + 20):  # a quadrature's own estimate can be optimistic: a second precision
        finer, _ = _integral(integrand, split)
    return finer, error + 10 * abs(finer - value)


def _gaussian_pair(inputs: Mapping[str, str]) -> Replay:
    """δ(ε) of N(0, σ1² I_d) against N(shift e_1, σ2² I_d), by quadrature along the shift with the
    χ²_(d−1) law of the orthogonal part (the checker sums noncentral χ² series instead), at 30 digits
    with the quadrature's own error estimate, as the other routes (one precision: Lemma 1's grid has
    132 such facts, and a second precision would triple their cost)."""
    shift, sigma1, sigma2, epsilon = (_number(inputs, key) for key in ("shift", "sigma1", "sigma2", "epsilon"))
    dim = _number(inputs, "dim")
    if dim != int(dim) or dim < 1:
        raise InvalidArgument(f"dim={inputs['dim']!r}: expected a positive integer")
    pair = GaussianPair(float(shift), float(sigma1), float(sigma2), int(dim))
    if (mpmath.mpf(pair.shift), mpmath.mpf(pair.sigma1), mpmath.mpf(pair.sigma2)) != (shift, sigma1, sigma2):
        raise InvalidArgument("the pair's inputs are not binary64 numbers")
    return gaussian_pair_delta_quadrature_estimate(float(epsilon), pair, digits=30)


#: Route name -> function of the certificate's inputs.
ROUTES: dict[str, Callable[[Mapping[str, str]], Replay]] = {
    "gaussian_shift_delta": _gaussian_shift,
    "laplace_shift_delta": _laplace_shift,
    "beta_pair_delta": _beta_pair,
    "gaussian_pair_delta": _gaussian_pair,
}


def replay(route: str, inputs: Mapping[str, str]) -> Replay:
    """Re-derive a certified quantity by its route.

    Raises:
        InvalidArgument: for an unknown route or inputs the route cannot take.
    """
    try:
        function = ROUTES[route]
    except KeyError:
        raise InvalidArgument(f"no independent route {route!r}; known: {sorted(ROUTES)}") from None
    with mpmath.workdps(ROUTE_DIGITS):
        return function(inputs)
