"""DP-LSW with every-visit Monte Carlo: each visit to a state counts (|X_s| = number of visits)
and contributes the return from that visit. Otherwise Algorithm 1 with the main-text constants."""

import numpy as np


def _stats(dataset, n_states, gamma):
    visits = np.zeros(n_states)
    total = np.zeros(n_states)
    for traj in dataset:
        g = 0.0
        for s, _a, r in reversed(traj):
            g = r + gamma * g
            visits[int(s)] += 1
            total[int(s)] += g
    return visits.astype(int), np.divide(total, visits, out=np.zeros(n_states), where=visits > 0)


def _theta_sigma(dataset, n_states, gamma, r_max, epsilon, delta, f_max):
    counts, theta = _stats(dataset, n_states, gamma)
    log_term = np.log(2 / delta)
    alpha = 5 * np.sqrt(2 * log_term) / epsilon
    beta = epsilon / (4 * n_states + 4 * log_term)
    ks = np.arange(counts.max() + 1)[:, None]
    phi = (1.0 / np.maximum(counts[None, :] - ks, 1) ** 2).sum(axis=1)
    psi = np.max(np.exp(-beta * ks[:, 0]) * phi)
    bound = f_max if f_max is not None else r_max / (1 - gamma)
    return theta, alpha * bound * np.sqrt(psi)


def dp_lsw(dataset, *, n_states, features, gamma, r_max, epsilon, delta, f_max=None, rng):
    theta, sigma = _theta_sigma(dataset, n_states, gamma, r_max, epsilon, delta, f_max)
    return theta + sigma * rng.standard_normal(n_states)


def _sample(dataset, n, *, n_states, features, gamma, r_max, epsilon, delta, f_max=None, rng):
    theta, sigma = _theta_sigma(dataset, n_states, gamma, r_max, epsilon, delta, f_max)
    return theta + sigma * rng.standard_normal((n, n_states))


dp_lsw.sample = _sample
