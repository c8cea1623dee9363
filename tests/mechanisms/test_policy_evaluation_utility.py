"""Tests of DP-LSW's utility statements (Balle et al. 2016, Theorem 11, Lemmas 22-23), with the finding."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.policy_evaluation.private import DPLSW
from dpaudit.mechanisms.policy_evaluation.utility import (
    lsw_excess_risk_bound,
    lsw_psi_lower_bound,
)
from dpaudit.rl.domains import Chain
from dpaudit.rl.sampling import sample_trajectories

N = 40


def chain_bound(m: int) -> tuple[float, float]:
    """(Theorem 11's bound, C² × the deterministic lower bound on E[ψ]) on the paper's chain, tabular, w = 1."""
    mechanism = DPLSW(N, "tabular", 0.99, 1.0, 0.1, 0.1)
    weights = np.ones(N)
    visit = np.arange(1, N + 1) / N
    frobenius = math.sqrt(N)
    bound = lsw_excess_risk_bound(
        weights, visit, m, mechanism.beta, mechanism.alpha, mechanism.return_bound, mechanism.pinv_norm, frobenius
    )
    c_squared = (mechanism.alpha * mechanism.return_bound * mechanism.pinv_norm * frobenius) ** 2
    return bound, c_squared * lsw_psi_lower_bound(weights, m, mechanism.beta)


@pytest.mark.parametrize("m", [100, 1_000, 10_000])
def test_finding_theorem11_fails_on_the_papers_chain(m: int) -> None:
    """Finding: E[excess] = C² E[ψ] >= C² e^{−(m−1)β} Σw exceeds Theorem 11's bound (Lemma 23 is wrong)."""
    bound, lower = chain_bound(m)
    assert lower > 5 * bound


def test_theorem11_not_contradicted_by_the_lower_bound_for_large_m() -> None:
    bound, lower = chain_bound(100_000)
    assert lower < bound


def test_finding_lemma23_maximum_is_at_an_endpoint() -> None:
    """Lemma 23's "otherwise" value (e²/4) b² e^{−ab} is the minimum over 0 <= x <= a − 1, not the maximum."""
    a, b = 10_000, 1e-3
    x = np.linspace(0.0, a - 1, 200_001)
    values = np.exp(-b * x) / (a - x) ** 2
    claimed = math.e**2 / 4 * b**2 * math.exp(-a * b)
    assert values.max() == pytest.approx(max(1 / a**2, math.exp(-b * (a - 1))), rel=1e-12)
    assert values.min() == pytest.approx(claimed, rel=1e-6)
    assert values.max() > 1e5 * claimed


def test_psi_lower_bound_holds_on_sampled_datasets() -> None:
    chain = Chain(8, 0.5, 0.9)
    mechanism = DPLSW(8, "aggregation:2", 0.9, 1.0, 1.0, 0.1, weights=np.linspace(0.1, 1.0, 8))
    for seed in range(5):
        data = sample_trajectories(chain.mdp(), chain.policy(), 20 + seed, rng=seed)
        psi = mechanism.intermediates(data).psi
        assert psi >= lsw_psi_lower_bound(mechanism.estimator.w, 20 + seed, mechanism.beta)


def test_excess_risk_bound_arguments() -> None:
    with pytest.raises(InvalidArgument, match="beta"):
        lsw_excess_risk_bound([1.0], [0.5], 10, 0.6, 1.0, 1.0, 1.0, 1.0)
    with pytest.raises(InvalidArgument, match="probabilities"):
        lsw_excess_risk_bound([1.0], [1.5], 10, 0.1, 1.0, 1.0, 1.0, 1.0)
    assert lsw_excess_risk_bound([2.0, 1.0], [0.0, 1.0], 1, 0.5, 1.0, 1.0, 1.0, 1.0) == pytest.approx(
        2.0 + 6 * (1 + 0.25 * 0.75)
    )


def test_finding_lemma30_case_condition() -> None:
    """Lemma 30 (appendix E) gives max_{0<=x<=m−a} e^{−2bx}(a + x) = a when b < a/2; the maximiser is interior.

    The only critical point x = 1/(2b) − a is a maximum, so the value is a only when b >= 1/(2a);
    with a = 10, b = 10^-3 (b < a/2) the maximum is e^{2ab−1}/(2b) ≈ 187.7, not 10.
    """
    a, b, m = 10, 1e-3, 100_000
    x = np.arange(0, m - a + 1, dtype=np.float64)
    values = np.exp(-2 * b * x) * (a + x)
    assert b < a / 2
    assert values.max() == pytest.approx(math.exp(2 * a * b - 1) / (2 * b), rel=1e-6)
    assert values.max() > 18 * a
