"""Releases whose number of values depends on the input: their length is audited as the first value of
an encoding one to one on the flattened values (a histogram of the values that occur tells its inputs
apart by its length); a length that varies from draw to draw on one input is refused by name, never an
internal error."""

from dataclasses import dataclass

import numpy as np
import pytest

import dpaudit
from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.samplers import PilotLengths, input_digest
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.errors import CheckerError
from tests.candidate_audits import without_implied_obligations

PAIR = NeighbourPair(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 2.0]), "3 vs 2 distinct values")


@dataclass(frozen=True)
class OccurringValuesHistogram:
    """Laplace(2/epsilon) noise on the count of each value that occurs: the length is the number of
    distinct values (not private: epsilon is infinite)."""

    scale: float = 2.0

    def __call__(self, data, n, rng):
        counts = np.unique(np.asarray(data), return_counts=True)[1]
        return counts + rng.laplace(0.0, self.scale, size=(n, counts.size))


@dataclass(frozen=True)
class NoisyRecords:
    """Laplace noise on each record: as long as its input, and the pairs below have equal lengths."""

    def __call__(self, data, n, rng):
        values = np.asarray(data, dtype=float)
        return values + rng.laplace(0.0, 1.0, size=(n, values.size))


@dataclass(frozen=True)
class RandomLength:
    """Drops the coordinates whose noisy value is negative: the length varies from draw to draw."""

    def __call__(self, data, n, rng):
        keep = int(rng.integers(1, 4))
        return np.asarray(data, dtype=float)[:keep] + rng.laplace(0.0, 1.0, size=(n, keep))


def _bound(sampler, pairs, samples=20_000):
    return certify_privacy_lower_bound(sampler, pairs, delta=0.0, epsilon=1.0, budget=AuditBudget(samples), seed=0)


def test_a_length_that_tells_the_inputs_apart_is_certified_far_above_the_claim():
    bound = _bound(OccurringValuesHistogram(), [PAIR])
    assert bound.length_tagged and "releases" in bound.details()
    assert bound.epsilon_lower_bound > 5.0  # about log(draws / 3): every X' release has 2 values, none of X's
    assert "y[0]" in bound.best_event.event


def test_equal_lengths_on_each_pair_are_audited_as_before():
    pairs = [
        NeighbourPair(np.zeros(2), np.array([0.0, 0.5]), "two records"),
        NeighbourPair(np.zeros(3), np.array([0.0, 0.0, 0.5]), "three records"),
    ]
    bound = _bound(NoisyRecords(), pairs)
    assert not bound.length_tagged and "releases" not in bound.details()
    assert bound.epsilon_lower_bound < 1.0  # Laplace(1) on a shift of 0.5: epsilon 0.5


def test_a_length_that_varies_from_draw_to_draw_is_refused_by_name():
    with pytest.raises(CheckerError, match="length that varies from draw to draw"):
        _bound(RandomLength(), [PAIR], samples=200_000)


def test_the_encoding_is_one_to_one_and_an_inputs_length_is_held_to_the_pilots():
    first, second = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 2.0])
    lengths = ((input_digest(first), 3), (input_digest(second), 2))
    held = PilotLengths(OccurringValuesHistogram(), width=3, lengths=tuple(sorted(lengths)), tagged=True)
    rows = held.checked(second, np.array([[5.0, -1.0], [0.0, 0.0]]))
    np.testing.assert_array_equal(rows, [[2.0, 5.0, -1.0, 0.0], [2.0, 0.0, 0.0, 0.0]])
    assert not np.array_equal(held.encoded(np.zeros((1, 1))), held.encoded(np.zeros((1, 2))))
    with pytest.raises(CheckerError, match="held 2 values in the pilot and 3 later"):
        held.checked(second, np.zeros((1, 3)))  # the longest length, but not this input's


@dataclass(frozen=True)
class LengthPerBatch:
    """Private (its releases ignore the input): one length drawn per batch, as a careless vectorised
    ``sample`` does; the pilot may see different lengths on the two sides by chance."""

    def __call__(self, data, n, rng):
        return rng.laplace(0.0, 1.0, size=(n, int(rng.integers(1, 4))))


def test_a_length_drawn_per_batch_is_refused_or_consistent_never_violated():
    outcomes = set()
    for seed in range(12):
        try:
            bound = certify_privacy_lower_bound(
                LengthPerBatch(), [PAIR], delta=0.0, epsilon=1.0, budget=AuditBudget(20_000), seed=seed
            )
        except CheckerError as exc:
            assert "varies from draw to draw" in str(exc)
            outcomes.add("refused")
        else:
            assert bound.epsilon_lower_bound <= 1.0
            outcomes.add("consistent")
    assert "refused" in outcomes


SPEC = """
schema = 1

[claim]
id = "occurring-values-histogram"
title = "Noisy counts of the values that occur are 1-DP"
relations = ["replace_one"]

[claim.source]
paper = "Dwork & Roth 2014"
location = "Sec. 3.3"

[claim.mechanism]
name = "black_box"

[claim.guarantee]
kind = "approx_dp"
epsilon = 1.0
delta = 0.0

[[obligations]]
id = "dp"
statement = "no event certifies epsilon > 1"
checker = "empirical_epsilon_lower_bound"
params = { samples = 20000, pairs = [{ first = [1, 2, 3], second = [1, 2, 2] }] }
"""


def _occurring_values_histogram(dataset, *, rng):
    counts = np.unique(np.asarray(dataset, dtype=float), return_counts=True)[1]
    return counts + rng.laplace(0.0, 2.0, size=counts.size)


@pytest.mark.slow
def test_a_candidate_whose_release_length_follows_its_input_is_violated(tmp_path):
    spec = tmp_path / "histogram.toml"
    spec.write_text(SPEC, encoding="utf-8")
    with without_implied_obligations():  # the spec's obligation is the point
        report = dpaudit.check(_occurring_values_histogram, spec, quick=True, seed=1)
    (claim,) = report.claims
    assert claim.verdict.value == "violated"
    (evidence,) = [item.evidence for item in claim.relations[0].obligations if item.obligation.id == "dp"]
    assert "releases of different lengths" in evidence.domain
