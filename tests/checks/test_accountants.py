"""Tests of the accounting checkers: planted wrong constants are caught, true statements are not.

Findings about Xie et al. 2019 recorded here (the statements are kept as written):
* Lemma 1 fails for the step of Algorithm 1 (one record drawn uniformly): two outputs
  differ by up to 2h, not h, and the exact moment exceeds the bound already at λ = 1.
* Lemma 1 fails for the proof's own pair (B.6)–(B.9) when λ is large (the statement puts
  no range on λ; the proof drops "higher-order terms"); it holds on λ <= σ² log(m/σ).
"""

import mpmath
import numpy as np
import pytest

from dpaudit.audit.plugins import get_checker
from dpaudit.checks.accountants.end_to_end import check_approx_dp_pld
from dpaudit.checks.accountants.moment_bounds import check_moment_bound_exact
from dpaudit.checks.accountants.tail_bound import check_moments_tail_bound
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import add_remove_one, replace_one

LEMMA = dict(claimed="xie2019_lemma1", records=[1000, 100000], noise_multipliers=[1.2, 4.0], lambdas=[1, 2, 8])


def run(checker, params, relation):
    obligation = Obligation("o", "statement", checker.__name__, params)
    claim = Claim(
        "c", "t", MechanismSpec("gpope_step", {}), ApproxDP(0.1, 1e-5), (relation,), Source("p", "l"), (obligation,)
    )
    context = CheckContext(claim, relation, np.random.default_rng(0), np.random.SeedSequence(0))
    return checker(obligation, context)


def test_checkers_are_registered():
    for name in ("moment_bound_exact", "approx_dp_pld", "moments_tail_bound"):
        assert get_checker(name).validate is not None


@pytest.mark.parametrize("relation", [replace_one(), add_remove_one()])
def test_finding_lemma1_fails_for_algorithm1(relation):
    evidence = run(
        check_moment_bound_exact, {**LEMMA, "sampling": "uniform_one", "lambda_range": "theorem1_proof"}, relation
    )
    assert evidence.verdict is Verdict.VIOLATED
    example = evidence.counterexample
    assert example["per_step_pair"]["first"]["means"] == [0.0, 2.0]
    assert float(example["measured_lower"]) > float(example["claimed"])


@pytest.mark.parametrize("relation", [replace_one(), add_remove_one()])
def test_finding_lemma1_fails_for_large_lambda_in_the_proof_model(relation):
    evidence = run(check_moment_bound_exact, {**LEMMA, "sampling": "poisson", "lambdas": [32]}, relation)
    assert evidence.verdict is Verdict.VIOLATED


def test_lemma1_holds_on_the_theorem1_range_for_the_proof_pair():
    params = {**LEMMA, "sampling": "poisson", "lambda_range": "theorem1_proof"}
    assert run(check_moment_bound_exact, params, add_remove_one()).verdict is Verdict.VERIFIED


def test_planted_small_moment_constant_is_violated():
    params = {**LEMMA, "sampling": "poisson", "lambda_range": "theorem1_proof", "scale": 0.2}
    assert run(check_moment_bound_exact, params, add_remove_one()).verdict is Verdict.VIOLATED


def test_replace_one_without_upper_bound_is_inconclusive_not_verified():
    params = {**LEMMA, "sampling": "poisson", "lambda_range": "theorem1_proof"}
    assert run(check_moment_bound_exact, params, replace_one()).verdict is Verdict.INCONCLUSIVE


THEOREM1 = dict(epsilon=0.1, delta=1e-5, c2=2.0, records=[1000], steps_per_records_squared=[0.02], interval=1e-6)


@pytest.mark.parametrize("sampling", ["uniform_one", "poisson"])
def test_theorem1_with_proof_constant_holds_at_a_chain_point(sampling):
    evidence = run(check_approx_dp_pld, {**THEOREM1, "sampling": sampling}, add_remove_one())
    assert evidence.verdict is Verdict.VERIFIED


def test_planted_small_delta_is_violated_with_the_pair():
    evidence = run(check_approx_dp_pld, {**THEOREM1, "sampling": "uniform_one", "delta_scale": 0.1}, replace_one())
    assert evidence.verdict is Verdict.VIOLATED
    assert len(evidence.counterexample["per_step"]["pairs"]) == 2


def test_points_outside_the_theorem_domain_are_skipped():
    evidence = run(check_approx_dp_pld, {**THEOREM1, "steps_per_records_squared": [1e-4]}, add_remove_one())
    assert evidence.verdict is Verdict.INCONCLUSIVE and evidence.budget["skipped_outside_domain"] == 1


POINTS = dict(epsilon=0.1, delta=1e-5, interval=1e-4, sampling="uniform_one")


def test_the_papers_experimental_setting_is_violated_with_the_true_epsilon():
    """Sec. 7: m = 300, N = 200, sigma = 3.199 (eq. B.32): the true epsilon at 1e-5 is about 0.1105."""
    points = [{"records": 300, "steps": 200, "noise_multiplier": 3.199017274792054}]
    evidence = run(check_approx_dp_pld, {**POINTS, "points": points}, replace_one())
    assert evidence.verdict is Verdict.VIOLATED
    low, high = evidence.details["true_epsilon_at_delta"][0]["epsilon_interval"]
    assert 0.1104 < low <= high < 0.1106
    assert "(300, 200, 3.19902)" in evidence.domain


def test_a_setting_with_enough_noise_is_verified_at_its_points():
    points = [{"records": 300, "steps": 200, "noise_multiplier": 4.0}]
    evidence = run(check_approx_dp_pld, {**POINTS, "points": points}, replace_one())
    assert evidence.verdict is Verdict.VERIFIED
    assert evidence.details["true_epsilon_at_delta"][0]["epsilon_interval"][1] < 0.1


@pytest.mark.parametrize(
    "points",
    [[], [{"records": 300, "steps": 200}], [{"records": 1, "steps": 200, "noise_multiplier": 1.0}], "x"],
)
def test_invalid_points(points):
    with pytest.raises(InvalidArgument):
        get_checker("approx_dp_pld").validate({**POINTS, "points": points}, None)
    with pytest.raises(InvalidArgument, match="not both"):
        get_checker("approx_dp_pld").validate({**THEOREM1, "points": points}, None)


TAIL = dict(
    sampling="poisson",
    records=[100],
    noise_multipliers=[0.8],
    steps=[1000],
    epsilons=[1.0, 2.0],
    lambdas=[1, 2, 3, 4, 6, 8, 16, 32],
    interval=1e-3,
)


def test_abadi_tail_bound_holds():
    assert run(check_moments_tail_bound, TAIL, add_remove_one()).verdict is Verdict.VERIFIED


def test_a_point_the_moment_enclosure_leaves_undecided_is_not_a_violation():
    """A reviewer's case: under replace-one with Poisson sampling the moments are known within a wide interval
    (the add/remove pair gives the low end), and a point whose PLD lower end exceeded the tail bound of the low
    end, though not of the high end, was called a violation of a theorem. Undecided is not violated."""
    params = {**TAIL, "noise_multipliers": [1.1], "epsilons": [2.0], "lambdas": [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]}
    evidence = run(check_moments_tail_bound, params, replace_one())
    assert evidence.verdict is not Verdict.VIOLATED, evidence.summary
    assert evidence.budget["undecided"] >= 1


def test_planted_shrunk_moments_are_violated():
    # At integer orders the tail bound has slack: moments x0.25 still pass here, x0.1 must not.
    evidence = run(check_moments_tail_bound, {**TAIL, "moment_scale": 0.1}, add_remove_one())
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.counterexample["quantity"].startswith("delta(2)")


@pytest.mark.parametrize(
    "params",
    [
        {**LEMMA, "claimed": "nope"},
        {**LEMMA, "records": [1]},
        {**LEMMA, "lambdas": []},
        {**LEMMA, "lambdas": [0]},
        {**LEMMA, "noise_multipliers": [float("nan")]},
        {**LEMMA, "scale": -0.0},
        {**LEMMA, "extra": 1},
    ],
)
def test_invalid_moment_params(params):
    with pytest.raises(InvalidArgument):
        get_checker("moment_bound_exact").validate(params, None)


@pytest.mark.parametrize(
    "params",
    [
        {key: value for key, value in THEOREM1.items() if key != "c2"},
        {**THEOREM1, "noise_multipliers": [1.0]},
        {**THEOREM1, "steps": [10]},
        {**THEOREM1, "delta": 1.0},
        {**THEOREM1, "interval": 0},
    ],
)
def test_invalid_pld_params(params):
    with pytest.raises(InvalidArgument):
        get_checker("approx_dp_pld").validate(params, None)


def test_invalid_tail_params():
    with pytest.raises(InvalidArgument):
        get_checker("moments_tail_bound").validate({**TAIL, "lambdas": [1.5]}, None)


def test_a_point_decided_only_by_the_round_off_estimate_is_consistent_not_verified():
    from dpaudit.checks.accountants.tally import Tally
    from dpaudit.privacy.accounting.values import AccountedValue

    def value(upper):
        return AccountedValue(upper, 0.0, upper, "interval", "test")

    def decide(rigorous, estimate):
        tally = Tally()
        tally.add("delta(0.1) at m=1", 1e-5, value(rigorous), dict, None if estimate is None else value(estimate))
        return tally.evidence(what="claim", domain="d", method="m", budget={}, details={})

    assert decide(8e-6, None).verdict is Verdict.VERIFIED
    assert decide(2e-5, None).verdict is Verdict.INCONCLUSIVE
    numerical = decide(2e-5, 8e-6)
    assert numerical.verdict is Verdict.CONSISTENT and "estimated" in numerical.summary
    assert numerical.budget["numerical"] == 1
    assert decide(2e-5, 3e-5).verdict is Verdict.INCONCLUSIVE


def test_a_violation_finer_than_float64_is_violated_not_verified():
    """Enclosures at 60 digits are compared exactly: rounded to 53 bits first, a claim below the truth by
    1e-40 would read as verified (and a stated epsilon below a 1e-30 excess too)."""
    from dpaudit.checks.accountants.certified_epsilon import _point_verdict
    from dpaudit.checks.accountants.tally import Tally
    from dpaudit.privacy.accounting.values import AccountedValue

    with mpmath.workdps(60):
        third = mpmath.mpf(1) / 3
        above = third + mpmath.mpf("1e-40")
        one_and_a_bit = mpmath.mpf(1) + mpmath.mpf("1e-30")
    tally = Tally()
    tally.add("alpha(2) at m=1", third, AccountedValue(above, above, above, "exact", "test", 60), dict)
    assert tally.evidence(what="claim", domain="d", method="m", budget={}, details={}).verdict is Verdict.VIOLATED
    certified = AccountedValue(one_and_a_bit, one_and_a_bit, one_and_a_bit, "interval", "test", 60)
    point = {"records": 10, "noise_multiplier": 1.0, "steps": 10, "delta": 1e-5}
    assert _point_verdict(point, 1.0, certified, certified) is Verdict.VIOLATED


def test_a_stated_epsilons_margin_is_what_the_enclosure_guarantees():
    """A bound above the enclosure has at least stated − upper of room, one below it falls short by at least
    stated − lower; inside it the sign is unknown and the margin is stated − the enclosure's value, never
    above 0 (the lower end's margin showed an undecided point of the peer claim, 1.15347 against
    [1.15300, 1.15357], as +5.1e-4)."""
    from types import SimpleNamespace

    import mpmath

    from dpaudit.checks.accountants.certified_epsilon import _margin

    enclosure = SimpleNamespace(lower=mpmath.mpf("1.153"), upper=mpmath.mpf("1.15357"), value=mpmath.mpf("1.1533"))
    assert _margin(1.2, enclosure) == pytest.approx(1.2 - 1.15357)
    assert _margin(1.1, enclosure) == pytest.approx(1.1 - 1.153)
    assert _margin(1.15347, enclosure) == 0.0  # inside: never room it may not have
    at_upper = SimpleNamespace(lower=enclosure.lower, upper=enclosure.upper, value=enclosure.upper)
    assert _margin(1.15347, at_upper) == pytest.approx(1.15347 - 1.15357)
    # below an enclosure whose lower end rounds onto the stated float: still a shortfall, never 0
    just_above = SimpleNamespace(lower=mpmath.mpf(1.1) + mpmath.mpf("1e-30"), upper=mpmath.mpf(2), value=mpmath.mpf(2))
    assert _margin(1.1, just_above) < 0
