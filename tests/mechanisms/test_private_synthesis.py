"""private_synthesis: one row or every row differs, the rows' lower bound eta, structural zeros on every pair."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument, SpecError
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.private_synthesis import PrivateTransitions, check_transitions
from dpaudit.privacy.relations import parse_relation

KIND = get_mechanism("private_synthesis")
ROW = parse_relation("row_adjacent(0.2)")
EVERY_ROW = parse_relation("simplex_adjacent(0.2)")
BASE = [[[0.2, 0.8]], [[0.5, 0.5]]]
ONE_ROW_MOVED = [[[0.3, 0.7]], [[0.5, 0.5]]]
BOTH_ROWS_MOVED = [[[0.3, 0.7]], [[0.4, 0.6]]]
EXAMPLE = builtin_spec_dir() / "examples" / "private_synthesis_candidate.toml"


def test_one_changed_row_is_a_neighbour_under_both_relations():
    for relation in (ROW, EVERY_ROW):
        assert KIND.check_neighbours(BASE, ONE_ROW_MOVED, relation, {"k": 5.0}) == pytest.approx(0.2)


def test_two_changed_rows_are_neighbours_only_when_every_row_may_differ():
    assert KIND.check_neighbours(BASE, BOTH_ROWS_MOVED, EVERY_ROW, {"k": 5.0}) == pytest.approx(0.2)
    for first, second in ((BASE, BOTH_ROWS_MOVED), (BOTH_ROWS_MOVED, BASE)):
        with pytest.raises(InvalidArgument, match=r"not neighbours under row_adjacent\(0.2\): distance inf > 0.2"):
            KIND.check_neighbours(first, second, ROW, {"k": 5.0})


def test_a_row_that_moves_too_far_or_in_three_entries_is_no_neighbour():
    three = [[[0.2, 0.3, 0.5]], [[0.3, 0.3, 0.4]], [[0.4, 0.3, 0.3]]]
    moved = [[[0.25, 0.25, 0.5]], [[0.3, 0.3, 0.4]], [[0.4, 0.3, 0.3]]]
    assert KIND.check_neighbours(three, moved, ROW, {"k": 5.0}) == pytest.approx(0.1)
    spread = [[[0.25, 0.26, 0.49]], [[0.3, 0.3, 0.4]], [[0.4, 0.3, 0.3]]]
    far = [[[0.5, 0.5]], [[0.5, 0.5]]]
    for first, second in ((three, spread), (BASE, far)):
        with pytest.raises(InvalidArgument, match="not neighbours"):
            KIND.check_neighbours(first, second, ROW, {"k": 5.0})


def test_entries_below_eta_are_outside_the_domain():
    reference = PrivateTransitions(5.0, eta=0.25)
    with pytest.raises(InvalidArgument, match=r"input\[0\]\[0\]\[0\]=0.2: below the public lower bound eta=0.25"):
        reference.release(BASE, rng=0)
    with pytest.raises(InvalidArgument, match=r"first\[0\]\[0\]\[0\]=0.2: below the public lower bound eta=0.25"):
        KIND.check_neighbours(BASE, ONE_ROW_MOVED, ROW, {"k": 5.0, "eta": 0.25})
    assert PrivateTransitions(5.0, eta=0.2).release(BASE, rng=0, size=3).shape == (3, 2, 1, 2)


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"k": 5.0, "eta": 0.0}, "eta=0.0"),
        ({"k": 5.0, "eta": 0.6}, "eta=0.6"),
        ({"k": 5.0, "eta": float("nan")}, "eta=nan"),
        ({"k": 5.0, "structural_zeros": "drop"}, "structural_zeros='drop'"),
    ],
)
def test_bad_parameters_are_refused(params, fragment):
    with pytest.raises(InvalidArgument, match=fragment):
        build_mechanism("private_synthesis", params)


def test_a_zero_entry_is_refused_on_every_pair_under_reject():
    zero = [[[0.0, 1.0]], [[0.5, 0.5]]]
    moved = [[[0.1, 0.9]], [[0.5, 0.5]]]
    for params in ({"k": 5.0}, {"k": 5.0, "structural_zeros": "reject"}):
        with pytest.raises(InvalidArgument, match=r"first\[0\]\[0\]=\[0.0, 1.0\]: a zero probability"):
            KIND.check_neighbours(zero, moved, ROW, params)


def test_under_keep_zeros_are_public_and_must_not_move():
    zero = [[[0.0, 0.2, 0.8]], [[0.5, 0.5, 0.0]], [[0.3, 0.3, 0.4]]]
    same_zeros = [[[0.0, 0.3, 0.7]], [[0.5, 0.5, 0.0]], [[0.3, 0.3, 0.4]]]
    moved_zero = [[[0.1, 0.1, 0.8]], [[0.5, 0.5, 0.0]], [[0.3, 0.3, 0.4]]]
    keep = {"k": 5.0, "structural_zeros": "keep", "eta": 0.1}
    assert KIND.check_neighbours(zero, same_zeros, ROW, keep) == pytest.approx(0.2)
    with pytest.raises(InvalidArgument, match=r"row P\(0, 0\).*different zeros"):
        KIND.check_neighbours(zero, moved_zero, ROW, keep)
    assert check_transitions("input", zero, eta=0.2, structural_zeros="keep").shape == (3, 1, 3)
    with pytest.raises(InvalidArgument, match="on the row's support must be >= eta"):
        check_transitions("input", zero, eta=0.25, structural_zeros="keep")


def _example_with_pair(tmp_path, first, second, *, relation="row_adjacent(0.2)", params="{ k = 5.0, eta = 0.2 }"):
    text = EXAMPLE.read_text()
    pair = f'{{ first = {first}, second = {second}, label = "the pair under test" }}'
    start = text.index("params = { samples = 200000")
    end = text.index("quick = {", start)
    text = text[:start] + f"params = {{ samples = 2000, pairs = [{pair}] }}\n" + text[end:]
    text = text.replace('relations = ["row_adjacent(0.2)"]', f'relations = ["{relation}"]')
    text = text.replace("params = { k = 5.0, eta = 0.2 }", f"params = {params}")
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("first", "second", "params", "fragment"),
    [
        (BASE, BOTH_ROWS_MOVED, "{ k = 5.0, eta = 0.2 }", "not neighbours under row_adjacent(0.2): distance inf"),
        ([[[0.1, 0.9]], [[0.5, 0.5]]], [[[0.2, 0.8]], [[0.5, 0.5]]], "{ k = 5.0, eta = 0.2 }", "eta=0.2"),
        ([[[0.0, 1.0]], [[0.5, 0.5]]], [[[0.1, 0.9]], [[0.5, 0.5]]], "{ k = 5.0 }", "a zero probability"),
    ],
)
def test_a_pair_outside_the_relation_or_the_domain_stops_the_spec_with_exit_2(
    tmp_path, caplog, first, second, params, fragment
):
    path = _example_with_pair(tmp_path, first, second, params=params)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert "obligations[0].params.pairs[0]" in str(info.value)
    assert "(the pair under test)" in str(info.value) and fragment in str(info.value)
    assert main(["audit", str(path), "--quiet", "--out", str(tmp_path / "out")]) == 2
    assert fragment in caplog.text


def test_the_same_pairs_load_where_they_are_neighbours(tmp_path):
    every_row = _example_with_pair(tmp_path, BASE, BOTH_ROWS_MOVED, relation="simplex_adjacent(0.2)")
    assert load_spec(every_row).relations == (EVERY_ROW,)
    one_row = _example_with_pair(tmp_path, BASE, ONE_ROW_MOVED)
    assert load_spec(one_row).relations == (ROW,)


def test_the_release_is_dirichlet_on_every_row():
    draws = PrivateTransitions(5.0, eta=0.2).release(BASE, rng=np.random.default_rng(1), size=20000)
    np.testing.assert_allclose(draws.mean(axis=0), BASE, atol=0.01)
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0)
