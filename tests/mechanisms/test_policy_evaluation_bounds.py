"""Tests of the DP-LSW / DP-LSL smooth bounds on signatures (Balle et al. 2016, eqs. (9), (12))."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.policy_evaluation import bounds

BETAS = st.floats(min_value=1e-4, max_value=2.0)


@st.composite
def signature_and_neighbour(draw: st.DrawFn, max_states: int = 6, max_m: int = 30) -> tuple[list[int], list[int], int]:
    """A signature v with counts in [0, m] and a replace-one neighbour v' (‖v − v'‖_∞ <= 1, same m)."""
    m = draw(st.integers(min_value=1, max_value=max_m))
    n = draw(st.integers(min_value=1, max_value=max_states))
    v = draw(st.lists(st.integers(min_value=0, max_value=m), min_size=n, max_size=n))
    steps = draw(st.lists(st.integers(min_value=-1, max_value=1), min_size=n, max_size=n))
    neighbour = [min(max(a + b, 0), m) for a, b in zip(v, steps, strict=False)]
    return v, neighbour, m


def weights_for(n: int, draw: st.DrawFn) -> list[float]:
    return draw(st.lists(st.floats(min_value=0.01, max_value=1.0), min_size=n, max_size=n))


def test_lsw_phi_hand_values() -> None:
    signature, weights = [2, 1, 0], [1, 1, 1]
    assert [bounds.lsw_phi(signature, weights, k) for k in range(3)] == [2.25, 3.0, 3.0]
    assert bounds.lsw_k_max(signature) == 2


def test_lsw_phi_is_exact_with_fractions() -> None:
    value = bounds.lsw_phi([3, 2, 0], [Fraction(1, 3)] * 3, 0)
    assert value == Fraction(1, 27) + Fraction(1, 12) + Fraction(1, 3)


def test_lsl_phi_hand_values() -> None:
    c = 1 / math.sqrt(8)
    expected = [(c * math.sqrt(total) + math.sqrt(3)) ** 2 for total in (3, 5, 6)]
    values = [bounds.lsl_phi([2, 1, 0], [1, 1, 1], 2, c, k) for k in range(3)]
    assert values == pytest.approx(expected, rel=1e-15)


def test_lsl_phi_max_saturation_is_the_printed_corollary() -> None:
    c = 0.5
    value = bounds.lsl_phi([2, 1, 0], [1, 1, 1], 2, c, 0, saturation="max")
    assert value == pytest.approx((c * math.sqrt(6) + math.sqrt(3)) ** 2, rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), case=signature_and_neighbour())
def test_profiles_match_scalar_formulas(data: st.DataObject, case: tuple[list[int], list[int], int]) -> None:
    signature, _, m = case
    weights = weights_for(len(signature), data.draw)
    lsw = bounds.lsw_phi_profile(np.array(signature), weights)
    assert lsw.size == max(signature) + 1
    expected = [bounds.lsw_phi(signature, weights, k) for k in range(lsw.size)]
    np.testing.assert_allclose(lsw, expected, rtol=1e-13)
    for saturation in bounds.SATURATIONS:
        lsl = bounds.lsl_phi_profile(np.array(signature), weights, m, 0.7, saturation=saturation)
        expected = [bounds.lsl_phi(signature, weights, m, 0.7, k, saturation=saturation) for k in range(m + 1)]
        np.testing.assert_allclose(lsl, expected, rtol=1e-13)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), case=signature_and_neighbour(), beta=BETAS)
def test_psi_dominates_phi_zero_and_is_beta_smooth(
    data: st.DataObject, case: tuple[list[int], list[int], int], beta: float
) -> None:
    """Lemma 4 via Algorithms 1-2: ψ >= φ(0) and ψ(v') <= e^β ψ(v) for ‖v − v'‖_∞ <= 1 (same m)."""
    signature, neighbour, m = case
    weights = weights_for(len(signature), data.draw)
    psi_w, _ = bounds.smooth_maximum(bounds.lsw_phi_profile(np.array(signature), weights), beta)
    psi_w_neighbour, _ = bounds.smooth_maximum(bounds.lsw_phi_profile(np.array(neighbour), weights), beta)
    assert psi_w >= bounds.lsw_phi(signature, weights, 0)
    assert psi_w_neighbour <= math.exp(beta) * psi_w * (1 + 1e-12)
    c = data.draw(st.floats(min_value=0.0, max_value=5.0))
    psi_l, _ = bounds.smooth_maximum(bounds.lsl_phi_profile(np.array(signature), weights, m, c), beta)
    psi_l_neighbour, _ = bounds.smooth_maximum(bounds.lsl_phi_profile(np.array(neighbour), weights, m, c), beta)
    assert psi_l >= bounds.lsl_phi(signature, weights, m, c, 0) * (1 - 1e-12)
    assert psi_l_neighbour <= math.exp(beta) * psi_l * (1 + 1e-12)


def test_scalar_psi_matches_vectorised_and_mpmath() -> None:
    signature, weights, beta = [5, 3, 0, 1], [0.25, 0.5, 1.0, 0.125], 0.3
    psi, k = bounds.lsw_psi(signature, weights, beta)
    assert (psi, k) == pytest.approx(bounds.smooth_maximum(bounds.lsw_phi_profile(np.array(signature), weights), beta))
    with mpmath.workdps(60):
        exact, k_exact = bounds.lsw_psi(signature, [mpmath.mpf(w) for w in weights], mpmath.mpf(beta), exp=mpmath.exp)
        assert k_exact == k
        assert abs(exact - psi) <= 1e-14 * exact
        c = bounds.lsl_c_lambda(mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(3), sqrt=mpmath.sqrt)
        exact_l, k_l = bounds.lsl_psi(
            signature, [mpmath.mpf(w) for w in weights], 6, c, mpmath.mpf(beta), sqrt=mpmath.sqrt, exp=mpmath.exp
        )
    psi_l, k_l_float = bounds.lsl_psi(signature, weights, 6, 1 / math.sqrt(6), beta)
    assert k_l == k_l_float
    assert abs(exact_l - psi_l) <= 1e-14 * exact_l


def test_sigma_formulas() -> None:
    assert bounds.lsw_sigma(2.0, 3.0, 0.5, 4.0) == 6.0
    assert bounds.lsl_sigma(2.0, 3.0, 1.0, 5.0, 1.0, 4.0) == pytest.approx(2 * 2 * 3 * 1 / 4 * 2)
    with pytest.raises(InvalidArgument, match="lam > "):
        bounds.lsl_sigma(2.0, 3.0, 1.0, 1.0, 1.0, 4.0)


def test_return_bound() -> None:
    assert bounds.return_bound(1.0, 0.99) == pytest.approx(100.0)
    assert bounds.return_bound(1.0, 0.99, f_max=1.0) == 1.0
    for r_max, gamma, f_max in ((0.0, 0.5, None), (1.0, 1.0, None), (1.0, -0.0 - 1e-9, None), (1.0, 0.5, 0.0)):
        with pytest.raises(InvalidArgument):
            bounds.return_bound(r_max, gamma, f_max)


@pytest.mark.parametrize(
    "profile, beta",
    [([], 0.1), ([1.0, float("nan")], 0.1), ([1.0], 0.0), ([1.0], -0.0), ([1.0], float("inf")), ([-1.0], 0.1)],
)
def test_smooth_maximum_rejects(profile: list[float], beta: float) -> None:
    with pytest.raises(InvalidArgument):
        bounds.smooth_maximum(profile, beta)


@pytest.mark.parametrize("signature", [[], [[1]], [1.5, 2.0], [-1, 2]])
def test_profiles_reject_bad_signatures(signature: list) -> None:
    with pytest.raises(InvalidArgument):
        bounds.lsw_phi_profile(np.array(signature), [1.0] * max(len(signature), 1))


def test_scalar_formulas_reject_bad_arguments() -> None:
    with pytest.raises(InvalidArgument):
        bounds.lsw_phi([1, 2], [1.0], 0)
    with pytest.raises(InvalidArgument):
        bounds.lsl_phi([1, 2], [1.0, 1.0], 2, 0.5, 0, saturation="median")
    with pytest.raises(InvalidArgument):
        bounds.lsl_phi([1, 2], [1.0, 1.0], 0, 0.5, 0)
