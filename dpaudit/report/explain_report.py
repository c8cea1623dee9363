"""``dpaudit explain audit.json [CLAIM]``: what each verdict of a finished audit rests on.

For every claim (or the one named) and relation: the verdict, and for every obligation its
statement, its verdict and summary, what it covered, how it was checked, the assumption it made
(a fitted family, a tested model), the certificate that backs a ``verified`` (its routes, which
``dpaudit recheck`` replays), the counterexample that backs a ``violated`` (the pair and the event,
and how to replay it), and the seed that reproduces it.
"""

from __future__ import annotations

from typing import Any

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.evidence import named_event

__all__ = ["explain_report"]


def explain_report(document: dict[str, Any], claim_id: str | None = None) -> str:
    """A plain-text account of the report's verdicts (one claim with ``claim_id``).

    Raises:
        InvalidArgument: when no claim of the report has ``claim_id`` (listing those it has).
    """
    claims = [entry for entry in document.get("claims", []) if isinstance(entry, dict)]
    ids = [str(entry.get("claim", {}).get("id")) for entry in claims]
    if claim_id is not None:
        claims = [entry for entry, known in zip(claims, ids, strict=True) if known == claim_id]
        if not claims:
            raise InvalidArgument(f"claim={claim_id!r}: the report has no such claim; it has {', '.join(ids)}")
    lines = [f"report of `{document.get('command', 'dpaudit')}` (seed {document.get('seed')})"]
    if document.get("interrupted"):
        lines.append(f"interrupted: {document['interrupted']}")
    for entry in claims:
        lines.append("")
        lines.extend(_claim_lines(entry))
    return "\n".join(lines)


def _claim_lines(entry: dict[str, Any]) -> list[str]:
    claim = entry.get("claim", {})
    lines = [f"{claim.get('id')}: {claim.get('title', '')}", f"  spec: {entry.get('spec_path')}"]
    guarantee = claim.get("guarantee")
    if isinstance(guarantee, dict):
        shown = ", ".join(f"{key} = {value}" for key, value in guarantee.items() if key != "kind")
        lines.append(f"  claim: {guarantee.get('kind')} ({shown})")
    for relation in entry.get("relations", []):
        lines.append(f"  under {relation.get('relation')}: {relation.get('verdict')}")
        for item in relation.get("obligations", []):
            lines.extend(f"    {line}" for line in _obligation_lines(item))
    return lines


def _obligation_lines(item: dict[str, Any]) -> list[str]:
    obligation, evidence = item.get("obligation", {}), item.get("evidence", {})
    verdict = evidence.get("verdict")
    lines = [f"- {obligation.get('id')}: {verdict}", f"    statement: {obligation.get('statement')}"]
    if item.get("known_finding"):
        lines.append(f"    known finding (pinned): {item['known_finding']}")
    lines.append(f"    result: {evidence.get('summary')}")
    lines.append(f"    covered: {evidence.get('domain')}")
    lines.append(f"    checked by {obligation.get('checker')}: {evidence.get('method')}")
    details = evidence.get("details") if isinstance(evidence.get("details"), dict) else {}
    if details.get("assumption"):
        lines.append(f"    assumption: {details['assumption']}")
    certificate = evidence.get("certificate")
    if verdict == "verified":
        if isinstance(certificate, dict):
            routes = sorted({str(fact.get("route")) for fact in certificate.get("facts", []) if isinstance(fact, dict)})
            facts = len(certificate.get("facts", []))
            lines.append(
                f"    rests on: a certificate of {facts} fact(s), routes {', '.join(routes)} (dpaudit recheck)"
            )
        else:
            lines.append("    rests on: the checker's computation (no certificate to replay)")
    counterexample = evidence.get("counterexample")
    if verdict == "violated" and isinstance(counterexample, dict):
        lines.append(f"    rests on: the pair {counterexample.get('pair')}")
        pictured = counterexample.get("event_histogram")
        if isinstance(pictured, dict) and pictured.get("in_output_coordinates") and pictured.get("event"):
            lines.append(f"      event: {pictured['event']} (chosen as {named_event(counterexample)})")
        elif counterexample.get("event"):
            lines.append(f"      event: {named_event(counterexample)}")
        if counterexample.get("replay"):
            lines.append(f"      replay: {counterexample['replay']}")
    seed = item.get("seed")
    if isinstance(seed, dict) and "entropy" in seed:
        lines.append(f"    seed: entropy {seed['entropy']}, spawn key {seed.get('spawn_key')}")
    return lines
