"""Smooth-sensitivity Gaussian release (Lemma 1). alpha = 5 sqrt(2 log(2/delta)) / epsilon with
np.log10 where the natural log belongs (alpha 1.5x too small)."""

import numpy as np


def smooth_gaussian(data, *, epsilon, delta, dim, constants="main_text", rng):
    alpha = 5.0 * np.sqrt(2.0 * np.log10(2.0 / delta)) / epsilon
    theta = np.asarray(data["theta"], dtype=float)
    return theta + alpha * data["smooth_bound"] * rng.standard_normal(dim)


smooth_gaussian.sample = lambda data, n, *, epsilon, delta, dim, constants="main_text", rng: (
    np.asarray(data["theta"], dtype=float)
    + 5.0 * np.sqrt(2.0 * np.log10(2.0 / delta)) / epsilon * data["smooth_bound"] * rng.standard_normal((n, dim))
)
