"""Report rendering: canonical JSON (source of truth), Markdown, HTML, JUnit XML and SVG figures."""

from dpaudit.report.figure_checks import check_figure
from dpaudit.report.figures import collect_figures, render_svg
from dpaudit.report.folder import ReportFiles, write_report_folder
from dpaudit.report.html import render_html
from dpaudit.report.json_report import (
    dumps_report,
    load_report,
    strip_timing,
    write_report,
)
from dpaudit.report.junit import render_junit
from dpaudit.report.markdown import render_markdown

__all__ = [
    "ReportFiles",
    "check_figure",
    "collect_figures",
    "dumps_report",
    "load_report",
    "render_html",
    "render_junit",
    "render_markdown",
    "render_svg",
    "strip_timing",
    "write_report",
    "write_report_folder",
]
