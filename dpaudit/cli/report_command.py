"""``dpaudit report FILE.json``: re-render an audit.json (Markdown, HTML, JUnit, GitHub)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dpaudit.cli.common import EXIT_OK, Command, add_fail_on_option


def add_arguments(report: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit report`` to its parser."""
    report.add_argument("file", metavar="FILE.json")
    report.add_argument(
        "--format",
        choices=("md", "html", "junit", "github"),
        default="md",
        help="output format (default md); github appends the Markdown summary to $GITHUB_STEP_SUMMARY (or --output) "
        "and prints ::error / ::warning annotations for unexpected violations, errors, inconclusive results and "
        "known findings",
    )
    report.add_argument(
        "--output", "-o", help="write here instead of standard output (md: also writes figures/ next to it)"
    )
    add_fail_on_option(
        report, help="junit: inconclusive is skipped (violated, the default) or a failure (inconclusive)"
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit report`` and return its exit code."""
    from dpaudit.report.figures import collect_figures
    from dpaudit.report.folder import FIGURE_DIR, write_figures
    from dpaudit.report.html import render_html
    from dpaudit.report.json_report import load_report
    from dpaudit.report.junit import render_junit
    from dpaudit.report.markdown import render_markdown

    document = load_report(arguments.file)
    if arguments.format == "github":
        return _github_summary(document, arguments.output)
    if arguments.format == "html":
        text = render_html(document)
    elif arguments.format == "junit":
        text = render_junit(document, fail_on=arguments.fail_on)
    elif arguments.output:
        figures = collect_figures(document)
        write_figures(figures, Path(arguments.output).parent / FIGURE_DIR)
        text = render_markdown(document, figures=figures, figure_dir=FIGURE_DIR)
    else:
        text = render_markdown(document)
    if arguments.output:
        Path(arguments.output).parent.mkdir(parents=True, exist_ok=True)
        Path(arguments.output).write_text(text, encoding="utf-8")
    else:
        print(text)
    return EXIT_OK


def _github_summary(document: dict[str, Any], output: str | None) -> int:
    """GitHub Actions: the Markdown summary appended to the job summary file, annotations on stdout."""
    from dpaudit.report.markdown import render_markdown
    from dpaudit.report.summary import github_annotations

    target = output or os.environ.get("GITHUB_STEP_SUMMARY")
    text = render_markdown(document)
    if target:
        with Path(target).open("a", encoding="utf-8") as summary:
            summary.write(text + "\n")
    else:
        print(text)
    for line in github_annotations(document):
        print(line)
    return EXIT_OK


COMMAND = Command("report", add_arguments, run, help="re-render an audit.json")
