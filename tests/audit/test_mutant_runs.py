"""Mutant detection: the fast mutants are caught, the references raise no false alarm, the table renders."""

import json

import pytest

from dpaudit.audit.execution import run_claim
from dpaudit.audit.mutants.library import MUTANTS, list_mutants
from dpaudit.audit.mutants.runs import mutant_spec_dir, run_mutants, write_mutant_tables
from dpaudit.audit.spec import load_spec
from dpaudit.cli import main
from dpaudit.kernel.verdicts import Verdict

FAST = [mutant for mutant in MUTANTS if mutant.fast]


@pytest.fixture(scope="module")
def fast_run():
    return run_mutants(FAST, seed=7, quick=True)


def test_fast_subset_covers_every_family_and_is_caught(fast_run):
    assert {mutant.family for mutant in FAST} == {mutant.family for mutant in MUTANTS}
    assert fast_run.all_caught, fast_run.to_text()
    for detection in fast_run.detections:
        assert not detection.errors
        assert detection.caught_by[0].count(" / ") == 2


def test_detection_table_renders_in_text_markdown_and_json(fast_run, tmp_path):
    text = fast_run.to_text()
    assert text.splitlines()[0].split() == ["mutant", "family", "caught", "by", "obligation", "seconds"]
    assert f"{len(FAST)} of {len(FAST)} mutants caught" in text
    json_path, markdown_path = write_mutant_tables(fast_run, tmp_path / "out")
    document = json.loads(json_path.read_text())
    assert document["caught"] == document["mutants"] == len(FAST)
    assert document["quick"] is True and document["seed"] == 7
    assert all(row["caught_by"] and "Breaks:" in row["why"] for row in document["detections"])
    markdown = markdown_path.read_text()
    assert "| mutant | family | caught | by obligation | seconds |" in markdown
    assert markdown.count("| yes |") == len(FAST)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_references_raise_no_false_alarm_on_the_quick_suites(seed):
    for path in sorted(mutant_spec_dir().glob("*.toml")):
        result = run_claim(load_spec(path), seed=seed, quick=True)
        for relation in result.relations:
            for item in relation.obligations:
                assert item.evidence.verdict not in (Verdict.VIOLATED, Verdict.ERROR), (
                    path.name,
                    relation.relation.name,
                    item.obligation.id,
                    item.evidence.summary,
                )


@pytest.mark.slow
def test_quick_run_catches_every_mutant():
    run = run_mutants(list_mutants(), seed=20161, quick=True)
    assert run.caught >= len(MUTANTS) - 1, run.to_text()


def test_cli_mutants_writes_tables_and_exits_by_detection(tmp_path, capsys):
    out = tmp_path / "mutants"
    assert main(["mutants", "--quick", "--only", "gpope-step-missing-clip", "--seed", "3", "--out", str(out)]) == 0
    assert "1 of 1 mutants caught" in capsys.readouterr().out
    assert (out / "mutants.json").is_file() and (out / "mutants.md").is_file()
    assert main(["mutants", "--only", "no-such-mutant", "--out", str(out)]) == 2


def test_mutants_on_a_process_pool_give_the_same_tables(tmp_path):
    tables = []
    for options in ([], ["--executor", "process:2"]):
        out = tmp_path / str(len(tables))
        assert (
            main(
                ["mutants", "--quick", "--only", "gpope-step-missing-clip", "--seed", "3", "--out", str(out), *options]
            )
            == 0
        )
        document = json.loads((out / "mutants.json").read_text())
        for key in ("elapsed_seconds", "reference_seconds"):
            document.pop(key)
        for row in document["detections"]:
            row.pop("seconds")
        tables.append(document)
    assert tables[0] == tables[1]
