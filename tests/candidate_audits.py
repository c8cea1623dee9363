"""Shared by the input-search tests: audit one candidate against a spec with one obligation's params
changed (its search on or off, a smaller budget) and read that obligation's evidence."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

from dpaudit.audit.candidates import audit as candidate_audit
from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import load_spec
from dpaudit.kernel.claims import Claim
from dpaudit.kernel.evidence import Evidence


def without_implied_obligations() -> AbstractContextManager[object]:
    """Within it, candidate audits run the spec's obligations only, not the checks dpaudit adds to every
    candidate audit (test_implied_obligations.py tests those): for a test that asserts one obligation's verdict."""
    return mock.patch.object(candidate_audit, "implied_obligations", lambda claim, kept: ())


@contextmanager
def audited_alone(claim: Claim, *obligation_ids: str) -> Iterator[Claim]:
    """The claim to audit within the block: ``claim`` itself when no ``obligation_ids`` are given; else the claim
    with those of its obligations alone, audited without the checks dpaudit adds to every candidate audit, for a
    test that reads only their verdicts (the others would run beside them and be read by no one)."""
    if not obligation_ids:
        yield claim
        return
    kept = tuple(obligation for obligation in claim.obligations if obligation.id in obligation_ids)
    assert len(kept) == len(obligation_ids), f"not all of {obligation_ids} are obligations of {claim.id}"
    with without_implied_obligations():
        yield replace(claim, obligations=kept)


@contextmanager
def only_added(claim: Claim, obligation_id: str) -> Iterator[Claim]:
    """Within it, candidate audits run ``obligation_id`` alone, one of the checks dpaudit adds to every
    candidate audit, made as for the whole claim (which the block gets as it is)."""
    whole = candidate_audit.candidate_obligations

    def alone(claim: Claim, path: str) -> Claim:
        audited = whole(claim, path)
        kept = tuple(obligation for obligation in audited.obligations if obligation.id == obligation_id)
        assert kept, f"dpaudit adds no obligation {obligation_id!r} to a candidate audit of {claim.id}"
        return replace(audited, obligations=kept)

    with mock.patch.object(candidate_audit, "candidate_obligations", alone):
        yield claim


def obligation_evidence(spec: Path, candidate: str, folder: Path | str, obligation_id: str, **params: Any) -> Evidence:
    """The evidence of ``obligation_id`` when ``candidate`` (``module:callable`` in ``folder``) is
    audited against ``spec`` (seed 3, quick budgets), with ``params`` set in that obligation."""
    claim = load_spec(spec)
    if params:
        obligations = tuple(
            replace(o, params={**o.params, **params}) if o.id == obligation_id else o for o in claim.obligations
        )
        claim = replace(claim, obligations=obligations)
    # an obligation of the spec is audited alone, and so is one dpaudit adds (made from the whole spec)
    own = obligation_id in {obligation.id for obligation in claim.obligations}
    with audited_alone(claim, obligation_id) if own else only_added(claim, obligation_id) as audited:
        report = audit_candidate(
            audited,
            spec,
            parse_candidate(candidate, path=str(folder)),
            limits=CandidateLimits(),
            seed=3,
            quick=True,
        )
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}[obligation_id]
