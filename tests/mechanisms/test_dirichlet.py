"""The Dirichlet mechanism: domain checks, stable log-space sampling, moments and marginals."""

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidArgument, InvalidType, NumericalError
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.mechanisms.dirichlet import (
    DirichletMechanism,
    check_open_simplex,
    log_gamma_variates,
)

INVALID_INPUTS = [
    ([0.0, 1.0], "entry > 0"),
    ([-0.0, 1.0], "entry > 0"),
    ([-0.1, 1.1], "entry > 0"),
    ([0.5, 0.4], "sum"),
    ([0.5, 0.5 + 1e-9], "sum"),
    ([float("nan"), 1.0], "finite"),
    ([float("inf"), 1.0], "finite"),
    ([1.0], "at least 2"),
    ([[0.5, 0.5]], "1-dimensional"),
]


@pytest.mark.parametrize(("data", "message"), INVALID_INPUTS)
def test_inputs_outside_the_open_simplex_are_rejected(data, message):
    with pytest.raises(InvalidArgument, match=message):
        DirichletMechanism(5.0).release(data, rng=0)


@pytest.mark.parametrize("k", [0, -0.0, -1.0, float("nan"), float("inf"), -float("inf")])
def test_non_positive_or_non_finite_k_is_rejected(k):
    with pytest.raises(InvalidArgument, match="k="):
        DirichletMechanism(k)


@pytest.mark.parametrize("k", [True, "5", None])
def test_k_of_the_wrong_type_is_rejected(k):
    with pytest.raises(InvalidType):
        DirichletMechanism(k)


def test_the_public_lower_bound_eta_is_enforced():
    mechanism = DirichletMechanism(5.0, eta=0.1)
    with pytest.raises(InvalidArgument, match=r"eta=0\.1"):
        mechanism.release([0.05, 0.95], rng=0)
    assert mechanism.release([0.1, 0.9], rng=0).shape == (2,)
    for eta in (0.0, -0.0, 0.6, float("nan")):
        with pytest.raises(InvalidArgument):
            DirichletMechanism(5.0, eta=eta)


@pytest.mark.parametrize("p", [[5e-324, 1.0 - 5e-324], [1 - 2**-53, 2**-53], [1e-300, 0.5, 0.5 - 1e-300]])
def test_tiny_shapes_never_give_nan_or_a_silent_zero(p):
    mechanism = DirichletMechanism(1.0)
    if min(p) < 1e-306:
        with pytest.raises(NumericalError, match="overflows float64"):
            mechanism.release_log(p, rng=1, size=2000)
        return
    log_x = mechanism.release_log(p, rng=1, size=2000)
    assert np.all(np.isfinite(log_x))
    assert np.allclose(np.exp(log_x).sum(axis=1), 1.0)
    try:
        x = mechanism.release(p, rng=1, size=2000)
    except NumericalError as error:
        assert "release_log" in str(error)
    else:
        assert np.all(x > 0.0)


def test_log_gamma_variates_match_the_gamma_law_for_small_and_large_shapes():
    rng = np.random.default_rng(7)
    for shape in (0.05, 0.7, 1.0, 3.5):
        samples = np.exp(log_gamma_variates(np.array(shape), (20000,), rng))
        assert stats.kstest(samples, stats.gamma(shape).cdf).pvalue > 1e-3


def test_mean_is_the_input_and_marginals_are_beta():
    p = np.array([0.02, 0.18, 0.8])
    k = 4.0
    x = DirichletMechanism(k).release(p, rng=3, size=40000)
    assert np.allclose(x.mean(axis=0), p, atol=4 * np.sqrt(p * (1 - p) / (k + 1) / 40000).max())
    for i in range(3):
        assert stats.kstest(x[:, i], stats.beta(k * p[i], k * (1 - p[i])).cdf).pvalue > 1e-3


def test_same_seed_same_release():
    mechanism = DirichletMechanism(2.0)
    first = mechanism.release([0.3, 0.7], rng=11, size=5)
    second = mechanism.release([0.3, 0.7], rng=11, size=5)
    assert np.array_equal(first, second)


def test_registry_builds_it_and_the_white_box_view_is_k_p():
    mechanism = build_mechanism("dirichlet", {"k": 10.0, "eta": 0.05})
    assert np.allclose(mechanism.concentration([0.25, 0.75]), [2.5, 7.5])
    assert math.isclose(check_open_simplex("p", [0.5, 0.5]).sum(), 1.0)
