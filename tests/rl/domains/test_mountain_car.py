"""Tests of the Mountain Car dynamics (Sutton & Barto 2018, Example 10.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.rl.continuous import sample_episode
from dpaudit.rl.domains.mountain_car import MountainCar


def test_one_step_by_hand() -> None:
    env = MountainCar()
    state, reward, done = env.step(np.array([-0.5, 0.01]), 2)
    velocity = 0.01 + 0.001 - 0.0025 * math.cos(-1.5)
    assert np.allclose(state, [-0.5 + velocity, velocity]) and reward == -1.0 and not done


def test_clipping_and_left_wall() -> None:
    env = MountainCar()
    state, _, _ = env.step(np.array([-1.19, -0.07]), 0)
    assert state.tolist() == [-1.2, 0.0]
    state, _, _ = env.step(np.array([-math.pi / 6, 0.07]), 2)
    assert state[1] == 0.07
    state, _, done = env.step(np.array([0.48, 0.05]), 1)
    assert state[0] == 0.5 and done


def test_reset_range() -> None:
    starts = np.array([MountainCar().reset(rng=seed) for seed in range(200)])
    assert (starts[:, 0] >= -0.6).all() and (starts[:, 0] < -0.4).all() and (starts[:, 1] == 0).all()


def test_energy_pumping_policy_reaches_goal() -> None:
    def pump(observation: np.ndarray, rng: np.random.Generator) -> int:
        return 2 if observation[1] >= 0 else 0

    episode = sample_episode(MountainCar(), pump, rng=0, max_steps=500)
    assert episode.terminated and len(episode) < 200


@pytest.mark.parametrize("action", [-1, 3, True, 1.5])
def test_invalid_actions(action) -> None:
    with pytest.raises(InvalidArgument):
        MountainCar().step(np.array([-0.5, 0.0]), action)
