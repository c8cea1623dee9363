"""Benchmark: auditing a candidate against auditing the reference, same spec, seed and budget.

Targets (issues 17 and 41): a vectorised Gaussian candidate within 1.3x of the reference at 10^6 and 10^7 samples
per side; a per-call candidate within 5x. Ratios from the same process, best of 3 runs.

Two figures per case: the same obligation on the reference and on the candidate (no input search,
no escalation: the same work, so the ratio is the cost of the isolation), and the whole
``dpaudit check`` (which adds the input search, escalation and the implied checks of
dpaudit.audit.candidates.implied: more work, not overhead).

Run on demand: python -m pytest tests/benchmarks/test_candidate_speed.py -o addopts="--import-mode=importlib" -s
"""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.kinds import CandidateMechanism, candidate_kind_for
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import builtin_spec_dir, parse_spec

pytestmark = pytest.mark.benchmark

FIXTURES = str(Path(__file__).parents[1] / "audit" / "candidates_fixture")
SPEC = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"


def _claim(samples: int):
    data = tomllib.loads(SPEC.read_text())
    data["obligations"] = [
        {
            "id": "empirical",
            "statement": "no event certifies epsilon > 4.38 on f(X) = 0, f(X') = 1",
            "checker": "empirical_epsilon_lower_bound",
            "params": {
                "samples": samples,
                "pairs": [{"first": [0.0], "second": [1.0]}],
                "search": "off",
                "escalations": 0,
            },
        }
    ]
    return parse_spec(data, str(SPEC))


def _same_obligation(claim, ref, limits) -> None:
    kind = candidate_kind_for(claim.mechanism.name)
    with CandidateMechanism(ref, limits, kind, claim.mechanism.params) as mechanism:
        run_audit([(claim, str(SPEC))], seed=1, candidate=mechanism)


def _best(run, repetitions: int = 3) -> float:
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize(
    ("candidate", "samples", "target"),
    [("vectorised_good_gaussian", 10**6, 1.3), ("vectorised_good_gaussian", 10**7, 1.3), ("good_gaussian", 10**5, 5.0)],
)
def test_candidate_audit_against_reference(candidate, samples, target, record):
    claim = _claim(samples)
    reference = _best(lambda: run_audit([(claim, str(SPEC))], seed=1))
    ref = parse_candidate(f"sample_candidates:{candidate}", path=FIXTURES)
    limits = CandidateLimits(timeout_seconds=60.0)
    same = _best(lambda: _same_obligation(claim, ref, limits))
    audited = _best(lambda: audit_candidate(claim, SPEC, ref, limits=limits, seed=1, quick=False))
    record(
        "17.7",
        f"candidate {candidate}, {samples:,} draws per side, same obligation: time / reference",
        same / reference,
        "x",
        f"<= {target}x",
        same / reference <= target,
        f"reference {reference:.3f} s, candidate {same:.3f} s; whole dpaudit check {audited:.3f} s",
    )
    print(
        f"\n{candidate} at {samples:,} samples per side: reference {reference:.3f} s; candidate, same obligation "
        f"{same:.3f} s, ratio {same / reference:.2f} (target <= {target}); whole dpaudit check {audited:.3f} s "
        f"(ratio {audited / reference:.2f}, with the search, escalation and implied checks)"
    )


def test_per_call_overhead_against_calling_the_candidate_in_process(record):
    """What the isolation costs per call: n calls through the worker against the same n calls in this process."""
    import sys

    import numpy as np

    from dpaudit.audit.candidates.process import CandidateProcess
    from dpaudit.mechanisms.interface import CandidateCall

    sys.path.insert(0, FIXTURES)
    from sample_candidates import good_gaussian

    calls = 10**5
    params = {"sigma": 1.0, "sensitivity": 1.0}
    rng = np.random.default_rng(0)
    bare = _best(lambda: np.stack([good_gaussian([0.0], rng=rng, **params) for _ in range(calls)]))
    with CandidateProcess(parse_candidate("sample_candidates:good_gaussian", path=FIXTURES)) as worker:
        call = CandidateCall().to_json(list(params))
        isolated = _best(lambda: worker.sample([0.0], params, call, calls, np.random.SeedSequence(0)))
    record(
        "17.7",
        f"per-call candidate, {calls:,} calls: through the isolated worker / in process",
        isolated / bare,
        "x",
        "reported",
        None,
        f"worker {isolated:.3f} s, in process {bare:.3f} s",
    )
    print(
        f"\nper-call candidate, {calls:,} calls: through the worker {isolated:.3f} s, in process {bare:.3f} s, "
        f"ratio {isolated / bare:.2f}"
    )
