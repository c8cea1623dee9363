"""The accountant kind: a user's epsilon(delta) function against dpaudit's certified PLD interval."""

from __future__ import annotations

import json
import logging

import pytest

from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.cli import main
from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant

SPEC = builtin_spec_dir() / "examples" / "accountant_candidate.toml"
POINT = {"records": 100, "noise_multiplier": 1.0, "steps": 100, "delta": 1e-5}

ACCOUNTANTS = """
import math


def understated(point, *, sampling, relation, interval, rng):
    # naive amplification: q times the epsilon of one unsampled composition (not a valid bound)
    return 0.5
"""


def test_the_certified_interval_is_narrow_and_ordered():
    value = SubsampledGaussianAccountant().certified_epsilon(POINT)
    assert 0 < float(value.lower) <= float(value.upper) < float(value.lower) * 1.001


@pytest.mark.parametrize(
    ("candidate", "verdict", "code"),
    [("example_candidates:accountant", "verified", 0), ("accountants:understated", "violated", 1)],
)
def test_accountant_candidates(tmp_path, monkeypatch, candidate, verdict, code):
    (tmp_path / "accountants.py").write_text(ACCOUNTANTS)
    monkeypatch.syspath_prepend(str(builtin_spec_dir() / "examples"))
    monkeypatch.chdir(tmp_path if candidate.startswith("accountants") else builtin_spec_dir() / "examples")
    out = tmp_path / "out"
    assert main(["check", str(SPEC), "--candidate", candidate, "--out", str(out)]) == code
    evidence = json.loads((out / "audit.json").read_text())["claims"][0]["relations"][0]["obligations"][0]["evidence"]
    assert evidence["verdict"] == verdict
    if verdict == "violated":
        assert evidence["counterexample"]["stated_epsilon"] == 0.5


def test_the_accountant_relation_is_the_claims(tmp_path, monkeypatch):
    """No default relation: dpaudit's enclosure is for the relation the claim is audited under, and a
    params relation that contradicts it is exit 2 (an add/remove accountant was judged against
    replace-one, a false alarm)."""
    from dpaudit.audit.spec import load_spec
    from dpaudit.errors import SpecError

    text = SPEC.read_text().replace('relations = ["replace_one"]', 'relations = ["add_remove_one"]')
    contradicting = tmp_path / "contradicting.toml"
    contradicting.write_text(text)
    with pytest.raises(SpecError, match="the accountant's relation is the claim's"):
        load_spec(contradicting)
    stated_once = tmp_path / "add_remove.toml"
    stated_once.write_text(text.replace('relation = "replace_one", ', ""))
    (tmp_path / "own.py").write_text(
        "from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant\n"
        "def add_remove(point, *, sampling, interval, rng, relation='add_remove_one'):\n"
        "    return float(SubsampledGaussianAccountant(sampling, relation, interval).certified_epsilon(point).upper)\n"
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert main(["check", str(stated_once), "--candidate", "own:add_remove", "--quick", "--out", str(out)]) == 0
    evidence = json.loads((out / "audit.json").read_text())["claims"][0]["relations"][0]["obligations"][0]["evidence"]
    assert evidence["verdict"] == "verified" and "relation=add_remove_one" in evidence["domain"]


def test_an_accountant_claim_states_no_guarantee_table(tmp_path, caplog):
    """The accountant's statement is its own epsilon at each point; a guarantee table of other numbers
    would not be checked, so it is refused (exit 2), and the kind's statement belongs to no other kind."""
    from dpaudit.audit.spec import load_spec
    from dpaudit.errors import SpecError
    from dpaudit.privacy.guarantees import AccountedEpsilon

    assert "[claim.guarantee]" not in SPEC.read_text()
    assert load_spec(SPEC).guarantee == AccountedEpsilon()
    assert load_spec(SPEC).to_json()["guarantee"] == {"kind": "accountant"}
    stated = tmp_path / "stated.toml"
    stated.write_text(
        SPEC.read_text().replace("[[obligations]]", '[claim.guarantee]\nkind = "accountant"\n\n[[obligations]]')
    )
    assert load_spec(stated).guarantee == AccountedEpsilon()
    meaningless = tmp_path / "meaningless.toml"
    meaningless.write_text(
        SPEC.read_text().replace(
            "[[obligations]]", '[claim.guarantee]\nkind = "approx_dp"\nepsilon = 1.0\ndelta = 1e-5\n\n[[obligations]]'
        )
    )
    with caplog.at_level(logging.WARNING, logger="dpaudit"):  # as the docs once asked: loads, with a warning
        assert load_spec(meaningless).guarantee == AccountedEpsilon()
    assert "is not what an accountant's audit checks" in caplog.text
    garbage = tmp_path / "garbage.toml"
    garbage.write_text(meaningless.read_text().replace("epsilon = 1.0", 'epsilon = "one"'))
    with pytest.raises(SpecError, match=r"claim\.guarantee"):
        load_spec(garbage)
    extra = tmp_path / "extra.toml"
    extra.write_text(stated.read_text().replace('kind = "accountant"\n', 'kind = "accountant"\nepsilon = 1.0\n', 1))
    with pytest.raises(SpecError, match="takes no other key"):
        load_spec(extra)
    gaussian = (builtin_spec_dir() / "examples" / "gaussian_candidate.toml").read_text()
    other_kind = tmp_path / "other_kind.toml"
    other_kind.write_text(gaussian.replace('kind = "approx_dp"', 'kind = "accountant"', 1))
    with pytest.raises(SpecError, match="not of 'gaussian'"):
        load_spec(other_kind)
    without = tmp_path / "without.toml"
    without.write_text(gaussian.replace('[claim.guarantee]\nkind = "approx_dp"\nepsilon = 4.38\ndelta = 1e-5\n', ""))
    with pytest.raises(SpecError, match=r"claim\.guarantee.*missing"):
        load_spec(without)


RDP_SPEC = builtin_spec_dir() / "examples" / "ecosystem" / "opacus_rdp_curve.toml"

RDP_ACCOUNTANTS = """
from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant

EXACT = SubsampledGaussianAccountant(relation="add_remove_one")


def exact(point, *, rng):
    return float(EXACT.certified_rdp(point).upper)


def one_step(point, *, rng):
    # the RDP of one step reported for N steps: composition forgotten
    return float(EXACT.certified_rdp({**point, "steps": 1}).upper)


def rounded_down(point, *, rng):
    # below the exact value by 1e-12 of it, as a float64 series can be
    return float(EXACT.certified_rdp(point).lower) * (1 - 1e-12)
"""


@pytest.mark.parametrize(
    ("candidate", "verdict", "code"),
    [("exact", "verified", 0), ("one_step", "violated", 1), ("rounded_down", "consistent", 0)],
)
def test_an_rdp_curve_is_checked_order_by_order(tmp_path, monkeypatch, candidate, verdict, code):
    """Points with an order ask for the accountant's RDP there, against the exact RDP of the N steps."""
    (tmp_path / "rdp_accountants.py").write_text(RDP_ACCOUNTANTS)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    arguments = ["check", str(RDP_SPEC), "--candidate", f"rdp_accountants:{candidate}", "--quick", "--out", str(out)]
    assert main(arguments) == code
    evidence = json.loads((out / "audit.json").read_text())["claims"][0]["relations"][0]["obligations"][0]["evidence"]
    assert evidence["verdict"] == verdict
    assert evidence["measurements"][0]["quantity"].startswith("RDP at order")
    if verdict == "violated":
        assert evidence["counterexample"]["order"] in (1.5, 8) and evidence["counterexample"]["ratio"] < 0.01


def test_rdp_points_are_certified_under_add_remove_one_with_poisson_sampling_only(tmp_path):
    from dpaudit.audit.spec import load_spec
    from dpaudit.errors import InvalidArgument, SpecError
    from dpaudit.mechanisms.accountant import accounting_point

    replace_one = tmp_path / "replace_one.toml"
    replace_one.write_text(
        RDP_SPEC.read_text().replace('relations = ["add_remove_one"]', 'relations = ["replace_one"]')
    )
    with pytest.raises(SpecError, match="add_remove_one only"):
        load_spec(replace_one)
    uniform = tmp_path / "uniform.toml"
    uniform.write_text(RDP_SPEC.read_text().replace('sampling = "poisson"', 'sampling = "uniform_one"'))
    with pytest.raises(SpecError, match="add_remove_one only"):
        load_spec(uniform)
    with pytest.raises(InvalidArgument, match="order"):
        accounting_point({**POINT, "order": 2})
    for order in (1, 0.5, 257, float("nan")):
        with pytest.raises(InvalidArgument, match="order"):
            accounting_point({"records": 100, "noise_multiplier": 1.0, "steps": 100, "order": order})
    with pytest.raises(InvalidArgument, match="add_remove_one only"):
        SubsampledGaussianAccountant().certified_rdp(
            {"records": 100, "noise_multiplier": 1.0, "steps": 100, "order": 2}
        )
