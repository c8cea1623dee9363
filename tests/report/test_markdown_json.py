"""JSON is canonical; Markdown parses as CommonMark and escapes user strings."""

import json

from markdown_it import MarkdownIt

from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import load_spec
from dpaudit.report.json_report import dumps_report, load_report, write_report
from dpaudit.report.markdown import render_markdown


def _document(path):
    return run_audit([(load_spec(path), str(path))], seed=1).to_json()


def test_json_is_canonical_and_round_trips(write_gaussian_spec, tmp_path):
    document = _document(write_gaussian_spec())
    text = dumps_report(document)
    assert text == dumps_report(json.loads(text))
    written = write_report(document, tmp_path / "audit.json")
    assert load_report(written)["schema_version"] == 1
    assert load_report(written)["summary"]["verified"] == 1


def test_non_finite_numbers_become_strings():
    assert json.loads(dumps_report({"tool": {"name": "dpaudit"}, "x": float("inf"), "y": [float("nan")]})) == {
        "tool": {"name": "dpaudit"},
        "x": "inf",
        "y": ["nan"],
    }


def test_markdown_parses_and_escapes_hostile_names(write_gaussian_spec):
    hostile = "<script>alert(1)</script> | *bold* [link](http://x)"
    path = write_gaussian_spec()
    title = 'title = "Gaussian mechanism sigma=1, sensitivity=1"'
    path.write_text(path.read_text().replace(title, f"title = {json.dumps(hostile)}"))
    markdown = render_markdown(_document(path))
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    assert tokens
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script>" not in html
    assert 'href="http://x"' not in html
    assert "verified" in markdown
