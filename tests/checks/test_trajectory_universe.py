"""Tests of the bounded trajectory universe and the exact LSW/LSL re-derivations."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.mechanisms.policy_evaluation.exact_estimators import (
    LSLProblem,
    LSWProblem,
    exact_first_visit_statistics,
    exact_local_sensitivity,
    exact_parameters,
    solve_rational,
)
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex, chain_universe, neighbours

IDENTITY = [[Fraction(int(i == j)) for j in range(5)] for i in range(5)]


@pytest.fixture(scope="module")
def universe():
    return chain_universe(5, "1/2", "1/2", 4)


def test_universe_counts_and_exact_returns(universe):
    assert universe.n_trajectories == 48
    assert len(universe) == 26
    assert sum(p.multiplicity for p in universe.profiles) == 48
    for profile in universe.profiles:
        assert all(isinstance(r, Fraction) and 0 <= r <= 1 for r in profile.returns)
        assert profile.visits == frozenset(profile.representative.states)


def test_direct_path_returns_are_powers_of_gamma(universe):
    direct = next(p for p in universe.profiles if p.representative.states == (1, 2, 3, 4))
    assert direct.returns == (0, Fraction(1, 4), Fraction(1, 2), 1, 0)


@pytest.mark.parametrize("m", [1, 2, 3])
def test_dataset_index_ranks_are_a_bijection(m):
    index = DatasetIndex(7, 3)
    rows = index.datasets(m)
    assert rows.shape[0] == index.count(m)
    assert np.array_equal(index.rank(rows), np.arange(rows.shape[0]))
    assert index.total == 7 + 28 + 84
    assert np.all(np.diff(rows, axis=1) >= 0)
    assert {tuple(row) for row in rows.tolist()} == set(itertools.combinations_with_replacement(range(7), m))


def test_dataset_index_has_one_empty_dataset():
    assert DatasetIndex(4, 2).datasets(0).shape == (1, 0)


@pytest.mark.parametrize("bad", [0, -1, 1.5, float("nan")])
def test_dataset_index_rejects_bad_sizes(bad):
    with pytest.raises((InvalidArgument, TypeError)):
        DatasetIndex(3, bad)


def test_neighbours_replace_and_add_remove():
    replaced = list(neighbours((0, 0, 1), "replace_one", 3, 3))
    assert sorted(replaced) == [(0, 0, 0), (0, 0, 2), (0, 1, 1), (0, 1, 2)]
    added = list(neighbours((0, 1), "add_remove_one", 3, 3))
    assert sorted(added) == [(0,), (0, 0, 1), (0, 1, 1), (0, 1, 2), (1,)]
    assert list(neighbours((0, 1, 2), "add_remove_one", 3, 3)) == [(1, 2), (0, 2), (0, 1)]
    with pytest.raises(InvalidArgument):
        list(neighbours((0,), "simplex_adjacent", 3, 3))


def test_solve_rational_exact_and_singular():
    assert solve_rational([[2, 1], [1, 3]], [3, 5]) == (Fraction(4, 5), Fraction(7, 5))
    with pytest.raises(NumericalError):
        solve_rational([[1, 2], [2, 4]], [1, 2])


def test_lsw_tabular_theta_is_average_returns(universe):
    problem = LSWProblem(IDENTITY, [1] * 5, 1, Fraction(1, 2))
    dataset = (0, 3, 7)
    _, average = exact_first_visit_statistics(universe, dataset)
    assert exact_parameters(problem, universe, dataset) == average


def test_lsl_theta_solves_the_ridge_normal_equations(universe):
    problem = LSLProblem(IDENTITY, [1] * 5, 4, 1, Fraction(1, 2))
    dataset = (2, 5)
    counts, average = exact_first_visit_statistics(universe, dataset)
    theta = exact_parameters(problem, universe, dataset)
    for s in range(5):
        frequency = Fraction(counts[s], 2)
        assert (frequency + Fraction(4, 4)) * theta[s] == frequency * average[s]


def test_exact_local_sensitivity_matches_a_float_recomputation(universe):
    problem = LSWProblem(IDENTITY, [1] * 5, 1, Fraction(1, 2))
    result = exact_local_sensitivity(problem, universe, (0, 3), "replace_one", 3)
    base = np.array([float(v) for v in exact_parameters(problem, universe, (0, 3))])
    values = [
        float(np.sum((base - np.array([float(v) for v in exact_parameters(problem, universe, other)])) ** 2))
        for other in neighbours((0, 3), "replace_one", len(universe), 3)
    ]
    assert result.neighbours_checked == len(values)
    assert float(result.squared) == pytest.approx(max(values), rel=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"weights": [0, 1, 1, 1, 1]},
        {"weights": [float("nan")] * 5},
        {"r_max": 0},
        {"gamma": 1},
        {"gamma": -0.0 - 1e-300},
    ],
)
def test_lsw_problem_rejects_invalid_parameters(kwargs):
    arguments = {"features": IDENTITY, "weights": [1] * 5, "r_max": 1, "gamma": Fraction(1, 2)} | kwargs
    with pytest.raises(InvalidArgument):
        LSWProblem(**arguments)


@pytest.mark.parametrize("lam", [0, -1.0, float("inf"), float("nan")])
def test_lsl_problem_rejects_invalid_lambda(lam):
    with pytest.raises(InvalidArgument):
        LSLProblem(IDENTITY, [1] * 5, lam, 1, Fraction(1, 2))


@pytest.mark.parametrize("gamma", [0, "1/2", 1 - 2**-53])
def test_lsw_problem_accepts_valid_discounts(gamma):
    assert LSWProblem(IDENTITY, [1] * 5, 1, gamma).gamma < 1
