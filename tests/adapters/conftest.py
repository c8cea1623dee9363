"""Shared by the library tests: run one ecosystem spec against its adapter and read the verdicts."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import dpaudit
from dpaudit.audit.spec import builtin_spec_dir

ECOSYSTEM = builtin_spec_dir() / "examples" / "ecosystem"

Audit = Callable[..., tuple[str, dict[str, str]]]


def run_in_fresh_python(script: str) -> str:
    """``script`` run by a fresh interpreter (what it imports is its own); its standard output, after
    asserting it exited 0."""
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def ecosystem_spec(name: str) -> Path:
    return ECOSYSTEM / f"{name}.toml"


#: The share of a spec's sample budgets the library tests keep: their point is the verdict (no
#: documented configuration violated, a misstated one violated), which holds on a quarter of the
#: draws; the specs' own budgets run in the tests of one configuration each and in reports/.
SWEEP_BUDGET = 0.25


def _smaller_budgets(text: str, share: float) -> str:
    """The spec with every ``samples`` of 10^4 or more scaled by ``share``."""

    def scaled(match: re.Match[str]) -> str:
        value = int(match.group(1))
        return match.group(0) if value < 10_000 else f"samples = {max(int(value * share), 10_000)}"

    return re.sub(r"samples = (\d+)", scaled, text)


@pytest.fixture
def ecosystem_audit(tmp_path: Path) -> Audit:
    """``audit(candidate, spec_name, share=1.0)``: the claim's verdict and, per obligation, its verdict
    and summary (the spec's quick budget, its sample budgets times ``share``, seed 1)."""

    def audit(candidate: str, name: str, share: float = 1.0) -> tuple[str, dict[str, str]]:
        spec = ecosystem_spec(name)
        if share != 1.0:
            spec = tmp_path / spec.name
            spec.write_text(_smaller_budgets(ecosystem_spec(name).read_text(encoding="utf-8"), share), encoding="utf-8")
        report = dpaudit.check(candidate, spec, quick=True, seed=1)
        (claim,) = report.claims
        summaries = {
            item.obligation.id: f"{item.evidence.verdict.value}: {item.evidence.summary}"
            for relation in claim.relations
            for item in relation.obligations
        }
        return claim.verdict.value, summaries

    return audit
