"""Shared by the library tests: run one ecosystem spec against its adapter and read the verdicts."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import dpaudit
from dpaudit.audit.candidates import implied
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
#: draws; the specs' own budgets run in reports/ (tests/candidates/ecosystem).
SWEEP_BUDGET = 0.25

#: The escalation rounds of a sweep over every documented configuration of a library. A correct, tight
#: mechanism's best event sits at its claim, so a candidate audit's two rounds always run there, on 4x and
#: 16x the draws: 80-90% of such a test's time. The sweep's point is that each configuration is audited
#: through its adapter without a false alarm; escalation on a library's mechanism runs in the test of
#: one configuration per library (its ``laplace`` or ``discrete_laplace``) and on the misstated specs.
SWEEP_ESCALATIONS = 0


def _smaller_budgets(text: str, share: float, escalations: int | None) -> str:
    """The spec with every ``samples`` of 10^4 or more scaled by ``share`` and, unless ``escalations``
    is None, that many escalation rounds in each black-box obligation."""

    def scaled(match: re.Match[str]) -> str:
        value = int(match.group(1))
        return match.group(0) if value < 10_000 else f"samples = {max(int(value * share), 10_000)}"

    text = re.sub(r"samples = (\d+)", scaled, text)
    if escalations is None:
        return text
    black_box = r'(checker = "empirical_epsilon_lower_bound"\nparams = \{ )'
    escalated, count = re.subn(black_box, rf"\g<1>escalations = {escalations}, ", text)
    assert count, "no black-box obligation to set escalations in"
    return escalated


@pytest.fixture
def ecosystem_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Audit:
    """``audit(candidate, spec_name, share=1.0, escalations=None)``: the claim's verdict and, per
    obligation, its verdict and summary (the spec's quick budget, its sample budgets times ``share``,
    its black-box obligations' escalation rounds set to ``escalations`` unless None, seed 1).

    The spec's smaller black-box obligation stands in for dpaudit's own (its floor of draws and its
    escalations), as the spec's whole one does: these tests are about the adapters, the implied audit's
    rules are tests/audit/test_implied_obligations.py's (without this, each sweep ran that audit too, at
    10^5 draws with escalation: 2-4 times the test's time)."""
    monkeypatch.setattr(implied, "BLACK_BOX_FLOOR", 10_000)
    monkeypatch.setattr(implied, "NARROWING", {})

    def audit(
        candidate: str, name: str, share: float = 1.0, escalations: int | None = None
    ) -> tuple[str, dict[str, str]]:
        spec = ecosystem_spec(name)
        if share != 1.0 or escalations is not None:
            text = _smaller_budgets(ecosystem_spec(name).read_text(encoding="utf-8"), share, escalations)
            spec = tmp_path / spec.name
            spec.write_text(text, encoding="utf-8")
        report = dpaudit.check(candidate, spec, quick=True, seed=1)
        (claim,) = report.claims
        summaries = {
            item.obligation.id: f"{item.evidence.verdict.value}: {item.evidence.summary}"
            for relation in claim.relations
            for item in relation.obligations
        }
        return claim.verdict.value, summaries

    return audit
