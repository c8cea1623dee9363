"""Exhaustive exact sensitivity checks: reference DP-LSW/DP-LSL pass, planted mutants are caught.

Every mutant is first shown, by a direct computation at one pair, to break a proof
obligation; then the exhaustive checker must report VIOLATED with a concrete pair.
"""

import dataclasses
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpaudit.checks.sensitivity.balle2016 import exhaustive_audit, statement_evidence
from dpaudit.checks.sensitivity.exact_setting import _Setting
from dpaudit.checks.sensitivity.lemma1_conditions import lemma1_constants_exact
from dpaudit.checks.sensitivity.pair_sweep import sweep_pairs
from dpaudit.checks.sensitivity.statements import LslCorollary8, LswCorollary3, mechanism_problem
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.policy_evaluation import bounds
from dpaudit.mechanisms.policy_evaluation.exact_estimators import exact_first_visit_statistics, exact_parameters
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.mechanisms.policy_evaluation.statistics import FirstVisitStatistics
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import chain_universe

TIGHT_LSW = {
    "n_states": 5,
    "features": "tabular",
    "gamma": 0.9375,
    "r_max": 1.0,
    "f_max": 1.0,
    "epsilon": 20.0,
    "delta": 0.5,
}
"""A DP-LSW where condition (a) is tight enough for a wrong φ to matter (F_max = 1, large β)."""

SPEC_LSW = {"n_states": 5, "features": "tabular", "gamma": 0.5, "r_max": 1.0, "epsilon": 1.0, "delta": 0.1}
SPEC_LSL = dict(SPEC_LSW, lam=2.0)


@dataclasses.dataclass(frozen=True)
class PlusOneDenominatorLSW(DPLSW):
    """Mutant: φ^w_X(k) = Σ_s w_s / (max{|X_s| − k, 0} + 1)² in place of max{|X_s| − k, 1}² (eq. (9))."""

    def intermediates_from_statistics(self, statistics):
        record = super().intermediates_from_statistics(statistics)
        counts = statistics.signature
        profile = np.array(
            [np.sum(self.estimator.w / (np.maximum(counts - k, 0) + 1.0) ** 2) for k in range(int(counts.max()) + 1)]
        )
        psi, k_star = bounds.smooth_maximum(profile, self.beta)
        sigma = bounds.lsw_sigma(self.alpha, self.return_bound, self.pinv_norm, psi)
        return dataclasses.replace(record, sigma=float(sigma), psi=psi, phi_profile=profile, k_argmax=k_star)


@dataclasses.dataclass(frozen=True)
class DoubledBetaLSW(DPLSW):
    """Mutant: ψ^w_X = max_k e^{−2kβ} φ^w_X(k) (β doubled inside ψ, Algorithm 1)."""

    def intermediates_from_statistics(self, statistics):
        record = super().intermediates_from_statistics(statistics)
        psi, k_star = bounds.smooth_maximum(record.phi_profile, 2 * self.beta)
        sigma = bounds.lsw_sigma(self.alpha, self.return_bound, self.pinv_norm, psi)
        return dataclasses.replace(record, sigma=float(sigma), psi=psi, k_argmax=k_star)


@dataclasses.dataclass(frozen=True)
class DoubledBetaLSL(DPLSL):
    """Mutant: ψ^λ_X = max_k e^{−2kβ} φ^λ_X(k) (β doubled inside ψ, Algorithm 2)."""

    def intermediates_from_statistics(self, statistics):
        record = super().intermediates_from_statistics(statistics)
        psi, k_star = bounds.smooth_maximum(record.phi_profile, 2 * self.beta)
        sigma = bounds.lsl_sigma(self.alpha, self.return_bound, self.phi_norm, self.lam, self.rho_inf, psi)
        return dataclasses.replace(record, sigma=float(sigma), psi=psi, k_argmax=k_star)


@pytest.fixture(scope="module")
def small_universe():
    return chain_universe(5, "1/2", "15/16", 3)


@pytest.fixture(scope="module")
def spec_universe():
    return chain_universe(5, "1/2", "1/2", 3)


def _profile(universe, states, rewards=None):
    return next(
        i
        for i, p in enumerate(universe.profiles)
        if p.representative.states == states and (rewards is None or p.representative.rewards == rewards)
    )


def _sigma(mechanism, universe, dataset):
    counts, average = exact_first_visit_statistics(universe, dataset)
    statistics = FirstVisitStatistics.from_arrays(np.array(counts), np.array([float(a) for a in average]), len(dataset))
    return mechanism.intermediates_from_statistics(statistics).sigma


def test_plus_one_mutant_breaks_condition_a_at_a_direct_pair(small_universe):
    mutant = PlusOneDenominatorLSW(**TIGHT_LSW)
    reference = DPLSW(**TIGHT_LSW)
    stuck = _profile(small_universe, (0, 0, 0))
    direct = (stuck, _profile(small_universe, (1, 2, 3), (0, 0, 1)))
    stuck = (stuck,)
    problem = mechanism_problem(mutant)
    distance2 = sum(
        (a - b) ** 2
        for a, b in zip(
            exact_parameters(problem, small_universe, direct),
            exact_parameters(problem, small_universe, stuck),
            strict=False,
        )
    )
    alpha, _ = lemma1_constants_exact("main_text", epsilon=20.0, delta=0.5, d=5)
    assert mpmath.mpf(_sigma(mutant, small_universe, direct)) ** 2 < alpha**2 * float(distance2)
    assert mpmath.mpf(_sigma(reference, small_universe, direct)) ** 2 > alpha**2 * float(distance2)


@pytest.mark.parametrize("relation", ["replace_one", "add_remove_one"])
def test_reference_dp_lsw_passes_every_statement_on_the_tight_domain(small_universe, relation):
    results, sigmas = exhaustive_audit(DPLSW(**TIGHT_LSW), small_universe, relation, 2, rng=np.random.default_rng(1))
    assert sigmas.mismatches == 0
    assert {name: r.holds for name, r in results.items()} == dict.fromkeys(results, True)


@pytest.mark.parametrize("relation", ["replace_one", "add_remove_one"])
def test_plus_one_mutant_is_caught_with_a_minimal_pair(small_universe, relation):
    results, _ = exhaustive_audit(
        PlusOneDenominatorLSW(**TIGHT_LSW),
        small_universe,
        relation,
        2,
        rng=np.random.default_rng(1),
        names=("condition_a",),
    )
    result = results["condition_a"]
    assert result.holds is False
    left, right, comparison = result.counterexample
    assert comparison.margin < 0
    assert max(len(left), len(right)) == 2
    smaller, _ = exhaustive_audit(
        PlusOneDenominatorLSW(**TIGHT_LSW),
        small_universe,
        relation,
        1,
        rng=np.random.default_rng(1),
        names=("condition_a",),
    )
    assert smaller["condition_a"].holds is True
    evidence = statement_evidence(result, small_universe, "Lemma 1 (a)", parameters="mutant")
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.counterexample["X"] and evidence.counterexample["X_prime"]


def test_doubled_beta_lsw_breaks_condition_b_at_a_direct_pair(spec_universe):
    mutant = DoubledBetaLSW(**SPEC_LSW)
    full = _profile(spec_universe, (2, 3, 4), (0, 1, 0))
    smaller, larger = (full,), (full, full)
    ratio = abs(
        2 * mpmath.log(_sigma(mutant, spec_universe, larger)) - 2 * mpmath.log(_sigma(mutant, spec_universe, smaller))
    )
    _, beta = lemma1_constants_exact("main_text", epsilon=1.0, delta=0.1, d=5)
    assert ratio > 1.5 * beta


@pytest.mark.parametrize("mutant_class, params", [(DoubledBetaLSW, SPEC_LSW), (DoubledBetaLSL, SPEC_LSL)])
def test_doubled_beta_mutants_are_caught_with_a_large_excess(spec_universe, mutant_class, params):
    results, _ = exhaustive_audit(
        mutant_class(**params), spec_universe, "replace_one", 3, rng=np.random.default_rng(2), names=("condition_b",)
    )
    result = results["condition_b"]
    assert result.holds is False
    _, _, comparison = result.counterexample
    _, beta = lemma1_constants_exact("main_text", epsilon=1.0, delta=0.1, d=5)
    assert comparison.measured - comparison.bound > beta / 2


def test_doubled_beta_lsl_breaks_condition_b_at_a_direct_pair(spec_universe):
    mutant = DoubledBetaLSL(**SPEC_LSL)
    reference = DPLSL(**SPEC_LSL)
    results, _ = exhaustive_audit(
        mutant, spec_universe, "replace_one", 3, rng=np.random.default_rng(2), names=("condition_b",)
    )
    left, right, _ = results["condition_b"].counterexample
    _, beta = lemma1_constants_exact("main_text", epsilon=1.0, delta=0.1, d=5)
    mutant_ratio = abs(
        2 * mpmath.log(_sigma(mutant, spec_universe, left)) - 2 * mpmath.log(_sigma(mutant, spec_universe, right))
    )
    reference_ratio = abs(
        2 * mpmath.log(_sigma(reference, spec_universe, left)) - 2 * mpmath.log(_sigma(reference, spec_universe, right))
    )
    assert mutant_ratio > 1.5 * beta
    assert reference_ratio <= beta * (1 + 1e-12)


def test_reference_condition_b_exceeds_beta_only_by_float_rounding(spec_universe):
    """Finding: ψ attains |ln ψ(v) − ln ψ(v')| = β exactly, so float σ can overshoot β by an ulp."""
    results, _ = exhaustive_audit(
        DPLSW(**SPEC_LSW), spec_universe, "replace_one", 3, rng=np.random.default_rng(3), names=("condition_b",)
    )
    result = results["condition_b"]
    if result.counterexample is not None:
        _, _, comparison = result.counterexample
        assert 0 < comparison.measured - comparison.bound < 1e-14


def test_dp_lsl_condition_b_fails_under_add_remove(spec_universe):
    """Finding: ψ^λ depends on m through min{|X_s| + k, m}; adding a trajectory moves it by more than β."""
    results, _ = exhaustive_audit(
        DPLSL(**SPEC_LSL), spec_universe, "add_remove_one", 2, rng=np.random.default_rng(4), names=("condition_b",)
    )
    _, _, comparison = results["condition_b"].counterexample
    assert comparison.measured > 2 * comparison.bound


def test_planted_wrong_constant_in_corollary3_is_caught(spec_universe):
    problem = mechanism_problem(DPLSW(**SPEC_LSW))
    planted = dataclasses.replace(problem, r_max=Fraction(1, 8))
    result = sweep_pairs(LswCorollary3(_Setting(spec_universe, planted)), spec_universe, "replace_one", 2)
    assert result.holds is False
    honest = sweep_pairs(LswCorollary3(_Setting(spec_universe, problem)), spec_universe, "replace_one", 2)
    assert honest.holds is True and honest.tightest.margin > 0


def test_corollary8_rejects_lambda_below_the_threshold(spec_universe):
    problem = dataclasses.replace(mechanism_problem(DPLSL(**SPEC_LSL)), lam=Fraction(1, 2))
    with pytest.raises(InvalidArgument):
        LslCorollary8(_Setting(spec_universe, problem)).constants


@pytest.mark.parametrize("constant_set", ["main_text", "supplementary"])
def test_lemma1_constants_match_the_implementation(constant_set):
    mechanism = DPLSW(**dict(SPEC_LSW, constant_set=constant_set))
    alpha, beta = lemma1_constants_exact(constant_set, epsilon=1.0, delta=0.1, d=5)
    assert float(alpha) == pytest.approx(mechanism.alpha, rel=1e-14)
    assert float(beta) == pytest.approx(mechanism.beta, rel=1e-14)


@pytest.mark.parametrize("bad", ["tight", "", None])
def test_lemma1_constants_reject_unknown_sets(bad):
    with pytest.raises(InvalidArgument):
        lemma1_constants_exact(bad, epsilon=1.0, delta=0.1, d=1)


def test_local_sensitivities_match_exact_enumeration(spec_universe):
    from dpaudit.checks.sensitivity.smooth_slack import local_sensitivities
    from dpaudit.mechanisms.policy_evaluation.exact_estimators import exact_local_sensitivity
    from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex

    problem = mechanism_problem(DPLSL(**SPEC_LSL))
    values = local_sensitivities(_Setting(spec_universe, problem), "add_remove_one", 2)
    index = DatasetIndex(len(spec_universe), 2)
    for dataset in [(0,), (3,), (1, 4), (2, 2)]:
        exact = exact_local_sensitivity(problem, spec_universe, dataset, "add_remove_one", 2)
        position = int(index.global_index(np.array(dataset)))
        assert values[position] == pytest.approx(float(exact.squared), rel=1e-12)


@pytest.mark.parametrize("mechanism", ["lsl", "lsw"])
def test_local_sensitivity_bounds_enclose_the_exact_values(spec_universe, mechanism):
    from dpaudit.checks.sensitivity.smooth_slack import local_sensitivity_bounds
    from dpaudit.mechanisms.policy_evaluation.exact_estimators import exact_local_sensitivity
    from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex

    problem = mechanism_problem(DPLSL(**SPEC_LSL) if mechanism == "lsl" else DPLSW(**SPEC_LSW))
    low, high, error = local_sensitivity_bounds(_Setting(spec_universe, problem), "add_remove_one", 2)
    index = DatasetIndex(len(spec_universe), 2)
    assert np.all(low <= high) and error < 1e-12
    for dataset in [(0,), (3,), (1, 4), (2, 2)]:
        exact = exact_local_sensitivity(problem, spec_universe, dataset, "add_remove_one", 2)
        position = int(index.global_index(np.array(dataset)))
        value = mpmath.sqrt(mpmath.mpf(exact.squared.numerator) / exact.squared.denominator)
        assert low[position] <= value <= high[position]
        assert high[position] - low[position] <= 1e-12 * max(float(value), 1.0)


def test_smooth_sensitivity_is_smooth_and_above_local(spec_universe):
    from dpaudit.checks.sensitivity.pair_sweep import pair_blocks
    from dpaudit.checks.sensitivity.smooth_slack import local_sensitivities, smooth_sensitivity
    from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex

    beta = 0.25
    local = local_sensitivities(_Setting(spec_universe, mechanism_problem(DPLSW(**SPEC_LSW))), "replace_one", 2)
    smooth = smooth_sensitivity(local, spec_universe, "replace_one", 2, beta)
    assert np.all(smooth >= np.sqrt(local))
    index = DatasetIndex(len(spec_universe), 2)
    for block in pair_blocks(spec_universe, "replace_one", 2):
        left = smooth[index.global_index(block.left.rows)][:, :, None]
        right = smooth[index.global_index(block.right.rows)][:, None, :]
        assert np.all(np.where(block.mask, left <= np.exp(beta) * right * (1 + 1e-12), True))


def _smallest_margin(measured, bound):
    from dpaudit.checks.sensitivity.pair_sweep import _relative_margins

    return float(_relative_margins(measured, bound, None).min())


@pytest.mark.parametrize("seed", range(40))
def test_block_skip_never_hides_a_pair_below_the_level(seed):
    """The per-row test of a block is sound (True only if every margin clears the level) and, for a bound
    constant along q, exactly as sharp as the margins themselves (ties included)."""
    from dpaudit.checks.sensitivity.pair_sweep import _no_pair_below

    rng = np.random.default_rng(seed)
    shape = (3, 5, 7)
    row_bound = rng.uniform(0.5, 2.0, size=shape[:2])
    measured = rng.uniform(0.0, 0.5, size=shape) * row_bound[:, :, None]
    constant = np.broadcast_to(row_bound[:, :, None], shape)
    level = _smallest_margin(measured, constant) + rng.choice([-1e-3, 0.0, 1e-3])
    for strict in (False, True):
        smallest = _smallest_margin(measured, constant)
        assert _no_pair_below(measured, constant, level, strict=strict) == (
            smallest > level if strict else smallest >= level
        )
        varying = constant * rng.uniform(1.0, 1.5, size=shape)
        if _no_pair_below(measured, varying, level, strict=strict):
            smallest = _smallest_margin(measured, varying)
            assert smallest > level if strict else smallest >= level


def test_block_skip_fails_on_nan_and_on_a_pair_above_its_bound():
    from dpaudit.checks.sensitivity.pair_sweep import _no_pair_below

    bound = np.broadcast_to(1.0, (2, 3, 3))
    measured = np.zeros((2, 3, 3))
    assert _no_pair_below(measured, bound, 0.5, strict=True)
    measured[1, 2, 0] = np.nan
    assert not _no_pair_below(measured, bound, -np.inf, strict=False)
    measured[1, 2, 0] = 1.5
    assert not _no_pair_below(measured, bound, -np.inf, strict=False)


@pytest.mark.parametrize("top", [3, 2**40])
def test_sigma_classes_follow_the_lexicographic_order_of_the_rows(top):
    """(⟨X⟩, m) classes numbered as np.unique over rows numbers them, in base m_max + 1 or by the fallback."""
    from dpaudit.checks.sensitivity.lemma1_conditions import _class_codes

    rng = np.random.default_rng(1)
    counts = rng.integers(0, top, size=(200, 4))
    counts[::7] = counts[0]
    size = rng.integers(1, 4, size=200)
    _, expected_first, expected_inverse = np.unique(
        np.concatenate([counts, size[:, None]], axis=1), axis=0, return_index=True, return_inverse=True
    )
    _, first, inverse = np.unique(_class_codes(counts, size), return_index=True, return_inverse=True)
    assert np.array_equal(first, expected_first)
    assert np.array_equal(inverse.reshape(-1), expected_inverse.reshape(-1))


@pytest.mark.parametrize("m", [0, 1, 3])
def test_block_statistics_add_the_records_in_order(spec_universe, m):
    """A block's counts and sums are the per-record tables summed over the dataset's records (same bits)."""
    from dpaudit.checks.sensitivity.pair_sweep import DatasetBlock

    rows = np.sort(np.random.default_rng(m).integers(0, len(spec_universe), size=(4, 6, m)), axis=-1)
    block = DatasetBlock.of(spec_universe, rows)
    assert np.array_equal(block.counts, spec_universe.visits_array[rows].sum(axis=-2))
    assert np.array_equal(block.sums, spec_universe.returns_array[rows].sum(axis=-2))
    assert block.counts.shape == (4, 6, spec_universe.visits_array.shape[1])


def test_tabular_lsl_theta_is_the_solution_of_the_linear_system(spec_universe):
    """With Φ = I the diagonal shortcut solves the same system as a general solver would."""
    from dpaudit.checks.sensitivity.pair_sweep import DatasetBlock
    from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex

    setting = _Setting(spec_universe, mechanism_problem(DPLSL(**SPEC_LSL)))
    assert setting.tabular
    block = DatasetBlock.of(spec_universe, DatasetIndex(len(spec_universe), 3).datasets(3))
    rho = np.array([float(r) for r in setting.problem.rho])
    matrix = np.einsum("...s,st->...st", rho * block.counts / 3, np.eye(setting.problem.dimension))
    matrix += float(setting.problem.lam) / 6 * np.eye(setting.problem.dimension)
    expected = np.linalg.solve(matrix, (rho * block.sums / 3)[..., None])[..., 0]
    assert np.allclose(setting.theta(block), expected, rtol=1e-15, atol=0.0)
    for dataset in [tuple(int(v) for v in block.rows[i]) for i in (0, 17, -1)]:
        exact = setting.exact_theta(dataset)
        row = int(np.flatnonzero((block.rows == dataset).all(axis=1))[0])
        assert np.allclose(setting.theta(block)[row], [float(v) for v in exact], rtol=1e-12)


def test_relative_margins_read_nan_as_minus_infinity_and_mask_the_rest():
    from dpaudit.checks.sensitivity.pair_sweep import _relative_margins

    bound = np.broadcast_to(2.0, (1, 2, 2))
    measured = np.array([[[1.0, np.nan], [0.5, 3.0]]])
    relative = _relative_margins(measured, bound, np.array([[[False, False], [True, False]]]))
    assert relative.tolist() == [[[0.5, -np.inf], [np.inf, -0.5]]]
    assert _relative_margins(measured[:, :1, :1], bound[:, :1, :1], None).tolist() == [[[0.5]]]


@pytest.mark.parametrize("relation", ["replace_one", "add_remove_one"])
def test_signature_screen_is_the_count_gap_of_every_pair(spec_universe, relation):
    """The replace-one shortcut (the gap of X° + x against X° + x' is that of x against x') gives the
    gap computed from the two datasets' own signatures."""
    from dpaudit.checks.sensitivity.pair_sweep import pair_blocks
    from dpaudit.checks.sensitivity.statements import SignatureDistance

    statement = SignatureDistance(_Setting(spec_universe, mechanism_problem(DPLSW(**SPEC_LSW))))
    for block in pair_blocks(spec_universe, relation, 3, chunk=7):
        measured, bound = statement.screen(block)
        direct = np.abs(block.left.counts[:, :, None, :] - block.right.counts[:, None, :, :]).max(axis=-1)
        assert np.array_equal(measured, direct) and np.all(bound == 1.0)
