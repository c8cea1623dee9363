"""Candidates run isolated, with time and memory limits, and fail with a reason."""

from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.process import (
    CandidateLimits,
    CandidateProcess,
    parse_candidate,
)
from dpaudit.errors import CandidateError, InvalidArgument

FIXTURES = str(Path(__file__).parent / "candidates_fixture")
ARGS = {"value": [0.0, 1.0], "sigma": 1.0}


def _ref(name):
    return parse_candidate(f"sample_candidates:{name}", path=FIXTURES)


def test_good_candidate_is_reproducible():
    with CandidateProcess(_ref("gaussian")) as candidate:
        first = candidate.sample(ARGS, 50, np.random.SeedSequence(4))
        second = candidate.sample(ARGS, 50, np.random.SeedSequence(4))
    assert first.shape == (50, 2)
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("text", ["nocolon", "a:b:c", "1mod:f", "mod:", ":f", "mod:f-g"])
def test_parse_rejects(text):
    with pytest.raises(InvalidArgument):
        parse_candidate(text)


def test_hanging_candidate_is_stopped_at_the_limit():
    limits = CandidateLimits(timeout_seconds=1.0)
    with (
        CandidateProcess(_ref("sleeps_forever"), limits) as candidate,
        pytest.raises(CandidateError, match="did not answer within 1 s"),
    ):
        candidate.sample(ARGS, 1, np.random.SeedSequence(0))


def test_raising_candidate_reports_its_traceback():
    with (
        CandidateProcess(_ref("raises")) as candidate,
        pytest.raises(CandidateError, match="planted failure in the candidate") as info,
    ):
        candidate.sample(ARGS, 1, np.random.SeedSequence(0))
    assert "Traceback" in str(info.value)


@pytest.mark.parametrize(("name", "fragment"), [("returns_nan", "non-finite"), ("wrong_shapes", "different shapes")])
def test_bad_outputs(name, fragment):
    with CandidateProcess(_ref(name)) as candidate, pytest.raises(CandidateError, match=fragment):
        candidate.sample(ARGS, 20, np.random.SeedSequence(1))


def test_memory_limit():
    with (
        CandidateProcess(_ref("eats_memory"), CandidateLimits(memory_mib=512)) as candidate,
        pytest.raises(CandidateError, match=r"MemoryError|died"),
    ):
        candidate.sample(ARGS, 1, np.random.SeedSequence(1))


@pytest.mark.parametrize(("name", "fragment"), [("absent", "AttributeError"), ("NOT_CALLABLE", "not a callable")])
def test_load_failures(name, fragment):
    with pytest.raises(CandidateError, match=fragment), CandidateProcess(_ref(name)):
        pass


def test_missing_module():
    with (
        pytest.raises(CandidateError, match="ModuleNotFoundError"),
        CandidateProcess(parse_candidate("no_such_module_here:f", path=FIXTURES)),
    ):
        pass
