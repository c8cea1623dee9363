"""Noisy state-visit counts (how many trajectories visit each state), published after every one of
`rounds` training rounds from the same replay buffer. sigma is the analytic Gaussian calibration
(Balle & Wang 2018) of ONE release with L2 sensitivity sqrt(S) -- the rounds were never composed."""

import numpy as np
from scipy.stats import norm


def _analytic_sigma(epsilon, delta, sensitivity):
    def delta_of(mu):
        return norm.cdf(mu / 2 - epsilon / mu) - np.exp(epsilon) * norm.cdf(-mu / 2 - epsilon / mu)

    lo, hi = 1e-6, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_of(mid) <= delta else (lo, mid)
    return sensitivity / lo


def _counts(dataset, n_states):
    c = np.zeros(n_states)
    for traj in dataset:
        c[sorted({int(step[0]) for step in traj})] += 1
    return c


def visit_counts(dataset, *, epsilon, delta, rounds, n_states, rng):
    sigma = _analytic_sigma(epsilon, delta, np.sqrt(n_states))
    c = _counts(dataset, n_states)
    return np.concatenate([c + sigma * rng.standard_normal(n_states) for _ in range(rounds)])


def _sample(dataset, n, *, epsilon, delta, rounds, n_states, rng):
    sigma = _analytic_sigma(epsilon, delta, np.sqrt(n_states))
    c = np.tile(_counts(dataset, n_states), rounds)
    return c + sigma * rng.standard_normal((n, rounds * n_states))


visit_counts.sample = _sample
