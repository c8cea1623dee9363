"""Finite Markov decision processes: transitions P[s, a, s'], rewards, discount, start law.

A :class:`FiniteMDP` is either discounted with an infinite horizon (``horizon=None``,
γ in [0, 1)) or has a finite horizon T with terminal values R_T (γ in [0, 1]).

References:
    Balle et al. 2016, Sec. 2 (MDP M, V^π of eq. (2), rewards 0 <= r <= R_max);
    Gohari et al. 2020, Sec. II-B (M = (S, A_s, r, P, T, γ)) and Algorithm 1
    (terminal values V_T = R_T).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument

__all__ = ["STOCHASTIC_ATOL", "FiniteMDP", "check_stochastic_rows"]

STOCHASTIC_ATOL = 1e-12
"""Tolerance on |sum of a probability row - 1| accepted for transitions, policies and start laws."""


def check_stochastic_rows(name: str, value: Any, *, ndim: int, atol: float = STOCHASTIC_ATOL) -> np.ndarray:
    """Return ``value`` as a read-only float64 array whose last axis holds probability vectors.

    Args:
        name: the argument's name, echoed in errors.
        value: array-like with ``ndim`` axes; every slice along the last axis must be
            non-negative, finite and sum to 1 within ``atol``.
        ndim: the expected number of axes.
        atol: tolerance on the row sums.

    Returns:
        A read-only copy as float64.

    Raises:
        InvalidArgument: naming the first offending index and its value (or row sum).
    """
    array = np.array(check_finite_array(name, value, ndim=ndim, nonnegative=True), dtype=np.float64)
    if array.shape[-1] == 0:
        raise InvalidArgument(f"{name}: expected a non-empty last axis, got shape {array.shape}")
    sums = array.sum(axis=-1)
    bad = np.abs(sums - 1.0) > atol
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = ", ".join(str(i) for i in index)
        raise InvalidArgument(
            f"{name}[{where}, :] sums to {float(sums[index])!r}: expected a probability row summing to 1 "
            f"within {atol:g}"
        )
    array.setflags(write=False)
    return array


def _read_only(array: np.ndarray) -> np.ndarray:
    copy = np.array(array, dtype=np.float64)
    copy.setflags(write=False)
    return copy


@dataclass(frozen=True, eq=False)
class FiniteMDP:
    """A finite MDP with ``S`` states and ``A`` actions (every action available in every state).

    Attributes:
        transitions: P[s, a, s'], shape (S, A, S); every row P[s, a, :] a probability vector.
        rewards: r[s, a] (shape (S, A)) or r[s, a, s'] (shape (S, A, S)), finite. The reward
            of a step is received together with (s_t, a_t) (Balle et al. eq. (2)).
        gamma: discount γ; in [0, 1) when ``horizon`` is None, in [0, 1] otherwise.
        initial: start distribution over states, shape (S,); uniform when omitted.
        horizon: ``None`` (infinite, discounted) or the number of decision stages T >= 1.
        terminal_values: R_T(s), shape (S,), for a finite horizon (zeros when omitted);
            must be omitted for an infinite horizon.

    Raises:
        InvalidArgument: naming the offending index and value (row sums, negative or
            non-finite entries, shapes, γ, horizon).

    References:
        Gohari et al. 2020, Sec. II-B and Algorithm 1; Balle et al. 2016, Sec. 2.
    """

    transitions: Any
    rewards: Any
    gamma: float
    initial: Any = None
    horizon: int | None = None
    terminal_values: Any = None
    expected_rewards: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        transitions = check_stochastic_rows("transitions", self.transitions, ndim=3)
        n_states, n_actions, n_next = transitions.shape
        if n_next != n_states:
            raise InvalidArgument(f"transitions: expected shape (S, A, S), got {transitions.shape}")
        if n_actions == 0:
            raise InvalidArgument("transitions: expected at least one action, got shape (S, 0, S)")
        rewards = check_finite_array("rewards", self.rewards)
        ndim = rewards.ndim
        wanted = (n_states, n_actions) if ndim == 2 else (n_states, n_actions, n_states)
        if ndim not in (2, 3) or rewards.shape != wanted:
            raise InvalidArgument(
                f"rewards: expected shape ({n_states}, {n_actions}) or ({n_states}, {n_actions}, {n_states}), "
                f"got {rewards.shape}"
            )
        rewards = _read_only(rewards)
        if self.horizon is None:
            gamma = check_real("gamma", self.gamma, low=0.0, high=1.0, high_open=True)
            if self.terminal_values is not None:
                raise InvalidArgument("terminal_values: only meaningful with a finite horizon; pass horizon=T")
            terminal = None
        else:
            horizon = check_integer("horizon", self.horizon, low=1)
            object.__setattr__(self, "horizon", horizon)
            gamma = check_real("gamma", self.gamma, low=0.0, high=1.0)
            if self.terminal_values is None:
                terminal = _read_only(np.zeros(n_states))
            else:
                terminal = _read_only(check_finite_array("terminal_values", self.terminal_values, shape=(n_states,)))
        if self.initial is None:
            initial = _read_only(np.full(n_states, 1.0 / n_states))
        else:
            initial = check_stochastic_rows("initial", self.initial, ndim=1)
            if initial.shape != (n_states,):
                raise InvalidArgument(f"initial: expected shape ({n_states},), got {initial.shape}")
        expected = np.einsum("sat,sat->sa", transitions, rewards) if ndim == 3 else rewards
        object.__setattr__(self, "transitions", transitions)
        object.__setattr__(self, "rewards", rewards)
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "initial", initial)
        object.__setattr__(self, "terminal_values", terminal)
        object.__setattr__(self, "expected_rewards", _read_only(expected))

    @property
    def n_states(self) -> int:
        """The number of states S."""
        return int(self.transitions.shape[0])

    @property
    def n_actions(self) -> int:
        """The number of actions A."""
        return int(self.transitions.shape[1])

    def with_transitions(self, transitions: Any) -> FiniteMDP:
        """Return the same MDP with transitions replaced (e.g. privatised ones), validated anew.

        References:
            Gohari et al. 2020, Algorithm 1 (the privatised MDP M̄ = (S, A_s, r, P̄, T, γ)).
        """
        return replace(self, transitions=transitions)

    def absorbing_states(self) -> np.ndarray:
        """Boolean mask of zero-reward absorbing states: P[s, a, s] = 1 and r = 0 for every a.

        Once such a state is entered every later reward is 0, so a trajectory may stop
        there without changing any return.
        """
        diagonal = self.transitions[np.arange(self.n_states), :, np.arange(self.n_states)]
        if self.rewards.ndim == 3:
            own = self.rewards[np.arange(self.n_states), :, np.arange(self.n_states)]
        else:
            own = self.rewards
        return np.all(diagonal == 1.0, axis=1) & np.all(own == 0.0, axis=1)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FiniteMDP):
            return NotImplemented
        return (
            self.gamma == other.gamma
            and self.horizon == other.horizon
            and np.array_equal(self.transitions, other.transitions)
            and np.array_equal(self.rewards, other.rewards)
            and np.array_equal(self.initial, other.initial)
            and _optional_equal(self.terminal_values, other.terminal_values)
        )

    __hash__ = None  # type: ignore[assignment]


def _optional_equal(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    return bool(np.array_equal(a, b))
