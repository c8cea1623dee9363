"""Tests of the RDP/moments → (ε, δ) conversions."""

import math

import mpmath
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.privacy.accounting.conversions import (
    moments_tail_delta,
    moments_tail_epsilon,
    rdp_to_epsilon_classic,
    rdp_to_epsilon_improved,
)
from dpaudit.privacy.accounting.rdp import gaussian_rdp
from dpaudit.privacy.accounting.values import AccountedValue
from dpaudit.privacy.profiles import gaussian_epsilon

ORDERS = [1.5, 2, 3, 5, 8, 16, 32, 64]


def test_conversions_upper_bound_the_exact_gaussian_epsilon():
    rdp = [gaussian_rdp(a, 1.0) for a in ORDERS]
    exact_high = gaussian_epsilon(1e-5, 1.0, 1.0)[1]
    classic = rdp_to_epsilon_classic(ORDERS, rdp, 1e-5)
    improved = rdp_to_epsilon_improved(ORDERS, rdp, 1e-5)
    assert classic.kind == improved.kind == "upper bound"
    assert exact_high <= improved.value <= classic.value


def test_tail_bound_and_its_inverse_agree():
    lambdas = [1, 2, 4, 8, 16]
    moments = [AccountedValue.exact(mpmath.mpf(lam * (lam + 1)) / 200, 0, method="test", digits=60) for lam in lambdas]
    eps = moments_tail_epsilon(lambdas, moments, 1e-5).value
    delta = moments_tail_delta(lambdas, moments, float(eps)).value
    assert delta <= 1e-5 * (1 + 1e-9)


@pytest.mark.parametrize("delta", [0, -0.0, 1.0, math.nan, math.inf])
def test_invalid_delta(delta):
    with pytest.raises(InvalidArgument):
        rdp_to_epsilon_classic([2], [gaussian_rdp(2, 1.0)], delta)


def test_mismatched_lengths():
    with pytest.raises(InvalidArgument):
        rdp_to_epsilon_improved([2, 3], [gaussian_rdp(2, 1.0)], 1e-5)
    with pytest.raises(InvalidArgument):
        moments_tail_delta([1.0], [0.5], 1.0)


def test_conversions_match_their_formulas_by_hand():
    """Mironov 2017, Prop. 3: min over orders of a/(2 sigma^2) + ln(1/delta)/(a - 1); Canonne, Kamath,
    Steinke 2020, Prop. 12: + ln((a-1)/a) - (ln delta + ln a)/(a - 1). sigma = 1, delta = 1e-5."""
    rdp = [gaussian_rdp(a, 1.0) for a in ORDERS]
    classic = min(a / 2 + math.log(1e5) / (a - 1) for a in ORDERS)
    improved = min(a / 2 + math.log((a - 1) / a) - (math.log(1e-5) + math.log(a)) / (a - 1) for a in ORDERS)
    assert float(rdp_to_epsilon_classic(ORDERS, rdp, 1e-5).value) == pytest.approx(classic, rel=1e-12)
    assert float(rdp_to_epsilon_improved(ORDERS, rdp, 1e-5).value) == pytest.approx(improved, rel=1e-12)
