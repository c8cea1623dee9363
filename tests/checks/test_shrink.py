"""Shrinking a violating pair: shared records go while the smaller pair still refutes the claim."""

from __future__ import annotations

import numpy as np

from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.checks.empirical.shrink import MAX_SHRINK_ATTEMPTS, shrink_pair
from dpaudit.mechanisms.catalogue import get_mechanism
from dpaudit.privacy.relations import replace_one

STEP = get_mechanism("gpope_step")
PARAMS = {"records": 8, "clip_norm": 1.0, "noise_multiplier": 1.0}


def _pair(shared: int) -> NeighbourPair:
    rows = [[float(i), 0.0] for i in range(shared)]
    return NeighbourPair(np.array([*rows, [50.0, 50.0]]), np.array([*rows, [-50.0, -50.0]]), "big pair")


def test_a_leak_in_one_record_shrinks_to_that_record():
    seen = []

    def refutes(candidate, attempt):
        seen.append(len(candidate.first))
        return 9.0  # every smaller pair still shows the leak

    shrunk = shrink_pair(_pair(7), STEP, PARAMS, replace_one(), refutes)
    assert shrunk is not None and shrunk.records == (1, 1) and shrunk.original_records == (8, 8)
    assert shrunk.pair.first.tolist() == [[50.0, 50.0]] and shrunk.pair.second.tolist() == [[-50.0, -50.0]]
    assert shrunk.attempts == len(seen) <= MAX_SHRINK_ATTEMPTS
    assert "shrunk to 1 and 1 records" in shrunk.pair.label


def test_records_the_leak_needs_are_kept():
    def refutes(candidate, attempt):
        return 9.0 if len(candidate.first) >= 4 else None  # the leak needs three other records

    shrunk = shrink_pair(_pair(15), STEP, PARAMS, replace_one(), refutes)
    assert shrunk is not None and shrunk.records[0] >= 4 and shrunk.records[0] < 16


def test_nothing_shrinks_when_no_smaller_pair_refutes_or_inputs_are_vectors():
    assert shrink_pair(_pair(7), STEP, PARAMS, replace_one(), lambda candidate, attempt: None) is None
    gaussian = get_mechanism("gaussian")
    vectors = NeighbourPair(np.zeros(4), np.r_[np.zeros(3), 1.0], "vectors")
    assert shrink_pair(vectors, gaussian, {"sigma": 1.0, "sensitivity": 1.0}, replace_one(), lambda c, a: 9.0) is None


def test_a_screened_pair_shrinks_into_screened_pairs():
    """Every smaller pair of a screened one keeps its pilot and draw caps: its certification stays as
    cheap as the screened pair's own (datasets of hundreds of records)."""
    caps = []

    def refutes(candidate, attempt):
        caps.append((candidate.pilot_cap, candidate.draws_cap))
        return None

    big = _pair(7)
    screened = NeighbourPair(big.first, big.second, big.label, pilot_cap=200, draws_cap=2000)
    assert shrink_pair(screened, STEP, PARAMS, replace_one(), refutes) is None
    assert caps and set(caps) == {(200, 2000)}


def test_shrinking_stops_at_a_limit_of_the_candidate_and_the_violation_stands(monkeypatch):
    """A candidate that hangs or dies on a smaller pair ends the shrinking after that one attempt: the violation
    found on the full pair is returned as it was, with no shrunk pair."""
    from types import SimpleNamespace

    from dpaudit.checks.empirical import epsilon_lower_bound as module
    from dpaudit.checks.empirical.budget import AuditBudget
    from dpaudit.errors import CandidateLimitReached
    from dpaudit.kernel.evidence import Evidence
    from dpaudit.kernel.verdicts import Verdict
    from dpaudit.privacy.guarantees import ApproxDP

    attempts = []

    def hangs(*args, **kwargs):
        attempts.append(args[1][0].label)
        raise CandidateLimitReached("candidate did not answer within 1 s")

    monkeypatch.setattr(module, "certify_privacy_lower_bound", hangs)
    mechanism_spec = SimpleNamespace(name="gpope_step", params=PARAMS)
    claim = SimpleNamespace(mechanism=mechanism_spec)
    context = SimpleNamespace(claim=claim, relation=replace_one(), seed=1, executor=None)
    found = Evidence(Verdict.VIOLATED, "certified", "1 pair", "Monte Carlo", counterexample={"pair": "big pair"})
    pairs = [_pair(7)]
    returned = module._with_shrunk_pair(
        found, pairs, object(), AuditBudget(samples=10_000), ApproxDP(epsilon=1.0, delta=1e-5), context
    )
    assert returned is found and len(attempts) == 1 and len(pairs) == 1
