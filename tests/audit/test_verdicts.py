"""The one rule deriving a claim's verdict, and the CI policies."""

import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import Verdict, combine_verdicts, fails_policy

V = Verdict


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([V.PROVEN], V.PROVEN),
        ([V.PROVEN, V.VERIFIED], V.VERIFIED),
        ([V.VERIFIED, V.CONSISTENT], V.CONSISTENT),
        ([V.CONSISTENT, V.INCONCLUSIVE], V.INCONCLUSIVE),
        ([V.INCONCLUSIVE, V.ERROR], V.ERROR),
        ([V.PROVEN, V.VIOLATED, V.ERROR], V.VIOLATED),
        ([V.VIOLATED, V.VERIFIED], V.VIOLATED),
    ],
)
def test_combine(verdicts, expected):
    assert combine_verdicts(verdicts) is expected


def test_combine_needs_verdicts():
    with pytest.raises(InvalidArgument):
        combine_verdicts([])


@pytest.mark.parametrize(
    ("verdict", "violated_policy", "inconclusive_policy"),
    [
        (V.PROVEN, False, False),
        (V.VERIFIED, False, False),
        (V.CONSISTENT, False, False),
        (V.INCONCLUSIVE, False, True),
        (V.ERROR, True, True),
        (V.VIOLATED, True, True),
    ],
)
def test_policies(verdict, violated_policy, inconclusive_policy):
    assert fails_policy(verdict, "violated") is violated_policy
    assert fails_policy(verdict, "inconclusive") is inconclusive_policy


def test_unknown_policy():
    with pytest.raises(InvalidArgument):
        fails_policy(V.PROVEN, "never")


def _result(verdict, rejected=False):
    import numpy as np

    from dpaudit.audit.results import ObligationResult
    from dpaudit.kernel.claims import Obligation
    from dpaudit.kernel.evidence import Evidence
    from dpaudit.rng import SeedRecord

    details = {"assumption_rejected": True} if rejected else {}
    return ObligationResult(
        Obligation("o", "s", "parametric_noise_fit" if rejected else "empirical_epsilon_lower_bound", {}),
        Evidence(verdict, "summary", "domain", "method", details=details),
        SeedRecord.of(np.random.SeedSequence(1)),
    )


def test_a_rejected_assumption_never_lowers_the_verdict_unless_nothing_else_decides():
    from dpaudit.audit.results import RelationResult, deciding_obligations
    from dpaudit.kernel.verdicts import combine_verdicts
    from dpaudit.privacy.relations import replace_one

    items = (_result(Verdict.CONSISTENT), _result(Verdict.INCONCLUSIVE, rejected=True))
    deciding = deciding_obligations(items)
    assert combine_verdicts(item.evidence.verdict for item in deciding) is Verdict.CONSISTENT
    relation = RelationResult(replace_one(), Verdict.CONSISTENT, items)
    assert not relation.fails("inconclusive")
    alone = (_result(Verdict.INCONCLUSIVE, rejected=True),)
    assert deciding_obligations(alone) == alone
    assert RelationResult(replace_one(), Verdict.INCONCLUSIVE, alone).fails("inconclusive")
    # a rejected family never hides a violation found by another check
    violated = (_result(Verdict.VIOLATED), _result(Verdict.INCONCLUSIVE, rejected=True))
    assert combine_verdicts(item.evidence.verdict for item in deciding_obligations(violated)) is Verdict.VIOLATED


@pytest.mark.parametrize("verdict", [V for V in Verdict if V is not Verdict.VIOLATED])
def test_a_known_finding_no_longer_violated_fails_under_every_policy(verdict):
    """A pinned finding is a violation the spec expects: any other verdict means it is no longer reproduced."""
    from dataclasses import replace

    result = replace(_result(verdict), known_finding="the paper's constant is off")
    assert all(result.fails(policy) for policy in ("violated", "never"))
    reproduced = replace(_result(Verdict.VIOLATED), known_finding="the paper's constant is off")
    assert not any(reproduced.fails(policy) for policy in ("violated", "never"))
    assert replace(reproduced, finding_changed="measured 1.2, pinned 1.1").fails("never")


def test_a_failure_text_says_which_pair_the_neighbours_are_when_a_pair_was_shrunk():
    import numpy as np

    from dpaudit.audit.results import AuditReport, ClaimResult, ObligationResult, RelationResult
    from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
    from dpaudit.kernel.evidence import Evidence
    from dpaudit.privacy.guarantees import ApproxDP
    from dpaudit.privacy.relations import replace_one
    from dpaudit.rng import SeedRecord

    obligation = Obligation("empirical", "no event certifies epsilon > 1", "empirical_epsilon_lower_bound", {})
    shrunk = {"pair": "p, shrunk to 1 and 1 records", "records": [1, 1], "from_records": [6, 6]}
    counterexample = {
        "pair": "p",
        "neighbours": {"X": [[1]], "X'": [[2]]},
        "shrunk": {**shrunk, "epsilon_lower_bound": 1.5},
    }
    evidence = Evidence(Verdict.VIOLATED, "1.8 > 1", "domain", "method", counterexample=counterexample)
    claim = Claim(
        "c", "t", MechanismSpec("black_box", {}), ApproxDP(1.0, 0.0), (replace_one(),), Source("p", "l"), (obligation,)
    )
    item = ObligationResult(obligation, evidence, SeedRecord.of(np.random.SeedSequence(1)))
    report = AuditReport(
        claims=(ClaimResult(claim, None, (RelationResult(replace_one(), Verdict.VIOLATED, (item,)),)),),
        seed=1,
        quick=True,
    )
    lines = report.failure_text().splitlines()
    assert lines[2:4] == [
        "    pair: p",
        "    shrunk: p, shrunk to 1 and 1 records ([6, 6] -> [1, 1] records, certifying epsilon >= 1.5 on its own "
        "draws); the neighbours and the replay below are this smaller pair's, the verdict rests on the pair above",
    ]
