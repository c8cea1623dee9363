"""Markdown rendering of a report document (CommonMark + tables, fit for a pull-request comment).

Same content as the HTML page; figures are linked SVG files (``figures/NAME.svg`` next
to ``audit.md``), written by :func:`dpaudit.report.folder.write_report_folder`.
"""

from __future__ import annotations

from typing import Any

from dpaudit.report.figures import PlacedFigure
from dpaudit.report.view import report_view

__all__ = ["VERDICT_MARKS", "escape_markdown", "render_markdown", "summary_rows"]

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
    for char in "\\`*_{}[]<>()#+!|~&":
        value = value.replace(char, "\\" + char)
    return value.replace("\r", " ").replace("\n", " ")


def _mark(verdict: str) -> str:
    return VERDICT_MARKS.get(verdict, escape_markdown(verdict))


def _code(text: str) -> str:
    return "`" + (text.replace("`", "'").replace("\n", " ").strip() or " ") + "`"


def _fence(text: str) -> list[str]:
    return ["```", text.replace("```", "'''"), "```"]


def _pairs(pairs: list[tuple[str, str]], separator: str = ", ") -> str:
    return escape_markdown(separator.join(f"{key}={value}" for key, value in pairs))


def summary_rows(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """One row per (claim, relation): claim id, relation, verdict, source."""
    rows = []
    for result in document["claims"]:
        claim = result["claim"]
        source = f"{claim['source']['paper']}, {claim['source']['location']}"
        for relation in result["relations"]:
            verdict = relation["verdict"] + (" (known finding)" if relation.get("only_known_findings") else "")
            rows.append((claim["id"], relation["relation"], verdict, source))
    return rows


def _figure_lines(figures: list[PlacedFigure], figure_dir: str | None) -> list[str]:
    lines = []
    for figure in figures:
        if figure.svg is None:
            lines += [
                f"*figure “{escape_markdown(figure.title)}” could not be drawn: {escape_markdown(figure.problem)}*",
                "",
            ]
        elif figure_dir is not None:
            caption = escape_markdown(figure.title + (f" — {figure.caption}" if figure.caption else ""))
            lines += [f"![{escape_markdown(figure.title)}]({figure_dir}/{figure.file_name})", "", caption, ""]
    return lines


def _measurement_lines(measurements: list[dict[str, str]]) -> list[str]:
    if not measurements:
        return []
    lines = [
        "| quantity | claimed | measured | interval | margin | direction / precision |",
        "|---|---|---|---|---|---|",
    ]
    for m in measurements:
        cells = [m["quantity"], m["claimed"], m["measured"], m["interval"] or "—", m["margin"], m["direction"]]
        lines.append("| " + " | ".join(escape_markdown(cell) for cell in cells) + " |")
    return [*lines, ""]


def _counterexample_lines(counterexample: dict[str, Any] | None) -> list[str]:
    if not counterexample:
        return []
    lines = ["**Counterexample**", ""]
    for label, data in counterexample["pair"]:
        lines += [f"- {escape_markdown(label)}:", ""] + ["  " + line for line in _fence(data)] + [""]
    if counterexample["event"] is not None:
        lines += [f"- distinguishing event: {_code(counterexample['event'])}", ""]
    for key, value, block in counterexample["other"]:
        if block:
            lines += [f"- {escape_markdown(key)}:", ""] + ["  " + line for line in _fence(value)] + [""]
        else:
            lines += [f"- {escape_markdown(key)}: {_code(value)}", ""]
    return lines


def _obligation_lines(obligation: dict[str, Any], figure_dir: str | None) -> list[str]:
    lines = [
        f'<a id="{obligation["anchor"]}"></a>',
        "",
        f"#### {escape_markdown(obligation['id'])} — {_mark(obligation['verdict'])}",
        "",
        f"> {escape_markdown(obligation['statement'])}",
        "",
        f"- result: {escape_markdown(obligation['summary'])}",
        f"- covers: {escape_markdown(obligation['domain'])}",
        f"- method: {escape_markdown(obligation['method'])} (checker {_code(obligation['checker'])})",
    ]
    if obligation["assumption"]:
        lines.append(f"- verified under assumption: {escape_markdown(obligation['assumption'])}")
    if obligation["certificate"]:
        lines.append(f"- certificate: {escape_markdown(obligation['certificate'])}")
    if obligation["budget"]:
        lines.append(f"- budget: {_pairs(obligation['budget'])}")
    if obligation["params"]:
        lines.append(f"- params: {_pairs(obligation['params'])}")
    if obligation["source"]:
        lines.append(f"- source: {escape_markdown(obligation['source'])}")
    if obligation["seed"]:
        elapsed = f" · {obligation['elapsed']}" if obligation["elapsed"] else ""
        lines.append(f"- seed: {escape_markdown(obligation['seed'] + elapsed)}")
    if obligation["error"]:
        lines.append(f"- error: {escape_markdown(obligation['error'])}")
    lines.append("")
    lines += _measurement_lines(obligation["measurements"])
    lines += _counterexample_lines(obligation["counterexample"])
    if obligation["traceback"]:
        lines += ["Traceback (internal error):", "", *_fence(obligation["traceback"]), ""]
    lines += _figure_lines(obligation["figures"], figure_dir)
    return lines


def _claim_lines(claim: dict[str, Any], figure_dir: str | None) -> list[str]:
    lines = [
        f'<a id="{claim["anchor"]}"></a>',
        "",
        f"## {escape_markdown(claim['id'])} — {_mark(claim['verdict'])}",
        "",
        escape_markdown(claim["title"]),
        "",
        f"- source: {escape_markdown(claim['source'])}",
    ]
    if claim["source_note"]:
        lines.append(f"- note: {escape_markdown(claim['source_note'])}")
    lines.append(f"- mechanism: {_code(claim['mechanism'])} with {_pairs(claim['mechanism_params'])}")
    lines.append(f"- guarantee: {_pairs(claim['guarantee'])}")
    if claim["parameters"]:
        lines.append(f"- parameters: {_pairs(claim['parameters'], '; ')}")
    if claim["spec_path"]:
        lines.append(f"- spec: {_code(claim['spec_path'])}")
    lines += ["", "### Obligation tree", "", f"- {_mark(claim['verdict'])} {escape_markdown(claim['id'])}"]
    for relation in claim["relations"]:
        lines.append(
            f"  - {_mark(relation['verdict'])} under [{escape_markdown(relation['name'])}](#{relation['anchor']})"
        )
        for obligation in relation["obligations"]:
            budget = f"; budget: {_pairs(obligation['budget'])}" if obligation["budget"] else ""
            lines.append(
                f"    - {_mark(obligation['verdict'])} [{escape_markdown(obligation['id'])}](#{obligation['anchor']})"
                f" — covers: {escape_markdown(obligation['domain'])}{budget}"
            )
    lines.append("")
    for relation in claim["relations"]:
        lines += [
            f'<a id="{relation["anchor"]}"></a>',
            "",
            f"### under {_code(relation['name'])} — {_mark(relation['verdict'])}",
            "",
        ]
        for finding in relation["known_findings"]:
            lines += [
                f"**Known finding** (expected; CI fails if it is no longer reproduced): {escape_markdown(finding)}",
                "",
            ]
        lines += _figure_lines(relation["figures"], figure_dir)
        for obligation in relation["obligations"]:
            lines += _obligation_lines(obligation, figure_dir)
    return lines


def render_markdown(
    document: dict[str, Any], *, figures: list[PlacedFigure] | None = None, figure_dir: str = "figures"
) -> str:
    """Render a report document as Markdown: summary grid, obligation trees, measurements,
    counterexamples, figures and provenance.

    Args:
        document: the report document (``audit.json``, this or an older version).
        figures: drawn figures whose SVG files are (or will be) written to ``figure_dir``;
            ``None`` leaves the figures out (e.g. when printing to standard output).
        figure_dir: the folder of the SVG files, relative to the Markdown file.

    Returns:
        The Markdown text (CommonMark with GitHub tables).
    """
    view = report_view(document, figures or [])
    directory = figure_dir if figures is not None else None
    header = view["header"]
    counts = ", ".join(f"{count} {verdict}" for verdict, count, _ in header["summary"])
    obligation_counts = ", ".join(f"{count} {verdict}" for verdict, count in header["obligation_summary"])
    lines = [
        "# dpaudit audit report",
        "",
        f"dpaudit {escape_markdown(header['version'])} · seed {escape_markdown(header['seed'])} · "
        f"{header['budgets']} budgets · (claim, relation) verdicts: {escape_markdown(counts)} · "
        f"obligations: {escape_markdown(obligation_counts)}",
        "",
    ]
    if figures is None:
        lines += ["*Figures are left out here; `dpaudit report FILE.json --format md -o audit.md` writes them.*", ""]
    columns = view["columns"]
    lines += [
        "| claim | overall | " + " | ".join(escape_markdown(column) for column in columns) + " | source |",
        "|---|---|" + "---|" * len(columns) + "---|",
    ]
    for claim in view["claims"]:
        cells = [
            f"[{escape_markdown(claim['id'])}](#{claim['anchor']})",
            _mark(claim["verdict"]),
            *(_mark(claim["by_relation"][c]["verdict"]) if c in claim["by_relation"] else "—" for c in columns),
            escape_markdown(claim["source"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for claim in view["claims"]:
        lines += _claim_lines(claim, directory)
    provenance = view["provenance"]
    lines += [
        "## Provenance",
        "",
        f"- tool: {escape_markdown(provenance['tool'])} (report schema "
        f"{escape_markdown(provenance['schema_version'])})",
        f"- command: {_code(provenance['command'] or '—')}",
        f"- seed: {escape_markdown(provenance['seed'])}",
        f"- started: {escape_markdown(provenance['started_at'] or '—')}; elapsed: "
        f"{escape_markdown(provenance['elapsed'] or '—')}",
        f"- environment: {_pairs(provenance['environment'])}",
        "",
    ]
    return "\n".join(lines)
