"""Random-pair sanity checks of Lemma 1's conditions (a) and (b) for a DP-LSW / DP-LSL implementation.

This is no proof (the proofs are the paper's: Cor. 3 + Lemmas 4-5 for DP-LSW, Cor. 8 + Lemma 9 for
DP-LSL); it confirms that the code computes what the proofs are about: on random neighbouring
datasets (one trajectory replaced; rewards in [0, r_max]; small m so that counts vary a lot)
||theta_X - theta_X'|| <= min(sigma_X, sigma_X') / alpha and |ln sigma_X^2 - ln sigma_X'^2| <= beta.
"""

import math

import numpy as np


def random_trajectory(rng, n_states, r_max, max_len=8):
    length = int(rng.integers(1, max_len + 1))
    states = rng.integers(0, n_states, size=length)
    rewards = rng.uniform(0.0, r_max, size=length) * (rng.random(length) < 0.7)
    return [[int(s), 0, float(r)] for s, r in zip(states, rewards, strict=False)]


def check_conditions(estimate, *, n_states, epsilon, delta, d, r_max, pairs=2000, seed=9, max_m=6):
    rng = np.random.default_rng(seed)
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    worst_a, worst_b = 0.0, 0.0
    for _ in range(pairs):
        m = int(rng.integers(1, max_m + 1))
        base = [random_trajectory(rng, n_states, r_max) for _ in range(m - 1)]
        x, y = random_trajectory(rng, n_states, r_max), random_trajectory(rng, n_states, r_max)
        if rng.random() < 0.3:  # extreme: one trajectory through every state at the reward bound
            x = [[s, 0, r_max] for s in range(n_states)] * 3
        t1, s1 = estimate([*base, x])
        t2, s2 = estimate([*base, y])
        gap = float(np.linalg.norm(np.asarray(t1) - np.asarray(t2)))
        worst_a = max(worst_a, alpha * gap / min(s1, s2))
        worst_b = max(worst_b, abs(math.log(s1**2) - math.log(s2**2)) / beta)
    return worst_a, worst_b
