"""Clopper–Pearson, ε/δ bounds from events, and the empirical Bernstein bound."""

import math

import numpy as np
import pytest
from scipy import special

from dpaudit.checks.empirical import statistics
from dpaudit.checks.empirical.statistics import (
    clopper_pearson_interval,
    clopper_pearson_lower,
    clopper_pearson_lower_array,
    clopper_pearson_upper,
    clopper_pearson_upper_array,
    delta_lower_bound,
    empirical_bernstein_lower,
    epsilon_lower_bound,
    epsilon_lower_bound_array,
)
from dpaudit.errors import DpAuditError, InvalidArgument, InvalidType

SUBNORMAL = 5e-324
BELOW_ONE = 1 - 2**-53


def test_reference_interval_five_of_ten():
    """The textbook 95% Clopper–Pearson interval for 5 successes in 10 trials is (0.1871, 0.8129)."""
    low, high = clopper_pearson_interval(5, 10, 0.95)
    assert low == pytest.approx(0.18708603, abs=1e-8)
    assert high == pytest.approx(0.81291397, abs=1e-8)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (0, 10), (1, 1), (10, 10), (3, 7), (1, 10**8)])
def test_edge_counts_and_order(k, n):
    low = clopper_pearson_lower(k, n, 0.05)
    high = clopper_pearson_upper(k, n, 0.05)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert (low == 0.0) == (k == 0)
    assert (high == 1.0) == (k == n)


def test_zero_successes_upper_bound_closed_form():
    n, alpha = 1000, 0.01
    assert clopper_pearson_upper(0, n, alpha) == pytest.approx(1 - alpha ** (1 / n), rel=1e-10)


@pytest.mark.parametrize("alpha", [SUBNORMAL, 1e-12, 0.05, 0.5, BELOW_ONE])
def test_arrays_match_scalars(alpha):
    n = 50
    counts = np.arange(n + 1)
    lows = clopper_pearson_lower_array(counts, n, alpha)
    highs = clopper_pearson_upper_array(counts, n, alpha)
    for k in (0, 1, 17, n - 1, n):
        assert lows[k] == pytest.approx(clopper_pearson_lower(k, n, alpha), rel=1e-12, abs=1e-300)
        assert highs[k] == pytest.approx(clopper_pearson_upper(k, n, alpha), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("trials", [1, 40, statistics._BOUNDS_ENTRIES])  # the last too many to remember
def test_remembered_bounds_are_the_bounds_computed_afresh(trials, monkeypatch):
    """Bounds are inverted once per (side, trials, alpha) and looked up after: the same bits in any order of
    calls, counts asked for in any shape, other alphas and sizes kept apart, and the tables emptied when full."""
    monkeypatch.setattr(statistics, "_BOUNDS", {})
    rng = np.random.default_rng(3)

    def afresh(counts, alpha):
        k = counts.astype(np.float64)
        low = special.betaincinv(np.maximum(k, 1.0), trials - k + 1.0, alpha)
        high = 1.0 - special.betaincinv(np.maximum(trials - k, 1.0), k + 1.0, alpha)
        return np.where(k == 0, 0.0, low), np.where(k == trials, 1.0, high)

    for alpha in (0.05, 1e-3, 0.05):
        for shape in ((7,), (3, 5), (0,)):
            counts = rng.integers(0, trials + 1, shape)
            low, high = afresh(counts, alpha)
            assert clopper_pearson_lower_array(counts, trials, alpha).tobytes() == low.tobytes()
            assert clopper_pearson_upper_array(counts, trials, alpha).tobytes() == high.tobytes()
    remembered = 2 * (trials + 1) <= statistics._BOUNDS_ENTRIES
    assert sorted(statistics._BOUNDS) == (
        sorted((side, trials, alpha) for side in ("lower", "upper") for alpha in (0.05, 1e-3)) if remembered else []
    )
    monkeypatch.setattr(statistics, "_BOUNDS_ENTRIES", 2 * (trials + 1) + 1)  # room for one table only
    clopper_pearson_lower_array(np.array([0, 1]), trials, 0.2)
    assert list(statistics._BOUNDS) == [("lower", trials, 0.2)]


@pytest.mark.parametrize(
    ("successes", "trials", "alpha", "error"),
    [
        (-1, 10, 0.05, InvalidArgument),
        (11, 10, 0.05, InvalidArgument),
        (0, 0, 0.05, InvalidArgument),
        (1.0, 10, 0.05, InvalidType),
        (True, 10, 0.05, InvalidType),
        (1, 10, 0.0, InvalidArgument),
        (1, 10, -0.0, InvalidArgument),
        (1, 10, 1.0, InvalidArgument),
        (1, 10, math.nan, InvalidArgument),
        (1, 10, math.inf, InvalidArgument),
    ],
)
def test_invalid_arguments(successes, trials, alpha, error):
    for function in (clopper_pearson_lower, clopper_pearson_upper):
        with pytest.raises(error) as info:
            function(successes, trials, alpha)
        assert isinstance(info.value, DpAuditError)


@pytest.mark.parametrize("counts", [np.array([0.5]), np.array([-1]), np.array([11])])
def test_invalid_array_counts(counts):
    with pytest.raises(InvalidArgument):
        clopper_pearson_lower_array(counts, 10, 0.05)


def test_one_sided_coverage():
    """Each one-sided bound misses the true p in at most about alpha of repeated experiments."""
    rng = np.random.default_rng(7)
    p, n, alpha, runs = 0.03, 400, 0.1, 4000
    counts = rng.binomial(n, p, size=runs)
    lower_misses = np.mean(clopper_pearson_lower_array(counts, n, alpha) > p)
    upper_misses = np.mean(clopper_pearson_upper_array(counts, n, alpha) < p)
    assert lower_misses <= alpha + 3 * math.sqrt(alpha / runs)
    assert upper_misses <= alpha + 3 * math.sqrt(alpha / runs)


@pytest.mark.parametrize(
    ("p_lower", "q_upper", "delta", "expected"),
    [
        (0.5, 0.05, 0.0, math.log(10.0)),
        (0.5, 0.05, 0.25, math.log(5.0)),
        (0.1, 0.05, 0.1, -math.inf),
        (0.1, 0.0, 0.0, math.inf),
        (0.0, 0.0, 0.0, -math.inf),
    ],
)
def test_epsilon_lower_bound(p_lower, q_upper, delta, expected):
    assert epsilon_lower_bound(p_lower, q_upper, delta) == pytest.approx(expected)
    assert epsilon_lower_bound_array(np.array([p_lower]), np.array([q_upper]), delta)[0] == pytest.approx(expected)


def test_delta_and_epsilon_bounds_agree():
    """ε_lb > ε exactly when δ_lb(ε) > δ: the two refutations of one event coincide."""
    p_lower, q_upper, delta = 0.3, 0.01, 1e-3
    eps = epsilon_lower_bound(p_lower, q_upper, delta)
    assert delta_lower_bound(p_lower, q_upper, eps - 1e-9) > delta
    assert delta_lower_bound(p_lower, q_upper, eps + 1e-9) < delta
    with pytest.raises(InvalidArgument):
        delta_lower_bound(p_lower, q_upper, math.nan)


def test_empirical_bernstein_coverage_and_arguments():
    rng = np.random.default_rng(11)
    runs, n, alpha = 2000, 200, 0.1
    values = rng.beta(0.5, 3.0, size=(runs, n))
    truth = 0.5 / 3.5
    bounds = [empirical_bernstein_lower(float(v.mean()), float(v.var(ddof=1)), n, alpha) for v in values]
    assert np.mean(np.array(bounds) > truth) <= alpha
    with pytest.raises(InvalidArgument):
        empirical_bernstein_lower(0.5, 0.1, 1, 0.05)
    with pytest.raises(InvalidArgument):
        empirical_bernstein_lower(1.5, 0.1, 10, 0.05)
