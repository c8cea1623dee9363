"""The example candidates in specs/examples/ pass their example specs (and a planted bug does not)."""

import json
from pathlib import Path

import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.cli import main

EXAMPLES = builtin_spec_dir() / "examples"


@pytest.mark.slow  # whole candidate audits end to end: the main CI job runs them, not the floors one
@pytest.mark.parametrize(
    ("spec", "candidate"),
    [
        ("gaussian_candidate.toml", "gaussian"),
        ("laplace_candidate.toml", "laplace"),
        ("laplace_candidate.toml", "laplace_vectorised"),
        ("laplace_epsilon_candidate.toml", "laplace_from_epsilon"),
        ("dirichlet_candidate.toml", "dirichlet"),
        ("gpope_step_candidate.toml", "gpope_step"),
        ("gpope_candidate.toml", "gpope"),
        ("private_synthesis_candidate.toml", "private_synthesis"),
        ("smooth_gaussian_candidate.toml", "smooth_gaussian"),
        ("accountant_candidate.toml", "accountant"),
        ("dp_lsl_candidate.toml", "dp_lsl"),
    ],
)
def test_example_candidate_passes(tmp_path, monkeypatch, spec, candidate):
    monkeypatch.chdir(EXAMPLES)
    out = tmp_path / "out"
    code = main(["check", spec, "--candidate", f"example_candidates:{candidate}", "--quick", "--out", str(out)])
    report = json.loads((out / "audit.json").read_text())
    assert code == 0, report["claims"][0]["relations"][0]["obligations"][0]["evidence"]["summary"]
    assert report["candidate"]["ref"] == f"example_candidates:{candidate}"


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_planted_bug_in_an_example_is_caught(tmp_path, monkeypatch):
    module = tmp_path / "buggy_examples.py"
    module.write_text(
        "import numpy as np\n\n"
        "def laplace(value, *, scale, sensitivity, rng):\n"
        "    return np.asarray(value, dtype=float) + rng.laplace(0.0, scale / 2, len(value))\n"
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert (
        main(
            [
                "check",
                str(EXAMPLES / "laplace_candidate.toml"),
                "--candidate",
                "buggy_examples:laplace",
                "--quick",
                "--out",
                str(out),
            ]
        )
        == 1
    )


@pytest.mark.parametrize(
    "spec",
    [
        "smooth_gaussian_candidate.toml",
        "gpope_step_candidate.toml",
        pytest.param("private_synthesis_candidate.toml", marks=pytest.mark.slow),
        "dp_lsw_candidate.toml",
    ],
)
def test_the_reference_passes_its_own_example_spec(tmp_path, spec):
    """The reference is sampled on the plain inputs the spec gives (through the mechanism's
    release adapter where its release takes the input apart): no error, nothing violated."""
    out = tmp_path / "out"
    code = main(["audit", str(EXAMPLES / spec), "--quick", "--executor", "serial", "--quiet", "--out", str(out)])
    verdicts = {
        item["evidence"]["verdict"]
        for claim in json.loads((out / "audit.json").read_text())["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
    }
    assert code == 0 and verdicts <= {"consistent", "verified", "inconclusive"}, verdicts


@pytest.mark.parametrize("name", ["gaussian_candidate", "laplace_candidate"])
def test_the_small_budget_copies_for_the_surface_tests_state_the_examples_claim(name):
    # tests/specs/*_small.toml run the tests of the command line, the API and the plugin: the example's claim and
    # obligations at smaller budgets, never another claim
    example = load_spec(EXAMPLES / f"{name}.toml")
    small = load_spec(Path(__file__).parents[1] / "specs" / f"{name}_small.toml")
    assert (small.id, small.mechanism, small.guarantee, small.relations) == (
        example.id,
        example.mechanism,
        example.guarantee,
        example.relations,
    )
    assert [(o.id, o.checker) for o in small.obligations] == [(o.id, o.checker) for o in example.obligations]
