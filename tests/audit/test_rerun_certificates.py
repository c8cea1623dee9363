"""Re-run certificates hold enclosures of the true margin; a float margin without an error bound is
``consistent`` (numerical), never a bit comparison."""

from fractions import Fraction

import mpmath
import pytest

from dpaudit.audit.rerun import RERUN_ROUTE, margin_enclosures, with_rerun_certificate
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.report.recheck import _check_fact


def _verified(*measurements: Measurement) -> Evidence:
    return Evidence(Verdict.VERIFIED, "holds", "a domain", "a method", measurements)


def _fact(evidence: Evidence) -> dict:
    (fact,) = with_rerun_certificate(evidence).certificate.facts
    return fact.to_json()


def test_a_stated_enclosure_of_the_margin_is_the_fact():
    evidence = _verified(
        Measurement("tightest", 1, 0.5, 0.5),  # informational: a float without a bound
        Measurement("rigorous", 1, 0.5, 0.5, margin_interval=(Fraction(49, 100), mpmath.mpf("0.51"))),
    )
    certified = with_rerun_certificate(evidence)
    assert certified.verdict is Verdict.VERIFIED
    (fact,) = certified.certificate.facts
    assert fact.route == RERUN_ROUTE and fact.quantity == "margin of rigorous"
    low, high = (float(end) for end in fact.enclosure)
    assert low <= 0.49 and high >= 0.51 and high - low < 0.03


def test_an_exact_rational_margin_is_its_own_enclosure():
    fact = _fact(_verified(Measurement("exact", Fraction(1), Fraction(2, 3), Fraction(1, 3))))
    assert float(fact["enclosure"][0]) <= 1 / 3 <= float(fact["enclosure"][1])


@pytest.mark.parametrize(
    "measurement",
    [
        Measurement("float", 1.0, 0.75, 0.25),  # no error bound
        Measurement("mpmath", 1, mpmath.mpf("0.75"), mpmath.mpf("0.25")),
        Measurement("crossing", 1.0, 0.75, 0.25, margin_interval=(-0.01, 0.3)),  # does not exclude 0
    ],
)
def test_a_margin_without_an_error_bound_makes_verified_consistent_numerical(measurement):
    evidence = with_rerun_certificate(_verified(measurement))
    assert evidence.verdict is Verdict.CONSISTENT and evidence.certificate is None
    assert "numerical" in evidence.summary and evidence.details["numerical"]


def test_no_margin_at_all_is_certified_by_the_verdict_alone():
    evidence = with_rerun_certificate(_verified(Measurement("steps", None, 2, None)))
    assert evidence.verdict is Verdict.VERIFIED and evidence.certificate.facts[0].enclosure == ("1", "1")


def _recheck(recorded: Evidence, again: Evidence) -> tuple[str, str]:
    return _check_fact(_fact(recorded), {}, {}, lambda: again)


def test_recheck_accepts_an_enclosure_that_meets_the_recorded_one_and_supports_the_verdict():
    recorded = _verified(Measurement("m", 1, 0.5, 0.5, margin_interval=(0.4, 0.6)))
    assert _recheck(recorded, _verified(Measurement("m", 1, 0.5, 0.5, margin_interval=(0.55, 0.7))))[0] == "ok"
    status, message = _recheck(recorded, _verified(Measurement("m", 1, 0.5, 0.5, margin_interval=(0.61, 0.7))))
    assert status == "fail" and "does not meet" in message
    status, message = _recheck(recorded, _verified(Measurement("m", 1, 0.5, 0.5, margin_interval=(-0.1, 0.5))))
    assert status == "fail" and "does not support the verdict" in message


def test_margin_enclosures_keep_the_first_of_each_quantity():
    evidence = _verified(
        Measurement("m", 1, 0.5, 0.5, margin_interval=(0.4, 0.6)),
        Measurement("m", 1, 0.5, 0.5, margin_interval=(0.1, 0.2)),
    )
    assert margin_enclosures(evidence) == {"m": (Fraction(0.4), Fraction(0.6))}
