"""Tests of LSW, LSL, DP-LSW and DP-LSL (Balle et al. 2016, Sec. 3, Algorithms 1 and 2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.mechanisms.policy_evaluation.bounds import rounding_safe_beta
from dpaudit.mechanisms.policy_evaluation.estimators import LSL, LSW, feature_matrix
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.mechanisms.policy_evaluation.statistics import (
    FirstVisitStatistics,
    first_visit_statistics,
)
from dpaudit.mechanisms.smooth_gaussian import smallest_smooth_upper_bound
from dpaudit.rl.domains import Chain
from dpaudit.rl.sampling import sample_trajectories
from dpaudit.rl.trajectory import Trajectory

EPSILON, DELTA = 0.1, 0.1
ALPHA_MAIN = 5 * math.sqrt(2 * math.log(2 / DELTA)) / EPSILON


def beta_main(d: int) -> float:
    """β of the main-text Lemma 1 (Balle et al. 2016, Algorithms 1-2)."""
    return EPSILON / (4 * d + 4 * math.log(2 / DELTA))


def three_state_dataset() -> tuple[Trajectory, ...]:
    """x1 = (0, 1) with rewards (0, 1), x2 = (0,) with reward 1: ⟨X⟩ = (2, 1, 0)."""
    return (Trajectory((0, 1), (0, 0), (0, 1)), Trajectory((0,), (0,), (1,)))


def random_dataset(rng: np.random.Generator, n_states: int, m: int, r_max: float = 1.0) -> tuple[Trajectory, ...]:
    data = []
    for _ in range(m):
        length = int(rng.integers(1, 2 * n_states))
        states = tuple(int(s) for s in rng.integers(0, n_states, size=length))
        rewards = tuple(float(r) for r in rng.uniform(0.0, r_max, size=length))
        data.append(Trajectory(states, (0,) * length, rewards))
    return tuple(data)


def full_rank_features(rng: np.random.Generator, n_states: int, d: int) -> np.ndarray:
    while True:
        phi = rng.normal(size=(n_states, d))
        if np.linalg.matrix_rank(phi) == d:
            return phi


# --- features -----------------------------------------------------------------------------


def test_feature_matrix_names() -> None:
    assert np.array_equal(feature_matrix("tabular", 4), np.eye(4))
    pairs = feature_matrix("aggregation:2", 5)
    assert pairs.shape == (5, 3)
    assert pairs[4].tolist() == [0.0, 0.0, 1.0]
    assert np.array_equal(feature_matrix([[1.0], [2.0]], 2), np.array([[1.0], [2.0]]))


@pytest.mark.parametrize(
    "features, n_states, match",
    [
        ("fourier", 4, "features"),
        ("aggregation:x", 4, "aggregation"),
        ("aggregation:0", 4, "group size"),
        ("tabular:2", 4, "no argument"),
        ([[1.0, 0.0]], 2, "rows"),
        (np.ones((2, 3)), 2, "d=3 features > n_states=2"),
        ([[float("nan")], [1.0]], 2, "nan"),
    ],
)
def test_feature_matrix_rejects(features: object, n_states: int, match: str) -> None:
    with pytest.raises(InvalidArgument, match=match):
        feature_matrix(features, n_states)


# --- LSW and LSL solve their normal equations ----------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_states=st.integers(1, 8), data=st.data())
def test_lsw_satisfies_eq7_and_lsl_satisfies_eq11(seed: int, n_states: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    d = data.draw(st.integers(1, n_states))
    phi = full_rank_features(rng, n_states, d)
    w = rng.uniform(0.05, 2.0, size=n_states)
    dataset = random_dataset(rng, n_states, data.draw(st.integers(1, 12)))
    lsw = LSW(n_states, phi, 0.9, w)
    statistics = first_visit_statistics(dataset, n_states=n_states, gamma=0.9)
    theta = lsw.estimate(dataset)
    lhs = phi.T @ np.diag(w) @ phi @ theta
    rhs = phi.T @ np.diag(w) @ statistics.average_returns
    assert np.max(np.abs(lhs - rhs)) <= 1e-10 * max(1.0, np.max(np.abs(rhs)))
    lam = data.draw(st.floats(1e-3, 1e3))
    rho = rng.uniform(0.0, 1.0, size=n_states)
    lsl = LSL(n_states, phi, 0.9, lam, rho)
    theta_l = lsl.estimate(dataset)
    gamma_x = np.diag(rho * statistics.signature / statistics.m)
    lhs = (phi.T @ gamma_x @ phi + lam / (2 * statistics.m) * np.eye(d)) @ theta_l
    rhs = phi.T @ gamma_x @ statistics.average_returns
    assert np.max(np.abs(lhs - rhs)) <= 1e-10 * max(1.0, np.max(np.abs(rhs)))


def test_objectives_grow_by_the_quadratic_form() -> None:
    """J^w(θ+η) − J^w(θ) = ηᵀΦᵀΓΦη (eq. (47)); J^λ likewise with ΦᵀΓ_XΦ + λ/(2m) I (Lemma 29)."""
    rng = np.random.default_rng(5)
    dataset = random_dataset(rng, 5, 9)
    phi = full_rank_features(rng, 5, 3)
    lsw = LSW(5, phi, 0.8, rng.uniform(0.1, 1.0, size=5))
    lsl = LSL(5, phi, 0.8, 2.5, rng.uniform(0.1, 1.0, size=5))
    statistics = first_visit_statistics(dataset, n_states=5, gamma=0.8)
    eta = rng.normal(size=3)
    theta = lsw.solve(statistics.average_returns)
    growth = lsw.objective(theta + eta, statistics.average_returns) - lsw.objective(theta, statistics.average_returns)
    assert growth == pytest.approx(eta @ lsw.gram @ eta, rel=1e-9)
    theta_l = lsl.solve(statistics)
    gamma_x = lsl.weights * statistics.signature / statistics.m
    hessian = phi.T @ (gamma_x[:, None] * phi) + 2.5 / (2 * statistics.m) * np.eye(3)
    growth_l = lsl.objective(theta_l + eta, statistics) - lsl.objective(theta_l, statistics)
    assert growth_l == pytest.approx(eta @ hessian @ eta, rel=1e-9)


def test_lsl_objective_matches_eq3_by_direct_sum() -> None:
    rng = np.random.default_rng(11)
    dataset = random_dataset(rng, 4, 6)
    lsl = LSL(4, "aggregation:2", 0.7, 3.0, [1.0, 0.5, 0.25, 1.0])
    statistics = first_visit_statistics(dataset, n_states=4, gamma=0.7)
    theta = rng.normal(size=2)
    direct = 0.0
    for x in dataset:
        returns = np.zeros(4)
        for s in set(x.states):
            first = x.states.index(s)
            returns[s] = sum(r * 0.7**t for t, r in enumerate(x.rewards[first:]))
            direct += lsl.weights[s] * (returns[s] - lsl.phi[s] @ theta) ** 2
    expected = direct / len(dataset) + 3.0 / (2 * len(dataset)) * theta @ theta
    assert lsl.objective(theta, statistics) == pytest.approx(expected, rel=1e-12)


# --- hand-computed σ_X on three states -------------------------------------------------------


def test_dp_lsw_sigma_by_hand() -> None:
    """⟨X⟩ = (2, 1, 0), w = 1, Φ = I, γ = 1/2, R_max = 1: φ = (9/4, 3, 3), ψ = 3 e^{−β'} (k = 1),
    with the implementation's β' = β (1 − 10⁻⁶) (rounding-safe smoothing; at most 1e-6 β more noise)."""
    mechanism = DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA)
    record = mechanism.intermediates(three_state_dataset())
    assert 3 * math.exp(-beta_main(3)) < record.psi < 3 * math.exp(-beta_main(3)) * (1 + 2e-6 * beta_main(3))
    beta = rounding_safe_beta(beta_main(3))
    assert record.phi_profile.tolist() == [2.25, 3.0, 3.0]
    assert record.k_argmax == 1 and record.k_max == 2
    assert record.psi == pytest.approx(3 * math.exp(-beta), rel=1e-14)
    expected_sigma = ALPHA_MAIN * 2.0 * 1.0 * math.sqrt(3 * math.exp(-beta))
    assert record.sigma == pytest.approx(expected_sigma, rel=1e-14)
    # with the paper's beta the hand value is 423.07922495503; beta' moves it by e^(1e-6 beta / 2) - 1 < 1e-8
    assert record.sigma == pytest.approx(423.07922495503, rel=1e-8)
    assert record.sigma > 423.07922495503
    assert record.theta.tolist() == [0.75, 1.0, 0.0]
    assert record.sensitivity_bound == pytest.approx(2.0 * 1.5)


def test_dp_lsl_sigma_by_hand() -> None:
    """⟨X⟩ = (2, 1, 0), m = 2, ρ = 1, λ = 4: c_λ = 1/√8, Σ min(|X_s|+k, 2) = 3, 5, 6 for k = 0, 1, 2;
    smoothing with the implementation's β' = β (1 − 10⁻⁶)."""
    mechanism = DPLSL(3, "tabular", 0.5, 1.0, 4.0, EPSILON, DELTA)
    record = mechanism.intermediates(three_state_dataset())
    beta = rounding_safe_beta(beta_main(3))
    c = 1 / math.sqrt(8)
    phis = [(c * math.sqrt(t) + math.sqrt(3)) ** 2 for t in (3, 5, 6)]
    scaled = [math.exp(-k * beta) * value for k, value in enumerate(phis)]
    assert record.phi_profile == pytest.approx(phis, rel=1e-14)
    assert record.k_argmax == 2
    assert record.psi == pytest.approx(max(scaled), rel=1e-14)
    expected_sigma = 2 * ALPHA_MAIN * 2.0 * 1.0 / (4.0 - 1.0) * math.sqrt(max(scaled))
    assert record.sigma == pytest.approx(expected_sigma, rel=1e-14)
    # with the paper's beta the hand value is 422.1981013266405; beta' moves it by e^(2e-6 beta) - 1 < 1e-8
    assert record.sigma == pytest.approx(422.1981013266405, rel=1e-8)
    assert record.sigma > 422.1981013266405
    assert record.theta == pytest.approx([0.375, 1 / 3, 0.0], rel=1e-14)


def test_dp_lsl_max_saturation_reading() -> None:
    mechanism = DPLSL(3, "tabular", 0.5, 1.0, 4.0, EPSILON, DELTA, saturation="max")
    record = mechanism.intermediates(three_state_dataset())
    c = 1 / math.sqrt(8)
    assert record.phi_profile == pytest.approx([(c * math.sqrt(t) + math.sqrt(3)) ** 2 for t in (6, 7, 9)], rel=1e-14)


# --- smoothness on real neighbouring datasets --------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 10), which=st.integers(0, 9))
def test_sigma_squared_changes_by_at_most_e_beta_under_replace_one(seed: int, m: int, which: int) -> None:
    """Lemma 1 (b) for Algorithms 1-2: σ_{X'}² <= e^β σ_X² when one trajectory is replaced."""
    rng = np.random.default_rng(seed)
    dataset = random_dataset(rng, 4, m)
    replacement = random_dataset(rng, 4, 1)
    neighbour = tuple(replacement[0] if i == which % m else x for i, x in enumerate(dataset))
    for mechanism in (
        DPLSW(4, "tabular", 0.9, 1.0, 1.0, 0.1),
        DPLSL(4, "aggregation:2", 0.9, 1.0, 2.5, 1.0, 0.1),
    ):
        sigma = mechanism.gaussian_view(dataset)[1]
        sigma_neighbour = mechanism.gaussian_view(neighbour)[1]
        assert sigma_neighbour**2 <= math.exp(mechanism.beta) * sigma**2 * (1 + 1e-12)
        assert sigma**2 <= math.exp(mechanism.beta) * sigma_neighbour**2 * (1 + 1e-12)


# --- releases -------------------------------------------------------------------------------------


def test_dp_lsw_releases_have_mean_theta_and_covariance_sigma2_identity() -> None:
    """10^5 releases: Hotelling T² for the mean and a χ² test of the total variance, both at 99%."""
    chain = Chain(6, 0.5, 0.9)
    data = sample_trajectories(chain.mdp(), chain.policy(), 50, rng=3)
    mechanism = DPLSW(6, "aggregation:2", 0.9, 1.0, 1.0, 0.1)
    theta, sigma = mechanism.gaussian_view(data)
    n, d = 100_000, theta.size
    releases = mechanism.release(data, rng=2024, size=n)
    assert releases.shape == (n, d)
    mean = releases.mean(axis=0)
    covariance = np.cov(releases, rowvar=False)
    t2 = n * (mean - theta) @ np.linalg.solve(covariance, mean - theta)
    f_stat = t2 * (n - d) / (d * (n - 1))
    assert stats.f.sf(f_stat, d, n - d) > 0.01
    total = np.sum((releases - theta) ** 2) / sigma**2
    tail = stats.chi2.cdf(total, n * d)
    assert 0.005 < tail < 0.995
    off_diagonal = covariance[~np.eye(d, dtype=bool)] / sigma**2
    assert np.max(np.abs(off_diagonal)) < 4.0 * math.sqrt(2.0 / n) * 3


def test_release_is_reproducible_and_shaped() -> None:
    mechanism = DPLSL(3, "tabular", 0.5, 1.0, 4.0, EPSILON, DELTA)
    data = three_state_dataset()
    assert np.array_equal(mechanism.release(data, rng=7), mechanism.release(data, rng=7))
    assert mechanism.release(data, rng=7).shape == (3,)
    assert mechanism.release(data, rng=7, size=4).shape == (4, 3)
    with pytest.raises(InvalidArgument):
        mechanism.release(data, rng=7, size=0)


def test_registry_builds_both_mechanisms_from_spec_params() -> None:
    lsw = build_mechanism(
        "dp_lsw",
        {"n_states": 3, "features": "tabular", "gamma": 0.5, "r_max": 1.0, "epsilon": 0.1, "delta": 0.1},
    )
    assert isinstance(lsw, DPLSW)
    lsl = build_mechanism(
        "dp_lsl",
        {
            "n_states": 3,
            "features": [[1.0], [1.0], [0.0]],
            "gamma": 0.5,
            "r_max": 1.0,
            "lam": 3.0,
            "epsilon": 0.1,
            "delta": 0.1,
            "rho": [1.0, 0.5, 1.0],
            "f_max": 2.0,
            "constant_set": "main_text",
        },
    )
    assert isinstance(lsl, DPLSL)
    assert lsl.gaussian_view(three_state_dataset())[1] > 0


def test_f_max_replaces_the_return_bound_and_is_enforced() -> None:
    data = three_state_dataset()
    plain = DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA)
    tight = DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA, f_max=1.0)
    assert tight.gaussian_view(data)[1] == pytest.approx(plain.gaussian_view(data)[1] / 2.0, rel=1e-14)
    too_small = DPLSL(3, "tabular", 0.5, 1.0, 4.0, EPSILON, DELTA, f_max=0.9)
    with pytest.raises(InvalidArgument, match="f_max"):
        too_small.release(data, rng=0)


def test_statistics_from_arrays_feeds_the_same_intermediates() -> None:
    mechanism = DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA)
    direct = mechanism.intermediates(three_state_dataset())
    built = mechanism.intermediates_from_statistics(
        FirstVisitStatistics.from_arrays(np.array([2, 1, 0]), [0.75, 1.0, 0.0], 2)
    )
    assert built.sigma == direct.sigma
    assert np.array_equal(built.theta, direct.theta)
    with pytest.raises(InvalidArgument, match="signature"):
        FirstVisitStatistics.from_arrays(np.array([3, 1, 0]), [0.75, 1.0, 0.0], 2)


# --- bad input --------------------------------------------------------------------------------------

VALID_LSW = {"n_states": 3, "features": "tabular", "gamma": 0.5, "r_max": 1.0, "epsilon": 0.1, "delta": 0.1}
VALID_LSL = {**VALID_LSW, "lam": 4.0}


@pytest.mark.parametrize("name", ["dp_lsw", "dp_lsl"])
@pytest.mark.parametrize(
    "change, match",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"epsilon": 5e-324}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": -0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"delta": float("nan")}, "delta"),
        ({"r_max": 0.0}, "r_max"),
        ({"r_max": float("inf")}, "r_max"),
        ({"gamma": 1.0}, "gamma"),
        ({"gamma": float("nan")}, "gamma"),
        ({"features": np.ones((3, 4))}, "d=4 features > n_states=3"),
        ({"f_max": 0.0}, "f_max"),
        ({"constant_set": "no_such_set"}, "no_such_set"),
    ],
)
def test_bad_parameters_raise_invalid_argument(name: str, change: dict, match: str) -> None:
    params = {**(VALID_LSW if name == "dp_lsw" else VALID_LSL), **change}
    with pytest.raises(InvalidArgument, match=match):
        build_mechanism(name, params)


@pytest.mark.parametrize("epsilon, delta", [(1 - 2**-53, 0.1), (0.1, 1 - 2**-53), (0.1, 1e-300), (4.0, 1e-9)])
def test_edge_privacy_parameters_are_accepted(epsilon: float, delta: float) -> None:
    for name, params in (("dp_lsw", VALID_LSW), ("dp_lsl", VALID_LSL)):
        mechanism = build_mechanism(name, {**params, "epsilon": epsilon, "delta": delta})
        assert math.isfinite(mechanism.gaussian_view(three_state_dataset())[1])


def test_rank_deficient_features_rejected_for_lsw_only() -> None:
    collinear = [[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]]
    with pytest.raises(InvalidArgument, match="rank 1 < d=2"):
        DPLSW(3, collinear, 0.5, 1.0, EPSILON, DELTA)
    assert DPLSL(3, collinear, 0.5, 1.0, 30.0, EPSILON, DELTA).estimator.d == 2


@pytest.mark.parametrize("lam", [1.0, 0.5, 1.0 - 2**-53, 0.0, -0.0, float("nan")])
def test_lambda_below_precondition_rejected(lam: float) -> None:
    with pytest.raises(InvalidArgument, match="lam"):
        DPLSL(3, "tabular", 0.5, 1.0, lam, EPSILON, DELTA)


def test_lambda_precondition_uses_feature_norm_and_rho() -> None:
    pairs_threshold = 2.0 * 0.5
    with pytest.raises(InvalidArgument, match=r"\|\|Phi\|\|\^2 \|\|rho\|\|_inf = 1.0"):
        DPLSL(4, "aggregation:2", 0.5, 1.0, pairs_threshold, EPSILON, DELTA, rho=0.5)
    assert DPLSL(4, "aggregation:2", 0.5, 1.0, pairs_threshold * (1 + 1e-9), EPSILON, DELTA, rho=0.5)


@pytest.mark.parametrize(
    "weights, match",
    [([1.0, 0.0, 1.0], "weights\\[1\\]"), ([1.0, -1.0, 1.0], "weights"), ([1.0, float("nan"), 1.0], "nan")],
)
def test_lsw_weights_must_be_positive(weights: list[float], match: str) -> None:
    with pytest.raises(InvalidArgument, match=match):
        DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA, weights=weights)


@pytest.mark.parametrize("rho", [[1.5, 1.0, 1.0], [-0.1, 1.0, 1.0], 2.0])
def test_lsl_rho_must_lie_in_unit_interval(rho: object) -> None:
    with pytest.raises(InvalidArgument, match="rho"):
        DPLSL(3, "tabular", 0.5, 1.0, 40.0, EPSILON, DELTA, rho=rho)


@pytest.mark.parametrize("reward", [-0.5, 1.5, -1e-300])
def test_rewards_outside_zero_r_max_rejected(reward: float) -> None:
    data = (Trajectory((0, 1), (0, 0), (0.0, reward)),)
    mechanisms = (DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA), DPLSL(3, "tabular", 0.5, 1.0, 4.0, EPSILON, DELTA))
    for mechanism in mechanisms:
        with pytest.raises(InvalidArgument, match="outside \\[0, R_max"):
            mechanism.release(data, rng=0)


def test_bad_datasets_rejected() -> None:
    mechanism = DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA)
    with pytest.raises(InvalidArgument):
        mechanism.release((), rng=0)
    with pytest.raises(InvalidArgument, match="state"):
        mechanism.release((Trajectory((3,), (0,), (0.0,)),), rng=0)
    with pytest.raises(InvalidType):
        mechanism.release(Trajectory((0,), (0,), (0.0,)), rng=0)


# --- constant sets ------------------------------------------------------------------------------


def test_psi_equals_the_shared_lemma4_smallest_smooth_upper_bound() -> None:
    chain = Chain(8, 0.5, 0.9)
    data = sample_trajectories(chain.mdp(), chain.policy(), 30, rng=1)
    for mechanism in (DPLSW(8, "tabular", 0.9, 1.0, 0.5, 0.1), DPLSL(8, "aggregation:2", 0.9, 1.0, 3.0, 0.5, 0.1)):
        record = mechanism.intermediates(data)
        # the implementation smooths with beta (1 - 1e-6), see rounding_safe_beta
        shared = float(smallest_smooth_upper_bound(record.phi_profile, rounding_safe_beta(mechanism.beta)))
        assert record.psi == pytest.approx(shared, rel=1e-15)


def test_supplementary_constants_and_their_preconditions() -> None:
    mechanism = DPLSW(3, "tabular", 0.5, 1.0, EPSILON, DELTA, constant_set="supplementary")
    assert mechanism.alpha == pytest.approx(15 * math.sqrt(2 * math.log(4 / DELTA)) / EPSILON)
    beta = 2 * math.log(2) * EPSILON / (5 * (math.sqrt(3) + math.sqrt(2 * math.log(4 / DELTA))) ** 2)
    assert mechanism.beta == pytest.approx(beta)
    with pytest.raises(InvalidArgument, match="preconditions"):
        DPLSL(3, "tabular", 0.5, 1.0, 4.0, 6.0, DELTA, constant_set="supplementary")
