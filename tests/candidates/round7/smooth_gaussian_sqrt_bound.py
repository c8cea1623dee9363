"""Smooth-sensitivity Gaussian output perturbation (Balle, Gomrokchi & Precup 2016, Lemma 1, main-text
constants): release theta + alpha S(X) N(0, I_d), alpha = 5 sqrt(2 ln(2/delta)) / epsilon.

Bug: the author carried over the habit from Algorithms 1 and 2, where the smooth quantity psi_X is a bound on
a *squared* sensitivity and the noise scale is C sqrt(psi_X), and wrote sigma = alpha sqrt(S(X)). Here S(X) is
the smooth bound on the sensitivity itself (||theta - theta'|| <= min(S(X), S(X'))), so the noise is too small
by a factor sqrt(S(X)) whenever S(X) > 1 (and too large below 1).

Truth (claim: replace_one on inputs meeting Lemma 1's conditions, epsilon = 1, delta = 1e-3, dim = 2;
alpha = 5 sqrt(2 ln 2000) = 19.49):

- The correct code (sigma = alpha S) meets Lemma 1's conditions (a) and (b) on every admissible pair: the claim
  holds (truth/truths.py: the worst admissible pair at d = 2 has epsilon(1e-3) = 0.148). private.
- The spec's own pair has S = 1, where the bug is invisible.
- Witness: {theta = (0, 0), S = 10^4} vs {theta = (10^4, 0), S = 10^4}: sigma = alpha * 100 = 1949 on both sides,
  the shift is 10^4: a Gaussian mechanism with mu = sqrt(S) / alpha = 5.13, epsilon(1e-3) = 28.2.
  mu grows with sqrt(S) without bound: true_epsilon = inf.
"""

import math

import numpy as np


def _scale(smooth_bound, epsilon, delta):
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    return alpha * math.sqrt(smooth_bound)


def smooth_gaussian(data, *, epsilon, delta, dim, rng):
    theta = np.asarray(data["theta"], dtype=float)
    if theta.shape != (dim,):
        raise ValueError(f"theta has shape {theta.shape}, expected ({dim},)")
    return theta + _scale(float(data["smooth_bound"]), epsilon, delta) * rng.standard_normal(dim)


def _sample(data, n, *, epsilon, delta, dim, rng):
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _scale(float(data["smooth_bound"]), epsilon, delta) * rng.standard_normal((n, dim))


smooth_gaussian.sample = _sample
