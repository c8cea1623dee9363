"""Shared numerics for the round-10 truths (numpy/scipy only, no Monte Carlo).

- ``gaussian_shift_delta`` / ``gaussian_shift_epsilon``: the exact privacy profile of the Gaussian
  mechanism with shift/std ratio mu (Balle & Wang 2018, Theorem 8).
- ``two_gaussian_delta``: the exact hockey-stick divergence E_P[(1 - e^(eps - L))_+] between two
  isotropic Gaussians P = N(0, s1^2 I_d) and Q = N(shift e_1, s2^2 I_d), written as a 1-D integral over
  the coordinate along the shift of a chi-square probability for the d - 1 orthogonal coordinates.
- ``mixture_delta``: the hockey-stick divergence between two finite mixtures of 1-D Gaussians with a
  common standard deviation (sub-sampled Gaussian mechanisms), integrating between the roots of
  p - e^eps q located on a fine grid and refined with brentq.
- ``epsilon_at``: the smallest eps with delta(eps) <= target, by bisection on a decreasing delta(eps).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import integrate, optimize, special

# ----------------------------------------------------------------------------------------------
# Gaussian mechanism (equal variances)


def gaussian_shift_delta(eps: float, mu: float) -> float:
    """delta(eps) of N(0, 1) vs N(mu, 1), Balle & Wang 2018 Theorem 8 (log-space for the second term)."""
    if mu <= 0:
        return 0.0
    a = mu / 2 - eps / mu
    b = -mu / 2 - eps / mu
    first = special.ndtr(a)
    second = math.exp(eps + special.log_ndtr(b))
    return float(first - second)


def gaussian_shift_epsilon(mu: float, delta: float) -> float:
    return epsilon_at(lambda e: gaussian_shift_delta(e, mu), delta)


def epsilon_at(delta_of_eps, target: float, high: float = 1.0, tol: float = 1e-10) -> float:
    """Smallest eps >= 0 with delta_of_eps(eps) <= target (delta_of_eps decreasing)."""
    if delta_of_eps(0.0) <= target:
        return 0.0
    while delta_of_eps(high) > target:
        high *= 2.0
        if high > 1e4:
            return math.inf
    low = 0.0
    while high - low > tol * max(1.0, high):
        mid = 0.5 * (low + high)
        if delta_of_eps(mid) > target:
            low = mid
        else:
            high = mid
    return high


# ----------------------------------------------------------------------------------------------
# Two isotropic Gaussians with different variances


def two_gaussian_delta(eps: float, d: int, s1: float, s2: float, shift: float) -> float:
    """E_P[(1 - e^(eps - L))_+] for P = N(0, s1^2 I_d), Q = N(shift e_1, s2^2 I_d), L = ln(p/q)."""
    shift = abs(float(shift))
    c = d * math.log(s2 / s1)
    a = 1.0 / (2 * s2 * s2) - 1.0 / (2 * s1 * s1)
    if abs(a) < 1e-15 * (1.0 / (s1 * s1)):
        a = 0.0

    def g(t):
        return -t * t / (2 * s1 * s1) + (t - shift) ** 2 / (2 * s2 * s2)

    # tau(t) = eps - c - g(t): the condition L > eps reads a * r^2 > tau(t)
    def pr(t, scale):
        tau = eps - c - g(t)
        if d == 1:
            return 1.0 if tau < 0 else 0.0
        if a == 0.0:
            return 1.0 if tau < 0 else 0.0
        if a > 0:
            if tau <= 0:
                return 1.0
            return float(special.chdtrc(d - 1, tau / (a * scale * scale)))
        # a < 0: a r^2 > tau  <=>  r^2 < tau / a  (needs tau < 0)
        if tau >= 0:
            return 0.0
        return float(special.chdtr(d - 1, tau / (a * scale * scale)))

    # breakpoints: roots of g(t) = eps - c, i.e. A t^2 - (shift/s2^2) t + shift^2/(2 s2^2) - (eps - c) = 0
    qa, qb, qc = a, -shift / (s2 * s2), shift * shift / (2 * s2 * s2) - (eps - c)
    roots = []
    if qa != 0.0:
        disc = qb * qb - 4 * qa * qc
        if disc >= 0:
            sq = math.sqrt(disc)
            roots = [(-qb - sq) / (2 * qa), (-qb + sq) / (2 * qa)]
    elif qb != 0.0:
        roots = [-qc / qb]
    span = 45.0 * max(s1, s2) + shift
    lo, hi = -span, span
    pts = sorted([lo] + [r for r in roots if lo < r < hi] + [0.0, shift, hi])
    pts = sorted(set(pts))

    k1 = 1.0 / (s1 * math.sqrt(2 * math.pi))
    k2 = math.exp(eps) / (s2 * math.sqrt(2 * math.pi))

    def integrand(t):
        z1 = t / s1
        z2 = (t - shift) / s2
        return k1 * math.exp(-0.5 * z1 * z1) * pr(t, s1) - k2 * math.exp(-0.5 * z2 * z2) * pr(t, s2)

    total = 0.0
    for left, right in itertools.pairwise(pts):
        val, _ = integrate.quad(integrand, left, right, limit=400, epsabs=1e-15, epsrel=1e-11)
        total += val
    return max(total, 0.0)


def two_gaussian_epsilon(delta: float, d: int, s1: float, s2: float, shift: float, both_orders=True) -> float:
    """The eps at delta of the pair (both orders when asked)."""
    e1 = epsilon_at(lambda e: two_gaussian_delta(e, d, s1, s2, shift), delta)
    if not both_orders:
        return e1
    e2 = epsilon_at(lambda e: two_gaussian_delta(e, d, s2, s1, shift), delta)
    return max(e1, e2)


# ----------------------------------------------------------------------------------------------
# Mixtures of 1-D Gaussians with one standard deviation


def _mixture_logpdf(y, weights, centres, sd):
    y = np.asarray(y, dtype=float)[..., None]
    w = np.asarray(weights, dtype=float)
    keep = w > 0
    z = -0.5 * ((y - np.asarray(centres, dtype=float)[keep]) / sd) ** 2
    return special.logsumexp(z, b=w[keep], axis=-1) - math.log(sd * math.sqrt(2 * math.pi))


def _mixture_cdf(y, weights, centres, sd):
    return float(np.sum(np.asarray(weights) * special.ndtr((y - np.asarray(centres)) / sd)))


def mixture_delta(eps: float, wp, cp, wq, cq, sd: float) -> float:
    """int (p - e^eps q)_+ for p = sum wp N(cp, sd^2), q = sum wq N(cq, sd^2) (1-D).

    The region {p > e^eps q} is found on a grid of 20001 points over [min - 40 sd, max + 40 sd], its
    boundaries refined with brentq on log p - log q - eps, and the integral is a sum of exact
    normal-CDF differences (each mixture's mass on each interval)."""
    allc = list(cp) + list(cq)
    lo, hi = min(allc) - 40 * sd, max(allc) + 40 * sd
    grid = np.linspace(lo, hi, 20001)

    def f(y):
        return _mixture_logpdf(y, wp, cp, sd) - _mixture_logpdf(y, wq, cq, sd) - eps

    vals = f(grid)
    # treat the ends as extending to +-infinity with the sign found at the grid ends
    sign = vals > 0
    edges = []
    for i in np.nonzero(sign[1:] != sign[:-1])[0]:
        a, b = grid[i], grid[i + 1]
        try:
            r = optimize.brentq(lambda y: float(f(np.array([y]))[0]), a, b, xtol=1e-14, rtol=1e-15)
        except ValueError:
            r = 0.5 * (a + b)
        edges.append(r)
    # intervals where sign is positive
    bounds = [-math.inf, *edges, math.inf]
    total = 0.0
    state = bool(sign[0])
    for left, right in itertools.pairwise(bounds):
        if state:
            mp = _mixture_cdf(right, wp, cp, sd) - _mixture_cdf(left, wp, cp, sd)
            mq = _mixture_cdf(right, wq, cq, sd) - _mixture_cdf(left, wq, cq, sd)
            total += mp - math.exp(eps) * mq
        state = not state
    return max(total, 0.0)


def mixture_epsilon(delta: float, wp, cp, wq, cq, sd: float, both_orders=True) -> float:
    e1 = epsilon_at(lambda e: mixture_delta(e, wp, cp, wq, cq, sd), delta)
    if not both_orders:
        return e1
    e2 = epsilon_at(lambda e: mixture_delta(e, wq, cq, wp, cp, sd), delta)
    return max(e1, e2)


# ----------------------------------------------------------------------------------------------
# 2-D check for mixtures of isotropic Gaussians (sub-sampled steps whose centres are not colinear)


def mixture_delta_2d(eps: float, wp, cp, wq, cq, sd: float, step_fraction: float = 1.0 / 24) -> float:
    """int (p - e^eps q)_+ over R^2 by the midpoint rule on a grid of step sd * step_fraction over the
    centres' box widened by 12 sd (the mass outside is below 1e-32; the midpoint rule's error on this smooth,
    once-kinked integrand is far below the margins it is used to compare)."""
    cp, cq = np.asarray(cp, dtype=float), np.asarray(cq, dtype=float)
    allc = np.vstack([cp, cq])
    h = sd * step_fraction
    xs = np.arange(allc[:, 0].min() - 12 * sd, allc[:, 0].max() + 12 * sd, h) + h / 2
    ys = np.arange(allc[:, 1].min() - 12 * sd, allc[:, 1].max() + 12 * sd, h) + h / 2
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    norm = 1.0 / (2 * math.pi * sd * sd)

    def density(weights, centres):
        out = np.zeros_like(X)
        for w, (cx, cy) in zip(weights, centres, strict=False):
            out += w * np.exp(-((X - cx) ** 2 + (Y - cy) ** 2) / (2 * sd * sd))
        return out * norm

    diff = density(wp, cp) - math.exp(eps) * density(wq, cq)
    return float(np.sum(np.maximum(diff, 0.0)) * h * h)
