"""dpaudit explain CLAIM and dpaudit init KIND."""

import subprocess
import sys

import pytest

from dpaudit.cli import main


def test_explain_prints_every_obligation_and_how_it_is_checked(capsys):
    assert main(["explain", "gaussian-mechanism"]) == 0
    text = capsys.readouterr().out
    assert "Balle & Wang 2018" in text
    for obligation in ("exact-profile", "monte-carlo-threshold", "privacy-loss-histogram"):
        assert f"- {obligation}" in text
    assert "white box (needs the reference)" in text and "black box (also runs on candidates)" in text


def test_explain_unknown_claim_is_a_usage_error(caplog):
    assert main(["explain", "no-such-claim"]) == 2
    assert "known:" in caplog.text


def test_init_writes_a_starter_that_dpaudit_check_runs(tmp_path):
    assert main(["init", "laplace", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "laplace_candidate.toml").exists()
    starter = (tmp_path / "laplace_candidate.py").read_text()
    assert "def laplace(value, *, scale, sensitivity, rng):" in starter
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpaudit.cli",
            "check",
            "laplace_candidate.toml",
            "--candidate",
            "laplace_candidate:laplace",
            "--quick",
            "--out",
            "out",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1  # the starter raises NotImplementedError: every obligation is `error`
    assert "write your laplace implementation here" in (tmp_path / "out" / "audit.json").read_text()
    with pytest.raises(SystemExit):
        main(["init"])
    assert main(["init", "laplace", "--out", str(tmp_path)]) == 2  # never overwrites
