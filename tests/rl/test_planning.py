"""Tests of dpaudit.rl.planning: exact values against independent oracles."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.planning import (
    backward_induction,
    bellman_residual,
    evaluate_policy,
    policy_iteration,
    q_values,
    value_iteration,
)
from dpaudit.rl.policy import MarkovPolicy


def _random_mdp(seed: int, n_states: int = 5, n_actions: int = 3, gamma: float = 0.9, **kwargs) -> FiniteMDP:
    rng = np.random.default_rng(seed)
    transitions = rng.dirichlet(np.ones(n_states), size=(n_states, n_actions))
    rewards = rng.uniform(-1, 1, size=(n_states, n_actions, n_states))
    return FiniteMDP(transitions, rewards, gamma, **kwargs)


def _fraction_inverse_solve(matrix: list[list[Fraction]], vector: list[Fraction]) -> list[Fraction]:
    n = len(vector)
    rows = [[*row[:], vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=False)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def test_evaluate_policy_matches_exact_rational_solve() -> None:
    mdp = _random_mdp(1)
    policy = MarkovPolicy(np.random.default_rng(2).dirichlet(np.ones(3), size=5))
    values = evaluate_policy(mdp, policy)
    pi = [[Fraction(x) for x in row] for row in policy.probabilities]
    p = [[[Fraction(x) for x in row] for row in block] for block in mdp.transitions]
    r = [[[Fraction(x) for x in row] for row in block] for block in mdp.rewards]
    gamma = Fraction(mdp.gamma)
    n = 5
    r_pi = [sum(pi[s][a] * sum(p[s][a][t] * r[s][a][t] for t in range(n)) for a in range(3)) for s in range(n)]
    matrix = [
        [(1 if s == t else 0) - gamma * sum(pi[s][a] * p[s][a][t] for a in range(3)) for t in range(n)]
        for s in range(n)
    ]
    exact = _fraction_inverse_solve(matrix, r_pi)
    assert np.max(np.abs(values - np.array([float(v) for v in exact]))) < 1e-13
    assert bellman_residual(mdp, policy, values) < 1e-13


@pytest.mark.parametrize("seed", range(4))
def test_value_and_policy_iteration_agree_with_brute_force(seed: int) -> None:
    mdp = _random_mdp(seed, n_states=4, n_actions=3, gamma=0.8)
    best = np.full(4, -np.inf)
    for actions in itertools.product(range(3), repeat=4):
        best = np.maximum(best, evaluate_policy(mdp, MarkovPolicy.deterministic(np.array(actions), 3)))
    vi = value_iteration(mdp, tol=1e-12)
    pi = policy_iteration(mdp)
    assert np.max(np.abs(vi.values - best)) <= 1e-11
    assert np.max(np.abs(pi.values - best)) <= 1e-12
    assert vi.error_bound <= 1e-12
    assert np.allclose(evaluate_policy(mdp, vi.policy), best, atol=1e-10)
    assert np.allclose(pi.q_values, q_values(mdp, pi.values))


def test_value_iteration_gamma_zero_and_errors() -> None:
    mdp = _random_mdp(3, gamma=0.0)
    result = value_iteration(mdp)
    assert np.allclose(result.values, mdp.expected_rewards.max(axis=1)) and result.iterations <= 2
    with pytest.raises(NumericalError):
        value_iteration(_random_mdp(3, gamma=0.999), max_iterations=3)
    with pytest.raises(InvalidArgument, match="tol"):
        value_iteration(mdp, tol=0.0)


def test_policy_iteration_from_initial_policy() -> None:
    mdp = _random_mdp(5)
    start = MarkovPolicy.uniform(5, 3)
    assert np.allclose(policy_iteration(mdp, initial_policy=start).values, policy_iteration(mdp).values)


def test_infinite_horizon_routines_reject_finite_mdp() -> None:
    finite = _random_mdp(0, horizon=3)
    for call in (
        lambda: evaluate_policy(finite, MarkovPolicy.uniform(5, 3)),
        lambda: value_iteration(finite),
        lambda: policy_iteration(finite),
    ):
        with pytest.raises(InvalidArgument, match="backward_induction"):
            call()
    with pytest.raises(InvalidArgument, match="infinite horizon"):
        backward_induction(_random_mdp(0))


def _brute_force_finite(mdp: FiniteMDP) -> np.ndarray:
    """Optimal V_0 by enumerating all deterministic time-dependent policies (tiny MDPs only)."""
    n, a, horizon = mdp.n_states, mdp.n_actions, mdp.horizon
    best = np.full(n, -np.inf)
    for choice in itertools.product(range(a), repeat=n * horizon):
        actions = np.array(choice).reshape(horizon, n)
        values = mdp.terminal_values.copy()
        for t in range(horizon - 1, -1, -1):
            q = q_values(mdp, values)
            values = q[np.arange(n), actions[t]]
        best = np.maximum(best, values)
    return best


def test_backward_induction_optimal_matches_brute_force() -> None:
    mdp = _random_mdp(7, n_states=2, n_actions=2, gamma=1.0, horizon=3, terminal_values=[0.5, -1.0])
    solution = backward_induction(mdp)
    assert np.allclose(solution.values[0], _brute_force_finite(mdp), atol=1e-13)
    assert solution.values.shape == (4, 2) and solution.q_values.shape == (3, 2, 2)
    assert np.array_equal(solution.values[3], [0.5, -1.0])
    again = backward_induction(mdp, solution.policy)
    assert np.allclose(again.values, solution.values)


def test_backward_induction_fixed_policy_long_horizon_approaches_discounted_value() -> None:
    infinite = _random_mdp(8, gamma=0.5)
    policy = MarkovPolicy.uniform(5, 3)
    finite = FiniteMDP(infinite.transitions, infinite.rewards, 0.5, horizon=80)
    assert np.allclose(backward_induction(finite, policy).values[0], evaluate_policy(infinite, policy), atol=1e-12)


def test_backward_induction_time_dependent_policy() -> None:
    mdp = _random_mdp(9, n_states=3, n_actions=2, gamma=0.7, horizon=2)
    timed = MarkovPolicy.deterministic(np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0]]), 2)
    values = backward_induction(mdp, timed).values
    q1 = q_values(mdp, mdp.terminal_values)
    v1 = q1[np.arange(3), [1, 1, 0]]
    v0 = q_values(mdp, v1)[np.arange(3), [0, 1, 0]]
    assert np.allclose(values[1], v1) and np.allclose(values[0], v0)
    with pytest.raises(InvalidArgument, match="fewer than"):
        backward_induction(_random_mdp(9, n_states=3, n_actions=2, horizon=4), timed)
