"""The independent routes agree with the closed forms, and enclosures contain their own values."""

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.checks.certificates.facts import certified_fact, exact_decimal
from dpaudit.checks.certificates.routes import replay
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.evidence import decimal_bound
from dpaudit.mechanisms.laplace import LaplaceMechanism
from dpaudit.privacy.dirichlet_pair import BetaPair, beta_pair_delta
from dpaudit.privacy.gaussian_pair_profile import GaussianPair, gaussian_pair_delta
from dpaudit.privacy.profiles import gaussian_delta


def _inputs(**values):
    return {name: exact_decimal(value) for name, value in values.items()}


@pytest.mark.parametrize(("sigma", "sensitivity", "epsilon"), [(1.0, 1.0, 4.38), (3.0, 1.0, 0.5), (0.7, 2.0, 1.0)])
def test_gaussian_route_agrees_with_balle_wang(sigma, sensitivity, epsilon):
    value, error = replay("gaussian_shift_delta", _inputs(sigma=sigma, sensitivity=sensitivity, epsilon=epsilon))
    exact = gaussian_delta(epsilon, sensitivity, sigma, digits=60)
    assert abs(value - exact.value) <= error + exact.error


@pytest.mark.parametrize(("scale", "epsilon"), [(1.0, 0.5), (2.0, 0.1), (1.0, 1.0), (0.5, 3.0)])
def test_laplace_route_agrees_with_the_closed_form(scale, epsilon):
    value, error = replay("laplace_shift_delta", _inputs(scale=scale, sensitivity=1.0, epsilon=epsilon))
    exact = LaplaceMechanism(scale=scale, sensitivity=1.0).privacy_profile(epsilon, digits=60)
    assert abs(value - exact) <= error + mpmath.mpf(10) ** -40


@pytest.mark.parametrize(
    ("pair", "epsilon"),
    [
        (BetaPair(2.0, 18.0, 4.0, 16.0), 0.5),
        (BetaPair(15.0, 5.0, 13.0, 7.0), 0.5),
        # a reviewer's small shapes (k = 5, eta = 1e-4): the route integrated in u gave 1.03e-6, error "1e-9"
        (BetaPair(0.025608040201005027, 4.974391959798995, 0.02810804020100503, 4.971891959798995), 1.0),
        (BetaPair(2e-8, 19.99999998, 1.2e-7, 19.99999988), 1.0),  # a component of 1e-9 on the open simplex
        (BetaPair(0.001, 999.999, 0.002, 999.998), 0.1),  # the loss threshold at e^-800
    ],
)
def test_beta_route_agrees_with_the_incomplete_beta(pair, epsilon):
    value, error = replay(
        "beta_pair_delta", _inputs(a_p=pair.a_p, b_p=pair.b_p, a_q=pair.a_q, b_q=pair.b_q, epsilon=epsilon)
    )
    exact = beta_pair_delta(epsilon, pair, digits=60)
    assert abs(value - exact.value) <= error + exact.error
    assert error <= abs(exact.value) * 1e-20


@pytest.mark.parametrize(
    "pair",
    [
        GaussianPair(0.006131745031455829, 1.0, 0.9980173110739666, 1),  # Lemma 1's grid (main text)
        GaussianPair(0.5, 1.0, 0.97, 10),
        GaussianPair(0.3, 1.0, 1.02, 100),
    ],
)
def test_gaussian_pair_route_at_one_precision_agrees_with_the_series(pair):
    """The route integrates at 30 digits with tanh-sinh's own error estimate; the checker sums
    noncentral chi-square series at two precisions: they agree within the route's stated error."""
    inputs = _inputs(shift=pair.shift, sigma1=pair.sigma1, sigma2=pair.sigma2, epsilon=0.1)
    value, error = replay("gaussian_pair_delta", {**inputs, "dim": str(pair.dim)})
    series = gaussian_pair_delta(0.1, pair, digits=50)
    assert abs(value - series.value) <= error + series.error
    assert error <= abs(series.value) * mpmath.mpf(10) ** -20  # tight enough to tell an edited digit apart


def test_a_wrong_closed_form_is_told_apart():
    # the route is independent: a profile with the sign of the second term flipped disagrees
    with mpmath.workdps(50):
        wrong = mpmath.ncdf(0.5 - 4.38) + mpmath.exp(4.38) * mpmath.ncdf(-0.5 - 4.38)
    value, error = replay("gaussian_shift_delta", _inputs(sigma=1.0, sensitivity=1.0, epsilon=4.38))
    assert abs(value - wrong) > 1000 * error


def test_unknown_routes_and_bad_inputs_are_refused():
    with pytest.raises(InvalidArgument, match="no independent route"):
        replay("nope", {})
    with pytest.raises(InvalidArgument, match="no input"):
        replay("gaussian_shift_delta", {"sigma": "1"})
    with pytest.raises(InvalidArgument, match="not finite"):
        replay("laplace_shift_delta", {"scale": "inf", "sensitivity": "1", "epsilon": "1"})


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    sigma=st.floats(0.3, 20.0),
    sensitivity=st.floats(0.1, 5.0),
    epsilon=st.floats(0.0, 8.0),
)
def test_every_gaussian_enclosure_contains_its_point_value_and_the_route(sigma, sensitivity, epsilon):
    exact = gaussian_delta(epsilon, sensitivity, sigma, digits=50)
    assert exact.lower <= exact.value <= exact.upper
    fact = certified_fact(
        "gaussian_shift_delta",
        "delta",
        {"sigma": sigma, "sensitivity": sensitivity, "epsilon": epsilon},
        (exact.lower, exact.upper),
        1.0,
    )
    with mpmath.workdps(60):
        low, high = (mpmath.mpf(end) for end in fact.enclosure)
        assert low <= exact.value <= high
        value, error = replay("gaussian_shift_delta", fact.inputs)
        assert low - error <= value <= high + error


@given(st.floats(-1e300, 1e300, allow_nan=False), st.integers(1, 40))
@settings(max_examples=200, derandomize=True)
def test_decimal_bounds_round_outward(value, digits):
    from decimal import Decimal
    from fractions import Fraction

    down = Fraction(Decimal(decimal_bound(value, digits, up=False)))
    up = Fraction(Decimal(decimal_bound(value, digits, up=True)))
    assert down <= Fraction(value) <= up
