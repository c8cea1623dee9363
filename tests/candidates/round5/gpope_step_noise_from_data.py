"""One GPOPE step, Poisson sampling. The noise is h*sigma, but "no point adding noise bigger than the
largest gradient": the scale is sigma * min(h, largest row norm of the batch matrix)."""

import numpy as np


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    G = np.asarray(gradients, dtype=float)
    norms = np.linalg.norm(G, axis=1)
    clipped = G * np.minimum(1.0, clip_norm / np.maximum(norms, 1e-12))[:, None]
    picked = rng.random(records) < 1.0 / records
    scale = noise_multiplier * min(clip_norm, norms.max())
    return clipped[picked].sum(axis=0) + scale * rng.standard_normal(G.shape[1])
