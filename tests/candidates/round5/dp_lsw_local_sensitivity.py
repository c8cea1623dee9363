"""DP-LSW, vectorised. The engineer took the noise scale from the local sensitivity at X:
sigma = alpha * F_max * sqrt(phi_X(0)) -- no smoothing over k (psi replaced by phi(0))."""

import numpy as np


def _first_visit(dataset, n_states, gamma):
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for traj in dataset:
        arr = np.asarray(traj, dtype=float).reshape(-1, 3)
        states = arr[:, 0].astype(int)
        discounts = gamma ** np.arange(len(arr))
        tail = np.cumsum((arr[:, 2] * discounts)[::-1])[::-1] / discounts  # return from each step
        first = np.unique(states, return_index=True)[1]
        counts[states[first]] += 1
        sums[states[first]] += tail[first]
    return counts, np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)


def _theta_sigma(dataset, n_states, gamma, r_max, epsilon, delta, f_max):
    counts, theta = _first_visit(dataset, n_states, gamma)
    alpha = 5 * np.sqrt(2 * np.log(2 / delta)) / epsilon
    local = np.sum(1.0 / np.maximum(counts, 1) ** 2)  # phi_X(0): the local sensitivity profile
    bound = f_max if f_max is not None else r_max / (1 - gamma)
    return theta, alpha * bound * np.sqrt(local)


def dp_lsw(dataset, *, n_states, features, gamma, r_max, epsilon, delta, f_max=None, rng):
    theta, sigma = _theta_sigma(dataset, n_states, gamma, r_max, epsilon, delta, f_max)
    return theta + sigma * rng.standard_normal(n_states)


def _sample(dataset, n, *, n_states, features, gamma, r_max, epsilon, delta, f_max=None, rng):
    theta, sigma = _theta_sigma(dataset, n_states, gamma, r_max, epsilon, delta, f_max)
    return theta + sigma * rng.standard_normal((n, n_states))


dp_lsw.sample = _sample
