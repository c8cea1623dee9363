"""Noisy histogram over the values that occur in the dataset (one noisy count per distinct value)."""

import numpy as np


def histogram(dataset, *, epsilon, rng):
    _values, counts = np.unique(np.asarray(dataset, dtype=float), return_counts=True)
    return counts + rng.laplace(0.0, 2.0 / epsilon, size=len(counts))
