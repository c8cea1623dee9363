"""docs/checkers.md is the registry's (python -m dpaudit.audit.checker_reference), and --quick without a
quick table caps the budgets it documents."""

from __future__ import annotations

from dpaudit.audit.checker_reference import REFERENCE_PATH, checker_reference
from dpaudit.audit.plugins import obligation_for_run
from dpaudit.kernel.claims import Obligation


def test_the_reference_is_current():
    assert REFERENCE_PATH.read_text(encoding="utf-8") == checker_reference(), (
        "run: python -m dpaudit.audit.checker_reference"
    )


def test_quick_without_a_quick_table_caps_the_documented_budgets():
    written = Obligation("o", "s", "empirical_epsilon_lower_bound", {"samples": 1_000_000, "confidence": 0.99})
    assert obligation_for_run(written, quick=True).params == {"samples": 100_000, "confidence": 0.99}
    assert obligation_for_run(written, quick=False).params["samples"] == 1_000_000
    unstated = Obligation("o", "s", "empirical_epsilon_lower_bound", {})
    assert obligation_for_run(unstated, quick=True).params == {"samples": 100_000}
    small = Obligation("o", "s", "empirical_epsilon_lower_bound", {"samples": 5000})
    assert obligation_for_run(small, quick=True).params["samples"] == 5000
    auto = Obligation("o", "s", "empirical_epsilon_lower_bound", {"samples": "auto"})
    assert obligation_for_run(auto, quick=True).params["samples"] == "auto"
    own = Obligation("o", "s", "empirical_epsilon_lower_bound", {"samples": 10**6}, quick_params={"samples": 300_000})
    assert obligation_for_run(own, quick=True).params["samples"] == 300_000  # the spec's quick table wins


def test_the_kinds_reference_is_current():
    from dpaudit.audit.kind_reference import KINDS_PATH, kind_reference

    assert KINDS_PATH.read_text(encoding="utf-8") == kind_reference(), "run: python -m dpaudit.audit.kind_reference"
