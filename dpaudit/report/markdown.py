"""Markdown rendering of a report document (fit for a pull-request comment)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["render_markdown"]

VERDICT_MARKS = {
    "proven": "✅ proven",
    "verified": "✅ verified",
    "consistent": "🟢 consistent",
    "inconclusive": "🟡 inconclusive",
    "error": "🟠 error",
    "violated": "❌ violated",
}


def escape_markdown(text: Any) -> str:
    """Escape text so that it renders literally inside Markdown, including table cells."""
    value = "" if text is None else str(text)
    for char in "\\`*_{}[]<>()#+!|~":
        value = value.replace(char, "\\" + char)
    return value.replace("\r", " ").replace("\n", " ")


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(_number(item) for item in value) + "]"
    return str(value)


def _measurement_rows(measurements: list[dict[str, Any]]) -> list[str]:
    if not measurements:
        return []
    rows = ["| quantity | claimed | measured | margin | direction |", "|---|---|---|---|---|"]
    for item in measurements:
        rows.append(
            "| "
            + " | ".join(
                escape_markdown(cell)
                for cell in (
                    item["quantity"],
                    _number(item["claimed"]),
                    _number(item["measured"]),
                    _number(item["margin"]),
                    item["direction"],
                )
            )
            + " |"
        )
    return rows


def summary_rows(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """One row per (claim, relation): claim id, relation, verdict, source."""
    rows = []
    for result in document["claims"]:
        claim = result["claim"]
        source = f"{claim['source']['paper']}, {claim['source']['location']}"
        for relation in result["relations"]:
            rows.append((claim["id"], relation["relation"], relation["verdict"], source))
    return rows


def render_markdown(document: dict[str, Any]) -> str:
    """Render the report document as Markdown: summary table, then each claim with its obligations."""
    lines = ["# dpaudit audit report", ""]
    counts = ", ".join(f"{count} {name}" for name, count in document["summary"].items() if count)
    lines += [
        f"dpaudit {escape_markdown(document['tool']['version'])} · seed {document['seed']} · "
        f"{'quick' if document['quick'] else 'full'} budgets · {escape_markdown(counts)}",
        "",
        "| claim | relation | verdict | source |",
        "|---|---|---|---|",
    ]
    for claim_id, relation, verdict, source in summary_rows(document):
        lines.append(
            f"| [{escape_markdown(claim_id)}](#{_anchor(claim_id)}) | {escape_markdown(relation)} | "
            f"{VERDICT_MARKS.get(verdict, escape_markdown(verdict))} | {escape_markdown(source)} |"
        )
    lines.append("")
    for result in document["claims"]:
        lines += _claim_section(result)
    lines += ["## Provenance", ""]
    environment = ", ".join(f"{key} {value}" for key, value in sorted(document.get("environment", {}).items()))
    lines.append(f"- command: `{_code(document.get('command') or '')}`")
    lines.append(f"- seed: {document['seed']}; environment: {escape_markdown(environment)}")
    lines.append("")
    return "\n".join(lines)


def _code(text: str) -> str:
    return text.replace("`", "'").replace("\n", " ")


def _anchor(claim_id: str) -> str:
    return "claim-" + "".join(ch if ch.isalnum() else "-" for ch in claim_id.lower())


def _claim_section(result: dict[str, Any]) -> list[str]:
    claim = result["claim"]
    source = claim["source"]
    lines = [
        f'<a id="{_anchor(claim["id"])}"></a>',
        "",
        f"## {escape_markdown(claim['id'])}: {escape_markdown(claim['title'])}",
        "",
        f"- verdict: **{VERDICT_MARKS.get(result['verdict'], escape_markdown(result['verdict']))}**",
        f"- source: {escape_markdown(source['paper'])}, {escape_markdown(source['location'])}"
        + (f", p. {escape_markdown(source['page'])}" if source.get("page") else ""),
        f"- mechanism: `{_code(claim['mechanism']['name'])}` with "
        + escape_markdown(", ".join(f"{k}={v}" for k, v in sorted(claim["mechanism"]["params"].items()))),
        f"- guarantee: " + escape_markdown(", ".join(f"{k}={v}" for k, v in claim["guarantee"].items())),
        "",
    ]
    for relation in result["relations"]:
        lines += [f"### under `{_code(relation['relation'])}`: {VERDICT_MARKS.get(relation['verdict'], '')}", ""]
        for item in relation["obligations"]:
            obligation, evidence = item["obligation"], item["evidence"]
            lines += [
                f"#### {escape_markdown(obligation['id'])} — {VERDICT_MARKS.get(evidence['verdict'], '')}",
                "",
                f"> {escape_markdown(obligation['statement'])}",
                "",
                f"- result: {escape_markdown(evidence['summary'])}",
                f"- covers: {escape_markdown(evidence['domain'])}",
                f"- method: {escape_markdown(evidence['method'])} (checker `{_code(obligation['checker'])}`)",
            ]
            if evidence["budget"]:
                lines.append(
                    "- budget: " + escape_markdown(", ".join(f"{k}={v}" for k, v in sorted(evidence["budget"].items())))
                )
            lines.append("")
            lines += _measurement_rows(evidence["measurements"])
            if evidence.get("counterexample"):
                lines += ["", "Counterexample:", "", "```", _fence_safe(evidence["counterexample"]), "```"]
            lines.append("")
    return lines


def _fence_safe(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str).replace("```", "'''")
