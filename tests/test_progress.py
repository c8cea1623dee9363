"""Progress on stderr: a CI log is never silent for more than about 10 s; JSON events for tools."""

import io
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from dpaudit.audit.progress import ProgressReporter, make_reporter

SLOW_SPEC = str(Path(__file__).parents[1] / "specs" / "balle2016_dp_lsw_sensitivity.toml")


def _result(claim="c"):
    relation = SimpleNamespace(relation=SimpleNamespace(name="replace_one"), verdict=SimpleNamespace(value="verified"))
    return SimpleNamespace(claim=SimpleNamespace(id=claim), relations=[relation])


def test_a_long_obligation_gets_still_running_lines():
    stream = io.StringIO()
    reporter = ProgressReporter(stream, mode="lines", heartbeat=0.2)
    reporter.start(3)
    reporter.obligation_started("c", "replace_one", "slow")
    time.sleep(0.9)
    reporter.obligation_finished()
    reporter.claim_finished(1, 1, _result(), 0.9)
    reporter.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "dpaudit: 3 obligations"
    assert sum("still running c/replace_one/slow" in line for line in lines) >= 2
    assert lines[-1] == "dpaudit: [1/1] c: replace_one verified (0.9 s)"


def test_json_events_are_one_object_per_line():
    stream = io.StringIO()
    reporter = ProgressReporter(stream, mode="json", heartbeat=0.2)
    reporter.start(1)
    reporter.obligation_started("c", "replace_one", "slow")
    time.sleep(0.5)
    reporter.claim_finished(1, 1, _result(), 0.5)
    reporter.close()
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert events[0] == {"event": "started", "obligations": 1}
    assert {"running", "claim_finished"} <= {event["event"] for event in events}
    assert events[-1]["verdicts"] == {"replace_one": "verified"}


def test_auto_is_lines_off_a_terminal():
    assert make_reporter("auto", io.StringIO()).mode == "lines"


@pytest.mark.slow  # a 14-second audit end to end: the main CI job runs it, not the floors one
def test_a_non_tty_audit_writes_a_line_at_least_every_ten_seconds(tmp_path):
    command = [sys.executable, "-m", "dpaudit.cli", "audit", SLOW_SPEC, "--time-limit", "14", "--executor", "serial"]
    process = subprocess.Popen(
        [*command, "--out", str(tmp_path)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert process.stderr is not None
    stamps = [time.monotonic()]
    lines = []
    for line in process.stderr:
        stamps.append(time.monotonic())
        lines.append(line)
    process.wait(timeout=60)
    stamps.append(time.monotonic())
    gaps = [later - earlier for earlier, later in itertools.pairwise(stamps)]
    assert max(gaps) < 14, (gaps, lines)  # a heartbeat at 10 s of silence, checked every second
    assert any("still running" in line for line in lines)


def test_the_last_json_event_says_the_audit_finished_with_its_verdicts(tmp_path):
    spec = str(Path(__file__).parents[1] / "specs" / "gaussian_mechanism.toml")
    command = [sys.executable, "-m", "dpaudit.cli", "audit", spec, "--quick", "--progress", "json"]
    result = subprocess.run(
        [*command, "--out", str(tmp_path)], capture_output=True, text=True, timeout=600, check=False
    )
    events = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert events[-1]["event"] == "finished"
    assert events[-1]["verdicts"]["consistent"] == 2 and events[-1]["seconds"] > 0


def test_a_bar_prints_finished_claims_in_words_not_as_a_dict():
    stream = io.StringIO()
    reporter = ProgressReporter(stream, mode="bar")
    reporter.start(1)
    reporter.claim_finished(1, 1, _result(), 0.5)
    reporter.close()
    assert "[1/1] c: replace_one verified (0.5 s)" in stream.getvalue()
    assert "{" not in stream.getvalue()
