"""Certificates by re-running: exhaustive enumerations and accountants are re-run by recheck."""

import json
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.cli import main
from dpaudit.report.json_report import with_digest
from dpaudit.report.recheck import RecheckResult, _certified_units, _tasks, recheck_report

SPECS = [builtin_spec_dir() / name for name in ("balle2016_dp_lsw_sensitivity.toml", "balle2016_smooth_bounds.toml")]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit")
    assert main(["audit", *map(str, SPECS), "--quick", "--quiet", "--out", str(out)]) == 0
    return out / "audit.json"


def _rerun_facts(document):
    for claim in document["claims"]:
        for relation in claim["relations"]:
            for item in relation["obligations"]:
                for fact in item["evidence"].get("certificate", {}).get("facts", []):
                    if fact["route"] == "rerun":
                        yield item, fact


def _write(tmp_path, document):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(with_digest(document)))
    return path


def test_every_verified_enumeration_has_a_certificate_that_reruns(report):
    document = json.loads(report.read_text())
    facts = list(_rerun_facts(document))
    assert len({item["obligation"]["id"] for item, _ in facts}) >= 8  # sweeps and Lemma 4's boxes
    result = recheck_report(report)
    assert result.ok, result.failures
    assert not result.uncertified
    assert sum("rerun: verified again" in line for line in result.replayed) == len(facts)


def test_a_rerun_margin_moved_outside_its_enclosure_fails(report, tmp_path):
    document = json.loads(report.read_text())
    item, fact = next((i, f) for i, f in _rerun_facts(document) if f["enclosure"][0] not in ("0", "1"))
    low, high = (Fraction(Decimal(v)) for v in fact["enclosure"])
    moved = high + max(high - low, abs(high) / 1000)
    fact["enclosure"] = [str(float(moved)), str(float(moved * 2))]
    result = recheck_report(_write(tmp_path, document))
    assert any(item["obligation"]["id"] in line and "does not meet the certified" in line for line in result.failures)


def test_a_rerun_verdict_edited_by_hand_fails(report, tmp_path):
    """An obligation the check does not verify, edited to ``verified`` with a borrowed certificate."""
    document = json.loads(report.read_text())
    _, fact = next(_rerun_facts(document))
    edited = next(
        item
        for claim in document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        if item["evidence"]["verdict"] != "verified"
    )
    edited["evidence"]["verdict"] = "verified"
    edited["evidence"]["certificate"] = {"method": "re-run", "assumption": "", "facts": [fact]}
    result = recheck_report(_write(tmp_path, document))
    assert any(edited["obligation"]["id"] in line and "run again, the check says" in line for line in result.failures)


def test_a_spec_that_no_longer_states_the_claim_is_refused(report, tmp_path):
    document = json.loads(report.read_text())
    moved = tmp_path / "moved.toml"
    moved.write_text(SPECS[0].read_text().replace("epsilon = 1.0", "epsilon = 2.0", 1))
    for claim in document["claims"]:
        if claim["claim"]["id"] == "balle2016-dp-lsw-sensitivity":
            claim["spec_path"] = str(moved)
    result = recheck_report(_write(tmp_path, document))
    assert any("no longer states the claim" in line for line in result.failures)


def test_reruns_can_be_skipped_and_are_then_listed(report, capsys):
    result = recheck_report(report, rerun=False)
    assert result.ok and result.no_route and all("rerun skipped" in line for line in result.no_route)
    assert main(["recheck", str(report), "--no-rerun", "--require-all"]) == 1
    assert main(["recheck", str(report)]) == 0


def test_an_obligation_edited_in_the_report_is_not_re_run_as_the_specs(report, tmp_path):
    """The re-run takes the obligation from the spec: a report whose params were edited (a smaller
    domain that might verify) is refused, not re-run as if the spec had said so."""
    document = json.loads(report.read_text())
    item, _ = next(_rerun_facts(document))
    params = item["obligation"]["params"]
    key = next(k for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool) and v > 1)
    params[key] = params[key] - 1
    result = recheck_report(_write(tmp_path, document))
    assert any(item["obligation"]["id"] in line and "not the spec's as it ran" in line for line in result.failures)


def test_on_a_pool_one_sweep_decides_a_relations_obligations_and_a_moved_margin_fails_alone(report, tmp_path):
    """The obligations one exhaustive sweep decides under a relation are re-run in one task (the sweep runs once,
    not once a worker), and an edited margin among them fails that fact alone, as serially."""
    document = json.loads(report.read_text())
    units = _certified_units(document, RecheckResult(), None)
    tasks = _tasks(units, rerun=True)
    assert sorted(index for task in tasks for index in task) == list(range(len(units)))
    swept = [[units[index] for index in task] for task in tasks if len(task) > 1]
    assert len(swept) == 2  # the sweep under replace_one and under add_remove_one
    for task in swept:
        assert len({(unit.where.split("/")[0], unit.relation["relation"]) for unit in task}) == 1
        assert {unit.item["obligation"]["checker"] for unit in task} == {"balle_exhaustive_sensitivity"}
    edited = swept[0][-1]
    fact = next(
        f
        for claim in document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        if f"{claim['claim']['id']}/{relation['relation']}/{item['obligation']['id']}" == edited.where
        for f in item["evidence"]["certificate"]["facts"]
    )
    low, high = (Fraction(Decimal(v)) for v in fact["enclosure"])
    moved = high + max(high - low, abs(high) / 1000, Fraction(1, 1000))
    fact["enclosure"] = [str(float(moved)), str(float(moved * 2))]
    path = _write(tmp_path, document)
    pooled, serial = recheck_report(path, workers=2), recheck_report(path)
    assert pooled.lines() == serial.lines()
    assert len(pooled.failures) == 1 and edited.where in pooled.failures[0]
    assert not recheck_report(path, rerun=False).failures


def test_a_relation_edited_into_a_list_fails_its_facts_on_a_pool_as_serially(report, tmp_path):
    document = json.loads(report.read_text())
    for claim in document["claims"]:
        for relation in claim["relations"]:
            relation["relation"] = [relation["relation"]]
    path = _write(tmp_path, document)
    pooled, serial = recheck_report(path, workers=2), recheck_report(path)
    assert pooled.lines() == serial.lines()
    reruns = [line for line in pooled.failures if "are not the spec's" not in line]  # and each claim's relations
    assert reruns and all("does not record how the obligation ran" in line for line in reruns)


def test_a_check_needing_a_library_this_machine_lacks_is_not_replayed_here_not_a_mismatch(monkeypatch):
    """The committed report's peer check runs dp_accounting (the peers extra): on a machine without it, recheck
    says the facts are not replayed here, and fails none."""
    committed = Path(__file__).parents[2] / "reports" / "audit.json"
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # import dp_accounting raises ImportError
    result = recheck_report(committed, claim_id="peer-dp-accounting")
    assert result.ok, result.failures
    assert result.no_route and all("not run again here: peer library 'dp_accounting'" in n for n in result.no_route)
