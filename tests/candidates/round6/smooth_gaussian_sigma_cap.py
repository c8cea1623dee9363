"""My smooth-sensitivity Gaussian release (Balle et al. 2016, Lemma 1, main-text constants):
theta + sigma N(0, I) with sigma = alpha S(X), alpha = 5 sqrt(2 ln(2/delta)) / epsilon, but sigma capped at
max_sigma = 50 ("beyond that the estimate is useless for our values").

BUG: the cap breaks Lemma 1 whenever alpha S(X) > 50, i.e. S(X) > 3.07 at epsilon = 1, delta = 0.01
(alpha = 16.276). On the admissible pair theta = 0, S = 100 vs theta' = 100, S' = 101.9 (||theta - theta'|| =
S and ln(S'/S) = 0.0188 <= beta/2 = 0.0198) both sides have sigma = 50: a Gaussian shift mu = 2, epsilon at
0.01 = 5.998; with S = 1000, mu = 20 and epsilon = 245.6 (truth/truths.py). The supremum over admissible
pairs is inf. On the example's pair (S = 1) the cap is inactive and the release is the reference's
(epsilon 0.039 on that pair).
"""

import math

import numpy as np


def _sigma(smooth_bound, epsilon, delta, max_sigma):
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    return min(alpha * float(smooth_bound), max_sigma)


def smooth_gaussian(data, *, epsilon, delta, dim, max_sigma, rng):
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _sigma(data["smooth_bound"], epsilon, delta, max_sigma) * rng.standard_normal(theta.shape)


def _sample(data, n, *, epsilon, delta, dim, max_sigma, rng):
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _sigma(data["smooth_bound"], epsilon, delta, max_sigma) * rng.standard_normal((n, *theta.shape))


smooth_gaussian.sample = _sample
