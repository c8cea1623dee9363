"""Markov policies on finite MDPs: stationary π(a | s) or time-dependent π_t(a | s).

References:
    Gohari et al. 2020, Sec. II-B (Markovian policies π_t(a | s)); Balle et al. 2016,
    Sec. 2 (a fixed policy π evaluated on M).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.rl.mdp import FiniteMDP, check_stochastic_rows

__all__ = ["MarkovPolicy"]


@dataclass(frozen=True, eq=False)
class MarkovPolicy:
    """Action probabilities of a Markov policy.

    Attributes:
        probabilities: shape (S, A) for a stationary policy π(a | s), or (T, S, A) for a
            time-dependent one π_t(a | s), t = 0, ..., T-1. Every row is a probability vector.

    Raises:
        InvalidArgument: naming the offending index and value or row sum.
    """

    probabilities: Any

    def __post_init__(self) -> None:
        ndim = np.ndim(self.probabilities)
        if ndim not in (2, 3):
            raise InvalidArgument(
                f"probabilities: expected shape (S, A) or (T, S, A), got {np.shape(self.probabilities)}"
            )
        object.__setattr__(self, "probabilities", check_stochastic_rows("probabilities", self.probabilities, ndim=ndim))

    @classmethod
    def uniform(cls, n_states: int, n_actions: int) -> MarkovPolicy:
        """The stationary policy choosing every action with probability 1/A."""
        n_states = check_integer("n_states", n_states, low=1)
        n_actions = check_integer("n_actions", n_actions, low=1)
        return cls(np.full((n_states, n_actions), 1.0 / n_actions))

    @classmethod
    def deterministic(cls, actions: Any, n_actions: int) -> MarkovPolicy:
        """The policy taking ``actions[s]`` (shape (S,)) or ``actions[t, s]`` (shape (T, S)).

        Raises:
            InvalidArgument: naming the first action outside ``0..n_actions-1``.
        """
        n_actions = check_integer("n_actions", n_actions, low=1)
        chosen = np.asarray(actions)
        if chosen.ndim not in (1, 2) or chosen.size == 0 or not np.issubdtype(chosen.dtype, np.integer):
            raise InvalidArgument(
                f"actions: expected a non-empty integer array of shape (S,) or (T, S), got {chosen!r}"
            )
        bad = (chosen < 0) | (chosen >= n_actions)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            where = ", ".join(str(i) for i in index)
            raise InvalidArgument(f"actions[{where}]={int(chosen[index])}: expected an action in 0..{n_actions - 1}")
        return cls(np.eye(n_actions)[chosen])

    @property
    def is_stationary(self) -> bool:
        """True for a stationary policy (probabilities of shape (S, A))."""
        return self.probabilities.ndim == 2

    @property
    def horizon(self) -> int | None:
        """The number of stages T of a time-dependent policy; None when stationary."""
        return None if self.is_stationary else int(self.probabilities.shape[0])

    @property
    def n_states(self) -> int:
        """The number of states S."""
        return int(self.probabilities.shape[-2])

    @property
    def n_actions(self) -> int:
        """The number of actions A."""
        return int(self.probabilities.shape[-1])

    def at(self, stage: int) -> np.ndarray:
        """Return π_t(· | ·), shape (S, A), at stage ``t`` (any t for a stationary policy).

        Raises:
            InvalidArgument: for a stage outside 0..T-1 of a time-dependent policy.
        """
        if self.is_stationary:
            check_integer("stage", stage, low=0)
            return self.probabilities
        stage = check_integer("stage", stage, low=0, high=self.probabilities.shape[0] - 1)
        return self.probabilities[stage]

    def check_compatible(self, mdp: FiniteMDP) -> None:
        """Raise InvalidArgument unless this policy can act in ``mdp``.

        The state and action counts must match; a time-dependent policy needs a finite
        horizon T no longer than its own number of stages.
        """
        if (self.n_states, self.n_actions) != (mdp.n_states, mdp.n_actions):
            raise InvalidArgument(
                f"policy: has (S, A)=({self.n_states}, {self.n_actions}) but the MDP has "
                f"({mdp.n_states}, {mdp.n_actions})"
            )
        if not self.is_stationary:
            if mdp.horizon is None:
                raise InvalidArgument(
                    f"policy: time-dependent with {self.horizon} stages, but the MDP has an infinite horizon; "
                    "use a stationary policy"
                )
            if self.horizon is not None and self.horizon < mdp.horizon:
                raise InvalidArgument(f"policy: has {self.horizon} stages, fewer than the MDP's horizon={mdp.horizon}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MarkovPolicy):
            return NotImplemented
        return bool(np.array_equal(self.probabilities, other.probabilities))

    __hash__ = None  # type: ignore[assignment]
