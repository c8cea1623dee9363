"""DP-LSW, Algorithm 1. beta = epsilon / 4 * (d + log(2/delta))  -- operator precedence slip:
meant epsilon / (4 * (d + log(2/delta)))."""

import math

import numpy as np


def dp_lsw(dataset, *, n_states, features, gamma, r_max, epsilon, delta, f_max=None, rng):
    return _sample(
        dataset,
        1,
        n_states=n_states,
        features=features,
        gamma=gamma,
        r_max=r_max,
        epsilon=epsilon,
        delta=delta,
        f_max=f_max,
        rng=rng,
    )[0]


def _sample(dataset, n, *, n_states, features, gamma, r_max, epsilon, delta, f_max=None, rng):
    d = n_states
    counts = np.zeros(d, dtype=int)
    sums = np.zeros(d)
    for traj in dataset:
        ret = 0.0
        first = {}
        for t in range(len(traj) - 1, -1, -1):
            ret = traj[t][2] + gamma * ret
            first[int(traj[t][0])] = ret  # the earliest visit overwrites later ones
        for s, g in first.items():
            counts[s] += 1
            sums[s] += g
    theta = np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)
    alpha = 5 * math.sqrt(2 * math.log(2 / delta)) / epsilon
    beta = epsilon / 4 * (d + math.log(2 / delta))
    psi = max(math.exp(-k * beta) * sum(1.0 / max(c - k, 1) ** 2 for c in counts) for k in range(counts.max() + 1))
    sigma = alpha * (f_max if f_max is not None else r_max / (1 - gamma)) * math.sqrt(psi)
    return theta + sigma * rng.standard_normal((n, d))


dp_lsw.sample = _sample
