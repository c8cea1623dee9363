"""r8-c12 (rl_algorithm, LEAKY): private (state, action) visit counts calibrated for add/remove-one but
claimed under replace-one too.

``visit_counts(dataset, *, epsilon, n_states, n_actions, horizon, rng)``: counts of (s, a) over the first
``horizon`` steps of every trajectory, plus Laplace(horizon / epsilon) on each of the S x A cells.  The
engineer's sensitivity: "one trajectory contributes at most `horizon` counts", i.e. L1 sensitivity H.

Claim: (1, 0)-DP under replace_one and add_remove_one (one trajectory replaced / added).

Truth.  Adding or removing a trajectory moves the counts by at most H in L1: exactly 1-DP under
add_remove_one (Laplace mechanism).  Replacing one trajectory removes up to H counts and adds up to H
others: L1 up to 2H, so epsilon = 2H / (H / eps) = 2 eps = 2 under replace_one (attained: two
trajectories of H steps with disjoint (s, a) cells, e.g. one always taking action 0 and one always
action 1; witness output: the cells of the first trajectory low, those of the second high).
With the random MDP of the spec (5 states, 3 actions, horizon 5): H = 5, scale 5, true epsilon 2 > 1.
"""

import numpy as np


def _counts(dataset, n_states, n_actions, horizon):
    counts = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        for state, action, _reward in trajectory[:horizon]:
            counts[int(state), int(action)] += 1.0
    return counts


def visit_counts(dataset, *, epsilon, n_states, n_actions, horizon, rng):
    counts = _counts(dataset, n_states, n_actions, horizon)
    return counts + rng.laplace(0.0, horizon / epsilon, size=counts.shape)


def _many(dataset, n, *, epsilon, n_states, n_actions, horizon, rng):
    counts = _counts(dataset, n_states, n_actions, horizon)
    return counts + rng.laplace(0.0, horizon / epsilon, size=(n, *counts.shape))


visit_counts.sample = _many
