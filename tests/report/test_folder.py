"""The report folder and the CLI around it: `dpaudit audit` writes every format, `dpaudit report`
re-renders an old audit.json, hostile spec names stay text, the committed reports/ stays small."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import dpaudit.report.folder as folder_module
from dpaudit.cli import main
from dpaudit.errors import OutputError
from dpaudit.report.folder import FIGURE_DIR, verify_report_folder, write_report_folder
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


def test_a_second_report_into_the_folder_removes_only_stale_figures(_every_verdict_drawn, tmp_path):
    document, figures = _every_verdict_drawn
    figure_folder = tmp_path / FIGURE_DIR
    figure_folder.mkdir()
    (figure_folder / "stale.svg").write_text("<svg/>")
    (figure_folder / "notes.txt").write_text("kept")
    files = write_report_folder(document, tmp_path, figures=figures)
    assert not (figure_folder / "stale.svg").exists() and (figure_folder / "notes.txt").exists()
    assert files.figures and all(path.is_file() for path in files.figures)
    assert not list(tmp_path.glob(".staging-*"))  # nothing left of the staging folder


def test_a_failed_write_keeps_the_previous_report_whole(_every_verdict_drawn, tmp_path, monkeypatch):
    document, figures = _every_verdict_drawn
    write_report_folder(document, tmp_path, figures=figures)
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    changed = {**document, "command": "dpaudit audit --seed 2"}

    def disk_full(*args, **kwargs):
        raise OSError(errno.EFBIG, "File too large")

    monkeypatch.setattr(folder_module, "render_html", disk_full)
    with pytest.raises(
        OutputError, match=r"cannot write the report \(File too large\); the files already there are unchanged"
    ):
        write_report_folder(changed, tmp_path, figures=figures)
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before
    verify_report_folder(tmp_path)


def test_audit_into_a_folder_under_a_file_size_limit_is_exit_2_naming_it(write_gaussian_spec, tmp_path):
    out = tmp_path / "out"
    script = (
        "import resource, sys; from dpaudit.cli import main; "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); "
        f"sys.exit(main(['audit', {str(write_gaussian_spec())!r}, '--quick', '--quiet', '--out', {str(out)!r}]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        # no compiled modules written under the limit: Python ignores a short write of a .pyc (SIGXFSZ is
        # ignored), and a truncated one would break every later import of that module on this checkout
        env={**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{out}: cannot write the report (File too large)" in result.stderr
    assert not list(out.iterdir())  # nothing half-written is left


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
