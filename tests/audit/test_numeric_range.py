"""Numbers outside float64's reach: refused where the spec loads (exit 2 naming the key and the
range), and a check whose arithmetic still leaves the range is ``inconclusive`` (precision), never
an internal error."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest

from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.cli import main
from dpaudit.errors import SpecError
from dpaudit.kernel.checkers import register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.verdicts import Verdict


@register_checker("test_numeric_range_overflow", description="a checker whose arithmetic overflows")
def _overflows(obligation, context):
    return math.exp(float(context.claim.guarantee.epsilon) * 1e6)


@pytest.mark.parametrize("epsilon", ["1e308", "701.0"])
def test_a_claimed_epsilon_past_the_float_range_is_refused_naming_the_range(write_gaussian_spec, epsilon):
    with pytest.raises(SpecError, match=r"epsilon=.*expected a real number >= 0 and <= 700"):
        load_spec(write_gaussian_spec(epsilon=epsilon))


def test_a_check_that_overflows_is_inconclusive_precision_not_an_internal_error():
    claim = load_spec(builtin_spec_dir() / "gaussian_mechanism.toml")
    overflow = Obligation(id="overflow", statement="overflows", checker="test_numeric_range_overflow")
    report = run_audit([(replace(claim, obligations=(overflow,)), "spec.toml")], seed=1, quick=True)
    (item,) = report.claims[0].relations[0].obligations
    assert item.evidence.verdict is Verdict.INCONCLUSIVE
    assert item.evidence.summary.startswith(
        "precision: a computation of the check left the range of float64 or did not"
    )
    assert "OverflowError" in item.evidence.details["traceback"]
    assert report.internal_errors == 0


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [("--epsilon", "1e308", "expected a real number > 0 and <= 700"), ("--dim", "1000000000", "in [1, 10000]")],
)
def test_calibrate_refuses_numbers_it_cannot_compute_with(option, value, message, caplog):
    arguments = {"--epsilon": "1", "--delta": "0.01", "--dim": "1", option: value}
    assert main(["calibrate", "smooth-gaussian", *(text for pair in arguments.items() for text in pair)]) == 2
    assert message in caplog.text


def test_a_pure_dp_claim_for_the_dirichlet_mechanism_is_violated_not_an_overflow(tmp_path):
    text = (builtin_spec_dir() / "gohari2020_dirichlet_mechanism.toml").read_text(encoding="utf-8")
    path = tmp_path / "pure.toml"
    path.write_text(re.sub(r"(?m)^delta = .*$", "delta = 0.0", text), encoding="utf-8")
    claim = load_spec(path)
    exact = replace(claim, obligations=tuple(o for o in claim.obligations if o.checker == "dirichlet_exact_profile"))
    report = run_audit([(exact, str(path))], seed=1, quick=True)
    (item,) = report.claims[0].relations[0].obligations
    assert item.evidence.verdict is Verdict.VIOLATED
    assert "estimate of the exact epsilon at the claimed delta: inf" in item.evidence.summary
