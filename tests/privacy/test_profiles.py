"""Tests of the exact privacy profiles: Balle–Wang Gaussian and unequal-variance Gaussian pairs."""

from __future__ import annotations

import math

import mpmath
import pytest

from dpaudit.errors import InvalidArgument, InvalidType, NumericalError
from dpaudit.privacy.gaussian_pair_profile import (
    GaussianPair,
    gaussian_pair_delta,
    gaussian_pair_delta_float64,
)
from dpaudit.privacy.gaussian_pair_quadrature import _chi2_tail, gaussian_pair_delta_quadrature
from dpaudit.privacy.precise_values import PreciseValue, two_precisions
from dpaudit.privacy.profiles import gaussian_delta, gaussian_epsilon

NASTY_NEGATIVE = [-1.0, -5e-324, float("nan"), float("-inf")]


def _relative(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return abs(a - b) / abs(b)


@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.5, 1.0, 2.0, 5.0])
def test_equal_variances_match_balle_wang_to_1e25(epsilon):
    pair = GaussianPair(shift=1.0, sigma1=1.0, sigma2=1.0, dim=1)
    closed_form = gaussian_delta(epsilon, 1.0, 1.0)
    exact = gaussian_pair_delta(epsilon, pair)
    integrated = gaussian_pair_delta_quadrature(epsilon, pair, digits=40)
    assert _relative(exact.value, closed_form.value) < mpmath.mpf("1e-25")
    assert _relative(integrated.value, closed_form.value) < mpmath.mpf("1e-25")


def test_equal_variances_in_higher_dimension_depend_only_on_the_shift():
    pair = GaussianPair(shift=0.5, sigma1=2.0, sigma2=2.0, dim=7)
    integrated = gaussian_pair_delta_quadrature(0.3, pair, digits=40)
    assert _relative(integrated.value, gaussian_delta(0.3, 0.5, 2.0).value) < mpmath.mpf("1e-25")


PAIRS = [
    (0.5, GaussianPair(0.3, 1.0, 1.1, 5)),
    (0.5, GaussianPair(0.3, 1.1, 1.0, 5)),
    (1.0, GaussianPair(0.4, 1.0, 1.0094947922343556, 1)),
    (1.0, GaussianPair(0.4, 1.0094947922343556, 1.0, 1)),
    (0.0, GaussianPair(0.0, 1.0, 0.8, 3)),
    (0.05, GaussianPair(0.5, 1.9, 2.0, 4)),
]


@pytest.mark.parametrize(("epsilon", "pair"), PAIRS)
def test_series_and_quadrature_agree_to_30_digits(epsilon, pair):
    series = gaussian_pair_delta(epsilon, pair)
    integrated = gaussian_pair_delta_quadrature(epsilon, pair, digits=40)
    assert series.value > 0
    assert _relative(series.value, integrated.value) < mpmath.mpf("1e-30")
    assert series.error < abs(series.value) * mpmath.mpf("1e-30")


@pytest.mark.parametrize(("epsilon", "pair"), PAIRS)
def test_float64_cross_check_where_representable(epsilon, pair):
    series = gaussian_pair_delta(epsilon, pair)
    assert gaussian_pair_delta_float64(epsilon, pair) == pytest.approx(float(series.value), rel=1e-9)


def test_tiny_delta_keeps_30_digits():
    # Lemma 1 main-text constants at eps=1, delta=1e-5, d=1: worst ratio, boundary shift.
    ratio = math.exp(-1.0 / (4 + 4 * math.log(2e5)))
    alpha = 5 * math.sqrt(2 * math.log(2e5))
    pair = GaussianPair(math.sqrt(ratio) / alpha, 1.0, math.sqrt(ratio), 1)
    series = gaussian_pair_delta(1.0, pair)
    integrated = gaussian_pair_delta_quadrature(1.0, pair, digits=40)
    assert mpmath.mpf("1e-19") < series.value < mpmath.mpf("1e-18")
    assert _relative(series.value, integrated.value) < mpmath.mpf("1e-30")
    assert gaussian_pair_delta_float64(1.0, pair) == pytest.approx(float(series.value), rel=1e-9)


def test_delta_near_1e_60_keeps_30_digits():
    pair = GaussianPair(shift=0.008, sigma1=1.0, sigma2=0.997, dim=1)
    series = gaussian_pair_delta(1.0, pair)
    integrated = gaussian_pair_delta_quadrature(1.0, pair, digits=60)
    assert mpmath.mpf("1e-67") < series.value < mpmath.mpf("1e-60")
    assert series.error < series.value * mpmath.mpf("1e-30")
    assert _relative(series.value, integrated.value) < mpmath.mpf("1e-30")


def test_tiny_delta_in_three_dimensions_keeps_30_digits():
    pair = GaussianPair(shift=0.03, sigma1=1.0, sigma2=0.99, dim=3)
    series = gaussian_pair_delta(1.0, pair)
    integrated = gaussian_pair_delta_quadrature(1.0, pair, digits=40)
    assert series.value < mpmath.mpf("1e-18")
    assert _relative(series.value, integrated.value) < mpmath.mpf("1e-30")


def test_wider_second_gaussian_has_bounded_loss():
    # sigma2 > sigma1: the loss is at most (d/2) ln r + s^2/(2(r-1)); above it delta is exactly 0.
    pair = GaussianPair(shift=0.01, sigma1=1.0, sigma2=1.01, dim=1)
    assert gaussian_pair_delta(1.0, pair).value == 0
    assert gaussian_pair_delta_float64(1.0, pair) == 0.0


def test_direction_matters_and_swapped_reverses_it():
    pair = GaussianPair(0.3, 1.0, 1.1, 5)
    assert pair.swapped() == GaussianPair(0.3, 1.1, 1.0, 5)
    assert gaussian_pair_delta(0.5, pair).value < gaussian_pair_delta(0.5, pair.swapped()).value


def test_delta_is_monotone_in_the_shift_and_epsilon():
    values = [gaussian_pair_delta(0.5, GaussianPair(s, 1.0, 0.9, 3)).value for s in (0.0, 0.1, 0.2, 0.4)]
    assert values == sorted(values)
    by_eps = [gaussian_pair_delta(e, GaussianPair(0.2, 1.0, 0.9, 3)).value for e in (0.0, 0.2, 0.5, 1.0)]
    assert by_eps == sorted(by_eps, reverse=True)


def test_existing_gaussian_profile_still_works():
    value = gaussian_delta(1.0, 1.0, 1.0)
    assert isinstance(value, PreciseValue)
    assert float(value.value) == pytest.approx(0.12693673750664397, rel=1e-12)
    low, high = gaussian_epsilon(float(value.value), 1.0, 1.0)
    assert float(low) <= 1.0 + 1e-12 and float(high) >= 1.0 - 1e-12


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"shift": -1.0}, InvalidArgument),
        ({"shift": float("nan")}, InvalidArgument),
        ({"shift": float("inf")}, InvalidArgument),
        ({"sigma1": 0.0}, InvalidArgument),
        ({"sigma1": -0.0}, InvalidArgument),
        ({"sigma2": float("inf")}, InvalidArgument),
        ({"sigma2": "1"}, InvalidType),
        ({"dim": 0}, InvalidArgument),
        ({"dim": 1.0}, InvalidType),
        ({"dim": True}, InvalidType),
    ],
)
def test_pair_rejects_bad_arguments(kwargs, error):
    arguments = {"shift": 0.1, "sigma1": 1.0, "sigma2": 1.0, "dim": 1} | kwargs
    with pytest.raises(error):
        GaussianPair(**arguments)


@pytest.mark.parametrize("value", [0.0, -0.0, 5e-324, 1 - 2**-53, 1e300])
def test_pair_accepts_edge_shifts(value):
    assert GaussianPair(value, 1.0, 1.0, 1).shift == value


@pytest.mark.parametrize("epsilon", [*NASTY_NEGATIVE, float("inf")])
@pytest.mark.parametrize("function", [gaussian_pair_delta, gaussian_pair_delta_quadrature, gaussian_pair_delta_float64])
def test_profiles_reject_bad_epsilon(function, epsilon):
    with pytest.raises(InvalidArgument):
        function(epsilon, GaussianPair(0.1, 1.0, 1.0, 1))


@pytest.mark.parametrize("function", [gaussian_pair_delta, gaussian_pair_delta_quadrature, gaussian_pair_delta_float64])
def test_profiles_reject_a_non_pair(function):
    with pytest.raises(InvalidType):
        function(1.0, (0.1, 1.0, 1.0, 1))


def test_zero_shift_equal_variances_is_zero():
    assert gaussian_pair_delta(0.0, GaussianPair(0.0, 1.0, 1.0, 4)).value == 0


@pytest.mark.parametrize("log_ratio_sign", [-1.0, 1.0])
def test_large_noncentrality_series_agrees_with_quadrature(log_ratio_sign):
    # The boundary pair of the tight d = 40 calibration at epsilon = delta = 0.1: the noncentral
    # chi-square parameter is about 3.6e5, where the mode-centred series is needed for speed.
    beta = 0.1 / (4 * 40 + 4 * math.log(20))
    sigma2 = math.exp(log_ratio_sign * beta / 2)
    pair = GaussianPair(min(1.0, sigma2) / 2.8472585590581776, 1.0, sigma2, 40)
    series = gaussian_pair_delta(0.1, pair)
    integrated = gaussian_pair_delta_quadrature(0.1, pair, digits=30)
    assert abs(series.value - mpmath.mpf("0.1")) < mpmath.mpf("1e-3")
    assert _relative(series.value, integrated.value) < mpmath.mpf("1e-28")
    assert series.error < abs(series.value) * mpmath.mpf("1e-50")


def test_two_precisions_counts_the_difference_between_precisions():
    """The error bound includes |value at digits + 20 - value at digits|: a computation whose
    result moves with the precision is refused, and a small move is inside the enclosure."""

    def unstable():
        return mpmath.mpf(2) ** -(mpmath.mp.dps // 10)

    with pytest.raises(NumericalError, match="not stable"):
        two_precisions(unstable, 50)

    def drifting():  # moves by 1e-40 between the two precisions
        return mpmath.mpf(1) + (mpmath.mpf(10) ** -40 if mpmath.mp.dps > 60 else 0)

    result = two_precisions(drifting, 50)
    assert result.error >= mpmath.mpf(10) ** -40
    assert result.lower <= 1 <= result.upper


@pytest.mark.parametrize("dof", [1, 2, 3, 9, 10, 99, 100, 200, 201, 1000])
@pytest.mark.parametrize("upper", [True, False])
def test_chi2_tails_match_mpmaths_incomplete_gamma_where_one_minus_the_other_would_cancel(dof, upper):
    # the quadrature's χ² tails are sums of positive terms: a tail near 1e-40 keeps its digits at 30 digits, and
    # so do the exponents at a tiny or a huge x; above CLOSED_FORM_DOF mpmath's gammainc answers
    points = [
        "0",
        "1e-300",
        "1e-8",
        "0.5",
        "3",
        str(dof - 1),
        str(dof),
        str(dof + 2),
        "60",
        "200",
        "900",
        "2e7",
        "1e40",
    ]
    with mpmath.workdps(30):
        for x in points:
            point = mpmath.mpf(x)
            tail = _chi2_tail(dof, point, upper=upper)
            with mpmath.workdps(100):
                a = mpmath.mpf(dof) / 2
                exact = (
                    mpmath.gammainc(a, point / 2, mpmath.inf, regularized=True)
                    if upper
                    else mpmath.gammainc(a, 0, point / 2, regularized=True)
                )
            assert tail == exact if exact in (0, 1) else _relative(tail, exact) < mpmath.mpf("1e-27"), (x, tail, exact)
        assert _chi2_tail(dof, mpmath.inf, upper=upper) == (0 if upper else 1)


def test_series_and_quadrature_agree_in_a_hundred_dimensions():
    # Lemma 1's grid reaches d = 100: χ²_99 tails on both sides of the ball
    for pair in (GaussianPair(0.05, 1.0, 0.998, 100), GaussianPair(0.05, 0.998, 1.0, 100)):
        series = gaussian_pair_delta(0.1, pair)
        integrated = gaussian_pair_delta_quadrature(0.1, pair, digits=40)
        assert series.value > 0
        assert _relative(series.value, integrated.value) < mpmath.mpf("1e-30")
