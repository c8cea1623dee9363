"""Tests of the Lemma 1 worst case and the tight calibration."""

from __future__ import annotations

import json
import math

import mpmath
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.privacy.calibration import (
    boundary_pair,
    calibrate_smooth_gaussian,
    lemma1_worst_case,
    smallest_alpha,
)
from dpaudit.privacy.gaussian_pair_profile import GaussianPair, gaussian_pair_delta
from dpaudit.privacy.gaussian_pair_quadrature import gaussian_pair_delta_quadrature


def _paper(epsilon: float, delta: float, dim: int) -> tuple[float, float]:
    log_term = math.log(2 / delta)
    return 5 * math.sqrt(2 * log_term) / epsilon, epsilon / (4 * dim + 4 * log_term)


@pytest.mark.parametrize(
    ("epsilon", "delta", "dim", "factor"), [(1.0, 1e-5, 1, 1.0), (1.0, 1e-5, 1, 0.1), (0.5, 1e-3, 3, 0.3)]
)
def test_profile_grows_with_the_shift(epsilon, delta, dim, factor):
    alpha, beta = _paper(epsilon, delta, dim)
    for log_ratio in (-beta, beta / 2):
        top = boundary_pair(alpha * factor, log_ratio, dim)
        values = [
            gaussian_pair_delta(epsilon, GaussianPair(top.shift * f, 1.0, top.sigma2, dim), digits=30).value
            for f in (0.0, 0.25, 0.5, 0.75, 1.0)
        ]
        assert values == sorted(values)


@pytest.mark.parametrize(
    ("epsilon", "delta", "dim", "factor"), [(1.0, 1e-5, 1, 1.0), (1.0, 1e-5, 1, 0.1), (2.0, 1e-2, 10, 0.5)]
)
def test_worst_ratio_is_the_extreme_one_on_a_dense_grid(epsilon, delta, dim, factor):
    alpha, beta = _paper(epsilon, delta, dim)
    dense = [i / 8 for i in range(-8, 9) if abs(i) != 1]
    worst = lemma1_worst_case(epsilon, alpha * factor, beta, dim, digits=30, ratio_fractions=tuple(dense))
    assert worst.pair.sigma2 == pytest.approx(math.exp(-beta / 2))
    values = [value for _, value in worst.candidates]
    assert values.index(max(values)) == 0


def test_worst_case_reports_candidates_and_json():
    alpha, beta = _paper(1.0, 1e-5, 1)
    worst = lemma1_worst_case(1.0, alpha, beta, 1)
    assert len(worst.candidates) == 5
    data = worst.to_json()
    assert float(data["delta"]) == pytest.approx(7.4850404748013375e-19, rel=1e-15)
    json.dumps(data)


@pytest.fixture(scope="module")
def calibration():
    return calibrate_smooth_gaussian(1.0, 1e-5, 1, pareto_points=2)


def test_calibration_certifies_a_much_smaller_alpha(calibration):
    alpha_paper, beta_paper = _paper(1.0, 1e-5, 1)
    assert calibration.beta == beta_paper and calibration.alpha_paper == alpha_paper
    assert calibration.alpha_lower < calibration.alpha < 1.0001 * calibration.alpha_lower
    assert calibration.alpha == pytest.approx(4.2792566, rel=1e-6)
    assert calibration.certified_delta.upper <= mpmath.mpf(1e-5)


def test_calibration_is_rechecked_by_quadrature(calibration):
    pair = calibration.worst_pair
    integrated = gaussian_pair_delta_quadrature(1.0, pair, digits=40)
    assert abs(integrated.value - calibration.certified_delta.value) < mpmath.mpf("1e-30")
    assert integrated.upper <= mpmath.mpf(1e-5)
    below = boundary_pair(calibration.alpha_lower, pair_log_ratio(pair), 1)
    assert gaussian_pair_delta_quadrature(1.0, below, digits=40).lower > mpmath.mpf(1e-5)


def pair_log_ratio(pair: GaussianPair) -> float:
    return 2 * math.log(pair.sigma2 / pair.sigma1)


def test_pareto_front_is_monotone(calibration):
    betas = [p.beta for p in calibration.pareto]
    alphas = [p.alpha for p in calibration.pareto]
    assert betas == sorted(betas) and alphas == sorted(alphas)
    assert len(calibration.pareto) == 3
    assert all(p.certified_delta <= mpmath.mpf(1e-5) for p in calibration.pareto)
    data = calibration.to_json()
    assert json.loads(json.dumps(data))["alpha"] == calibration.alpha
    with pytest.raises(AttributeError):
        calibration.alpha = 1.0  # frozen


def test_infeasible_beta_is_rejected(calibration):
    with pytest.raises(InvalidArgument):
        smallest_alpha(1.0, 1e-5, 1, 1.01 * calibration.beta_limit)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((0.0, 1e-5, 1), {}),
        ((-0.0, 1e-5, 1), {}),
        ((float("nan"), 1e-5, 1), {}),
        ((float("inf"), 1e-5, 1), {}),
        ((1.0, 0.0, 1), {}),
        ((1.0, 1.0, 1), {}),
        ((1.0, 1 + 2**-52, 1), {}),
        ((1.0, 1e-5, 0), {}),
        ((1.0, 1e-5, 1), {"pareto_points": -1}),
        ((1.0, 1e-5, 1), {"digits": 20}),
        ((1.0, 1e-5, 1), {"beta": -1.0}),
    ],
)
def test_calibration_rejects_bad_arguments(args, kwargs):
    with pytest.raises(InvalidArgument):
        calibrate_smooth_gaussian(*args, **kwargs)


@pytest.mark.parametrize(("alpha", "beta"), [(0.0, 0.1), (-1.0, 0.1), (1.0, -0.1), (1.0, float("nan"))])
def test_worst_case_rejects_bad_constants(alpha, beta):
    with pytest.raises(InvalidArgument):
        lemma1_worst_case(1.0, alpha, beta, 1)


def _series_inputs(seed: int, upper: bool) -> tuple[tuple[mpmath.mpf, ...], int]:
    """Inputs of the noncentral χ² series as the tails build them (q from gammainc, more bits than prec)."""
    import random

    rng = random.Random(seed)
    half = mpmath.mpf(rng.uniform(0.5, 400.0))
    h = mpmath.mpf(rng.uniform(0.1, 600.0))
    a = mpmath.mpf(rng.choice([1, 2, 3, 10, 80])) / 2
    index = int(half) + (0 if upper else 2)
    q = mpmath.gammainc(a + index, h, mpmath.inf, regularized=True) if upper else mpmath.gammainc(a + index, 0, h, True)
    increment = mpmath.exp((a + index) * mpmath.log(h) - h - mpmath.loggamma(a + index + 1))
    weight = mpmath.exp(-half + index * mpmath.log(half) - mpmath.loggamma(index + 1))
    return (half, h, a, q, increment, weight, mpmath.mpf(2) ** (-mpmath.mp.prec)), index


@pytest.mark.parametrize("digits", [60, 80])
@pytest.mark.parametrize("seed", range(12))
def test_the_series_on_mpfr_give_mpmaths_bits(digits, seed):
    """+, −, ×, ÷ rounded to nearest at one binary precision: MPFR (gmpy2) and mpmath agree to the bit."""
    from dpaudit.privacy.gaussian_pair_profile import _at_working_precision, _lower_series, _upper_series

    with mpmath.workdps(digits):
        for series, upper in ((_upper_series, True), (_lower_series, False)):
            numbers, index = _series_inputs(seed, upper)
            fast = _at_working_precision(series, numbers, index)
            slow = series(*numbers, index)
            assert all(type(value) is mpmath.mpf for value in fast)
            assert [value._mpf_ for value in fast] == [value._mpf_ for value in slow]


def test_a_value_past_mpfrs_exponent_range_runs_on_mpmath():
    """mpmath's exponents are unbounded, MPFR's are not: a term that would underflow there falls back."""
    from dpaudit.privacy.gaussian_pair_profile import _at_working_precision, _upper_series

    with mpmath.workdps(60):
        numbers, index = _series_inputs(3, True)
        tiny = tuple(value * mpmath.mpf(2) ** -1_100_000_000 if k == 5 else value for k, value in enumerate(numbers))
        result = _at_working_precision(_upper_series, tiny, index)
        assert [value._mpf_ for value in result] == [value._mpf_ for value in _upper_series(*tiny, index)]
        assert result[0] > 0


def test_mpfr_copies_are_exact_or_refused():
    """Every finite mpmath value MPFR can hold is copied exactly (sign and all its bits); an infinity, a NaN
    or an exponent past MPFR's range (or past a C long) is refused, so the series run on mpmath."""
    from fractions import Fraction

    from dpaudit.privacy.gaussian_pair_profile import _to_mpf, _to_mpfr

    with mpmath.workdps(30):
        values = [-mpmath.mpf(1) / 3, mpmath.mpf(2) ** -900 / 7, mpmath.mpf(0), -(mpmath.mpf(10) ** 300)]
        with mpmath.workdps(60):
            values.append(mpmath.mpf(1) / 3)  # more bits than the working precision
        for value in values:
            copy = _to_mpfr(value)
            sign, mantissa, exponent, _ = value._mpf_
            exact = Fraction((-1) ** sign * mantissa) * Fraction(2) ** exponent
            assert copy is not None and Fraction(*copy.as_integer_ratio()) == exact
        assert _to_mpf(_to_mpfr(values[0]))._mpf_ == values[0]._mpf_
        for refused in (mpmath.inf, mpmath.nan, mpmath.mpf(2) ** (2**40), mpmath.mpf(2) ** -(2**70)):
            assert _to_mpfr(refused) is None
