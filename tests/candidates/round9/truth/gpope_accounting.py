"""Accounting for N uniformly sampled GPOPE steps (one of m trajectories per step, replace-one).

One step outputs clip_h(B_i) + h sigma Z with i uniform on [m]. By Balle, Barthe & Gaboardi 2018
(Thm 10, sampling without replacement, substitution; base sensitivity 2h), each step's profile in
either direction is at most q delta_G(ln(1 + (e^eps - 1)/q)), q = 1/m, mu = 2/sigma, and the pair
Q = (1-q) N(0,1) + q N(mu,1) vs P = N(0,1) attains it ("all other trajectories' clipped gradients
equal to the target's, the target replaced by its opposite"). The claim for N steps is the N-fold
composition of that pair, taking the worst over both directions and, for N = 2, over the mixed
orientations (Q x P vs P x Q) as well: 2-D grid integration (span 11, 2401^2 points). This
reproduces the 3.1595 of specs/examples/gpope_candidate.toml (m = 2, sigma = 2, N = 2, delta = 1e-3).
theta_{N+1} is a post-processing of the N noisy gradients, so its epsilon is at most this.
"""

import math

import numpy as np
from common import epsilon_from_profile
from scipy import stats


def two_step_epsilon(m, sigma, delta, n=2401, span=11.0):
    q, mu = 1.0 / m, 2.0 / sigma
    x = np.linspace(-span, span + mu, n)
    dx = x[1] - x[0]
    p1 = stats.norm.pdf(x)
    q1 = (1 - q) * stats.norm.pdf(x) + q * stats.norm.pdf(x, mu)
    combos = [(np.outer(q1, q1), np.outer(p1, p1)), (np.outer(q1, p1), np.outer(p1, q1))]

    def prof(e):
        worst = 0.0
        for A, B in combos:
            worst = max(
                worst,
                np.maximum(A - math.exp(e) * B, 0).sum() * dx * dx,
                np.maximum(B - math.exp(e) * A, 0).sum() * dx * dx,
            )
        return worst

    return epsilon_from_profile(prof, delta)
