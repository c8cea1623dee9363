"""Round-3 Gaussian-mechanism candidates (written from Dwork & Roth 2014, Sec. 3.5.3 and Balle & Wang 2018).

Each function releases f(X) + noise for the query value it is given.
"""

import functools
import math

import numpy as np


def exact_once_in_500(value, *, sigma, sensitivity, rng):
    """Leaky: a 'debug pass-through' left on — one call in 500 returns f(X) with no noise (an atom
    of mass 2e-3, far above delta = 1e-5)."""
    query = np.asarray(value, dtype=float)
    if rng.random() < 1.0 / 500.0:
        return query.copy()
    return query + sigma * rng.standard_normal(query.shape)


def noise_relative_to_magnitude(value, *, sigma, sensitivity, rng):
    """Leaky: the noise is capped at a fraction of the answer's size 'so large counts are not drowned':
    above |f(X)| = 50 the standard deviation is sigma * 50 / |f(X)|, which goes to 0."""
    query = np.asarray(value, dtype=float)
    size = float(np.max(np.abs(query)))
    scale = sigma * min(1.0, 50.0 / size) if size > 0 else sigma
    return query + scale * rng.standard_normal(query.shape)


def _gaussian_delta(epsilon, mu):
    """Balle & Wang 2018, Thm 8: delta(epsilon) of the Gaussian mechanism with Delta / sigma = mu."""
    upper = 0.5 * math.erfc(-(mu / 2 - epsilon / mu) / math.sqrt(2))
    lower = 0.5 * math.erfc(-(-mu / 2 - epsilon / mu) / math.sqrt(2))
    return upper - math.exp(epsilon) * lower


@functools.lru_cache(maxsize=64)  # the calibration is the same for every call
def _analytic_sigma(epsilon, delta, sensitivity):
    """The smallest sigma whose exact delta(epsilon) is at most delta, by bisection on mu."""
    low, high = 1e-6, 50.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if _gaussian_delta(epsilon, middle) <= delta else (low, middle)
    return sensitivity / low


def analytic_calibration(value, *, epsilon, delta, l2_sensitivity, rng):
    """Private: the analytic Gaussian mechanism (Balle & Wang 2018, Alg. 1 in spirit), sigma from the
    exact profile with a 1% margin — about 4x less noise than the classical calibration
    sqrt(2 ln(1.25/delta)) Delta / epsilon, and still (epsilon, delta)-DP."""
    sigma = 1.01 * _analytic_sigma(epsilon, delta, l2_sensitivity)
    query = np.asarray(value, dtype=float)
    return query + sigma * rng.standard_normal(query.shape)
