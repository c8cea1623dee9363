"""The HTML report in a real browser: headless Chromium renders it without console errors,
every figure has a non-zero size, hostile strings stay text, and a screenshot is taken."""

from __future__ import annotations

import json

import pytest

from dpaudit.report.view import KNOWN_VERDICTS
from tests.report.devtools import console_errors, open_page, screenshot
from tests.report.synthetic import HOSTILE_IMG, HOSTILE_SCRIPT

pytestmark = pytest.mark.browser

PAGE_FACTS = """JSON.stringify({
  figures: Array.from(document.querySelectorAll("figure.figure svg")).map(svg => {
    const box = svg.getBoundingClientRect();
    return [box.width, box.height];
  }),
  scripts: document.querySelectorAll("script").length,
  images: document.querySelectorAll("img").length,
  badges: Object.fromEntries(%s.map(v => [v, document.querySelectorAll(".badge.v-" + v).length])),
  text: document.body.innerText,
})"""


def test_every_verdict_report_renders_in_chromium(chromium, every_verdict_folder, tmp_path):
    files = every_verdict_folder
    drawn = files.figures
    session = open_page(chromium, files.html.resolve().as_uri())
    facts_js = PAGE_FACTS % json.dumps(list(KNOWN_VERDICTS))
    reply = chromium.send("Runtime.evaluate", {"expression": facts_js, "returnByValue": True}, session=session)
    facts = json.loads(reply["result"]["value"])
    png = screenshot(chromium, session, tmp_path / "report.png")

    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert console_errors(chromium) == []
    assert not [e for e in chromium.events if e.get("method") == "Page.javascriptDialogOpening"]
    assert len(facts["figures"]) == len(drawn) >= 5
    assert all(width > 50 and height > 50 for width, height in facts["figures"]), facts["figures"]
    assert facts["scripts"] == 0 and facts["images"] == 0
    assert all(facts["badges"][verdict] > 0 for verdict in KNOWN_VERDICTS), facts["badges"]
    assert HOSTILE_SCRIPT in facts["text"] and HOSTILE_IMG in facts["text"]


FILTER_FACTS = """JSON.stringify((() => {
  const shown = () => Array.from(document.querySelectorAll("section.claim"))
    .filter(s => getComputedStyle(s).display !== "none").map(s => s.className);
  const relations = () => Array.from(document.querySelectorAll("section.relation"))
    .filter(s => getComputedStyle(s).display !== "none" && s.offsetParent !== null).length;
  const all = shown();
  document.getElementById("fv-violated").checked = true;
  const violated = shown();
  document.getElementById("fv-all").checked = true;
  document.getElementById("fr-1").checked = true;
  const first = relations();
  document.getElementById("fr-all").checked = true;
  return {all: all.length, violated, firstRelation: first, allRelations: relations()};
})())"""


def test_the_committed_report_filters_by_verdict_and_relation_and_is_screenshot(chromium, tmp_path):
    """Filters are CSS-only (radio buttons, no scripts): choosing 'violated' hides the other claims,
    choosing a relation hides the other relations. The screenshot is reports/screenshots/audit.png."""
    from pathlib import Path

    from dpaudit.report.html import render_html
    from dpaudit.report.json_report import load_report

    root = Path(__file__).parents[2]
    page = tmp_path / "audit.html"
    page.write_text(render_html(load_report(root / "reports" / "audit.json")), encoding="utf-8")
    session = open_page(chromium, page.resolve().as_uri())
    reply = chromium.send("Runtime.evaluate", {"expression": FILTER_FACTS, "returnByValue": True}, session=session)
    facts = json.loads(reply["result"]["value"])
    assert facts["all"] >= 10
    assert 0 < len(facts["violated"]) < facts["all"]
    assert all("cv-violated" in names for names in facts["violated"])
    assert 0 < facts["firstRelation"] < facts["allRelations"]
    png = screenshot(chromium, session, tmp_path / "audit.png")
    assert png.stat().st_size > 10_000
    assert console_errors(chromium) == []
