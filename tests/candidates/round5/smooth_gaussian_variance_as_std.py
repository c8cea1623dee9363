"""Lemma 1 smooth Gaussian. numpy's normal() takes the standard deviation; we passed the variance
(alpha * S)**2 (the paper writes N(0, sigma^2 I))."""

import numpy as np


def smooth_gaussian(data, *, epsilon, delta, dim, constants="main_text", rng):
    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    variance = (alpha * data["smooth_bound"]) ** 2
    return rng.normal(np.asarray(data["theta"], dtype=float), variance)


def _sample(data, n, *, epsilon, delta, dim, constants="main_text", rng):
    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    variance = (alpha * data["smooth_bound"]) ** 2
    theta = np.asarray(data["theta"], dtype=float)
    return rng.normal(theta, variance, size=(n, *theta.shape))


smooth_gaussian.sample = _sample
