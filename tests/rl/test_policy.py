"""Tests of dpaudit.rl.policy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.policy import MarkovPolicy


def test_stationary_and_time_dependent() -> None:
    stationary = MarkovPolicy.uniform(3, 2)
    assert stationary.is_stationary and stationary.horizon is None
    assert np.allclose(stationary.at(7), 0.5)
    timed = MarkovPolicy.deterministic(np.array([[0, 1, 1], [1, 0, 0]]), 2)
    assert not timed.is_stationary and timed.horizon == 2
    assert timed.at(1).tolist() == [[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]]
    with pytest.raises(InvalidArgument, match="stage=2"):
        timed.at(2)


@pytest.mark.parametrize(
    ("probabilities", "pattern"),
    [
        ([[0.5, 0.6]], r"probabilities\[0, :\] sums to"),
        ([[1.5, -0.5]], r"probabilities\[0, 1\]=-0.5"),
        ([[math.nan, 1.0]], r"probabilities\[0, 0\]=nan"),
        ([[[1.0, 0.0]], [[0.3, 0.3]]], r"probabilities\[1, 0, :\] sums to"),
        ([1.0], "expected shape"),
    ],
)
def test_invalid_policies_name_index(probabilities: list, pattern: str) -> None:
    with pytest.raises(InvalidArgument, match=pattern):
        MarkovPolicy(probabilities)


def test_deterministic_rejects_bad_actions() -> None:
    with pytest.raises(InvalidArgument, match=r"actions\[1\]=3"):
        MarkovPolicy.deterministic(np.array([0, 3]), 2)
    with pytest.raises(InvalidArgument, match=r"actions\[0, 1\]=-1"):
        MarkovPolicy.deterministic(np.array([[0, -1]]), 2)
    with pytest.raises(InvalidArgument):
        MarkovPolicy.deterministic(np.array([0.0, 1.0]), 2)
    with pytest.raises(InvalidType):
        MarkovPolicy.uniform(2.0, 2)


def test_compatibility() -> None:
    mdp = FiniteMDP(np.full((2, 2, 2), 0.5), np.zeros((2, 2)), 0.9)
    MarkovPolicy.uniform(2, 2).check_compatible(mdp)
    with pytest.raises(InvalidArgument, match=r"\(S, A\)=\(3, 2\)"):
        MarkovPolicy.uniform(3, 2).check_compatible(mdp)
    timed = MarkovPolicy(np.full((2, 2, 2), 0.5))
    with pytest.raises(InvalidArgument, match="infinite horizon"):
        timed.check_compatible(mdp)
    finite = FiniteMDP(np.full((2, 2, 2), 0.5), np.zeros((2, 2)), 1.0, horizon=3)
    with pytest.raises(InvalidArgument, match="fewer than"):
        timed.check_compatible(finite)
    MarkovPolicy(np.full((3, 2, 2), 0.5)).check_compatible(finite)


def test_equality() -> None:
    assert MarkovPolicy.uniform(2, 2) == MarkovPolicy(np.full((2, 2), 0.5))
    assert MarkovPolicy.uniform(2, 2) != MarkovPolicy.deterministic(np.array([0, 0]), 2)
