"""Dirichlet checkers: each must say violated on a planted wrong constant and not on the true claim."""

from pathlib import Path

import pytest

from dpaudit.audit.execution import run_claim
from dpaudit.audit.spec import load_spec
from dpaudit.errors import SpecError
from dpaudit.kernel.verdicts import Verdict

SPECS = Path(__file__).resolve().parents[2] / "specs"

TEMPLATE = """
schema = 1
[claim]
id = "dirichlet-test"
title = "test"
relations = ["{relation}"]
[claim.source]
paper = "Gohari et al."
location = "test"
[claim.mechanism]
name = "dirichlet"
params = {{ k = {k}{eta} }}
[claim.guarantee]
kind = "approx_dp"
epsilon = {epsilon}
delta = {delta}
[[obligations]]
id = "check"
statement = "test"
checker = "{checker}"
params = {params}
"""

ACC_EPSILON, ACC_DELTA = 13.0042, 0.015273


def _evidence(
    tmp_path,
    *,
    k=20.0,
    epsilon=ACC_EPSILON,
    delta=ACC_DELTA,
    relation="simplex_adjacent(0.2)",
    checker="dirichlet_exact_profile",
    params="{ n = 2, grid = 40 }",
    eta: float | None = 0.1,
):
    path = tmp_path / "spec.toml"
    text = TEMPLATE.format(
        k=k,
        eta="" if eta is None else f", eta = {eta!r}",
        epsilon=epsilon,
        delta=delta,
        relation=relation,
        checker=checker,
        params=params,
    )
    path.write_text(text, encoding="utf-8")
    result = run_claim(load_spec(path), seed=5)
    (relation_result,) = result.relations
    (item,) = relation_result.obligations
    return item.evidence


def test_acc2020_statement_is_verified_with_its_margin(tmp_path):
    evidence = _evidence(tmp_path)
    assert evidence.verdict is Verdict.VERIFIED
    assert evidence.measurements[0].margin > 0
    assert evidence.details["worst_pair"] == pytest.approx([0.1, 0.9, 0.2, 0.8])


def test_k_ten_times_too_large_is_violated(tmp_path):
    evidence = _evidence(tmp_path, k=200.0)
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.counterexample is not None and evidence.measurements[0].margin < 0


def test_epsilon_quartered_is_violated_but_halved_is_not(tmp_path):
    """Finding: the statement is loose by a factor of about 3 in epsilon (exact epsilon about 4.67)."""
    assert _evidence(tmp_path, epsilon=ACC_EPSILON / 4).verdict is Verdict.VIOLATED
    assert _evidence(tmp_path, epsilon=ACC_EPSILON / 2).verdict is Verdict.VERIFIED


def test_one_row_reading_is_verified(tmp_path):
    evidence = _evidence(
        tmp_path, checker="dirichlet_composition_profile", params='{ rows = 4, reading = "one_row", n = 2, grid = 30 }'
    )
    assert evidence.verdict is Verdict.VERIFIED


def test_all_rows_reading_is_violated_with_sixteen_rows(tmp_path):
    evidence = _evidence(
        tmp_path,
        checker="dirichlet_composition_profile",
        params='{ rows = 16, reading = "all_rows", n = 2, grid = 30, thresholds = 100 }',
    )
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.measurements[0].interval[0] > ACC_DELTA


def test_all_rows_reading_with_a_large_claimed_delta_holds_with_an_enclosed_margin(tmp_path):
    evidence = _evidence(
        tmp_path,
        delta=0.5,
        checker="dirichlet_composition_profile",
        params='{ rows = 4, reading = "all_rows", n = 2, grid = 30, thresholds = 100 }',
    )
    # its margin's enclosure covers what another machine's float choices may move (issue 37): verified,
    # with a re-run certificate whose enclosure holds the margin
    assert evidence.verdict is Verdict.VERIFIED
    (measurement,) = evidence.measurements
    low, high = measurement.margin_interval
    assert 0 < low <= measurement.margin <= high
    (fact,) = evidence.certificate.facts
    assert fact.route == "rerun"


@pytest.mark.parametrize(
    ("relation", "params", "match"),
    [
        ("replace_one", "{ n = 2 }", "simplex_adjacent"),
        ("row_adjacent(0.2)", "{ n = 2 }", r"'row_adjacent\(0.2\)': mechanism 'dirichlet' is audited under"),
        ("simplex_adjacent(0.2)", "{ n = 1 }", "n=1"),
        ("simplex_adjacent(0.2)", "{ digits = 30 }", "digits=30"),
        ("simplex_adjacent(0.2)", "{ bogus = 1 }", "unknown params"),
    ],
)
def test_bad_specs_are_rejected_at_load(tmp_path, relation, params, match):
    with pytest.raises(SpecError, match=match):
        _evidence(tmp_path, relation=relation, params=params)


CONCENTRATION = """
schema = 1
[claim]
id = "lemma2"
title = "Lemma 2"
relations = ["simplex_adjacent(0.2)"]
[claim.source]
paper = "Gohari et al. 2020"
location = "Lemma 2"
[claim.mechanism]
name = "dirichlet"
params = {{ k = 10.0 }}
[claim.guarantee]
kind = "concentration"
radius = 0.3695
failure_probability = 0.05
[[obligations]]
id = "grid"
statement = "Lemma 2 on a grid"
checker = "dirichlet_concentration"
params = {params}
"""


def _concentration(tmp_path, params):
    path = tmp_path / "lemma2.toml"
    path.write_text(CONCENTRATION.format(params=params), encoding="utf-8")
    (relation_result,) = run_claim(load_spec(path), seed=2).relations
    return relation_result.obligations[0].evidence


def test_lemma2_holds_exactly_on_the_2_simplex(tmp_path):
    evidence = _concentration(tmp_path, "{ inputs = [[0.5, 0.5], [0.1, 0.9]], ks = [1.0, 10.0], betas = [0.05, 0.5] }")
    # holds at every point, decided by the exact Beta tails; its smallest margin is enclosed for any machine
    # (the radius's float error either way), so the verdict is verified with a re-run certificate (issue 37)
    assert evidence.verdict is Verdict.VERIFIED
    assert evidence.budget["monte_carlo_points"] == 0
    enclosed = evidence.measurements[-1]
    low, high = enclosed.margin_interval
    assert 0 < low <= high and float(high - low) < 1e-12
    (fact,) = evidence.certificate.facts
    assert fact.route == "rerun" and float(fact.enclosure[0]) <= float(low)


def test_lemma2_with_the_radius_halved_is_violated_exactly(tmp_path):
    evidence = _concentration(tmp_path, "{ inputs = [[0.5, 0.5]], ks = [10.0], betas = [0.05], radius_scale = 0.5 }")
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.budget["monte_carlo_points"] == 0


def test_lemma2_as_stated_fails_on_the_20_simplex(tmp_path):
    """Finding: with n = 20, k = 1, beta = 0.05 the tail is about 0.10 > 0.05 (Monte Carlo, 95%)."""
    evidence = _concentration(
        tmp_path, "{ inputs = [[" + ", ".join(["0.05"] * 20) + "]], ks = [1.0], betas = [0.05], samples = 20000 }"
    )
    assert evidence.verdict is Verdict.VIOLATED
    point = evidence.details["points"][0]
    assert point["interval"][0] > 0.05


@pytest.mark.parametrize(
    "name",
    [
        "gohari2020_dirichlet_mechanism",
        "gohari2020_algorithm1_one_row",
        "gohari2020_algorithm1_all_rows",
        "gohari2020_lemma2_concentration",
    ],
)
def test_builtin_specs_load(name):
    assert load_spec(SPECS / f"{name}.toml").obligations


def _tight_dirichlet_claim():
    return load_spec(SPECS / "mutants" / "gohari2020_dirichlet_tight.toml")


def test_exact_profile_reads_k_from_the_mechanism_under_audit():
    from dpaudit.audit.mutants.library import DirichletKTimesDimension

    claim = _tight_dirichlet_claim()
    reference = run_claim(claim, seed=0, quick=True).relations[0].obligations[0].evidence
    mutant = run_claim(claim, seed=0, quick=True, mechanism_factory=DirichletKTimesDimension)
    evidence = mutant.relations[0].obligations[0].evidence
    assert reference.verdict is Verdict.VERIFIED and reference.details["k"] == 5.0
    assert evidence.verdict is Verdict.VIOLATED and evidence.details["k"] == 10.0


def test_exact_profile_refuses_a_mechanism_that_is_not_dir_k_p():
    from dpaudit.mechanisms.dirichlet import DirichletMechanism

    class Smoothed(DirichletMechanism):
        def concentration(self, data):
            return super().concentration(data) + 1.0

    result = run_claim(_tight_dirichlet_claim(), seed=0, quick=True, mechanism_factory=Smoothed)
    evidence = result.relations[0].obligations[0].evidence
    assert evidence.verdict is Verdict.ERROR and "not k * p" in evidence.summary


def test_lemma2s_verified_grid_rechecks_from_its_enclosure(tmp_path):
    from dpaudit.cli import main
    from dpaudit.report.recheck import recheck_report

    spec = tmp_path / "lemma2.toml"
    spec.write_text(
        CONCENTRATION.format(params="{ inputs = [[0.5, 0.5], [0.1, 0.9]], ks = [1.0, 10.0], betas = [0.05, 0.5] }"),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["audit", str(spec), "--quiet", "--out", str(out)]) == 0
    result = recheck_report(out / "audit.json")
    assert result.ok, result.failures
    assert any("rerun: verified again" in line for line in result.replayed)


@pytest.mark.parametrize("beta", [0.05, 0.5, 0.95, 0.99, 0.999, 0.999999])
@pytest.mark.parametrize("k", [1.0, 10.0, 40.0])
def test_the_float_radius_lies_within_its_stated_error_of_the_exact_one(beta, k):
    """The review's case: rounding 1/beta costs u / log(1/beta) relative, large as beta nears 1."""
    import mpmath

    from dpaudit.checks.profiles.dirichlet_concentration import _radius_relative_error
    from dpaudit.mechanisms.synthesis import concentration_radius

    with mpmath.workdps(50):
        exact = mpmath.sqrt(mpmath.log(1 / mpmath.mpf(beta)) / (2 * (mpmath.mpf(k) + 1)))
        assert abs(mpmath.mpf(concentration_radius(k, beta)) / exact - 1) <= _radius_relative_error(beta)


@pytest.mark.parametrize(
    ("checker", "params"),
    [
        ("dirichlet_exact_profile", "{ n = 2, grid = 200 }"),
        ("dirichlet_composition_profile", '{ rows = 4, reading = "one_row", grid = 200 }'),
    ],
)
def test_a_worst_pair_whose_float64_tails_underflow_is_still_found(tmp_path, checker, params):
    """A reviewer's case: k = 1000, eta = 1e-6, b = 2e-6. At the edge pair p = (1e-6, ...), q = (2e-6, ...) the loss
    threshold is e^-800, below every float64: its tail, e^(-800 a) for the shape a = 0.001, was taken as 0, an
    interior pair with a float64 delta of 1e-221 won the grid, and a claim of delta 1e-10 was verified. The exact
    delta(0.1) there is 0.22621 (the reviewer's own quadrature: 0.2262097)."""
    evidence = _evidence(
        tmp_path,
        k=1000.0,
        epsilon=0.1,
        delta=1e-10,
        relation="simplex_adjacent(2e-6)",
        checker=checker,
        params=params,
        eta=1e-6,
    )
    assert evidence.verdict is Verdict.VIOLATED, evidence.summary
    assert 0.2262 < float(evidence.measurements[0].measured) < 0.2263


def test_on_the_open_simplex_no_claim_is_verified_and_a_pair_near_a_vertex_refutes_it(tmp_path):
    """Without eta, delta(epsilon) tends to 1 as a component tends to 0: the search stopped at 1e-9 and verified
    (1, 0.01) for k = 1e10; it now goes on to 1e-300, where the exact delta is 1 to the digits shown."""
    evidence = _evidence(tmp_path, k=1e10, epsilon=1.0, delta=0.01, relation="simplex_adjacent(2e-10)", eta=None)
    assert evidence.verdict is Verdict.VIOLATED and float(evidence.measurements[0].measured) > 0.99, evidence.summary
    assert "open simplex" in evidence.domain
    # a claim no pair found refutes would still not be verified: the supremum is approached, not attained
    from dpaudit.checks.profiles.dirichlet import _searched_verdict

    assert _searched_verdict(Verdict.VERIFIED, True, None) is Verdict.INCONCLUSIVE
    assert _searched_verdict(Verdict.VERIFIED, True, 0.1) is Verdict.VERIFIED


def test_on_the_2_simplex_only_the_ends_of_the_grid_are_the_box_edge():
    """With one pair mass (n = 2) every position counted as the box's edge, so a verified worst pair in the
    interior was never demoted to inconclusive."""
    from dpaudit.privacy.dirichlet_worst_case import _positions

    positions, corners = _positions(2, 0.2, 0.1, 40)
    assert [edge for _, edge in positions] == [True] + [False] * 38 + [True]
    assert corners == [positions[0], positions[-1]]


def test_a_corner_whose_threshold_is_within_rounding_of_one_is_decided(tmp_path):
    """The review of the corner evaluation: at the corner where q's small component sits at eta, the loss threshold
    u* is within 10^-76 of 1; P(U < u*) taken at u* lost its digits and the two precisions disagreed (an error for
    a claim that holds). It is now 1 - P(1 - U < 1 - u*). The worst delta(0.5) is 0.8972718840 (the other corner)."""
    evidence = _evidence(
        tmp_path,
        k=0.5,
        epsilon=0.5,
        delta=0.95,
        relation="simplex_adjacent(0.1)",
        params="{ n = 2, grid = 40 }",
        eta=1e-3,
    )
    assert evidence.verdict is Verdict.VERIFIED, evidence.summary
    assert 0.8972718840 < float(evidence.measurements[0].measured) < 0.8972718841
