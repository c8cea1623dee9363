"""How far the implementation's σ_X may move between machines is taken from the problem's conditioning
(issue 37): ‖(Γ^{1/2}Φ)†‖ carries κ·u, DP-LSL's gap λ − ‖Φ‖²‖ρ‖∞ its amplification; a well-conditioned
problem keeps the 1e-12 floor, a singular one gets no bound, so nothing is certified from its σ_X."""

from fractions import Fraction

import mpmath
import numpy as np

from dpaudit.checks.sensitivity.exact_setting import _Setting
from dpaudit.checks.sensitivity.lemma1_conditions import (
    SIGMA_RELATIVE_ERROR,
    ConditionA,
    ConditionB,
    sigma_relative_error,
)
from dpaudit.mechanisms.policy_evaluation.exact_estimators import LSLProblem, LSWProblem
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex, chain_universe

UNIT = 2.0**-53
UNIVERSE = chain_universe(2, "1/2", "1/2", 2)


def _lsw(features):
    return _Setting(UNIVERSE, LSWProblem(features, [1, 1], 1, Fraction(1, 2)))


def test_a_well_conditioned_problem_keeps_the_floor():
    assert sigma_relative_error(_lsw([[1, 0], [0, 1]])) == SIGMA_RELATIVE_ERROR
    lsl = _Setting(UNIVERSE, LSLProblem([[1, 0], [0, 1]], [1, 1], 4, 1, Fraction(1, 2)))
    assert sigma_relative_error(lsl) == SIGMA_RELATIVE_ERROR


def test_an_ill_conditioned_lsw_problem_widens_with_its_condition_number():
    small = Fraction(1, 10**6)
    rho = sigma_relative_error(_lsw([[1, 0], [1, small]]))
    kappa = np.linalg.cond(np.array([[1.0, 0.0], [1.0, float(small)]]))
    assert rho > SIGMA_RELATIVE_ERROR
    assert rho >= Fraction(8 * 2 * 2 * kappa * UNIT)  # at least the SVD's 8 d kappa u, kappa taken twice
    tighter = sigma_relative_error(_lsw([[1, 0], [1, small * 1000]]))
    assert SIGMA_RELATIVE_ERROR <= tighter < rho


def test_an_lsl_gap_near_zero_widens_with_its_amplification():
    near = _Setting(UNIVERSE, LSLProblem([[1, 0], [0, 1]], [1, 1], Fraction(10**9 + 1, 10**9), 1, Fraction(1, 2)))
    assert sigma_relative_error(near) > 1000 * SIGMA_RELATIVE_ERROR


def test_a_numerically_singular_problem_gets_no_bound_and_certifies_nothing():
    rho = sigma_relative_error(_lsw([[1, 0], [1, Fraction(1, 10**17)]]))
    assert rho == 1
    index = DatasetIndex(len(UNIVERSE), 1)
    sigmas = np.ones(index.total)
    assert ConditionA(_lsw([[1, 0], [0, 1]]), sigmas, index, mpmath.mpf(1), rho).input_variation == 1
    assert ConditionB(sigmas, index, mpmath.mpf("0.1"), rho).input_variation == 1
    well = ConditionB(sigmas, index, mpmath.mpf("0.125"), SIGMA_RELATIVE_ERROR)
    assert well.input_variation == 40 * SIGMA_RELATIVE_ERROR
