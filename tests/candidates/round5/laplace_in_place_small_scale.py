"""Laplace mechanism with the noise added into the caller's list in place -- and a scale 10x too small
(0.1 where sensitivity/epsilon = 1 belongs)."""

import numpy as np


def laplace(value, *, scale, sensitivity, rng):
    for i in range(len(value)):
        value[i] += rng.laplace(0.0, 0.1 * scale)
    return np.asarray(value, dtype=float)
