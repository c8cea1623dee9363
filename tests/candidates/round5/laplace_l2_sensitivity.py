"""Laplace release of a 4-bin histogram-like vector; each coordinate moves by at most coord_bound.
Sensitivity computed as the Euclidean norm of the per-coordinate bounds (L2, not L1)."""

import numpy as np


def noisy_vector(value, *, epsilon, coord_bound, rng):
    v = np.asarray(value, dtype=float)
    sensitivity = np.linalg.norm(np.full(v.shape, coord_bound))  # = coord_bound * sqrt(d)
    return v + rng.laplace(0.0, sensitivity / epsilon, size=v.shape)


def _sample(value, n, *, epsilon, coord_bound, rng):
    v = np.asarray(value, dtype=float)
    sensitivity = np.linalg.norm(np.full(v.shape, coord_bound))
    return v + rng.laplace(0.0, sensitivity / epsilon, size=(n, *v.shape))


noisy_vector.sample = _sample
