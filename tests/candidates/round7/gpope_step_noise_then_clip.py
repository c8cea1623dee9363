"""One GPOPE gradient step (Xie, Thomas & Miklau 2019, Algorithm 1, steps 2, 5, 6): pick one of the m
per-trajectory gradients uniformly, clip it to L2 norm h, add h N(0, sigma^2 I).

Bug: steps 5 and 6 in the wrong order. The code adds the noise first and clips the noisy gradient,
clip_h(B_i + h sigma zeta), "so that the update never exceeds h". The clip then no longer bounds the
contribution of one trajectory: a huge gradient is clipped to (almost) the point h B_i / ||B_i|| of the
circle, while the noise-only releases of the other trajectories spread over the whole circle.

Truth (claim: replace_one, m = 4, h = 2, sigma = 2, uniform_one sampling, delta = 1e-3):

- The correct code is the subsampled Gaussian step. Its dominating pair under replace-one with uniform
  sampling of one record (sampling without replacement; Zhu, Dong & Wang 2022) is
  (q N(2h, (h sigma)^2) + (1 - q) N(0, (h sigma)^2), N(0, (h sigma)^2)), q = 1/4: epsilon(1e-3) = 1.4723
  (truth/truths.py; a grid over collinear configurations gives the same value). Claim 1.48: private.
- Witness (the spec's pair): records (0.5, 0), (0, -0.5), (-0.3, 0.3) and the fourth (300, -400) vs (-300, 400).
  With probability 1/4 the release is clip_2((300, -400) + 4 zeta), within 0.01 rad of the angle of
  (3, -4) on the circle of radius 2; the noise-only releases put 0.88 of their mass on the circle, spread over
  every angle. Exact law on the disc and the circle (truth/truths.py): epsilon(1e-3) = 4.78 (2.55 for the
  fourth record (30, -40) vs (-30, 40), 6.99 for (3000, -4000)). The arc narrows as ||B_i|| grows:
  true_epsilon = inf.
"""

import numpy as np


def _clip(v, h):
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(1.0, norms / h)


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    if sampling != "uniform_one":
        raise ValueError("only uniform_one sampling is implemented")
    g = np.asarray(gradients, dtype=float)
    picked = g[rng.integers(g.shape[0])]
    noisy = picked + clip_norm * noise_multiplier * rng.standard_normal(g.shape[1])
    return _clip(noisy, clip_norm)


def _gpope_step_sample(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    if sampling != "uniform_one":
        raise ValueError("only uniform_one sampling is implemented")
    g = np.asarray(gradients, dtype=float)
    picked = g[rng.integers(g.shape[0], size=n)]
    noisy = picked + clip_norm * noise_multiplier * rng.standard_normal((n, g.shape[1]))
    return _clip(noisy, clip_norm)


gpope_step.sample = _gpope_step_sample
