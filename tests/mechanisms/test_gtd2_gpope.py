"""GTD2 saddle point, MSPBE, and GPOPE (Xie et al. 2019, Alg. 1)."""

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gpope import GPOPE, StepSizes, paper_noise_multiplier
from dpaudit.mechanisms.gtd2 import (
    DatasetMoments,
    TransitionTable,
    dataset_moments,
    expected_gtd2,
    mspbe,
    saddle_point,
)
from dpaudit.mechanisms.gtd2_gradients import primal_dual_gradients, primal_dual_operators
from dpaudit.rl import Chain, FiniteMDP, MarkovPolicy, Trajectory, sample_trajectories


def _chain_table(n_states=5, gamma="9/10", m=300, seed=1):
    chain = Chain(n_states=n_states, gamma=gamma)
    batch = sample_trajectories(chain.mdp(), chain.policy(), m, rng=seed)
    return chain, TransitionTable.from_trajectories(batch.to_dataset(), np.eye(n_states), float(chain.gamma))


def test_saddle_point_solves_first_order_condition():
    _, table = _chain_table()
    moments = dataset_moments(table)
    point = saddle_point(moments)
    n = table.n_features
    q = np.block([[np.zeros((n, n)), -moments.A.T], [moments.A, moments.C]])
    np.testing.assert_allclose(
        q @ np.concatenate([point.theta, point.w]), np.concatenate([np.zeros(n), moments.b]), atol=1e-12
    )
    assert mspbe(point.theta, moments) < 1e-20


def test_w_star_as_printed_differs_from_the_first_order_solution():
    """Finding: eq. (6.2) prints w* = C^-1(b - A^T theta*), which violates (6.4) when A is not symmetric."""
    _, table = _chain_table()
    point = saddle_point(dataset_moments(table))
    assert np.abs(point.w).max() < 1e-10
    assert np.abs(point.w_as_printed).max() > 1e-3


def test_finding_per_trajectory_normalisation_biases_the_target():
    """Finding: with eq. (2.2)'s per-trajectory normalisation the saddle point is not the TD
    fixed point. On the chain, short trajectories are those that advanced quickly, so
    weighting each trajectory equally over-weights advancing transitions and biases θ*
    upwards (about +0.04 here), while weighting every transition equally recovers V^π."""
    chain, table = _chain_table(m=20000, seed=3)
    exact = np.array([float(v) for v in chain.exact_values()])
    for normalisation in ("mean", "paper"):
        keep = table.lengths >= 2 if normalisation == "paper" else np.ones(table.n_trajectories, bool)
        rows = np.concatenate([np.arange(table.offsets[i], table.offsets[i + 1]) for i in np.flatnonzero(keep)])
        subset = TransitionTable(
            table.phi[rows],
            table.phi_next[rows],
            table.rewards[rows],
            table.rho[rows],
            np.concatenate([[0], np.cumsum(table.lengths[keep])]),
            table.gamma,
        )
        theta = saddle_point(dataset_moments(subset, normalisation=normalisation)).theta
        assert (theta[:-1] - exact[:-1]).min() > 0.02
    delta_phi = table.phi - table.gamma * table.phi_next
    per_transition = DatasetMoments(table.phi.T @ delta_phi, table.phi.T @ table.rewards, table.phi.T @ table.phi)
    np.testing.assert_allclose(saddle_point(per_transition).theta, exact, atol=0.01)


def test_expected_gtd2_converges_to_theta_star():
    _, table = _chain_table()
    moments = dataset_moments(table)
    star = saddle_point(moments).theta
    theta = expected_gtd2(moments, step_size=1.0, iterations=20000)
    assert np.linalg.norm(theta - star) / np.linalg.norm(star) <= 1e-3


@pytest.mark.slow  # 10^5 steps of the same numpy calls as the unit tests: the main CI job runs it, not the floors one
def test_stochastic_gtd2_approaches_theta_star():
    _, table = _chain_table()
    moments = dataset_moments(table)
    star = saddle_point(moments).theta
    errors = []
    for iterations in (100, 100000):
        run = GPOPE(
            noise_multiplier=0.0, iterations=iterations, step_sizes=StepSizes("constant", eta=0.05), clip=False
        ).run(table, rng=2)
        errors.append(np.linalg.norm(run.theta - star) / np.linalg.norm(star))
    assert errors[1] < 0.02 < errors[0]


@pytest.mark.slow  # 2 x 10^5 steps of the unit tests' numpy calls: the main CI job runs it, not the floors one
def test_stochastic_gtd2_with_iterate_averaging_reaches_theta_star():
    """Stochastic GTD2 (one trajectory per step, no clip, no noise): the Polyak-Ruppert average of the
    last half of the iterates is within 1e-3 relative of theta* on the chain."""
    _, table = _chain_table()
    star = saddle_point(dataset_moments(table)).theta
    iterations = 200_000
    run = GPOPE(
        noise_multiplier=0.0, iterations=iterations, step_sizes=StepSizes("constant", eta=0.05), clip=False
    ).run(table, rng=2, record_every=1)
    average = run.recorded_theta[iterations // 2 :].mean(axis=0)
    assert np.linalg.norm(average - star) / np.linalg.norm(star) <= 1e-3


def test_mspbe_against_direct_formula_on_random_mdp():
    rng = np.random.default_rng(5)
    transitions = rng.dirichlet(np.ones(5), size=(5, 2))
    rewards = rng.random((5, 2))
    mdp = FiniteMDP(transitions, rewards, 0.8)
    target = MarkovPolicy(rng.dirichlet(np.ones(2), size=5))
    behaviour = MarkovPolicy(np.full((5, 2), 0.5))
    batch = sample_trajectories(mdp, behaviour, 200, rng=rng, max_steps=6)
    features = rng.standard_normal((5, 3))
    table = TransitionTable.from_trajectories(batch.to_dataset(), features, 0.8, target=target, behaviour=behaviour)
    moments = dataset_moments(table)
    theta = rng.standard_normal(3)
    direct_a = np.zeros((3, 3))
    direct_b = np.zeros(3)
    direct_c = np.zeros((3, 3))
    for i in range(table.n_trajectories):
        lo, hi = table.offsets[i], table.offsets[i + 1]
        for t in range(lo, hi):
            phi, nxt = table.phi[t], table.phi_next[t]
            direct_a += table.rho[t] * np.outer(phi, phi - 0.8 * nxt) / (hi - lo)
            direct_b += table.rho[t] * phi * table.rewards[t] / (hi - lo)
            direct_c += np.outer(phi, phi) / (hi - lo)
    m = table.n_trajectories
    residual = direct_a / m @ theta - direct_b / m
    assert mspbe(theta, moments) == pytest.approx(residual @ np.linalg.inv(direct_c / m) @ residual, rel=1e-10)


def test_primal_dual_gradient_matches_eq_4_1():
    _, table = _chain_table(m=20)
    rng = np.random.default_rng(0)
    theta, w = rng.standard_normal(5), rng.standard_normal(5)
    gradient = primal_dual_gradients(table, np.array([3]), theta, w)[0]
    single = TransitionTable(
        table.phi[table.offsets[3] : table.offsets[4]],
        table.phi_next[table.offsets[3] : table.offsets[4]],
        table.rewards[table.offsets[3] : table.offsets[4]],
        table.rho[table.offsets[3] : table.offsets[4]],
        np.array([0, table.offsets[4] - table.offsets[3]]),
        table.gamma,
    )
    m = dataset_moments(single)
    expected = np.concatenate([-m.A.T @ w, m.A @ theta + m.C @ w - m.b])
    np.testing.assert_allclose(gradient, expected, atol=1e-12)


@pytest.mark.parametrize("normalisation", ["mean", "paper"])
def test_the_affine_operators_give_the_gradients_of_eq_4_1(normalisation):
    rng = np.random.default_rng(1)
    lengths = rng.integers(2, 6, size=12)
    steps = int(lengths.sum())
    table = TransitionTable(
        rng.standard_normal((steps, 5)),
        rng.standard_normal((steps, 5)),
        rng.uniform(-1.0, 1.0, steps),
        rng.uniform(0.5, 2.0, steps),
        np.concatenate([[0], np.cumsum(lengths)]),
        0.9,
    )
    theta, w = rng.standard_normal(5), rng.standard_normal(5)
    linear, constant = primal_dual_operators(table, normalisation=normalisation)
    picks = np.arange(table.n_trajectories)
    expected = primal_dual_gradients(table, picks, theta, w, normalisation=normalisation)
    np.testing.assert_allclose(linear @ np.concatenate([theta, w]) + constant, expected, rtol=1e-12, atol=1e-12)


def test_runs_side_by_side_follow_the_law_of_one_run():
    """release(size=n) iterates n runs together; each has the law of run() (two-sample KS per coordinate)."""
    from scipy.stats import ks_2samp

    _, table = _chain_table(m=8)
    mechanism = GPOPE(clip_norm=0.5, noise_multiplier=1.0, iterations=30)
    together = mechanism.release(table, rng=3, size=3000)
    one_by_one = np.stack([mechanism.run(table, rng=seed).theta for seed in np.random.default_rng(4).spawn(3000)])
    p_values = [ks_2samp(together[:, j], one_by_one[:, j]).pvalue for j in range(5)]
    assert min(p_values) > 0.001 / 5, p_values
    one_trajectory = _chain_table(m=1)[1]  # nothing random left without noise: the same numbers
    noiseless = GPOPE(clip_norm=0.5, noise_multiplier=0.0, iterations=30)
    expected = noiseless.run(one_trajectory, rng=5).theta
    np.testing.assert_allclose(noiseless.release(one_trajectory, rng=6, size=2), [expected, expected], atol=1e-12)


def test_clipping_and_noise_scale():
    mechanism = GPOPE(clip_norm=0.5, noise_multiplier=2.0, iterations=10)
    clipped, flags = mechanism.clip_gradients(np.array([[3.0, 4.0], [0.1, 0.0]]))
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=1), [0.5, 0.1])
    assert flags.tolist() == [True, False]
    assert mechanism.per_step_view(100)["noise_std"] == 1.0
    assert mechanism.per_step_view(100)["sampling_probability"] == 0.01


def test_release_is_reproducible_and_noisy():
    _, table = _chain_table(m=50)
    mechanism = GPOPE(clip_norm=1.0, noise_multiplier=1.0, iterations=200)
    first = mechanism.release(table, rng=7, size=3)
    np.testing.assert_array_equal(first, mechanism.release(table, rng=7, size=3))
    assert first.shape == (3, 5) and not np.allclose(first[0], first[1])


def test_paper_calibration_constants():
    sigma = paper_noise_multiplier(0.1, 1e-5, 10000, 10000)
    assert sigma == pytest.approx(max(2 * math.sqrt(10000 * math.log(1e5)) / (10000 * 0.1), math.sqrt(1 / math.log(2))))
    assert paper_noise_multiplier(0.1, 1e-5, 100, 10000, version="paper_b26") == pytest.approx(
        2 * paper_noise_multiplier(0.1, 1e-5, 100, 10000)
    )
    assert paper_noise_multiplier(10.0, 0.1, 10**6, 1) == pytest.approx(math.sqrt(1 / math.log(2)))


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"clip_norm": 0.0}, "clip_norm=0.0"),
        ({"clip_norm": -1.0}, "clip_norm=-1.0"),
        ({"noise_multiplier": -0.1}, "noise_multiplier=-0.1"),
        ({"iterations": 0}, "iterations=0"),
        ({"normalisation": "sum"}, "normalisation='sum'"),
        ({"step_sizes": {"schedule": "theorem3", "eta": 0.5}}, "eta > 1"),
    ],
)
def test_bad_parameters(kwargs, fragment):
    with pytest.raises(InvalidArgument, match=fragment.replace("(", r"\(")):
        GPOPE(**kwargs)


def test_bad_data():
    with pytest.raises(InvalidArgument, match="at least one trajectory"):
        TransitionTable.from_trajectories((), np.eye(2), 0.9)
    target = MarkovPolicy(np.array([[0.5, 0.5], [1.0, 0.0]]))
    behaviour = MarkovPolicy(np.array([[1.0, 0.0], [1.0, 0.0]]))
    trajectory = Trajectory((0, 1), (0, 0), (0.0, 1.0))
    with pytest.raises(InvalidArgument, match=r"pi_b\(a=1\|s=0\) = 0"):
        TransitionTable.from_trajectories((trajectory,), np.eye(2), 0.9, target=target, behaviour=behaviour)
    short = TransitionTable.from_trajectories((Trajectory((0,), (0,), (1.0,)),), np.eye(2), 0.9)
    with pytest.raises(InvalidArgument, match="tau_i = 0"):
        dataset_moments(short, normalisation="paper")


def _episode(observations, actions, rewards, terminated):
    from dpaudit.rl import Episode

    return Episode(np.asarray(observations, dtype=float), np.asarray(actions), np.asarray(rewards, float), terminated)


def _square_basis(observations):
    x = np.asarray(observations)
    return np.stack([np.ones(x.shape[0]), x[:, 0], x[:, 0] ** 2], axis=1)


def test_from_episodes_features_and_terminal_successor():
    done = _episode([[0.0], [1.0], [2.0]], [0, 1], [1.0, -1.0], True)
    capped = _episode([[3.0], [4.0]], [1], [0.5], False)
    table = TransitionTable.from_episodes((done, capped), _square_basis, 0.9)
    np.testing.assert_array_equal(table.offsets, [0, 2, 3])
    np.testing.assert_array_equal(table.phi, _square_basis([[0.0], [1.0], [3.0]]))
    np.testing.assert_array_equal(table.phi_next, [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 4.0, 16.0]])
    np.testing.assert_array_equal(table.rewards, [1.0, -1.0, 0.5])
    np.testing.assert_array_equal(table.rho, [1.0, 1.0, 1.0])


def test_from_episodes_importance_ratios_and_moments():
    from dpaudit.reproduce.behaviour_policies import FixedActionDistribution

    target, behaviour = FixedActionDistribution([0.5, 0.5]), FixedActionDistribution([0.8, 0.2])
    episode = _episode([[0.0], [0.5], [1.0], [1.5]], [0, 1, 1], [1.0, 2.0, 3.0], False)
    table = TransitionTable.from_episodes(
        (episode,), _square_basis, 0.5, target=target.probabilities, behaviour=behaviour.probabilities
    )
    np.testing.assert_allclose(table.rho, [0.625, 2.5, 2.5])
    moments = dataset_moments(table)
    phi, nxt = _square_basis([[0.0], [0.5], [1.0]]), _square_basis([[0.5], [1.0], [1.5]])
    direct = sum(r * np.outer(p, p - 0.5 * q) for r, p, q in zip(table.rho, phi, nxt, strict=False)) / 3
    np.testing.assert_allclose(moments.A, direct, atol=1e-14)


def test_from_episodes_mountain_car_off_policy():
    from dpaudit.reproduce.behaviour_policies import VelocityFollowingPolicy
    from dpaudit.rl import (
        FourierBasis,
        MountainCar,
        UniformActionPolicy,
        sample_episodes,
    )

    env, behaviour = MountainCar(), VelocityFollowingPolicy(0.8)
    episodes = sample_episodes(env, behaviour, 3, rng=4, max_steps=50)
    basis = FourierBasis(2, env.observation_low, env.observation_high)
    table = TransitionTable.from_episodes(
        episodes, basis, 0.99, target=UniformActionPolicy(3).probabilities, behaviour=behaviour.probabilities
    )
    assert table.n_features == 9 and table.n_trajectories == 3
    assert set(np.round(table.rho, 12)) <= {round(1 / 3 / 0.8, 12), round(1 / 3 / 0.1, 12)}


@pytest.mark.parametrize(
    ("episodes", "kwargs", "fragment"),
    [
        ((), {}, "at least one episode"),
        ((_episode([[0.0]], np.zeros(0, int), [], False),), {}, "no step"),
        (("not an episode",), {}, "expected an Episode"),
        ((_episode([[0.0], [1.0]], [1], [0.0], False),), {"target": lambda o: [0.5, 0.5]}, "give both"),
        (
            (_episode([[0.0], [1.0]], [0], [0.0], False),),
            {"target": lambda o: [0.5, 0.5], "behaviour": lambda o: [1.0, 0.0]},
            r"pi_b\(a=1\|o\) = 0 while",
        ),
        (
            (_episode([[0.0], [1.0]], [1], [0.0], False),),
            {"target": lambda o: [1.0, 0.0], "behaviour": lambda o: [1.0, 0.0]},
            "yet the data took action 1",
        ),
        (
            (_episode([[0.0], [1.0]], [0], [0.0], False),),
            {"target": lambda o: [0.5, 0.6], "behaviour": lambda o: [0.5, 0.5]},
            "sums to",
        ),
        (
            (_episode([[0.0], [1.0]], [0], [0.0], False),),
            {"target": lambda o: [float("nan"), 1.0], "behaviour": lambda o: [0.5, 0.5]},
            "target probabilities",
        ),
        (
            (_episode([[0.0], [1.0]], [2], [0.0], False),),
            {"target": lambda o: [0.5, 0.5], "behaviour": lambda o: [0.5, 0.5]},
            "covering every action",
        ),
    ],
)
def test_from_episodes_rejects_bad_input(episodes, kwargs, fragment):
    with pytest.raises(InvalidArgument, match=fragment):
        TransitionTable.from_episodes(episodes, _square_basis, 0.9, **kwargs)


def test_from_episodes_rejects_a_basis_of_the_wrong_shape():
    episode = _episode([[0.0], [1.0]], [0], [0.0], False)
    with pytest.raises(InvalidArgument, match="one feature row per observation"):
        TransitionTable.from_episodes((episode,), lambda x: np.ones((1, 3)), 0.9)


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("clip_norm", 0.0, False),
        ("clip_norm", -0.0, False),
        ("clip_norm", float("nan"), False),
        ("clip_norm", float("inf"), False),
        ("clip_norm", -1e-300, False),
        ("clip_norm", 5e-324, True),
        ("clip_norm", 1 - 2**-53, True),
        ("noise_multiplier", -1e-300, False),
        ("noise_multiplier", float("nan"), False),
        ("noise_multiplier", float("inf"), False),
        ("noise_multiplier", 0.0, True),
        ("noise_multiplier", -0.0, True),
        ("noise_multiplier", 5e-324, True),
        ("noise_multiplier", 1 - 2**-53, True),
    ],
)
def test_clip_norm_and_noise_multiplier_table(name, value, valid):
    if valid:
        assert GPOPE(**{name: value}).per_step_view(3)["clip_norm"] > 0
    else:
        with pytest.raises(InvalidArgument, match=name):
            GPOPE(**{name: value})


def test_gradients_gathered_in_blocks_equal_one_gather():
    from dpaudit.mechanisms.gpope import _affine_gradients

    rng = np.random.default_rng(2)
    linear, constant = rng.standard_normal((3, 1024, 1024)), rng.standard_normal((3, 1024))  # blocks of 4 runs
    picks, state = rng.integers(3, size=10), rng.standard_normal((10, 1024))
    expected = np.einsum("kij,kj->ki", linear[picks], state) + constant[picks]
    np.testing.assert_allclose(_affine_gradients(linear, constant, picks, state), expected, rtol=1e-12, atol=1e-12)
