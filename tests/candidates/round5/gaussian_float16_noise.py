"""Gaussian mechanism; noise drawn in half precision (our inference stack is fp16) and added to the
float64 value."""

import numpy as np


def gaussian(value, *, sigma, sensitivity, rng):
    noise = (sigma * rng.standard_normal(len(value))).astype(np.float16)
    return np.asarray(value, dtype=np.float64) + noise


def _sample(value, n, *, sigma, sensitivity, rng):
    noise = (sigma * rng.standard_normal((n, len(value)))).astype(np.float16)
    return np.asarray(value, dtype=np.float64) + noise


gaussian.sample = _sample
