"""Start-up and audit wall time (issue 20, points 4 and 6), in subprocesses, with repetitions.

The baseline for start-up is ``python -c "import numpy"`` timed in the same run; the quick
audit is timed as a whole command (its target is absolute: 8 s on this 2-core machine).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.benchmarks.timing import timed

pytestmark = pytest.mark.benchmark


def _run(*arguments: str) -> None:
    subprocess.run([sys.executable, *arguments], check=True, capture_output=True, timeout=600)


def test_start_up_against_importing_numpy(record):
    _, numpy = timed(lambda: _run("-c", "import numpy"), repetitions=5)
    for command in ("--help", "list"):
        _, times = timed(lambda command=command: _run("-m", "dpaudit.cli", command), repetitions=5)
        extra = min(times) - min(numpy)
        record(
            "20.6",
            f"`dpaudit {command}` start-up minus `python -c 'import numpy'`",
            extra,
            "s",
            "<= 0.3 s",
            extra <= 0.3,
            f"dpaudit {min(times):.3f} s, numpy alone {min(numpy):.3f} s",
            timings=times,
        )


def test_quick_default_audit_wall_time(record, tmp_path):
    out = tmp_path / "out"
    _, times = timed(lambda: _run("-m", "dpaudit.cli", "audit", "--quick", "--quiet", "--out", str(out)), repetitions=2)
    record(
        "20.4",
        "`dpaudit audit --quick` (every built-in claim), wall time",
        min(times),
        "s",
        "<= 8 s",
        min(times) <= 8,
        "default executor and workers; includes start-up and writing the report",
        timings=times,
    )
