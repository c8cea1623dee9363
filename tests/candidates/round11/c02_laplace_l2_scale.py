"""Noisy per-feature sums for a feature-store dashboard.

Each record contributes to every feature, clipped to |contribution_i| <= per_feature_bound[i]
upstream, so replacing one record moves feature i of the sum vector by at most
per_feature_bound[i].  We release sums + Laplace noise, one independent draw per feature.

The noise scale is the sensitivity over epsilon, where the sensitivity of the vector is the
norm of the per-feature bounds.  Laplace noise is sampled as the difference of two unit
exponentials (E1 - E2 ~ Lap(1)).
"""

import numpy as np


def _scale(epsilon, per_feature_bound):
    bounds = np.abs(np.asarray(per_feature_bound, dtype=float))
    sensitivity = float(np.sqrt(np.sum(bounds**2)))  # norm of the per-feature bounds
    return sensitivity / float(epsilon)


def noisy_feature_sums(sums, *, epsilon, per_feature_bound, rng):
    sums = np.asarray(sums, dtype=float)
    b = _scale(epsilon, per_feature_bound)
    noise = rng.standard_exponential(sums.shape) - rng.standard_exponential(sums.shape)
    return sums + b * noise


def _noisy_feature_sums_batch(sums, n, *, epsilon, per_feature_bound, rng):
    sums = np.asarray(sums, dtype=float)
    b = _scale(epsilon, per_feature_bound)
    shape = (int(n), *sums.shape)
    noise = rng.standard_exponential(shape) - rng.standard_exponential(shape)
    return sums[None, ...] + b * noise


noisy_feature_sums.sample = _noisy_feature_sums_batch
