"""audit.json carries a digest; dpaudit report refuses an edited file and verdicts that do not follow."""

from __future__ import annotations

import json
import re

import pytest

from dpaudit.cli import main
from tests.conftest import GAUSSIAN_SPEC


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """The audit.json of one audit of the Gaussian spec: each test edits a copy of it."""
    folder = tmp_path_factory.mktemp("integrity")
    spec = folder / "spec.toml"
    spec.write_text(GAUSSIAN_SPEC.format(epsilon="4.38", delta="1e-5", sigma="1.0", claim_id="gaussian", extra=""))
    assert main(["audit", str(spec), "--out", str(folder / "out")]) == 0
    return (folder / "out" / "audit.json").read_text()


def _audit(tmp_path, audited):
    path = tmp_path / "audit.json"
    path.write_text(audited)
    return path


def test_an_untouched_report_renders(tmp_path, audited):
    path = _audit(tmp_path, audited)
    assert json.loads(path.read_text())["digest"].startswith("sha256:")
    assert main(["report", str(path), "--format", "junit"]) == 0


def test_a_report_without_its_digest_renders_with_a_warning_that_nothing_was_checked(tmp_path, audited, caplog):
    path = _audit(tmp_path, audited)
    document = json.loads(path.read_text())
    del document["digest"]
    path.write_text(json.dumps(document))
    assert main(["report", str(path), "--format", "md"]) == 0  # the reports from before digests still render
    assert "no digest, so its content is not checked against one" in caplog.text


def test_an_edited_verdict_is_refused(tmp_path, audited, caplog):
    path = _audit(tmp_path, audited)
    document = json.loads(path.read_text())
    document["claims"][0]["relations"][0]["obligations"][0]["evidence"]["verdict"] = "violated"
    path.write_text(json.dumps(document))
    assert main(["report", str(path), "--format", "junit"]) == 2
    assert "digest" in caplog.text
    del document["digest"]  # without the digest, the verdicts must still follow from the evidence
    path.write_text(json.dumps(document))
    assert main(["report", str(path), "--format", "junit"]) == 2
    assert "does not follow from its obligations" in caplog.text


def test_a_number_changed_in_its_sixth_digit_is_refused(tmp_path, audited, caplog):
    path = _audit(tmp_path, audited)
    text = path.read_text()
    match = re.search(r'"measured": "(\d\.\d{5})(\d)', text)
    assert match
    digit = str((int(match.group(2)) + 1) % 10)
    path.write_text(text[: match.start(2)] + digit + text[match.end(2) :])
    assert main(["report", str(path), "--format", "md"]) == 2
    assert "digest" in caplog.text


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(claims={"not": "a list"}),
        lambda d: d["claims"][0].update(relations="x"),
        lambda d: d["claims"][0]["relations"][0].update(verdict=3),
        lambda d: d["claims"][0]["relations"][0].update(verdict="great"),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0].update(evidence=None),
        lambda d: d.update(tool="dpaudit"),
        lambda d: d["claims"][0].update(claim=None),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0].update(obligation=None),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0].update(seed="x"),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0]["evidence"].update(measurements="x"),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0]["evidence"].update(measurements=[1]),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0]["evidence"].update(counterexample=5),
        lambda d: d["claims"][0]["relations"][0]["obligations"][0]["evidence"].update(summary={"x": 1}),
        lambda d: d.update(seed="x"),
    ],
)
def test_wrong_types_are_a_clear_error(tmp_path, audited, edit, capsys):
    path = _audit(tmp_path, audited)
    document = json.loads(path.read_text())
    del document["digest"]
    edit(document)
    path.write_text(json.dumps(document))
    assert main(["report", str(path), "--format", "html", "-o", str(tmp_path / "x.html")]) == 2
    capsys.readouterr()
    assert main(["recheck", str(path), "--no-rerun"]) in (1, 2)  # a failure or a usage error, never a crash
    assert "internal error" not in capsys.readouterr().err
