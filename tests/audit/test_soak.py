"""Candidate checks in a row leave nothing behind: no processes, descriptors or temporary files.

(The 200-check soak with memory and 4 concurrent audits is tests/benchmarks/test_soak.py.)"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.process import CandidateProcess
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.errors import CandidateError
from dpaudit.mechanisms.interface import CandidateCall
from tests.audit.soak_probe import footprint

FIXTURES = str(Path(__file__).parent / "candidates_fixture")
CALL = CandidateCall().to_json(["sigma"])


def _run(name: str, limits: CandidateLimits | None = None) -> None:
    ref = parse_candidate(f"sample_candidates:{name}", path=FIXTURES)
    try:
        with CandidateProcess(ref, limits) as candidate:
            candidate.sample([0.0, 1.0], {"sigma": 1.0}, CALL, 20, np.random.SeedSequence(1))
    except CandidateError:
        pass  # failing candidates are part of the soak: they must clean up too


@pytest.mark.slow  # twenty candidate workers in a row: the main CI job runs it, not the floors one
def test_twenty_candidate_runs_in_a_row_leave_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's own temporary files only
    _run("gaussian")  # warm up: imports and caches, not leaks
    before = footprint()
    for index in range(20):
        _run(("gaussian", "raises", "returns_nan", "escapes_and_writes")[index % 4])
    _run("sleeps_forever", CandidateLimits(timeout_seconds=0.5))
    after = footprint()
    assert after.children == before.children
    assert after.descriptors == before.descriptors
    assert after.temporary_files == before.temporary_files == ()
