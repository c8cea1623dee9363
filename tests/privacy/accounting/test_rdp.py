"""Tests of the RDP accountant: reference values, peer oracle at integer orders, bounds, arguments."""

import math

import mpmath
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.privacy.accounting.rdp import (
    compose_rdp,
    gaussian_rdp,
    moment_from_rdp,
    poisson_gaussian_log_moment,
    poisson_gaussian_rdp,
    wor_gaussian_rdp_upper,
)
from dpaudit.privacy.profiles import gaussian_epsilon

NASTY_SIGMAS = [0, -0.0, -1.0, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize(("alpha", "expected"), [(1.5, 6.50070897e-4), (2.5, 1.08541806e-3)])
def test_poisson_gaussian_reference_values_fractional_orders(alpha, expected):
    value = compose_rdp(poisson_gaussian_rdp(alpha, 0.01, 2.5), 50)
    assert abs(float(value.value) / expected - 1) < 1e-8
    assert value.kind == "exact" and value.error < 1e-20
    assert value.direction.startswith("exact to")


def test_analytic_gaussian_reference_epsilon():
    low, high = gaussian_epsilon(1e-5, 1.0, 1.0)
    assert abs(float(low) - 4.37717809568) < 1e-10 and abs(float(high) - 4.37717809568) < 1e-10


@pytest.mark.parametrize("alpha", [2, 3, 8, 32, 64])
@pytest.mark.parametrize(("q", "sigma"), [(0.01, 1.1), (0.001, 0.8), (0.2, 4.0)])
def test_integer_orders_agree_with_dp_accounting(alpha, q, sigma):
    rdp = pytest.importorskip("dp_accounting.rdp")
    import dp_accounting

    accountant = rdp.RdpAccountant(orders=[alpha])
    accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)))
    peer = float(accountant._rdp[0])
    ours = float(poisson_gaussian_rdp(alpha, q, sigma).value)
    assert abs(peer / ours - 1) < 1e-10


def test_gaussian_rdp_is_exact_closed_form():
    value = gaussian_rdp(3.0, 2.0)
    assert value.value == mpmath.mpf(3) / 8 and value.lower <= value.value <= value.upper


def test_fractional_order_lies_between_neighbouring_integers():
    low = poisson_gaussian_rdp(2, 0.05, 1.3).value
    mid = poisson_gaussian_rdp(2.5, 0.05, 1.3).value
    high = poisson_gaussian_rdp(3, 0.05, 1.3).value
    assert low < mid < high


@pytest.mark.parametrize("theorem", [9, 27])
@pytest.mark.parametrize(("alpha", "q", "sigma"), [(2, 0.01, 1.0), (8, 0.01, 0.5), (16, 0.001, 2.0)])
def test_without_replacement_bound_is_above_the_witness_pair(theorem, alpha, q, sigma):
    upper = wor_gaussian_rdp_upper(alpha, q, sigma, theorem=theorem)
    witness = poisson_gaussian_rdp(alpha, q, sigma)
    assert upper.kind == "upper bound"
    assert upper.upper >= witness.upper


def test_theorem27_is_no_looser_than_theorem9():
    assert (
        wor_gaussian_rdp_upper(12, 0.01, 0.7, theorem=27).value
        <= wor_gaussian_rdp_upper(12, 0.01, 0.7, theorem=9).value
    )


def test_moment_is_lambda_times_rdp_at_lambda_plus_one():
    rdp = poisson_gaussian_rdp(4, 0.01, 1.0)
    assert moment_from_rdp(rdp, 3).value == 3 * rdp.value


@pytest.mark.parametrize("sigma", NASTY_SIGMAS)
def test_invalid_sigma(sigma):
    with pytest.raises(InvalidArgument):
        poisson_gaussian_rdp(2, 0.01, sigma)


@pytest.mark.parametrize("alpha", [1, 1.0, 0.5, 0, -0.0, math.nan, math.inf])
def test_invalid_order(alpha):
    with pytest.raises(InvalidArgument):
        poisson_gaussian_rdp(alpha, 0.01, 1.0)


@pytest.mark.parametrize("q", [0, -0.0, 1.0, 1 + 2**-52, math.nan])
def test_invalid_sampling_probability(q):
    with pytest.raises(InvalidArgument):
        poisson_gaussian_rdp(2, q, 1.0)


@pytest.mark.parametrize("bad", ["2", None, True])
def test_invalid_types(bad):
    with pytest.raises(InvalidType):
        poisson_gaussian_rdp(bad, 0.01, 1.0)


def test_valid_edge_values():
    assert poisson_gaussian_rdp(2, 1 - 2**-53, 1.0).value > 0
    assert poisson_gaussian_rdp(2, 5e-324, 1.0).value >= 0
    with pytest.raises(InvalidArgument):
        compose_rdp(gaussian_rdp(2, 1.0), 0)
    with pytest.raises(InvalidArgument):
        wor_gaussian_rdp_upper(2, 0.1, 1.0, digits=30)


def test_fractional_orders_carry_the_series_truncation_in_their_error():
    """The two-sided MTZ series is cut at 4,000 terms here (its tail decays polynomially); the tail
    bound there (not only the ball's rounding radius) must be in the reported error."""
    from flint import arb

    from dpaudit.privacy.accounting.rdp import _MAX_SERIES_TERMS, _fractional_tail_bound

    alpha, q, sigma, digits = 2.5, 0.01, 1.0, 60
    a, rate, s = arb(alpha), arb(q), arb(sigma)
    z0 = s * s * (1 / rate - 1).log() + arb(1) / 2
    coefficient = abs(_binomial(alpha, _MAX_SERIES_TERMS))
    tail = _fractional_tail_bound(a, _MAX_SERIES_TERMS, rate, s, z0, coefficient)
    value = poisson_gaussian_log_moment(alpha, q, sigma, digits=digits)
    total = mpmath.exp(value.value)
    assert float(tail.lower()) > 0
    assert value.error >= mpmath.mpf(float(tail.lower())) / total * (1 - mpmath.mpf(10) ** -6)


def _binomial(alpha, k):
    from flint import arb

    result = arb(1)
    for i in range(k):
        result = result * (arb(alpha) - i) / (i + 1)
    return result


@pytest.mark.parametrize(
    ("alpha", "q", "sigma"), [(2.5, 0.01, 1.0), (1.5, 1 / 300, 1.3), (3.25, 0.05, 3.0), (7.7, 0.01, 2.0)]
)
def test_fractional_orders_enclose_the_moment_integrated_by_quadrature(alpha, q, sigma):
    """An independent route: log E_{z ~ N(0, sigma^2)}[((1-q) + q e^{(2z-1)/(2 sigma^2)})^alpha] by quadrature."""
    value = poisson_gaussian_log_moment(alpha, q, sigma)
    with mpmath.workdps(40):
        a, r, s = mpmath.mpf(alpha), mpmath.mpf(q), mpmath.mpf(sigma)

        def integrand(z):
            density = mpmath.exp(-(z**2) / (2 * s**2)) / (s * mpmath.sqrt(2 * mpmath.pi))
            return density * ((1 - r) + r * mpmath.exp((2 * z - 1) / (2 * s**2))) ** a

        moment, error = mpmath.quad(integrand, [-mpmath.inf, 0, 1, mpmath.inf], error=True)
        reference = mpmath.log(moment)
        assert abs(reference - value.value) <= value.error + 100 * error / moment + abs(reference) * 10**-15
