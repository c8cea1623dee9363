"""My private mean of values known to lie in [lower, upper]: clip, average, add Laplace((upper - lower) / (n epsilon)).

Correct under replace-one (n is the same on both sides): replacing one value moves the clipped mean by at
most (upper - lower) / n, so the Laplace mechanism is epsilon-DP (Dwork & Roth 2014, Theorem 3.6), exactly
epsilon when a value at `lower` is replaced by one at `upper`. True epsilon = 1 at the claim's epsilon = 1.
"""

import numpy as np


def private_mean(values, *, epsilon, lower, upper, rng):
    x = np.clip(np.asarray(values, dtype=float), lower, upper)
    return float(x.mean() + rng.laplace(0.0, (upper - lower) / (len(x) * epsilon)))


def _sample(values, n, *, epsilon, lower, upper, rng):
    x = np.clip(np.asarray(values, dtype=float), lower, upper)
    return x.mean() + rng.laplace(0.0, (upper - lower) / (len(x) * epsilon), n)


private_mean.sample = _sample


def make_dataset(rng):
    """Six measurements in [0, 10] (floats, one decimal)."""
    return [round(float(v), 1) for v in rng.uniform(0.0, 10.0, 6)]
