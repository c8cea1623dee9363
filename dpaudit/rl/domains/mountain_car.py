"""Mountain Car (Sutton & Barto 2018, Example 10.1; Sutton & Barto 1998, Sec. 8.2).

State (x, v); actions 0, 1, 2 mean throttle a = -1, 0, +1. One step:

    v ← clip(v + 0.001 a − 0.0025 cos(3x), −0.07, 0.07),
    x ← clip(x + v, −1.2, 0.5),   and v ← 0 when x hits the left wall −1.2.

Reward −1 per step; the episode ends when x reaches 0.5. Start x ~ U[−0.6, −0.4), v = 0.
Observations are (x, v) in the box [−1.2, 0.5] × [−0.07, 0.07].

References:
    Sutton & Barto 2018, Example 10.1; Xie et al. 2019, Sec. 7 (Mountain Car with an
    order-5 Fourier basis, Konidaris et al. 2011).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array
from dpaudit.errors import InvalidArgument
from dpaudit.rng import normalize_rng

__all__ = ["MountainCar"]

X_MIN, X_MAX, V_MAX = -1.2, 0.5, 0.07


@dataclass(frozen=True)
class MountainCar:
    """The Mountain Car environment (no public parameters beyond the textbook constants)."""

    n_actions: int = 3

    def __post_init__(self) -> None:
        if self.n_actions != 3:
            raise InvalidArgument(f"n_actions={self.n_actions!r}: Mountain Car has exactly 3 actions")

    @property
    def observation_low(self) -> np.ndarray:
        """(−1.2, −0.07)."""
        return np.array([X_MIN, -V_MAX])

    @property
    def observation_high(self) -> np.ndarray:
        """(0.5, 0.07)."""
        return np.array([X_MAX, V_MAX])

    def reset(self, *, rng: Any) -> np.ndarray:
        """Return (x, 0) with x ~ U[−0.6, −0.4)."""
        return np.array([normalize_rng(rng).uniform(-0.6, -0.4), 0.0])

    def step(self, state: np.ndarray, action: int) -> tuple[np.ndarray, float, bool]:
        """Apply one step of the dynamics; reward −1; done when x reaches 0.5."""
        position, velocity = check_finite_array("state", state, shape=(2,))
        if action not in (0, 1, 2) or isinstance(action, bool):
            raise InvalidArgument(f"action={action!r}: expected 0, 1 or 2")
        velocity = min(max(velocity + 0.001 * (action - 1) - 0.0025 * np.cos(3.0 * position), -V_MAX), V_MAX)
        position = min(max(position + velocity, X_MIN), X_MAX)
        if position == X_MIN:
            velocity = 0.0
        return np.array([position, velocity]), -1.0, bool(position >= X_MAX)

    def observe(self, state: np.ndarray) -> np.ndarray:
        """The observation is the state (x, v)."""
        return np.asarray(state, dtype=np.float64)
