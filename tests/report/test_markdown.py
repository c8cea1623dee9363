"""The Markdown report: CommonMark (with tables), figures as linked SVG files that exist."""

from __future__ import annotations

from markdown_it import MarkdownIt

from dpaudit.report.markdown import render_markdown
from dpaudit.report.view import KNOWN_VERDICTS


def _links(tokens) -> list[str]:
    found = []
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open":
                found.append(child.attrGet("href"))
            if child.type == "image":
                found.append(child.attrGet("src"))
    return found


def test_every_link_resolves(every_verdict_folder):
    files = every_verdict_folder
    folder = files.markdown.parent
    text = files.markdown.read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    links = _links(tokens)
    images = [link for link in links if not link.startswith("#")]
    assert images and all(link.startswith("figures/") and link.endswith(".svg") for link in images)
    assert all((folder / link).is_file() for link in images)
    assert len(set(images)) == len(files.figures)
    anchors = {link[1:] for link in links if link.startswith("#")}
    assert anchors and all(f'<a id="{anchor}"></a>' in text for anchor in anchors)


def test_hostile_strings_are_literal(every_verdict_document):
    text = render_markdown(every_verdict_document)
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script>" not in rendered and "<img" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered
    assert "onerror=alert(1)" in rendered
    for verdict in KNOWN_VERDICTS:
        assert verdict in text
    assert "figures/" not in text and "dpaudit report FILE.json" in text


def test_same_content_as_the_html(every_verdict_folder):
    files = every_verdict_folder
    text = files.markdown.read_text(encoding="utf-8")
    for fragment in (
        "Obligation tree",
        "Counterexample",
        "distinguishing event",
        "Provenance",
        "interval",
        "direction / precision",
        "covers:",
        "budget:",
        "Traceback",
    ):
        assert fragment in text
    assert "could not be drawn" in text
    assert files.html.read_text(encoding="utf-8").count("<svg") == len(files.figures)
