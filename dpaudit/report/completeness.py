"""Whether each claim of a report holds every obligation its spec makes it run, under every relation, each run
from the report's seed.

A report's digest binds its content, but anyone can compute it: a report re-signed after its
``violated`` obligations were deleted reads as a clean one. dpaudit never leaves an obligation out
of a finished claim (one it could not finish is ``inconclusive``, an interrupted run leaves out whole
claims and says so), so ``dpaudit recheck`` loads each claim's spec again and requires the
report's obligations, under each of the claim's relations, to be exactly those the spec states,
with, for a candidate's report, the checks every candidate audit adds
(:mod:`dpaudit.audit.candidates.implied`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dpaudit.audit.candidates.audit import candidate_obligations
from dpaudit.audit.candidates.implied import IMPLIED_PREFIX
from dpaudit.audit.rerun import claim_of_entry
from dpaudit.errors import DpAuditError

__all__ = ["missing_obligations"]


def _expected(
    entry: dict[str, Any], report: Path, *, candidate: bool
) -> tuple[list[str], dict[str, str], set[tuple[str, str]]]:
    """The relation names and obligations (by id, as JSON text) the entry's spec makes a run state, and the
    (relation, obligation) its known findings pin."""
    claim = claim_of_entry(entry, report)
    if candidate:
        claim = candidate_obligations(claim, str(entry.get("spec_path")))
    pinned = {(finding.relation, obligation) for finding in claim.known_findings for obligation in finding.obligations}
    stated = {obligation.id: _text(_bound(obligation.to_json())) for obligation in claim.obligations}
    return [relation.name for relation in claim.relations], stated, pinned


def _bound(obligation: Any) -> Any:
    """What of an obligation a run never changes: its checker and statement (its params may be capped by
    ``--quick``, ``--time-limit``, ``--samples`` or a ceiling)."""
    return {key: obligation.get(key) for key in ("checker", "statement")} if isinstance(obligation, dict) else None


def _text(obligation: Any) -> str:
    return json.dumps(obligation, sort_keys=True, default=str)


def _restated(name: str, relation: str, held: dict[str, Any], expected: dict[str, str]) -> list[tuple[str, str]]:
    """``unchecked`` for an obligation whose checker or statement are not its spec's: the spec changed since
    the run, or the report was edited after it."""
    return [
        (
            "unchecked",
            f"{name}/{relation}/{identifier}: its checker or statement are not those its spec states now "
            "(the spec changed since the run, or the report was edited)",
        )
        for item in held.get("obligations", [])
        if (identifier := str(item.get("obligation", {}).get("id"))) in expected
        and _text(_bound(item.get("obligation"))) != expected[identifier]
    ]


def _findings_as_pinned(name: str, stated: dict[str, Any], pinned: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """``fail`` for an obligation the report marks a known finding that its spec does not pin (a violation
    waved through), and for a pinned one the report does not show violated (a finding edited away; or the
    audit that wrote it failed on the change)."""
    outcomes = []
    for relation, held in stated.items():
        for item in held.get("obligations", []):
            key = (relation, str(item.get("obligation", {}).get("id")))
            if item.get("known_finding") is not None and key not in pinned:
                outcomes.append(("fail", f"{name}/{key[0]}/{key[1]}: marked a known finding its spec does not state"))
            if key in pinned and (item.get("evidence") or {}).get("verdict") != "violated":
                outcomes.append(
                    ("fail", f"{name}/{key[0]}/{key[1]}: its spec pins a known finding here, and it is not violated")
                )
    return outcomes


def missing_obligations(document: dict[str, Any], report: Path, claim_id: str | None = None) -> list[tuple[str, str]]:
    """``(status, message)`` per claim of ``document`` (a report read from ``report``): ``fail`` when a
    relation or an obligation its spec states is missing or one it does not state is there, or its known
    findings are not the spec's; ``unchecked`` when the spec cannot be loaded here or no longer states the
    report's claim (the claim's other checks still run; ``--require-all`` fails on it)."""
    outcomes: list[tuple[str, str]] = []
    candidate = isinstance(document.get("candidate"), dict)
    for entry in document["claims"]:
        name = entry.get("claim", {}).get("id")
        if claim_id is not None and name != claim_id:
            continue
        seeds = {
            item.get("seed", {}).get("entropy")
            for relation in entry.get("relations", [])
            for item in relation.get("obligations", [])
        }
        if seeds - {document.get("seed")}:
            ran = ", ".join(sorted(map(str, seeds)))
            outcomes.append(
                ("fail", f"{name}: its obligations ran from seed {ran}, not the report's {document.get('seed')}")
            )
        try:
            relations, expected, pinned = _expected(entry, report, candidate=candidate)
        except DpAuditError as exc:
            outcomes.append(
                (
                    "unchecked",
                    f"{name}: its obligations could not be compared with its spec, so one deleted from the report "
                    f"would go unseen: {exc}",
                )
            )
            continue
        stated = {str(relation.get("relation")): relation for relation in entry.get("relations", [])}
        if sorted(stated) != sorted(relations):
            outcomes.append(("fail", f"{name}: the report's relations {sorted(stated)} are not the spec's {relations}"))
            continue
        outcomes += _findings_as_pinned(name, stated, pinned)
        outcomes += [
            outcome for relation, held in stated.items() for outcome in _restated(name, relation, held, expected)
        ]
        for relation, held in stated.items():
            ids = [str(item.get("obligation", {}).get("id")) for item in held.get("obligations", [])]
            missing = [i for i in expected if i not in ids]
            extra = [i for i in ids if i not in expected]
            if missing or extra or len(ids) != len(set(ids)):
                said = "; ".join(
                    part
                    for part in (
                        f"missing {missing}" if missing else "",
                        f"not in the spec {extra}" if extra else "",
                        "an obligation twice" if len(ids) != len(set(ids)) else "",
                    )
                    if part
                )
                if all(
                    i.startswith(IMPLIED_PREFIX) for i in missing + extra
                ):  # the checks dpaudit adds, not the spec's
                    said += (
                        "; these are the checks dpaudit adds to a candidate audit, which another dpaudit version may "
                        "choose otherwise: check the candidate again with this one"
                    )
                outcomes.append(("fail", f"{name}/{relation}: not the obligations its spec states: {said}"))
    return outcomes
