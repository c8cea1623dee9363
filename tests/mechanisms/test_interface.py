"""Contract tests of the Mechanism interface: every built-in mechanism is one consistent object."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.kinds import candidate_kind_for, candidate_kinds
from dpaudit.audit.plugins import applicable_checkers
from dpaudit.audit.spec import load_spec
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue import BUILTIN_MECHANISMS, get_mechanism, list_mechanisms
from dpaudit.mechanisms.views import is_view
from dpaudit.privacy.relations import Relation, add_remove_one, replace_one, simplex_adjacent
from dpaudit.rl.trajectory import Trajectory

SPECS = sorted((Path(__file__).parents[2] / "specs").rglob("*.toml"))


def test_every_builtin_is_listed_once():
    names = [mechanism.name for mechanism in BUILTIN_MECHANISMS]
    assert len(names) == len(set(names))
    assert {mechanism.name for mechanism in list_mechanisms()} >= set(names)
    expected = {"gaussian", "laplace", "smooth_gaussian", "dp_lsw", "dp_lsl", "gpope_step", "gpope", "dirichlet"}
    expected |= {"private_synthesis"}
    assert expected <= set(names)


@pytest.mark.parametrize("mechanism", BUILTIN_MECHANISMS, ids=lambda mechanism: mechanism.name)
def test_declared_parts_are_consistent(mechanism):
    assert all(is_view(view) for view in mechanism.views)
    assert mechanism.relations
    for relation in mechanism.relations:
        assert relation in {"replace_one", "add_remove_one", "simplex_adjacent", "row_adjacent", "user"}
    assert mechanism.output.description
    assert mechanism.candidate is not None
    assert mechanism.candidate.text.startswith(f"{mechanism.name}({mechanism.candidate.first_argument},")
    assert candidate_kind_for(mechanism.name) is mechanism


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_references_offer_the_views_they_declare(path):
    claim = load_spec(path)
    mechanism = get_mechanism(claim.mechanism.name)
    reference = mechanism.build(claim.mechanism.params)
    for view in mechanism.views:
        assert isinstance(reference, view), f"{mechanism.name} declares {view.__name__} but its reference lacks it"
    applicable = {entry.name for entry in applicable_checkers(mechanism)}
    for obligation in claim.obligations:
        assert obligation.checker in applicable


def test_a_checker_needing_a_view_is_not_applicable_without_it():
    names = {entry.name for entry in applicable_checkers(get_mechanism("dirichlet"))}
    assert "privacy_loss_histogram" not in names  # needs GaussianView
    assert "exact_privacy_profile" not in names  # needs PrivacyProfileView
    assert "exact_privacy_profile" in {entry.name for entry in applicable_checkers(get_mechanism("laplace"))}


def _trajectory(*steps: tuple[int, int, float]) -> Trajectory:
    states, actions, rewards = zip(*steps, strict=True)
    return Trajectory(states, actions, rewards)


@pytest.mark.parametrize(
    ("first", "second", "relation", "neighbours"),
    [
        ([[[0, 0, 1.0]], [[1, 0, 0.0]]], [[[0, 0, 1.0]], [[2, 0, 0.0]]], replace_one(), True),
        ([[[0, 0, 1.0]], [[1, 0, 0.0]]], [[[3, 0, 1.0]], [[2, 0, 0.0]]], replace_one(), False),
        ([[[0, 0, 1.0]]], [[[0, 0, 1.0]], [[2, 0, 0.0]]], add_remove_one(), True),
        ([[[0, 0, 1.0]]], [[[0, 0, 1.0]], [[2, 0, 0.0]]], replace_one(), False),
        ([[[0, 0, 1.0]]], [[[1, 0, 1.0]], [[2, 0, 0.0]]], add_remove_one(), False),
    ],
)
def test_trajectory_neighbourhood(first, second, relation, neighbours):
    dp_lsw = get_mechanism("dp_lsw")
    a, b = dp_lsw.input_domain.from_plain(first), dp_lsw.input_domain.from_plain(second)
    assert dp_lsw.input_domain.to_plain(a) == [[[int(s), int(x), float(r)] for s, x, r in t] for t in first]
    if neighbours:
        assert dp_lsw.check_neighbours(a, b, relation, {}) <= 1
    else:
        with pytest.raises(InvalidArgument, match="not neighbours"):
            dp_lsw.check_neighbours(a, b, relation, {})


def test_simplex_adjacency_uses_the_relation_bound():
    dirichlet = get_mechanism("dirichlet")
    assert dirichlet.check_neighbours([0.2, 0.8], [0.3, 0.7], simplex_adjacent(0.2), {"k": 1.0}) == pytest.approx(0.2)
    with pytest.raises(InvalidArgument, match="not neighbours"):
        dirichlet.check_neighbours([0.2, 0.8], [0.3, 0.7], simplex_adjacent(0.1), {"k": 1.0})
    with pytest.raises(InvalidArgument, match="not neighbours"):  # a third past the radius, not only twice it
        dirichlet.check_neighbours([0.2, 0.8], [0.3, 0.7], simplex_adjacent(0.15), {"k": 1.0})
    with pytest.raises(InvalidArgument, match="not neighbours"):
        dirichlet.check_neighbours([0.2, 0.3, 0.5], [0.3, 0.2, 0.4], simplex_adjacent(2.0), {"k": 1.0})
    with pytest.raises(InvalidArgument, match="audited under"):
        dirichlet.check_neighbours([0.2, 0.8], [0.3, 0.7], Relation("replace_one"), {"k": 1.0})


def test_gradient_records_and_gpope_tables_round_trip():
    step = get_mechanism("gpope_step")
    records = np.array([[0.0, 1.0], [2.0, 3.0]])
    assert step.check_neighbours(records, np.array([[0.0, 1.0], [5.0, 3.0]]), replace_one(), {}) == 1.0
    gpope = get_mechanism("gpope")
    table = {
        "phi": [[1.0, 0.0], [0.0, 1.0]],
        "phi_next": [[0.0, 1.0], [0.0, 0.0]],
        "rewards": [0.0, 1.0],
        "rho": [1.0, 1.0],
        "offsets": [0, 1, 2],
        "gamma": 0.9,
    }
    assert gpope.input_domain.to_plain(gpope.input_domain.from_plain(table)) == table
    shorter = {
        **table,
        "phi": [[1.0, 0.0]],
        "phi_next": [[0.0, 1.0]],
        "rewards": [0.0],
        "rho": [1.0],
        "offsets": [0, 1],
    }
    assert gpope.check_neighbours(table, shorter, add_remove_one(), {}) == 1.0


def test_smooth_gaussian_neighbours_follow_lemma1():
    smooth = get_mechanism("smooth_gaussian")
    params = {"epsilon": 1.0, "delta": 1e-5, "dim": 2}
    beta = smooth.build(params).parameters.beta
    first = {"theta": [0.0, 0.0], "smooth_bound": 1.0}
    assert smooth.check_neighbours(first, {"theta": [0.6, 0.0], "smooth_bound": 1.0}, replace_one(), params) <= 1
    with pytest.raises(InvalidArgument, match="not neighbours"):
        smooth.check_neighbours(
            first, {"theta": [0.0, 0.0], "smooth_bound": float(np.exp(beta))}, replace_one(), params
        )


def test_candidate_inputs_are_plain_values():
    gaussian = candidate_kind_for("gaussian")
    assert gaussian.input_domain.to_plain(np.array([1.5])) == [1.5]
    assert [kind.name for kind in candidate_kinds()] == sorted(kind.name for kind in candidate_kinds())


def test_private_synthesis_releases_transitions_and_checks_row_adjacency():
    synthesis = get_mechanism("private_synthesis")
    transitions = [[[0.2, 0.8], [0.5, 0.5]], [[0.9, 0.1], [0.3, 0.7]]]
    draws = synthesis.sample({"k": 50.0}, transitions, 4, np.random.default_rng(0))
    assert draws.shape == (4, 2, 2, 2)
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0)
    moved = [[[0.25, 0.75], [0.5, 0.5]], [[0.85, 0.15], [0.3, 0.7]]]
    assert synthesis.check_neighbours(transitions, moved, simplex_adjacent(0.1), {"k": 50.0}) == pytest.approx(0.1)
    with pytest.raises(InvalidArgument, match="not neighbours"):
        synthesis.check_neighbours(transitions, moved, simplex_adjacent(0.05), {"k": 50.0})
