"""Tests of the smooth-sensitivity Gaussian mechanism, its constant sets and Lemma 4."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.mechanisms.smooth_gaussian import (
    CONSTANT_SETS,
    SmoothGaussianMechanism,
    main_text_constants,
    smallest_smooth_upper_bound,
    smooth_gaussian_constants,
    supplementary_constants,
    tight_constants,
)


def test_main_text_constants_as_stated():
    constants = main_text_constants(1.0, 1e-5, 3)
    assert constants.alpha == 5 * math.sqrt(2 * math.log(2 / 1e-5)) / 1.0
    assert constants.beta == 1.0 / (4 * 3 + 4 * math.log(2 / 1e-5))
    assert constants.preconditions == () and constants.preconditions_met


def test_supplementary_constants_as_stated():
    constants = supplementary_constants(2.0, 1e-5, 4)
    assert constants.alpha == 15 * math.sqrt(2 * math.log(4 / 1e-5)) / 2.0
    assert constants.beta == pytest.approx(2 * math.log(2) * 2.0 / (5 * (2 + math.sqrt(2 * math.log(4e5))) ** 2))
    assert constants.preconditions_met
    assert not supplementary_constants(5.5, 1e-5, 4).preconditions_met


def test_tight_constants_are_smaller_and_cached():
    tight = tight_constants(1.0, 1e-5, 1)
    paper = main_text_constants(1.0, 1e-5, 1)
    assert tight.beta == paper.beta
    assert tight.alpha < 0.2 * paper.alpha
    assert tight_constants(1.0, 1e-5, 1) is tight


def test_registry_names():
    assert set(CONSTANT_SETS) == {"main_text", "supplementary", "tight"}
    assert smooth_gaussian_constants("main_text", 1.0, 1e-5, 1) == main_text_constants(1.0, 1e-5, 1)
    with pytest.raises(InvalidArgument):
        smooth_gaussian_constants("loose", 1.0, 1e-5, 1)


def test_release_is_reproducible_and_scaled():
    mechanism = build_mechanism("smooth_gaussian", {"epsilon": 1.0, "delta": 1e-5, "dim": 2})
    assert isinstance(mechanism, SmoothGaussianMechanism)
    theta = np.array([1.0, -2.0])
    first = mechanism.release(theta, 0.01, rng=7, size=20000)
    second = mechanism.release(theta, 0.01, rng=7, size=20000)
    np.testing.assert_array_equal(first, second)
    sigma = mechanism.noise_scale(0.01)
    assert sigma == mechanism.parameters.alpha * 0.01
    assert np.std(first[:, 0]) == pytest.approx(sigma, rel=0.03)
    mean, view_sigma = mechanism.gaussian_view(theta, 0.01)
    np.testing.assert_array_equal(mean, theta)
    assert view_sigma == sigma
    assert mechanism.release(theta, 0.01, rng=1).shape == (2,)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"epsilon": 0.0}, InvalidArgument),
        ({"epsilon": -0.0}, InvalidArgument),
        ({"epsilon": float("nan")}, InvalidArgument),
        ({"delta": 1.0}, InvalidArgument),
        ({"delta": 5e-324 * 0}, InvalidArgument),
        ({"dim": 0}, InvalidArgument),
        ({"dim": 2.0}, InvalidType),
        ({"constants": "loose"}, InvalidArgument),
        ({"constants": "supplementary", "epsilon": 6.0}, InvalidArgument),
    ],
)
def test_mechanism_rejects_bad_parameters(kwargs, error):
    with pytest.raises(error):
        SmoothGaussianMechanism(**({"epsilon": 1.0, "delta": 1e-5, "dim": 1} | kwargs))


@pytest.mark.parametrize("bound", [0.0, -0.0, -1.0, float("nan"), float("inf")])
def test_noise_scale_rejects_bad_bounds(bound):
    with pytest.raises(InvalidArgument):
        SmoothGaussianMechanism(1.0, 1e-5, 1).noise_scale(bound)


def test_release_rejects_wrong_shape():
    with pytest.raises(InvalidArgument):
        SmoothGaussianMechanism(1.0, 1e-5, 2).release([1.0, 2.0, 3.0], 0.1, rng=0)


def test_smallest_smooth_upper_bound_matches_definition():
    phi = np.array([1.0, 4.0, 4.0, 9.0])
    beta = 0.5
    expected = max(math.exp(-k * beta) * phi[k] for k in range(4))
    assert float(smallest_smooth_upper_bound(phi, beta)) == expected
    batch = np.array([[1.0, 1.0, 1.0], [0.0, 2.0, 3.0]])
    np.testing.assert_allclose(smallest_smooth_upper_bound(batch, 1.0), [1.0, max(2 * math.exp(-1), 3 * math.exp(-2))])


def test_smooth_bound_is_beta_smooth_on_signature_neighbours():
    # phi(v) = 1/max(v,1)^2 on integer signatures; phi_k(v) = phi(max(v - k, 0)); |v - v'| <= 1.
    beta = 0.3

    def psi(v: int) -> float:
        ks = np.arange(v + 1)
        return float(smallest_smooth_upper_bound(1.0 / np.maximum(v - ks, 1) ** 2, beta))

    for v in range(0, 30):
        assert psi(v) >= 1.0 / max(v, 1) ** 2
        assert abs(math.log(psi(v)) - math.log(psi(v + 1))) <= beta + 1e-12


@pytest.mark.parametrize(
    ("phi", "beta"),
    [([1.0, 0.5], 0.1), ([], 0.1), ([1.0, float("nan")], 0.1), ([-1.0, 1.0], 0.1), ([1.0], 0.0), ([1.0], float("inf"))],
)
def test_smallest_smooth_upper_bound_rejects_bad_input(phi, beta):
    with pytest.raises(InvalidArgument):
        smallest_smooth_upper_bound(phi, beta)
