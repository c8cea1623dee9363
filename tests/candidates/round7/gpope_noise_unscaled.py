"""Gradient-perturbed off-policy evaluation (GPOPE, Xie, Thomas & Miklau 2019, Algorithm 1) in the author's
own names: ``private_gtd2(table, *, clip, sigma, n_iter, lr, rng)``, constant step size lr, (theta_1, w_1) = 0.

Each iteration picks one trajectory uniformly, forms its primal-dual GTD2 gradient
B_i(theta, w) = [-A_i^T w; A_i theta + C_i w - b_i] (eqs. (2.2), (4.1)), clips it to norm h = ``clip`` and adds
noise, then steps (theta, w) -= lr * noisy gradient; the release is theta_{N+1}.

Bug: step 6 reads "sample zeta ~ N(0, sigma^2 I) and compute B~ = B_bar + h zeta"; the code draws
``sigma * rng.standard_normal(...)`` and adds it, dropping the factor h. The noise multiplier sigma is meant
relative to the clip norm; with h = 100 the noise is 100 times too small.

Truth (claim: replace_one, m = 2 trajectories, N = 2 iterations, h = 100, sigma = 2, delta = 1e-3):

- The correct code is N = 2 adaptively composed steps, each (sampling one of m = 2 trajectories) dominated
  by (1/2 N(2h, (h sigma)^2) + 1/2 N(0, (h sigma)^2), N(0, (h sigma)^2)); the two-fold product of that pair has
  epsilon(1e-3) = 3.1595 (truth/truths.py, 2-D quadrature). Claim 3.16: private.
- Witness (the spec's pair): two one-transition trajectories with phi = 1, phi_next = 0, rho = 1 (so A_i = C_i = 1,
  b_i = r_i), rewards (0, 30) vs (0, -30), lr = 1. Without clipping, theta_2 = -z_1 and w_2 = r_{i_1} - z_2, and
  theta_3 = theta_2 - (-w_2 + z_3) = r_{i_1} - z_1 - z_2 - z_3 with z_j ~ N(0, sigma^2) = N(0, 4): the release is
  1/2 N(0, 12) + 1/2 N(30, 12) vs 1/2 N(0, 12) + 1/2 N(-30, 12). The gradients' norms stay below h = 100 unless
  some |z_j| > 13.5 (6.7 standard deviations; probability < 3e-11, added to delta). epsilon(1e-3) = 61.6
  (truth/truths.py): the loss (60 y - 900) / 24 is linear in y and the N(30, 12) part's right tail carries 1e-3
  beyond y = 40. Rewards are unbounded in the table, so the shift, and epsilon, are too: true_epsilon = inf.
"""

import itertools

import numpy as np


def _trajectory_terms(table):
    """Per trajectory: the linear map G_i and constant g_i with B_i(theta, w) = G_i [theta; w] + g_i."""
    phi = np.asarray(table["phi"], dtype=float)
    phi_next = np.asarray(table["phi_next"], dtype=float)
    rewards = np.asarray(table["rewards"], dtype=float)
    rho = np.asarray(table["rho"], dtype=float)
    offsets = [int(o) for o in table["offsets"]]
    gamma = float(table["gamma"])
    n = phi.shape[1]
    maps, consts = [], []
    for lo, hi in itertools.pairwise(offsets):
        tau = hi - lo
        f, fn, rh = phi[lo:hi], phi_next[lo:hi], rho[lo:hi]
        a = (rh[:, None] * f).T @ (f - gamma * fn) / tau
        b = (rh * rewards[lo:hi]) @ f / tau
        c = f.T @ f / tau
        big = np.zeros((2 * n, 2 * n))
        big[:n, n:] = -a.T
        big[n:, :n] = a
        big[n:, n:] = c
        const = np.concatenate([np.zeros(n), -b])
        maps.append(big)
        consts.append(const)
    return np.array(maps), np.array(consts), n


def _run(table, releases, clip, sigma, n_iter, lr, rng):
    maps, consts, n = _trajectory_terms(table)
    state = np.zeros((releases, 2 * n))
    for _ in range(n_iter):
        i = rng.integers(len(maps), size=releases)
        grad = np.einsum("rij,rj->ri", maps[i], state) + consts[i]
        grad = grad / np.maximum(1.0, np.linalg.norm(grad, axis=1, keepdims=True) / clip)
        grad = grad + sigma * rng.standard_normal(grad.shape)
        state = state - lr * grad
    return state[:, :n]


def private_gtd2(table, *, clip, sigma, n_iter, lr, rng):
    return _run(table, 1, clip, sigma, n_iter, lr, rng)[0]


def _private_gtd2_sample(table, n, *, clip, sigma, n_iter, lr, rng):
    return _run(table, n, clip, sigma, n_iter, lr, rng)


private_gtd2.sample = _private_gtd2_sample
