"""Tests of Gohari et al. 2020's Example 1 (investment) and Example 2 (random MDP)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.rl.domains.investment import STARTUP_SUCCESS, investment_mdp
from dpaudit.rl.domains.random_mdp import random_mdp
from dpaudit.rl.planning import backward_induction
from dpaudit.rl.policy import MarkovPolicy


def test_investment_values() -> None:
    mdp = investment_mdp()
    solution = backward_induction(mdp)
    assert solution.values[0, 0] == pytest.approx(0.9)
    assert solution.policy.at(0)[0].tolist() == [1.0, 0.0, 0.0, 0.0]
    for action, success in enumerate(STARTUP_SUCCESS):
        fixed = MarkovPolicy.deterministic(np.full(3, action), 4)
        assert backward_induction(mdp, fixed).values[0, 0] == pytest.approx(success)
    assert backward_induction(investment_mdp(horizon=3, gamma=0.5)).values[0, 0] == pytest.approx(0.9 * 0.125)


def test_random_mdp_shapes_and_reproducibility() -> None:
    mdp = random_mdp(rng=4)
    assert (mdp.n_states, mdp.n_actions, mdp.horizon) == (20, 5, 10)
    assert mdp == random_mdp(rng=4) and mdp != random_mdp(rng=5)
    solution = backward_induction(mdp)
    assert solution.values.shape == (11, 20)
    assert (solution.values[0] >= backward_induction(mdp, MarkovPolicy.uniform(20, 5)).values[0] - 1e-12).all()


@pytest.mark.parametrize("kwargs", [{"horizon": 0}, {"gamma": 1.5}, {"gamma": float("nan")}])
def test_invalid_examples(kwargs: dict) -> None:
    with pytest.raises(InvalidArgument):
        investment_mdp(**kwargs)
    with pytest.raises(InvalidArgument):
        random_mdp(rng=0, **kwargs)
