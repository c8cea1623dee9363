"""The input search of private_synthesis: several rows at once, rows at the simplex's boundary,
always neighbours inside the claim's domain (eta, structural zeros)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.checks.empirical.input_search import MAX_SEARCHED_PAIRS, searched_pairs
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.privacy.dirichlet_worst_case import worst_pair_delta
from dpaudit.privacy.relations import parse_relation
from tests.candidate_audits import obligation_evidence

KIND = get_mechanism("private_synthesis")
EXAMPLE = builtin_spec_dir() / "examples" / "private_synthesis_candidate.toml"
CANDIDATES = str(Path(__file__).parent)
TWO_STATES = ([[[0.2, 0.8]], [[0.5, 0.5]]], [[[0.3, 0.7]], [[0.5, 0.5]]])
THREE_STATES = (
    [[[0.2, 0.3, 0.5]], [[0.4, 0.3, 0.3]], [[0.3, 0.3, 0.4]]],
    [[[0.3, 0.2, 0.5]], [[0.4, 0.3, 0.3]], [[0.3, 0.3, 0.4]]],
)
#: Two actions; under 'keep' P(1, 0) has one possible successor and P(0, 1), P(2, 1) a zero.
WITH_ZEROS = (
    [[[0.0, 0.2, 0.8], [0.5, 0.5, 0.0]], [[0.0, 0.0, 1.0], [0.3, 0.3, 0.4]], [[0.25, 0.25, 0.5], [0.1, 0.0, 0.9]]],
    [[[0.0, 0.3, 0.7], [0.5, 0.5, 0.0]], [[0.0, 0.0, 1.0], [0.3, 0.3, 0.4]], [[0.25, 0.25, 0.5], [0.1, 0.0, 0.9]]],
)
CASES = [
    ("simplex_adjacent(0.2)", {"k": 5.0, "eta": 0.2}, [TWO_STATES, THREE_STATES]),
    ("simplex_adjacent(0.2)", {"k": 5.0}, [TWO_STATES, THREE_STATES]),
    ("row_adjacent(0.2)", {"k": 5.0, "eta": 0.2}, [TWO_STATES, THREE_STATES]),
    ("row_adjacent(0.2)", {"k": 5.0}, [TWO_STATES, THREE_STATES]),
    ("simplex_adjacent(0.05)", {"k": 2.0, "eta": 0.3}, [TWO_STATES]),
    ("simplex_adjacent(0.2)", {"k": 5.0, "eta": 0.1, "structural_zeros": "keep"}, [WITH_ZEROS]),
    ("row_adjacent(0.2)", {"k": 5.0, "structural_zeros": "keep"}, [WITH_ZEROS]),
]


def _explored(relation, params, pairs):
    return KIND.neighbourhood.explore(pairs, params, parse_relation(relation))


def _rows_changed(first, second):
    a, b = np.asarray(first), np.asarray(second)
    return int(np.count_nonzero((a != b).any(axis=-1)))


@pytest.mark.parametrize(("relation", "params", "pairs"), CASES)
def test_every_proposal_is_a_neighbouring_pair_the_reference_accepts(relation, params, pairs):
    explored = _explored(relation, params, pairs)
    assert explored
    reference = build_mechanism("private_synthesis", params)
    bound = parse_relation(relation).bound
    for first, second, label in explored:
        assert label.startswith("search: ")
        distance = KIND.check_neighbours(first, second, parse_relation(relation), params)
        assert 0 < distance <= bound * (1 + 1e-9), label
        for data in (first, second):
            reference.release(data, rng=np.random.default_rng(0))
            entries = np.asarray(data)
            assert entries[entries > 0].min() >= params.get("eta", 0.0)


def test_every_row_moves_first_where_every_row_may_differ_and_one_row_otherwise():
    every_row = _explored("simplex_adjacent(0.2)", {"k": 5.0, "eta": 0.2}, [TWO_STATES, THREE_STATES])
    first, second, label = every_row[0]
    assert label == (
        "search: rows at the simplex's boundary (smallest entries 0.2), every row: "
        "b/2 moved onto the row's smallest entry"
    )
    assert first == [[[0.2, 0.8]], [[0.2, 0.8]]]
    assert np.allclose(second, [[[0.3, 0.7]], [[0.3, 0.7]]])
    rank = {"every row": 0, "rows P(0, 0) and P(1, 0)": 1, "alone": 2}
    ranks = [next(r for text, r in rank.items() if text in label) for _, _, label in every_row]
    assert ranks == sorted(ranks) and set(ranks) == {0, 1, 2}  # every row, then two rows, then one
    assert {_rows_changed(a, b) for a, b, _ in every_row} == {1, 2, 3}
    one_row = _explored("row_adjacent(0.2)", {"k": 5.0, "eta": 0.2}, [TWO_STATES, THREE_STATES])
    assert {_rows_changed(a, b) for a, b, _ in one_row} == {1}
    # the first row and the last: a leak of the rows the spec never moves shows too
    assert {re.search(r"row P\(\d, 0\) alone", label).group() for _, _, label in one_row} == {
        "row P(0, 0) alone",
        "row P(1, 0) alone",
        "row P(2, 0) alone",
    }


@pytest.mark.parametrize(("params", "floors"), [({"k": 5.0, "eta": 0.2}, {0.2}), ({"k": 5.0}, {1e-3, 0.01})])
def test_rows_at_the_boundary_move_onto_and_off_their_smallest_entry(params, floors):
    explored = _explored("simplex_adjacent(0.2)", params, [TWO_STATES])
    boundary = [(a, b, label) for a, b, label in explored if "boundary" in label]
    assert {float(np.min(a)) for a, _, label in boundary if "onto" in label} == floors
    assert {float(np.min(b)) for _, b, label in boundary if "off" in label} == floors
    for floor in floors:
        onto = next(b for a, b, label in boundary if "onto" in label and np.min(a) == floor)
        assert np.min(onto) == pytest.approx(floor + 0.1)  # b/2 moved onto the smallest entry
    labels = {label for _, _, label in explored}
    assert any(label.startswith("search: uniform rows, every row") for label in labels)
    assert any(label.startswith("search: the spec's input 1, every row") for label in labels)
    # without eta, b/2 off the spec's smallest entry 0.2 leaves 0.1 (the domain is the open simplex)
    if "eta" not in params:
        off = next(
            b
            for a, b, label in explored
            if label.startswith("search: the spec's input 1, every row") and "off" in label
        )
        assert off[0][0] == pytest.approx([0.1, 0.9])


def test_structural_zeros_stay_where_the_spec_has_them():
    params = {"k": 5.0, "eta": 0.1, "structural_zeros": "keep"}
    explored = _explored("simplex_adjacent(0.2)", params, [WITH_ZEROS])
    zeros = np.asarray(WITH_ZEROS[0]) == 0.0
    for first, second, _ in explored:
        assert np.array_equal(np.asarray(first) == 0.0, zeros)
        assert np.array_equal(np.asarray(second) == 0.0, zeros)
        assert np.asarray(first)[1, 0].tolist() == [0.0, 0.0, 1.0]  # one possible successor: never moves
    assert explored[0][0][0][0] == [0.0, 0.1, 0.9]  # a row at the boundary on its support
    with pytest.raises(ValueError, match="zero"):  # under 'reject' such inputs are outside the domain
        KIND.check_neighbours(*WITH_ZEROS, parse_relation("simplex_adjacent(0.2)"), {"k": 5.0})
    assert _explored("simplex_adjacent(0.2)", {"k": 5.0}, [WITH_ZEROS]) == []


def test_a_spec_matrix_below_eta_is_no_start_but_its_shape_is():
    explored = _explored("simplex_adjacent(0.05)", {"k": 2.0, "eta": 0.3}, [TWO_STATES])
    labels = [label for _, _, label in explored]
    assert not any("the spec's input 1" in label for label in labels)  # (0.2, 0.8): below eta
    assert any("the spec's input 2" in label for label in labels)  # (0.3, 0.7)
    assert explored[0][0] == [[[0.3, 0.7]], [[0.3, 0.7]]]


def test_no_transition_matrix_proposes_nothing():
    assert _explored("simplex_adjacent(0.2)", {"k": 5.0}, []) == []
    assert _explored("simplex_adjacent(0.2)", {"k": 5.0}, [([[0.5, 0.5]], [[0.6, 0.4]])]) == []  # not (S, A, S)


def test_the_audit_searches_with_it_and_keeps_the_first_proposals():
    claim = load_spec(EXAMPLE)
    context = CheckContext(
        claim=replace(claim, relations=(parse_relation("simplex_adjacent(0.2)"),)),
        relation=parse_relation("simplex_adjacent(0.2)"),
        rng=np.random.default_rng(0),
        seed=np.random.SeedSequence(0),
    )
    pilot = claim.obligations[0].params["pairs"]
    given = [NeighbourPair(np.asarray(pair["first"]), np.asarray(pair["second"]), pair["label"]) for pair in pilot]
    found = searched_pairs(given, context).pairs
    assert 20 <= len(found) <= MAX_SEARCHED_PAIRS
    assert found[0].label.endswith("every row: b/2 moved onto the row's smallest entry")
    assert _rows_changed(found[0].first, found[0].second) == 2


# ---------------------------------------------------------------------------------------------
# End to end: a candidate that privatises only P(0, 0) properly leaks on the rows the spec's
# pairs never move; the input search moves them.

#: Every row may differ in a two-state, one-action MDP (the spec's and the search's shape): the
#: two rows compose. Basic composition of the worst single-row pair (k = 5, b = 0.2, entries
#: >= 0.2, two next states): 2 delta_1(2.1) <= 0.0096 <= 0.01 (test below), so (4.2, 0.01) holds.
SIMPLEX_SPEC = """
schema = 1

[claim]
id = "two-rows"
title = "Privatising a two-state MDP's transitions (k = 5, entries >= 0.2) is (4.2, 0.01)-DP when every row moves"
relations = ["simplex_adjacent(0.2)"]

[claim.source]
paper = "Gohari, Hale, Topcu 2020"
location = "Algorithm 1, step 1; Def. 2"

[claim.mechanism]
name = "private_synthesis"
params = { k = 5.0, eta = 0.2 }

[claim.guarantee]
kind = "approx_dp"
epsilon = 4.2
delta = 0.01

[[obligations]]
id = "empirical-privacy"
statement = "no event certifies epsilon > 4.2 at delta = 0.01"
checker = "empirical_epsilon_lower_bound"
params = { samples = 20000, confidence = 0.95, pairs = [
    { first = [[[0.2, 0.8]], [[0.5, 0.5]]], second = [[[0.3, 0.7]], [[0.5, 0.5]]], label = "P(0, 0) moves" },
] }
"""


def test_the_two_row_claim_holds_by_basic_composition():
    single = worst_pair_delta(2.1, 5.0, 0.2, n=2, eta=0.2, grid=100)
    assert single.at_boundary and single.shift_monotone
    assert 2 * single.delta.upper <= 0.01


def _empirical(spec, name, search):
    return obligation_evidence(
        spec, f"search_candidates:{name}", CANDIDATES, "empirical-privacy", search=search, samples=20000
    )


@pytest.mark.slow
@pytest.mark.parametrize("where", ["row_adjacent", "simplex_adjacent"])
@pytest.mark.slow  # a whole audit end to end: the main CI job runs it, not the floors one
def test_a_row_the_spec_never_moves_leaks_and_only_the_search_finds_it(where, tmp_path):
    spec = EXAMPLE
    if where == "simplex_adjacent":
        spec = tmp_path / "two_rows.toml"
        spec.write_text(SIMPLEX_SPEC)
    assert _empirical(spec, "first_row_only", "off").verdict is Verdict.CONSISTENT
    found = _empirical(spec, "first_row_only", "auto")
    assert found.verdict is Verdict.VIOLATED
    assert found.counterexample["pair"].startswith("search: ")
    assert "P(0, 0) alone" not in found.counterexample["pair"]  # a row the spec never moves
    assert _empirical(spec, "dirichlet_rows", "auto").verdict is not Verdict.VIOLATED
