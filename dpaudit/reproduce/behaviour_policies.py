"""Fixed stochastic policies for the continuous domains of the Xie et al. 2019 experiments.

Each policy is a frozen dataclass with ``__call__(observation, rng) -> action`` (the
interface of :func:`dpaudit.rl.sample_episodes`) and ``probabilities(observation)``,
the action distribution used for importance ratios.

References:
    Xie, Thomas, Miklau 2019, Sec. 7 (Mountain Car and HIV off-policy experiments; their
    behaviour policies come from Q-learning, which these fixed policies stand in for).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_probability_vector, check_real

__all__ = ["FixedActionDistribution", "VelocityFollowingPolicy"]


@dataclass(frozen=True)
class VelocityFollowingPolicy:
    """Mountain Car: throttle in the direction of the velocity with probability ``follow``.

    The other two actions share 1 − follow equally, so every action has positive
    probability (the policy covers the uniform target). At velocity 0 the policy pushes
    right. This energy-pumping rule reaches the goal, unlike the uniform policy.

    Attributes:
        follow: probability in (1/3, 1) of the action matching the sign of the velocity.
    """

    follow: float = 0.8

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "follow", check_real("follow", self.follow, low=1.0 / 3.0, high=1.0, low_open=True, high_open=True)
        )

    def probabilities(self, observation: Any) -> np.ndarray:
        """π_b(· | (x, v)) over actions (left, none, right)."""
        rest = (1.0 - self.follow) / 2.0
        result = np.full(3, rest)
        result[0 if observation[1] < 0 else 2] = self.follow
        return result

    def __call__(self, observation: Any, rng: np.random.Generator) -> int:
        """Draw an action."""
        return int(rng.choice(3, p=self.probabilities(observation)))


@dataclass(frozen=True, eq=False)
class FixedActionDistribution:
    """A policy drawing actions from one fixed distribution, whatever the observation."""

    weights: Any

    def __post_init__(self) -> None:
        vector = check_probability_vector("weights", self.weights)
        vector.setflags(write=False)
        object.__setattr__(self, "weights", vector)

    def probabilities(self, observation: Any) -> np.ndarray:
        """π(· | observation) = the fixed weights."""
        return self.weights

    def __call__(self, observation: Any, rng: np.random.Generator) -> int:
        """Draw an action."""
        return int(rng.choice(self.weights.size, p=self.weights))
