"""Mutants with real privacy bugs are caught; the correct mechanisms never raise a false alarm.

Each claim below is true of the correct mechanism by an exact or a proven bound, so any
``violated`` on it would be a false alarm; the mutant breaks it.
"""

import math

import mpmath
import numpy as np
import pytest

from dpaudit.checks.empirical.bound_evidence import bound_evidence
from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.mechanisms.gpope import GPOPE, StepSizes
from dpaudit.mechanisms.gtd2 import TransitionTable
from dpaudit.privacy.dirichlet_pair import BetaPair, beta_pair_delta, beta_pair_delta_float64
from dpaudit.privacy.dirichlet_worst_case import worst_pair_delta
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.profiles import gaussian_epsilon


def _verdict(mechanism, pair, claim, samples, seed):
    bound = certify_privacy_lower_bound(
        mechanism, [pair], delta=claim.delta, epsilon=claim.epsilon, budget=AuditBudget(samples), seed=seed
    )
    return bound_evidence(bound, claim, domain="d", method="m").verdict, bound


# Dirichlet mechanism (Gohari et al. 2020, Sec. II-D) on Δ(2) with components >= eta = 0.2 and b = 0.2:
# the claim is the exact epsilon at delta = 0.01 of the worst b-adjacent pair, rounded up.
DIRICHLET_K, DIRICHLET_B, DIRICHLET_ETA, DIRICHLET_DELTA = 5.0, 0.2, 0.2, 0.01


@pytest.fixture(scope="module")
def dirichlet_case():
    worst = worst_pair_delta(1.0, DIRICHLET_K, DIRICHLET_B, n=2, eta=DIRICHLET_ETA, grid=40)
    x, y, qx, qy = worst.pair_inputs
    beta = BetaPair(DIRICHLET_K * x, DIRICHLET_K * y, DIRICHLET_K * qx, DIRICHLET_K * qy)
    low, high = 0.0, 20.0
    for _ in range(60):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if beta_pair_delta_float64(middle, beta) > DIRICHLET_DELTA else (low, middle)
    epsilon = math.ceil(high * 1000) / 1000
    assert beta_pair_delta(epsilon, beta).upper <= mpmath.mpf(DIRICHLET_DELTA)  # the claim is true (exactly)
    pair = NeighbourPair(np.array([x, y]), np.array([qx, qy]), "worst b-adjacent pair")
    return pair, ApproxDP(epsilon, DIRICHLET_DELTA)


def test_dirichlet_with_k_ten_times_too_large_is_violated(dirichlet_case):
    pair, claim = dirichlet_case
    verdict, bound = _verdict(DirichletMechanism(10 * DIRICHLET_K, DIRICHLET_ETA), pair, claim, 50_000, 0)
    assert verdict is Verdict.VIOLATED
    assert bound.epsilon_lower_bound > claim.epsilon + 1.0


@pytest.mark.slow
def test_dirichlet_correct_k_never_violated_in_twenty_runs(dirichlet_case):
    pair, claim = dirichlet_case
    for seed in range(20):
        verdict, _ = _verdict(DirichletMechanism(DIRICHLET_K, DIRICHLET_ETA), pair, claim, 3_000, seed)
        assert verdict is Verdict.CONSISTENT, seed


# GPOPE (Xie et al. 2019, Alg. 1): each step adds N(0, (h sigma)^2) to a gradient clipped to norm h,
# and two neighbours' clipped gradients differ by at most 2h; by joint convexity over the
# trajectory picks and adaptive composition of Gaussian mechanisms (Dong, Roth & Su 2022,
# Cor. 3.3), N steps are mu-GDP with mu = 2 sqrt(N) / sigma, which gives a true (epsilon, delta).
GPOPE_STEPS, GPOPE_SIGMA, GPOPE_DELTA = 2, 4.0, 1e-3


def _table(reward):
    return TransitionTable(
        phi=np.ones((2, 1)),
        phi_next=np.zeros((2, 1)),
        rewards=np.array([0.0, reward]),
        rho=np.ones(2),
        offsets=np.array([0, 1, 2]),
        gamma=0.9,
    )


GPOPE_PAIR = NeighbourPair(_table(0.0), _table(50.0), "second trajectory's reward 0 vs 50")


def _gpope(clip):
    steps = StepSizes("constant", eta=0.5)
    return GPOPE(clip_norm=1.0, noise_multiplier=GPOPE_SIGMA, iterations=GPOPE_STEPS, step_sizes=steps, clip=clip)


@pytest.fixture(scope="module")
def gpope_claim():
    mu = 2.0 * math.sqrt(GPOPE_STEPS) / GPOPE_SIGMA
    _, epsilon = gaussian_epsilon(GPOPE_DELTA, mu, 1.0)
    return ApproxDP(float(epsilon) + 1e-9, GPOPE_DELTA)


def test_gpope_without_clipping_is_violated(gpope_claim):
    verdict, bound = _verdict(_gpope(clip=False), GPOPE_PAIR, gpope_claim, 3_000, 0)
    assert verdict is Verdict.VIOLATED
    assert bound.epsilon_lower_bound > gpope_claim.epsilon


@pytest.mark.slow
def test_gpope_with_clipping_never_violated_in_twenty_runs(gpope_claim):
    for seed in range(20):
        verdict, _ = _verdict(_gpope(clip=True), GPOPE_PAIR, gpope_claim, 300, seed)
        assert verdict is Verdict.CONSISTENT, seed
