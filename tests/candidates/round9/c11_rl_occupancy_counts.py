"""Private state-occupancy counts of a batch of trajectories (for a private behaviour-policy model).

Round 9 corpus candidate (see truth/truth_c11_rl_occupancy_counts.py).

counts[s] = number of visits to s within the first ``horizon`` steps of every trajectory, plus
N(0, sigma^2 I). One trajectory contributes at most ``horizon`` visits in all, so its count vector
has L2 norm at most ``horizon``; sigma = horizon sqrt(2 ln(1.25/delta)) / epsilon gives
(epsilon, delta)-DP for epsilon <= 1 (Dwork & Roth 2014, Theorem A.1).
"""

import math

import numpy as np


def _counts(dataset, n_states, horizon):
    counts = np.zeros(n_states)
    for trajectory in dataset:
        for step in trajectory[:horizon]:
            counts[int(step[0])] += 1.0
    return counts


def _sigma(epsilon, delta, horizon):
    return horizon * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def private_occupancy(dataset, *, epsilon, delta, n_states, horizon, rng):
    return _counts(dataset, n_states, horizon) + _sigma(epsilon, delta, horizon) * rng.standard_normal(n_states)


def _private_occupancy_many(dataset, n, *, epsilon, delta, n_states, horizon, rng):
    noise = _sigma(epsilon, delta, horizon) * rng.standard_normal((n, n_states))
    return _counts(dataset, n_states, horizon) + noise


private_occupancy.sample = _private_occupancy_many
