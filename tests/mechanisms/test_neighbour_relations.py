"""Neighbour checks are the relation, symmetrically: for every kind, a pair is accepted in one order
exactly when it is accepted in the other, a pair just outside the relation is refused and one just
inside accepted, at the kind's stated radius (issue 37)."""

from __future__ import annotations

import math

import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue import get_mechanism
from dpaudit.mechanisms.smooth_gaussian import SmoothGaussianMechanism
from dpaudit.privacy.relations import parse_relation

EXAMPLES = builtin_spec_dir() / "examples"
SMOOTH = {"epsilon": 1.0, "delta": 1e-5, "dim": 1}


def _accepted(kind: str, first, second, relation: str, params) -> bool:
    mechanism = get_mechanism(kind)
    try:
        mechanism.check_neighbours(
            mechanism.input_domain.from_plain(first),
            mechanism.input_domain.from_plain(second),
            parse_relation(relation),
            params,
        )
    except InvalidArgument:
        return False
    return True


def _smooth(theta: float, bound: float) -> dict:
    return {"theta": [theta], "smooth_bound": bound}


def test_the_smooth_gaussian_pair_of_issue_37_is_refused_in_both_orders():
    first, second = _smooth(0.0, 0.20113), _smooth(0.20113, 0.2)  # theta moved by S(X) but not by S(X')
    assert not _accepted("smooth_gaussian", first, second, "replace_one", SMOOTH)
    assert not _accepted("smooth_gaussian", second, first, "replace_one", SMOOTH)


# (kind, params, relation, inside, outside): pairs just inside and just outside the stated radius
_BETA = SmoothGaussianMechanism(**SMOOTH).parameters.beta
EDGES = [
    (
        "gaussian",
        {"sigma": 1.0, "sensitivity": 1.0},
        "replace_one",
        ([0.0, 0.0], [0.6, 0.79]),
        ([0.0, 0.0], [0.6, 0.81]),
    ),
    (
        "laplace",
        {"scale": 1.0, "sensitivity": 1.0},
        "add_remove_one",
        ([0.0, 0.0], [0.5, 0.49]),
        ([0.0, 0.0], [0.5, 0.51]),
    ),
    (
        "dirichlet",
        {"k": 5.0},
        "simplex_adjacent(0.2)",
        ([0.3, 0.3, 0.4], [0.2, 0.4, 0.4]),
        ([0.3, 0.3, 0.4], [0.19, 0.41, 0.4]),
    ),
    (
        "private_synthesis",
        {"k": 5.0},
        "row_adjacent(0.2)",
        ([[[0.5, 0.5]], [[0.5, 0.5]]], [[[0.4, 0.6]], [[0.5, 0.5]]]),
        ([[[0.5, 0.5]], [[0.5, 0.5]]], [[[0.4, 0.6]], [[0.45, 0.55]]]),
    ),
    (
        "smooth_gaussian",
        SMOOTH,
        "replace_one",
        (_smooth(0.0, 1.0), _smooth(0.999, math.exp(_BETA / 2 * 0.99))),
        (_smooth(0.0, 1.0), _smooth(0.5, math.exp(_BETA / 2 * 1.01))),
    ),
    (
        "dp_lsw",
        {},
        "replace_one",
        ([[[0, 0, 1.0]], [[1, 0, 0.0]]], [[[0, 0, 0.0]], [[1, 0, 0.0]]]),
        ([[[0, 0, 1.0]], [[1, 0, 0.0]]], [[[0, 0, 0.0]], [[1, 0, 1.0]]]),
    ),
    (
        "gpope_step",
        {},
        "add_remove_one",
        ([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]),
        ([[1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]),
    ),
    ("black_box", {}, "replace_one", ([1, 2, 3], [1, 2, 4]), ([1, 2, 3], [1, 5, 4])),
    (
        "rl_algorithm",
        {},
        "add_remove_one",
        ([[[0, 0, 1.0]]], [[[0, 0, 1.0]], [[1, 0, 0.0]]]),
        ([[[0, 0, 1.0]]], [[[1, 0, 0.0]]]),
    ),
]


@pytest.mark.parametrize(("kind", "params", "relation", "inside", "outside"), EDGES, ids=[edge[0] for edge in EDGES])
def test_just_inside_is_accepted_and_just_outside_refused_in_both_orders(kind, params, relation, inside, outside):
    for first, second in (inside, inside[::-1]):
        assert _accepted(kind, first, second, relation, params)
    for first, second in (outside, outside[::-1]):
        assert not _accepted(kind, first, second, relation, params)


def _example_pairs():
    for path in sorted(EXAMPLES.glob("*.toml")):
        claim = load_spec(path)
        for obligation in claim.obligations:
            for pair in obligation.params.get("pairs", []):
                for relation in claim.relations:
                    yield path.stem, claim.mechanism.name, claim.mechanism.params, relation.name, pair


@pytest.mark.parametrize(("name", "kind", "params", "relation", "pair"), list(_example_pairs()))
def test_every_example_pair_is_accepted_in_both_orders(name, kind, params, relation, pair):
    assert _accepted(kind, pair["first"], pair["second"], relation, params)
    assert _accepted(kind, pair["second"], pair["first"], relation, params)


def test_the_distance_is_the_larger_of_both_orders():
    mechanism = get_mechanism("smooth_gaussian")
    relation = parse_relation("replace_one")
    first = mechanism.input_domain.from_plain(_smooth(0.0, 2.0))
    second = mechanism.input_domain.from_plain(_smooth(1.0, 2.0 * math.exp(-_BETA / 4)))
    assert mechanism.check_neighbours(first, second, relation, SMOOTH) == mechanism.check_neighbours(
        second, first, relation, SMOOTH
    )
