"""Tests of the chain domain, including the issue's acceptance check on sampled vs exact values."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.first_visit import (
    average_first_visit_returns,
    first_visit_estimate,
    first_visit_returns,
)
from dpaudit.rl.planning import evaluate_policy
from dpaudit.rl.sampling import sample_trajectories


def test_closed_form_matches_linear_solve() -> None:
    chain = Chain(40, "1/2", "99/100")
    exact = np.array([float(v) for v in chain.exact_values()])
    assert np.max(np.abs(evaluate_policy(chain.mdp(), chain.policy()) - exact)) < 1e-14
    assert chain.exact_values()[-1] == 0
    assert chain.exact_values()[-2] == Fraction(1, 2) / (1 - Fraction(99, 200))


def test_acceptance_monte_carlo_within_three_standard_errors() -> None:
    """Issue 3: N=40, p=0.5, γ=0.99, 10^5 trajectories; |F_X(s) - V(s)| <= 3 SE at every state."""
    chain = Chain(40, Fraction(1, 2), Fraction(99, 100))
    values = evaluate_policy(chain.mdp(), chain.policy())
    batch = sample_trajectories(chain.mdp(), chain.policy(), 100_000, rng=20160619)
    assert not batch.truncated.any()
    estimate = first_visit_estimate(batch, 0.99, 40)
    assert (estimate.counts > 1000).all()
    gap = np.abs(estimate.mean - values)
    assert gap[-1] == 0.0 and estimate.standard_error[-1] == 0.0
    assert (gap[:-1] <= 3 * estimate.standard_error[:-1]).all(), np.max(gap[:-1] / estimate.standard_error[:-1])


def test_exact_enumeration_reproduces_exact_values() -> None:
    chain = Chain(4, Fraction(1, 3), Fraction(9, 10))
    cap = 14
    for start in range(4):
        total = truncated_mass = expected_return = Fraction(0)
        for trajectory, probability in chain.enumerate_trajectories(start, cap):
            total += probability
            truncated_mass += probability if trajectory.truncated else 0
            expected_return += probability * first_visit_returns(trajectory, chain.gamma, 4)[start]
        assert total == 1
        # the cap drops only rewards at times >= cap, each at most γ^cap, of truncated trajectories
        assert 0 <= chain.exact_values()[start] - expected_return <= chain.gamma**cap * truncated_mass


def test_enumerated_dataset_statistics_are_exact() -> None:
    chain = Chain(3, Fraction(1, 2), Fraction(1, 2))
    data = tuple(x for x, _ in chain.enumerate_trajectories(0, 3))
    assert all(isinstance(v, Fraction) for v in average_first_visit_returns(data, chain.gamma, 3))
    assert not data[0].truncated or data[0].states[0] == 0


def test_mdp_convention() -> None:
    mdp = Chain(5, 0.25, 0.5).mdp()
    assert mdp.rewards[3, 0, 4] == 1.0 and mdp.rewards.sum() == 1.0
    assert mdp.absorbing_states().tolist() == [False] * 4 + [True]
    assert np.allclose(mdp.initial, 0.2)


@pytest.mark.parametrize(
    "kwargs",
    [{"n_states": 1}, {"p": 1}, {"p": -0.0 - 1e-300}, {"p": float("nan")}, {"gamma": 1}, {"gamma": float("inf")}],
)
def test_invalid_chains(kwargs: dict) -> None:
    with pytest.raises(InvalidArgument):
        Chain(**kwargs)


def test_invalid_enumeration_arguments() -> None:
    with pytest.raises(InvalidArgument, match="start_state=5"):
        next(Chain(5).enumerate_trajectories(5, 3))
    with pytest.raises(InvalidArgument, match="max_steps=0"):
        next(Chain(5).enumerate_trajectories(0, 0))
