"""A candidate's counting batches travel to its worker as few requests (issue 41, point 2): consecutive
batches merge up to REQUEST_BYTES of outputs, each answer is handed back in the sizes asked for, and the
grouping depends only on the sizes and the output's width, so a seed gives the same outputs every run."""

from pathlib import Path

import numpy as np

from dpaudit.audit.candidates.kinds import REQUEST_BYTES, CandidateMechanism, _grouped, candidate_kind_for
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate

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
