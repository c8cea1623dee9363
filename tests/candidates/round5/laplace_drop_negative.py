"""Laplace release that drops the coordinates whose noisy value is negative ("counts can't be negative")."""

import numpy as np


def laplace(value, *, scale, sensitivity, rng):
    out = np.asarray(value, dtype=float) + rng.laplace(0.0, scale, len(value))
    return out[out >= 0]
