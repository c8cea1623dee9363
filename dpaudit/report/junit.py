"""JUnit XML rendering of a report document: one test case per (claim, relation, obligation).

Mapping (mirrors ``--fail-on``): ``violated`` -> ``<failure>``; ``error`` -> ``<error>``;
``inconclusive`` -> ``<skipped>`` with the reason under ``--fail-on violated`` (the
default), ``<failure>`` under ``--fail-on inconclusive``; ``proven``, ``verified`` and
``consistent`` pass. A verdict this version does not know is an ``<error>``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import FAIL_POLICIES
from dpaudit.report.values import format_value, to_float

__all__ = ["junit_outcome", "render_junit"]

_PASSING = ("proven", "verified", "consistent")
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: Any) -> str:
    """Text that XML 1.0 can hold: characters it forbids become U+FFFD."""
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def junit_outcome(verdict: str, fail_on: str = "violated") -> str:
    """The JUnit outcome of an obligation verdict: ``passed``, ``failure``, ``error`` or ``skipped``.

    Raises:
        InvalidArgument: if ``fail_on`` is not a known policy.
    """
    if fail_on not in FAIL_POLICIES:
        raise InvalidArgument(f"fail_on={fail_on!r}: expected one of {', '.join(FAIL_POLICIES)}")
    if verdict in _PASSING:
        return "passed"
    if verdict == "violated":
        return "failure"
    if verdict == "inconclusive":
        return "failure" if fail_on == "inconclusive" else "skipped"
    return "error"


def _body(evidence: dict[str, Any]) -> str:
    lines = [
        f"verdict: {evidence.get('verdict')}",
        f"summary: {evidence.get('summary', '')}",
        f"covers: {evidence.get('domain', '')}",
        f"method: {evidence.get('method', '')}",
    ]
    for m in evidence.get("measurements") or []:
        if isinstance(m, dict):
            lines.append(
                f"{m.get('quantity')}: claimed {format_value(m.get('claimed'))}, measured "
                f"{format_value(m.get('measured'))}, margin {format_value(m.get('margin'))} ({m.get('direction')})"
            )
    if evidence.get("counterexample"):
        lines.append(f"counterexample: {format_value(evidence['counterexample'])}")
    raw_details = evidence.get("details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    if details.get("traceback"):
        lines.append(str(details["traceback"]))
    return "\n".join(lines)


def _case(parent: ET.Element, claim_id: str, relation: str, item: dict[str, Any], fail_on: str) -> str:
    obligation, evidence = item.get("obligation", {}), item.get("evidence", {})
    verdict = str(evidence.get("verdict", ""))
    seconds = to_float(evidence.get("elapsed_seconds")) or 0.0
    case = ET.SubElement(
        parent,
        "testcase",
        classname=_xml_text(f"{claim_id}.{relation}"),
        name=_xml_text(obligation.get("id", "")),
        time=f"{seconds:.3f}",
    )
    outcome = junit_outcome(verdict, fail_on)
    message = _xml_text(f"{verdict}: {evidence.get('summary', '')}")
    known_finding = str(item.get("known_finding") or "")
    if known_finding and verdict == "violated":
        outcome = "skipped"
        message = _xml_text(f"known finding (expected violation): {known_finding}")
    elif known_finding:
        outcome = "failure"
        message = _xml_text(f"known finding no longer reproduced (verdict {verdict}): {known_finding}")
    if outcome == "skipped":
        ET.SubElement(case, "skipped", message=message)
    elif outcome in ("failure", "error"):
        ET.SubElement(case, outcome, message=message, type=_xml_text(verdict)).text = _xml_text(_body(evidence))
    ET.SubElement(case, "system-out").text = _xml_text(_body(evidence))
    return outcome


def render_junit(document: dict[str, Any], *, fail_on: str = "violated") -> str:
    """Render a report document as JUnit XML: a suite per claim, a case per (relation, obligation).

    Args:
        document: the report document (``audit.json``, this or an older version).
        fail_on: ``violated`` (inconclusive is skipped) or ``inconclusive`` (it fails).

    Returns:
        The XML text (UTF-8 declaration, ``<testsuites>`` root with total counts).

    Raises:
        InvalidArgument: if ``fail_on`` is not a known policy.
    """
    junit_outcome("proven", fail_on)
    root = ET.Element("testsuites", name="dpaudit")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for result in document.get("claims", []):
        claim_id = str(result.get("claim", {}).get("id", ""))
        suite = ET.SubElement(root, "testsuite", name=_xml_text(claim_id))
        properties = ET.SubElement(suite, "properties")  # one block per suite (the JUnit schema allows one)
        for prop, shown in (("seed", document.get("seed")), ("dpaudit", document.get("tool", {}).get("version"))):
            ET.SubElement(properties, "property", name=prop, value=_xml_text(shown))
        if document.get("digest"):
            ET.SubElement(properties, "property", name="dpaudit.run", value=_xml_text(document["digest"]))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        suite_time = 0.0
        for relation in result.get("relations", []):
            name = str(relation.get("relation", ""))
            outcomes = []
            for item in relation.get("obligations", []):
                outcomes.append(_case(suite, claim_id, name, item, fail_on))
                suite_time += to_float(item.get("evidence", {}).get("elapsed_seconds")) or 0.0
            for outcome in outcomes:
                counts["tests"] += 1
                if outcome != "passed":
                    counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[outcome]] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{suite_time:.3f}")
        total_time += suite_time
    if document.get("interrupted"):  # a run cut short: an error of its own, naming what the report lacks
        suite = ET.SubElement(root, "testsuite", name="dpaudit", tests="1", failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="dpaudit", name="run")
        ET.SubElement(case, "error", message="interrupted").text = _xml_text(document["interrupted"])
        totals["tests"] += 1
        totals["errors"] += 1
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
