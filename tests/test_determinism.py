"""Same seed, same bytes: audit.json does not depend on PYTHONHASHSEED, the executor or its worker count
(timing fields aside)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.report.json_report import strip_timing

SPECS = [str(builtin_spec_dir() / name) for name in ("gaussian_mechanism.toml", "laplace_mechanism.toml")]
RUNS = [("0", "serial"), ("1", "serial"), ("12345", "process:2"), ("0", "thread:2")]


def _audit(tmp_path, hash_seed: str, executor: str) -> dict:
    out = tmp_path / f"{hash_seed}-{executor.replace(':', '-')}"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpaudit.cli",
            "audit",
            *SPECS,
            "--quick",
            "--seed",
            "7",
            "--executor",
            executor,
            "--out",
            str(out),
        ],
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    document = json.loads((out / "audit.json").read_text())
    document.pop("command")  # names the output folder
    document.pop("digest")  # covers the command
    return strip_timing(document)


@pytest.mark.slow
def test_audit_json_is_byte_identical_across_hash_seeds_and_executors(tmp_path):
    documents = [_audit(tmp_path, hash_seed, executor) for hash_seed, executor in RUNS]
    first = json.dumps(documents[0], sort_keys=True)
    for (hash_seed, executor), document in zip(RUNS[1:], documents[1:], strict=True):
        assert json.dumps(document, sort_keys=True) == first, f"PYTHONHASHSEED={hash_seed}, --executor {executor}"


def test_a_builtin_specs_path_in_a_report_is_the_same_from_any_working_directory(tmp_path, monkeypatch):
    """The report's spec_path, and with it the digest, no longer depend on where dpaudit runs from."""
    from dpaudit.audit.runner import spec_display_path

    spec = builtin_spec_dir() / "gaussian_mechanism.toml"
    shown = {spec_display_path(spec)}
    monkeypatch.chdir(tmp_path)
    shown.add(spec_display_path(spec))
    assert shown == {"specs/gaussian_mechanism.toml"}
    assert spec_display_path(tmp_path / "mine.toml") == "mine.toml"  # the user's own: relative to where it runs
