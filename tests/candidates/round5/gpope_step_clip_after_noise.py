"""One GPOPE step. Our training loop clips the update that is applied, so the clip was moved after the
noise: g = sum of sampled gradients + h*sigma*N(0, I), then g is clipped to norm h."""

import numpy as np


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    G = np.asarray(gradients, dtype=float)
    if sampling == "poisson":  # noqa: SIM108 (the author's if/else, kept as written)
        g = G[rng.random(records) < 1.0 / records].sum(axis=0)
    else:
        g = G[rng.integers(records)]
    noisy = g + clip_norm * noise_multiplier * rng.standard_normal(G.shape[1])
    return noisy * min(1.0, clip_norm / max(np.linalg.norm(noisy), 1e-300))


def _sample(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    G = np.asarray(gradients, dtype=float)
    if sampling == "poisson":  # noqa: SIM108
        g = (rng.random((n, records)) < 1.0 / records) @ G
    else:
        g = G[rng.integers(records, size=n)]
    noisy = g + clip_norm * noise_multiplier * rng.standard_normal((n, G.shape[1]))
    norms = np.maximum(np.linalg.norm(noisy, axis=1, keepdims=True), 1e-300)
    return noisy * np.minimum(1.0, clip_norm / norms)


gpope_step.sample = _sample
