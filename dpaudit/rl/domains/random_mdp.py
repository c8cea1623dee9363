"""Random finite-horizon MDPs as in Gohari et al. 2020, Example 2 (20 states, 5 actions, T = 10).

The paper says the transition probabilities, the reward function and the terminal
reward function are "generated randomly" without naming the laws. Our choice: every
row P(s, a) ~ Dirichlet(1, ..., 1) (uniform on the simplex), r(s, a) ~ U[0, 1] and
R_T(s) ~ U[0, 1], all independent; start in state 0.

References:
    Gohari, Hale & Topcu 2020, Sec. VI, Example 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rng import normalize_rng

__all__ = ["random_mdp"]


def random_mdp(n_states: int = 20, n_actions: int = 5, horizon: int = 10, *, gamma: Any = 1.0, rng: Any) -> FiniteMDP:
    """Return a random finite-horizon MDP (laws in the module docstring).

    Args:
        n_states, n_actions, horizon: sizes (defaults of Example 2).
        gamma: discount in [0, 1] (unstated in the paper; 1 by default).
        rng: seed or Generator.

    References:
        Gohari et al. 2020, Example 2.
    """
    n_states = check_integer("n_states", n_states, low=1)
    n_actions = check_integer("n_actions", n_actions, low=1)
    horizon = check_integer("horizon", horizon, low=1)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0)
    generator = normalize_rng(rng)
    transitions = generator.dirichlet(np.ones(n_states), size=(n_states, n_actions))
    transitions /= transitions.sum(axis=-1, keepdims=True)
    rewards = generator.uniform(0.0, 1.0, size=(n_states, n_actions))
    terminal = generator.uniform(0.0, 1.0, size=n_states)
    initial = np.eye(n_states)[0]
    return FiniteMDP(transitions, rewards, gamma, initial=initial, horizon=horizon, terminal_values=terminal)
