"""Private state-action visit table (behaviour-policy estimate) with a per-episode horizon cap.

Every episode contributes at most `horizon` steps to the table, so replacing one episode
moves the table by at most 2 * horizon in L1 norm; Laplace(2 * horizon / eps) noise per cell
makes the table eps-DP under replace-one.
"""

import numpy as np


def _visit_table(episodes, horizon, n_states, n_actions):
    table = np.zeros((n_states, n_actions))
    for episode in episodes:
        for t, (state, action, _reward) in enumerate(episode):
            if t > horizon:
                break
            table[int(state), int(action)] += 1.0
    return table


def private_visit_table(episodes, *, eps, horizon, n_states, n_actions, rng):
    table = _visit_table(episodes, horizon, n_states, n_actions)
    return table + rng.laplace(0.0, 2.0 * horizon / eps, table.shape)


def _private_visit_table_batch(episodes, n, *, eps, horizon, n_states, n_actions, rng):
    table = _visit_table(episodes, horizon, n_states, n_actions)
    return table[None, ...] + rng.laplace(0.0, 2.0 * horizon / eps, (int(n), *table.shape))


private_visit_table.sample = _private_visit_table_batch
