"""Tests of the Lemma 1 checker: verified for the paper's constants, violated for planted mutants."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.audit.plugins import get_checker
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import replace_one


def _run(params: dict, constants: str = "main_text"):
    obligation = Obligation("grid", "Lemma 1 on a grid", "lemma1_exact_profile", params)
    claim = Claim(
        id="lemma1",
        title="Lemma 1",
        mechanism=MechanismSpec("smooth_gaussian", {"epsilon": 1.0, "delta": 1e-5, "dim": 1, "constants": constants}),
        guarantee=ApproxDP(1.0, 1e-5),
        relations=(replace_one(),),
        source=Source("Balle et al. 2016", "Lemma 1"),
        obligations=(obligation,),
    )
    entry = get_checker("lemma1_exact_profile")
    entry.validate(params, claim)
    context = CheckContext(claim, replace_one(), np.random.default_rng(0), np.random.SeedSequence(0))
    return entry.function(obligation, context)


GRID = {"epsilons": [1.0], "deltas": [1e-5], "dims": [1]}


@pytest.mark.parametrize("constants", ["main_text", "supplementary"])
def test_paper_constants_are_verified_with_three_significant_digits(constants):
    evidence = _run(GRID | {"constants": constants, "epsilons": [0.5, 1.0], "dims": [1, 10]})
    assert evidence.verdict is Verdict.VERIFIED
    assert len(evidence.measurements) == 4
    for measurement in evidence.measurements:
        text = measurement.to_json()["measured"]
        mantissa = text.split("e")[0].replace("-", "").replace(".", "").lstrip("0")
        assert len(mantissa) >= 3 and float(text) > 0
        assert float(text) < 1e-5


def test_main_text_worst_case_value_at_reference_point():
    evidence = _run(GRID)
    assert float(evidence.measurements[0].measured) == pytest.approx(7.4850404748013375e-19, rel=1e-15)


def test_alpha_one_tenth_is_violated_with_a_configuration():
    evidence = _run(GRID | {"alpha_factor": 0.1})
    assert evidence.verdict is Verdict.VIOLATED
    witness = evidence.counterexample
    assert witness["epsilon"] == 1.0 and witness["delta"] == 1e-5 and witness["dim"] == 1
    assert witness["sigma_X_prime"] < witness["sigma_X"]
    assert witness["mean_distance"] == pytest.approx(
        min(witness["sigma_X"], witness["sigma_X_prime"]) / witness["alpha"]
    )
    assert float(witness["exact_delta"]) == pytest.approx(2.1638090457e-3, rel=1e-9)


def test_main_text_lemma_fails_at_large_epsilon():
    # Finding: the main-text statement has no bound on epsilon; at epsilon = 100 it fails.
    evidence = _run({"epsilons": [100.0], "deltas": [1e-2], "dims": [1]})
    assert evidence.verdict is Verdict.VIOLATED
    assert float(evidence.counterexample["exact_delta"]) == pytest.approx(0.13053972413146083, rel=1e-12)


def test_supplementary_points_outside_preconditions_are_skipped():
    evidence = _run({"constants": "supplementary", "epsilons": [1.0, 10.0], "deltas": [1e-5], "dims": [1]})
    assert evidence.verdict is Verdict.VERIFIED
    assert evidence.budget["skipped_points"] == 1
    with pytest.raises(InvalidArgument):
        _run({"constants": "supplementary", "epsilons": [10.0], "deltas": [1e-5], "dims": [1]})


def test_constants_default_to_the_claim_mechanism():
    evidence = _run(GRID, constants="supplementary")
    assert evidence.details["constants"] == "supplementary"


@pytest.mark.parametrize(
    "params",
    [
        {},
        GRID | {"unknown": 1},
        GRID | {"constants": "loose"},
        GRID | {"epsilons": []},
        GRID | {"epsilons": [0.0]},
        GRID | {"epsilons": [float("nan")]},
        GRID | {"deltas": [1.0]},
        GRID | {"deltas": [-0.0]},
        GRID | {"dims": [0]},
        GRID | {"dims": [1.5]},
        GRID | {"digits": 40},
        GRID | {"alpha_factor": 0.0},
        GRID | {"alpha_factor": float("inf")},
    ],
)
def test_validator_rejects_bad_params(params):
    with pytest.raises((InvalidArgument, TypeError)):
        _run(params)


def test_lemma1_profile_uses_the_constants_of_the_mechanism_under_audit():
    from pathlib import Path

    from dpaudit.audit.execution import run_claim
    from dpaudit.audit.mutants.library import SmoothGaussianBetaWithoutDimension
    from dpaudit.audit.spec import load_spec

    claim = load_spec(Path(__file__).resolve().parents[2] / "specs" / "mutants" / "smooth_gaussian_tight.toml")
    reference = run_claim(claim, seed=0).relations[0].obligations[0].evidence
    mutant = run_claim(claim, seed=0, mechanism_factory=SmoothGaussianBetaWithoutDimension).relations[0]
    assert reference.verdict is Verdict.VERIFIED
    assert mutant.obligations[0].evidence.verdict is Verdict.VIOLATED
    assert mutant.obligations[0].evidence.counterexample["beta"] > 0.0189
