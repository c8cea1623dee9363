"""A Poisson-subsampled noisy gradient step (the step of Xie, Thomas & Miklau 2019, Algorithm 1, in the
Poisson-sampling form its privacy proof uses): every per-record gradient is kept with probability q = 1/m,
clipped to L2 norm h, the kept ones are summed, and h N(0, sigma^2 I) is added.
Author's signature: ``noisy_gradient(grads, generator, *, m, h, sigma)``.

No bug known to the author. Truth (claim: replace_one, m = 5, h = 1, sigma = 1.5, delta = 1e-4):

- Under replace-one the replaced record keeps its own coin: the release is R * ((1 - q) delta_0 + q delta_x) vs
  R * ((1 - q) delta_0 + q delta_x') with R the law of the other records' sum plus noise, the same on both
  sides. By joint convexity of the hockey-stick divergence the worst R is a point mass, so
  delta(eps) <= sup over ||x||, ||x'|| <= h of
  H_e^eps((1 - q) N(0, s^2) + q N(x, s^2) || (1 - q) N(0, s^2) + q N(x', s^2)), s = h sigma.
  truth/truths.py: antipodal x = -x' on the sphere gives eps(1e-4) = 1.0665, x' = 0 gives 0.861,
  angles 120 and 150 degrees give 1.023 and 1.059 (2-D quadrature). Claim 1.07: private.
- The spec's pair (record 5: (3, 4) vs (-3, -4), clipped to norm 1, the other four records 0) makes R a point
  mass and x, x' antipodal: it attains eps(1e-4) = 1.0665 (true_epsilon, the sup over the configurations tried).
"""

import numpy as np


def _clipped(grads, h):
    g = np.asarray(grads, dtype=float)
    return g / np.maximum(1.0, np.linalg.norm(g, axis=1, keepdims=True) / h)


def noisy_gradient(grads, generator, *, m, h, sigma):
    rows = _clipped(grads, h)
    keep = generator.random(rows.shape[0]) < 1.0 / m
    return rows[keep].sum(axis=0) + h * sigma * generator.standard_normal(rows.shape[1])


def _noisy_gradient_many(grads, n, generator, *, m, h, sigma):
    rows = _clipped(grads, h)
    keep = (generator.random((n, rows.shape[0])) < 1.0 / m).astype(float)
    return keep @ rows + h * sigma * generator.standard_normal((n, rows.shape[1]))


noisy_gradient.sample = _noisy_gradient_many
