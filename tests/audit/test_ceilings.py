"""Budget ceilings: defaults, lowered on the command line or in a spec, never raised."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.memory_budget import ChildEnded, memory_limit, run_in_child
from dpaudit.audit.plugins import get_checker
from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.checks.budget_limits import (
    DEFAULT_CEILINGS,
    ceiling,
    check_enumeration,
    lowered_ceilings,
    parse_ceiling,
    run_time_limit,
)
from dpaudit.checks.sensitivity.pair_sweep import pair_blocks, pair_count
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument, SpecError
from dpaudit.kernel.checkers import register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import chain_universe

GAUSSIAN = builtin_spec_dir() / "gaussian_mechanism.toml"  # asks for 10^7 samples per side
_DPAUDIT = (sys.executable, "-m", "dpaudit.cli")


def test_a_lowered_time_ceiling_bounds_a_run_whose_spec_and_options_state_no_time_limit():
    with lowered_ceilings({"time_limit_seconds": 30.0}):
        assert run_time_limit(None) == 30.0  # dpaudit audit's default: no limit, now the ceiling's
        assert run_time_limit(3600.0) == 30.0  # dpaudit check's default hour, or a larger --time-limit
        assert run_time_limit(10.0) == 10.0
    assert run_time_limit(None) is None and run_time_limit(3600.0) == 3600.0  # not lowered: as asked
    # past before any obligation starts (at 1 ms, an exact check on warm caches could finish within it: verified)
    with lowered_ceilings({"time_limit_seconds": 1e-9}):
        report = run_audit([(load_spec(GAUSSIAN), str(GAUSSIAN))], seed=1, quick=True)
    assert {item.evidence.verdict for item in report.claims[0].relations[0].obligations} == {Verdict.INCONCLUSIVE}


def test_a_lowered_ceiling_refuses_a_spec_before_any_work(tmp_path, caplog):
    out = tmp_path / "out"
    assert main(["audit", str(GAUSSIAN), "--ceiling", "samples=1e6", "--out", str(out)]) == 2
    assert "samples" in caplog.text and not out.exists()
    with lowered_ceilings({"samples": 1e6}), pytest.raises(SpecError, match="samples"):
        load_spec(GAUSSIAN)
    assert load_spec(GAUSSIAN).id == "gaussian-mechanism"  # the ceiling is back after the block
    assert ceiling("samples") == DEFAULT_CEILINGS["samples"]


def _with_ceilings(tmp_path, table: str):
    spec = tmp_path / "spec.toml"
    spec.write_text(GAUSSIAN.read_text().replace("schema = 1\n", f"schema = 1\n\n[ceilings]\n{table}\n", 1))
    return spec


def test_a_spec_lowers_its_own_ceilings_and_cannot_raise_them(tmp_path):
    with pytest.raises(SpecError, match=r"samples=2000000: expected an integer in \[100, 1000\]"):
        load_spec(_with_ceilings(tmp_path, "samples = 1000"))
    assert load_spec(_with_ceilings(tmp_path, "samples = 1e8")).id == "gaussian-mechanism"
    for table, reason in (
        ("samples = 1e12", "can only be lowered"),
        ("memory = 5", "unknown ceiling"),
        ("digits = -1", "positive number"),
    ):
        with pytest.raises(SpecError, match=reason):
            load_spec(_with_ceilings(tmp_path, table))


def test_command_line_ceilings_are_name_value_pairs():
    assert parse_ceiling("samples=1e7") == ("samples", 1e7)
    for text in ("samples", "=5", "samples=many"):
        with pytest.raises(InvalidArgument, match="NAME=VALUE"):
            parse_ceiling(text)
    assert main(["check", str(GAUSSIAN), "--candidate", "m:f", "--ceiling", "digits=1e9"]) == 2


def _data_segment_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmData in /proc/self/status")


def test_the_memory_limit_fails_an_allocation_past_it_and_is_lifted_after():
    limit = _data_segment_mib() + 64
    with memory_limit(limit), pytest.raises(MemoryError):
        np.empty(2**28)  # 2 GiB of address space, never touched
    assert np.empty(2**28).nbytes == 2**31  # the limit is gone after the block
    with memory_limit(None):
        assert np.empty(2**28).nbytes == 2**31


def test_a_spec_memory_ceiling_makes_its_obligations_inconclusive_not_a_crash(tmp_path):
    spec = _with_ceilings(tmp_path, "memory_mib = 1")
    assert all(item.memory_limit == 1 for item in load_spec(spec).obligations)
    out = tmp_path / "out"
    # glibc's mmap threshold fixed at its default: arrays of 128 KiB and more always take fresh memory,
    # never the heap an earlier obligation freed (its dynamic threshold made this depend on what ran before)
    run = subprocess.run(
        [*_DPAUDIT, "audit", str(spec), "--quick", "--executor", "serial", "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MALLOC_MMAP_THRESHOLD_": str(128 * 1024)},
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    document = json.loads((out / "audit.json").read_text())
    items = [item for claim in document["claims"] for r in claim["relations"] for item in r["obligations"]]
    stopped = {item["obligation"]["id"] for item in items if item["evidence"]["details"].get("budget") == "memory"}
    assert "privacy-loss-histogram" in stopped  # its sample arrays need fresh memory
    for item in items:  # a small computation may run in memory the process already holds
        assert item["obligation"]["id"] in stopped or item["evidence"]["verdict"] != "error"
        if item["obligation"]["id"] in stopped:
            assert item["evidence"]["verdict"] == "inconclusive"
            details = item["evidence"]["details"]
            assert (details["budget"], details["memory_mib"]) == ("memory", 1.0)
            assert set(details) <= {"budget", "memory_mib", "child_process"}
    assert all(item["obligation"]["memory_limit"] == 1.0 for item in items)
    with pytest.raises(SpecError, match="can only be lowered"):
        load_spec(_with_ceilings(tmp_path, "memory_mib = 1e12"))


def _crash() -> None:
    """A segmentation fault, as numpy 2.4's buffered iterators raise one when a limit refuses their buffers
    with the interpreter lock released (they set MemoryError with no thread state)."""
    import ctypes

    ctypes.string_at(0)


@register_checker("test_ceilings_crashes_under_a_ceiling", description="a check that segfaults under a memory ceiling")
def _crashes_under_a_ceiling(obligation, context):
    if obligation.memory_limit is not None:
        _crash()
    raise AssertionError("ran without the spec's ceiling")


def test_a_child_gives_its_answer_or_says_how_it_ended():
    assert run_in_child(lambda: {"answer": np.arange(3)}, wait_seconds=None)["answer"].tolist() == [0, 1, 2]
    assert run_in_child(_crash, wait_seconds=None) == ChildEnded(signal="SIGSEGV")
    assert run_in_child(lambda: 1 / 0, wait_seconds=None) == ChildEnded(code=1)
    assert run_in_child(lambda: __import__("time").sleep(60), wait_seconds=0.2) == ChildEnded(overdue=True)
    assert ChildEnded(signal="SIGSEGV").describe() == "ended by SIGSEGV"


@register_checker(
    "test_ceilings_ufunc_fails_silently", description="numpy's ufunc failing an allocation without MemoryError"
)
def _ufunc_fails_silently(obligation, context):
    raise SystemError("<ufunc 'add'> returned NULL without setting an exception")


def test_a_ufunc_failing_silently_under_a_ceiling_is_the_memory_budget_and_without_one_an_internal_error():
    claim = load_spec(GAUSSIAN)
    failing = Obligation(id="ufunc", statement="s", checker="test_ceilings_ufunc_fails_silently")
    for limit, verdict, internal in ((4096.0, Verdict.INCONCLUSIVE, False), (None, Verdict.ERROR, True)):
        obligations = (replace(failing, memory_limit=limit),)
        report = run_audit([(replace(claim, obligations=obligations), "spec.toml")], seed=1, quick=True)
        (result,) = report.claims[0].relations[0].obligations
        assert result.evidence.verdict is verdict and (report.internal_errors > 0) is internal


def _timeless(evidence: dict) -> dict:
    return {key: value for key, value in evidence.items() if key != "elapsed_seconds"}


def test_a_check_that_crashes_under_a_spec_ceiling_is_inconclusive_and_the_audit_goes_on():
    claim = load_spec(builtin_spec_dir() / "gaussian_mechanism.toml")
    crashing = Obligation(
        id="crashes", statement="crashes", checker="test_ceilings_crashes_under_a_ceiling", memory_limit=4096.0
    )
    (exact,) = [item for item in claim.obligations if item.checker == "gaussian_exact_profile"]
    limited = replace(exact, memory_limit=4096.0)
    report = run_audit([(replace(claim, obligations=(crashing, limited)), "spec.toml")], seed=1, quick=True)
    crashed, finished = report.claims[0].relations[0].obligations
    assert crashed.evidence.verdict is Verdict.INCONCLUSIVE
    assert crashed.evidence.details["child_process"] == "ended by SIGSEGV"
    assert crashed.evidence.summary.startswith("budget: the process running the check under the memory ceiling")
    unlimited = run_audit([(replace(claim, obligations=(exact,)), "spec.toml")], seed=1, quick=True)
    again = unlimited.claims[0].relations[0].obligations[0].evidence
    assert _timeless(finished.evidence.to_json()) == _timeless(again.to_json())
    assert report.internal_errors == 0


def test_an_enumeration_over_the_ceiling_is_refused_before_any_work(tmp_path, caplog):
    spec = builtin_spec_dir() / "balle2016_dp_lsw_sensitivity.toml"
    out = tmp_path / "out"
    assert main(["audit", str(spec), "--ceiling", "enumeration=1e6", "--out", str(out)]) == 2
    assert "enumeration ceiling" in caplog.text and not out.exists()
    assert load_spec(spec).id  # the built-in domain is within the default ceiling
    text = spec.read_text()
    huge = tmp_path / "huge.toml"
    huge.write_text(text.replace("horizon = 6, m_max = 4 }", "horizon = 8, m_max = 6 }"))
    with pytest.raises(SpecError, match=r"4\.2e\+10 items to enumerate|items to enumerate"):
        load_spec(huge)


def test_an_enumeration_one_item_over_the_ceiling_is_refused_and_one_at_it_is_not():
    limit = int(ceiling("enumeration"))
    assert check_enumeration("the grid", limit) == limit
    with pytest.raises(InvalidArgument, match=r"the grid: .* items to enumerate, above the enumeration ceiling"):
        check_enumeration("the grid", limit + 1)


def test_the_pair_count_is_the_number_of_pairs_the_sweep_visits():
    universe = chain_universe(4, "1/2", "1/2", 4)
    for relation in ("replace_one", "add_remove_one"):
        for m_max in (1, 2, 3):
            visited = sum(block.mask.size for block in pair_blocks(universe, relation, m_max))
            assert pair_count(len(universe), relation, m_max) == visited


def test_lemma4_and_search_domains_are_bounded_by_the_enumeration_ceiling():
    with pytest.raises(InvalidArgument, match="Lemma 4's box"):
        get_checker("balle_lemma4_smoothness").validate(
            {"function": "phi_lambda", "n_states": 4, "v_max": 12, "m": 10**9}, None
        )
    with pytest.raises(InvalidArgument, match="examples of datasets"):
        get_checker("balle_condition_a_search").validate({"m_max": 10**12}, None)


def test_a_memory_ceiling_too_low_to_start_is_a_usage_error_without_a_traceback(tmp_path):
    run = subprocess.run(
        [*_DPAUDIT, "audit", str(GAUSSIAN), "--quick", "--ceiling", "memory_mib=5", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "memory ceiling is too low" in run.stderr


_BLAS_UNDER_A_CEILING = """
import numpy as np
from dpaudit.audit.memory_budget import limit_memory
for line in open("/proc/self/status"):
    if line.startswith("VmData:"):
        limit_memory(int(line.split()[1]) / 1024 + 8)
import scipy.linalg
try:
    scipy.linalg.cho_factor(np.eye(300) + np.ones((300, 300)))
    np.linalg.cholesky(np.eye(300) + np.ones((300, 300)))
    print("finished")
except MemoryError:
    print("MemoryError")
"""


def test_blas_under_a_ceiling_fails_or_finishes_instead_of_hanging():
    """OpenBLAS retries a refused buffer without end, in C (deaf to signals): the ceiling is applied only
    once numpy's and scipy's BLAS hold theirs. Without that, this hung until killed."""
    run = subprocess.run([sys.executable, "-c", _BLAS_UNDER_A_CEILING], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() in ("finished", "MemoryError")
