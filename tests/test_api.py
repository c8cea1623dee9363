"""dpaudit as a library: dpaudit.check on a function defined in a script (sent by value) or named
"module:callable", dpaudit.audit_specs on a spec; docs/api.md's example runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpaudit

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "examples" / "laplace_epsilon_candidate.toml"
# The Laplace example at a tenth of its budgets: the tests of how a function reaches its worker and how a
# report fails need the verdicts, not the power.
SMALL_SPEC = ROOT / "tests" / "specs" / "laplace_candidate_small.toml"


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_the_docs_example_runs_as_written_and_finds_the_slip():
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    example = re.search(r"## From a script or a notebook\s+```python\n(.*?)```", text, re.S).group(1)
    result = subprocess.run(
        [sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "violated"
    assert "laplace-epsilon-candidate under replace_one: violated" in result.stdout
    assert "exceeds the claimed 0.5" in result.stdout
    assert "replay: dpaudit.check(laplace" in result.stdout


def _correct(value, *, scale, sensitivity, rng):
    import numpy as np

    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, scale, value.shape)


def test_a_function_of_a_test_module_is_audited_by_value(tmp_path):  # the floors job's test of cloudpickle
    report = dpaudit.check(_correct, SMALL_SPEC, quick=True, seed=3, out=tmp_path / "out")
    assert report.claims[0].verdict.value == "consistent"
    assert not report.failed()  # the default policy: "violated" (docs/api.md)
    report.raise_for_failure()  # nothing fails: no exception
    assert "(sent by value)" in report.candidate["ref"]
    assert (tmp_path / "out" / "audit.json").is_file()


def test_the_replay_of_a_closure_or_an_instance_does_not_pose_as_python_that_names_it(tmp_path):
    from dpaudit.audit.candidates.refs import candidate_by_value

    def release(value, *, scale, sensitivity, rng):
        return value

    class Mechanism:
        def __call__(self, value, *, scale, sensitivity, rng):
            return value

    assert candidate_by_value(release, str(tmp_path)).attribute.endswith("<locals>.release")
    instance = candidate_by_value(Mechanism(), str(tmp_path)).attribute
    assert instance.endswith("<locals>.Mechanism(...)") and not instance.isidentifier()


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_named_candidate_and_a_failing_report(tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text(
        "import numpy as np\n"
        "def slip(value, *, scale, sensitivity, rng):\n"
        "    return np.asarray(value, dtype=float) + rng.laplace(0.0, scale / 3, len(value))\n"
    )
    monkeypatch.chdir(tmp_path)
    report = dpaudit.check("mine:slip", SMALL_SPEC, quick=True, seed=3)
    with pytest.raises(dpaudit.ClaimFailed, match="violated") as failure:
        report.raise_for_failure()
    assert isinstance(failure.value, AssertionError)
    assert "--candidate mine:slip" in str(failure.value)


def test_bad_candidates_are_refused():
    with pytest.raises(dpaudit.InvalidArgument, match="module:callable"):
        dpaudit.check("not a reference", SPEC)
    with pytest.raises(dpaudit.InvalidArgument, match="expected a callable"):
        dpaudit.check(3, SPEC)  # type: ignore[arg-type]


def test_audit_runs_a_spec_on_the_reference():
    report = dpaudit.audit_specs([ROOT / "specs" / "laplace_mechanism.toml"], quick=True)
    assert report.claims and not report.failed("violated")
