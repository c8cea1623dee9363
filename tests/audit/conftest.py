"""Shared by the candidate-audit tests."""

import pytest

from tests.candidate_audits import without_implied_obligations


@pytest.fixture
def spec_obligations_only():
    """The candidate audits of this test run the spec's obligations only (see :func:`without_implied_obligations`)."""
    with without_implied_obligations():
        yield
