"""Laplace mechanism; outputs are clamped to a "plausible range" around the data,
[min(value) - 3 b, max(value) + 3 b], to avoid absurd releases."""

import numpy as np


def laplace(value, *, scale, sensitivity, rng):
    v = np.asarray(value, dtype=float)
    out = v + rng.laplace(0.0, scale, size=v.shape)
    return np.clip(out, v.min() - 3 * scale, v.max() + 3 * scale)


def _sample(value, n, *, scale, sensitivity, rng):
    v = np.asarray(value, dtype=float)
    out = v + rng.laplace(0.0, scale, size=(n, *v.shape))
    return np.clip(out, v.min() - 3 * scale, v.max() + 3 * scale)


laplace.sample = _sample
