"""gpope_step's input search: tables of exactly ``records`` rows that stress the clipping (diagonal and
axis-aligned gradients beyond the clip norm, the other records at 0 or at norm h along or against
the differing one), and a per-coordinate clipping bug that only those tables expose."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.privacy.relations import parse_relation
from tests.candidate_audits import obligation_evidence

HERE = str(Path(__file__).resolve().parent)
SPEC = builtin_spec_dir() / "examples" / "gpope_step_candidate.toml"
PARAMS = {"records": 4, "clip_norm": 2.0, "noise_multiplier": 1.0, "steps": 1, "sampling": "poisson"}
AXIS_PAIR = ([[0.0, 0.0]] * 3 + [[50.0, 0.0]], [[0.0, 0.0]] * 3 + [[-50.0, 0.0]])


def _explore(params=PARAMS, relation="replace_one", pairs=(AXIS_PAIR,)):
    return get_mechanism("gpope_step").neighbourhood.explore(list(pairs), params, parse_relation(relation))


@pytest.mark.parametrize("sampling", ["poisson", "uniform_one"])
@pytest.mark.parametrize("pairs", [(AXIS_PAIR,), ()])
def test_every_proposal_has_records_rows_and_is_a_replace_one_pair_the_reference_accepts(sampling, pairs):
    params = {**PARAMS, "sampling": sampling}
    kind = get_mechanism("gpope_step")
    reference = build_mechanism("gpope_step", params)
    proposals = _explore(params, pairs=pairs)
    assert 24 <= len(proposals) <= 64
    for first, second, label in proposals:
        assert label.startswith("search: ")
        assert len(first) == len(second) == params["records"]
        assert kind.check_neighbours(first, second, parse_relation("replace_one"), params) == 1.0
        for data in (first, second):
            kind.release(reference, kind.input_domain.from_plain(data), rng=np.random.default_rng(0))


def test_the_diagonal_gradient_beyond_the_clip_norm_comes_first():
    first, second, label = _explore()[0]
    assert label == (
        "search: 4 records, the other records 0; the last one a diagonal gradient, every coordinate 20 "
        "(beyond the clip norm h = 2) vs its opposite"
    )
    assert first == [[0.0, 0.0]] * 3 + [[20.0, 20.0]]
    assert second == [[0.0, 0.0]] * 3 + [[-20.0, -20.0]]
    # clipped per coordinate it keeps norm h sqrt(d); clipped in L2 it has norm h
    assert np.linalg.norm(np.clip(first[-1], -2.0, 2.0)) == pytest.approx(2.0 * math.sqrt(2))


def test_the_other_records_sit_at_zero_and_at_the_clip_norm_along_and_against_the_differing_one():
    tables = {label: (first, second) for first, second, label in _explore()}
    record = "the last one a gradient along e_1 of length 20 (beyond h = 2) vs its opposite"
    against = tables[f"search: 4 records, the other records at norm h against it; {record}"]
    along = tables[f"search: 4 records, the other records at norm h along it; {record}"]
    assert against[0][:3] == [[-2.0, 0.0]] * 3 and along[0][:3] == [[2.0, 0.0]] * 3
    assert tables[f"search: 4 records, the other records 0; {record}"][1][-1] == [-20.0, 0.0]
    on_the_norm = [first[-1] for first, _, label in _explore() if "diagonal gradient of L2 norm" in label]
    assert on_the_norm and all(np.linalg.norm(row) == pytest.approx(2.0) for row in on_the_norm)
    # the given pair's own variants stay, but no table padded beyond `records` rows
    assert any("the differing record on X replaced by the zero row" in label for _, _, label in _explore())
    assert not any("padded" in label or "alone" in label for _, _, label in _explore())


def test_one_table_per_gradient_dimension_of_the_given_pairs():
    wide = ([[0.0] * 5] * 3 + [[1.0] * 5], [[0.0] * 5] * 3 + [[-1.0] * 5])
    dims = {len(first[-1]) for first, _, label in _explore(pairs=(AXIS_PAIR, wide)) if "other records" in label}
    assert dims == {2, 5}
    assert {len(first[-1]) for first, _, _ in _explore(pairs=())} == {2}


def test_add_remove_gets_no_table_the_step_would_refuse():
    proposals = _explore(relation="add_remove_one")
    relation = parse_relation("add_remove_one")
    kind = get_mechanism("gpope_step")
    neighbours = []
    for first, second, _ in proposals:
        try:
            kind.check_neighbours(first, second, relation, PARAMS)
        except ValueError:
            continue
        neighbours.append((first, second))
    assert all(len(first) == len(second) for first, second, _ in proposals)  # none changes the row count
    assert neighbours == []


def _axis_aligned_spec(tmp_path):
    text = SPEC.read_text()
    assert text.count("[50.0, 50.0]") == 2 and text.count("[-50.0, -50.0]") == 2
    path = tmp_path / "gpope_step_axis.toml"
    path.write_text(text.replace("[50.0, 50.0]", "[50.0, 0.0]").replace("[-50.0, -50.0]", "[-50.0, 0.0]"))
    return path


def _audit(name, spec, search=None):
    searched = {} if search is None else {"search": search}
    return obligation_evidence(spec, f"extremal_search_candidates:{name}", HERE, "empirical-privacy", **searched)


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_clipping_each_coordinate_is_found_on_a_diagonal_gradient(tmp_path):
    spec = _axis_aligned_spec(tmp_path)
    found = _audit("gpope_step_clipping_each_coordinate", spec)
    assert found.verdict is Verdict.VIOLATED, found.summary
    assert "diagonal gradient" in found.counterexample["pair"]
    # on the spec's axis-aligned pair the bug is invisible
    assert _audit("gpope_step_clipping_each_coordinate", spec, search="off").verdict is Verdict.CONSISTENT


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_the_search_does_not_accuse_a_correct_gpope_step(tmp_path):
    assert _audit("correct_gpope_step", _axis_aligned_spec(tmp_path)).verdict is Verdict.CONSISTENT
