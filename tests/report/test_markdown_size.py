"""The Markdown report fits a pull-request comment: the full default audit in 60,000 characters,
a summary table at most 120 characters wide, details in <details> blocks."""

import copy
import json
from pathlib import Path

from dpaudit.report.markdown import MAX_MARKDOWN_CHARS, MAX_TABLE_WIDTH, render_markdown

COMMITTED = Path(__file__).parents[2] / "reports" / "audit.json"


def _table(text):
    start = text.index("| claim | relation | verdict |")
    return text[start : text.index("\n\n", start)].split("\n")


def test_the_full_default_audit_fits_a_pull_request_comment():
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    text = render_markdown(document)
    assert len(text) <= MAX_MARKDOWN_CHARS
    rows = _table(text)
    assert len(rows) == 2 + sum(len(claim["relations"]) for claim in document["claims"])
    assert max(len(row) for row in rows) <= MAX_TABLE_WIDTH
    assert "(known finding)" in text and "<details>" in text and "audit.html" in text
    for claim in document["claims"]:
        if claim["verdict"] == "violated":
            assert f"— {claim['claim']['id']}</summary>" in text


def test_a_report_too_large_for_any_level_is_cut_and_says_where_the_rest_is():
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    huge = copy.deepcopy(document)
    for claim in huge["claims"]:
        for relation in claim["relations"]:
            for item in relation["obligations"]:
                item["evidence"]["verdict"] = "violated"
                item["evidence"]["summary"] = "x" * 5000
    text = render_markdown(huge, max_chars=MAX_MARKDOWN_CHARS)
    assert len(text) <= MAX_MARKDOWN_CHARS
    assert "the rest is in audit.html and audit.json" in text
    assert text.rstrip().endswith(text.rstrip().split("\n")[-1]) and "## Provenance" in text


def test_without_a_limit_nothing_is_left_out():
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    text = render_markdown(document, max_chars=None)
    assert len(text) > MAX_MARKDOWN_CHARS
    assert "more measurements" not in text


def test_github_format_appends_the_summary_and_annotates(tmp_path, monkeypatch, capsys):
    from dpaudit.cli import main
    from dpaudit.report.json_report import write_report

    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    relation = next(
        relation for claim in document["claims"] for relation in claim["relations"] if relation["only_known_findings"]
    )
    assert relation["verdict"] == "violated"
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["report", str(COMMITTED), "--format", "github"]) == 0
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "| claim | relation | verdict |" in text
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith(("::warning ", "::error ")) for line in lines)
    assert any("known finding" in line for line in lines)
    # an unexpected violation is an error annotation
    relation["only_known_findings"] = False
    path = write_report(document, tmp_path / "edited.json")
    assert main(["report", str(path), "--format", "github"]) == 0
    errors = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error ")]
    assert errors and "title=dpaudit " in errors[0] and "%3A" in errors[0].split("::")[1]
