"""Algorithm 1 and the cost-of-privacy bounds: exact inner solution, LP cross-check, brackets."""

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.synthesis import (
    concentration_radius,
    cost_of_privacy,
    inner_problem_exact,
    privatize_transitions,
    synthesize,
)
from dpaudit.mechanisms.synthesis_lp import inner_problem_cvxpy
from dpaudit.rl.mdp import FiniteMDP


def _random_mdp(seed, n_states=6, n_actions=3, horizon=4, gamma=0.9):
    rng = np.random.default_rng(seed)
    transitions = rng.dirichlet(np.ones(n_states), size=(n_states, n_actions))
    rewards = rng.random((n_states, n_actions))
    initial = np.eye(n_states)[0]
    if horizon is None:
        return FiniteMDP(transitions, rewards, gamma, initial=initial)
    return FiniteMDP(
        transitions, rewards, gamma, initial=initial, horizon=horizon, terminal_values=rng.random(n_states)
    )


@pytest.mark.parametrize("sense", ["min", "max"])
def test_exact_inner_solution_equals_the_rechecked_lp(sense):
    rng = np.random.default_rng(2)
    for _ in range(8):
        n = int(rng.integers(2, 9))
        values = rng.normal(size=n)
        centers = rng.dirichlet(np.full(n, 0.4), size=2)
        alpha, beta = float(rng.uniform(0.01, 0.6)), float(rng.uniform(0.01, 0.5))
        exact, points = inner_problem_exact(values, centers, alpha, beta, sense=sense)
        assert np.allclose(points.sum(axis=1), 1.0) and np.all(points >= 0)
        assert np.allclose(points @ values, exact)
        for row, value in zip(centers, exact, strict=False):
            assert inner_problem_cvxpy(values, row, alpha, beta, sense=sense) == pytest.approx(value, abs=1e-8)


def test_inner_solution_is_no_worse_than_random_feasible_points():
    rng = np.random.default_rng(4)
    values, center = rng.normal(size=5), rng.dirichlet(np.ones(5))
    alpha, beta = 0.1, 0.2
    low, _ = inner_problem_exact(values, center[None], alpha, beta, sense="min")
    high, _ = inner_problem_exact(values, center[None], alpha, beta, sense="max")
    for _ in range(500):
        p2 = np.clip(center + rng.uniform(-alpha, alpha, 5), 0, None)
        if abs(p2.sum() - 1) > 1e-12:
            continue
        p = beta * rng.dirichlet(np.ones(5)) + (1 - beta) * p2
        assert low[0] - 1e-12 <= p @ values <= high[0] + 1e-12


def test_radius_of_lemma_2():
    assert concentration_radius(1.0, np.exp(-4.0)) == pytest.approx(1.0)
    for bad in (0.0, -0.0, 1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidArgument):
            concentration_radius(1.0, bad)


@pytest.mark.parametrize("horizon", [4, None])
def test_bounds_bracket_the_private_value_always(horizon):
    """Theorem 1 eq. (3) / Theorem 2 eq. (5): P̄ ∈ P̂, so v̲ <= V̄^π̄ <= v̄ on every run."""
    mdp = _random_mdp(1, horizon=horizon)
    for seed in range(5):
        result = synthesize(mdp, 5.0, rng=seed)
        bounds = cost_of_privacy(mdp, result.policy, result.privatized.transitions, 5.0, 0.1)
        private = result.private_values
        assert np.all(bounds.lower <= private + 1e-9) and np.all(private <= bounds.upper + 1e-9)


def test_cvxpy_inner_and_exact_inner_give_the_same_bounds():
    mdp = _random_mdp(3, n_states=4, n_actions=2, horizon=2)
    result = synthesize(mdp, 3.0, rng=0)
    exact = cost_of_privacy(mdp, result.policy, result.privatized.transitions, 3.0, 0.2)
    lp = cost_of_privacy(mdp, result.policy, result.privatized.transitions, 3.0, 0.2, inner="cvxpy")
    assert np.allclose(exact.lower, lp.lower, atol=1e-8) and np.allclose(exact.upper, lp.upper, atol=1e-8)


def test_bounds_tighten_with_k():
    mdp = _random_mdp(5)
    result = synthesize(mdp, 10.0, rng=0)
    widths = []
    for k in (1.0, 10.0, 100.0):
        bounds = cost_of_privacy(mdp, result.policy, result.privatized.transitions, k, 0.1)
        low, high = bounds.at_start(mdp.initial)
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2] > 0


@pytest.mark.parametrize(
    ("transitions", "k", "message"),
    [
        (np.array([[[0.0, 1.0]], [[0.5, 0.5]]]), 1.0, "zero probability"),
        (np.array([[[0.4, 0.5]], [[0.5, 0.5]]]), 1.0, "sums to"),
        (np.array([[[0.5, 0.5]], [[0.5, 0.5]]]), 0.0, "k="),
        (np.array([[[0.5, 0.5]], [[0.5, 0.5]]]), -0.0, "k="),
        (np.array([[[0.5, 0.5]], [[0.5, 0.5]]]), float("nan"), "k="),
        (np.array([[[np.nan, 0.5]], [[0.5, 0.5]]]), 1.0, "finite"),
    ],
)
def test_inputs_outside_the_domain_raise(transitions, k, message):
    with pytest.raises(InvalidArgument, match=message):
        privatize_transitions(transitions, k, rng=0)


def test_structural_zeros_variant_keeps_zeros_and_point_masses():
    transitions = np.array([[[0.0, 0.3, 0.7]], [[0.0, 1.0, 0.0]], [[0.2, 0.3, 0.5]]])
    out = privatize_transitions(transitions, 2.0, rng=0, structural_zeros="keep")
    assert out.transitions[0, 0, 0] == 0.0 and np.array_equal(out.transitions[1, 0], [0.0, 1.0, 0.0])
    assert out.privatized_rows.tolist() == [[True], [False], [True]]
    assert np.allclose(out.transitions.sum(axis=2), 1.0) and out.underflowed_entries == 0


def test_same_seed_same_synthesis():
    mdp = _random_mdp(8)
    first, second = synthesize(mdp, 2.0, rng=9), synthesize(mdp, 2.0, rng=9)
    assert np.array_equal(first.privatized.transitions, second.privatized.transitions)
    assert np.array_equal(first.true_values, second.true_values)
