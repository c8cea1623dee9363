"""Shared by the candidate-audit tests."""

import pytest

from dpaudit.audit.candidates import audit as candidate_audit


@pytest.fixture
def spec_obligations_only(monkeypatch):
    """The candidate audits of this test run the spec's obligations only, not the checks dpaudit adds to
    every candidate audit (test_implied_obligations.py tests those): the test asserts one obligation's verdict."""
    monkeypatch.setattr(candidate_audit, "implied_obligations", lambda claim, kept: ())
