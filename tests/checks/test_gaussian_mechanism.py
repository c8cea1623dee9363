"""The first end-to-end audit: the Gaussian mechanism checked exactly and by Monte Carlo."""

import mpmath
import pytest

from dpaudit.audit.execution import run_claim
from dpaudit.audit.spec import load_spec
from dpaudit.kernel.verdicts import Verdict
from tests.conftest import MONTE_CARLO_OBLIGATION


def _evidence(path, obligation_id="exact-profile"):
    result = run_claim(load_spec(path), seed=3)
    (relation,) = result.relations
    return next(item.evidence for item in relation.obligations if item.obligation.id == obligation_id)


def test_true_claim_is_verified_with_margin(write_gaussian_spec):
    evidence = _evidence(write_gaussian_spec(epsilon="4.38"))
    assert evidence.verdict is Verdict.VERIFIED
    delta_measurement, epsilon_measurement = evidence.measurements
    assert delta_measurement.margin > 0
    assert float(epsilon_measurement.measured) == pytest.approx(4.3771780957, abs=1e-10)


def test_false_claim_is_violated_with_counterexample(write_gaussian_spec):
    evidence = _evidence(write_gaussian_spec(epsilon="4.30"))
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.measurements[0].margin < 0
    assert evidence.counterexample["neighbours"] == {"f(X)": [0.0], "f(X')": [1.0]}


def test_exact_epsilon_reference_value(write_gaussian_spec):
    evidence = _evidence(write_gaussian_spec())
    low, high = evidence.measurements[1].interval
    assert low <= mpmath.mpf("4.3771780957") + 1e-10 and high >= mpmath.mpf("4.3771780957") - 1e-10


def test_monte_carlo_consistent_on_true_claim(write_gaussian_spec):
    evidence = _evidence(write_gaussian_spec(extra=MONTE_CARLO_OBLIGATION), "monte-carlo")
    assert evidence.verdict is Verdict.CONSISTENT
    assert evidence.budget["samples_per_side"] == 20000
    assert 0 < evidence.measurements[0].measured < 4.38


def test_monte_carlo_catches_a_planted_wrong_sigma(write_gaussian_spec):
    """Mutant: the implementation uses sigma = 0.25 while the claim is the sigma = 1 claim."""
    evidence = _evidence(write_gaussian_spec(sigma="0.25", extra=MONTE_CARLO_OBLIGATION), "monte-carlo")
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.measurements[0].measured > 4.38
    assert evidence.counterexample is not None
