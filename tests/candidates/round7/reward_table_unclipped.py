"""A private reward model for model-based RL: the sum of the rewards received in each (state, action) cell
over the first H steps of every trajectory, with Laplace noise (Dwork & Roth 2014, Theorem 3.6).
The author meant to clip every reward to [0, r_clip] and calibrated the noise for it: one trajectory puts at most
H r_clip into the table (L1), so replacing it moves the table by at most 2 H r_clip, and Laplace(2 H r_clip / eps)
per cell is eps-DP.

Bug: the rewards are never clipped (``r_clip`` is used only in the noise scale). The environment's rewards
reach 4 (reward_bounds [0, 4] of the claim), so one trajectory moves the table by up to 2 H 4 in L1.

Truth (claim: replace_one, the inline 3-state, 2-action MDP of the spec, rewards in [0, 4], H = 10,
r_clip = 1, epsilon = 1, delta = 0):

- The correct code (rewards clipped to [0, 1]) is the Laplace mechanism with scale >= its L1 sensitivity / eps:
  1-DP. private.
- Buggy: scale b = 2 H r_clip / eps = 20 and sup ||table_X - table_X'||_1 = 2 H 4 = 80 (tau: 10 steps in cell c with
  reward 4; tau': 10 steps in another cell c' with reward 4), so the product Laplace law gives
  epsilon = 80 / 20 = 4 exactly: true_epsilon = 4. Replacing a trajectory's rewards 4 by 0 on the same steps
  (the extreme trajectories of the rl_algorithm search) moves it by 40: epsilon 2 on that pair.
"""

import numpy as np


def reward_sums(dataset, n_states, n_actions, horizon):
    table = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        for s, a, r in trajectory[:horizon]:
            table[int(s), int(a)] += float(r)
    return table


def reward_table(dataset, *, epsilon, n_states, n_actions, horizon, r_clip, rng):
    scale = 2.0 * horizon * r_clip / epsilon
    return reward_sums(dataset, n_states, n_actions, horizon) + rng.laplace(0.0, scale, (n_states, n_actions))


def _reward_table_many(dataset, n, *, epsilon, n_states, n_actions, horizon, r_clip, rng):
    scale = 2.0 * horizon * r_clip / epsilon
    table = reward_sums(dataset, n_states, n_actions, horizon)
    return table + rng.laplace(0.0, scale, (n, n_states, n_actions))


reward_table.sample = _reward_table_many
