"""Private reward totals per (state, action) from a batch of episodes.

The L1 sensitivity of the reward table under replace-one is twice the largest reward mass
one episode can carry.  Instead of asking the caller for a reward bound and a horizon, we
read the reward mass off the batch: sensitivity = 2 * max over episodes of sum_t |r_t|
(1 when every reward is zero), and add Laplace(sensitivity / epsilon) noise per cell.
"""

import numpy as np


def _reward_table(episodes, n_states, n_actions):
    table = np.zeros((n_states, n_actions))
    largest_mass = 0.0
    for episode in episodes:
        mass = 0.0
        for state, action, reward in episode:
            table[int(state), int(action)] += float(reward)
            mass += abs(float(reward))
        largest_mass = max(largest_mass, mass)
    sensitivity = 2.0 * largest_mass if largest_mass > 0 else 1.0
    return table, sensitivity


def private_reward_sums(episodes, *, epsilon, n_states, n_actions, rng):
    table, sensitivity = _reward_table(episodes, n_states, n_actions)
    return table + rng.laplace(0.0, sensitivity / epsilon, table.shape)


def _private_reward_sums_batch(episodes, n, *, epsilon, n_states, n_actions, rng):
    table, sensitivity = _reward_table(episodes, n_states, n_actions)
    return table[None, ...] + rng.laplace(0.0, sensitivity / epsilon, (int(n), *table.shape))


private_reward_sums.sample = _private_reward_sums_batch
