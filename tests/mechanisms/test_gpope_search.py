"""The input search of end-to-end GPOPE: the differing trajectory pushed to the domain's edges,
always one trajectory apart, with the trajectory counts ``records`` asks for."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.checks.empirical.input_search import searched_pairs
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.gpope_search import SEARCH_REWARD_FACTOR
from dpaudit.privacy.relations import parse_relation
from tests.candidate_audits import obligation_evidence

KIND = get_mechanism("gpope")
EXAMPLE = builtin_spec_dir() / "examples" / "gpope_candidate.toml"
CANDIDATES = str(Path(__file__).parent)
REPLACE, ADD_REMOVE = parse_relation("replace_one"), parse_relation("add_remove_one")
PARAMS = {
    "clip_norm": 5.0,
    "noise_multiplier": 2.0,
    "iterations": 2,
    "step_sizes": {"schedule": "constant", "eta": 1.0},
    "records": 2,
}


def _table(rewards, offsets=None, phi=None, rho=None):
    rows = len(rewards)
    phi = phi or [[1.0]] * rows
    return {
        "phi": phi,
        "phi_next": [[0.5] * len(phi[0])] * rows,
        "rewards": rewards,
        "rho": rho or [1.0] * rows,
        "offsets": offsets or list(range(rows + 1)),
        "gamma": 0.9,
    }


#: Three trajectories of 2, 1 and 2 steps with two features and off-policy weights.
THREE = _table(
    [0.5, -1.0, 0.2, 0.3, 2.0],
    [0, 2, 3, 5],
    [[1.0, 0.5], [0.2, 0.1], [0.3, 0.3], [1.0, 1.0], [0.0, 1.0]],
    [1.0, 2.5, 0.5, 1.0, 0.0],
)
THREE_REPLACED = {**THREE, "rewards": [0.5, -1.0, 0.2, 0.3, -2.0]}
TWO = {key: value[:3] if key in ("phi", "phi_next", "rewards", "rho") else value for key, value in THREE.items()}
TWO["offsets"] = [0, 2, 3]
#: Two trajectories of 2 and 3 steps (eq. (2.2) as printed divides by the length - 1).
LONGER = {**THREE, "offsets": [0, 2, 5]}
SMALL = (_table([0.0, 0.0]), _table([0.0, 1.0]))
CASES = [
    (REPLACE, PARAMS, SMALL),
    (REPLACE, {**PARAMS, "records": 3}, (THREE, THREE_REPLACED)),
    (REPLACE, {**PARAMS, "normalisation": "paper"}, (LONGER, {**LONGER, "rewards": [0.5, -1.0, 0.2, 9.0, 2.0]})),
    (ADD_REMOVE, {**PARAMS, "records": 3}, (THREE, TWO)),
    (ADD_REMOVE, {**PARAMS, "records": 3}, (TWO, THREE)),
    (ADD_REMOVE, {key: value for key, value in PARAMS.items() if key != "records"}, (TWO, THREE)),
]


def _explored(relation, params, pair):
    return KIND.neighbourhood.explore([pair], params, relation)


def _trajectories(table):
    offsets = table["offsets"]
    return [
        {key: table[key][lo:hi] for key in ("phi", "phi_next", "rewards", "rho")}
        for lo, hi in itertools.pairwise(offsets)
    ]


@pytest.mark.parametrize(("relation", "params", "pair"), CASES)
def test_every_proposal_is_one_trajectory_apart_and_the_reference_accepts_it(relation, params, pair):
    explored = _explored(relation, params, pair)
    assert len(explored) >= 5
    reference = build_mechanism("gpope", params)
    counts = sorted(len(table["offsets"]) - 1 for table in pair)
    for first, second, label in explored:
        assert label.startswith("search: ")
        assert KIND.check_neighbours(first, second, relation, params) == 1.0, label
        assert sorted(len(table["offsets"]) - 1 for table in (first, second)) == counts  # records hold
        for table in (first, second):
            assert len(table["phi"][0]) == len(pair[0]["phi"][0]) and table["gamma"] == 0.9
            KIND.release(reference, table, rng=np.random.default_rng(0))
    if params.get("normalisation") == "paper":
        assert not any("single step" in label for _, _, label in explored)
        assert all(min(np.diff(t["offsets"])) >= 2 for a, b, _ in explored for t in (a, b) if t is not None)


def test_the_differing_trajectory_goes_to_the_extremes():
    params = {**PARAMS, "records": 3}
    explored = {
        label.removeprefix("search: the differing trajectory, "): (a, b)
        for a, b, label in _explored(REPLACE, params, (THREE, THREE_REPLACED))
    }
    far = SEARCH_REWARD_FACTOR * 5.0  # the clipping norm exceeds every reward seen
    first, second = explored[f"rewards {far:g} vs {-far:g} (far beyond the clipping norm h = 5)"]
    assert _trajectories(first)[2]["rewards"] == [far, far] and _trajectories(second)[2]["rewards"] == [-far, -far]
    assert _trajectories(first)[:2] == _trajectories(THREE)[:2] == _trajectories(second)[:2]
    # the others: copies of the shortest trajectory (one step), unrewarded
    first, _ = explored[f"rewards {far:g} vs {-far:g}, the others unrewarded"]
    assert (
        _trajectories(first)[:2]
        == [{"phi": [[0.3, 0.3]], "phi_next": [[0.5, 0.5]], "rewards": [0.0], "rho": [0.5]}] * 2
    )
    first, second = explored[f"a terminal unrewarded trajectory vs rewards {far:g}, the others unrewarded"]
    assert _trajectories(first)[2]["phi_next"] == [[0.0, 0.0]] * 2 and _trajectories(first)[2]["rewards"] == [0.0, 0.0]
    first, second = explored[f"a single step with reward {far:g} vs the longest (2 steps) with rewards {-far:g}"]
    assert np.diff(first["offsets"]).tolist() == [2, 1, 1] and np.diff(second["offsets"]).tolist() == [2, 1, 2]
    first, second = explored[f"importance weights 2.5 and rewards {far:g} vs weights 0"]
    assert _trajectories(first)[2]["rho"] == [2.5, 2.5] and _trajectories(second)[2]["rho"] == [0.0, 0.0]
    first, second = explored["rewards 2 vs -2 (the largest seen)"]
    assert _trajectories(first)[2]["rewards"] == [2.0, 2.0]
    assert f"unrewarded vs rewards {far:g}" in explored and "its rewards negated" in explored


def test_the_added_trajectory_goes_to_the_extremes():
    params = {**PARAMS, "records": 3}
    explored = {label: (a, b) for a, b, label in _explored(ADD_REMOVE, params, (TWO, THREE))}
    far = SEARCH_REWARD_FACTOR * 5.0
    first, second = explored[f"search: the added trajectory, rewards {far:g}"]
    assert first == TWO and _trajectories(second)[2]["rewards"] == [far, far]  # X stays the smaller table
    for text in (
        "a single step with reward",
        "importance weights 0",
        "a terminal unrewarded trajectory",
        "the others unrewarded",
    ):
        assert any(text in label for label in explored), text


def test_pairs_that_are_not_one_step_of_the_relation_propose_nothing():
    assert _explored(ADD_REMOVE, PARAMS, SMALL) == []  # same size: no trajectory added
    assert _explored(REPLACE, PARAMS, (THREE, TWO)) == []
    assert _explored(REPLACE, PARAMS, (SMALL[0], {**SMALL[1], "gamma": 0.5})) == []
    assert _explored(REPLACE, PARAMS, ({"phi": []}, SMALL[1])) == []


def test_the_audit_searches_from_the_spec_pairs():
    claim = load_spec(EXAMPLE)
    context = CheckContext(
        claim=claim, relation=claim.relations[0], rng=np.random.default_rng(0), seed=np.random.SeedSequence(0)
    )
    given = [
        NeighbourPair(
            KIND.input_domain.from_plain(pair["first"]), KIND.input_domain.from_plain(pair["second"]), "given"
        )
        for pair in claim.obligations[0].params["pairs"]
    ]
    found = searched_pairs(given, context).pairs
    assert len(found) >= 5
    assert (
        found[0].label
        == "search: the differing trajectory, rewards 1e+06 vs -1e+06 (far beyond the clipping norm h = 5)"
    )


# ---------------------------------------------------------------------------------------------
# End to end: GPOPE without the clip is as private as the claim while every gradient is within h
# (the spec's rewards 0 and 1); the search's far rewards show the missing clip.

SMALL_PAIR = [{"first": SMALL[0], "second": SMALL[1], "label": "trajectory 2: reward 0 vs 1"}]


def _empirical(name, search):
    return obligation_evidence(
        EXAMPLE,
        f"search_candidates:{name}",
        CANDIDATES,
        "empirical-privacy",
        search=search,
        pairs=SMALL_PAIR,
        samples=20000,
    )


@pytest.mark.slow  # a whole audit end to end: the main CI job runs it, not the floors one
def test_a_missing_clip_is_found_only_by_the_search():
    assert _empirical("gpope_unclipped", "off").verdict is Verdict.CONSISTENT
    found = _empirical("gpope_unclipped", "auto")
    assert found.verdict is Verdict.VIOLATED
    assert found.counterexample["pair"].startswith("search: the differing trajectory")


@pytest.mark.slow
def test_the_search_does_not_accuse_gpope_as_written():
    assert _empirical("gpope_clipped", "auto").verdict is not Verdict.VIOLATED
