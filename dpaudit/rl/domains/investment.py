"""The corporation investment MDP of Gohari et al. 2020 (Example 1, Fig. 2).

States s0 (deciding), Hit and Miss; four actions, one per startup. From s0, startup i
succeeds (Hit) with probability 0.9, 0.2, 0.8, 0.3 and fails (Miss) otherwise. Hit is
worth +1 and Miss 0. Our reading (the figure gives no more): Hit and Miss are absorbing,
every one-step reward r(s, a) is 0, and the worth of the outcome is the terminal value
R_T = (0, 1, 0); with the default horizon T = 1 and γ = 1, V_0(s0) = max_i p_i = 0.9.

References:
    Gohari, Hale & Topcu 2020, Sec. VI, Example 1 and Fig. 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.rl.mdp import FiniteMDP

__all__ = ["INVESTMENT_ACTIONS", "INVESTMENT_STATES", "STARTUP_SUCCESS", "investment_mdp"]

INVESTMENT_STATES = ("s0", "Hit", "Miss")
"""State names, in index order."""

INVESTMENT_ACTIONS = ("startup 1", "startup 2", "startup 3", "startup 4")
"""Action names, in index order."""

STARTUP_SUCCESS = (0.9, 0.2, 0.8, 0.3)
"""P(Hit | s0, startup i) from Gohari et al. 2020, Fig. 2."""


def investment_mdp(*, horizon: int = 1, gamma: Any = 1.0) -> FiniteMDP:
    """Return the investment MDP with terminal values R_T = (0, 1, 0) (s0, Hit, Miss).

    Args:
        horizon: T >= 1 decision stages (1 by default: one acquisition decision).
        gamma: discount in [0, 1] (the paper does not state one; 1 by default).

    References:
        Gohari et al. 2020, Example 1, Fig. 2.
    """
    horizon = check_integer("horizon", horizon, low=1)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0)
    success = np.asarray(STARTUP_SUCCESS)
    transitions = np.zeros((3, 4, 3))
    transitions[0, :, 1] = success
    transitions[0, :, 2] = 1.0 - success
    transitions[1, :, 1] = 1.0
    transitions[2, :, 2] = 1.0
    return FiniteMDP(
        transitions, np.zeros((3, 4)), gamma, initial=[1.0, 0.0, 0.0], horizon=horizon, terminal_values=[0.0, 1.0, 0.0]
    )
