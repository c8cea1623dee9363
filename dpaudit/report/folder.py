"""The report folder of an audit: audit.json, audit.md, audit.html, junit.xml and figures/."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.errors import SpecError
from dpaudit.report.figures import collect_figures
from dpaudit.report.html import render_html
from dpaudit.report.json_report import load_report, with_digest, write_atomically, write_report
from dpaudit.report.junit import render_junit
from dpaudit.report.markdown import render_markdown

__all__ = ["FIGURE_DIR", "ReportFiles", "write_figures", "write_report_folder"]

FIGURE_DIR = "figures"


@dataclass(frozen=True)
class ReportFiles:
    """The paths written by :func:`write_report_folder`."""

    json: Path
    markdown: Path
    html: Path
    junit: Path
    figures: tuple[Path, ...]


def write_figures(figures: list[Any], folder: Path, *, prune: bool = False) -> tuple[Path, ...]:
    """Write each drawn figure to ``folder/NAME.svg``; the folder is created when missing.

    Args:
        figures: placed figures from :func:`collect_figures`.
        folder: where to write them.
        prune: also remove the ``*.svg`` files directly in ``folder`` that no figure
            names, so that a re-run into the same report folder leaves nothing stale.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for figure in figures:
        if figure.svg is not None:
            path = folder / figure.file_name
            path.write_text(figure.svg, encoding="utf-8")
            written.append(path)
    if prune:
        keep = {path.name for path in written}
        for stale in folder.glob("*.svg"):
            if stale.name not in keep:
                stale.unlink()
    return tuple(written)


def write_report_folder(
    document: dict[str, Any], out: str | Path, *, fail_on: str = "violated", figures: list[Any] | None = None
) -> ReportFiles:
    """Write every rendering of a report document into the folder ``out``.

    Args:
        document: the report document (the JSON form of an ``AuditReport``).
        out: the output folder; created when missing. Stale ``figures/*.svg`` are removed.
        fail_on: the ``--fail-on`` policy the JUnit file follows for ``inconclusive``.
        figures: the document's figures if already drawn by :func:`collect_figures`.

    Returns:
        The paths written.
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    document = with_digest(document)  # every file names the run: the digest of audit.json
    figures = collect_figures(document) if figures is None else figures
    json_path = write_report(document, folder / "audit.json")
    figure_paths = write_figures(figures, folder / FIGURE_DIR, prune=True)
    markdown_path = folder / "audit.md"
    write_atomically(markdown_path, render_markdown(document, figures=figures, figure_dir=FIGURE_DIR))
    html_path = folder / "audit.html"
    write_atomically(html_path, render_html(document, figures))
    junit_path = folder / "junit.xml"
    write_atomically(junit_path, render_junit(document, fail_on=fail_on))
    return ReportFiles(json_path, markdown_path, html_path, junit_path, figure_paths)


_RUN_MARKERS = {
    "audit.md": re.compile(r"· run `(sha256:[0-9a-f]{64})`"),
    "audit.html": re.compile(r'<meta name="dpaudit-run" content="(sha256:[0-9a-f]{64})">'),
    "junit.xml": re.compile(r'<property name="dpaudit.run" value="(sha256:[0-9a-f]{64})"'),
}


def verify_report_folder(out: str | Path) -> dict[str, Any]:
    """Check that a report folder's files come from one run; return its (verified) audit.json.

    Raises:
        SpecError: when audit.json is missing or edited, or another file names another run or none.
    """
    folder = Path(out)
    document = load_report(folder / "audit.json")
    run = document.get("digest")
    for name, marker in _RUN_MARKERS.items():
        path = folder / name
        if not path.exists():
            continue
        found = set(marker.findall(path.read_text(encoding="utf-8")))
        if found != {run}:
            named = ", ".join(sorted(found)) or "no run"
            raise SpecError(f"{name} names {named}, audit.json is run {run}: files of different runs", path=str(path))
    return document
