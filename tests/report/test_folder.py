"""The report folder and the CLI around it: `dpaudit audit` writes every format, `dpaudit report`
re-renders an old audit.json, hostile spec names stay text, the committed reports/ stays small."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from dpaudit.cli import main
from dpaudit.report.folder import write_figures
from tests.report.synthetic import HOSTILE_IMG, HOSTILE_SCRIPT

REPO = Path(__file__).resolve().parents[2]
REPORT_FILES = ("audit.json", "audit.md", "audit.html", "junit.xml")


def _folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize("hostile", [HOSTILE_SCRIPT, HOSTILE_IMG])
def test_audit_writes_every_format_and_escapes_a_hostile_spec_title(write_gaussian_spec, tmp_path, capsys, hostile):
    """Claim ids are slugs (the spec loader refuses anything else); titles are free text and must stay text."""
    spec = write_gaussian_spec()
    title = 'title = "Gaussian mechanism sigma=1, sensitivity=1"'
    spec.write_text(spec.read_text().replace(title, f"title = {json.dumps(hostile)}"))
    out = tmp_path / "out"
    assert main(["audit", str(spec), "--out", str(out)]) == 0
    assert "junit.xml" in capsys.readouterr().out
    assert all((out / name).is_file() for name in REPORT_FILES)
    figures = sorted((out / "figures").glob("*.svg"))
    assert figures
    page = (out / "audit.html").read_text(encoding="utf-8")
    assert hostile not in page and "<img" not in page and "<script" not in page
    rendered = MarkdownIt("commonmark").enable("table").render((out / "audit.md").read_text(encoding="utf-8"))
    assert '<img src="figures/' in rendered and "<script" not in rendered and "<img src=x" not in rendered
    root = ET.fromstring((out / "junit.xml").read_text(encoding="utf-8"))
    assert {case.get("classname") for case in root.iter("testcase")} == {"gaussian.replace_one"}


def test_report_command_renders_every_format_from_an_old_file(tmp_path, capsys):
    old = {
        "schema_version": 1,
        "tool": {"name": "dpaudit", "version": "0.0.1"},
        "seed": 3,
        "claims": [
            {
                "claim": {"id": "old-claim", "source": {"paper": "P", "location": "L"}},
                "relations": [
                    {
                        "relation": "replace_one",
                        "verdict": "inconclusive",
                        "obligations": [
                            {
                                "obligation": {"id": "o"},
                                "evidence": {
                                    "verdict": "inconclusive",
                                    "summary": "budget spent",
                                    "measurements": [{"quantity": "q", "claimed": 1.0, "measured": 0.5}],
                                },
                            }
                        ],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    assert main(["report", str(path), "--format", "html", "-o", str(tmp_path / "new" / "a.html")]) == 0
    assert "old-claim" in (tmp_path / "new" / "a.html").read_text(encoding="utf-8")
    assert main(["report", str(path), "--format", "junit", "--fail-on", "inconclusive"]) == 0
    assert 'failures="1"' in capsys.readouterr().out
    assert main(["report", str(path), "--format", "junit"]) == 0
    assert 'skipped="1"' in capsys.readouterr().out
    assert main(["report", str(path), "--format", "md", "-o", str(tmp_path / "md" / "a.md")]) == 0
    text = (tmp_path / "md" / "a.md").read_text(encoding="utf-8")
    links = [line.split("](", 1)[1].rstrip(")") for line in text.splitlines() if line.startswith("![")]
    assert links and all((tmp_path / "md" / link).is_file() for link in links)


def test_write_figures_prunes_only_when_asked(every_verdict_figures, tmp_path):
    folder = tmp_path / "figures"
    folder.mkdir()
    (folder / "stale.svg").write_text("<svg/>")
    (folder / "notes.txt").write_text("kept")
    written = write_figures(every_verdict_figures, folder)
    assert (folder / "stale.svg").exists()
    assert write_figures(every_verdict_figures, folder, prune=True) == written
    assert not (folder / "stale.svg").exists() and (folder / "notes.txt").exists()


def test_every_verdict_folder_is_small(every_verdict_folder):
    assert _folder_bytes(every_verdict_folder.json.parent) < 1_000_000


def test_committed_reports_folder_is_complete_and_under_5_mb():
    folder = REPO / "reports"
    if not (folder / "audit.json").is_file():
        pytest.skip("reports/ is not generated yet (dpaudit audit --out reports)")
    assert all((folder / name).is_file() for name in REPORT_FILES)
    assert _folder_bytes(folder) < 5 * 1024 * 1024
    text = (folder / "audit.md").read_text(encoding="utf-8")
    for link in (line.split("](", 1)[1].rstrip(")") for line in text.splitlines() if line.startswith("![")):
        assert (folder / link).is_file(), link
