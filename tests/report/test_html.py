"""The HTML report: self-contained, every user string escaped, every verdict and figure shown."""

from __future__ import annotations

import html.parser
import json
import re

from dpaudit.report.html import render_html
from dpaudit.report.view import KNOWN_VERDICTS
from tests.report.synthetic import HOSTILE_IMG, HOSTILE_SCRIPT


class _Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.ids, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.ids += [value for name, value in attrs if name == "id"]

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def test_hostile_strings_stay_text(every_verdict_document, every_verdict_figures):
    page = render_html(every_verdict_document, every_verdict_figures)
    assert HOSTILE_SCRIPT not in page and "<img" not in page
    parsed = _parse(page)
    assert not [tag for tag, _ in parsed.tags if tag in ("script", "img", "iframe", "object", "embed", "link")]
    assert not [name for _, attrs in parsed.tags for name in attrs if name.startswith("on")]
    text = "".join(parsed.text)
    assert HOSTILE_SCRIPT in text and HOSTILE_IMG in text


def test_self_contained_with_every_verdict_and_figure(every_verdict_document, every_verdict_figures):
    page = render_html(every_verdict_document, every_verdict_figures)
    parsed = _parse(page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not [attrs for tag, attrs in parsed.tags if "src" in attrs]
    external = [attrs["href"] for _, attrs in parsed.tags if "href" in attrs and not attrs["href"].startswith("#")]
    assert external == []
    for verdict in KNOWN_VERDICTS:
        assert f'class="badge v-{verdict}"' in page
    drawn = [figure for figure in every_verdict_figures if figure.svg]
    assert page.count("<svg") == len(drawn)
    assert "could not be drawn" in page
    assert len(parsed.ids) == len(set(parsed.ids)), "ids (including the inlined SVGs') must be unique"
    anchors = {attrs["href"][1:] for _, attrs in parsed.tags if attrs.get("href", "").startswith("#")}
    assert anchors <= set(parsed.ids)
    assert "distinguishing event" in page and "traceback" in page


def test_old_minimal_document_renders():
    document = {
        "tool": {"name": "dpaudit"},
        "claims": [
            {
                "claim": {"id": "old"},
                "relations": [
                    {
                        "relation": "replace_one",
                        "verdict": "verified",
                        "obligations": [{"obligation": {"id": "o"}, "evidence": {"verdict": "verified"}}],
                    }
                ],
            }
        ],
    }
    page = render_html(document)
    assert "old" in page and 'class="badge v-verified"' in page


def test_unknown_verdict_gets_a_neutral_class(every_verdict_document, every_verdict_figures):
    every_verdict_document["claims"][1]["verdict"] = 'x" onclick="alert(1)'
    page = render_html(every_verdict_document, every_verdict_figures)
    assert 'onclick="' not in page and "v-unknown" in page


def test_same_document_same_page(every_verdict_document, every_verdict_figures):
    copy = json.loads(json.dumps(every_verdict_document))
    assert render_html(every_verdict_document, every_verdict_figures) == render_html(copy, every_verdict_figures)
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", render_html(copy, every_verdict_figures))
