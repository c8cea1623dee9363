"""Soak: 200 candidate checks in a row, and 4 audits at once into different folders, leave no
processes, descriptors or temporary files behind, and the auditor's memory stays flat.

Run on demand: python -m pytest tests/benchmarks/test_soak.py -o addopts="--import-mode=importlib" -s
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import builtin_spec_dir, parse_spec
from tests.audit.soak_probe import footprint

pytestmark = pytest.mark.benchmark

FIXTURES = str(Path(__file__).parents[1] / "audit" / "candidates_fixture")
SPEC = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"
CANDIDATES = ("good_gaussian", "halved_gaussian", "raising_gaussian", "vectorised_good_gaussian")


def _claim():
    data = tomllib.loads(SPEC.read_text())
    data["obligations"] = [
        {
            "id": "empirical",
            "statement": "no event certifies epsilon > 4.38 on f(X) = 0, f(X') = 1",
            "checker": "empirical_epsilon_lower_bound",
            "params": {"samples": 2000, "search": "off", "pairs": [{"first": [0.0], "second": [1.0]}]},
        }
    ]
    return parse_spec(data, str(SPEC))


def _rss_kib() -> int:
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * 4


def test_two_hundred_candidate_checks_in_a_row(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    claim = _claim()
    limits = CandidateLimits(timeout_seconds=30.0)
    rss = []
    before = None
    # children of this process that other benchmarks started (a forkserver, a resource tracker) are not the checks'
    initial = footprint()
    for index in range(200):
        ref = parse_candidate(f"sample_candidates:{CANDIDATES[index % len(CANDIDATES)]}", path=FIXTURES)
        audit_candidate(claim, SPEC, ref, limits=limits, seed=index, quick=True)
        if index == 19:
            before = footprint()
        rss.append(_rss_kib())
    after = footprint()
    growth = (rss[-1] - rss[19]) / 1024
    print(f"\nsoak: RSS after 20 checks {rss[19] / 1024:.1f} MiB, after 200 {rss[-1] / 1024:.1f} MiB ({growth:+.1f})")
    assert before is not None
    assert after.children == before.children == initial.children, "the checks left processes behind"
    assert after.descriptors == before.descriptors
    assert after.temporary_files == ()
    assert growth < 20.0  # flat: a leak of one array per check would show


def test_four_audits_at_once_into_different_folders(tmp_path):
    before = footprint()
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dpaudit.cli",
                "audit",
                str(SPEC),
                "--quick",
                "--quiet",
                "--out",
                str(tmp_path / str(i)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i in range(4)
    ]
    codes = [run.wait(timeout=600) for run in runs]
    assert codes == [0, 0, 0, 0], [run.stderr.read().decode()[-500:] for run in runs if run.stderr]
    for run in runs:
        if run.stderr is not None:
            run.stderr.close()
    time.sleep(2.0)  # multiprocessing's forkserver and resource tracker leave when their parent has
    after = footprint()
    assert after.live_children == before.live_children
    audits = [json.loads((tmp_path / str(i) / "audit.json").read_text()) for i in range(4)]
    assert len({json.dumps(_untimed(audit["claims"]), sort_keys=True) for audit in audits}) == 1  # same seed


def _untimed(value):
    """The value without timing fields (the only ones two runs of one spec and seed may differ in)."""
    if isinstance(value, dict):
        return {key: _untimed(item) for key, item in value.items() if key not in ("elapsed_seconds", "started_at")}
    if isinstance(value, list):
        return [_untimed(item) for item in value]
    return value
