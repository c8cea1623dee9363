"""The report folder of an audit: audit.json, audit.md, audit.html, junit.xml and figures/."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.errors import OutputError, SpecError
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


def write_figures(figures: list[Any], folder: Path) -> tuple[Path, ...]:
    """Write each drawn figure to ``folder/NAME.svg``; the folder is created when missing.

    Args:
        figures: placed figures from :func:`collect_figures`.
        folder: where to write them.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for figure in figures:
        if figure.svg is not None:
            path = folder / figure.file_name
            path.write_text(figure.svg, encoding="utf-8")
            written.append(path)
    return tuple(written)


def write_report_folder(
    document: dict[str, Any], out: str | Path, *, fail_on: str = "violated", figures: list[Any] | None = None
) -> ReportFiles:
    """Write every rendering of a report document into the folder ``out``.

    Every file is first written into a staging folder inside ``out`` and only then moved into
    place: when a write fails (a full disk, a file size limit), the report already in ``out`` is
    left whole.

    Args:
        document: the report document (the JSON form of an ``AuditReport``).
        out: the output folder; created when missing. Stale ``figures/*.svg`` are removed.
        fail_on: the ``--fail-on`` policy the JUnit file follows for ``inconclusive``.
        figures: the document's figures if already drawn by :func:`collect_figures`.

    Returns:
        The paths written.

    Raises:
        OutputError: naming the folder, when a file cannot be written.
    """
    folder = Path(out)
    document = with_digest(document)  # every file names the run: the digest of audit.json
    figures = collect_figures(document) if figures is None else figures
    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=folder, prefix=".staging-"))
    except OSError as exc:
        raise OutputError(f"{folder}: cannot write the report folder: {exc.strerror or exc}") from None
    try:
        _write_renderings(document, staging, fail_on=fail_on, figures=figures)
        figure_paths = _move_into_place(staging, folder)
    except OSError as exc:
        raise OutputError(
            f"{folder}: cannot write the report ({exc.strerror or exc}); the files already there are unchanged"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ReportFiles(
        folder / "audit.json", folder / "audit.md", folder / "audit.html", folder / "junit.xml", figure_paths
    )


#: The files of a report folder besides the figures, in the order they are moved into place
#: (audit.json last: the other files name its run).
_REPORT_FILES = ("audit.md", "audit.html", "junit.xml", "audit.json")


def _write_renderings(document: dict[str, Any], staging: Path, *, fail_on: str, figures: list[Any]) -> None:
    write_report(document, staging / "audit.json")
    write_figures(figures, staging / FIGURE_DIR)
    write_atomically(staging / "audit.md", render_markdown(document, figures=figures, figure_dir=FIGURE_DIR))
    write_atomically(staging / "audit.html", render_html(document, figures))
    write_atomically(staging / "junit.xml", render_junit(document, fail_on=fail_on))


def _move_into_place(staging: Path, folder: Path) -> tuple[Path, ...]:
    """Rename the staged files into ``folder`` (renames in one file system need no space) and
    remove the figures no longer drawn."""
    figures = folder / FIGURE_DIR
    figures.mkdir(exist_ok=True)
    moved = []
    for staged in sorted((staging / FIGURE_DIR).glob("*.svg")):
        os.replace(staged, figures / staged.name)
        moved.append(figures / staged.name)
    keep = {path.name for path in moved}
    for stale in figures.glob("*.svg"):
        if stale.name not in keep:
            stale.unlink()
    for name in _REPORT_FILES:
        os.replace(staging / name, folder / name)
    return tuple(moved)


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
