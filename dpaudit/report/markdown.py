"""Markdown rendering of a report document (CommonMark + tables, fit for a pull-request comment).

Same content as the HTML page; figures are linked SVG files (``figures/NAME.svg`` next
to ``audit.md``), written by :func:`dpaudit.report.folder.write_report_folder`.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpaudit.report.figures import PlacedFigure
from dpaudit.report.summary import summary_table_rows
from dpaudit.report.view import report_view

__all__ = [
    "MAX_MARKDOWN_CHARS",
    "MAX_TABLE_WIDTH",
    "VERDICT_MARKS",
    "escape_markdown",
    "render_markdown",
]

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


def _measurement_lines(measurements: list[dict[str, str]], limit: int | None = None) -> list[str]:
    if not measurements:
        return []
    lines = [
        "| quantity | claimed | measured | interval | margin | direction / precision |",
        "|---|---|---|---|---|---|",
    ]
    shown = measurements if limit is None else measurements[:limit]
    for m in shown:
        quantity = m["quantity"] + (" (power: what the budget could detect)" if m["power"] else "")
        numbers = [m[key][1] for key in ("claimed", "measured", "interval", "margin")]  # every digit
        cells = [quantity, *numbers[:2], numbers[2] or "—", numbers[3], m["direction"]]
        lines.append("| " + " | ".join(escape_markdown(cell) for cell in cells) + " |")
    if len(shown) < len(measurements):
        lines += ["", f"*{len(measurements) - len(shown)} more measurements in audit.html and audit.json*"]
    return [*lines, ""]


def _counterexample_lines(counterexample: dict[str, Any] | None) -> list[str]:
    if not counterexample:
        return []
    lines = ["**Counterexample**", ""]
    for label, data in counterexample["pair"]:
        lines += [f"- {escape_markdown(label)}:", ""] + ["  " + line for line in _fence(data)] + [""]
    if counterexample["event"] is not None:
        lines += [f"- distinguishing event: {_code(counterexample['event'])}", ""]
        if counterexample["chosen_as"]:
            lines += [f"- chosen as: {_code(counterexample['chosen_as'])}", ""]
    for key, shown, block, full in counterexample["other"]:
        value = full or shown  # every digit
        if block:
            lines += [f"- {escape_markdown(key)}:", ""] + ["  " + line for line in _fence(value)] + [""]
        else:
            lines += [f"- {escape_markdown(key)}: {_code(value)}", ""]
    return lines


@dataclass(frozen=True)
class _Detail:
    """How much of each claim the Markdown shows (the report shrinks to fit a PR comment)."""

    measurements: int | None = None  # rows per measurement table (None: all)
    tree_covers: bool = True  # the obligation tree repeats each obligation's domain
    passing_obligations: bool = True  # details of verified/consistent/proven obligations
    field_chars: int | None = None  # longest domain, method, params text
    passing_claims: bool = True  # details of claims that pass


_LEVELS = (
    _Detail(),
    _Detail(measurements=8, tree_covers=False),
    _Detail(measurements=3, tree_covers=False, passing_obligations=False, field_chars=300),
    _Detail(measurements=3, tree_covers=False, passing_obligations=False, field_chars=300, passing_claims=False),
)


def _field(text: str, detail: _Detail) -> str:
    return text if detail.field_chars is None else _fit(text, detail.field_chars)


def _anchored_heading(level: int, anchor: str, title: str, verdict: str) -> list[str]:
    """An anchor the report links to, the heading ``title — <verdict's mark>`` at ``level``, and the blank
    lines around it."""
    return [f'<a id="{anchor}"></a>', "", f"{'#' * level} {title} — {_mark(verdict)}", ""]


def _bullets(*items: tuple[str, Any, Callable[[Any], str]]) -> list[str]:
    """``- label: render(value)`` for each ``(label, value, render)`` whose value is set, in order (an empty
    or missing value leaves its line out)."""
    return [f"- {label}: {render(value)}" for label, value, render in items if value]


def _obligation_lines(obligation: dict[str, Any], figure_dir: str | None, detail: _Detail) -> list[str]:
    lines = [
        *_anchored_heading(4, obligation["anchor"], escape_markdown(obligation["id"]), obligation["verdict"]),
        f"> {escape_markdown(obligation['statement'])}",
        "",
        f"- result: {escape_markdown(obligation['summary'])}",
        f"- covers: {escape_markdown(_field(obligation['domain'], detail))}",
        f"- method: {escape_markdown(_field(obligation['method'], detail))} (checker {_code(obligation['checker'])})",
    ]
    elapsed = f" · {obligation['elapsed']}" if obligation["elapsed"] else ""
    lines += _bullets(
        ("verified under assumption", obligation["assumption"], escape_markdown),
        ("certificate", obligation["certificate"], escape_markdown),
        ("budget", obligation["budget"], _pairs),
        ("params", obligation["params"], lambda params: _field(_pairs(params), detail)),
        ("source", obligation["source"], escape_markdown),
        ("seed", obligation["seed"], lambda seed: escape_markdown(seed + elapsed)),
        ("error", obligation["error"], escape_markdown),
    )
    lines.append("")
    lines += _measurement_lines(obligation["measurements"], detail.measurements)
    lines += _counterexample_lines(obligation["counterexample"])
    if obligation["traceback"]:
        lines += ["Traceback (internal error):", "", *_fence(obligation["traceback"]), ""]
    lines += _figure_lines(obligation["figures"], figure_dir)
    return lines


def _claim_lines(claim: dict[str, Any], figure_dir: str | None, detail: _Detail = _LEVELS[0]) -> list[str]:
    lines = [
        *_anchored_heading(2, claim["anchor"], escape_markdown(claim["id"]), claim["verdict"]),
        escape_markdown(claim["title"]),
        "",
        f"- source: {escape_markdown(claim['source'])}",
    ]
    lines += _bullets(("note", claim["source_note"], escape_markdown))
    lines.append(f"- mechanism: {_code(claim['mechanism'])} with {_pairs(claim['mechanism_params'])}")
    lines.append(f"- guarantee: {_pairs(claim['guarantee'])}")
    lines += _bullets(
        ("parameters", claim["parameters"], lambda parameters: _pairs(parameters, "; ")),
        ("spec", claim["spec_path"], _code),
        ("reproduce", claim["reproduce"], _code),
    )
    lines += ["", "### Obligation tree", "", f"- {_mark(claim['verdict'])} {escape_markdown(claim['id'])}"]
    for relation in claim["relations"]:
        lines.append(
            f"  - {_mark(relation['verdict'])} under [{escape_markdown(relation['name'])}](#{relation['anchor']})"
        )
        for obligation in relation["obligations"]:
            budget = f"; budget: {_pairs(obligation['budget'])}" if obligation["budget"] else ""
            covers = f" — covers: {escape_markdown(obligation['domain'])}{budget}" if detail.tree_covers else ""
            shown = detail.passing_obligations or obligation["verdict"] not in _PASSING
            name = escape_markdown(obligation["id"])
            lines.append(
                f"    - {_mark(obligation['verdict'])} "
                + (f"[{name}](#{obligation['anchor']})" if shown else name)
                + covers
            )
    lines.append("")
    for relation in claim["relations"]:
        lines += _anchored_heading(3, relation["anchor"], f"under {_code(relation['name'])}", relation["verdict"])
        for finding in relation["known_findings"]:
            lines += [
                f"**Known finding** (expected; CI fails if it is no longer reproduced): {escape_markdown(finding)}",
                "",
            ]
        lines += _figure_lines(relation["figures"], figure_dir)
        for obligation in relation["obligations"]:
            if detail.passing_obligations or obligation["verdict"] not in _PASSING:
                lines += _obligation_lines(obligation, figure_dir, detail)
    return lines


#: The longest Markdown report: a GitHub PR comment or job summary holds 65,536 characters.
MAX_MARKDOWN_CHARS = 60_000

#: The widest line of the summary table.
MAX_TABLE_WIDTH = 120

_PASSING = ("proven", "verified", "consistent")


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _summary_table(document: dict[str, Any]) -> list[str]:
    """The summary table: claim, relation, verdict with markers, key number; lines <= 120 characters."""
    lines = ["| claim | relation | verdict | key number (measured vs claimed) |", "|---|---|---|---|"]
    for row in summary_table_rows(document):
        verdict = VERDICT_MARKS.get(row.verdict, row.verdict)
        if row.known_finding:
            verdict += " (known finding)"
        if row.under_assumption:
            verdict += " (under assumption)"
        cells = [_fit(escape_markdown(row.claim), 40), _fit(escape_markdown(row.relation), 24), verdict]
        prefix = "| " + " | ".join(cells) + " | "
        room = MAX_TABLE_WIDTH - len(prefix) - 2
        lines.append(prefix + _fit(escape_markdown(row.key_number), room).rstrip("\\") + " |")
    return [*lines, ""]


def _details(claim: dict[str, Any], body: list[str]) -> list[str]:
    marker = (
        " (known findings only)"
        if claim["verdict"] == "violated"
        and all(relation["only_known_findings"] or relation["verdict"] != "violated" for relation in claim["relations"])
        else ""
    )
    # an HTML block: Markdown escapes do not apply inside it, HTML escapes do
    summary = html.escape(f"{_mark(claim['verdict'])}{marker} — {claim['id']}")
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "</details>", ""]


def render_markdown(
    document: dict[str, Any],
    *,
    figures: list[PlacedFigure] | None = None,
    figure_dir: str = "figures",
    max_chars: int | None = MAX_MARKDOWN_CHARS,
) -> str:
    """Render a report document as Markdown fit for a pull request: a summary table first (one
    row per claim and relation, at most 120 characters wide), then one ``<details>`` block per
    claim (obligation tree, measurements, counterexamples, figures), then provenance.

    Past ``max_chars`` the details shrink step by step (measurement tables cut to their first
    rows, then passing claims reduced to a pointer, then the tail cut) and say where the rest is:
    the HTML page and audit.json always hold everything.

    Args:
        document: the report document (``audit.json``, this or an older version).
        figures: drawn figures whose SVG files are (or will be) written to ``figure_dir``;
            ``None`` leaves the figures out (e.g. when printing to standard output).
        figure_dir: the folder of the SVG files, relative to the Markdown file.
        max_chars: the size limit (``None``: no limit).

    Returns:
        The Markdown text (CommonMark with GitHub tables).
    """
    view = report_view(document, figures or [])
    directory = figure_dir if figures is not None else None
    header = view["header"]
    counts = ", ".join(f"{count} {verdict}" for verdict, count, _ in header["summary"])
    obligation_counts = ", ".join(f"{count} {verdict}" for verdict, count in header["obligation_summary"])
    head = [
        "# dpaudit audit report",
        "",
        f"dpaudit {escape_markdown(header['version'])} · seed {escape_markdown(header['seed'])} · "
        f"{header['budgets']} budgets · (claim, relation) verdicts: {escape_markdown(counts)} · "
        f"obligations: {escape_markdown(obligation_counts)}"
        + (f" · run {_code(header['run'])}" if header["run"] else ""),
        "",
        *([f"**Interrupted**: {escape_markdown(header['interrupted'])}", ""] if header["interrupted"] else []),
        "Everything below is also in `audit.html` (one page, with filters) and `audit.json` (with certificates; "
        "`dpaudit recheck audit.json` replays them).",
        "",
    ]
    if figures is None:
        head += ["*Figures are left out here; `dpaudit report FILE.json --format md -o audit.md` writes them.*", ""]
    head += _summary_table(document)
    tail = _provenance_lines(view["provenance"])
    for detail in _LEVELS:
        body: list[str] = []
        for claim in view["claims"]:
            if not detail.passing_claims and claim["verdict"] in _PASSING:
                body += [f"- {_mark(claim['verdict'])} {escape_markdown(claim['id'])}: details in audit.html", ""]
            else:
                body += _details(claim, _claim_lines(claim, directory, detail))
        text = "\n".join([*head, *body, *tail])
        if max_chars is None or len(text) <= max_chars:
            return text
    assert max_chars is not None
    note = "\n\n*… cut at the size limit of a pull-request comment: the rest is in audit.html and audit.json.*\n"
    cut = text[: max(max_chars - len(note) - len("\n".join(tail)) - 1, 0)]
    return cut[: cut.rfind("\n")] + note + "\n".join(tail)


def _provenance_lines(provenance: dict[str, Any]) -> list[str]:
    return [
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
