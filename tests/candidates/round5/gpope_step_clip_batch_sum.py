"""One GPOPE step with Poisson sampling, DP-SGD style: sum the sampled gradients, then clip the batch
gradient to h (clipping after aggregation), add h*sigma*N."""

import numpy as np


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    G = np.asarray(gradients, dtype=float)
    batch = G[rng.random(records) < 1.0 / records].sum(axis=0)
    norm = np.linalg.norm(batch)
    if norm > clip_norm:
        batch = batch * clip_norm / norm
    return batch + clip_norm * noise_multiplier * rng.standard_normal(G.shape[1])


def _sample(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    G = np.asarray(gradients, dtype=float)
    batch = (rng.random((n, records)) < 1.0 / records) @ G
    norms = np.linalg.norm(batch, axis=1, keepdims=True)
    batch = batch * np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
    return batch + clip_norm * noise_multiplier * rng.standard_normal((n, G.shape[1]))


gpope_step.sample = _sample
