"""Two machines whose floats differ in the last ulp make two audits that both recheck.

"Machine B" is this one with the implementation's sigma_X moved up by one ulp (another libm, BLAS
or library version): the margins of Lemma 1's conditions and of the smooth-sensitivity slack move
in their last bits. A re-run fact is an enclosure of the true margin, so B's report rechecks on A,
A's rechecks on B, and the two enclosures of every fact meet.
"""

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.api import audit_specs
from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.checks.sensitivity import balle2016, smooth_slack
from dpaudit.report.recheck import recheck_report

SPEC = builtin_spec_dir() / "balle2016_dp_lsw_sensitivity.toml"


def _one_ulp_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this process machine B: every sigma_X of the implementation one ulp larger."""
    original = balle2016.sigma_evaluation

    def moved(*args):
        evaluation = original(*args)
        return replace(evaluation, table=np.nextafter(evaluation.table, np.inf))

    monkeypatch.setattr(balle2016, "sigma_evaluation", moved)
    monkeypatch.setattr(smooth_slack, "sigma_evaluation", moved)
    monkeypatch.setattr(balle2016, "_SWEEP_CACHE", {})  # nothing machine A swept is reused


def _audit(out):
    report = audit_specs([SPEC], quick=True, out=out)
    return report, out / "audit.json"


def _facts(report) -> dict[tuple[str, str, str], list[tuple[Fraction, Fraction]]]:
    facts = {}
    for entry in report.to_json()["claims"]:
        for relation in entry["relations"]:
            for item in relation["obligations"]:
                certificate = item["evidence"].get("certificate") or {}
                key = (entry["claim"]["id"], relation["relation"], item["obligation"]["id"])
                facts[key] = [
                    tuple(Fraction(Decimal(end)) for end in fact["enclosure"])
                    for fact in certificate.get("facts", [])
                    if fact["route"] == "rerun"
                ]
    return facts


@pytest.fixture(scope="module")
def two_machines(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(balle2016, "_SWEEP_CACHE", {})
        machine_a = _audit(tmp_path_factory.mktemp("machine_a"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        _one_ulp_up(monkeypatch)
        machine_b = _audit(tmp_path_factory.mktemp("machine_b"))
    return machine_a, machine_b


def test_the_two_machines_agree_on_every_verdict_and_their_enclosures_meet(two_machines):
    (report_a, _), (report_b, _) = two_machines
    verdicts_a = [
        item["evidence"]["verdict"]
        for c in report_a.to_json()["claims"]
        for r in c["relations"]
        for item in r["obligations"]
    ]
    verdicts_b = [
        item["evidence"]["verdict"]
        for c in report_b.to_json()["claims"]
        for r in c["relations"]
        for item in r["obligations"]
    ]
    assert verdicts_a == verdicts_b and "verified" in verdicts_a
    facts_a, facts_b = _facts(report_a), _facts(report_b)
    assert facts_a.keys() == facts_b.keys()
    moved = 0
    for key, enclosures in facts_a.items():
        assert len(enclosures) == len(facts_b[key]), key
        for (low_a, high_a), (low_b, high_b) in zip(enclosures, facts_b[key], strict=True):
            assert low_a <= high_b and low_b <= high_a, key  # both contain the true margin
            moved += (low_a, high_a) != (low_b, high_b)
    assert moved >= 2  # the ulp reached the certified numbers (conditions (a), (b), the slack)


@pytest.mark.parametrize("rechecked_on", ["machine_a", "machine_b"])
def test_each_machines_report_rechecks_on_either_machine(two_machines, rechecked_on, monkeypatch):
    monkeypatch.setattr(balle2016, "_SWEEP_CACHE", {})
    if rechecked_on == "machine_b":
        _one_ulp_up(monkeypatch)
    for _, path in two_machines:
        result = recheck_report(path)
        assert result.ok, result.failures
        assert sum("rerun: verified again" in line for line in result.replayed) >= 8
