"""My private behaviour-cloning policy: count (state, action) over the first `horizon_cap` steps of each
trajectory, add Laplace(2 horizon_cap / epsilon) to every count, release the greedy action of every state.

Correct: replacing one trajectory removes at most horizon_cap counts and adds at most horizon_cap, an L1
change <= 2 horizon_cap, so the noisy count table is epsilon-DP (Dwork & Roth 2014, Thm 3.6) and the greedy
policy is post-processing. True epsilon <= 1 at the claim's epsilon = 1 (delta = 0).
"""

import numpy as np


def _counts(dataset, n_states, n_actions, horizon_cap):
    counts = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        for state, action, _reward in trajectory[:horizon_cap]:
            counts[int(state), int(action)] += 1.0
    return counts


def greedy_policy(dataset, *, epsilon, n_states, n_actions, horizon_cap, rng):
    counts = _counts(dataset, n_states, n_actions, horizon_cap)
    noisy = counts + rng.laplace(0.0, 2.0 * horizon_cap / epsilon, counts.shape)
    return np.argmax(noisy, axis=1)


def _sample(dataset, n, *, epsilon, n_states, n_actions, horizon_cap, rng):
    counts = _counts(dataset, n_states, n_actions, horizon_cap)
    noisy = counts + rng.laplace(0.0, 2.0 * horizon_cap / epsilon, (n, *counts.shape))
    return np.argmax(noisy, axis=2)


greedy_policy.sample = _sample
