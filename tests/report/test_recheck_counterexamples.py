"""recheck replays the counterexample of a violated Monte Carlo obligation: a candidate's report, which
has no verified facts, is rechecked too; an edited count, a counterexample naming another pair, or a
pair_json of another pair is refused."""

import copy
import json
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import load_spec
from dpaudit.report.counterexample_replay import replay_counterexamples, replay_event
from dpaudit.report.json_report import with_digest
from dpaudit.report.recheck import recheck_report

CANDIDATES = Path(__file__).parents[1] / "candidates"
SPEC = CANDIDATES / "specs" / "laplace.toml"


@pytest.fixture(scope="module")
def document():
    """The report of a Laplace candidate with half the scale (true epsilon 2 against a claimed 1)."""
    report = audit_candidate(
        load_spec(SPEC),
        SPEC,
        parse_candidate("laplace_candidates:scale_halved", path=str(CANDIDATES)),
        limits=CandidateLimits(),
        seed=1,
        quick=True,
    )
    return json.loads(json.dumps(report.to_json()))


def _violated(document):
    return next(
        item
        for claim in document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        if item["evidence"]["verdict"] == "violated" and "p_count" in (item["evidence"]["counterexample"] or {})
    )


def _rechecked(document, tmp_path):
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(with_digest(document)))
    return recheck_report(path)


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_candidates_counterexample_is_replayed(document, tmp_path):
    result = _rechecked(copy.deepcopy(document), tmp_path)
    assert result.ok, result.failures
    (line,) = [line for line in result.replayed if "counterexample:" in line]
    assert "empirical-privacy" in line and "> 1" in line


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_an_edited_count_is_refused(document, tmp_path):
    edited = copy.deepcopy(document)
    item = _violated(edited)
    counterexample = item["evidence"]["counterexample"]
    for event in item["evidence"]["details"]["certified_events"]:
        if event["event"] == counterexample["event"] and event["pair"] == counterexample["pair"]:
            event["p_count"] -= 500
    counterexample["p_count"] -= 500
    result = _rechecked(edited, tmp_path)
    assert any("not the recorded" in line for line in result.failures), result.failures


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_counterexample_naming_another_pair_is_refused(document, tmp_path):
    edited = copy.deepcopy(document)
    counterexample = _violated(edited)["evidence"]["counterexample"]
    counterexample["pair"] = "f(X) = 0, f(X') = 1"
    result = _rechecked(edited, tmp_path)
    assert any("not among the certified events" in line for line in result.failures), result.failures


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_pair_json_of_another_pair_is_refused(document, tmp_path):
    edited = copy.deepcopy(document)
    counterexample = _violated(edited)["evidence"]["counterexample"]
    (pair,) = json.loads(counterexample["pair_json"])
    counterexample["pair_json"] = json.dumps([{**pair, "label": "f(X) = 0, f(X') = 1"}])
    result = _rechecked(edited, tmp_path)
    assert any("pair_json is labelled" in line for line in result.failures), result.failures
    counterexample["pair_json"] = json.dumps([{**pair, "first": [123.0]}])
    result = _rechecked(edited, tmp_path)
    assert any("other inputs" in line for line in result.failures), result.failures


def test_counts_that_do_not_refute_the_claim_are_refused():
    # 600 vs 400 of 1000 at alpha 0.05: epsilon >= ln(p_lower / q_upper) ~ 0.27, not above 1
    from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound

    p_lower, q_upper = clopper_pearson_lower(600, 1000, 0.05), clopper_pearson_upper(400, 1000, 0.05)
    event = {"alpha": 0.05, "samples": 1000, "p_count": 600, "q_count": 400, "p_lower": p_lower, "q_upper": q_upper}
    event["epsilon_lower_bound"] = epsilon_lower_bound(p_lower, q_upper, 0.0)
    assert replay_event(event, 0.1, 0.0) is None
    assert "does not exceed the claimed 1" in replay_event(event, 1.0, 0.0)


def test_a_report_without_violations_replays_no_counterexample_and_refuses_none():
    """The committed default audit: its Monte Carlo obligations hold, and none of their certified events
    refutes its claim (so none is taken for a verdict edited away from its events)."""
    committed = json.loads((Path(__file__).parents[2] / "reports" / "audit.json").read_text())
    assert replay_counterexamples(committed) == []
    assert any(
        item["evidence"]["verdict"] == "consistent" and (item["evidence"].get("details") or {}).get("certified_events")
        for claim in committed["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
    )


def _every_verdict(document, verdict):
    """The document with every verdict, and the summary, edited to ``verdict`` (a consistent forgery)."""
    edited = copy.deepcopy(document)
    for claim in edited["claims"]:
        for relation in claim["relations"]:
            for item in relation["obligations"]:
                item["evidence"]["verdict"] = verdict
            relation["verdict"] = verdict
        claim["verdict"] = verdict
    total = sum(len(claim["relations"]) for claim in edited["claims"])
    edited["summary"] = {name: total if name == verdict else 0 for name in edited["summary"]}
    return edited


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
@pytest.mark.parametrize("verdict", ["consistent", "inconclusive", "proven"])
def test_a_violation_edited_away_with_a_fresh_digest_is_refused_by_its_own_events(document, tmp_path, verdict):
    result = _rechecked(_every_verdict(document, verdict), tmp_path)
    assert not any("integrity" in line for line in result.failures)  # the forgery is consistent in itself
    assert any(f"the verdict is {verdict!r}, but" in line for line in result.failures), result.failures


def _edited_away(document, change):
    """The document with its violations edited to consistent, and ``change`` applied to each such evidence."""
    edited = copy.deepcopy(document)
    for claim in edited["claims"]:
        for relation in claim["relations"]:
            for item in relation["obligations"]:
                if item["evidence"]["verdict"] == "violated":
                    change(item["evidence"])
    return _every_verdict(edited, "consistent")


def _drop_events(evidence):
    evidence["details"].pop("certified_events", None)


def _events_below_the_claim(evidence):
    for event in evidence["details"].get("certified_events") or []:
        event["epsilon_lower_bound"] = 0.5
    evidence["measurements"] = [m for m in evidence["measurements"] if not m["direction"].startswith("lower bound")]


def _claimed_raised(evidence):
    for measurement in evidence["measurements"]:
        measurement["claimed"] = 5.0


def _quantity_respelt(evidence):  # "epsilon at delta=0.0" as "...=0.00", so no exact string matches it
    _drop_events(evidence)
    for measurement in evidence["measurements"]:
        measurement["quantity"] = measurement["quantity"].replace("=0.0", "=0.00").replace("=1.0", "=1.00")
        measurement["claimed"] = 5.0


def _another_delta(evidence):  # a bound on epsilon at a larger delta still bounds it at the claim's
    _drop_events(evidence)
    for measurement in evidence["measurements"]:
        measurement["quantity"] = measurement["quantity"].replace("epsilon at delta=0.0", "epsilon at delta=0.5")
        measurement["claimed"] = 5.0


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_drop_events, "is a certified lower bound"),  # its measurement says what the events said
        (_events_below_the_claim, "its counts give epsilon"),  # every event is replayed from its counts
        (_claimed_raised, "where the claim states 1.0"),  # the claimed value is the claim's, not the measurement's
        (_quantity_respelt, "where the claim states 1.0"),  # the point read as a number, not matched as text
        (_another_delta, "is a certified lower bound"),
    ],
)
def test_a_violation_edited_away_with_its_numbers_edited_too_is_refused(document, tmp_path, change, said):
    result = _rechecked(_edited_away(document, change), tmp_path)
    assert any(said in line for line in result.failures), result.failures


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_known_finding_its_spec_does_not_pin_is_refused(document, tmp_path):
    edited = copy.deepcopy(document)
    _violated(edited)["known_finding"] = "accepted risk"
    result = _rechecked(edited, tmp_path)
    assert any("marked a known finding its spec does not state" in line for line in result.failures)


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_an_interrupted_run_or_a_spec_not_found_is_unchecked_which_require_all_fails_on(document, tmp_path):
    interrupted = {**copy.deepcopy(document), "interrupted": "signal 15: 1 of 1 claim(s) not finished"}
    result = _rechecked(interrupted, tmp_path)
    assert result.ok and any("the run was interrupted" in line for line in result.unchecked)
    moved = copy.deepcopy(document)
    moved["claims"][0]["spec_path"] = "/nowhere/laplace.toml"
    moved["claims"][0]["claim"]["title"] += " "  # and the built-in spec of that name states another claim
    result = _rechecked(moved, tmp_path)
    assert any("could not be compared with its spec" in line for line in result.unchecked), result.unchecked


def test_a_known_finding_edited_away_from_the_committed_report_is_refused():
    """The white-box findings of the default audit: one edited to consistent (its claim still listing it)
    fails, as the audit that wrote it would have."""
    from dpaudit.report.completeness import missing_obligations

    root = Path(__file__).parents[2]
    committed = json.loads((root / "reports" / "audit.json").read_text())
    assert missing_obligations(committed, root / "reports" / "audit.json") == []
    pinned = next(
        item
        for claim in committed["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        if item.get("known_finding")
    )
    pinned["evidence"]["verdict"], pinned["known_finding"] = "consistent", None
    outcomes = missing_obligations(committed, root / "reports" / "audit.json")
    assert any("pins a known finding here, and it is not violated" in message for _, message in outcomes)


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_report_without_its_digest_is_refused(document, tmp_path):
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(document))  # as dpaudit wrote it, less the digest
    assert any("no digest" in line for line in recheck_report(path).failures)


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_candidates_report_re_signed_with_its_violated_obligations_deleted_is_refused(document, tmp_path):
    edited = copy.deepcopy(document)
    for claim in edited["claims"]:
        for relation in claim["relations"]:
            relation["obligations"] = [
                item for item in relation["obligations"] if item["evidence"]["verdict"] != "violated"
            ]
    result = _rechecked(_every_verdict(edited, "inconclusive"), tmp_path)
    assert any("missing" in line and "its spec states" in line for line in result.failures), result.failures
    assert not _rechecked(copy.deepcopy(document), tmp_path).failures  # the report as dpaudit wrote it passes


@pytest.mark.slow  # the fixture is a whole candidate audit: the main CI job runs these, not the floors one
def test_a_missing_implied_check_fails_and_says_another_dpaudit_may_have_chosen_others(document, tmp_path):
    edited = copy.deepcopy(document)
    relation = edited["claims"][0]["relations"][0]
    implied = [item for item in relation["obligations"] if item["obligation"]["id"].startswith("implied-")]
    assert implied and all(item["evidence"]["verdict"] != "violated" for item in implied[-1:])
    relation["obligations"].remove(implied[-1])
    failures = _rechecked(edited, tmp_path).failures
    assert any("which another dpaudit version may choose otherwise" in line for line in failures), failures
