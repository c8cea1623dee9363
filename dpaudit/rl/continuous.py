"""Continuous-state environments (Mountain Car, HIV) and episode sampling for them.

An environment is a frozen dataclass of public parameters with

* ``n_actions``: actions are 0, ..., n_actions-1;
* ``observation_low`` / ``observation_high``: a box containing the observations
  (bounds for a :class:`~dpaudit.rl.features.FourierBasis`);
* ``reset(*, rng) -> state``; ``step(state, action) -> (next_state, reward, done)``;
* ``observe(state) -> observation`` (the vector features are computed from).

A policy for these domains is any callable ``policy(observation, rng) -> action``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.rng import normalize_rng

__all__ = ["ContinuousEnvironment", "Episode", "UniformActionPolicy", "sample_episode", "sample_episodes"]


@runtime_checkable
class ContinuousEnvironment(Protocol):
    """The common interface of continuous-state domains (see the module docstring)."""

    n_actions: int

    @property
    def observation_low(self) -> np.ndarray: ...

    @property
    def observation_high(self) -> np.ndarray: ...

    def reset(self, *, rng: Any) -> np.ndarray: ...

    def step(self, state: np.ndarray, action: int) -> tuple[np.ndarray, float, bool]: ...

    def observe(self, state: np.ndarray) -> np.ndarray: ...


Policy = Callable[[np.ndarray, np.random.Generator], int]


@dataclass(frozen=True)
class UniformActionPolicy:
    """The policy choosing each of ``n_actions`` actions with probability 1/n_actions."""

    n_actions: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_actions", check_integer("n_actions", self.n_actions, low=1))

    def __call__(self, observation: np.ndarray, rng: np.random.Generator) -> int:
        """Draw an action."""
        return int(rng.integers(self.n_actions))

    def probabilities(self, observation: np.ndarray) -> np.ndarray:
        """π(· | observation), shape (n_actions,)."""
        return np.full(self.n_actions, 1.0 / self.n_actions)


@dataclass(frozen=True, eq=False)
class Episode:
    """One episode of a continuous-state environment.

    Attributes:
        observations: shape (L+1, d): o_0, ..., o_L (o_L observed after the last action).
        actions: shape (L,), ints.
        rewards: shape (L,): r_t received with (o_t, a_t).
        terminated: True when the environment signalled ``done`` (else the step cap ended it).
    """

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminated: bool

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def sample_episode(env: ContinuousEnvironment, policy: Policy, *, rng: Any, max_steps: int) -> Episode:
    """Run ``policy`` in ``env`` from ``env.reset`` for at most ``max_steps`` steps.

    Raises:
        InvalidArgument: for max_steps < 1 or an action outside 0..n_actions-1.
    """
    cap = check_integer("max_steps", max_steps, low=1)
    generator = normalize_rng(rng)
    state = env.reset(rng=generator)
    observations = [env.observe(state)]
    actions: list[int] = []
    rewards: list[float] = []
    done = False
    for _ in range(cap):
        action = policy(observations[-1], generator)
        if isinstance(action, bool) or not 0 <= action < env.n_actions or int(action) != action:
            raise InvalidArgument(f"policy returned action={action!r}: expected 0..{env.n_actions - 1}")
        state, reward, done = env.step(state, int(action))
        actions.append(int(action))
        rewards.append(float(reward))
        observations.append(env.observe(state))
        if done:
            break
    return Episode(np.asarray(observations), np.asarray(actions, dtype=np.int64), np.asarray(rewards), bool(done))


def sample_episodes(
    env: ContinuousEnvironment, policy: Policy, n_episodes: int, *, rng: Any, max_steps: int
) -> tuple[Episode, ...]:
    """Sample ``n_episodes`` independent episodes, each from its own spawned child stream.

    The children are spawned from one draw of ``rng``, so the same seed gives the same
    episodes, and episode i does not depend on how many others are sampled.
    """
    count = check_integer("n_episodes", n_episodes, low=1)
    generator = normalize_rng(rng)
    root = np.random.SeedSequence(int(generator.integers(2**63)))
    return tuple(
        sample_episode(env, policy, rng=np.random.default_rng(child), max_steps=max_steps)
        for child in root.spawn(count)
    )
