"""The product-Laplace likelihood-ratio events: a Laplace vector whose L1 shift exceeds the claim is
refuted although no coordinate or half-space alone shows it; a vector at its claim is not."""

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.laplace_ratio import LaplaceRatioProjection, laplace_ratio_projection
from dpaudit.checks.empirical.sampling import NeighbourPair

FAMILIES_WITHOUT = ("threshold", "interval", "classifier", "atom", "outcome")


def laplace_vector(data, n, rng):
    """f(X) + Lap(1) in every coordinate: epsilon = ||f(X) - f(X')||_1."""
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, (n, len(data)))


def _pair(step):
    return NeighbourPair(np.zeros(5), np.full(5, step), f"0 vs {step} in each of 5 coordinates")


def _bound(step, seed, events=None):
    budget = AuditBudget(200_000) if events is None else AuditBudget(200_000, events=events)
    return certify_privacy_lower_bound(laplace_vector, [_pair(step)], delta=0.0, epsilon=1.0, budget=budget, seed=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_l1_shift_past_the_claim_is_refuted_on_the_orthant(seed):
    """True epsilon 1.25 against 1: each coordinate shows 0.25, the sum of the five only on the orthant."""
    bound = _bound(0.25, seed)
    assert bound.epsilon_lower_bound > 1.0
    assert "product-Laplace likelihood ratio" in bound.best_event.event
    assert _bound(0.25, seed, (*FAMILIES_WITHOUT, "halfspace")).epsilon_lower_bound > 1.0
    assert _bound(0.25, seed, FAMILIES_WITHOUT).epsilon_lower_bound <= 1.0  # the other families do not reach it


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_vector_at_its_claim_is_not_refuted(seed):
    assert _bound(0.2, seed).epsilon_lower_bound <= 1.0  # true epsilon exactly 1


def test_the_score_is_the_summed_log_ratio_and_needs_two_differing_coordinates():
    rng = np.random.default_rng(0)
    first, second = rng.laplace(0.0, 1.0, (4000, 3)), rng.laplace(0.0, 1.0, (4000, 3)) + np.array([1.0, 1.0, 0.0])
    projection = laplace_ratio_projection(first, second)
    assert isinstance(projection, LaplaceRatioProjection) and len(projection.index) >= 2
    below = np.full((1, 3), -10.0)  # below both centres in every coordinate: each term is (a - b) / s
    a, b, s = map(np.asarray, (projection.first_centre, projection.second_centre, projection.scales))
    assert projection.scores(below)[0] == pytest.approx(np.sum((a - b) / s))
    assert laplace_ratio_projection(first[:, :1], second[:, :1]) is None
    assert laplace_ratio_projection(first, first.copy()) is None
