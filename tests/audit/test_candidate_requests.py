"""A candidate's counting batches travel to its worker as few requests (issue 41, point 2): consecutive
batches merge up to REQUEST_BYTES of outputs (more for a large input), each answer is handed back in the sizes
asked for, and the grouping depends only on the sizes, the output's width and the input, so a seed gives the
same outputs every run."""

from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.kinds import (
    MAX_REQUEST_BYTES,
    REQUEST_BYTES,
    CandidateMechanism,
    _grouped,
    _request_bytes,
    candidate_kind_for,
)
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.errors import CandidateError

FIXTURES = str(Path(__file__).parent / "candidates_fixture")


def test_consecutive_sizes_merge_up_to_the_request_limit():
    rows = REQUEST_BYTES // 8
    assert _grouped([rows // 4] * 8, 1) == [[rows // 4] * 4, [rows // 4] * 4]
    assert _grouped([rows // 4] * 8, 2) == [[rows // 4] * 2] * 4  # a wider output: fewer rows per request
    assert _grouped([rows * 3, 5, 5], 1) == [[rows * 3], [5, 5]]  # a size above the limit goes alone
    assert _grouped([], 1) == []


def _stream(name, sizes, seed):
    kind = candidate_kind_for("gaussian")
    ref = parse_candidate(f"sample_candidates:{name}", path=FIXTURES)
    with CandidateMechanism(ref, CandidateLimits(), kind, {"sigma": 1.0, "sensitivity": 1.0}) as mechanism:
        return [batch.copy() for batch in mechanism.release_stream([0.0], sizes, rng=np.random.default_rng(seed))]


def test_the_answers_come_back_in_the_sizes_asked_for_and_repeat_for_a_seed():
    sizes = [1000] * 7 + [123]
    for name in ("vectorised_good_gaussian", "good_gaussian"):
        first = _stream(name, sizes, seed=4)
        assert [len(batch) for batch in first] == sizes
        again = _stream(name, sizes, seed=4)
        assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
        other = _stream(name, sizes, seed=5)
        assert not np.array_equal(first[0], other[0])


def test_releases_one_per_seed_travel_as_one_request_and_equal_the_releases_one_by_one():
    kind = candidate_kind_for("gaussian")
    seeds = [3, 3, 8, 21]
    for name in ("good_gaussian", "vectorised_good_gaussian", "global_numpy_gaussian"):
        ref = parse_candidate(f"sample_candidates:{name}", path=FIXTURES)
        with CandidateMechanism(ref, CandidateLimits(), kind, {"sigma": 1.0, "sensitivity": 1.0}) as mechanism:
            together = mechanism.release_each([0.0, 1.0], seeds)
            flagged = mechanism.used_global_random
        with CandidateMechanism(ref, CandidateLimits(), kind, {"sigma": 1.0, "sensitivity": 1.0}) as mechanism:
            one_by_one = np.stack([mechanism.release([0.0, 1.0], rng=np.random.default_rng(s)) for s in seeds])
        assert together.shape == (4, 2)
        np.testing.assert_array_equal(together, one_by_one)
        assert np.array_equal(together[0], together[1]) and not np.array_equal(together[0], together[2])
        assert flagged is (name == "global_numpy_gaussian")


def test_releases_one_per_seed_are_copies_when_a_vectorised_candidate_reuses_its_batch_array():
    kind = candidate_kind_for("gaussian")
    ref = parse_candidate("sample_candidates:vectorised_reused_buffer_gaussian", path=FIXTURES)
    with CandidateMechanism(ref, CandidateLimits(), kind, {"sigma": 1.0, "sensitivity": 1.0}) as mechanism:
        assert len(np.unique(mechanism.release_each([0.0], [1, 2, 3, 4]), axis=0)) == 4


def test_a_hang_among_releases_one_per_seed_is_timed_per_call_not_per_batch():
    kind = candidate_kind_for("gaussian")
    ref = parse_candidate("sample_candidates:vectorised_hangs_on_third_call", path=FIXTURES)
    with (
        CandidateMechanism(ref, CandidateLimits(timeout_seconds=1.0), kind, {"sigma": 1.0, "sensitivity": 1.0}) as m,
        pytest.raises(CandidateError, match=r"did not answer within 1 s"),
    ):
        m.release_each([0.0], list(range(20)))


def test_a_request_asks_for_more_outputs_when_its_input_is_large_and_at_most_the_cap():
    # each request carries its input: a dataset of long trajectories travels with 8 times its size in outputs
    assert _request_bytes(10) == REQUEST_BYTES
    assert _request_bytes(REQUEST_BYTES // 4) == 2 * REQUEST_BYTES
    assert _request_bytes(10 * MAX_REQUEST_BYTES) == MAX_REQUEST_BYTES
    # a small input asks for an answer a widened pipe (1 MiB) holds whole
    assert REQUEST_BYTES <= 1 << 20
