"""Trajectories of finite MDPs and their batches; a dataset is a tuple of trajectories.

A trajectory is x = ((s_0, a_0, r_0), ..., (s_{L-1}, a_{L-1}, r_{L-1})): the reward r_t is
received with (s_t, a_t) (Balle et al. 2016, Sec. 2, with 0-based times). ``next_state``
is the state reached after the last step, when known (used by TD methods).

Rewards may be floats or exact rationals (:class:`fractions.Fraction` / int), so that an
exhaustive verifier can enumerate trajectories and compute their returns exactly.

A :class:`TrajectoryBatch` stores many trajectories in a step-major ragged layout made
for vectorised computation (see :mod:`dpaudit.rl.first_visit`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument, InvalidType

__all__ = ["Dataset", "Trajectory", "TrajectoryBatch", "check_trajectories"]


@dataclass(frozen=True)
class Trajectory:
    """One finite trajectory of state, action and reward triples.

    Attributes:
        states: s_0, ..., s_{L-1} (non-negative ints), L >= 1.
        actions: a_0, ..., a_{L-1} (non-negative ints).
        rewards: r_0, ..., r_{L-1}: finite floats, or ints/Fractions for exact arithmetic.
        next_state: the state after the last step, or None when not recorded.
        truncated: True when sampling stopped at a step cap rather than in an absorbing state.

    Raises:
        InvalidArgument: for unequal lengths, an empty trajectory, negative indices or
            non-finite rewards (naming the offending position and value).
        InvalidType: for non-integer states/actions or non-real rewards.

    References:
        Balle et al. 2016, Sec. 2 (trajectories x and their triples (s_t, a_t, r_t)).
    """

    states: tuple[int, ...]
    actions: tuple[int, ...]
    rewards: tuple[Any, ...]
    next_state: int | None = None
    truncated: bool = False

    def __post_init__(self) -> None:
        states = _index_tuple("states", self.states)
        actions = _index_tuple("actions", self.actions)
        rewards = tuple(self.rewards)
        if not (len(states) == len(actions) == len(rewards)):
            raise InvalidArgument(
                f"trajectory: len(states)={len(states)}, len(actions)={len(actions)}, "
                f"len(rewards)={len(rewards)}: expected equal lengths"
            )
        if not states:
            raise InvalidArgument("trajectory: expected at least one (state, action, reward) triple")
        for position, reward in enumerate(rewards):
            if type(reward) is int or (type(reward) is float and math.isfinite(reward)):
                continue  # the common cases, without the abstract base classes' slow checks
            if isinstance(reward, bool) or not isinstance(reward, (numbers.Real, np.floating, np.integer)):
                raise InvalidType(f"rewards[{position}]={reward!r}: expected a real number")
            if not isinstance(reward, (numbers.Rational, np.integer)) and not np.isfinite(float(reward)):
                raise InvalidArgument(f"rewards[{position}]={reward!r}: expected a finite reward")
        rewards = tuple(_plain(r) if isinstance(r, (np.floating, np.integer)) else r for r in rewards)
        if self.next_state is not None:
            object.__setattr__(self, "next_state", check_integer("next_state", self.next_state, low=0))
        object.__setattr__(self, "states", states)
        object.__setattr__(self, "actions", actions)
        object.__setattr__(self, "rewards", rewards)
        object.__setattr__(self, "truncated", bool(self.truncated))

    def __len__(self) -> int:
        return len(self.states)

    @classmethod
    def _trusted(
        cls, states: tuple, actions: tuple, rewards: tuple, next_state: int | None, truncated: bool
    ) -> Trajectory:
        """Build without validation, for data produced by this package's own samplers."""
        trajectory = object.__new__(cls)
        for name, value in (
            ("states", states),
            ("actions", actions),
            ("rewards", rewards),
            ("next_state", next_state),
            ("truncated", truncated),
        ):
            object.__setattr__(trajectory, name, value)
        return trajectory

    @property
    def is_exact(self) -> bool:
        """True when every reward is an int or a Fraction (exact first-visit returns possible)."""
        return all(isinstance(r, (int, Fraction)) for r in self.rewards)


Dataset = tuple[Trajectory, ...]
"""A dataset X = (x_1, ..., x_m): a tuple of trajectories (Balle et al. 2016, Sec. 2)."""


def check_trajectories(name: str, trajectories: Sequence[Trajectory]) -> tuple[Trajectory, ...]:
    """The trajectories as a tuple, checked to be at least one and each a :class:`Trajectory`.

    Raises:
        InvalidArgument: for no trajectory; InvalidType: for an item that is not a Trajectory.
    """
    items = tuple(trajectories)
    if not items:
        raise InvalidArgument(f"{name}: expected at least one trajectory")
    for i, x in enumerate(items):
        if not isinstance(x, Trajectory):
            raise InvalidType(f"{name}[{i}]={x!r}: expected a Trajectory")
    return items


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, np.integer) else float(value)


def _index_tuple(name: str, values: Any) -> tuple[int, ...]:
    items = tuple(values)
    result = []
    for position, item in enumerate(items):
        if type(item) is not int and (isinstance(item, bool) or not isinstance(item, (numbers.Integral, np.integer))):
            raise InvalidType(f"{name}[{position}]={item!r}: expected a non-negative integer")
        if item < 0:
            raise InvalidArgument(f"{name}[{position}]={int(item)}: expected a non-negative integer")
        result.append(int(item))
    return tuple(result)


@dataclass(frozen=True, eq=False)
class TrajectoryBatch:
    """Many trajectories stored step-major for vectorised work.

    Step t holds the entries ``step_offsets[t]:step_offsets[t+1]`` of the flat arrays, one
    per trajectory still running at step t, in increasing trajectory order. Trajectories
    never resume once stopped, so the set running at step t+1 is a subset of that at t.

    Attributes:
        n_states: size of the state space (for first-visit statistics).
        trajectory_index: flat int64 array, the trajectory each entry belongs to.
        states, actions: flat int64 arrays.
        rewards: flat float64 array.
        step_offsets: int64 array of length L_max + 1.
        lengths: int64 array (m,), the length of every trajectory (>= 1).
        next_states: int64 array (m,), the state after each trajectory's last step (-1 if unknown).
        truncated: bool array (m,), True when a trajectory hit the step cap.
    """

    n_states: int
    trajectory_index: np.ndarray
    states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    step_offsets: np.ndarray
    lengths: np.ndarray
    next_states: np.ndarray
    truncated: np.ndarray

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    @property
    def n_trajectories(self) -> int:
        """The number m of trajectories."""
        return len(self)

    @property
    def max_length(self) -> int:
        """The length of the longest trajectory."""
        return int(self.step_offsets.shape[0] - 1)

    def step(self, t: int) -> slice:
        """The slice of the flat arrays holding step ``t``."""
        return slice(int(self.step_offsets[t]), int(self.step_offsets[t + 1]))

    def to_dataset(self) -> Dataset:
        """Return the batch as a tuple of :class:`Trajectory` objects (float rewards)."""
        order = np.argsort(self.trajectory_index, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(self.lengths)))
        states = self.states[order].tolist()
        actions = self.actions[order].tolist()
        rewards = self.rewards[order].tolist()
        next_states = self.next_states.tolist()
        truncated = self.truncated.tolist()
        result = []
        for i in range(len(self)):
            lo, hi = int(bounds[i]), int(bounds[i + 1])
            following = next_states[i] if next_states[i] >= 0 else None
            result.append(
                Trajectory._trusted(
                    tuple(states[lo:hi]), tuple(actions[lo:hi]), tuple(rewards[lo:hi]), following, truncated[i]
                )
            )
        return tuple(result)

    @classmethod
    def from_trajectories(cls, trajectories: Sequence[Trajectory], n_states: int) -> TrajectoryBatch:
        """Pack trajectories (rewards converted to float64) into the step-major layout.

        Raises:
            InvalidArgument: for an empty dataset or a state outside 0..n_states-1.
        """
        n_states = check_integer("n_states", n_states, low=1)
        items = check_trajectories("trajectories", trajectories)
        lengths = np.array([len(x) for x in items], dtype=np.int64)
        max_length = int(lengths.max())
        rows = np.arange(len(items))
        index_parts, state_parts, action_parts, reward_parts, offsets = [], [], [], [], [0]
        for t in range(max_length):
            running = rows[lengths > t]
            index_parts.append(running)
            state_parts.append([items[i].states[t] for i in running])
            action_parts.append([items[i].actions[t] for i in running])
            reward_parts.append([float(items[i].rewards[t]) for i in running])
            offsets.append(offsets[-1] + running.size)
        states = np.concatenate([np.asarray(p, dtype=np.int64) for p in state_parts])
        if states.size and int(states.max()) >= n_states:
            position = int(np.argmax(states >= n_states))
            raise InvalidArgument(f"states: contains state {int(states[position])}, expected 0..{n_states - 1}")
        next_states = np.array([x.next_state if x.next_state is not None else -1 for x in items], dtype=np.int64)
        return cls(
            n_states=n_states,
            trajectory_index=np.concatenate(index_parts).astype(np.int64),
            states=states,
            actions=np.concatenate([np.asarray(p, dtype=np.int64) for p in action_parts]),
            rewards=np.concatenate([np.asarray(p, dtype=np.float64) for p in reward_parts]),
            step_offsets=np.asarray(offsets, dtype=np.int64),
            lengths=lengths,
            next_states=next_states,
            truncated=np.array([x.truncated for x in items], dtype=bool),
        )
