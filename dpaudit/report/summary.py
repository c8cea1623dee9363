"""The one-screen summary of a report: a row per (claim, relation) with its verdict, its key
number and markers, for the Markdown report, the terminal and CI annotations.

The key number is a measurement of the obligation that decides the relation's verdict (of those
the verdict is derived from, :func:`~dpaudit.kernel.verdicts.deciding`: the first ``error``, else
``violated`` — an unexpected violation before a known finding — else
``inconclusive``, else the weakest pass; among equals a privacy check before a comparison of the
output law with the reference's, which is conformance, not privacy, and one that measured a number
before one that did not), written as ``measured vs
claimed`` with its interval: the first measurement whose margin is negative when the obligation
is ``violated`` (the point that fails, not the first of a grid), else its first measurement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpaudit.kernel.verdicts import deciding, set_aside
from dpaudit.report.values import format_value

__all__ = ["SummaryRow", "decisive_obligation", "github_annotations", "summary_table_rows"]

_ORDER = ("error", "violated", "inconclusive", "consistent", "verified", "proven")


@dataclass(frozen=True)
class SummaryRow:
    """One (claim, relation) of the summary."""

    claim: str
    relation: str
    verdict: str
    known_finding: bool
    under_assumption: bool
    key_number: str
    obligation: str
    summary: str


def decisive_obligation(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The obligation that decides a relation's verdict (see the module docstring), or ``None``."""

    def rank(item: dict[str, Any]) -> tuple[int, int, int, int]:
        evidence = item.get("evidence", {})
        verdict = str(evidence.get("verdict", ""))
        position = _ORDER.index(verdict) if verdict in _ORDER else 0
        conformance = "conformance" in (evidence.get("details") or {})
        unmeasured = not evidence.get("measurements")
        return position, 1 if item.get("known_finding") else 0, 1 if conformance else 0, 1 if unmeasured else 0

    kept = deciding(items, lambda item: set_aside(item.get("evidence", {}).get("details") or {}))
    return min(kept, key=rank, default=None)


def key_measurement(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """The measurement an obligation (its audit.json entry) is read by in every summary: of a violated
    one, its first failing measurement (a power row aside); else its first; None without one."""
    evidence = (item or {}).get("evidence", {})
    measurements = [m for m in evidence.get("measurements") or [] if isinstance(m, dict)]
    if not measurements:
        return None
    failing = [m for m in measurements if m.get("role") is None and _negative(m.get("margin"))]
    return failing[0] if evidence.get("verdict") == "violated" and failing else measurements[0]


def _key_number(item: dict[str, Any] | None) -> str:
    first = key_measurement(item)
    if first is None:
        return ""
    text = f"{_short(first.get('measured'))} vs {_short(first.get('claimed'))}"
    interval = first.get("interval")
    if isinstance(interval, list) and len(interval) == 2:
        text += f" in [{_short(interval[0])}, {_short(interval[1])}]"
    quantity = str(first.get("quantity", ""))
    return f"{text} ({quantity})" if quantity else text


def _negative(margin: Any) -> bool:
    """Whether a measurement's margin (a number, or its JSON text) is below 0."""
    try:
        return float(margin) < 0
    except (TypeError, ValueError):
        return False


def _short(value: Any) -> str:
    """Five significant digits for the summary (the report keeps every digit)."""
    try:
        return f"{float(value):.5g}"
    except (TypeError, ValueError):
        return format_value(value)


def under_assumption(relation: dict[str, Any]) -> bool:
    """Whether a verified obligation of ``relation`` (a claim's relation in audit.json) rests on a
    worst-case reduction its certificate names: every summary says "under assumption" next to it."""
    return any(
        item.get("evidence", {}).get("verdict") == "verified"
        and bool((item.get("evidence", {}).get("certificate") or {}).get("assumption"))
        for item in relation.get("obligations", [])
    )


def summary_table_rows(document: dict[str, Any]) -> list[SummaryRow]:
    """One row per (claim, relation) of ``document`` (an audit.json), in report order."""
    rows = []
    for result in document.get("claims", []):
        claim = result.get("claim", {})
        for relation in result.get("relations", []):
            items = relation.get("obligations", [])
            decisive = decisive_obligation(items)
            rows.append(
                SummaryRow(
                    claim=str(claim.get("id", "")),
                    relation=str(relation.get("relation", "")),
                    verdict=str(relation.get("verdict", "")),
                    known_finding=bool(relation.get("only_known_findings")),
                    under_assumption=under_assumption(relation),
                    key_number=_key_number(decisive),
                    obligation=str((decisive or {}).get("obligation", {}).get("id", "")),
                    summary=str((decisive or {}).get("evidence", {}).get("summary", "")),
                )
            )
    return rows


def _escape_annotation(text: str, *, property_value: bool = False) -> str:
    """GitHub workflow-command escaping (properties also escape ':' and ',')."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return escaped.replace(":", "%3A").replace(",", "%2C") if property_value else escaped


def github_annotations(document: dict[str, Any], *, spec_paths: dict[str, str] | None = None) -> list[str]:
    """GitHub Actions workflow commands: an ``error`` per unexpected violation or error, a
    ``warning`` per inconclusive result and per known finding, naming claim, relation and reason."""
    paths = spec_paths or {
        str(result.get("claim", {}).get("id", "")): str(result.get("spec_path") or "")
        for result in document.get("claims", [])
    }
    lines = []
    for row in summary_table_rows(document):
        if row.verdict in ("violated", "error") and not row.known_finding:
            level = "error"
        elif row.verdict == "inconclusive" or row.known_finding:
            level = "warning"
        else:
            continue
        label = "known finding" if row.known_finding else row.verdict
        file = f"file={_escape_annotation(paths[row.claim], property_value=True)}," if paths.get(row.claim) else ""
        title = _escape_annotation(f"dpaudit {row.claim} under {row.relation}: {label}", property_value=True)
        message = _escape_annotation(f"{row.obligation}: {row.summary}")
        lines.append(f"::{level} {file}title={title}::{message}")
    return lines
