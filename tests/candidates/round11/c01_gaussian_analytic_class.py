"""Gaussian release of a bounded-L2 statistic, calibrated with the analytic Gaussian mechanism.

Our analytics pipeline computes a statistic vector f(X) whose L2 sensitivity we bound
separately; this module only adds the noise.  The noise is calibrated with the *analytic*
Gaussian mechanism (Balle & Wang 2018, Theorem 8) rather than the classical
sqrt(2 ln(1.25/delta)) formula: we bisect on sigma until

    Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) <= delta,   mu = l2_sensitivity / sigma,

keep the upper end of the bracket and round it up to four decimals (more noise, never less:
the float evaluation of the bound at the bracket's end is not exact).

Noise is drawn by inversion: a uniform on the open interval (0, 1) built from 53 random
bits, pushed through the inverse normal CDF.  A release object is used so the calibration
is cached per (eps, delta, sensitivity).

Calling convention (ours): release(x, gen, eps=..., delta=..., l2_sensitivity=...) and the
batched release.sample(x, n, gen, eps=..., delta=..., l2_sensitivity=...).
"""

import math

import numpy as np
from scipy.special import ndtr, ndtri


class AnalyticGaussianRelease:
    """x + N(0, sigma^2 I) with sigma from the analytic Gaussian mechanism."""

    _TWO53 = float(2**53)

    def __init__(self, iterations=200):
        self.iterations = iterations
        self._cache = {}

    @staticmethod
    def _delta_of(mu, eps):
        return ndtr(mu / 2.0 - eps / mu) - math.exp(eps) * ndtr(-mu / 2.0 - eps / mu)

    def sigma_for(self, eps, delta, l2_sensitivity):
        key = (float(eps), float(delta), float(l2_sensitivity))
        if key in self._cache:
            return self._cache[key]
        if eps <= 0 or not 0 < delta < 1 or l2_sensitivity <= 0:
            raise ValueError("need eps > 0, 0 < delta < 1, l2_sensitivity > 0")
        lo, hi = 1e-6 * l2_sensitivity, 1.0 * l2_sensitivity
        while self._delta_of(l2_sensitivity / hi, eps) > delta:
            hi *= 2.0
        for _ in range(self.iterations):
            mid = 0.5 * (lo + hi)
            if self._delta_of(l2_sensitivity / mid, eps) > delta:
                lo = mid
            else:
                hi = mid
        sigma = math.ceil(hi * 1e4) / 1e4  # round up to 4 decimals: float bisection is not a proof
        self._cache[key] = sigma
        return sigma

    def _standard_normals(self, gen, shape):
        bits = gen.integers(0, 2**53, size=shape, dtype=np.int64)
        u = (bits.astype(np.float64) + 0.5) / self._TWO53  # strictly inside (0, 1)
        return ndtri(u)

    def __call__(self, x, gen, *, eps, delta, l2_sensitivity):
        x = np.asarray(x, dtype=np.float64)
        sigma = self.sigma_for(eps, delta, l2_sensitivity)
        return x + sigma * self._standard_normals(gen, x.shape)

    def sample(self, x, n, gen, *, eps, delta, l2_sensitivity):
        x = np.asarray(x, dtype=np.float64)
        sigma = self.sigma_for(eps, delta, l2_sensitivity)
        return x[None, ...] + sigma * self._standard_normals(gen, (int(n), *x.shape))


release = AnalyticGaussianRelease()
