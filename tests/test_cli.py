"""The command line: exit codes, outputs, error messages and reproducibility."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpaudit.cli import main
from dpaudit.report.json_report import strip_timing


def test_verified_claim_exits_zero(write_gaussian_spec, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["audit", str(write_gaussian_spec()), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "verified" in printed and "claim" in printed
    assert (out / "audit.json").is_file() and (out / "audit.md").is_file()


def test_violated_claim_exits_one(write_gaussian_spec, tmp_path):
    spec = write_gaussian_spec(epsilon="4.30")
    assert main(["audit", str(spec), "--out", str(tmp_path / "o"), "--fail-on", "violated"]) == 1
    document = json.loads((tmp_path / "o" / "audit.json").read_text())
    assert document["claims"][0]["verdict"] == "violated"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"delta": "1.5"}, "claim.guarantee.delta"),
        ({"delta": "nan"}, "claim.guarantee.delta"),
        ({"epsilon": '"x"'}, "claim.guarantee.epsilon"),
    ],
)
def test_malformed_spec_exits_two_without_traceback(write_gaussian_spec, tmp_path, kwargs, fragment):
    spec = write_gaussian_spec(**kwargs)
    completed = subprocess.run(
        [sys.executable, "-m", "dpaudit.cli", "audit", str(spec), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert str(spec) in completed.stderr and fragment in completed.stderr


def test_missing_key_and_unknown_relation_exit_two(write_gaussian_spec, tmp_path):
    spec = write_gaussian_spec()
    spec.write_text(spec.read_text().replace('relations = ["replace_one"]', 'relations = ["neighbours"]'))
    assert main(["audit", str(spec), "--out", str(tmp_path / "o")]) == 2
    spec.write_text(spec.read_text().replace("epsilon = 4.38", ""))
    assert main(["audit", str(spec), "--out", str(tmp_path / "o")]) == 2


def test_usage_error_exits_two():
    with pytest.raises(SystemExit) as info:
        main(["audit", "--seed", "-4"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["check", "spec.toml", "--candidate", "m:f", "--samples", "many"])
    assert info.value.code == 2


def test_samples_auto_sizes_the_monte_carlo_check(write_gaussian_spec, tmp_path):
    spec = write_gaussian_spec(
        extra="""
[[obligations]]
id = "events"
statement = "no event refutes the claim"
checker = "empirical_epsilon_lower_bound"
params = { samples = 2000, pairs = [{ first = [0.0], second = [1.0] }] }
quick = { samples = 1000 }
"""
    )
    out = tmp_path / "out"
    assert main(["audit", str(spec), "--quick", "--samples", "auto", "--out", str(out), "--quiet"]) == 0
    document = json.loads((out / "audit.json").read_text())
    budgets = [
        item["evidence"]["budget"]
        for claim in document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        if item["obligation"]["checker"] == "empirical_epsilon_lower_bound"
    ]
    # auto's 100,000 draws per side, not the spec's 1000: a pilot of 10,000 and a selection of 22,500; the
    # certification's share of 67,500 grows when it is sized after the selection (auto's ceiling is 2^24)
    assert [budget["samples_per_side"] - budget["certification_samples_per_side"] for budget in budgets] == [32_500]
    assert all(67_500 <= budget["certification_samples_per_side"] <= 2**24 for budget in budgets)


def test_same_seed_same_json_apart_from_timing(write_gaussian_spec, tmp_path):
    from tests.conftest import MONTE_CARLO_OBLIGATION

    spec = write_gaussian_spec(extra=MONTE_CARLO_OBLIGATION)
    out = tmp_path / "out"
    raws = []
    for _ in range(2):
        assert main(["audit", str(spec), "--seed", "9", "--out", str(out)]) == 0
        raws.append((out / "audit.json").read_text())
    texts = [json.loads(raw) for raw in raws]
    assert json.dumps(strip_timing(texts[0]), sort_keys=True) == json.dumps(strip_timing(texts[1]), sort_keys=True)
    first_raw, second_raw = (raw.splitlines() for raw in raws)
    assert len(first_raw) == len(second_raw)
    differing = [a for a, b in zip(first_raw, second_raw, strict=False) if a != b]
    assert all("elapsed_seconds" in line or "started_at" in line for line in differing)


def test_different_seed_changes_monte_carlo(write_gaussian_spec, tmp_path):
    from tests.conftest import MONTE_CARLO_OBLIGATION

    spec = write_gaussian_spec(extra=MONTE_CARLO_OBLIGATION)
    bounds = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        main(["audit", str(spec), "--seed", seed, "--out", str(out)])
        document = json.loads((out / "audit.json").read_text())
        obligation = document["claims"][0]["relations"][0]["obligations"][1]
        bounds.append(obligation["evidence"]["measurements"][0]["measured"])
    assert bounds[0] != bounds[1]


def test_list_and_report(write_gaussian_spec, tmp_path, capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "gaussian_exact_profile" in listed and "gaussian" in listed
    out = tmp_path / "o"
    main(["audit", str(write_gaussian_spec()), "--out", str(out)])
    capsys.readouterr()
    assert main(["report", str(out / "audit.json"), "--format", "md"]) == 0
    assert "# dpaudit audit report" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "missing.json")]) == 2


def _with_known_finding(path):
    text = path.read_text().replace(
        "[claim.source]",
        '[[claim.known_findings]]\nrelation = "replace_one"\nobligations = ["exact-profile"]\n'
        'finding = "the claimed epsilon is below the exact one"\n'
        'pin = { quantity = "delta at epsilon", measured = [0.0, 1.0] }\n\n[claim.source]',
    )
    path.write_text(text)
    return path


def test_known_finding_is_reported_but_expected(write_gaussian_spec, tmp_path):
    spec = _with_known_finding(write_gaussian_spec(epsilon="4.30"))
    assert main(["audit", str(spec), "--out", str(tmp_path / "o")]) == 0
    document = json.loads((tmp_path / "o" / "audit.json").read_text())
    relation = document["claims"][0]["relations"][0]
    assert relation["verdict"] == "violated" and relation["only_known_findings"]
    assert relation["obligations"][0]["known_finding"].startswith("the claimed epsilon")


def test_unexpected_violation_beside_a_known_finding_fails(write_gaussian_spec, tmp_path):
    from tests.conftest import MONTE_CARLO_OBLIGATION

    extra = MONTE_CARLO_OBLIGATION.replace("samples = 20000", "samples = 200000")
    spec = _with_known_finding(write_gaussian_spec(epsilon="1.0", extra=extra))
    assert main(["audit", str(spec), "--out", str(tmp_path / "o"), "--executor", "serial"]) == 1


def test_vanished_known_finding_fails_and_says_why(write_gaussian_spec, tmp_path, capsys):
    spec = _with_known_finding(write_gaussian_spec(epsilon="4.38"))
    assert main(["audit", str(spec), "--out", str(tmp_path / "o")]) == 1
    assert (
        "known finding not reproduced: gaussian under replace_one, exact-profile: verified, where the finding says "
        "violated" in capsys.readouterr().out
    )


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_check_command_audits_a_candidate(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    spec = Path(__file__).parent / "specs" / "gaussian_candidate_small.toml"  # the exit codes, not the power
    monkeypatch.chdir(Path(__file__).parent / "audit" / "candidates_fixture")
    out = tmp_path / "good"
    assert (
        main(
            [
                "check",
                str(spec),
                "--candidate",
                "sample_candidates:vectorised_good_gaussian",
                "--quick",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads((out / "audit.json").read_text())["claims"][0]["verdict"] == "consistent"
    out = tmp_path / "bad"
    assert (
        main(
            [
                "check",
                str(spec),
                "--candidate",
                "sample_candidates:vectorised_halved_gaussian",
                "--quick",
                "--out",
                str(out),
            ]
        )
        == 1
    )
    out = tmp_path / "hang"
    code = main(
        [
            "check",
            str(spec),
            "--candidate",
            "sample_candidates:hanging_gaussian",
            "--timeout",
            "0.3",  # each of the seven obligations waits for it once
            "--quick",
            "--out",
            str(out),
        ]
    )
    assert code == 1
    assert json.loads((out / "audit.json").read_text())["claims"][0]["verdict"] == "error"
    assert main(["check", str(spec), "--candidate", "not-a-candidate", "--out", str(out)]) == 2


@pytest.mark.parametrize(
    ("candidate", "fragment"),
    [
        ("sample_candidatez:good_gaussian", "no module named 'sample_candidatez'"),
        ("sample_candidates:good_gausian", "has no attribute 'good_gausian'; did you mean 'good_gaussian'?"),
        ("sample_candidates:NOT_CALLABLE", "not a callable"),
        ("sample_candidates:wrong_signature", "does not accept the call"),
        ("sample_candidates:wrong_sample_signature", "the vectorised entry point's signature (x) does not accept"),
    ],
)
def test_a_candidate_that_cannot_be_audited_is_a_usage_error(tmp_path, monkeypatch, caplog, candidate, fragment):
    from pathlib import Path

    from dpaudit.audit.spec import builtin_spec_dir

    spec = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"
    monkeypatch.chdir(Path(__file__).parent / "audit" / "candidates_fixture")
    assert main(["check", str(spec), "--candidate", candidate, "--quick", "--out", str(tmp_path / "o")]) == 2
    assert fragment in caplog.text
    assert "Traceback" not in caplog.text or "signature" in fragment  # a misspelt name is one line
    assert not (tmp_path / "o" / "audit.json").exists()


def test_calibrate_prints_certified_alpha(capsys):
    assert (
        main(
            ["calibrate", "smooth-gaussian", "--epsilon", "1", "--delta", "1e-5", "--dim", "1", "--pareto-points", "0"]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert 4.0 < result["alpha"] < result["alpha_paper"]
    assert main(["calibrate", "smooth-gaussian", "--epsilon", "-1", "--delta", "1e-5", "--dim", "1"]) == 2


def test_audit_with_serial_and_bad_executor(write_gaussian_spec, tmp_path):
    spec = write_gaussian_spec()
    assert main(["audit", str(spec), "--executor", "serial", "--out", str(tmp_path / "o")]) == 0
    assert main(["audit", str(spec), "--executor", "warp:9", "--out", str(tmp_path / "o")]) == 2


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_conformance_gates_only_when_asked(tmp_path, monkeypatch, caplog):
    from pathlib import Path

    spec = Path(__file__).parent / "specs" / "gaussian_candidate_small.toml"  # the exit codes, not the power
    # more noise than the reference: private, but its output law differs
    (tmp_path / "noisier.py").write_text(
        "import numpy as np\n\ndef gaussian(value, *, sigma, sensitivity, rng):\n"
        "    return np.asarray(value, dtype=float) + 3 * sigma * rng.standard_normal(len(value))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with_white_box = tmp_path / "spec.toml"  # and a white-box obligation, which reads the reference
    with_white_box.write_text(
        spec.read_text() + '\n[[obligations]]\nid = "exact"\nstatement = "the exact profile"\n'
        'checker = "gaussian_exact_profile"\nparams = { digits = 60 }\n'
    )
    base = ["check", str(with_white_box), "--candidate", "noisier:gaussian", "--quick", "--out", str(tmp_path / "o")]
    # the exit code is the command's reading of one finished audit: the later runs read the first one's report
    from dpaudit.audit.candidates import audit as candidate_audit

    audited, audit = [], candidate_audit.audit_candidate

    def audit_once(*args, **kwargs):
        if not audited:
            audited.append(audit(*args, **kwargs))
        return audited[0]

    monkeypatch.setattr(candidate_audit, "audit_candidate", audit_once)
    assert main(base) == 0
    assert "conformance, not privacy" in caplog.text
    report = json.loads((tmp_path / "o" / "audit.json").read_text())
    assert report["claims"][0]["verdict"] == "consistent"  # the privacy checks' verdict: conformance is set aside
    assert report["candidate"]["white_box_left_out"] == ["exact"]
    assert "white-box obligation(s) exact read the reference, not your candidate" in caplog.text
    assert main([*base, "--fail-on", "inconclusive"]) == 0
    assert main([*base, "--fail-on-conformance"]) == 1


def test_a_progress_line_per_finished_claim_unless_quiet(write_gaussian_spec, tmp_path, capsys):
    first = write_gaussian_spec(name="a.toml", claim_id="first")
    second = write_gaussian_spec(name="b.toml", claim_id="second")
    assert main(["audit", str(first), str(second), "--out", str(tmp_path / "o")]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dpaudit: [")]
    assert [line.split("]")[0] for line in lines] == ["dpaudit: [1/2", "dpaudit: [2/2"]
    # claims run in parallel on a process pool, so they finish (and are reported) in either order
    assert sorted(line.split("] ", 1)[1].split(" (")[0] for line in lines) == [
        "first: replace_one verified",
        "second: replace_one verified",
    ]
    assert main(["audit", str(first), "--out", str(tmp_path / "q"), "--quiet"]) == 0
    assert "dpaudit: [" not in capsys.readouterr().err


def test_the_console_table_gives_an_errors_reason_in_one_line_and_whole_numbers_when_piped(
    tmp_path, monkeypatch, capsys
):
    from pathlib import Path

    from dpaudit.audit.spec import builtin_spec_dir

    spec = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"
    monkeypatch.chdir(Path(__file__).parent / "audit" / "candidates_fixture")
    main(["check", str(spec), "--candidate", "sample_candidates:raising_gaussian", "--quick", "--out", str(tmp_path)])
    table = capsys.readouterr().out
    (row,) = [line for line in table.splitlines() if line.startswith("gaussian-candidate")]
    assert "error" in row and "planted bug in the candidate gaussian" in row and "…" not in row
    # what raised and on which input, before the exception's own line
    assert "candidate sample_candidates:raising_gaussian: candidate raised on input [" in row


def test_dash_capital_v_prints_the_version(capsys):
    from dpaudit import __version__

    with pytest.raises(SystemExit) as stop:
        main(["-V"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"dpaudit {__version__}"


@pytest.mark.parametrize("command", ["check", "corpus"])
def test_a_bad_timeout_names_the_flag(command, capsys):
    arguments = ["specs/examples/gaussian_candidate.toml", "--candidate", "m:f"] if command == "check" else ["m.toml"]
    with pytest.raises(SystemExit) as exit_:
        main([command, *arguments, "--timeout", "-1"])
    assert exit_.value.code == 2
    assert "--timeout" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("memory", "said"), [("1", "1: expected MiB in [64, 4194304]"), ("1.5", "'1.5': expected a whole number of MiB")]
)
def test_a_memory_limit_out_of_its_bounds_is_a_usage_error_naming_the_option(memory, said, capsys):
    with pytest.raises(SystemExit) as info:
        main(["check", "spec.toml", "--candidate", "mine:release", "--memory", memory])
    assert info.value.code == 2
    assert f"argument --memory: {said}" in capsys.readouterr().err


def _interrupted_check(out: Path, stop: int) -> tuple[int, str]:
    """Run a check whose candidate hangs in the call that measures its pace and send it ``stop`` there."""
    spec = Path(__file__).parent / "specs" / "gaussian_candidate_small.toml"
    fixtures = Path(__file__).parent / "audit" / "candidates_fixture"
    command = [
        sys.executable,
        "-m",
        "dpaudit.cli",
        "check",
        str(spec),
        "--candidate",
        "sample_candidates:hanging_gaussian",
    ]
    run = subprocess.Popen(
        [*command, "--timeout", "600", "--quick", "--quiet", "--out", str(out)],
        cwd=fixtures,
        stderr=subprocess.PIPE,
        env={**os.environ, "DPAUDIT_TEST_MARKER": str(out)},
        # a test worker may ignore SIGINT (pytest-xdist's do), and a child keeps an ignored signal ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _worker_of(out):  # the candidate's worker is up: the pace is measured
        time.sleep(0.1)
    time.sleep(0.5)
    run.send_signal(stop)
    _, err = run.communicate(timeout=60)
    return run.returncode, err.decode()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_check_interrupted_before_any_obligation_ran_writes_a_report_saying_so(tmp_path, stop):
    """The candidate hangs in the call that measures its pace: interrupted there, the report says what is missing
    (as an interrupted audit's does), and the exit code is 128 + the signal."""
    out = tmp_path / "o"
    returncode, err = _interrupted_check(out, stop)
    assert returncode == 128 + stop, err
    report = json.loads((out / "audit.json").read_text())
    assert report["claims"] == [] and report["interrupted"].startswith(f"signal {int(stop)}: ")
    assert report["interrupted"].endswith("1 of 1 claim(s) not finished, not in this report: gaussian-candidate")
    for name in ("audit.md", "audit.html"):  # every rendering says so, not only a key of the JSON
        assert (
            "Interrupted</strong>: signal" in (out / name).read_text()
            or "**Interrupted**: signal" in (out / name).read_text()
        )
    assert 'errors="1"' in (out / "junit.xml").read_text() and "not in this report" in (out / "junit.xml").read_text()


def _worker_of(marker):
    """Whether a candidate worker carrying ``marker`` in its environment runs."""
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and b"candidates.worker" in (entry / "cmdline").read_bytes()
                and str(marker).encode() in (entry / "environ").read_bytes()
            ):
                return True
        except OSError:
            continue
    return False


def test_an_empty_out_is_a_usage_error_not_the_working_directory(write_gaussian_spec, tmp_path, monkeypatch, caplog):
    spec = write_gaussian_spec()
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.iterdir())
    assert main(["audit", str(spec), "--out", ""]) == 2
    assert "--out '': expected a folder's path" in caplog.text
    assert sorted(tmp_path.iterdir()) == before


def test_an_interrupted_run_keeps_the_finished_report_already_in_its_folder(tmp_path):
    """Re-running into a used --out and stopping it must not replace a report that finished with a part of a
    run: the part goes to OUT/interrupted, and the finished report stays as it was."""
    out = tmp_path / "o"
    out.mkdir()
    finished = (Path(__file__).parents[1] / "reports" / "audit.json").read_bytes()
    (out / "audit.json").write_bytes(finished)
    returncode, err = _interrupted_check(out, signal.SIGTERM)
    assert returncode == 128 + signal.SIGTERM, err
    assert (out / "audit.json").read_bytes() == finished
    assert json.loads((out / "interrupted" / "audit.json").read_text())["interrupted"].startswith("signal 15: ")
    assert "is kept; what this interrupted run finished is in" in err
