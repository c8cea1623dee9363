"""One GPOPE step with uniformly sampled record, noise normalised per dimension (round 10, candidate 06) -- LEAKY.

What it implements: Xie et al. 2019, Algorithm 1, one iteration: pick one record uniformly at random
(``uniform_one``), clip its gradient to L2 norm h, add Gaussian noise.  The signature is the kind's own
(``gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling='uniform_one', rng)``).

The bug: the user wants the *noise vector* to have the size h * sigma, and writes
``h * sigma * standard_normal(d) / sqrt(d)`` (so that E||noise||^2 = (h sigma)^2), confusing the norm of the
noise vector with the per-coordinate standard deviation that the privacy analysis needs.  With d = 4 the
per-coordinate noise is h sigma / 2: half of what the claim is computed for.

True epsilon at delta = 1e-5 (m = 4, h = 1, sigma = 3, d = 4): the worst replace-one pair of the
uniform-one step is N(h) against (1 - 1/m) N(h) + (1/m) N(-h) (the other records' clipped gradients at the
replaced one's old value, the new one antipodal); with per-coordinate noise 1.5 instead of 3 its epsilon is
4.31 against the claim 1.36 (the claim is the reference's exact epsilon, 1.3548, rounded up).
truth/truth_c06_gpope_step_noise_norm.py (1-D exact, plus a 2-D quadrature for centres off the line).
"""

from __future__ import annotations

import math

import numpy as np


def _clip(rows: np.ndarray, h: float) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    scale = np.where(norms > h, h / np.where(norms > 0, norms, 1.0), 1.0)
    return rows * scale


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    if sampling != "uniform_one":
        raise ValueError("this implementation samples one record per step (uniform_one)")
    g = np.asarray(gradients, dtype=float)
    m, d = g.shape
    if m != records:
        raise ValueError(f"expected {records} records, got {m}")
    chosen = _clip(g[rng.integers(m)], clip_norm)
    noise = rng.standard_normal(d) * (clip_norm * noise_multiplier / math.sqrt(d))  # ||noise|| ~ h sigma
    return chosen + noise


def _gpope_step_many(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    if sampling != "uniform_one":
        raise ValueError("this implementation samples one record per step (uniform_one)")
    g = np.asarray(gradients, dtype=float)
    m, d = g.shape
    if m != records:
        raise ValueError(f"expected {records} records, got {m}")
    chosen = _clip(g, clip_norm)[rng.integers(m, size=n)]
    return chosen + rng.standard_normal((n, d)) * (clip_norm * noise_multiplier / math.sqrt(d))


gpope_step.sample = _gpope_step_many
