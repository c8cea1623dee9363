"""The contract every registered checker keeps, built in or from a plugin (issue #39, item 3).

Each checker has one case in tests/checks/checker_contract_cases.py: an obligation of a shipped
spec that the reference passes and a planted defect the checker is known to catch. On its case a
checker must: not flag the reference, flag the defect, give the same evidence for the same seed,
refuse an unknown params key at spec load naming the keys it accepts, and honour a time budget
(``inconclusive`` for the budget, or a finished result that is neither an error nor a violation)
and a memory budget (``inconclusive`` for the budget, or exactly the result it gives without one).

A registered checker without a case fails :func:`test_every_registered_checker_has_a_contract_case`.
The example plugin's checker runs the same tests in a child process where the plugin is installed
through its entry point (:func:`test_the_contract_holds_for_the_plugin_checkers`); the memory budget
is tested in a child process too, since a lowered data-segment limit is process-wide.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dpaudit.audit.plugins import found_by_a_fresh_process, get_checker, list_checkers
from dpaudit.audit.spec import parse_spec
from dpaudit.errors import SpecError
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict
from tests.checks.checker_contract_cases import CASES, PLUGIN_CASES, ContractCase
from tests.plugins.test_entry_point_plugin import install_example_plugin

SEED = 7
REPOSITORY = Path(__file__).resolve().parents[2]
#: Every checker built in or registered by a plugin's entry point (not those a test module registers
#: in this process to exercise the runner).
REGISTERED = sorted(entry.name for entry in list_checkers() if found_by_a_fresh_process(entry.name))
RUNNABLE = [case for case in (*CASES, *PLUGIN_CASES) if case.checker in REGISTERED]
#: Set in the child processes this module starts (see the module docstring).
CHILD = os.environ.get("DPAUDIT_CONTRACT_CHILD", "")
UNKNOWN_KEY = "not_a_parameter_of_any_checker"
#: The memory budget's headroom above what the process already holds.
HEADROOM_MIB = 0.25
#: A hang guard, not a timing assertion: a budget of 0.05 s must end the check long before this.
HANG_SECONDS = 60.0


def _cases(test: str) -> list[Any]:
    """The runnable cases as parameters of ``test``: a known gap of a case is a strict expected failure."""
    return [
        pytest.param(case, id=case.checker, marks=[pytest.mark.xfail(reason=case.gaps[test], strict=True)])
        if test in case.gaps
        else pytest.param(case, id=case.checker)
        for case in RUNNABLE
    ]


def _names(message: str, key: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(key)}(?!\w)", message) is not None


_RUNS: dict[tuple[str, str], Evidence] = {}


def _evidence(case: ContractCase, side: str) -> Evidence:
    """The evidence of ``side`` (``reference`` or ``broken``) at :data:`SEED`, once per process."""
    key = (case.checker, side)
    if key not in _RUNS:
        _RUNS[key] = case.run(getattr(case, side), seed=SEED)
    return _RUNS[key]


def _canonical(evidence: Evidence) -> str:
    document = evidence.to_json()
    document.pop("elapsed_seconds")
    return json.dumps(document, sort_keys=True)


def _describe(evidence: Evidence) -> str:
    return f"{evidence.verdict.value}: {evidence.summary}"


def test_every_registered_checker_has_a_contract_case():
    cases = [case.checker for case in (*CASES, *PLUGIN_CASES)]
    assert len(cases) == len(set(cases)), "one contract case per checker"
    missing = sorted(set(REGISTERED) - set(cases))
    assert not missing, f"add a contract case to tests/checks/checker_contract_cases.py for {missing}"
    builtin = {name for name in REGISTERED if get_checker(name).function.__module__.startswith("dpaudit.checks.")}
    assert {case.checker for case in CASES} == builtin, "CASES holds exactly the built-in checkers"


@pytest.mark.parametrize("case", _cases("test_the_case_runs_its_checker"))
def test_the_case_runs_its_checker(case):
    for side in (case.reference, case.broken):
        (obligation,) = case.claim(side).obligations
        assert obligation.checker == case.checker


@pytest.mark.parametrize("case", _cases("test_the_reference_is_not_flagged"))
def test_the_reference_is_not_flagged(case):
    evidence = _evidence(case, "reference")
    assert evidence.verdict not in (Verdict.VIOLATED, Verdict.ERROR), _describe(evidence)
    assert not case.flags(evidence), _describe(evidence)


@pytest.mark.parametrize("case", _cases("test_the_planted_defect_is_flagged"))
def test_the_planted_defect_is_flagged(case):
    evidence = _evidence(case, "broken")
    assert case.flags(evidence), f"{case.defect}: {_describe(evidence)}"


@pytest.mark.parametrize("case", _cases("test_the_same_seed_gives_the_same_evidence"))
def test_the_same_seed_gives_the_same_evidence(case):
    """On the defect (its counterexample included), evidence JSON is byte-identical but for timing."""
    again = case.run(case.broken, seed=SEED)
    assert _canonical(again) == _canonical(_evidence(case, "broken"))


@pytest.mark.parametrize("case", _cases("test_an_unknown_params_key_is_refused_naming_the_accepted_keys"))
def test_an_unknown_params_key_is_refused_naming_the_accepted_keys(case):
    data = case.spec_data(case.reference)
    (obligation,) = data["obligations"]
    accepted = set(obligation["params"]) | set(get_checker(case.checker).parameters)
    obligation["params"][UNKNOWN_KEY] = 1
    with pytest.raises(SpecError, match=UNKNOWN_KEY) as refused:
        parse_spec(data, str(case.spec_path))
    message = str(refused.value)
    assert "obligations[0].params" in message
    unnamed = sorted(key for key in accepted if not _names(message, key))
    assert not unnamed, f"the error does not name the accepted keys {unnamed}: {message}"


def _within_budget(evidence: dict[str, Any], budget: str) -> None:
    """``evidence`` (JSON) is ``inconclusive`` for ``budget`` (nothing claimed), or a finished result
    that is neither an error nor a violation (the case's reference violates nothing)."""
    described = f"{evidence['verdict']}: {evidence['summary']}"
    if evidence["details"].get("budget") == budget:
        assert evidence["verdict"] == Verdict.INCONCLUSIVE.value, described
        assert evidence["summary"].startswith("budget:"), described
    else:
        assert evidence["verdict"] not in (Verdict.VIOLATED.value, Verdict.ERROR.value), described


@pytest.mark.parametrize("case", _cases("test_a_tiny_time_limit_ends_the_check_for_the_budget"))
def test_a_tiny_time_limit_ends_the_check_for_the_budget(case):
    started = time.monotonic()
    evidence = case.run(case.reference, seed=SEED, time_limit=0.05)
    assert time.monotonic() - started < HANG_SECONDS
    _within_budget(evidence.to_json(), "time")


def _data_segment_mib() -> float:
    """This process's data segment (VmData), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmData in /proc/self/status")


def _memory_outcomes() -> dict[str, dict[str, Any]]:
    """Each runnable case's reference, run once without a limit (which also warms the imports and
    the BLAS buffers a cold process would allocate first) and once with the spec's ``[ceilings]
    memory_mib`` a few MiB above what this process holds."""
    outcomes = {}
    for case in RUNNABLE:
        unlimited = case.run(case.reference, seed=SEED)
        limited = case.run(case.reference, seed=SEED, memory_mib=_data_segment_mib() + HEADROOM_MIB)
        outcomes[case.checker] = {"unlimited": _canonical(unlimited), "limited": limited.to_json()}
    return outcomes


@pytest.mark.skipif(CHILD != "memory", reason="runs in the child process of test_a_small_memory_budget...")
def test_memory_child():
    Path(os.environ["DPAUDIT_CONTRACT_OUT"]).write_text(json.dumps(_memory_outcomes()))


def _child(tmp_path: Path, kind: str, selection: str, python_path: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(path for path in (python_path, str(REPOSITORY)) if path),
        "DPAUDIT_CONTRACT_CHILD": kind,
        "DPAUDIT_CONTRACT_OUT": str(tmp_path / "outcomes.json"),
        # glibc's mmap threshold fixed at its default: arrays of 128 KiB and more take fresh memory
        # (as in tests/audit/test_ceilings.py), so a lowered limit bites whatever ran before
        "MALLOC_MMAP_THRESHOLD_": str(128 * 1024),
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", __file__, "-k", selection]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPOSITORY, env=environment, timeout=600)


@pytest.mark.slow
@pytest.mark.skipif(bool(CHILD), reason="the parent process starts the child")
def test_a_small_memory_budget_ends_each_check_for_the_budget_or_changes_nothing(tmp_path):
    run = _child(tmp_path, "memory", "test_memory_child", "")
    assert run.returncode == 0, run.stdout + run.stderr
    outcomes = json.loads((tmp_path / "outcomes.json").read_text())
    assert sorted(outcomes) == sorted(case.checker for case in RUNNABLE)
    stopped = set()
    for checker, outcome in outcomes.items():
        limited = outcome["limited"]
        _within_budget(limited, "memory")
        if limited["details"].get("budget") == "memory":
            stopped.add(checker)
        else:  # nothing from partial work: a check that finished within the budget gave its full result
            limited.pop("elapsed_seconds")
            assert json.dumps(limited, sort_keys=True) == outcome["unlimited"], checker
    assert "accountant_certified" in stopped  # its PLD's FFT arrays take some 200 MiB


@pytest.mark.skipif(bool(CHILD), reason="the parent process starts the child")
def test_the_contract_holds_for_the_plugin_checkers(tmp_path):
    selection = " or ".join(["every_registered", *(case.checker for case in PLUGIN_CASES)])
    run = _child(tmp_path, "plugin", selection, install_example_plugin(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    counts = {word: int(number) for number, word in re.findall(r"(\d+) (passed|xfailed|failed)", run.stdout)}
    assert counts.get("passed", 0) + counts.get("xfailed", 0) == 1 + 6 * len(PLUGIN_CASES), run.stdout
