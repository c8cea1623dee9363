"""The picture of a distinguishing event: the event in the output's own coordinates (checked against
the event's own membership test on many outputs), and a small, bounded histogram of both sides'
pilot outputs that a violated black-box check records for the report's figure."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit.checks.empirical.bound_evidence import bound_evidence
from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.event_histogram import MAX_BINS, Interval, event_histogram, output_region
from dpaudit.checks.empirical.events import (
    AtomProjection,
    CoordinateProjection,
    IntervalEvent,
    LinearProjection,
    QuadraticProjection,
    ThresholdEvent,
)
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.privacy.guarantees import ApproxDP


def _inside(region, y):
    inside = np.zeros(y.shape, dtype=bool)
    for piece in region:
        above = y >= piece.low if piece.low_closed else y > piece.low
        below = y <= piece.high if piece.high_closed else y < piece.high
        inside |= above & below
    return inside


EVENTS = [
    ThresholdEvent(CoordinateProjection(0), 0.3, True),
    ThresholdEvent(LinearProjection((-2.0,), "logistic regression"), 3.0, True),
    IntervalEvent(LinearProjection((0.5,), "mean difference"), -1.0, 2.0),
    IntervalEvent(QuadraticProjection((0.0,), (1.0,), "logistic regression"), 1.0, 4.0),
    IntervalEvent(QuadraticProjection((1.5,), (-0.7,), "logistic regression"), -3.0, 0.2),
    ThresholdEvent(QuadraticProjection((1.5,), (-0.7,), "logistic regression"), 0.5, True),
    ThresholdEvent(QuadraticProjection((-0.3,), (2.0,), "logistic regression"), 1.0, False),
    ThresholdEvent(QuadraticProjection((0.0,), (1.0,), "logistic regression"), -1.0, False),  # empty
    ThresholdEvent(QuadraticProjection((0.0,), (-1.0,), "logistic regression"), -1.0, False),  # |y| > 1
    ThresholdEvent(QuadraticProjection((2.0,), (0.0,), "logistic regression"), 1.0, True),  # linear in y
]


@pytest.mark.parametrize("event", EVENTS, ids=[str(e) for e in range(len(EVENTS))])
def test_the_region_in_output_coordinates_is_the_event(event):
    axis, region = output_region(event, 1)
    assert axis == "y"
    y = np.concatenate([np.linspace(-6, 6, 120_001), [-2.0, -1.0, 1.0, 2.0, 0.3, -1.5]])
    expected = event.indicator(event.projection.scores(y[:, None]))
    assert (_inside(region, y) == expected).all()


def test_quadratic_intervals_read_in_y():
    event = IntervalEvent(QuadraticProjection((0.0,), (1.0,), "logistic regression"), 1.0, 4.0)
    histogram = event_histogram(event, np.linspace(-3, 3, 200)[:, None], np.linspace(-2, 4, 200)[:, None])
    assert histogram["event"] == "-2 < y ≤ -1 or 1 ≤ y < 2"
    assert histogram["in_output_coordinates"] and histogram["axis"] == "y"
    assert histogram["region"] == [[-2.0, -1.0], [1.0, 2.0]]


def test_a_narrow_interval_far_out_reads_with_ends_that_differ():
    """A pair at 1e8 (the input search's large values): six significant digits would read
    '1e+08 ≤ y < 1e+08', an interval that looks empty; the ends get the digits that tell them apart."""
    event = IntervalEvent(CoordinateProjection(0), 100_000_000.81271197, 100_000_001.02782375)
    outputs = np.linspace(1e8 - 5, 1e8 + 5, 200)[:, None]
    assert event_histogram(event, outputs, outputs + 1)["event"] == "100000000.8 ≤ y < 100000001"
    assert Interval(0.5, 2.0, True, False).text("y") == "0.5 ≤ y < 2"


def test_a_count_separated_by_a_fitted_score_reads_as_the_count_itself():
    """The issue's case: a 1-D count whose event was '-1712.63 <= a·y + b·y² < -1712.37'."""
    rng = np.random.default_rng(3)
    first, second = rng.poisson(40, (2000, 1)).astype(float), rng.poisson(41, (2000, 1)).astype(float)
    projection = QuadraticProjection((-41.9,), (-0.02,), "logistic regression")
    score = projection.scores(np.array([[37.0]]))[0]
    event = IntervalEvent(projection, score - 0.26, score + 0.26)
    histogram = event_histogram(event, first, second)
    assert "a·y" not in histogram["event"] and "y" in histogram["event"]
    around = [(low, high) for low, high in histogram["region"] if -1 < low < 100]  # the other root's is far off
    assert len(around) == 1 and around[0][0] < 37 < around[0][1] and around[0][1] - around[0][0] < 1
    assert histogram["in_event"]["X"] == int(np.count_nonzero(first[:, 0] == 37))


def test_histograms_are_small_and_count_every_draw():
    rng = np.random.default_rng(0)
    first, second = rng.normal(0, 1, (5000, 3)), rng.normal(0.5, 1, (5000, 3))
    event = ThresholdEvent(CoordinateProjection(2), 1.3, True)
    histogram = event_histogram(event, first, second)
    assert histogram["axis"] == "y[2]" and histogram["event"] == "y[2] ≥ 1.3"
    assert len(histogram["edges"]) == MAX_BINS + 1
    assert all(sum(counts) == 5000 for counts in histogram["counts"].values())
    assert histogram["in_event"] == {"X": int((first[:, 2] >= 1.3).sum()), "X'": int((second[:, 2] >= 1.3).sum())}
    assert len(json.dumps(histogram, allow_nan=False)) < 4000
    assert event_histogram(event, first, second) == histogram  # the same draws give the same summary


def test_scores_of_several_coordinates_and_atoms_keep_their_axis():
    rng = np.random.default_rng(1)
    first, second = rng.normal(0, 1, (500, 2)), rng.normal(1, 1, (500, 2))
    halfspace = ThresholdEvent(LinearProjection((1.0, 1.0), "mean difference"), 1.0, True)
    histogram = event_histogram(halfspace, first, second)
    assert not histogram["in_output_coordinates"] and histogram["axis"].startswith("w·y")
    assert histogram["event"] == halfspace.describe()
    atoms = np.vstack([np.zeros((100, 1)), rng.normal(0, 1, (400, 1))])
    atom = ThresholdEvent(AtomProjection(((0.0,),), "input"), 0.5, True)
    histogram = event_histogram(atom, atoms, rng.normal(0, 1, (500, 1)))
    assert len(histogram["edges"]) == 3  # a bin per value of the score: 0 and 1
    assert histogram["counts"]["X"] == [400, 100] and histogram["in_event"] == {"X": 100, "X'": 0}
    assert histogram["region"] == [[0.5, "inf"]]


PAIR = NeighbourPair(np.zeros(1), np.ones(1), "f(X) = 0, f(X') = 1")


def test_a_violated_check_records_the_picture_and_a_consistent_one_does_not():
    claim = ApproxDP(1.0, 1e-3)
    budget = AuditBudget(20_000)
    leaky = certify_privacy_lower_bound(
        GaussianMechanism(0.3, 1.0), [PAIR], delta=1e-3, epsilon=1.0, budget=budget, seed=0
    )
    evidence = bound_evidence(leaky, claim, domain="d", method="m")
    assert evidence.verdict is Verdict.VIOLATED
    picture = evidence.counterexample["event_histogram"]
    assert picture["draws"] == {"X": budget.pilot, "X'": budget.pilot} and picture["draws_from"] == "pilot"
    assert picture["in_output_coordinates"] and picture["axis"] == "y"
    low, high = (float(end) for end in picture["region"][0])
    assert math.isinf(low) or math.isinf(high)  # a Gaussian shift is told by a tail
    safe = certify_privacy_lower_bound(
        GaussianMechanism(3.0, 1.0), [PAIR], delta=1e-3, epsilon=1.0, budget=budget, seed=0
    )
    assert bound_evidence(safe, claim, domain="d", method="m").counterexample is None


@pytest.mark.parametrize(
    "outputs",
    [
        np.array([[1.0], [np.nextafter(1.0, 2.0)], [1.0]]),  # two values one ulp apart
        np.array([[-1.7e308], [1.7e308], [0.0], [1e308]] * 20),  # a range past float64's
        np.array([[5.0]] * 10),  # one value
    ],
    ids=["ulp-apart", "huge-range", "one-value"],
)
def test_nasty_outputs_give_finite_increasing_edges(outputs):
    event = ThresholdEvent(CoordinateProjection(0), 1.0, True)
    histogram = event_histogram(event, outputs, outputs[::-1])
    edges = np.array(histogram["edges"])
    assert np.isfinite(edges).all() and (np.diff(edges) > 0).all() and len(edges) <= MAX_BINS + 1
    assert sum(histogram["counts"]["X"]) == len(outputs)
    json.dumps(histogram, allow_nan=False)


def test_a_quadratic_score_past_float64_keeps_its_own_axis():
    event = ThresholdEvent(QuadraticProjection((1e200,), (-1e200,), "logistic regression"), 1e300, True)
    assert output_region(event, 1) is None  # its roots are not float64 numbers: the score stays the axis
    histogram = event_histogram(event, np.ones((50, 1)), np.zeros((50, 1)))
    assert not histogram["in_output_coordinates"] and histogram["event"] == event.describe()
