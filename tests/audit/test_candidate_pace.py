"""A slow candidate is stopped before it samples for hours: its pace times the outputs the audit
draws is a lower bound on the audit's time, refused past the time limit (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import dpaudit
from dpaudit.audit.candidates.pace import planned_outputs
from dpaudit.audit.spec import load_spec
from dpaudit.cli import main
from dpaudit.errors import CandidateError

SPEC = Path(__file__).resolve().parents[2] / "specs" / "examples" / "gaussian_candidate.toml"


def _slow(value, *, sigma, sensitivity, rng):
    import time

    import numpy as np

    time.sleep(0.2)
    value = np.asarray(value, dtype=float)
    return value + rng.normal(0.0, sigma, value.shape)


def test_the_planned_outputs_count_samples_on_both_sides_and_not_the_randomness_seeds():
    claim = load_spec(SPEC)
    full = planned_outputs(claim, quick=False)
    quick = planned_outputs(claim, quick=True)
    stated = [o.params["samples"] for o in claim.obligations if o.checker != "randomness_contract"]
    assert full == 2 * sum(stated)
    assert 0 < quick < full


def test_a_candidate_too_slow_for_the_time_limit_stops_before_any_check():
    with pytest.raises(CandidateError, match=r"takes 0\.2\d* s per output .* past the time limit of 60 s"):
        dpaudit.check(_slow, SPEC, quick=True, time_limit=60)


def test_the_command_line_says_so_in_one_line_with_exit_2(tmp_path, monkeypatch, caplog):
    (tmp_path / "slowcand.py").write_text(
        "import time\nimport numpy as np\n"
        "def gaussian(value, *, sigma, sensitivity, rng):\n"
        "    time.sleep(0.2)\n"
        "    return np.asarray(value, dtype=float) + rng.normal(0.0, sigma, len(value))\n"
    )
    monkeypatch.chdir(tmp_path)
    code = main(["check", str(SPEC), "--candidate", "slowcand:gaussian", "--quick", "--out", str(tmp_path / "out")])
    assert code == 2
    assert "past the time limit of 60 min" in caplog.text and "vectorised entry point" in caplog.text
    assert "--quick or" not in caplog.text  # already quick
    assert not (tmp_path / "out" / "audit.json").exists()
