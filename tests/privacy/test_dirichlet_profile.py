"""The exact Dirichlet privacy profile against quadrature and Monte Carlo; the ACC 2020 statement."""

import math

import mpmath
import numpy as np
import pytest
from scipy import special, stats

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.privacy.dirichlet_composition import composition_delta_bounds, concentration_tail_bounds
from dpaudit.privacy.dirichlet_pair import (
    BetaPair,
    beta_pair_delta,
    beta_pair_delta_float64,
    dirichlet_pair,
    dirichlet_pair_delta_quadrature,
    privacy_loss_samples,
)
from dpaudit.privacy.dirichlet_worst_case import acc2020_delta, acc2020_epsilon, worst_pair_delta

PAIRS = [
    ([0.3, 0.7], [0.4, 0.6], 5.0, 0.5),
    ([0.2, 0.8], [0.1, 0.9], 12.0, 1.0),
    ([0.25, 0.35, 0.4], [0.25, 0.45, 0.3], 8.0, 0.3),
    ([0.3, 0.3, 0.4], [0.2, 0.3, 0.5], 10.0, 0.8),
]


@pytest.mark.parametrize(("p", "q", "k", "epsilon"), PAIRS)
def test_exact_profile_agrees_with_quadrature_on_the_2_and_3_simplex(p, q, k, epsilon):
    pair, _ = dirichlet_pair(np.array(p), np.array(q), k)
    exact = beta_pair_delta(epsilon, pair)
    assert exact.error < mpmath.mpf(10) ** -50
    quadrature = dirichlet_pair_delta_quadrature(epsilon, np.array(p), np.array(q), k)
    assert abs(float(exact.value) - quadrature) < 2e-7
    assert abs(float(exact.value) - beta_pair_delta_float64(epsilon, pair)) < 1e-12


def _full_loss(x, p, q, k):
    alpha_p, alpha_q = k * np.asarray(p), k * np.asarray(q)
    log_p = special.gammaln(alpha_p.sum()) - special.gammaln(alpha_p).sum() + (alpha_p - 1) @ np.log(x).T
    log_q = special.gammaln(alpha_q.sum()) - special.gammaln(alpha_q).sum() + (alpha_q - 1) @ np.log(x).T
    return log_p - log_q


@pytest.mark.parametrize(("p", "q", "k", "epsilon"), PAIRS)
def test_privacy_loss_law_matches_monte_carlo_of_full_dirichlet_draws(p, q, k, epsilon):
    pair, _ = dirichlet_pair(np.array(p), np.array(q), k)
    rng = np.random.default_rng(5)
    draws = DirichletMechanism(k).release(p, rng=rng, size=20000)
    full = _full_loss(draws, p, q, k)
    reduced = privacy_loss_samples(pair, 20000, rng=rng)
    assert stats.ks_2samp(full, reduced).pvalue > 0.01
    other = DirichletMechanism(k).release(q, rng=rng, size=20000)
    estimate = np.mean(full > epsilon) - math.exp(epsilon) * np.mean(_full_loss(other, p, q, k) > epsilon)
    assert abs(estimate - float(beta_pair_delta(epsilon, pair).value)) < 0.03


def test_pairs_that_are_not_b_adjacent_are_rejected():
    with pytest.raises(InvalidArgument, match="exactly 2"):
        dirichlet_pair(np.array([0.2, 0.3, 0.5]), np.array([0.3, 0.3, 0.4]) + np.array([0.0, -0.05, 0.05]), 2.0)
    with pytest.raises(InvalidArgument, match="entry > 0"):
        dirichlet_pair(np.array([0.0, 1.0]), np.array([0.5, 0.5]), 2.0)
    with pytest.raises(InvalidArgument, match="mass"):
        BetaPair(1.0, 2.0, 1.5, 2.0)


def test_delta_is_zero_for_equal_inputs_and_large_for_distant_inputs():
    assert beta_pair_delta(0.0, BetaPair(1.0, 1.0, 1.0, 1.0)).value == 0
    big = beta_pair_delta(1.0, BetaPair(30.0, 70.0, 40.0, 60.0))
    assert 0.1 < big.value <= 1
    assert float(big.value) == pytest.approx(beta_pair_delta_float64(1.0, BetaPair(30.0, 70.0, 40.0, 60.0)))


def test_worst_pair_is_on_the_boundary_and_the_shift_is_monotone():
    worst = worst_pair_delta(2.0, 10.0, 0.2, n=2, eta=0.1, grid=60)
    assert worst.at_boundary and worst.shift_monotone
    assert worst.pair_inputs[0] == pytest.approx(0.1)
    # exhaustive re-check on a finer grid in float64 never beats the reported maximum by more than rounding
    for x in np.linspace(0.1, 0.8, 301):
        assert beta_pair_delta_float64(2.0, BetaPair(10 * x, 10 * (1 - x), 10 * (x + 0.1), 10 * (0.9 - x))) <= (
            float(worst.delta.value) + 1e-12
        )


def test_worst_pair_on_the_3_simplex_searches_the_pair_mass():
    worst = worst_pair_delta(1.0, 6.0, 0.2, n=3, eta=0.05, grid=20)
    assert worst.grid_points == 400
    assert worst.at_boundary
    # the maximiser swaps the two smallest admissible components: (eta, eta + b/2) -> (eta + b/2, eta)
    assert worst.pair_inputs == pytest.approx((0.05, 0.15, 0.15, 0.05))


def test_acc2020_statement_values_and_domain():
    epsilon = acc2020_epsilon(10.0, 0.2, 0.1, 0.01, 2)
    first = mpmath.log(mpmath.beta(1.0, 9.0) / mpmath.beta(2.0, 8.0))
    assert epsilon == pytest.approx(float(first + 1.0 * mpmath.log(99)), rel=1e-15)
    delta = acc2020_delta(10.0, 0.1, 0.01, grid=40)
    assert 0 < delta < 1
    with pytest.raises(InvalidArgument):
        acc2020_epsilon(10.0, 0.2, 0.48, 0.01, 2)
    with pytest.raises(InvalidArgument):
        acc2020_delta(10.0, 0.1, 0.01, n=3)
    for bad in (0.0, -0.0, float("nan"), float("inf")):
        with pytest.raises(InvalidArgument):
            acc2020_epsilon(bad, 0.2, 0.1, 0.01, 2)


def test_composition_bounds_bracket_and_grow_with_rows():
    pair = BetaPair(1.0, 9.0, 2.0, 8.0)
    single = beta_pair_delta(6.0, pair).value
    low1, high1 = composition_delta_bounds(6.0, pair, 1)
    with mpmath.workdps(80):
        assert low1 <= single <= high1
    low, high = composition_delta_bounds(6.0, pair, 12)
    assert low <= high and low > single


def test_concentration_bounds_are_exact_for_n_2_and_ordered_otherwise():
    low, high = concentration_tail_bounds(np.array([0.3, 0.7]), 5.0, 0.2)
    assert high - low < 1e-40
    reference = stats.beta(1.5, 3.5).cdf(0.1) + stats.beta(1.5, 3.5).sf(0.5)
    assert float(low) == pytest.approx(reference, rel=1e-9)
    low3, high3 = concentration_tail_bounds(np.array([0.2, 0.3, 0.5]), 5.0, 0.2)
    assert low3 <= high3


@pytest.mark.parametrize(
    ("pair", "epsilon"),
    [
        (BetaPair(0.0005, 0.4995, 0.0255, 0.4745), 0.5),  # u* = e^-176: the lower tail of a small shape
        (BetaPair(0.4745, 0.0255, 0.4995, 0.0005), 0.5),  # the same reversed: u* within 10^-76 of 1
        (BetaPair(2.0, 1e-4, 1.9995, 6e-4), 0.5),  # slope > 0, logit 4584: the upper tail past every float
        (BetaPair(0.001, 999.999, 0.002, 999.998), 0.1),  # logit -800 (a reviewer's false verified)
        (BetaPair(2.0, 18.0, 4.0, 16.0), 1.0),
    ],
)
def test_the_float64_tails_follow_the_exact_ones_where_the_threshold_rounds_to_0_or_1(pair, epsilon):
    """expit rounds to 1 from a logit of 37 on and underflows below -745: the grid's float64 ranking then took a
    tail of 0.5 or 0.9 as 0 (or a negative delta), and ranked the worst pair last."""
    exact = float(beta_pair_delta(epsilon, pair).value)
    assert beta_pair_delta_float64(epsilon, pair) == pytest.approx(exact, rel=1e-9, abs=1e-300)
