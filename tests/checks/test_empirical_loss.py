"""The privacy-loss histogram against the exact Gaussian profile (Balle & Wang 2018, Thm 8)."""

import numpy as np
import pytest

from dpaudit.checks.empirical.events import ThresholdGrid
from dpaudit.checks.empirical.loss_histogram import (
    GaussianLogDensityRatio,
    PrivacyLossHistogram,
    privacy_loss_histogram,
)
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.privacy.profiles import gaussian_delta

MECHANISM = GaussianMechanism(1.0, 1.0)
PAIR = NeighbourPair(np.zeros(2), np.array([0.6, 0.8]), "planar, distance 1")


@pytest.fixture(scope="module")
def histogram():
    ratio = GaussianLogDensityRatio.of(MECHANISM, PAIR)
    return privacy_loss_histogram(MECHANISM, PAIR, ratio, samples=400_000, seed=9)


def test_log_ratio_matches_the_densities():
    ratio = GaussianLogDensityRatio.of(MECHANISM, PAIR)
    y = np.array([[0.3, -1.2], [2.0, 0.5]])
    expected = (np.sum((y - PAIR.second) ** 2, axis=1) - np.sum((y - PAIR.first) ** 2, axis=1)) / 2
    assert np.allclose(ratio.scores(y), expected)


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0, 2.0])
def test_delta_estimate_and_certified_lower_bound(histogram, epsilon):
    exact = float(gaussian_delta(epsilon, 1.0, 1.0).value)
    lower = histogram.delta_lower_bound(epsilon, 0.05)
    assert lower <= exact
    assert lower >= 0.9 * exact - 2e-3
    assert histogram.delta_estimate(epsilon) == pytest.approx(exact, rel=0.03, abs=1e-3)


def test_epsilon_estimate_near_the_exact_value(histogram):
    assert histogram.epsilon_estimate(1e-3) == pytest.approx(3.13867, abs=0.1)
    assert histogram.samples == 400_000


def test_invalid_arguments(histogram):
    with pytest.raises(InvalidArgument):
        histogram.delta_estimate(float("nan"))
    with pytest.raises(InvalidArgument):
        histogram.epsilon_estimate(0.0)
    with pytest.raises(InvalidArgument):
        GaussianLogDensityRatio.of(MECHANISM, NeighbourPair(np.zeros(2), np.zeros(3)))
    empty_tail = PrivacyLossHistogram(ThresholdGrid(0.0, 1.0, 2), (5, 0, 0))
    assert empty_tail.delta_lower_bound(0.0, 0.05) == 0.0
