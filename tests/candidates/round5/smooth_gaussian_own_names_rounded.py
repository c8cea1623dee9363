"""Smooth-sensitivity Gaussian (Balle et al. 2016, Lemma 1, main-text constants) written our way:
alpha from ln(4/delta^2) = 2 ln(2/delta), the generator passed positionally, our own keyword names,
and the release rounded to 4 decimals for the dashboard (post-processing)."""

import math

import numpy as np


def smooth_release(data, generator, *, eps, dlt, dim):
    alpha = 5.0 * math.sqrt(math.log(4.0 / dlt**2)) / eps
    theta = np.array(data["theta"], dtype=float)
    assert theta.shape == (dim,)
    noisy = theta + generator.normal(0.0, alpha * float(data["smooth_bound"]), size=dim)
    return np.round(noisy, 4)


def _batch(data, n, generator, *, eps, dlt, dim):
    alpha = 5.0 * math.sqrt(math.log(4.0 / dlt**2)) / eps
    theta = np.array(data["theta"], dtype=float)
    return np.round(theta + generator.normal(0.0, alpha * float(data["smooth_bound"]), size=(n, dim)), 4)


smooth_release.sample = _batch
