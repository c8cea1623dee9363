"""Exit codes: 0 pass, 1 violated, 2 usage, 3 internal, 4 inconclusive under --fail-on inconclusive,
130/143 interrupted (the finished claims written, the report marked ``interrupted``), and a broken
pipe is quiet."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from dpaudit.cli import main
from dpaudit.kernel.checkers import register_checker
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict


@register_checker("test_always_inconclusive", description="a test checker that cannot decide")
def _inconclusive(obligation, context):
    return Evidence(verdict=Verdict.INCONCLUSIVE, summary="budget too small", domain="none", method="test")


INCONCLUSIVE = """
[[obligations]]
id = "undecided"
statement = "a check that cannot decide"
checker = "test_always_inconclusive"
"""


def test_inconclusive_is_exit_4_only_under_that_policy(write_gaussian_spec, tmp_path):
    spec = write_gaussian_spec(extra=INCONCLUSIVE)
    assert main(["audit", str(spec), "--out", str(tmp_path / "a")]) == 0
    assert main(["audit", str(spec), "--out", str(tmp_path / "b"), "--fail-on", "inconclusive"]) == 4
    violated = write_gaussian_spec(epsilon="4.30", extra=INCONCLUSIVE, name="violated.toml")
    assert main(["audit", str(violated), "--out", str(tmp_path / "c"), "--fail-on", "inconclusive"]) == 1


def test_unwritable_out_is_exit_2_before_any_work(write_gaussian_spec, tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    spec = write_gaussian_spec()
    assert main(["audit", str(spec), "--out", str(blocker)]) == 2
    assert main(["audit", str(spec), "--out", str(blocker / "below")]) == 2
    assert "--out" in caplog.text


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_audit_and_keeps_what_finished(tmp_path, sent, code):
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "dpaudit.cli", "audit", "--executor", "serial", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as from a shell: a pytest-xdist worker ignores SIGINT, and an ignored signal stays ignored across exec
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(6.0)
    started = time.monotonic()
    process.send_signal(sent)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr[-2000:]
    assert "Traceback" not in stderr
    document = json.loads((out / "audit.json").read_text())
    assert document["interrupted"].startswith(f"signal {int(sent)}:")
    assert time.monotonic() - started < 30


def test_broken_pipe_is_quiet():
    command = f"{sys.executable} -m dpaudit.cli list | head -c 10"
    run = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert "Traceback" not in run.stderr
    assert "BrokenPipe" not in run.stderr
