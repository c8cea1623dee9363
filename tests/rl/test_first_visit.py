"""Tests of dpaudit.rl.first_visit against hand-computed values (Balle et al. 2016, eqs. (3)-(5))."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.first_visit import (
    average_first_visit_returns,
    dataset_signature,
    discounted_returns,
    exact_visit_frequencies,
    first_visit_estimate,
    first_visit_return_matrix,
    first_visit_returns,
    first_visit_times,
    visit_frequency_matrix,
    visited_states,
)
from dpaudit.rl.trajectory import Trajectory, TrajectoryBatch

HALF = Fraction(1, 2)
X1 = Trajectory((0, 1, 0, 2), (0, 0, 0, 0), (1, 0, 2, 4))
X2 = Trajectory((1, 1), (0, 0), (3, Fraction(1, 3)))
DATA = (X1, X2)


def test_first_visit_times_and_visit_set() -> None:
    assert first_visit_times(X1.states, 4).tolist() == [0, 1, 3, -1]
    assert visited_states(X1) == frozenset({0, 1, 2})
    with pytest.raises(InvalidArgument, match=r"states\[3\]=2"):
        first_visit_times(X1.states, 2)


def test_exact_first_visit_returns_by_hand() -> None:
    # G = (1 + 0/2 + 2/4 + 4/8, 0 + 2/2 + 4/4, 2 + 4/2, 4) = (2, 2, 4, 4)
    assert discounted_returns(X1.rewards, HALF) == [2, 2, 4, 4]
    returns = first_visit_returns(X1, HALF, 4)
    assert returns == (Fraction(2), Fraction(2), Fraction(4), Fraction(0))
    assert all(isinstance(v, Fraction) for v in returns)
    assert first_visit_returns(((1, 1), (3, Fraction(1, 3))), HALF, 2) == (0, Fraction(19, 6))


def test_float_path_matches_exact_path() -> None:
    floats = first_visit_returns(X1, 0.5, 4)
    assert isinstance(floats, np.ndarray) and floats.tolist() == [2.0, 2.0, 4.0, 0.0]


def test_exact_path_rejects_float_rewards() -> None:
    with pytest.raises(InvalidType, match="Fraction rewards"):
        first_visit_returns(Trajectory((0,), (0,), (0.5,)), HALF, 1)
    with pytest.raises(InvalidArgument, match="gamma"):
        first_visit_returns(X1, Fraction(3, 2), 4)


def test_dataset_statistics_exact() -> None:
    assert dataset_signature(DATA, 4).tolist() == [1, 2, 1, 0]
    # F_X(1) = (F_{x1,1} + F_{x2,1}) / 2 = (2 + 19/6) / 2 = 31/12; unvisited state 3 gets 0 (eq. (4))
    assert average_first_visit_returns(DATA, HALF, 4) == (Fraction(2), Fraction(31, 12), Fraction(4), Fraction(0))
    assert exact_visit_frequencies(DATA, 4) == (HALF, Fraction(1), HALF, Fraction(0))
    assert exact_visit_frequencies(DATA, 4, weights=[1, HALF, 0.25, 0]) == (HALF, HALF, Fraction(1, 8), 0)
    assert np.array_equal(visit_frequency_matrix(DATA, 4, weights=[1, 0.5, 0.25, 0]), np.diag([0.5, 0.5, 0.125, 0]))


def test_dataset_statistics_float_and_batch_agree() -> None:
    exact = np.array([float(v) for v in average_first_visit_returns(DATA, HALF, 4)])
    assert np.allclose(average_first_visit_returns(DATA, 0.5, 4), exact)
    batch = TrajectoryBatch.from_trajectories(DATA, 4)
    assert np.allclose(average_first_visit_returns(batch, 0.5, 4), exact)
    assert dataset_signature(batch, 4).tolist() == [1, 2, 1, 0]
    returns, visited = first_visit_return_matrix(batch, 0.5, 4)
    assert visited.tolist() == [[True, True, True, False], [False, True, False, False]]
    assert np.allclose(returns[1], [0, 3 + 1 / 6, 0, 0])
    with pytest.raises(InvalidType):
        average_first_visit_returns(batch, HALF, 4)
    with pytest.raises(InvalidArgument, match="n_states=5"):
        dataset_signature(batch, 5)


@pytest.mark.parametrize("weights", [[1, 1, 1], [1, 1, 1, 1.5], [1, 1, 1, -0.0 - 1e-300]])
def test_invalid_weights(weights: list) -> None:
    with pytest.raises(InvalidArgument):
        visit_frequency_matrix(DATA, 4, weights=weights)
    with pytest.raises(InvalidArgument):
        exact_visit_frequencies(DATA, 4, weights=weights)


def test_first_visit_estimate_standard_errors() -> None:
    data = (Trajectory((0,), (0,), (1.0,)), Trajectory((0,), (0,), (3.0,)), Trajectory((1,), (0,), (0.0,)))
    estimate = first_visit_estimate(data, 0.9, 3)
    assert estimate.mean.tolist() == [2.0, 0.0, 0.0] and estimate.counts.tolist() == [2, 1, 0]
    assert estimate.standard_error[0] == pytest.approx(1.0)
    assert np.isnan(estimate.standard_error[1:]).all()


def test_long_trajectory_returns_do_not_underflow() -> None:
    n = 20_000
    x = Trajectory((0,) * n, (0,) * n, (0.0,) * (n - 1) + (1.0,))
    assert first_visit_returns(x, 0.999, 1)[0] == pytest.approx(0.999 ** (n - 1), rel=1e-9)


_trajectories = st.lists(
    st.lists(st.tuples(st.integers(0, 4), st.fractions(-3, 3, max_denominator=7)), min_size=1, max_size=8).map(
        lambda steps: Trajectory(tuple(s for s, _ in steps), (0,) * len(steps), tuple(r for _, r in steps))
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(data=_trajectories, gamma=st.fractions(0, 1, max_denominator=9))
def test_vectorised_batch_statistics_match_exact_oracle(data: list[Trajectory], gamma: Fraction) -> None:
    """Oracle: the float, vectorised batch path agrees with the exact Fraction path."""
    exact_returns = [first_visit_returns(x, gamma, 5) for x in data]
    batch = TrajectoryBatch.from_trajectories(data, 5)
    returns, visited = first_visit_return_matrix(batch, float(gamma), 5)
    assert np.allclose(returns, np.array(exact_returns, dtype=float), atol=1e-12)
    assert visited.tolist() == [[s in visited_states(x) for s in range(5)] for x in data]
    exact_average = average_first_visit_returns(tuple(data), gamma, 5)
    assert np.allclose(average_first_visit_returns(batch, float(gamma), 5), np.array(exact_average, dtype=float))
    frequencies = exact_visit_frequencies(tuple(data), 5)
    assert np.allclose(np.diag(visit_frequency_matrix(batch, 5)), np.array(frequencies, dtype=float))
    assert sum(frequencies) * len(data) == sum(len(set(x.states)) for x in data)
