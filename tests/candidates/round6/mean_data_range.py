"""My private mean of values known to lie in [lower, upper]: clip, average, add Laplace noise.

BUG: the sensitivity is computed from the data, (max(x) - min(x)) / n, the observed range, instead of
the declared bound (upper - lower) / n. The noise scale then depends on the dataset: a dataset whose values
are all equal is released with no noise at all (an atom at its mean), and any replace-one pair that
changes the range has Laplace laws of different scales, whose density ratio is unbounded in the tails.
True epsilon: inf (at delta = 0).
"""

import numpy as np


def _stats(values, lower, upper):
    x = np.clip(np.asarray(values, dtype=float), lower, upper)
    n = len(x)
    sensitivity = (x.max() - x.min()) / n
    return x.mean(), sensitivity


def private_mean(values, *, epsilon, lower, upper, rng):
    mean, sensitivity = _stats(values, lower, upper)
    return float(mean + rng.laplace(0.0, sensitivity / epsilon))


def _sample(values, n, *, epsilon, lower, upper, rng):
    mean, sensitivity = _stats(values, lower, upper)
    return mean + rng.laplace(0.0, sensitivity / epsilon, n)


private_mean.sample = _sample


def make_dataset(rng):
    """Five survey answers, integers 0..10."""
    return [int(v) for v in rng.integers(0, 11, 5)]
