"""What a Monte Carlo budget could have seen: the ceiling, the smallest detectable event, and
`inconclusive` when the check could not have failed."""

import math

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.checks.empirical.bound_evidence import bound_evidence
from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.epsilon_lower_bound import AUTO_CAP, AUTO_START, auto_samples, with_auto_samples
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.checks.empirical.statistics import (
    certifiable_ceiling,
    clopper_pearson_lower,
    clopper_pearson_upper,
    samples_to_exceed,
    smallest_detectable_probability,
    smallest_refuting_count,
)
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.privacy.guarantees import ApproxDP

PAIR = NeighbourPair(np.zeros(1), np.ones(1), "f(X) = 0, f(X') = 1")


def test_the_ceiling_grows_with_the_budget_and_matches_its_definition():
    ceilings = [certifiable_ceiling(n, 0.01, 1e-5) for n in (100, 1000, 10_000, 100_000)]
    assert ceilings == sorted(ceilings)
    n = 1000
    expected = math.log((clopper_pearson_lower(n, n, 0.01) - 1e-5) / clopper_pearson_upper(0, n, 0.01))
    assert ceilings[1] == pytest.approx(expected)


def test_samples_to_exceed_reaches_the_claim():
    needed = samples_to_exceed(10.0, 0.01, 1e-5, start=1000)
    assert certifiable_ceiling(needed, 0.01, 1e-5) > 10.0 >= certifiable_ceiling(needed // 2, 0.01, 1e-5)


@pytest.mark.parametrize(("n", "delta", "epsilon"), [(1000, 0.0, 1.0), (50_000, 1e-5, 2.0), (10_000, 0.01, 0.5)])
def test_the_smallest_detectable_probability_is_the_threshold(n, delta, epsilon):
    alpha = 0.01
    p = smallest_detectable_probability(n, alpha, delta, epsilon)
    q_upper = clopper_pearson_upper(0, n, alpha)
    count = round(p * n)
    assert math.log((clopper_pearson_lower(count, n, alpha) - delta) / q_upper) > epsilon
    assert clopper_pearson_lower(count - 1, n, alpha) <= delta + math.exp(epsilon) * q_upper


def test_a_claim_above_the_ceiling_is_inconclusive_not_consistent():
    # even a mechanism that releases its input (infinitely leaky) could not refute epsilon = 12 with 2,000 draws
    claim = ApproxDP(12.0, 1e-5)
    bound = certify_privacy_lower_bound(
        lambda data, n, rng: np.repeat(np.asarray(data, dtype=float)[None, :], n, axis=0),
        [PAIR],
        delta=claim.delta,
        epsilon=claim.epsilon,
        budget=AuditBudget(2000),
        seed=0,
    )
    evidence = bound_evidence(bound, claim, domain="d", method="m")
    assert evidence.verdict is Verdict.INCONCLUSIVE
    assert evidence.summary.startswith("budget too small")
    assert "certification draws per side" in evidence.summary


def test_a_consistent_result_states_its_power():
    claim = ApproxDP(4.38, 1e-5)
    bound = certify_privacy_lower_bound(
        GaussianMechanism(sigma=1.0, sensitivity=1.0),
        [PAIR],
        delta=claim.delta,
        epsilon=claim.epsilon,
        budget=AuditBudget(100_000),
        seed=0,
    )
    evidence = bound_evidence(bound, claim, domain="d", method="m")
    assert evidence.verdict is Verdict.CONSISTENT
    assert "would have been caught" in evidence.summary
    quantities = [m.quantity for m in evidence.measurements]
    assert any("largest epsilon" in q for q in quantities)
    assert any("smallest P[M(X) in E]" in q for q in quantities)
    (refutable,) = [
        m for m in evidence.measurements if m.quantity == "smallest epsilon the best event would have refuted"
    ]
    assert refutable.measured > claim.epsilon and "its best event would have refuted the claim at" in evidence.summary


@pytest.mark.parametrize(("q_count", "n", "delta", "epsilon"), [(0, 10_000, 0.0, 1.0), (300, 10_000, 1e-5, 0.5)])
def test_the_smallest_refuting_count_is_the_threshold(q_count, n, delta, epsilon):
    alpha = 0.01
    count = smallest_refuting_count(q_count, n, alpha, delta, epsilon)
    need = delta + math.exp(epsilon) * clopper_pearson_upper(q_count, n, alpha)
    assert clopper_pearson_lower(count, n, alpha) > need >= clopper_pearson_lower(count - 1, n, alpha)
    if q_count == 0:
        assert count / n == smallest_detectable_probability(n, alpha, delta, epsilon)


def test_auto_samples_grow_until_a_rare_one_sided_event_refutes_the_claim():

    assert auto_samples(ApproxDP(2.0, 1e-5), 0.95, 0) == AUTO_START  # the floor already suffices
    sizes = [auto_samples(ApproxDP(epsilon, 1e-5), 0.95, 2) for epsilon in (6.0, 8.0, 9.0)]
    assert sizes == sorted(sizes) and sizes[-1] > AUTO_START  # larger claims need more draws
    chosen = sizes[1]
    alpha = 0.05 / (2 * (6 + 2))
    detectable = smallest_detectable_probability(AuditBudget(chosen).certification, alpha, 1e-5, 8.0)
    assert detectable is not None and detectable <= 1e-5 + 0.01
    smaller = smallest_detectable_probability(AuditBudget(chosen // 2).certification, alpha, 1e-5, 8.0)
    assert smaller is None or smaller > 1e-5 + 0.01  # and half of it does not
    assert auto_samples(ApproxDP(30.0, 1e-5), 0.95, 0) == AUTO_CAP


def test_samples_auto_reaches_every_monte_carlo_epsilon_check_and_only_those():

    claim = load_spec(builtin_spec_dir() / "examples" / "gaussian_candidate.toml")
    auto = with_auto_samples(claim)
    for before, after in zip(claim.obligations, auto.obligations, strict=True):
        if before.checker == "empirical_epsilon_lower_bound":
            assert after.params["samples"] == "auto" and after.for_run(quick=True).params["samples"] == "auto"
        else:
            assert after == before
