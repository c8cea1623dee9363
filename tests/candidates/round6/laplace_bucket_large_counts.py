"""My noisy count: Laplace(scale) on small counts; counts of 10,000 or more are "protected by coarsening":
released rounded to the nearest hundred, without noise (the noise is negligible at that size anyway).

BUG (branch on the input): the release of a large count is deterministic. Neighbours 9,999 vs 10,000 give
a continuous law against the atom {10,000}; 10,049 vs 10,050 give the atoms {10,000} vs {10,100}. True
epsilon: inf (at delta = 0). Below 10,000 it is the Laplace mechanism (epsilon = sensitivity / scale = 1).
"""

import numpy as np

LARGE = 10_000


def laplace(value, *, scale, sensitivity, rng):
    x = np.asarray(value, dtype=float)
    noisy = x + rng.laplace(0.0, scale, x.shape)
    return np.where(np.abs(x) >= LARGE, np.round(x, -2), noisy)


def _sample(value, n, *, scale, sensitivity, rng):
    x = np.asarray(value, dtype=float)
    noisy = x + rng.laplace(0.0, scale, (n, *x.shape))
    return np.where(np.abs(x) >= LARGE, np.round(x, -2), noisy)


laplace.sample = _sample
