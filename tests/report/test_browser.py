"""The HTML report in a real browser (one headless Chromium for the module): it renders without
console errors, every figure has a non-zero size, hostile strings stay text, a leaky candidate's
report reads as it should, and screenshots are taken (the committed ones: reports/screenshots/)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from dpaudit.report.view import KNOWN_VERDICTS
from tests.report.devtools import console_errors, open_page, screenshot
from tests.report.screenshots import (
    AUDIT_HEIGHT,
    FOLDER_VARIABLE,
    audit_document,
    candidate_document,
    compact_png,
    show,
)
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
    choosing a relation hides the other relations. The screenshot of its top is audit.png (the
    committed one: reports/screenshots/audit.png, see tests/report/screenshots.py)."""
    session = show(chromium, audit_document(), tmp_path / "audit.html")
    reply = chromium.send("Runtime.evaluate", {"expression": FILTER_FACTS, "returnByValue": True}, session=session)
    facts = json.loads(reply["result"]["value"])
    assert facts["all"] >= 10
    assert 0 < len(facts["violated"]) < facts["all"]
    assert all("cv-violated" in names for names in facts["violated"])
    assert 0 < facts["firstRelation"] < facts["allRelations"]
    png = compact_png(screenshot(chromium, session, _folder(tmp_path) / "audit.png", height=AUDIT_HEIGHT))
    assert png.stat().st_size > 10_000
    assert console_errors(chromium) == []


def _folder(tmp_path: Path) -> Path:
    folder = Path(os.environ.get(FOLDER_VARIABLE) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


CANDIDATE_FACTS = """JSON.stringify((() => {
  const violated = Array.from(document.querySelectorAll("article.obligation.v-violated"));
  const figures = violated.flatMap(a => Array.from(a.querySelectorAll("figure.figure svg")))
    .map(svg => { const box = svg.getBoundingClientRect(); return [box.width, box.height]; });
  const key = document.querySelector("#summary .key");
  return {
    violated: violated.length,
    eventFigures: figures,
    key: key && key.innerText, keyTitle: key && key.title,
    legend: Array.from(document.querySelectorAll("#legend .badge")).map(b => b.innerText),
    power: document.querySelectorAll("tr.power .role").length,
    events: Array.from(document.querySelectorAll("p strong")).filter(s => s.innerText.startsWith("distinguishing"))
      .map(s => s.parentElement.innerText),
    widest: Math.max(...Array.from(document.querySelectorAll("td.num")).map(td => td.scrollWidth - td.clientWidth)),
  };
})())"""


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_leaky_candidates_report_reads_in_chromium_and_is_screenshot(chromium, tmp_path):
    """The report of a Laplace candidate with half its scale: the summary's key number, the legend of
    the verdicts shown, power rows, the event in y with the figure of both output distributions.
    With DPAUDIT_SCREENSHOTS=reports/screenshots the PNGs replace the committed ones."""
    session = show(chromium, candidate_document(), tmp_path / "candidate.html")
    reply = chromium.send("Runtime.evaluate", {"expression": CANDIDATE_FACTS, "returnByValue": True}, session=session)
    facts = json.loads(reply["result"]["value"])
    png = compact_png(screenshot(chromium, session, _folder(tmp_path) / "candidate.png"))

    assert console_errors(chromium) == []
    assert facts["violated"] >= 1 and len(facts["eventFigures"]) >= 1
    assert all(width > 300 and height > 150 for width, height in facts["eventFigures"]), facts["eventFigures"]
    assert re.fullmatch(r"\d+(\.\d{1,4})? vs 1", facts["key"]), facts["key"]
    assert "measured" in facts["keyTitle"] and len(facts["keyTitle"]) > len(facts["key"])
    assert facts["legend"] == ["consistent", "violated"], facts["legend"]
    assert facts["power"] >= 2
    # in the output's own coordinates: a threshold on y, or an interval of y (which the draws choose)
    in_y = r"distinguishing event: (y [<≥>≤]|-?[\d.]+(e[-+]?\d+)? [<≤] y [<≤])"
    assert any(re.search(in_y, text) for text in facts["events"]), facts["events"]
    assert facts["widest"] <= 0, "a number wraps or overflows its cell"
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
