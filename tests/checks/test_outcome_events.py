"""Outcome events for discrete outputs: sets of outcomes in the pilot's likelihood-ratio order.

Each must say violated on a discrete leak no ordinal threshold isolates, and not on the private law.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.events import OutcomeProjection, ThresholdEvent, outcome_projection
from dpaudit.checks.empirical.sampling import NeighbourPair

PAIR = NeighbourPair(np.zeros(1), np.ones(1), "0 vs 1")


class _Categorical:
    """Outputs one of K categories (codes 10, 20, ...) with the law of the input's row of ``laws``."""

    def __init__(self, laws: np.ndarray):
        self.laws = np.asarray(laws, dtype=float)

    def release(self, data, *, rng, size=None):
        law = self.laws[int(np.asarray(data).ravel()[0])]
        picks = rng.choice(law.size, size=(size or 1, 1), p=law)
        outputs = 10.0 * (picks + 1)
        return outputs if size is not None else outputs[0]


def _laws(epsilon_in_set: float) -> np.ndarray:
    """Two laws over 6 categories: the second moves mass from the non-adjacent codes 10, 30, 50 (ratio
    e^eps each) to 20, 40, 60; the outcome family alone (no threshold of the code) must certify it."""
    first = np.full(6, 1 / 6)
    ratio = math.exp(epsilon_in_set)
    second = first.copy()
    second[[0, 2, 4]] = first[[0, 2, 4]] / ratio
    second[[1, 3, 5]] += first[[0, 2, 4]] - second[[0, 2, 4]]
    return np.stack([first, second])


def _bound(laws, events=("outcome",), samples=200_000, seed=3):
    return certify_privacy_lower_bound(
        _Categorical(laws), [PAIR], delta=0.0, epsilon=1.0, budget=AuditBudget(samples, events=events), seed=seed
    )


def test_outcome_sets_certify_a_non_ordinal_leak():
    bound = _bound(_laws(2.0))
    assert bound.epsilon_lower_bound > 1.0  # true epsilon 2
    assert any("y in {" in event.event for event in bound.events)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_outcome_sets_do_not_exceed_the_true_epsilon(seed):
    # the true pure-DP epsilon of the pair is ln(max ratio): the set {10, 30, 50} has ratio e^0.8 and its
    # complement (1/6 + moved) / (1/6): both below e^1
    laws = _laws(0.8)
    truth = max(np.log(laws[0] / laws[1]).max(), np.log(laws[1] / laws[0]).max())
    assert truth < 1.0
    assert _bound(laws, seed=seed).epsilon_lower_bound <= truth


def test_continuous_outputs_get_no_outcome_projection():
    rng = np.random.default_rng(0)
    assert outcome_projection(rng.normal(size=(1000, 1)), rng.normal(size=(1000, 1))) is None


def test_outcome_ranks_follow_the_likelihood_ratio_and_unseen_outputs_are_neutral():
    first = np.array([[0.0]] * 8 + [[1.0]] * 2)
    second = np.array([[0.0]] * 2 + [[1.0]] * 8)
    projection = outcome_projection(first, second)
    assert isinstance(projection, OutcomeProjection)
    scores = projection.scores(np.array([[0.0], [1.0], [7.0]]))
    assert scores[0] > scores[2] > scores[1]  # 0 favours X, 1 favours X', 7 never seen: between
    assert ThresholdEvent(projection, scores[0], True).describe().startswith("y in {0}")
    described = ThresholdEvent(projection, scores[2], True).describe()
    assert described.startswith("y in {0} and every output the pilot did not show")
