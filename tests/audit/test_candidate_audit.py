"""dpaudit check: black-box audits of candidate implementations."""

from dataclasses import replace
from pathlib import Path

import pytest

from dpaudit.audit.candidates.audit import audit_candidate, candidate_obligations
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import CandidateLoadError, SpecError
from dpaudit.kernel.verdicts import Verdict
from tests.candidate_audits import audited_alone

FIXTURES = str(Path(__file__).parent / "candidates_fixture")
SPEC = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"


def _check(claim, spec, name, *, seed=5, quick=True, timeout=120.0):
    """Audit the fixture candidate ``name`` against ``claim`` (read from ``spec``)."""
    return audit_candidate(
        claim,
        spec,
        parse_candidate(f"sample_candidates:{name}", path=FIXTURES),
        limits=CandidateLimits(timeout_seconds=timeout),
        seed=seed,
        quick=quick,
    )


def _audit(name, *obligation_ids, timeout=60.0):
    """The Gaussian example audit of fixture ``name``: the whole audit, or the spec's ``obligation_ids`` alone."""
    with audited_alone(load_spec(SPEC), *obligation_ids) as claim:
        report = _check(claim, SPEC, name, timeout=timeout)
    (result,) = report.claims
    (relation,) = result.relations
    return {item.obligation.id: item.evidence for item in relation.obligations}


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_correct_candidate_passes():
    evidence = _audit("good_gaussian")
    assert {e.verdict for e in evidence.values()} == {Verdict.CONSISTENT}


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_buggy_candidate_is_violated():
    evidence = _audit("halved_gaussian", "output-law-matches-reference", "empirical-privacy")
    # conformance is not privacy: the law differs (reported), the privacy check is what is violated
    assert evidence["output-law-matches-reference"].verdict is Verdict.INCONCLUSIVE
    assert evidence["output-law-matches-reference"].details["conformance"] == "differs"
    assert evidence["empirical-privacy"].verdict is Verdict.VIOLATED


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_hanging_candidate_is_error_not_a_hung_job():
    evidence = _audit("hanging_gaussian", timeout=0.4)
    assert {e.verdict for e in evidence.values()} == {Verdict.ERROR}
    assert "did not answer within 0.4 s" in evidence["empirical-privacy"].summary


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_raising_candidate_is_error_with_traceback():
    evidence = _audit("raising_gaussian")
    assert all(e.verdict is Verdict.ERROR for e in evidence.values())
    assert "planted bug in the candidate gaussian" in evidence["output-law-matches-reference"].summary
    assert "Traceback" in evidence["output-law-matches-reference"].summary


def test_white_box_only_spec_is_refused():
    claim = load_spec(builtin_spec_dir() / "gaussian_mechanism.toml")
    restricted = candidate_obligations(claim, "x")
    assert [o.id for o in restricted.obligations] == [
        "monte-carlo-threshold",
        "implied-black-box-epsilon",  # the spec names only the threshold Monte Carlo: dpaudit's own audit too
        "implied-randomness-contract",
        "implied-parametric-gaussian-fit",
    ]
    white_box_only = restricted.__class__(**{**claim.__dict__, "obligations": claim.obligations[:1]})
    with pytest.raises(SpecError, match="no obligation of this spec audits a candidate"):
        candidate_obligations(white_box_only, "x")


def _audit_lsw(name, *obligation_ids):
    """The DP-LSW example audit of fixture ``name``: the whole audit, or the spec's ``obligation_ids`` alone."""
    spec = builtin_spec_dir() / "examples" / "dp_lsw_candidate.toml"
    with audited_alone(load_spec(spec), *obligation_ids) as claim:
        report = _check(claim, spec, name)
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}


@pytest.mark.slow  # a whole audit end to end: the main CI job runs it, not the floors one
def test_dp_lsw_candidate_matching_the_reference_passes():
    evidence = _audit_lsw("vectorised_reference_dp_lsw")  # the per-call path: the half-noise test below
    assert {e.verdict for e in evidence.values()} == {Verdict.CONSISTENT}


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_dp_lsw_candidate_with_half_the_noise_differs_from_the_reference():
    evidence = _audit_lsw("noisy_half_dp_lsw", "output-law-matches-reference")
    assert evidence["output-law-matches-reference"].details["conformance"] == "differs"
    assert evidence["output-law-matches-reference"].verdict is not Verdict.VIOLATED


def _lsw_spec_with_pairs(tmp_path, pairs: str):
    spec = builtin_spec_dir() / "examples" / "dp_lsw_candidate.toml"
    text = spec.read_text()
    text = text.replace(
        "params = { samples = 200000, confidence = 0.95 }",
        f"params = {{ samples = 20000, confidence = 0.95, pairs = {pairs} }}",
    )
    path = tmp_path / "dp_lsw_pairs.toml"
    path.write_text(text)
    return path


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_user_trajectory_pairs_reach_the_candidate(tmp_path):
    pairs = (
        "[{ first = [[[0, 0, 0.0], [1, 0, 0.0], [4, 0, 1.0]], [[3, 0, 0.0], [4, 0, 1.0]]], "
        'second = [[[2, 0, 0.0], [4, 0, 1.0]], [[3, 0, 0.0], [4, 0, 1.0]]], label = "first trajectory replaced" }]'
    )
    path = _lsw_spec_with_pairs(tmp_path, pairs)
    with audited_alone(load_spec(path), "black-box-epsilon") as claim:  # drawn by rows: the pairs are the point
        report = _check(claim, path, "vectorised_reference_dp_lsw")
    (relation,) = report.claims[0].relations
    evidence = {item.obligation.id: item.evidence for item in relation.obligations}
    assert evidence["black-box-epsilon"].verdict is Verdict.CONSISTENT, evidence["black-box-epsilon"].summary


def test_user_trajectory_pairs_that_are_not_neighbours_are_refused(tmp_path):
    pairs = (
        "[{ first = [[[0, 0, 0.0], [4, 0, 1.0]]], second = [[[2, 0, 0.0], [4, 0, 1.0]], [[3, 0, 0.0], [4, 0, 1.0]]] }]"
    )
    with pytest.raises(SpecError, match="not neighbours under replace_one"):
        load_spec(_lsw_spec_with_pairs(tmp_path, pairs))


def _spec_with_call(tmp_path, table):
    text = SPEC.read_text().replace("[claim]", f"[candidate]\n{table}\n\n[claim]", 1)
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
@pytest.mark.parametrize("name", ["gaussian_with_own_names", "vectorised_with_own_names"])
def test_spec_declares_positional_arguments_and_renames(tmp_path, name):
    path = _spec_with_call(
        tmp_path, 'args = ["input", "rng"]\nkeywords = ["sigma"]\nrename = { sigma = "noise_scale" }'
    )
    claim = load_spec(path)
    report = _check(claim, path, name)
    (relation,) = report.claims[0].relations
    assert {item.evidence.verdict for item in relation.obligations} == {Verdict.CONSISTENT}


def test_without_the_table_own_names_do_not_fit_and_load_fails(tmp_path):
    with pytest.raises(CandidateLoadError, match="signature"):
        _check(load_spec(SPEC), SPEC, "gaussian_with_own_names")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('args = ["rng"]', "must list 'input'"),
        ('args = ["input"]\nkeywords = ["sigma"]', "generator must be passed"),
        ('args = ["input", "rng", "rng"]', "more than once"),
        ('args = ["input", "noise"]', "not 'input', 'rng' or a parameter"),
        ('rename = { sigma = "not an identifier" }', "identifier"),
        ('args = ["input", "sigma"]\nrename = { sigma = "s" }', "not passed by keyword"),
        ('rename = { sigma = "rng" }', "same name"),
        ("args = 3", "expected a list of names"),
        ("extra = 1", "unknown key"),
    ],
)
def test_bad_candidate_tables_are_spec_errors(tmp_path, table, message):
    with pytest.raises(SpecError, match=message) as caught:
        load_spec(_spec_with_call(tmp_path, table))
    assert "candidate" in str(caught.value)


def _epsilon_laplace_spec(tmp_path):
    """A Laplace spec whose candidate takes (epsilon, sensitivity), as users write it: the claim keeps
    the reference's scale (2 = 1 / 0.5) and the (0.5, 0)-DP statement; no adapter computes the scale. (The
    Laplace example at a tenth of its budgets: the test is about the call, not the power.)"""
    text = (Path(__file__).parents[1] / "specs" / "laplace_candidate_small.toml").read_text()
    text = text.replace("params = { scale = 1.0, sensitivity = 1.0 }", "params = { scale = 2.0, sensitivity = 1.0 }")
    text = text.replace("epsilon = 1.0\n", "epsilon = 0.5\n", 1)
    text = text.replace("[claim]", "[candidate]\nparams = { epsilon = 0.5, sensitivity = 1.0 }\n\n[claim]", 1)
    path = tmp_path / "epsilon_laplace.toml"
    path.write_text(text)
    return path


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
@pytest.mark.parametrize(
    ("name", "expected"), [("laplace_from_epsilon", "consistent"), ("laplace_eps_times", "violated")]
)
def test_candidate_called_with_its_own_parameters(tmp_path, name, expected, spec_obligations_only):
    path = _epsilon_laplace_spec(tmp_path)
    claim = load_spec(path)
    assert claim.candidate_call.params == {"epsilon": 0.5, "sensitivity": 1.0}
    report = _check(claim, path, name, seed=3)
    assert report.candidate["params"] == {"epsilon": 0.5, "sensitivity": 1.0}
    (relation,) = report.claims[0].relations
    evidence = {item.obligation.id: item.evidence for item in relation.obligations}
    assert evidence["empirical-privacy"].verdict.value == expected


def test_candidate_params_are_checked_against_the_call(tmp_path):
    path = _spec_with_call(tmp_path, 'params = { epsilon = 1.0 }\nrename = { sigma = "scale" }')
    with pytest.raises(SpecError, match="not passed by keyword"):
        load_spec(path)
    with pytest.raises(SpecError, match="expected a table of keyword arguments"):
        load_spec(_spec_with_call(tmp_path, "params = 3"))


def test_reference_parameters_that_do_not_fit_list_the_accepted_names(tmp_path):
    text = SPEC.read_text().replace("params = { sigma = ", "params = { epsilon = ", 1)
    path = tmp_path / "spec.toml"
    path.write_text(text)
    with pytest.raises(SpecError, match=r"it takes \['sigma', 'sensitivity'\].*\[candidate\] params"):
        load_spec(path)


def _randomness(name):
    claim = load_spec(SPEC)
    (obligation,) = [o for o in candidate_obligations(claim, "x").obligations if o.checker == "randomness_contract"]
    claim = replace(claim, obligations=(obligation,))
    report = _check(claim, SPEC, name)
    (relation,) = report.claims[0].relations
    return relation.obligations[0].evidence


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_noise_from_a_fixed_seed_is_public_and_violated(spec_obligations_only):
    evidence = _randomness("fixed_seed_gaussian")
    assert evidence.verdict is Verdict.VIOLATED
    assert "public noise" in evidence.summary and evidence.measurements[0].measured == float("inf")
    assert evidence.counterexample["output_on_X"] != evidence.counterexample["output_on_X_prime"]


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_noise_that_is_random_but_not_seeded_is_inconclusive_not_violated(spec_obligations_only):
    evidence = _randomness("unseeded_gaussian")
    assert evidence.verdict is Verdict.INCONCLUSIVE
    assert "not reproducible" in evidence.summary


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_scalar_release_of_a_one_coordinate_query_is_accepted():
    spec = builtin_spec_dir() / "examples" / "laplace_candidate.toml"
    report = _check(load_spec(spec), spec, "scalar_laplace")
    (relation,) = report.claims[0].relations
    assert all(item.evidence.verdict is not Verdict.ERROR for item in relation.obligations)


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_candidate_drawing_from_the_global_state_replays_and_is_reported(spec_obligations_only):
    first, second = _randomness("global_numpy_gaussian"), _randomness("global_numpy_gaussian")
    assert first.verdict is Verdict.INCONCLUSIVE and "ignores the rng" in first.summary
    assert first.summary == second.summary  # the worker seeds the global state: the same audit


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_candidate_drawing_from_the_global_state_gives_the_same_report_twice():
    reports = []
    for _ in range(2):
        claim = load_spec(SPEC)
        (obligation,) = [o for o in claim.obligations if o.id == "empirical-privacy"]
        claim = replace(claim, obligations=(replace(obligation, params={**obligation.params, "samples": 2000}),))
        report = _check(claim, SPEC, "global_numpy_gaussian", quick=False)
        evidence = report.claims[0].relations[0].obligations[0].evidence.to_json()
        reports.append({key: value for key, value in evidence.items() if key != "elapsed_seconds"})
    assert reports[0] == reports[1]
