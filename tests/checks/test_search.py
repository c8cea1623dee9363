"""Hypothesis counterexample search: finds and shrinks planted violations, stays silent on the reference."""

import pytest
from hypothesis import given, settings

from dpaudit.checks.sensitivity.lemma1_conditions import lemma1_constants_exact
from dpaudit.checks.sensitivity.search import (
    chain_universes,
    neighbouring_pairs,
    search_sensitivity_violation,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.policy_evaluation.private import DPLSW
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import chain_universe
from tests.checks.test_sensitivity import TIGHT_LSW, PlusOneDenominatorLSW

ALPHA = float(lemma1_constants_exact("main_text", epsilon=20.0, delta=0.5, d=5)[0])


@pytest.fixture(scope="module")
def universe():
    return chain_universe(5, "1/2", "15/16", 3)


def _search(mechanism, universe, relation, seed=0, examples=300):
    return search_sensitivity_violation(
        lambda data: mechanism.gaussian_view(data)[0],
        lambda data: mechanism.gaussian_view(data)[1] / ALPHA,
        universe=universe,
        relation=relation,
        m_max=3,
        max_examples=examples,
        seed=seed,
    )


@pytest.mark.parametrize("relation, examples", [("replace_one", 300), ("add_remove_one", 3000)])
def test_search_finds_and_shrinks_the_plus_one_mutant(universe, relation, examples):
    result = _search(PlusOneDenominatorLSW(**TIGHT_LSW), universe, relation, examples=examples)
    assert result.found
    assert result.measured > result.bound
    assert max(len(result.dataset), len(result.neighbour)) == 2


def test_search_is_reproducible(universe):
    first = _search(PlusOneDenominatorLSW(**TIGHT_LSW), universe, "replace_one", seed=5)
    second = _search(PlusOneDenominatorLSW(**TIGHT_LSW), universe, "replace_one", seed=5)
    assert first == second


def test_search_finds_nothing_on_the_reference(universe):
    result = _search(DPLSW(**TIGHT_LSW), universe, "replace_one")
    assert not result.found and result.examples == 300


@settings(max_examples=25, deadline=None)
@given(
    chain_universes(max_states=3, max_horizon=3).flatmap(
        lambda u: neighbouring_pairs(len(u), 3, "add_remove_one").map(lambda pair: (u, pair))
    )
)
def test_add_remove_pairs_differ_by_one_trajectory(example):
    _, (left, right) = example
    assert abs(len(left) - len(right)) == 1
    assert min(len(left), len(right)) >= 1 and max(len(left), len(right)) <= 3


def test_neighbouring_pairs_rejects_unknown_relations():
    with pytest.raises(InvalidArgument):
        neighbouring_pairs(3, 2, "simplex_adjacent")
