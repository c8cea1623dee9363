"""r8-c08 (dirichlet, LEAKY, subtle): the Dirichlet mechanism with k calibrated from (epsilon, delta) on
the two-coordinate worst pair only.

``dirichlet_release(p, *, epsilon, delta, eta, adjacency, rng)`` picks the largest k whose pair
(eta, 1 - eta) vs (eta + b/2, 1 - eta - b/2) (b = adjacency) has delta(epsilon) <= delta, by bisection
on Beta CDFs (the engineer's reasoning: "the worst case is the smallest entry moved by b/2"), then
releases Dir(k p) by normalised Gamma draws.  For epsilon = 1.75, delta = 0.01, eta = 0.2, b = 0.2 it finds
k = 5.21465.

Claim: (1.75, 0.01)-DP for inputs with entries >= 0.2 under simplex_adjacent(0.2) (the correct code
calibrates on the worst pair over every dimension: k = 3.31182).

Truth.  With n >= 3 coordinates a pair may move mass between two *small* entries: (0.2, 0.3, 0.5) vs
(0.3, 0.2, 0.5).  Its loss depends only on u = x_1 / (x_1 + x_2) ~ Beta(k p_1, k p_2) (aggregation
property), so at k = 5.21465 it is the pair Beta(1.0429, 1.5644) vs Beta(1.5644, 1.0429), whose exact
epsilon at delta = 0.01 is 1.97453 > 1.75 (+12.8%).  On two-coordinate inputs the candidate is exactly at
the claim (1.75), so pairs of length 2 cannot show the bug.  truth/truth.py recomputes k and maximises
over every admissible pair.
"""

from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln
from scipy.stats import beta as beta_law


def _pair_delta(eps, a1, a2, b1, b2):
    """delta(eps) of Beta(a1, a2) against Beta(b1, b2) (a1 + a2 = b1 + b2), both orders."""
    worst = 0.0
    for p1, p2, q1, q2 in ((a1, a2, b1, b2), (b1, b2, a1, a2)):
        c = q1 - p1
        const = (gammaln(p1 + p2) - gammaln(p1) - gammaln(p2)) - (gammaln(q1 + q2) - gammaln(q1) - gammaln(q2))
        with np.errstate(over="ignore"):
            ustar = 1.0 / (1.0 + np.exp((eps - const) / c))
        if c > 0:
            d = beta_law.cdf(ustar, p1, p2) - np.exp(eps) * beta_law.cdf(ustar, q1, q2)
        else:
            d = beta_law.sf(ustar, p1, p2) - np.exp(eps) * beta_law.sf(ustar, q1, q2)
        worst = max(worst, float(d))
    return worst


@lru_cache(maxsize=64)
def calibrate_k(epsilon, delta, eta, adjacency):
    low, high = eta, eta + adjacency / 2.0

    def excess(k):
        return _pair_delta(epsilon, k * low, k * (1 - low), k * high, k * (1 - high)) - delta

    return brentq(excess, 1e-3, 1e4, xtol=1e-12)


def dirichlet_release(p, *, epsilon, delta, eta, adjacency, rng):
    k = calibrate_k(float(epsilon), float(delta), float(eta), float(adjacency))
    gammas = rng.standard_gamma(k * np.asarray(p, dtype=float))
    return gammas / gammas.sum()


def _many(p, n, *, epsilon, delta, eta, adjacency, rng):
    k = calibrate_k(float(epsilon), float(delta), float(eta), float(adjacency))
    p = np.asarray(p, dtype=float)
    gammas = rng.standard_gamma(k * p, size=(n, p.size))
    return gammas / gammas.sum(axis=1, keepdims=True)


dirichlet_release.sample = _many
