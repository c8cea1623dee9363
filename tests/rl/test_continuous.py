"""Tests of dpaudit.rl.continuous: the environment interface and episode sampling."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.rl.continuous import (
    ContinuousEnvironment,
    UniformActionPolicy,
    sample_episode,
    sample_episodes,
)
from dpaudit.rl.domains.hiv import HIVTreatment
from dpaudit.rl.domains.mountain_car import MountainCar


@pytest.mark.parametrize("env", [MountainCar(), HIVTreatment()])
def test_domains_follow_the_interface(env) -> None:
    assert isinstance(env, ContinuousEnvironment)
    state = env.reset(rng=0)
    following, reward, done = env.step(state, 0)
    assert np.isfinite(reward) and isinstance(done, bool)
    assert env.observe(following).shape == env.observation_low.shape == env.observation_high.shape


def test_sample_episodes_reproducible_and_capped() -> None:
    env = MountainCar()
    policy = UniformActionPolicy(3)
    first = sample_episodes(env, policy, 3, rng=11, max_steps=50)
    second = sample_episodes(env, policy, 3, rng=11, max_steps=50)
    for a, b in zip(first, second, strict=False):
        assert np.array_equal(a.observations, b.observations) and np.array_equal(a.actions, b.actions)
    for episode in first:
        assert len(episode) == 50 and episode.observations.shape == (51, 2) and not episode.terminated
        assert (episode.rewards == -1.0).all()
    assert np.allclose(policy.probabilities(None), 1 / 3)


def test_bad_policy_action_rejected() -> None:
    with pytest.raises(InvalidArgument, match="action=5"):
        sample_episode(MountainCar(), lambda o, g: 5, rng=0, max_steps=3)
    with pytest.raises(InvalidArgument, match="max_steps=0"):
        sample_episode(MountainCar(), UniformActionPolicy(3), rng=0, max_steps=0)
    with pytest.raises(InvalidArgument):
        UniformActionPolicy(0)
