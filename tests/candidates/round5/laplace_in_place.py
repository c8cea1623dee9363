"""Laplace mechanism that adds the noise into the caller's list in place and returns it."""

import numpy as np


def laplace(value, *, scale, sensitivity, rng):
    for i in range(len(value)):
        value[i] += rng.laplace(0.0, scale)
    return np.asarray(value, dtype=float)
