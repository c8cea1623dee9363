"""Candidates for one GPOPE step (Xie et al. 2019, Algorithm 1 steps 2, 5, 6) under the proof's
Poisson-sampling model: sample each record with probability 1/m, clip each sampled gradient to
norm h, sum, add h N(0, sigma^2 I). Claim (specs/gpope_step.toml): m = 4, h = 2, sigma = 1,
(1.76, 1e-3)-DP under replace-one."""

import numpy as np


def _sampled(gradients, records, rng):
    matrix = np.asarray(gradients, dtype=float)
    return matrix, matrix[rng.random(records) < 1.0 / records]


def _clip(rows, bound):
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(1.0, norms / bound)


def poisson_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Correct: Poisson sampling, per-record clipping to h, noise h sigma."""
    matrix, picked = _sampled(gradients, records, rng)
    total = _clip(picked, clip_norm).sum(axis=0) if len(picked) else np.zeros(matrix.shape[1])
    return total + clip_norm * noise_multiplier * rng.standard_normal(matrix.shape[1])


def more_noise(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Correct deviation: noise 1.5 h sigma."""
    matrix, picked = _sampled(gradients, records, rng)
    total = _clip(picked, clip_norm).sum(axis=0) if len(picked) else np.zeros(matrix.shape[1])
    return total + 1.5 * clip_norm * noise_multiplier * rng.standard_normal(matrix.shape[1])


def no_clipping(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Bug: forgets to clip (the sensitivity is unbounded)."""
    matrix, picked = _sampled(gradients, records, rng)
    total = picked.sum(axis=0) if len(picked) else np.zeros(matrix.shape[1])
    return total + clip_norm * noise_multiplier * rng.standard_normal(matrix.shape[1])


def clip_to_twice_h(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Bug: clips to 2 h but calibrates the noise for h."""
    matrix, picked = _sampled(gradients, records, rng)
    total = _clip(picked, 2 * clip_norm).sum(axis=0) if len(picked) else np.zeros(matrix.shape[1])
    return total + clip_norm * noise_multiplier * rng.standard_normal(matrix.shape[1])


def noise_not_scaled_by_h(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Bug: adds sigma N(0, I) instead of h sigma N(0, I) (h = 2: half the noise)."""
    matrix, picked = _sampled(gradients, records, rng)
    total = _clip(picked, clip_norm).sum(axis=0) if len(picked) else np.zeros(matrix.shape[1])
    return total + noise_multiplier * rng.standard_normal(matrix.shape[1])
