"""JUnit XML: one test case per (claim, relation, obligation), counts that match the report."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.report.junit import junit_outcome, render_junit
from dpaudit.report.view import obligation_verdict_counts
from tests.report.synthetic import HOSTILE_IMG, HOSTILE_SCRIPT

OUTCOMES = [
    ("proven", "violated", "passed"),
    ("verified", "violated", "passed"),
    ("consistent", "inconclusive", "passed"),
    ("inconclusive", "violated", "skipped"),
    ("inconclusive", "inconclusive", "failure"),
    ("violated", "violated", "failure"),
    ("error", "violated", "error"),
    ("error", "inconclusive", "error"),
    ("something-new", "violated", "error"),
]


@pytest.mark.parametrize(("verdict", "fail_on", "outcome"), OUTCOMES)
def test_outcome_table(verdict, fail_on, outcome):
    assert junit_outcome(verdict, fail_on) == outcome


@pytest.mark.parametrize("fail_on", ["", "error", None, "VIOLATED"])
def test_unknown_policy_is_refused(fail_on, every_verdict_document):
    with pytest.raises(InvalidArgument, match="fail_on"):
        render_junit(every_verdict_document, fail_on=fail_on)


@pytest.mark.parametrize("fail_on", ["violated", "inconclusive"])
def test_counts_match_the_report(every_verdict_document, fail_on):
    root = ET.fromstring(render_junit(every_verdict_document, fail_on=fail_on))
    counts = obligation_verdict_counts(every_verdict_document)
    cases = root.findall("./testsuite/testcase")
    assert int(root.get("tests")) == len(cases) == sum(counts.values())
    failing = counts["violated"] + (counts["inconclusive"] if fail_on == "inconclusive" else 0)
    assert int(root.get("failures")) == len(root.findall(".//testcase/failure")) == failing
    assert int(root.get("errors")) == len(root.findall(".//testcase/error")) == counts["error"]
    skipped = 0 if fail_on == "inconclusive" else counts["inconclusive"]
    assert int(root.get("skipped")) == len(root.findall(".//testcase/skipped")) == skipped
    suites = root.findall("testsuite")
    assert len(suites) == len(every_verdict_document["claims"])
    assert sum(int(suite.get("tests")) for suite in suites) == len(cases)


def test_names_are_escaped_and_control_characters_replaced(every_verdict_document):
    every_verdict_document["claims"][1]["relations"][0]["obligations"][0]["evidence"]["summary"] = "bad \x00\x1b char"
    text = render_junit(every_verdict_document)
    root = ET.fromstring(text)
    names = {case.get("classname") for case in root.iter("testcase")}
    assert f"{HOSTILE_SCRIPT}{HOSTILE_IMG}.replace_one" in names
    assert "\x00" not in text and "\ufffd" in text
    assert HOSTILE_SCRIPT not in text


def test_known_finding_is_skipped_and_its_absence_fails():
    import xml.etree.ElementTree as ET

    from dpaudit.report.junit import render_junit

    def document(verdict):
        evidence = {
            "verdict": verdict,
            "summary": "s",
            "domain": "d",
            "method": "m",
            "measurements": [],
            "budget": {},
            "counterexample": None,
            "details": {},
            "elapsed_seconds": 0.1,
        }
        return {
            "tool": {"name": "dpaudit", "version": "x"},
            "seed": 1,
            "claims": [
                {
                    "claim": {"id": "c"},
                    "verdict": verdict,
                    "relations": [
                        {
                            "relation": "replace_one",
                            "verdict": verdict,
                            "obligations": [
                                {"obligation": {"id": "o"}, "evidence": evidence, "known_finding": "paper bug"}
                            ],
                        }
                    ],
                }
            ],
        }

    expected = ET.fromstring(render_junit(document("violated")))
    assert (expected.get("tests"), expected.get("failures"), expected.get("skipped")) == ("1", "0", "1")
    vanished = ET.fromstring(render_junit(document("verified")))
    assert (vanished.get("tests"), vanished.get("failures")) == ("1", "1")
    assert "no longer reproduced" in vanished.find(".//failure").get("message")


def test_each_suite_has_one_properties_block_with_the_seed_version_and_run(every_verdict_document):
    from dpaudit.report.json_report import with_digest

    root = ET.fromstring(render_junit(with_digest(every_verdict_document)))
    for suite in root.iter("testsuite"):
        (block,) = suite.findall("properties")
        assert [prop.get("name") for prop in block] == ["seed", "dpaudit", "dpaudit.run"]
