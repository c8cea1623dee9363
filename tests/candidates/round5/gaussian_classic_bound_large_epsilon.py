"""Gaussian mechanism, sigma from the classic bound sqrt(2 ln(1.25/delta)) * Delta / epsilon
(Dwork & Roth Thm A.1, stated for epsilon < 1) -- used at epsilon = 10."""

import math

import numpy as np


def gaussian(value, *, epsilon, delta, sensitivity, rng):
    sigma = math.sqrt(2 * math.log(1.25 / delta)) * sensitivity / epsilon
    return np.asarray(value, dtype=float) + rng.normal(0.0, sigma, size=len(value))


def _sample(value, n, *, epsilon, delta, sensitivity, rng):
    sigma = math.sqrt(2 * math.log(1.25 / delta)) * sensitivity / epsilon
    return np.asarray(value, dtype=float) + rng.normal(0.0, sigma, size=(n, len(value)))


gaussian.sample = _sample
