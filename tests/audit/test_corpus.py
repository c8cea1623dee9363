"""dpaudit corpus: check candidates with known truth and tabulate the verdicts."""

import json
import shutil
from pathlib import Path

import pytest

from dpaudit.audit.candidates.corpus import load_manifest
from dpaudit.cli import main
from dpaudit.errors import SpecError

FIXTURES = Path(__file__).parent / "candidates_fixture"
SMALL_GAUSSIAN_SPEC = Path(__file__).parents[1] / "specs" / "gaussian_candidate_small.toml"

MANIFEST = """
[[candidate]]
name = "good"
kind = "gaussian"
module = "sample_candidates"
callable = "vectorised_good_gaussian"
spec = "specs/gaussian.toml"
truth = "private"
bug = "none"

[[candidate]]
name = "halved"
kind = "gaussian"
module = "sample_candidates"
callable = "vectorised_halved_gaussian"
spec = "specs/gaussian.toml"
truth = "leaky"
bug = "sigma halved"
true_epsilon = 9.3
"""


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "specs").mkdir()
    # the example spec at a tenth of its budgets: these tests are about the corpus's tables, not the power
    shutil.copy(SMALL_GAUSSIAN_SPEC, tmp_path / "specs" / "gaussian.toml")
    shutil.copy(FIXTURES / "sample_candidates.py", tmp_path)
    (tmp_path / "manifest.toml").write_text(MANIFEST)
    return tmp_path / "manifest.toml"


@pytest.mark.slow  # whole candidate audits end to end: the main CI job runs it, not the floors one
def test_corpus_tables_and_the_same_tables_on_two_jobs_and_on_a_dask_cluster(corpus, tmp_path):
    # one serial run, read for its tables, then the two other ways of running the corpus against it (each run is
    # a whole audit of two candidates: three runs, not one serial run per comparison)
    out = tmp_path / "out"
    serial = _tables(corpus, out)
    document = json.loads((out / "corpus.json").read_text())
    assert document["summary"]["leaky_violated_on_every_seed"] == 1
    assert document["summary"]["false_violated"] == 0
    verdicts = {row["name"]: row["verdict"] for row in document["rows"]}
    assert verdicts == {"good": "consistent", "halved": "violated"}
    halved = next(row for row in document["rows"] if row["name"] == "halved")
    assert halved["epsilon_lower_bound"] > halved["claimed_epsilon"]
    assert "| halved | gaussian | leaky | sigma halved | 9.3 | violated x1 |" in (out / "corpus.md").read_text()
    good = next(row for row in document["rows"] if row["name"] == "good")
    assert "power:" in good["reason"] and len(good["reason"]) <= 210  # what the budget could have seen
    # per candidate: the pairs, samples, worst event with its counts and bound, the power, the time
    worst = halved["detail"]["worst"]
    assert worst["p_count"] > worst["q_count"] and 0 < worst["epsilon_lower_bound"] <= halved["epsilon_lower_bound"]
    assert halved["detail"]["samples_per_side"] > 0 and "neighbouring pair(s)" in halved["detail"]["pairs"]
    assert good["detail"]["power"].startswith("an event of probability") and good["seconds"] > 0
    assert "- **halved** (violated, " in (out / "corpus.md").read_text()

    assert _tables(corpus, tmp_path / "jobs-2", "--jobs", "2") == serial
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        assert _tables(corpus, tmp_path / "dask", "--executor", address) == serial


def test_bad_manifest_is_refused(corpus):
    corpus.write_text(MANIFEST.replace('truth = "leaky"', 'truth = "maybe"'))
    with pytest.raises(SpecError, match="truth"):
        load_manifest(corpus)


def test_included_manifest_adds_its_candidates_under_its_folder_name(corpus, tmp_path):
    outer = tmp_path / "outer"
    outer.mkdir()
    (outer / "manifest.toml").write_text(f'include = ["{corpus.parent.as_posix()}/manifest.toml"]\n')
    entries = load_manifest(outer / "manifest.toml")
    assert [entry.name for entry in entries] == [f"{corpus.parent.name}/good", f"{corpus.parent.name}/halved"]
    assert {entry.folder for entry in entries} == {corpus.parent.resolve()}
    assert entries[0].spec == corpus.parent.resolve() / "specs" / "gaussian.toml"


def test_include_cycles_and_repeated_names_are_refused(corpus):
    corpus.write_text('include = ["manifest.toml"]\n' + MANIFEST)
    with pytest.raises(SpecError, match="includes itself"):
        load_manifest(corpus)
    corpus.write_text(MANIFEST + MANIFEST.split("[[candidate]]")[1].join(["[[candidate]]", ""]))
    with pytest.raises(SpecError, match="repeated"):
        load_manifest(corpus)


def test_the_repository_corpus_loads_with_its_independent_part():
    entries = load_manifest(Path(__file__).parents[1] / "candidates" / "manifest.toml")
    assert len(entries) >= 100
    assert {"dp_lsw", "dp_lsl", "private_synthesis", "gpope_step", "dirichlet", "laplace"} <= {e.kind for e in entries}
    assert sum(entry.truth == "leaky" for entry in entries) >= 40
    from dpaudit.audit.spec import load_spec

    for spec in sorted({entry.spec for entry in entries}):  # every spec loads (pairs checked against the kind)
        load_spec(spec)


@pytest.mark.parametrize(
    ("round_", "count", "leaky", "kinds"),
    [
        ("round3", 21, 12, 10),
        ("round5", 32, 22, 12),
        ("round8", 12, 8, 6),
        ("round9", 12, 7, 7),
        ("round10", 12, 7, 7),
        ("round11", 12, 7, 7),
    ],
)
def test_an_independent_round_loads_and_does_not_read_dpaudit(round_, count, leaky, kinds):
    folder = Path(__file__).parents[1] / "candidates" / round_
    entries = load_manifest(folder / "manifest.toml")
    assert len(entries) == count and sum(entry.truth == "leaky" for entry in entries) == leaky
    assert len({entry.kind for entry in entries}) == kinds
    from dpaudit.audit.spec import load_spec

    for spec in sorted({entry.spec for entry in entries}):
        load_spec(spec)
    sources = sorted(folder.rglob("*.py"))
    assert {entry.module for entry in entries} <= {source.stem for source in sources}
    for source in sources:  # written from the user docs: no candidate or truth imports dpaudit
        text = source.read_text()
        assert "import dpaudit" not in text and "from dpaudit" not in text, source.name


def _tables(corpus, out, *options):
    assert main(["corpus", str(corpus), "--quick", "--out", str(out), *options]) == 0
    document = json.loads((out / "corpus.json").read_text())
    for row in document["rows"]:
        row.pop("seconds")
        row["detail"].pop("seconds", None)
    return {key: value for key, value in document.items() if key != "command"}


def test_jobs_and_executor_together_are_refused(corpus, tmp_path, caplog):
    assert main(["corpus", str(corpus), "--jobs", "2", "--executor", "process:2", "--out", str(tmp_path)]) == 2
    assert "not both" in caplog.text


def test_a_wrong_manifest_stops_the_run_on_an_executor_too(corpus, tmp_path, caplog):
    (corpus.parent / "specs" / "gaussian.toml").write_text("not toml [")
    assert main(["corpus", str(corpus), "--jobs", "2", "--out", str(tmp_path)]) == 2
    assert "gaussian.toml" in caplog.text


def test_an_interrupted_check_stops_the_run_with_the_signal(corpus, tmp_path, monkeypatch):
    from dpaudit.audit.candidates import corpus as corpus_module
    from dpaudit.audit.results import AuditReport

    def interrupted(*args, **kwargs):
        return AuditReport(claims=(), interrupted="signal 15", interrupted_signal=15, seed=0, quick=True)

    monkeypatch.setattr(corpus_module, "audit_candidate", interrupted)
    assert main(["corpus", str(corpus), "--quick", "--out", str(tmp_path)]) == 128 + 15


def test_an_interrupted_run_writes_the_checks_that_finished_and_says_what_is_missing(corpus, tmp_path, monkeypatch):
    from dpaudit.audit.candidates import corpus as corpus_module
    from dpaudit.errors import AuditInterrupted

    def first_then_interrupted(entry, seed, quick, limits):
        if entry.name == "good":
            return corpus_module.CorpusRow(entry, seed, "consistent", 0.5, 1.0, "fine", 0.1)
        raise AuditInterrupted(15)

    monkeypatch.setattr(corpus_module, "check_one", first_then_interrupted)
    out = tmp_path / "out"
    assert main(["corpus", str(corpus), "--quick", "--out", str(out)]) == 128 + 15
    document = json.loads((out / "corpus.json").read_text())
    assert [row["name"] for row in document["rows"]] == ["good"]
    assert document["interrupted"] == "signal 15: 1 of 2 check(s) not finished"
    assert "**Interrupted**: signal 15" in (out / "corpus.md").read_text()
