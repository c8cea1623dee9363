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

from pathlib import Path
from typing import Any

from dpaudit.audit.candidates.audit import candidate_obligations
from dpaudit.audit.candidates.implied import IMPLIED_PREFIX
from dpaudit.audit.rerun import claim_of_entry
from dpaudit.errors import DpAuditError

__all__ = ["missing_obligations"]


def _expected(entry: dict[str, Any], report: Path, *, candidate: bool) -> tuple[list[str], list[str]]:
    """The relation names and obligation ids the entry's spec makes a run state."""
    claim = claim_of_entry(entry, report)
    if candidate:
        claim = candidate_obligations(claim, str(entry.get("spec_path")))
    return [relation.name for relation in claim.relations], [obligation.id for obligation in claim.obligations]


def missing_obligations(document: dict[str, Any], report: Path, claim_id: str | None = None) -> list[tuple[str, str]]:
    """``(status, message)`` per claim of ``document`` (a report read from ``report``): ``fail`` when a
    relation or an obligation its spec states is missing or one it does not state is there, ``note``
    when the spec cannot be loaded here (the claim's other checks still run)."""
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
            relations, expected = _expected(entry, report, candidate=candidate)
        except DpAuditError as exc:
            outcomes.append(("note", f"{name}: its obligations are not compared with its spec: {exc}"))
            continue
        stated = {str(relation.get("relation")): relation for relation in entry.get("relations", [])}
        if sorted(stated) != sorted(relations):
            outcomes.append(("fail", f"{name}: the report's relations {sorted(stated)} are not the spec's {relations}"))
            continue
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
