"""Screenshots of the HTML report in headless Chromium: the default audit's summary and a leaky
candidate's report (its violated claim with the figure of the event that told X from X').

``tests/report/test_browser.py`` takes them in a temporary folder; the committed ones
(reports/screenshots/*.png) are regenerated with::

    DPAUDIT_SCREENSHOTS=reports/screenshots pytest -q tests/report/test_browser.py

(it audits the candidate ``tests/candidates/laplace_candidates.py:scale_halved`` with
``specs/examples/laplace_candidate.toml`` and quick budgets, a few seconds, and renders the
committed ``reports/audit.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from dpaudit.report.html import render_html
from dpaudit.report.json_report import dumps_report, load_report
from tests.report.devtools import DevToolsPipe, open_page, screenshot

ROOT = Path(__file__).parents[2]
#: The viewport's width in CSS pixels (the report's column is at most 1100 wide).
WIDTH = 1200
#: The default audit's screenshot shows its header and summary table, not its 40 claims.
AUDIT_HEIGHT = 2400


def candidate_document() -> dict:
    """The report of a Laplace candidate with half the claimed scale (violated), quick budgets."""
    from dpaudit.api import check
    from tests.candidates.laplace_candidates import scale_halved

    report = check(scale_halved, ROOT / "specs" / "examples" / "laplace_candidate.toml", quick=True, seed=0)
    return json.loads(dumps_report(report.to_json()))


def audit_document() -> dict:
    """The committed report of the default audit."""
    return load_report(ROOT / "reports" / "audit.json")


def show(pipe: DevToolsPipe, document: dict, page: Path) -> str:
    """Render ``document`` to ``page`` and open it in a tab ``WIDTH`` pixels wide; the session id."""
    page.write_text(render_html(document), encoding="utf-8")
    session = open_page(pipe, page.resolve().as_uri())
    metrics = {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    pipe.send("Emulation.setDeviceMetricsOverride", metrics, session=session)
    return session


def take_screenshots(pipe: DevToolsPipe, folder: Path, documents: dict[str, dict]) -> dict[str, Path]:
    """One PNG per document (``candidate``, ``audit``) in ``folder``: ``NAME.png``."""
    folder.mkdir(parents=True, exist_ok=True)
    taken = {}
    for name, document in documents.items():
        session = show(pipe, document, folder / f"{name}.html")
        height = AUDIT_HEIGHT if name == "audit" else None
        taken[name] = screenshot(pipe, session, folder / f"{name}.png", height=height)
        (folder / f"{name}.html").unlink()
    return taken
