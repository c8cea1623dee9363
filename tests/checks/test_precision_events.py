"""Events on a release's floating-point format: Gaussian noise drawn in float16 or float32 and added to
f(X) lies on that format's grid for f(X) = 0 and mostly off it for f(X') = 1 (epsilon infinite for delta
below the share off the grid); a release rounded to a narrow format after the noise (post-processing,
private) is on the grid on both sides and is never accused."""

from dataclasses import dataclass

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.precision_events import PrecisionProjection, precision_projections
from dpaudit.checks.empirical.sampling import NeighbourPair

PAIR = NeighbourPair(np.zeros(1), np.ones(1), "f(X) = 0, f(X') = 1")
EXACT_EPSILON = 4.3772  # sigma = 1, sensitivity 1, delta = 1e-5 (Balle & Wang 2018, Thm 8)


@dataclass(frozen=True)
class NarrowNoise:
    """f(X) + N(0, 1) with the noise drawn in ``noise_format``, the sum kept in ``output_format``."""

    noise_format: str = "float64"
    output_format: str = "float64"

    def __call__(self, data, n, rng):
        noise = rng.standard_normal((n, np.size(data))).astype(self.noise_format)
        return (np.asarray(data, dtype=np.float64) + noise).astype(self.output_format).astype(np.float64)


def _bound(sampler, samples=40_000):
    return certify_privacy_lower_bound(
        sampler, [PAIR], delta=1e-5, epsilon=EXACT_EPSILON, budget=AuditBudget(samples), seed=0
    )


@pytest.mark.parametrize("noise_format", ["float16", "float32"])
def test_noise_drawn_in_a_narrow_format_is_certified_far_above_the_exact_epsilon(noise_format):
    bound = _bound(NarrowNoise(noise_format))
    assert bound.epsilon_lower_bound > EXACT_EPSILON + 2
    assert noise_format in bound.best_event.event


@pytest.mark.parametrize("output_format", ["float16", "float32"])
def test_a_release_rounded_to_a_narrow_format_after_the_noise_is_not_accused(output_format):
    sampler = NarrowNoise(output_format=output_format)
    rng = np.random.default_rng(1)
    first, second = sampler(PAIR.first, 2000, rng), sampler(PAIR.second, 2000, rng)
    assert precision_projections(first, second) == []  # on the grid on both sides: nothing to tell
    assert _bound(sampler).epsilon_lower_bound < EXACT_EPSILON


def test_double_precision_and_integer_releases_are_offered_no_precision_event():
    rng = np.random.default_rng(2)
    doubles = rng.standard_normal((2000, 2))
    assert precision_projections(doubles, doubles + 1.0) == []
    counts = rng.integers(0, 50, size=(2000, 2)).astype(np.float64)
    assert precision_projections(counts, counts + 1.0) == []


def test_the_score_is_one_exactly_on_the_formats_grid():
    rows = np.array([[0.5, 1.0], [0.1, 1.0], [65504.0, 0.0], [1e6, 0.0]])
    np.testing.assert_array_equal(PrecisionProjection("float16").scores(rows), [1.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(PrecisionProjection("float32").scores(rows), [1.0, 0.0, 1.0, 1.0])
