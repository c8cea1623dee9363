"""DP-LSW (Balle, Gomrokchi & Precup 2016, Algorithm 1) with tabular features, as a user wrote it.

Bug: the Monte Carlo statistics are every-visit, not first-visit. ``counts[s]`` is incremented on every step
that is in state s, and F_X(s) is the mean of the returns from every such step. Algorithm 1's variance uses
|X_s|, the number of *trajectories* that visit s (eq. (9); Corollary 3 needs ||<X> - <X'>||_inf <= 1 for
neighbours). With every-visit counts one trajectory can add hundreds to |X_s|, so phi_X(k) and psi_X shrink
with the length of a trajectory while that one trajectory still moves theta_X by up to F_max per state.

Truth (claim: replace_one, n_states = 5, tabular, gamma = 0.9, R_max = 1, so F_max = 10, epsilon = 2,
delta = 0.05; alpha = 5 sqrt(2 ln 40) / 2 = 6.790, beta = 2 / (4 (5 + ln 40)) = 0.05754):

- The correct code (first visits) is Algorithm 1, (2, 0.05)-DP by Theorem 6: private.
- Witness: X = {tau_1}, X' = {tau_0}, where tau_1 cycles through the states 0, 1, 2, 3, 4 for 1000 steps
  with every reward 1 and tau_0 makes the same steps with every reward 0 (specs/lsw_every_visit_pairs.json).
  Both sides have the every-visit counts (200, ..., 200), so psi is the same: the max of
  e^(-k beta) 5 / max(200 - k, 1)^2 over 0 <= k <= 200 is 5 / 200^2 = 1.25e-4, at k = 0 (the last term,
  5 e^(-199 beta), is 1.1e-5). sigma = alpha F_max sqrt(psi) = 0.759 on both sides, while theta_X - theta_X'
  is the every-visit mean return of each state, 9.89 to 9.93, so ||theta_X - theta_X'||_2 = 22.16:
  a Gaussian mechanism with mu = 29.19, epsilon(0.05) = 473 (truth/truths.py). The correct code releases
  sigma = alpha F_max sqrt(5) = 151.8 on this pair (mu = 0.146).
- Over all pairs epsilon is unbounded: the longer the cycling trajectory, the smaller sigma (psi ~ 5 / L^2).
  true_epsilon = inf.
"""

import math

import numpy as np


def _returns(rewards, gamma):
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def mc_statistics(dataset, n_states, gamma):
    """Visit counts and mean returns per state."""
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for trajectory in dataset:
        states = np.array([int(step[0]) for step in trajectory], dtype=int)
        rewards = np.array([float(step[2]) for step in trajectory])
        returns = _returns(rewards, gamma)
        np.add.at(counts, states, 1.0)
        np.add.at(sums, states, returns)
    means = np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)
    return counts, means


def theta_and_sigma(dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None):
    """theta_X (eq. (8), tabular: theta = F_X) and sigma_X of Algorithm 1."""
    if features != "tabular":
        raise ValueError("only tabular features are implemented")
    w = np.ones(n_states) if weights is None else np.asarray(weights, dtype=float)
    counts, means = mc_statistics(dataset, n_states, gamma)
    theta = means  # (Phi^T Gamma Phi)^-1 Phi^T Gamma F_X with Phi = I
    d = n_states
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    k = np.arange(int(counts.max()) + 1)[:, None]
    phi_k = (w / np.maximum(counts - k, 1.0) ** 2).sum(axis=1)
    psi = float(np.max(np.exp(-beta * k[:, 0]) * phi_k))
    pinv_norm = 1.0 / math.sqrt(w.min())  # ||(Gamma^1/2 Phi)^+|| for Phi = I
    bound = r_max / (1.0 - gamma) if f_max is None else f_max
    return theta, alpha * bound * pinv_norm * math.sqrt(psi)


def dp_lsw(dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None, rng, **_):
    theta, sigma = theta_and_sigma(
        dataset,
        n_states=n_states,
        features=features,
        gamma=gamma,
        r_max=r_max,
        epsilon=epsilon,
        delta=delta,
        weights=weights,
        f_max=f_max,
    )
    return theta + sigma * rng.standard_normal(theta.shape)


def _sample(dataset, n, *, rng, **params):
    params.pop("constant_set", None)
    theta, sigma = theta_and_sigma(dataset, **params)
    return theta + sigma * rng.standard_normal((n, *theta.shape))


dp_lsw.sample = _sample
