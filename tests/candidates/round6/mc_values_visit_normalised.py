"""My private first-visit Monte Carlo value estimate: per state, the first-visit discounted return of each
trajectory that visits it, clipped to [0, B], averaged, plus Gaussian noise calibrated for the mean over the
m trajectories: sigma = B sqrt(S) / m * sqrt(2 ln(1.25/delta)) / epsilon (Dwork & Roth 2014, Thm A.1).

BUG (normalisation): the average is taken over the trajectories that *visit* the state (|X_s|), not over
all m, while the noise is calibrated for the division by m. A state visited by one trajectory moves by up to
B (not B / m) when that trajectory is replaced by one that does not visit it (its value falls to 0).

Witness (B = 1, m = 10, S = 5, epsilon = 1, delta = 1e-5, sigma = 1.0833): in the chain, a dataset in which
one trajectory is the only one to reach state s with return 1 (it enters the absorbing state next), against
the same dataset with that trajectory replaced by one that stays below s: coordinate s moves by 1, mu =
0.923, epsilon(1e-5) = 3.991 on that coordinate alone. With a trajectory that is alone on four states, each
with return >= 1 (rewards at the upper bound 1), mu = 1.846, epsilon = 9.063 (truth/truths.py). True
epsilon >= 3.99 at delta = 1e-5 on chain-feasible data.
"""

import math

import numpy as np


def _first_visit_returns(trajectory, gamma):
    rewards = [float(step[2]) for step in trajectory]
    following, returns = 0.0, [0.0] * len(rewards)
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following
        returns[t] = following
    seen = {}
    for t, step in enumerate(trajectory):
        seen.setdefault(int(step[0]), returns[t])
    return seen


def _values(dataset, gamma, n_states, return_bound):
    sums, visits = np.zeros(n_states), np.zeros(n_states)
    for trajectory in dataset:
        for state, g in _first_visit_returns(trajectory, gamma).items():
            sums[state] += min(max(g, 0.0), return_bound)
            visits[state] += 1
    return np.where(visits > 0, sums / np.maximum(visits, 1), 0.0)


def _sigma(m, epsilon, delta, n_states, return_bound):
    return return_bound * math.sqrt(n_states) / m * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def mc_values(dataset, *, epsilon, delta, gamma, n_states, return_bound, rng):
    values = _values(dataset, gamma, n_states, return_bound)
    return values + _sigma(len(dataset), epsilon, delta, n_states, return_bound) * rng.standard_normal(n_states)


def _sample(dataset, n, *, epsilon, delta, gamma, n_states, return_bound, rng):
    values = _values(dataset, gamma, n_states, return_bound)
    return values + _sigma(len(dataset), epsilon, delta, n_states, return_bound) * rng.standard_normal((n, n_states))


mc_values.sample = _sample
