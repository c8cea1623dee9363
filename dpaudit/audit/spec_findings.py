"""A claim's ``[[claim.known_findings]]``: the statements a check refutes that stay pinned by their
measured size (a changed size fails the audit)."""

from __future__ import annotations

from typing import Any

from dpaudit.audit.spec_reader import SpecReader
from dpaudit.errors import DpAuditError, SpecError
from dpaudit.kernel.claims import FindingPin, KnownFinding
from dpaudit.privacy.relations import parse_relation

__all__ = ["known_findings"]


def known_findings(reader: SpecReader, claim: dict[str, Any]) -> tuple[KnownFinding, ...]:
    items = claim.get("known_findings", [])
    if not isinstance(items, list):
        raise reader.fail("claim.known_findings", "expected an array of tables ([[claim.known_findings]])")
    findings = []
    listed: set[tuple[str, str]] = set()
    for index, item in enumerate(items):
        prefix = f"claim.known_findings[{index}]."
        if not isinstance(item, dict):
            raise reader.fail(f"claim.known_findings[{index}]", "expected a table with relation, obligations, finding")
        reader.no_unknown(item, {"relation", "obligations", "finding", "pin"}, prefix)
        try:
            relation = parse_relation(reader.text(item, "relation", prefix)).name
        except SpecError:
            raise
        except DpAuditError as exc:
            raise reader.fail(f"{prefix}relation", str(exc)) from None
        obligations = item.get("obligations")
        if not isinstance(obligations, list) or not obligations or not all(isinstance(o, str) for o in obligations):
            raise reader.fail(
                f"{prefix}obligations", f"got {obligations!r}; expected a non-empty list of obligation ids"
            )
        reader.unique(obligations, f"{prefix}obligations")
        for obligation in obligations:
            if (relation, obligation) in listed:
                raise reader.fail(f"{prefix}obligations", f"{obligation!r} under {relation} is already a known finding")
            listed.add((relation, obligation))
        finding = reader.text(item, "finding", prefix)
        pin = _pin(reader, reader.table(item, "pin", prefix), f"{prefix}pin.")
        findings.append(KnownFinding(relation, tuple(obligations), finding, pin))
    return tuple(findings)


def _pin(reader: SpecReader, table: dict[str, Any], prefix: str, *, nested: bool = False) -> FindingPin:
    """``pin = { quantity = "start of a measurement's quantity", measured = [low, high] }``, with an
    optional ``quick = { quantity = ..., measured = [...] }`` for --quick budgets."""
    reader.no_unknown(table, {"quantity", "measured"} if nested else {"quantity", "measured", "quick"}, prefix)
    quick = (
        None
        if nested or "quick" not in table
        else _pin(reader, reader.table(table, "quick", prefix), f"{prefix}quick.", nested=True)
    )
    bounds = table.get("measured")
    if (
        not isinstance(bounds, list)
        or len(bounds) != 2
        or not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds)
    ):
        raise reader.fail(f"{prefix}measured", f"got {bounds!r}; expected [low, high], the interval the size stays in")
    try:
        return FindingPin(reader.text(table, "quantity", prefix), float(bounds[0]), float(bounds[1]), quick)
    except DpAuditError as exc:
        raise reader.fail(f"{prefix}measured", str(exc)) from None
