"""Tests of dpaudit.rl.mdp: validation of FiniteMDP and its helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.mdp import FiniteMDP, check_stochastic_rows


def _two_state() -> tuple[np.ndarray, np.ndarray]:
    transitions = np.array([[[0.5, 0.5], [1.0, 0.0]], [[0.0, 1.0], [0.25, 0.75]]])
    rewards = np.array([[1.0, 0.0], [0.0, 2.0]])
    return transitions, rewards


def test_valid_mdp_defaults() -> None:
    transitions, rewards = _two_state()
    mdp = FiniteMDP(transitions, rewards, 0.9)
    assert (mdp.n_states, mdp.n_actions) == (2, 2)
    assert np.array_equal(mdp.initial, [0.5, 0.5])
    assert mdp.terminal_values is None
    assert not mdp.transitions.flags.writeable
    assert np.array_equal(mdp.expected_rewards, rewards)


def test_three_axis_rewards_give_expected_rewards() -> None:
    transitions, _ = _two_state()
    rewards = np.arange(8, dtype=float).reshape(2, 2, 2)
    mdp = FiniteMDP(transitions, rewards, 0.5)
    assert np.allclose(mdp.expected_rewards, np.einsum("sat,sat->sa", transitions, rewards))


@pytest.mark.parametrize("gamma", [0, 0.0, -0.0, 0.5, 1 - 2**-53, 5e-324])
def test_gamma_accepted_infinite(gamma: float) -> None:
    transitions, rewards = _two_state()
    assert FiniteMDP(transitions, rewards, gamma).gamma == float(gamma)


@pytest.mark.parametrize("gamma", [1.0, -1e-300, math.nan, math.inf, -math.inf, 1.5])
def test_gamma_rejected_infinite(gamma: float) -> None:
    transitions, rewards = _two_state()
    with pytest.raises(InvalidArgument, match="gamma"):
        FiniteMDP(transitions, rewards, gamma)


def test_gamma_one_allowed_with_finite_horizon() -> None:
    transitions, rewards = _two_state()
    mdp = FiniteMDP(transitions, rewards, 1.0, horizon=3, terminal_values=[0.0, 1.0])
    assert mdp.horizon == 3 and np.array_equal(mdp.terminal_values, [0.0, 1.0])
    assert np.array_equal(FiniteMDP(transitions, rewards, 1.0, horizon=1).terminal_values, [0.0, 0.0])


@pytest.mark.parametrize(
    ("index", "value", "pattern"),
    [
        ((1, 0, 0), -0.1, r"transitions\[1, 0, 0\]=-0.1"),
        ((0, 1, 1), math.nan, r"transitions\[0, 1, 1\]=nan"),
        ((1, 1, 0), math.inf, r"transitions\[1, 1, 0\]=inf"),
        ((0, 0, 0), 0.5 + 1e-11, r"transitions\[0, 0, :\] sums to"),
        ((1, 0, 1), 1.0 - 1e-10, r"transitions\[1, 0, :\] sums to"),
    ],
)
def test_invalid_transition_names_index_and_value(index: tuple, value: float, pattern: str) -> None:
    transitions, rewards = _two_state()
    transitions[index] = value
    with pytest.raises(InvalidArgument, match=pattern):
        FiniteMDP(transitions, rewards, 0.9)


def test_row_sum_within_tolerance_accepted() -> None:
    transitions, rewards = _two_state()
    transitions[0, 0, 0] += 5e-13
    FiniteMDP(transitions, rewards, 0.9)


@pytest.mark.parametrize(
    ("rewards", "pattern"),
    [
        (np.array([[1.0, math.nan], [0.0, 0.0]]), r"rewards\[0, 1\]=nan"),
        (np.array([[1.0, 0.0], [-math.inf, 0.0]]), r"rewards\[1, 0\]=-inf"),
        (np.zeros((2, 3)), "rewards: expected shape"),
        (np.zeros(2), "rewards: expected shape"),
        (np.zeros((2, 2, 3)), "rewards: expected shape"),
    ],
)
def test_invalid_rewards(rewards: np.ndarray, pattern: str) -> None:
    transitions, _ = _two_state()
    with pytest.raises(InvalidArgument, match=pattern):
        FiniteMDP(transitions, rewards, 0.9)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"initial": [0.2, 0.7]}, r"initial\[0, :\]|initial.*sums to"),
        ({"initial": [1.5, -0.5]}, r"initial\[1\]=-0.5"),
        ({"initial": [1.0, 0.0, 0.0]}, "initial: expected shape"),
        ({"horizon": 0}, "horizon=0"),
        ({"terminal_values": [0.0, 0.0]}, "terminal_values"),
        ({"horizon": 2, "terminal_values": [0.0, math.nan]}, r"terminal_values\[1\]=nan"),
    ],
)
def test_invalid_other_fields(kwargs: dict, pattern: str) -> None:
    transitions, rewards = _two_state()
    with pytest.raises(InvalidArgument, match=pattern):
        FiniteMDP(transitions, rewards, 0.9, **kwargs)


def test_invalid_types() -> None:
    transitions, rewards = _two_state()
    with pytest.raises(InvalidType):
        FiniteMDP(transitions, rewards, "0.9")
    with pytest.raises(InvalidType):
        FiniteMDP(transitions, rewards, 0.9, horizon=2.0)
    with pytest.raises(InvalidType):
        FiniteMDP([["a"]], rewards, 0.9)


def test_shape_errors() -> None:
    with pytest.raises(InvalidArgument, match="shape"):
        FiniteMDP(np.ones((2, 1, 3)) / 3, np.zeros((2, 1)), 0.9)
    with pytest.raises(InvalidArgument, match="3-dimensional"):
        FiniteMDP(np.ones((2, 2)) / 2, np.zeros((2, 1)), 0.9)


def test_with_transitions_revalidates_and_keeps_rest() -> None:
    transitions, rewards = _two_state()
    mdp = FiniteMDP(transitions, rewards, 0.9, horizon=4, terminal_values=[1.0, 2.0])
    other = mdp.with_transitions(np.full((2, 2, 2), 0.5))
    assert other.horizon == 4 and np.array_equal(other.terminal_values, [1.0, 2.0])
    assert other != mdp and mdp == FiniteMDP(transitions, rewards, 0.9, horizon=4, terminal_values=[1.0, 2.0])
    with pytest.raises(InvalidArgument, match=r"transitions\[0, 0, :\] sums to"):
        mdp.with_transitions(np.full((2, 2, 2), 0.6))


def test_absorbing_states() -> None:
    transitions = np.array([[[0.0, 1.0]], [[0.0, 1.0]]])
    assert FiniteMDP(transitions, np.zeros((2, 1)), 0.5).absorbing_states().tolist() == [False, True]
    assert FiniteMDP(transitions, np.ones((2, 1)), 0.5).absorbing_states().tolist() == [False, False]
    rewards = np.zeros((2, 1, 2))
    rewards[0, 0, 1] = 1.0
    assert FiniteMDP(transitions, rewards, 0.5).absorbing_states().tolist() == [False, True]


def test_check_stochastic_rows_empty_axis() -> None:
    with pytest.raises(InvalidArgument, match="non-empty"):
        check_stochastic_rows("p", np.zeros((2, 0)), ndim=2)
