"""Known findings are pinned by their size: a regression that changes the measured violation fails
the audit even though the obligation is still `violated`."""

from __future__ import annotations

import json

import pytest

import dpaudit.mechanisms.policy_evaluation.private as private
from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.cli import main
from dpaudit.errors import SpecError
from dpaudit.kernel.claims import FindingPin
from dpaudit.kernel.evidence import Measurement

SPEC = str(builtin_spec_dir() / "balle2016_dp_lsw_sensitivity.toml")


def test_pin_check():
    pin = FindingPin("excess at", 1.0, 2.0, quick=FindingPin("excess at m", 5.0, 6.0))
    assert pin.check([Measurement("excess at m=1", 0, 1.5)]) is None
    assert "expected 'excess at' in [1.0, 2.0], measured 2.5" in pin.check([Measurement("excess at m=1", 0, 2.5)])
    assert "no measurement" in pin.check([Measurement("other", 0, 1.5)])
    assert pin.for_run(quick=True).low == 5.0
    with pytest.raises(ValueError, match="low <= high"):
        FindingPin("x", 2.0, 1.0)


def test_the_shipped_audit_reproduces_every_pinned_finding(tmp_path):
    assert main(["audit", SPEC, "--quick", "--executor", "serial", "--out", str(tmp_path)]) == 0
    document = json.loads((tmp_path / "audit.json").read_text())
    assert "finding_changed" not in json.dumps(document)


def test_planted_constants_for_d_1_break_condition_b(tmp_path, monkeypatch):
    """The reference takes Lemma 1's constants for d = 1 instead of d: condition (b), which holds
    with a margin of 1e-6 beta (rounding-safe smoothing), now fails by about 100%, and the audit
    must say so (exit 1)."""
    original = private._lemma1
    monkeypatch.setattr(private, "_lemma1", lambda name, epsilon, delta, d: original(name, epsilon, delta, 1))
    assert main(["audit", SPEC, "--quick", "--executor", "serial", "--out", str(tmp_path)]) == 1
    document = json.loads((tmp_path / "audit.json").read_text())
    verdicts = {
        (relation["relation"], item["obligation"]["id"]): (item["evidence"]["verdict"], item["known_finding"])
        for claim in document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
    }
    assert verdicts[("replace_one", "lemma1-condition-b")][0] == "violated"
    assert not verdicts[("replace_one", "lemma1-condition-b")][1]


def test_a_known_finding_needs_a_pin(write_gaussian_spec):
    path = write_gaussian_spec(epsilon="4.30")
    path.write_text(
        path.read_text().replace(
            "[claim.source]",
            '[[claim.known_findings]]\nrelation = "replace_one"\nobligations = ["exact-profile"]\n'
            'finding = "understated"\n\n[claim.source]',
        )
    )
    with pytest.raises(SpecError, match=r"known_findings\[0\]\.pin"):
        from dpaudit.audit.spec import load_spec

        load_spec(path)
