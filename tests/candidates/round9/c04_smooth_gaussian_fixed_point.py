"""Smooth-sensitivity Gaussian release (Balle et al. 2016, Lemma 1, main-text constants).

Round 9 corpus candidate (see truth/truth_c04_smooth_gaussian_fixed_point.py).

theta + alpha S(X) N(0, I) with alpha = 5 sqrt(2 ln(2/delta)) / epsilon. The noise is stored in
fixed point (Q.10: multiples of 2^-10) so that a release is bit-for-bit reproducible on every
platform we ship to; at alpha S >= 1 the quantisation is far below the noise scale.
"""

import math

import numpy as np

_QUANTUM = 1024.0


def _scale(epsilon, delta, smooth_bound):
    return 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon * float(smooth_bound)


def smooth_gaussian(data, *, epsilon, delta, dim, constants="main_text", rng):
    theta = np.asarray(data["theta"], dtype=float).reshape(dim)
    noise = _scale(epsilon, delta, data["smooth_bound"]) * rng.standard_normal(dim)
    return theta + np.round(noise * _QUANTUM) / _QUANTUM


def _smooth_gaussian_many(data, n, *, epsilon, delta, dim, constants="main_text", rng):
    theta = np.asarray(data["theta"], dtype=float).reshape(dim)
    noise = _scale(epsilon, delta, data["smooth_bound"]) * rng.standard_normal((n, dim))
    return theta + np.round(noise * _QUANTUM) / _QUANTUM


smooth_gaussian.sample = _smooth_gaussian_many
