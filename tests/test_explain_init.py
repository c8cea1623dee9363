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


def test_explain_says_what_dpaudit_check_adds_leaves_out_or_refuses(tmp_path, capsys):
    assert main(["explain", "gaussian-mechanism"]) == 0
    text = capsys.readouterr().out
    assert "dpaudit check on a candidate also runs 3 check(s) of its own:" in text
    assert "- implied-black-box-epsilon: empirical_epsilon_lower_bound, 2000000 draws per side" in text
    assert "leaves out the white-box obligation(s) exact-profile, privacy-loss-histogram" in text
    from dpaudit.audit.spec import builtin_spec_dir

    spec = tmp_path / "spec.toml"  # a kind proposing no pairs, and none given: refused
    text = (builtin_spec_dir() / "examples" / "smooth_gaussian_candidate.toml").read_text()
    spec.write_text(
        text.split("[[obligations]]")[0] + '[[obligations]]\nid = "a"\nstatement = "s"\n'
        'checker = "noise_multiplier_fit"\n'
    )
    assert main(["explain", str(spec)]) == 0
    assert "dpaudit check: refused: " in capsys.readouterr().out


def test_explain_unknown_claim_is_a_usage_error(caplog):
    assert main(["explain", "no-such-claim"]) == 2
    assert "known:" in caplog.text


def test_init_writes_a_starter_that_dpaudit_check_runs(tmp_path):
    assert main(["init", "laplace", "--out", str(tmp_path)]) == 0
    spec = (tmp_path / "laplace_candidate.toml").read_text()
    assert "#   dpaudit check laplace_candidate.toml --candidate laplace_candidate:laplace" in spec
    assert "example_candidates" not in spec  # the example's own instructions are not copied
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


def test_explain_an_audit_json_says_what_each_verdict_rests_on(tmp_path, capsys, write_gaussian_spec):
    leaky = write_gaussian_spec(epsilon="1.0", claim_id="too-strong")
    fine = write_gaussian_spec(claim_id="fine", name="fine.toml")
    assert main(["audit", str(leaky), str(fine), "--quick", "--quiet", "--out", str(tmp_path / "out")]) == 1
    capsys.readouterr()
    assert main(["explain", str(tmp_path / "out" / "audit.json"), "too-strong"]) == 0
    text = capsys.readouterr().out
    assert "too-strong:" in text and "fine:" not in text
    assert "exact-profile: violated" in text and "statement:" in text and "checked by gaussian_exact_profile" in text
    assert main(["explain", str(tmp_path / "out")]) == 0  # the report folder works too
    text = capsys.readouterr().out
    assert "fine:" in text and "rests on: a certificate of" in text


def test_explain_an_audit_json_with_an_unknown_claim_lists_those_it_has(tmp_path, caplog, write_gaussian_spec):
    spec = write_gaussian_spec(claim_id="only")
    assert main(["audit", str(spec), "--quick", "--quiet", "--out", str(tmp_path / "out")]) == 0
    assert main(["explain", str(tmp_path / "out" / "audit.json"), "other"]) == 2
    assert "the report has no such claim; it has only" in caplog.text


def test_every_kind_a_candidate_can_implement_has_a_starter(tmp_path):
    """Every kind of `dpaudit list` that a candidate implements gets a starter module and spec (the black_box
    and rl_algorithm kinds start from one of their examples, with the [candidate] params as keywords)."""
    from dpaudit.audit.candidates.kinds import candidate_kinds

    kinds = [kind.name for kind in candidate_kinds() if kind.candidate is not None]
    assert {"black_box", "rl_algorithm", "laplace"} <= set(kinds)
    for kind in kinds:
        assert main(["init", kind, "--out", str(tmp_path / kind)]) == 0, kind
    starter = (tmp_path / "black_box" / "black_box_candidate.py").read_text()
    assert "def black_box(dataset, *, epsilon, rng):" in starter
