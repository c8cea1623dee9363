"""One noisy GTD2 gradient step with Poisson sampling (Xie, Thomas & Miklau 2019, Alg. 1, one step).

Round 9 corpus candidate (see truth/truth_c05_gpope_step_poisson_mask.py).

Every record is kept independently with probability 1/m (m = ``records``, public); the kept
gradients are clipped to L2 norm h (step 5) and summed; h N(0, sigma^2 I) is added (step 6).
Clipping is a multiplicative factor min(1, h / ||g||) computed for all rows at once; the inclusion
mask is drawn with ``rng.binomial``.
"""

import numpy as np


def _clip_rows(gradients, clip_norm):
    matrix = np.asarray(gradients, dtype=float)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    factors = np.ones_like(norms)
    big = norms > clip_norm
    factors[big] = clip_norm / norms[big]
    return matrix * factors[:, None]


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    if steps != 1 or sampling != "poisson":
        raise ValueError("this implementation is the single Poisson-sampled step")
    clipped = _clip_rows(gradients, clip_norm)
    keep = rng.binomial(1, 1.0 / records, size=clipped.shape[0]).astype(float)
    noise = rng.normal(0.0, clip_norm * noise_multiplier, size=clipped.shape[1])
    return keep @ clipped + noise


def _gpope_step_many(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    if steps != 1 or sampling != "poisson":
        raise ValueError("this implementation is the single Poisson-sampled step")
    clipped = _clip_rows(gradients, clip_norm)
    keep = rng.binomial(1, 1.0 / records, size=(n, clipped.shape[0])).astype(float)
    noise = rng.normal(0.0, clip_norm * noise_multiplier, size=(n, clipped.shape[1]))
    return keep @ clipped + noise


gpope_step.sample = _gpope_step_many
