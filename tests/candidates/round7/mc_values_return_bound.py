"""Private first-visit Monte Carlo value estimates with the Gaussian mechanism, as a user wrote it:
V(s) = (1/m) sum over trajectories of the discounted return from the first visit to s (0 if not visited),
rewards clipped to [0, r_max], plus N(0, sigma^2 I), sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon
(Dwork & Roth 2014, Theorem A.1; epsilon <= 1).

Bug: the L2 sensitivity is Delta = r_max sqrt(S) / m: the author bounded each first-visit return by r_max, the
bound on one *reward*. A first-visit return is a discounted sum of up to T rewards, at most
r_max (1 - gamma^T) / (1 - gamma) < r_max / (1 - gamma) = 10 r_max at gamma = 0.9; the discount factor is missing
from the sensitivity.

Truth (claim: replace_one, chain MDP, 5 states, gamma = 0.9, rewards in [0, 1], m = 10, epsilon = 1,
delta = 1e-5):

- The correct code (Delta = (r_max / (1 - gamma)) sqrt(S) / m) is the Gaussian mechanism at (1, 1e-5): private.
- Witness: 9 identical trajectories plus tau_1 vs tau_0, where tau_1 is a 40-step walk that first visits the
  states 0, 1, 2, 3, 4 at t = 0, 8, 16, 24, 32 with every reward 1 and tau_0 the same walk with every reward 0.
  The first-visit returns of tau_1 are (1 - 0.9^(40 - t)) / 0.1 = 9.852, 9.657, 9.202, 8.147, 5.695, so
  ||V_X - V_X'||_2 = 19.33 / m while sigma = sqrt(5) sqrt(2 ln 125000) / m = 10.83 / m: mu = 1.785,
  epsilon(1e-5) = 8.70 (truth/truths.py). Longer walks that visit every state early approach the sup:
  ||Delta V|| -> 10 sqrt(5) / m, mu -> 2.064, epsilon(1e-5) -> 10.39 = true_epsilon (a supremum, approached
  as T grows).
"""

import math

import numpy as np


def first_visit_sums(dataset, n_states, gamma, r_max):
    sums = np.zeros(n_states)
    for trajectory in dataset:
        rewards = np.clip([float(step[2]) for step in trajectory], 0.0, r_max)
        g = 0.0
        first_return = {}
        for t in range(len(trajectory) - 1, -1, -1):
            g = rewards[t] + gamma * g
            first_return[int(trajectory[t][0])] = g
        for s, value in first_return.items():
            sums[s] += value
    return sums


def _mean_and_sigma(dataset, epsilon, delta, gamma, n_states, r_max):
    m = len(dataset)
    values = first_visit_sums(dataset, n_states, gamma, r_max) / m
    sensitivity = r_max * math.sqrt(n_states) / m  # each state's return is at most r_max
    return values, sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def first_visit_values(dataset, *, epsilon, delta, gamma, n_states, r_max, rng):
    values, sigma = _mean_and_sigma(dataset, epsilon, delta, gamma, n_states, r_max)
    return values + sigma * rng.standard_normal(n_states)


def _first_visit_values_many(dataset, n, *, epsilon, delta, gamma, n_states, r_max, rng):
    values, sigma = _mean_and_sigma(dataset, epsilon, delta, gamma, n_states, r_max)
    return values + sigma * rng.standard_normal((n, n_states))


first_visit_values.sample = _first_visit_values_many
