"""`dpaudit reproduce xie2019`: the output folder, determinism, the GPOPE accountant and the fixed policies."""

import csv
import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gpope import paper_noise_multiplier
from dpaudit.reproduce.behaviour_policies import (
    FixedActionDistribution,
    VelocityFollowingPolicy,
)
from dpaudit.reproduce.gpope_accounting import (
    gpope_epsilon_add_remove,
    gpope_noise_multiplier_add_remove,
)
from dpaudit.reproduce.xie2019 import run
from dpaudit.reproduce.xie2019_config import Xie2019Config, iterations_for

EXPECTED_FILES = {
    "summary.md",
    "noise_multipliers.csv",
    "fig1a_chain_mspbe_vs_m.csv",
    "fig1a_chain_mspbe_vs_m.svg",
    "fig1b_chain_mspbe_vs_step_size.csv",
    "fig1b_chain_mspbe_vs_step_size.svg",
    "fig2b_mountain_car_mspbe_vs_iteration.csv",
    "fig2b_mountain_car_mspbe_vs_iteration.svg",
    "fig2b_mountain_car_final.csv",
    "hiv_relative_mspbe_vs_iteration.csv",
    "hiv_relative_mspbe_vs_iteration.svg",
    "hiv_final.csv",
}


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    return run(first, quick=True, seed=3, config=Xie2019Config.tiny()), run(
        second, quick=True, seed=3, config=Xie2019Config.tiny()
    )


def test_tiny_run_writes_every_file(tiny_runs):
    summary = tiny_runs[0]
    assert {path.name for path in summary.parent.iterdir()} == EXPECTED_FILES
    text = summary.read_text()
    for fragment in (
        "## Claims of Sec. 7",
        "order of magnitude",
        "very wide range of step sizes",
        "relative MSPBE",
        "| chain | 50 |",
        "load average",
    ):
        assert fragment in text
    for svg in summary.parent.glob("*.svg"):
        assert svg.read_text().startswith("<svg")
    with (summary.parent / "fig1a_chain_mspbe_vs_m.csv").open() as handle:
        methods = {row["method"] for row in csv.DictReader(handle)}
    assert {
        "DP-LSW",
        "DP-LSL (lambda = sqrt(m))",
        "LSTD (non-private)",
        "GPOPE (paper sigma, tuned step)",
        "GPOPE (dpaudit sigma, tuned step)",
    } <= methods


def test_same_seed_same_tables_and_figures(tiny_runs):
    first, second = (summary.parent for summary in tiny_runs)
    for name in sorted(EXPECTED_FILES - {"summary.md"}):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_noise_multipliers_table(tiny_runs):
    with (tiny_runs[0].parent / "noise_multipliers.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    chain = [row for row in rows if row["domain"] == "chain"]
    for row in chain:
        m, n = int(row["m"]), int(row["iterations"])
        assert float(row["paper_sigma_b32"]) == pytest.approx(paper_noise_multiplier(0.1, 1e-5, m, n), rel=1e-5)
        assert float(row["dpaudit_sigma_add_remove"]) >= float(row["paper_sigma_b32"])


def test_iterations_for_puts_the_paper_sigma_at_its_floor():
    n = iterations_for(10000, 0.1, 1e-5, (1, 10**9))
    floor = math.sqrt(1 / math.log(2))
    assert paper_noise_multiplier(0.1, 1e-5, 10000, n) == pytest.approx(floor)
    assert 2 * math.sqrt((n + 1) * math.log(1e5)) / (10000 * 0.1) > floor
    assert iterations_for(10, 0.1, 1e-5, (200, 4000)) == 200
    assert iterations_for(10**6, 0.1, 1e-5, (200, 4000)) == 4000


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"chain_sizes": (1, 10)}, "chain_sizes"),
        ({"chain_sizes": ()}, "chain_sizes"),
        ({"iteration_range": (10, 5)}, "iteration_range"),
        ({"trials": 0}, "trials=0"),
        ({"sensitivity_m": 1}, "sensitivity_m"),
    ],
)
def test_bad_configuration(changes, fragment):
    from dataclasses import asdict

    fields = asdict(Xie2019Config.tiny()) | changes
    with pytest.raises(InvalidArgument, match=fragment):
        Xie2019Config(**fields)


def test_calibrated_sigma_meets_the_target_and_is_nearly_smallest():
    sigma = gpope_noise_multiplier_add_remove(1.0, 1e-5, 100, 50)
    assert gpope_epsilon_add_remove(sigma, 1e-5, 100, 50) <= 1.0
    assert gpope_epsilon_add_remove(sigma / 1.03, 1e-5, 100, 50) > 1.0
    assert gpope_epsilon_add_remove(2 * sigma, 1e-5, 100, 50) < gpope_epsilon_add_remove(sigma, 1e-5, 100, 50)


def test_accountant_is_conservative_against_the_unsampled_gaussian_bound():
    """With q = 1/2 and one step, ε must stay below the unsampled Gaussian's classic RDP bound at sensitivity 2h."""
    sigma = 4.0
    bound = min(a / (2 * (sigma / 2) ** 2) + math.log(1e5) / (a - 1) for a in range(2, 257))
    assert gpope_epsilon_add_remove(sigma, 1e-5, 2, 1) <= bound


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ((0.0, 1e-5, 10, 5), "noise_multiplier"),
        ((-1.0, 1e-5, 10, 5), "noise_multiplier"),
        ((float("nan"), 1e-5, 10, 5), "noise_multiplier"),
        ((1.0, 0.0, 10, 5), "delta"),
        ((1.0, 1.0, 10, 5), "delta"),
        ((1.0, 1e-5, 1, 5), "m=1"),
        ((1.0, 1e-5, 10, 0), "iterations=0"),
    ],
)
def test_accountant_rejects_bad_arguments(arguments, fragment):
    with pytest.raises(InvalidArgument, match=fragment):
        gpope_epsilon_add_remove(*arguments)


def test_velocity_following_policy_covers_every_action():
    policy = VelocityFollowingPolicy(0.8)
    np.testing.assert_allclose(policy.probabilities(np.array([-0.5, -0.01])), [0.8, 0.1, 0.1])
    np.testing.assert_allclose(policy.probabilities(np.array([-0.5, 0.0])), [0.1, 0.1, 0.8])
    draws = [policy(np.array([-0.5, 0.02]), np.random.default_rng(s)) for s in range(200)]
    assert set(draws) == {0, 1, 2}
    for bad in (1 / 3, 1.0, float("nan"), 0.0, -0.0):
        with pytest.raises(InvalidArgument, match="follow"):
            VelocityFollowingPolicy(bad)


def test_fixed_action_distribution():
    policy = FixedActionDistribution([0.25, 0.75])
    assert policy.probabilities(None).tolist() == [0.25, 0.75]
    with pytest.raises(InvalidArgument, match="weights"):
        FixedActionDistribution([0.5, 0.6])


def test_chunked_evaluation_moments_equal_the_moments_of_the_whole_sample(monkeypatch):
    from dpaudit.mechanisms.gtd2 import dataset_moments
    from dpaudit.reproduce import xie2019
    from dpaudit.rl import Chain

    chain = Chain(n_states=6)
    monkeypatch.setattr(xie2019, "EVALUATION_CHUNK", 7)
    chunked = xie2019._chain_evaluation_moments(chain, 17, np.random.SeedSequence(1))
    children = np.random.SeedSequence(1).spawn(3)
    tables = [xie2019._chain_table(chain, size, child)[1] for size, child in zip((7, 7, 3), children, strict=False)]
    from dpaudit.mechanisms.gtd2 import TransitionTable

    whole = TransitionTable(
        np.vstack([t.phi for t in tables]),
        np.vstack([t.phi_next for t in tables]),
        np.concatenate([t.rewards for t in tables]),
        np.concatenate([t.rho for t in tables]),
        np.concatenate([[0], np.cumsum(np.concatenate([t.lengths for t in tables]))]),
        tables[0].gamma,
    )
    expected = dataset_moments(whole)
    for name in ("A", "b", "C"):
        np.testing.assert_allclose(getattr(chunked, name), getattr(expected, name), atol=1e-14)
