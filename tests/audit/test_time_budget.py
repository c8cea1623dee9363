"""Wall-time budgets: out of time is `inconclusive` (budget), promptly, never a hang."""

import json
import os
import time
import weakref
from dataclasses import replace
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.audit.time_budget import TimeBudgetExhausted, wall_time_limit
from dpaudit.cli import main
from dpaudit.errors import CandidateError, SpecError
from dpaudit.kernel.verdicts import Verdict

FIXTURES = str(Path(__file__).parent / "candidates_fixture")
SLOW_SPEC = str(builtin_spec_dir() / "balle2016_dp_lsw_sensitivity.toml")


def _obligations(path):
    document = json.loads((path / "audit.json").read_text())
    return [item for claim in document["claims"] for r in claim["relations"] for item in r["obligations"]]


def test_the_timer_interrupts_and_is_disarmed():
    started = time.monotonic()
    with pytest.raises(TimeBudgetExhausted), wall_time_limit(0.2):
        while True:
            pass
    assert time.monotonic() - started < 2
    with wall_time_limit(0.2):
        pass
    time.sleep(0.3)  # no late alarm


def test_an_interruption_swallowed_by_a_finaliser_fires_again_in_the_body():
    """Python drops an exception raised in a weakref callback; the body must still be interrupted."""

    class Held:
        pass

    def slow_finaliser():
        time.sleep(0.4)  # the alarm (0.1 s) lands here and is swallowed

    started = time.monotonic()
    with pytest.raises(TimeBudgetExhausted), wall_time_limit(0.1):
        held = Held()
        weakref.finalize(held, slow_finaliser)
        del held
        while time.monotonic() - started < 5:
            pass
    assert time.monotonic() - started < 2


def test_an_audit_past_its_time_limit_is_inconclusive_and_prompt(tmp_path):
    started = time.monotonic()
    code = main(["audit", SLOW_SPEC, "--time-limit", "2", "--executor", "serial", "--quiet", "--out", str(tmp_path)])
    assert time.monotonic() - started < 30
    assert code == 0
    items = _obligations(tmp_path)
    stopped = [i for i in items if i["evidence"]["summary"].startswith("budget: stopped after")]
    not_run = [i for i in items if i["evidence"]["summary"].startswith("budget: not run")]
    assert len(stopped) == 1 and len(stopped) + len(not_run) >= len(items) - 2
    assert all(i["evidence"]["verdict"] == "inconclusive" for i in stopped + not_run)
    assert (
        main(
            [
                "audit",
                SLOW_SPEC,
                "--time-limit",
                "1",
                "--executor",
                "serial",
                "--quiet",
                "--fail-on",
                "inconclusive",
                "--out",
                str(tmp_path / "again"),
            ]
        )
        == 4
    )


def test_an_obligation_time_limit_from_the_spec(tmp_path):
    text = Path(SLOW_SPEC).read_text().replace('id = "signature-linf"', 'id = "signature-linf"\ntime_limit = 0.5', 1)
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    assert load_spec(spec).obligations[0].time_limit == 0.5
    out = str(tmp_path / "o")
    assert main(["audit", str(spec), "--time-limit", "3", "--executor", "serial", "--quiet", "--out", out]) == 0
    first = _obligations(tmp_path / "o")[0]
    assert first["obligation"]["time_limit"] == 0.5
    assert first["evidence"]["summary"].startswith("budget: stopped after 0.5 s")


@pytest.mark.parametrize("value", ["0", "-1", "1e300", "'soon'", "true"])
def test_bad_time_limits_are_refused(tmp_path, value):
    text = (
        Path(SLOW_SPEC).read_text().replace('id = "signature-linf"', f'id = "signature-linf"\ntime_limit = {value}', 1)
    )
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    with pytest.raises(SpecError, match="time_limit"):
        load_spec(spec)


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "x"])
def test_bad_command_line_time_limits_are_usage_errors(value, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", SLOW_SPEC, "--time-limit", value, "--out", str(tmp_path)])
    assert exit_info.value.code == 2


def _workers_left(before: set[str], name: bytes) -> list[bytes]:
    time.sleep(0.5)
    left = {pid for pid in set(os.listdir("/proc")) - before if pid.isdigit()}
    workers = []
    for pid in left:
        try:
            workers.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:
            continue
    return [cmd for cmd in workers if name in cmd]


def _audit_sleepy_gaussian_for_3_s():
    spec = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"
    return audit_candidate(
        load_spec(spec),
        spec,
        parse_candidate("sample_candidates:sleepy_gaussian", path=FIXTURES),
        limits=CandidateLimits(),
        seed=0,
        quick=True,
        time_limit=3.0,
    )


def test_a_candidate_too_slow_for_the_limit_is_refused_at_once_and_its_worker_is_gone():
    before = set(os.listdir("/proc"))
    started = time.monotonic()
    with pytest.raises(CandidateError, match="past the time limit of 3 s"):
        _audit_sleepy_gaussian_for_3_s()
    assert time.monotonic() - started < 20
    assert not _workers_left(before, b"sleepy_gaussian")


def test_a_slow_candidate_out_of_time_is_inconclusive_and_its_worker_is_gone(monkeypatch):
    """Past the pace check (a candidate can slow down after its timed calls: here the check is
    skipped), the time limit itself stops the audit: the obligations still running are
    inconclusive (budget) and the worker is gone."""
    import dpaudit.audit.candidates.audit as candidate_audit

    monkeypatch.setattr(candidate_audit, "check_pace", lambda *args, **kwargs: None)
    before = set(os.listdir("/proc"))
    started = time.monotonic()
    report = _audit_sleepy_gaussian_for_3_s()
    assert time.monotonic() - started < 20
    verdicts = [item.evidence for relation in report.claims[0].relations for item in relation.obligations]
    assert any(e.verdict is Verdict.INCONCLUSIVE and e.summary.startswith("budget") for e in verdicts)
    assert not _workers_left(before, b"sleepy_gaussian")


def test_a_decided_result_survives_a_time_limit_hit_while_refining_it(monkeypatch):
    """A checker that has decided (e.g. violated) and is then stopped while shrinking its pair keeps
    its verdict: an optional refinement never turns a found violation into inconclusive (budget)."""
    from dataclasses import replace

    import dpaudit.audit.execution as execution
    from dpaudit.audit.runner import run_audit
    from dpaudit.kernel.checkers import CheckerEntry
    from dpaudit.kernel.evidence import Evidence

    def decides_then_refines_forever(obligation, context):
        context.decided.append(Evidence(Verdict.VIOLATED, "found a leak", "d", "m"))
        while True:
            pass

    entry = CheckerEntry("refining", decides_then_refines_forever, "test")
    monkeypatch.setattr(execution, "get_checker", lambda name: entry)
    claim = load_spec(builtin_spec_dir() / "gaussian_mechanism.toml")
    claim = replace(claim, obligations=(replace(claim.obligations[0], time_limit=0.5),))
    started = time.monotonic()
    report = run_audit([(claim, None)], seed=0)
    assert time.monotonic() - started < 30
    evidence = report.claims[0].relations[0].obligations[0].evidence
    assert evidence.verdict is Verdict.VIOLATED and "cut short by the time budget" in evidence.summary


def test_an_error_a_library_raises_for_the_alarm_is_the_time_budget(monkeypatch):
    from dpaudit.audit import execution

    claim = load_spec(builtin_spec_dir() / "gaussian_mechanism.toml")
    obligation = next(item for item in claim.obligations if item.checker == "gaussian_exact_profile")
    entry = execution.get_checker(obligation.checker)

    def converts_the_interruption(run, context):
        try:
            while True:
                pass
        except TimeBudgetExhausted:
            raise RuntimeError("inconsistent data generation") from None  # what Hypothesis did with it

    monkeypatch.setattr(execution, "get_checker", lambda name: replace(entry, function=converts_the_interruption))
    timed = replace(obligation, time_limit=0.2)
    result = execution.run_obligation(timed, claim, claim.relations[0], 1, True, None, None)
    assert result.evidence.verdict is Verdict.INCONCLUSIVE
    assert result.evidence.summary.startswith("budget:")


def test_an_error_after_the_deadline_without_the_alarm_stays_an_internal_error(monkeypatch):
    from dpaudit.audit import execution

    claim = load_spec(builtin_spec_dir() / "gaussian_mechanism.toml")
    obligation = next(item for item in claim.obligations if item.checker == "gaussian_exact_profile")
    entry = execution.get_checker(obligation.checker)

    def fails(run, context):
        raise RuntimeError("a bug in the checker")

    monkeypatch.setattr(execution, "get_checker", lambda name: replace(entry, function=fails))
    result = execution.run_obligation(obligation, claim, claim.relations[0], 1, True, None, None)
    assert result.evidence.verdict is Verdict.ERROR and "a bug in the checker" in result.evidence.summary
