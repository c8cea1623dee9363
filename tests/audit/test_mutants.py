"""Every mutant is a real bug: a direct computation (not the auditor) shows what it breaks.

Each test computes the property the mutant breaks — the claimed (ε, δ) through an exact
profile, a Lemma 1 condition on a concrete neighbouring pair, or the per-step sensitivity
of GPOPE — for the mutant and for its reference, from the mechanisms' own outputs and the
papers' formulas.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpaudit.audit.mutants.gpope_step_variants import (
    GpopeStepClipAfterNoise,
    GpopeStepComplementSampling,
    GpopeStepLinfClip,
    GpopeStepMissingClip,
    GpopeStepNoiseNotScaledByClip,
    _GpopeStepVariant,
)
from dpaudit.audit.mutants.library import (
    FAMILIES,
    MUTANTS,
    DirichletKTimesDimension,
    DpLslKRangeOffByOne,
    DpLswBetaWithoutDimension,
    DpLswNormOfMatrix,
    DpLswVarianceForStd,
    GaussianSharedNoise,
    GaussianSigmaAsVariance,
    Mutant,
    SmoothGaussianBetaWithoutDimension,
    get_mutant,
    list_mutants,
)
from dpaudit.audit.mutants.runs import mutant_spec_dir
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.gpope_step import GpopeStep
from dpaudit.mechanisms.policy_evaluation.bounds import rounding_safe_beta
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.mechanisms.policy_evaluation.statistics import FirstVisitStatistics
from dpaudit.mechanisms.smooth_gaussian import (
    SmoothGaussianMechanism,
    main_text_constants,
)
from dpaudit.privacy.accounting.mixtures import GaussianMixture, OutputPair
from dpaudit.privacy.accounting.pld import compose_pairs
from dpaudit.privacy.calibration import lemma1_worst_case
from dpaudit.privacy.dirichlet_worst_case import worst_pair_delta
from dpaudit.privacy.profiles import gaussian_delta

# ---------------------------------------------------------------- the library


def test_library_has_at_least_twelve_mutants_over_the_four_families():
    assert len(MUTANTS) >= 12
    assert {mutant.family for mutant in MUTANTS} == set(FAMILIES)
    assert len({mutant.name for mutant in MUTANTS}) == len(MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_documents_its_bug_and_has_its_specs(mutant):
    assert "Breaks:" in mutant.why
    assert mutant.bug and mutant.breaks
    for name in mutant.specs:
        assert (mutant_spec_dir() / name).is_file()
    assert mutant.to_json()["factory"].startswith("dpaudit.audit.mutants.")


def test_lookup_by_name_and_unknown_names():
    assert get_mutant("gpope-step-linf-clip").factory is GpopeStepLinfClip
    assert [m.name for m in list_mutants(["dirichlet-k-times-dimension"])] == ["dirichlet-k-times-dimension"]
    with pytest.raises(InvalidArgument, match="known mutants"):
        get_mutant("no-such-mutant")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"family": "other"}, "family="),
        ({"specs": ()}, "at least one spec"),
    ],
)
def test_mutant_records_are_validated(kwargs, match):
    fields = dict(
        name="x",
        family="gaussian",
        reference="gaussian",
        factory=GaussianMechanism,
        specs=("gaussian_sigma4.toml",),
        bug="b",
        breaks="c",
    )
    with pytest.raises(InvalidArgument, match=match):
        Mutant(**{**fields, **kwargs})


# ---------------------------------------------------------------- Gaussian family

CLAIM_EPSILON, CLAIM_DELTA = 4.38, 1e-5  # specs/mutants/gaussian_sigma4.toml


def test_gaussian_sigma_as_variance_breaks_the_claim():
    reference, mutant = GaussianMechanism(4.0, 4.0), GaussianSigmaAsVariance(4.0, 4.0)
    draws = mutant.release(np.zeros(1), rng=np.random.default_rng(0), size=200_000)
    assert float(np.std(draws)) == pytest.approx(2.0, rel=0.01)  # sqrt(sigma), not sigma
    assert float(np.std(reference.release(np.zeros(1), rng=np.random.default_rng(0), size=200_000))) == pytest.approx(
        4.0, rel=0.01
    )
    assert gaussian_delta(CLAIM_EPSILON, 4.0, 4.0).upper <= mpmath.mpf(CLAIM_DELTA)
    assert gaussian_delta(CLAIM_EPSILON, 4.0, 2.0).lower > 100 * mpmath.mpf(CLAIM_DELTA)


def test_gaussian_shared_noise_tells_neighbours_apart_with_certainty():
    mutant = GaussianSharedNoise(4.0, 4.0)
    first = mutant.release(np.array([0.0, 0.0]), rng=np.random.default_rng(1), size=1000)
    second = mutant.release(np.array([4.0, 0.0]), rng=np.random.default_rng(2), size=1000)
    # the event y1 - y2 > 2 has probability 0 under f(X) = (0, 0) and 1 under f(X') = (4, 0): epsilon = inf
    assert np.all(first[:, 0] == first[:, 1])
    assert np.allclose(second[:, 0] - second[:, 1], 4.0, rtol=0.0, atol=1e-12)
    assert not np.any(first[:, 0] - first[:, 1] > 2.0) and np.all(second[:, 0] - second[:, 1] > 2.0)
    assert mutant.release(np.zeros(3), rng=np.random.default_rng(0)).shape == (3,)
    reference = GaussianMechanism(4.0, 4.0).release(np.array([0.0, 0.0]), rng=np.random.default_rng(1), size=1000)
    assert not np.any(reference[:, 0] == reference[:, 1])


def test_smooth_gaussian_beta_without_d_breaks_lemma1_with_the_tight_alpha():
    reference = SmoothGaussianMechanism(1.0, 1e-5, 10, "tight")
    mutant = SmoothGaussianBetaWithoutDimension(1.0, 1e-5, 10, "tight")
    assert mutant.parameters.alpha == reference.parameters.alpha
    assert mutant.parameters.beta == pytest.approx(1.0 / (4 + 4 * math.log(2e5)))
    good = lemma1_worst_case(1.0, reference.parameters.alpha, reference.parameters.beta, 10)
    bad = lemma1_worst_case(1.0, mutant.parameters.alpha, mutant.parameters.beta, 10)
    assert good.delta.upper <= mpmath.mpf(1e-5) < bad.delta.lower


# ---------------------------------------------------------------- Balle et al. 2016

LSW = dict(n_states=5, features="tabular", gamma=0.5, r_max=1.0, epsilon=1.0, delta=0.1, weights=0.01)
LSL = dict(n_states=5, features="tabular", gamma=0.5, r_max=1.0, lam=2.0, epsilon=1.0, delta=0.1, rho=0.01)
PAPER = main_text_constants(1.0, 0.1, 5)  # Lemma 1 (main text) at epsilon = 1, delta = 0.1, d = 5

# X = {a trajectory 0 -> 1 -> 2 -> 3 with reward 1 at each step, the same with reward 0};
# X' replaces the first by the second (replace_one). gamma = 1/2: first-visit returns 1.875, 1.75, 1.5, 1.
ONES = np.array([1.875, 1.75, 1.5, 1.0, 0.0])
SIGNATURE = np.array([2, 2, 2, 2, 0])


def _sigma(mechanism, signature, average, m):
    statistics = FirstVisitStatistics.from_arrays(np.asarray(signature), np.asarray(average, dtype=float), m)
    return mechanism.intermediates_from_statistics(statistics)


def _condition_a_margin(mechanism):
    """σ_X − α ‖θ_X − θ_X'‖₂ on the pair above, with the paper's α and θ = F (tabular LSW, eq. (8))."""
    record = _sigma(mechanism, SIGNATURE, ONES / 2, 2)
    theta_x, theta_x_prime = ONES / 2, np.zeros(5)
    assert np.allclose(record.theta, theta_x)
    return record.sigma - PAPER.alpha * float(np.linalg.norm(theta_x - theta_x_prime))


@pytest.mark.parametrize("factory", [DpLswVarianceForStd, DpLswNormOfMatrix])
def test_dp_lsw_noise_slips_break_condition_a(factory):
    assert _condition_a_margin(DPLSW(**LSW)) > 0
    assert _condition_a_margin(factory(**LSW)) < 0


def test_dp_lsw_beta_without_d_breaks_condition_b():
    # X has 3 trajectories visiting states 0..3, X' drops one (add_remove_one): ||<X> - <X'>||_inf = 1
    def log_variance_gap(mechanism):
        first = _sigma(mechanism, [3, 3, 3, 3, 0], np.zeros(5), 3).sigma
        second = _sigma(mechanism, [2, 2, 2, 2, 0], np.zeros(5), 2).sigma
        return abs(2 * math.log(first) - 2 * math.log(second))

    # the reference smooths with beta (1 - 1e-6) so that float64 keeps condition (b) strictly
    assert log_variance_gap(DPLSW(**LSW)) == pytest.approx(rounding_safe_beta(PAPER.beta), rel=1e-12)
    assert log_variance_gap(DPLSW(**LSW)) < PAPER.beta
    assert log_variance_gap(DpLswBetaWithoutDimension(**LSW)) > 1.9 * PAPER.beta


def test_dp_lsl_k_range_off_by_one_breaks_condition_b():
    # m = 1: X = {a trajectory visiting state 0}, X' = {one visiting states 0, 1, 2} (replace_one)
    def log_variance_gap(mechanism):
        first = _sigma(mechanism, [1, 0, 0, 0, 0], np.zeros(5), 1).sigma
        second = _sigma(mechanism, [1, 1, 1, 0, 0], np.zeros(5), 1).sigma
        return abs(2 * math.log(first) - 2 * math.log(second))

    assert log_variance_gap(DPLSL(**LSL)) <= PAPER.beta
    assert log_variance_gap(DpLslKRangeOffByOne(**LSL)) > PAPER.beta * (1 + 1e-3)


# ---------------------------------------------------------------- Xie et al. 2019: GPOPE step

STEP = dict(records=4, clip_norm=2.0, noise_multiplier=1.0, steps=1, sampling="poisson")
CLAIM_STEP_EPSILON, CLAIM_STEP_DELTA = 1.76, 1e-3  # specs/mutants/xie2019_gpope_step_poisson.toml
FIRST = np.zeros((4, 2))
FIRST[-1] = [50.0, 50.0]
SECOND = -FIRST


def _step_epsilon(q, shift, std):
    """Exact ε(δ) of (1−q)N(0)+qN(shift) vs (1−q)N(0)+qN(−shift) (std per coordinate), PLD upper end."""
    pair = OutputPair(GaussianMixture.two_point(q, shift, 0.0, std), GaussianMixture.two_point(q, -shift, 0.0, std))
    return compose_pairs((pair, pair.reversed()), 1, interval=1e-3).epsilon(CLAIM_STEP_DELTA)


def test_the_step_claim_holds_for_the_reference():
    epsilon = _step_epsilon(0.25, 2.0, 2.0)
    assert epsilon.upper < CLAIM_STEP_EPSILON


@pytest.mark.parametrize("sampling", ["poisson", "uniform_one"])
def test_unmodified_variant_draws_exactly_like_the_reference(sampling):
    params = {**STEP, "sampling": sampling}
    reference = GpopeStep(**params).release(FIRST, rng=np.random.default_rng(5), size=50)
    variant = _GpopeStepVariant(**params).release(FIRST, rng=np.random.default_rng(5), size=50)
    assert np.array_equal(reference, variant)
    single = _GpopeStepVariant(**params).release(FIRST, rng=np.random.default_rng(5))
    assert np.array_equal(single, GpopeStep(**params).release(FIRST, rng=np.random.default_rng(5)))
    with pytest.raises(InvalidArgument, match="rows"):
        _GpopeStepVariant(**params).release(FIRST[:2], rng=0)


@pytest.mark.parametrize(
    "factory, norm", [(GpopeStepMissingClip, 50 * math.sqrt(2)), (GpopeStepLinfClip, 2 * math.sqrt(2))]
)
def test_clipping_slips_break_the_per_step_sensitivity(factory, norm):
    # Lemma 1 needs ||clipped gradient||_2 <= h, so that neighbours' gradients differ by <= 2h
    clipped = factory(**STEP).clip_gradients(FIRST)
    assert float(np.linalg.norm(clipped[-1])) == pytest.approx(norm)
    assert float(np.linalg.norm(_GpopeStepVariant(**STEP).clip_gradients(FIRST)[-1])) == pytest.approx(2.0)
    # along u = (1, 1)/sqrt(2) the pair is the reference's with the larger shift
    assert _step_epsilon(0.25, min(norm, 5.0), 2.0).lower > CLAIM_STEP_EPSILON


def test_complement_sampling_and_unscaled_noise_break_the_claim():
    assert GpopeStepComplementSampling(**STEP).selection_probability() == 0.75
    assert _step_epsilon(0.75, 2.0, 2.0).lower > CLAIM_STEP_EPSILON
    assert GpopeStepNoiseNotScaledByClip(**STEP).noise_scale() == 1.0
    assert _step_epsilon(0.25, 2.0, 1.0).lower > CLAIM_STEP_EPSILON


def test_clip_after_noise_breaks_the_claim():
    # direct Monte Carlo (numpy + Clopper-Pearson, independent of the audit engine) on the event
    # "output within 0.2 rad of the direction u of the replaced record's gradient"
    samples, alpha = 400_000, 1e-6
    mutant = GpopeStepClipAfterNoise(**STEP)
    direction = np.array([1.0, 1.0]) / math.sqrt(2)

    def hits(data, seed):
        out = mutant.release(data, rng=np.random.default_rng(seed), size=samples)
        cosine = out @ direction / np.maximum(np.linalg.norm(out, axis=1), 1e-300)
        return int(np.count_nonzero(cosine > math.cos(0.2)))

    p_hits, q_hits = hits(FIRST, 11), hits(SECOND, 12)
    p_low = stats.beta.ppf(alpha, p_hits, samples - p_hits + 1)
    q_high = stats.beta.isf(alpha, q_hits + 1, samples - q_hits)
    assert math.log((p_low - CLAIM_STEP_DELTA) / q_high) > CLAIM_STEP_EPSILON


# ---------------------------------------------------------------- Gohari et al. 2020: Dirichlet


def test_dirichlet_k_times_dimension_breaks_the_claim():
    p = np.array([0.2, 0.8])
    assert np.allclose(DirichletKTimesDimension(5.0, 0.2).concentration(p), 10.0 * p)
    assert np.allclose(DirichletMechanism(5.0, 0.2).concentration(p), 5.0 * p)
    claim_epsilon, claim_delta = 1.73, 0.01  # specs/mutants/gohari2020_dirichlet_tight.toml
    good = worst_pair_delta(claim_epsilon, 5.0, 0.2, n=2, eta=0.2, grid=40)
    bad = worst_pair_delta(claim_epsilon, 10.0, 0.2, n=2, eta=0.2, grid=40)
    assert good.delta.upper <= mpmath.mpf(claim_delta) < bad.delta.lower
