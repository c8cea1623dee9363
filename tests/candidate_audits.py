"""Shared by the input-search tests: audit one candidate against a spec with one obligation's params
changed (its search on or off, a smaller budget) and read that obligation's evidence."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import load_spec
from dpaudit.kernel.evidence import Evidence


def obligation_evidence(spec: Path, candidate: str, folder: Path | str, obligation_id: str, **params: Any) -> Evidence:
    """The evidence of ``obligation_id`` when ``candidate`` (``module:callable`` in ``folder``) is
    audited against ``spec`` (seed 3, quick budgets), with ``params`` set in that obligation."""
    claim = load_spec(spec)
    if params:
        obligations = tuple(
            replace(o, params={**o.params, **params}) if o.id == obligation_id else o for o in claim.obligations
        )
        claim = replace(claim, obligations=obligations)
    report = audit_candidate(
        claim, spec, parse_candidate(candidate, path=str(folder)), limits=CandidateLimits(), seed=3, quick=True
    )
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}[obligation_id]
