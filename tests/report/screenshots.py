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
from tests.report.devtools import DevToolsPipe, open_page

ROOT = Path(__file__).parents[2]
#: The viewport's width in CSS pixels (the report's column is at most 1100 wide).
WIDTH = 1200
#: The default audit's screenshot shows its header and summary table, not its claims.
AUDIT_HEIGHT = 2400
#: Where the screenshots go: $DPAUDIT_SCREENSHOTS (e.g. reports/screenshots), else a test's tmp_path.
FOLDER_VARIABLE = "DPAUDIT_SCREENSHOTS"


def candidate_document() -> dict:
    """The report of a Laplace candidate with half the claimed scale (violated), quick budgets."""
    from dpaudit.api import check
    from tests.candidates.laplace_candidates import scale_halved

    report = check(scale_halved, ROOT / "specs" / "examples" / "laplace_candidate.toml", quick=True, seed=0)
    return json.loads(dumps_report(report.to_json()))


def audit_document() -> dict:
    """The committed report of the default audit."""
    return load_report(ROOT / "reports" / "audit.json")


def compact_png(path: Path) -> Path:
    """Re-save a screenshot with a palette of 64 colours (a third of its size; text stays sharp)."""
    from PIL import Image

    with Image.open(path) as image:
        quantized = image.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    quantized.save(path, optimize=True)
    return path


def show(pipe: DevToolsPipe, document: dict, page: Path) -> str:
    """Render ``document`` to ``page`` and open it in a tab ``WIDTH`` pixels wide; the session id."""
    page.write_text(render_html(document), encoding="utf-8")
    return open_page(pipe, page.resolve().as_uri(), width=WIDTH)
