"""Tests of dpaudit.rl.sampling: stopping rule, reproducibility, and the two samplers' common law."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rl.sampling import sample_trajectories, sample_trajectory


def _two_action_mdp(**kwargs) -> FiniteMDP:
    transitions = np.array([[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [[0.5, 0.0, 0.5]] * 2, [[0.0, 0.0, 1.0]] * 2])
    rewards = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]])
    return FiniteMDP(transitions, rewards, kwargs.pop("gamma", 0.9), initial=[1.0, 0.0, 0.0], **kwargs)


def test_same_seed_same_batch() -> None:
    chain = Chain(6)
    a = sample_trajectories(chain.mdp(), chain.policy(), 50, rng=3)
    b = sample_trajectories(chain.mdp(), chain.policy(), 50, rng=np.random.default_rng(3))
    assert a.to_dataset() == b.to_dataset()
    mdp, policy = chain.mdp(), chain.policy()
    assert sample_trajectory(mdp, policy, rng=4) == sample_trajectory(mdp, policy, rng=4)


def test_stops_after_first_triple_in_absorbing_state() -> None:
    chain = Chain(5)
    for x in sample_trajectories(chain.mdp(), chain.policy(), 200, rng=0).to_dataset():
        assert x.states[-1] == 4 and x.states.count(4) == 1 and x.rewards[-1] == 0.0
        assert sum(x.rewards) == (1.0 if x.states[0] != 4 else 0.0)
        assert not x.truncated and x.next_state == 4


def test_step_cap_truncates() -> None:
    chain = Chain(30, p="9/10")
    batch = sample_trajectories(chain.mdp(), chain.policy(), 100, rng=1, max_steps=5, start_states=np.zeros(100, int))
    assert batch.max_length == 5 and batch.truncated.all() and (batch.lengths == 5).all()
    x = sample_trajectory(chain.mdp(), chain.policy(), rng=1, max_steps=5, start_state=0)
    assert len(x) == 5 and x.truncated


def test_policy_actions_and_rewards_follow_the_mdp() -> None:
    mdp = _two_action_mdp()
    policy = MarkovPolicy.deterministic(np.array([1, 0, 0]), 2)
    for x in sample_trajectories(mdp, policy, 20, rng=2).to_dataset():
        assert x.states == (0, 2) and x.actions == (1, 0) and x.rewards == (2.0, 0.0)


def test_time_dependent_policy_on_finite_horizon() -> None:
    mdp = _two_action_mdp(gamma=1.0, horizon=2)
    policy = MarkovPolicy.deterministic(np.array([[0, 1, 0], [0, 1, 0]]), 2)
    batch = sample_trajectories(mdp, policy, 400, rng=5, stop_at_absorbing=False)
    assert (batch.lengths == 2).all() and not batch.truncated.any()
    data = batch.to_dataset()
    assert all(x.states[:2] == (0, 1) and x.actions == (0, 1) and x.rewards == (1.0, 4.0) for x in data)
    ends = np.array([x.next_state for x in data])
    assert 150 < np.sum(ends == 0) < 250
    with pytest.raises(InvalidArgument, match="horizon"):
        sample_trajectories(mdp, policy, 1, rng=0, max_steps=3)


def test_both_samplers_share_the_law() -> None:
    mdp = _two_action_mdp()
    policy = MarkovPolicy(np.array([[0.3, 0.7], [0.5, 0.5], [1.0, 0.0]]))
    batch = sample_trajectories(mdp, policy, 4000, rng=6, max_steps=3, stop_at_absorbing=False)
    loop_rng = np.random.default_rng(7)
    loop = [sample_trajectory(mdp, policy, rng=loop_rng, max_steps=3, stop_at_absorbing=False) for _ in range(4000)]
    first_actions = np.array([x.actions[0] for x in batch.to_dataset()])
    loop_actions = np.array([x.actions[0] for x in loop])
    # both estimate P(a_0 = 1) = 0.7; 4 standard errors of a difference of two means
    assert abs(first_actions.mean() - loop_actions.mean()) < 4 * np.sqrt(2 * 0.21 / 4000)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"n_trajectories": 0}, "n_trajectories=0"),
        ({"max_steps": 0}, "max_steps=0"),
        ({"start_states": np.array([0, 9])}, r"start_states\[1\]=9"),
        ({"start_states": np.array([0.0, 1.0])}, "start_states"),
    ],
)
def test_invalid_sampling_arguments(kwargs: dict, pattern: str) -> None:
    chain = Chain(4)
    arguments = {"n_trajectories": 2, **kwargs}
    count = arguments.pop("n_trajectories")
    with pytest.raises(InvalidArgument, match=pattern):
        sample_trajectories(chain.mdp(), chain.policy(), count, rng=0, **arguments)


def test_mismatched_policy_rejected() -> None:
    with pytest.raises(InvalidArgument, match=r"\(S, A\)"):
        sample_trajectories(Chain(4).mdp(), MarkovPolicy.uniform(4, 2), 3, rng=0)
    with pytest.raises(InvalidArgument, match="start_state"):
        sample_trajectory(Chain(4).mdp(), Chain(4).policy(), rng=0, start_state=4)
