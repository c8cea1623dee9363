"""Benchmark (issue 35, item 3): every kind's candidate audit at its example spec's full budget.

For each kind, ``dpaudit check`` of the example candidate of ``specs/examples/`` (the full audit a
user gets: the spec's obligations, the implied black-box audit with its input search, the
randomness contract, the parametric fit, the confirmation) against the audit of the same claim's
black-box obligations on dpaudit's reference in the same process (which runs them as a reference is
audited: no input search, no escalation, no confirmation; the ratio says what auditing unseen code
costs over the reference, not isolation overhead). Targets on 2 cores: 120 s for
the vector kinds, 300 s for DP-LSW, DP-LSL, GPOPE and the synthesis (the issue's budgets).

Run on demand: python -m pytest tests/benchmarks/test_candidate_kinds.py -o addopts="--import-mode=importlib" -s
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate, candidate_obligations
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import builtin_spec_dir, load_spec

pytestmark = pytest.mark.benchmark

EXAMPLES = builtin_spec_dir() / "examples"

FIXTURES = Path(__file__).parents[1] / "audit" / "candidates_fixture"

#: kind -> (example spec, the candidate's folder and module:callable, issue 35's target seconds,
#: issue 41's target seconds for a vectorised candidate)
CASES = {
    "gaussian": ("gaussian_candidate.toml", EXAMPLES, "example_candidates:gaussian", 120.0, 5.0),
    "laplace": ("laplace_candidate.toml", EXAMPLES, "example_candidates:laplace_vectorised", 120.0, 5.0),
    "dirichlet": ("dirichlet_candidate.toml", EXAMPLES, "example_candidates:dirichlet", 120.0, 15.0),
    "smooth_gaussian": ("smooth_gaussian_candidate.toml", EXAMPLES, "example_candidates:smooth_gaussian", 120.0, 15.0),
    "gpope_step": ("gpope_step_candidate.toml", EXAMPLES, "example_candidates:gpope_step", 120.0, 15.0),
    "accountant": ("accountant_candidate.toml", EXAMPLES, "example_candidates:accountant", 120.0, 5.0),
    "dp_lsw": ("dp_lsw_candidate.toml", FIXTURES, "sample_candidates:vectorised_reference_dp_lsw", 300.0, 60.0),
    "dp_lsl": ("dp_lsl_candidate.toml", EXAMPLES, "example_candidates:dp_lsl", 300.0, 60.0),
    "gpope": ("gpope_candidate.toml", EXAMPLES, "example_candidates:gpope", 300.0, 60.0),
    "private_synthesis": (
        "private_synthesis_candidate.toml",
        EXAMPLES,
        "example_candidates:private_synthesis",
        300.0,
        60.0,
    ),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_full_budget_candidate_audit_of_each_kind(kind, record):
    spec_name, folder, candidate, target, target_in_seconds = CASES[kind]
    path = EXAMPLES / spec_name
    claim = load_spec(path)
    started = time.perf_counter()
    audit_candidate(
        claim,
        path,
        parse_candidate(candidate, path=str(folder)),
        limits=CandidateLimits(),
        seed=1,
        quick=False,
    )
    candidate_seconds = time.perf_counter() - started
    black_box = candidate_obligations(claim, str(path))
    reference = replace(
        black_box, obligations=tuple(o for o in black_box.obligations if o.checker != "randomness_contract")
    )
    started = time.perf_counter()
    run_audit([(reference, str(path))], seed=1)
    reference_seconds = time.perf_counter() - started
    record(
        "35.3",
        f"{kind}: dpaudit check of the example candidate at full budget, seconds",
        candidate_seconds,
        "s",
        f"<= {target:g} s on 2 cores",
        candidate_seconds <= target,
        f"the same claim's black-box obligations on the reference took {reference_seconds:.1f} s "
        f"(ratio {candidate_seconds / max(reference_seconds, 1e-9):.2f})",
    )
    record(
        "41.1",
        f"{kind}: dpaudit check of the example's vectorised candidate at full budget, seconds",
        candidate_seconds,
        "s",
        f"<= {target_in_seconds:g} s on 2 cores",
        candidate_seconds <= target_in_seconds,
        f"{candidate}; the reference's black-box obligations {reference_seconds:.1f} s",
    )
