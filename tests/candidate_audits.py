"""Shared by the input-search tests: audit one candidate against a spec with one obligation's params
changed (its search on or off, a smaller budget) and read that obligation's evidence."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

from dpaudit.audit.candidates import audit as candidate_audit
from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import load_spec
from dpaudit.kernel.evidence import Evidence


def without_implied_obligations() -> AbstractContextManager[object]:
    """Within it, candidate audits run the spec's obligations only, not the checks dpaudit adds to every
    candidate audit (test_implied_obligations.py tests those): for a test that asserts one obligation's verdict."""
    return mock.patch.object(candidate_audit, "implied_obligations", lambda claim, kept: ())


def obligation_evidence(spec: Path, candidate: str, folder: Path | str, obligation_id: str, **params: Any) -> Evidence:
    """The evidence of ``obligation_id`` when ``candidate`` (``module:callable`` in ``folder``) is
    audited against ``spec`` (seed 3, quick budgets), with ``params`` set in that obligation."""
    claim = load_spec(spec)
    if params:
        obligations = tuple(
            replace(o, params={**o.params, **params}) if o.id == obligation_id else o for o in claim.obligations
        )
        claim = replace(claim, obligations=obligations)
    # an obligation of the spec is audited with the spec's obligations only: the checks dpaudit adds to every
    # candidate audit (test_implied_obligations.py) would run beside it and be read by no one
    own = obligation_id in {obligation.id for obligation in claim.obligations}
    with without_implied_obligations() if own else nullcontext():
        report = audit_candidate(
            claim, spec, parse_candidate(candidate, path=str(folder)), limits=CandidateLimits(), seed=3, quick=True
        )
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}[obligation_id]
