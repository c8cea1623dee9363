"""Relations and guarantees are validated at construction."""

import math

import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.privacy import (
    ApproxDP,
    Concentration,
    MomentsBound,
    RenyiDP,
    SensitivityBound,
    SmoothUpperBound,
    add_remove_one,
    parse_relation,
    replace_one,
    simplex_adjacent,
)
from dpaudit.privacy.relations import Relation


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("replace_one", replace_one()),
        ("add_remove_one", add_remove_one()),
        ("simplex_adjacent(0.1)", simplex_adjacent(0.1)),
        (" simplex_adjacent( 2 ) ", simplex_adjacent(2.0)),
    ],
)
def test_parse_relation(text, relation):
    assert parse_relation(text) == relation
    assert parse_relation(relation.name) == relation


@pytest.mark.parametrize(
    "text",
    [
        "swap",
        "simplex_adjacent",
        "simplex_adjacent(0)",
        "simplex_adjacent(-0.0)",
        "simplex_adjacent(2.5)",
        "simplex_adjacent(nan)",
        "simplex_adjacent(x)",
        3,
    ],
)
def test_parse_relation_rejects(text):
    with pytest.raises((InvalidArgument, InvalidType)):
        parse_relation(text)


def test_relation_bound_only_for_simplex():
    with pytest.raises(InvalidArgument, match="takes no bound"):
        Relation("replace_one", 0.5)


@pytest.mark.parametrize(("epsilon", "delta"), [(0, 0), (4.38, 1e-5), (5e-324, 1 - 2**-53), (100.0, 0.0)])
def test_approx_dp_accepts(epsilon, delta):
    guarantee = ApproxDP(epsilon, delta)
    assert guarantee.to_json() == {"kind": "approx_dp", "epsilon": float(epsilon), "delta": float(delta)}


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    [
        (-1.0, 1e-5),
        (math.nan, 1e-5),
        (math.inf, 1e-5),
        (1.0, 1.0),
        (1.0, 1.5),
        (1.0, -5e-324),
        (1.0, math.nan),
        (True, 0.1),
    ],
)
def test_approx_dp_rejects(epsilon, delta):
    with pytest.raises((InvalidArgument, InvalidType)):
        ApproxDP(epsilon, delta)


def test_renyi_and_moments():
    assert RenyiDP((2, 3.5), (0.1, 0.2)).orders == (2.0, 3.5)
    with pytest.raises(InvalidArgument):
        RenyiDP((1.0,), (0.1,))
    with pytest.raises(InvalidArgument):
        RenyiDP((2.0,), (0.1, 0.2))
    assert MomentsBound((1, 2), (0.5, 1.0)).to_json()["lambdas"] == [1.0, 2.0]
    with pytest.raises(InvalidArgument):
        MomentsBound((0.0,), (1.0,))


def test_other_guarantees():
    assert SensitivityBound("lsw_corollary3").norm == "l2"
    with pytest.raises(InvalidArgument):
        SensitivityBound("x", norm="l3")
    with pytest.raises(InvalidArgument):
        SensitivityBound("")
    with pytest.raises(InvalidArgument):
        SmoothUpperBound(0.0)
    assert Concentration(0.1, 0.05).norm == "linf"
    with pytest.raises(InvalidArgument):
        Concentration(0.1, 1.5)
