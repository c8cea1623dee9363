"""Sizing the certification after the selection: enough draws that an epsilon 5% past the claim on the
selection's best event is refuted with probability 0.8, never more than the ceiling."""

import math

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.epsilon_lower_bound import AUTO_CAP, CANDIDATE_GROWTH, EmpiricalConfig
from dpaudit.checks.empirical.power_sizing import EXCESS, POWER, SelectionCounts, size_certification
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper
from dpaudit.kernel.checker_config import parse_config
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.privacy.guarantees import ApproxDP

EPSILON, DELTA, ALPHA = 1.0, 1e-4, 0.005
SELECTED = SelectionCounts(p_count=540, q_count=199, trials=100_000, score=0.8)


def _refutation_rate(n, p, q, seed, runs=400):
    rng = np.random.default_rng(seed)
    refuted = 0
    for p_count, q_count in zip(rng.binomial(n, p, runs), rng.binomial(n, q, runs), strict=True):
        p_lower = clopper_pearson_lower(int(p_count), n, ALPHA)
        refuted += p_lower - DELTA > math.exp(EPSILON) * clopper_pearson_upper(int(q_count), n, ALPHA)
    return refuted / runs


def test_the_sized_draws_refute_an_excess_of_five_percent_with_the_stated_power_and_a_quarter_do_not():
    sizing = size_certification([SELECTED], epsilon=EPSILON, delta=DELTA, alpha=ALPHA, floor=10_000, ceiling=1 << 24)
    assert sizing is not None and sizing.reached and sizing.draws > 10_000
    q = (SELECTED.q_count + 1) / SELECTED.trials
    p = math.exp(EPSILON * (1 + EXCESS)) * q + DELTA
    assert sizing.q_frequency == q
    assert _refutation_rate(sizing.draws, p, q, seed=1) >= POWER - 0.05
    assert _refutation_rate(sizing.draws // 4, p, q, seed=2) < POWER  # the doubling overshoots by < 2x, 4x is short
    # at the claim itself the sized draws refute no more often than the bounds' error
    assert _refutation_rate(sizing.draws, math.exp(EPSILON) * q + DELTA, q, seed=3) <= 2 * ALPHA + 0.01


def test_the_sizing_stops_at_its_ceiling_and_says_so():
    sizing = size_certification([SELECTED], epsilon=EPSILON, delta=DELTA, alpha=ALPHA, floor=10_000, ceiling=40_000)
    assert sizing is not None and sizing.draws == 40_000 and not sizing.reached
    assert "ceiling" in sizing.text() and "too few" in sizing.text()
    assert size_certification([SELECTED], epsilon=EPSILON, delta=DELTA, alpha=ALPHA, floor=10_000, ceiling=0) is None
    assert size_certification([], epsilon=EPSILON, delta=DELTA, alpha=ALPHA, floor=10_000, ceiling=1 << 20) is None


def test_an_event_too_frequent_on_its_q_side_to_hold_the_excess_is_not_sized():
    everywhere = SelectionCounts(p_count=100_000, q_count=100_000, trials=100_000, score=-0.5)
    common = SelectionCounts(p_count=90_000, q_count=40_000, trials=100_000, score=0.7)
    for counts in (everywhere, common):
        sized = size_certification([counts], epsilon=EPSILON, delta=DELTA, alpha=ALPHA, floor=10**4, ceiling=2**24)
        assert sized is None


def test_the_best_event_is_the_one_whose_selection_counts_certify_most():
    weak = SelectionCounts(p_count=30, q_count=0, trials=100_000, score=0.1)
    sizing = size_certification([weak, SELECTED], epsilon=EPSILON, delta=DELTA, alpha=ALPHA, floor=10**3, ceiling=2**24)
    assert sizing is not None and sizing.q_frequency == (SELECTED.q_count + 1) / SELECTED.trials


GAUSSIAN_EXACT = 3.13867  # sigma = 1, sensitivity 1, delta = 1e-3 (Balle & Wang 2018, Thm 8)
UNIT_PAIR = NeighbourPair(np.zeros(1), np.ones(1), "f(X) = 0, f(X') = 1")


def _bound(claim, seed, ceiling):
    return certify_privacy_lower_bound(
        GaussianMechanism(sigma=1.0, sensitivity=1.0),
        [UNIT_PAIR],
        delta=1e-3,
        epsilon=claim,
        budget=AuditBudget(10**6, certification_ceiling=ceiling),
        seed=seed,
    )


def test_a_claim_five_percent_under_the_truth_is_refuted_on_sized_draws_and_the_truth_is_not():
    """The Gaussian mechanism claimed at 0.95 of its exact epsilon: 10^6 draws per side leave seed 0
    unrefuted (certified 2.966 < 2.982); the certification sized up to 2^22 refutes it on seeds 0-2.
    The exact epsilon itself is refuted on none."""
    short = _bound(0.95 * GAUSSIAN_EXACT, 0, 0)
    assert short.certification == AuditBudget(10**6).certification and short.sizing is None
    assert short.samples_per_side == 10**6
    assert short.epsilon_lower_bound <= 0.95 * GAUSSIAN_EXACT
    for seed in range(3):
        sized = _bound(0.95 * GAUSSIAN_EXACT, seed, 1 << 22)
        assert sized.epsilon_lower_bound > 0.95 * GAUSSIAN_EXACT, seed
        assert sized.certification > short.certification and "certification sized" in sized.sizing
        budget = sized.budget
        assert sized.samples_per_side == budget.pilot + budget.selection + sized.certification > budget.samples
        truth = _bound(GAUSSIAN_EXACT, seed, 1 << 22)
        assert truth.epsilon_lower_bound <= GAUSSIAN_EXACT, seed


@pytest.mark.parametrize(
    ("params", "candidate", "vectorised", "quick", "ceiling"),
    [
        ({}, False, False, False, 0),  # a reference: the budget as written
        ({}, True, False, False, 0),  # a per-call candidate: as written
        ({}, True, True, False, CANDIDATE_GROWTH * 10**6),  # a vectorised one grows
        ({}, True, True, True, 0),  # not under --quick
        ({"samples": "auto"}, False, False, True, AUTO_CAP),
        ({"certification_ceiling": 123_456}, False, False, False, 123_456),
    ],
)
def test_the_certification_ceiling_defaults(params, candidate, vectorised, quick, ceiling):
    config = parse_config(EmpiricalConfig, params)
    budget = config.audit_budget(ApproxDP(1.0, 1e-5), candidate=candidate, vectorised=vectorised, quick=quick)
    assert budget.certification_ceiling == ceiling


def test_a_derived_ceiling_stays_under_the_samples_ceiling_in_force():
    from dpaudit.checks.budget_limits import lowered_ceilings

    config = parse_config(EmpiricalConfig, {})
    with lowered_ceilings({"samples": 2_000_000}):
        budget = config.audit_budget(ApproxDP(1.0, 1e-5), candidate=True, vectorised=True)
    assert budget.certification_ceiling == 2_000_000
