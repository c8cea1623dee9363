"""Benchmark: auditing a candidate against auditing the reference, same spec, seed and budget.

Targets (issue 17): a vectorised Gaussian candidate within 2x of the reference at 10^6 samples
per side; a per-call candidate within 5x. Ratios from the same process, best of 3 runs.

Run on demand: python -m pytest tests/benchmarks/test_candidate_speed.py -o addopts="--import-mode=importlib" -s
"""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.process import CandidateLimits, parse_candidate
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
            "params": {"samples": samples, "pairs": [{"first": [0.0], "second": [1.0]}]},
        }
    ]
    return parse_spec(data, str(SPEC))


def _best(run, repetitions: int = 3) -> float:
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize(
    ("candidate", "samples", "target"),
    [("vectorised_good_gaussian", 10**6, 2.0), ("vectorised_good_gaussian", 10**7, 2.0), ("good_gaussian", 10**5, 5.0)],
)
def test_candidate_audit_against_reference(candidate, samples, target):
    claim = _claim(samples)
    reference = _best(lambda: run_audit([(claim, str(SPEC))], seed=1))
    ref = parse_candidate(f"sample_candidates:{candidate}", path=FIXTURES)
    limits = CandidateLimits(timeout_seconds=60.0)
    audited = _best(lambda: audit_candidate(claim, SPEC, ref, limits=limits, seed=1, quick=False))
    ratio = audited / reference
    print(
        f"\n{candidate} at {samples:,} samples per side: reference {reference:.3f} s, candidate {audited:.3f} s, "
        f"ratio {ratio:.2f} (target <= {target})"
    )


def test_per_call_overhead_against_calling_the_candidate_in_process():
    """What the isolation costs per call: n calls through the worker against the same n calls in this process."""
    import sys

    import numpy as np

    from dpaudit.audit.candidates.process import CandidateProcess

    sys.path.insert(0, FIXTURES)
    from sample_candidates import good_gaussian

    calls = 10**5
    params = {"sigma": 1.0, "sensitivity": 1.0}
    rng = np.random.default_rng(0)
    bare = _best(lambda: np.stack([good_gaussian([0.0], rng=rng, **params) for _ in range(calls)]))
    with CandidateProcess(parse_candidate("sample_candidates:good_gaussian", path=FIXTURES)) as worker:
        isolated = _best(lambda: worker.sample([0.0], params, calls, np.random.SeedSequence(0)))
    print(
        f"\nper-call candidate, {calls:,} calls: through the worker {isolated:.3f} s, in process {bare:.3f} s, "
        f"ratio {isolated / bare:.2f}"
    )
