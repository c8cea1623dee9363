"""Private LSW policy evaluation (Balle, Gomrokchi & Precup 2016, Algorithm 1), first-visit, tabular features.

Written with the author's own names: ``lsw(data, generator, *, S, phi, discount, rmax, eps, dlt)``.

Bug: the noise is calibrated to the local-sensitivity bound of eq. (14) (Corollary 3) at X itself,
sigma_X = alpha F_max ||(Gamma^1/2 Phi)^+|| sqrt(phi_X(0)), phi_X(0) = sum_s w_s / max(|X_s|, 1)^2, instead of the
beta-smooth upper bound psi_X = max_{0<=k<=K_X} e^(-k beta) phi_X(k) of Algorithm 1. Condition (a) of Lemma 1
holds, condition (b) does not: one trajectory moves |X_s| from 1 to 2 in several states at once, and phi_X(0)
drops by up to a factor 4.

Truth (claim: replace_one, S = 5, tabular, gamma = 0.95, R_max = 1, F_max = 20, epsilon = 1, delta = 0.1;
alpha = 5 sqrt(2 ln 20) = 12.24):

- The correct code (psi_X) is Algorithm 1: (1, 0.1)-DP by Theorem 6; private.
- Witness, m = 10: X = {a, b_1, ..., b_9} with a = the walk 0, 1, 2, 3, 4 (rewards 0) and b_i = the one-step
  trajectory [0, 0, 0]; X' replaces b_9 by c = the walk 0, 1, 2, 3, 4 with rewards 1. Counts (10, 1, 1, 1, 1)
  and (10, 2, 2, 2, 2): phi(0) = 4.01 and 1.01, sigma_X = 12.24 x 20 x sqrt(4.01) = 490.2 and
  sigma_X' = 246.0 (ratio 1.99 in all 5 coordinates); ||theta_X - theta_X'||_2 = 2.62 (c's first-visit returns
  shared with a or the stubs). Two isotropic Gaussians whose scales differ by 1.99 in 5 dimensions: the privacy
  loss of the wide law against the narrow one, -5 ln 1.99 + ||y||^2 (1/(2 sigma_X'^2) - 1/(2 sigma_X^2)), grows
  without bound in the wide law's tails; epsilon(0.1) = 9.37 (truth/truths.py, exact up to quadrature; a Monte
  Carlo of the loss agrees). With m = 100 the ratio is 2.00 and epsilon(0.1) = 9.49. phi(0) changes by at most a
  factor 4 between neighbours (a count 1 -> 2), so the scale ratio is at most 2 and epsilon is finite; the sup
  over all pairs is not computed (true_epsilon omitted, >= 9.49).
"""

import math

import numpy as np


def first_visit(data, S, discount):
    """(|X_s|, F_X(s)): trajectories that visit s, mean return from their first visit (Balle et al. eq. (4))."""
    visits = np.zeros(S)
    total = np.zeros(S)
    for episode in data:
        g = 0.0
        first = {}
        ret = [0.0] * len(episode)
        for t in range(len(episode) - 1, -1, -1):
            g = float(episode[t][2]) + discount * g
            ret[t] = g
        for t, step in enumerate(episode):
            first.setdefault(int(step[0]), t)
        for s, t in first.items():
            visits[s] += 1
            total[s] += ret[t]
    return visits, np.divide(total, visits, out=np.zeros(S), where=visits > 0)


def fit(data, S, phi, discount, rmax, eps, dlt, w=None, fmax=None):
    if phi != "tabular":
        raise ValueError("phi must be 'tabular'")
    w = np.ones(S) if w is None else np.asarray(w, dtype=float)
    visits, F = first_visit(data, S, discount)
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / dlt)) / eps
    local = float(np.sum(w / np.maximum(visits, 1.0) ** 2))  # Corollary 3 at X
    ret_bound = fmax if fmax is not None else rmax / (1.0 - discount)
    sigma = alpha * ret_bound / math.sqrt(w.min()) * math.sqrt(local)
    return F, sigma


def lsw(data, generator, *, S, phi, discount, rmax, eps, dlt, w=None, fmax=None):
    F, sigma = fit(data, S, phi, discount, rmax, eps, dlt, w, fmax)
    return F + generator.normal(0.0, sigma, size=F.shape)


def _lsw_many(data, n, generator, *, S, phi, discount, rmax, eps, dlt, w=None, fmax=None):
    F, sigma = fit(data, S, phi, discount, rmax, eps, dlt, w, fmax)
    return F + generator.normal(0.0, sigma, size=(n, *F.shape))


lsw.sample = _lsw_many
