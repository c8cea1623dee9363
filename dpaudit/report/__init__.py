"""Report rendering: canonical JSON (source of truth), Markdown, and more."""

from dpaudit.report.json_report import dumps_report, load_report, strip_timing, write_report
from dpaudit.report.markdown import render_markdown

__all__ = ["dumps_report", "load_report", "render_markdown", "strip_timing", "write_report"]
