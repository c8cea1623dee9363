"""Self-contained HTML rendering of a report document (Jinja2, inline CSS and SVG, no scripts)."""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markupsafe import Markup

from dpaudit.report.figures import PlacedFigure, collect_figures
from dpaudit.report.view import report_view

__all__ = ["render_html"]

_ID_REFERENCE = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("dpaudit.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def inline_svg(figure: PlacedFigure, index: int) -> Markup:
    """The figure's SVG for inlining, with its ids prefixed so that figures cannot clash.

    The SVG comes from :func:`dpaudit.report.figures.render_svg`, which escapes all text
    and refuses scripts, event attributes and external references.
    """
    if figure.svg is None:
        return Markup("")
    prefixed = _ID_REFERENCE.sub(lambda match: f"{match.group(1)}f{index}-{match.group(2)}", figure.svg)
    return Markup(prefixed)


def render_html(document: dict[str, Any], figures: list[PlacedFigure] | None = None) -> str:
    """Render a report document as one self-contained HTML page.

    The page carries its CSS and its figures (inline SVG) and loads nothing; a Content
    Security Policy forbids scripts and remote resources. Every string from the document
    is escaped by Jinja2's autoescaping.

    Args:
        document: the report document (``audit.json``, this or an older version).
        figures: figures already drawn by :func:`collect_figures`; drawn here when ``None``.

    Returns:
        The HTML text.
    """
    placed = collect_figures(document) if figures is None else figures
    numbers = {id(figure): index for index, figure in enumerate(placed)}
    template = _environment().get_template("audit.html.j2")
    return template.render(
        view=report_view(document, placed),
        svg=lambda figure: inline_svg(figure, numbers.get(id(figure), 0)),
    )
