"""Shared by the library tests: run one ecosystem spec against its adapter and read the verdicts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import dpaudit
from dpaudit.audit.spec import builtin_spec_dir

ECOSYSTEM = builtin_spec_dir() / "examples" / "ecosystem"

Audit = Callable[[str, str], tuple[str, dict[str, str]]]


def ecosystem_spec(name: str) -> Path:
    return ECOSYSTEM / f"{name}.toml"


@pytest.fixture
def ecosystem_audit() -> Audit:
    """``audit(candidate, spec_name)``: the claim's verdict and, per obligation, its verdict and summary
    (the spec's quick budget, seed 1)."""

    def audit(candidate: str, name: str) -> tuple[str, dict[str, str]]:
        report = dpaudit.check(candidate, ecosystem_spec(name), quick=True, seed=1)
        (claim,) = report.claims
        summaries = {
            item.obligation.id: f"{item.evidence.verdict.value}: {item.evidence.summary}"
            for relation in claim.relations
            for item in relation.obligations
        }
        return claim.verdict.value, summaries

    return audit
