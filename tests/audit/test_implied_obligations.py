"""The checks every candidate audit runs whether or not the spec names them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dpaudit.audit.candidates.implied import BLACK_BOX_FLOOR, IMPLIED_PREFIX, NARROWING, implied_obligations
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.claims import Obligation


def _added(spec: str, keep=None):
    claim = load_spec(builtin_spec_dir() / "examples" / spec)
    kept = tuple(o for o in claim.obligations if keep is None or o.checker in keep)
    return claim, {o.checker: o for o in implied_obligations(claim, kept)}


def test_the_kind_noise_family_is_fitted_on_the_spec_pairs():
    claim, added = _added("gaussian_candidate.toml", keep={"empirical_epsilon_lower_bound"})
    assert set(added) == {"randomness_contract", "parametric_noise_fit"}  # the spec has the black-box audit
    fit = added["parametric_noise_fit"]
    assert fit.params["family"] == "gaussian" and fit.id.startswith(IMPLIED_PREFIX)
    assert fit.params["centres_at_inputs"] is True and fit.params["confidence"] == 0.999
    spec_pairs = next(o.params["pairs"] for o in claim.obligations if "pairs" in o.params)
    assert fit.params["pairs"] == spec_pairs == added["randomness_contract"].params["pairs"]
    assert fit.for_run(quick=True).params["samples"] < fit.params["samples"]


def test_a_check_the_spec_already_has_is_not_added_again():
    claim = load_spec(builtin_spec_dir() / "examples" / "gaussian_candidate.toml")
    own = Obligation("own-fit", "mine", "parametric_noise_fit", {"family": "gaussian", "centres_at_inputs": True})
    added = implied_obligations(claim, (own,))
    assert [o.checker for o in added] == ["empirical_epsilon_lower_bound", "randomness_contract"]


@pytest.mark.parametrize(
    "params",
    [
        {"family": "dirichlet"},  # another family
        {"family": "gaussian"},  # the inputs not tested as centres
        {"family": "gaussian", "centres_at_inputs": True, "samples": 100},  # too few draws to stand in
    ],
)
def test_a_spec_fit_that_checks_less_than_the_kinds_own_does_not_replace_it(params):
    claim = load_spec(builtin_spec_dir() / "examples" / "gaussian_candidate.toml")
    added = implied_obligations(claim, (Obligation("own-fit", "mine", "parametric_noise_fit", params),))
    (fit,) = [o for o in added if o.checker == "parametric_noise_fit"]
    assert fit.id.startswith(IMPLIED_PREFIX) and fit.params["family"] == "gaussian"


@pytest.mark.parametrize(
    ("params", "quick"),
    [
        ({"events": ["threshold"]}, {}),
        ({"search": "off"}, {}),
        ({"escalations": 0, "max_pairs": 1}, {}),
        ({"samples": 200_000}, {"certification_ceiling": 1000}),
        ({"samples": 100}, {}),
    ],
)
def test_a_narrowed_black_box_audit_in_the_spec_does_not_replace_dpaudits_own(params, quick):
    claim = load_spec(builtin_spec_dir() / "examples" / "gaussian_candidate.toml")
    own = Obligation("own", "mine", "empirical_epsilon_lower_bound", params, quick_params=quick)
    (black_box,) = [o for o in implied_obligations(claim, (own,)) if o.checker == "empirical_epsilon_lower_bound"]
    assert black_box.params["samples"] >= BLACK_BOX_FLOOR and not set(black_box.params) & NARROWING[own.checker]
    whole = Obligation("own", "mine", "empirical_epsilon_lower_bound", {"samples": 200_000}, {"samples": 50_000})
    assert "empirical_epsilon_lower_bound" not in {o.checker for o in implied_obligations(claim, (whole,))}


def test_a_family_that_cannot_refute_the_claim_is_left_out_and_a_pure_claim_keeps_the_gaussian_fit():
    laplace = load_spec(builtin_spec_dir() / "examples" / "laplace_candidate.toml")
    approximate = replace(laplace, guarantee=replace(laplace.guarantee, delta=1e-5))  # the fit bounds pure claims
    added = implied_obligations(approximate, ())
    assert [o.checker for o in added] == ["empirical_epsilon_lower_bound", "randomness_contract"]
    claim = load_spec(builtin_spec_dir() / "examples" / "gaussian_candidate.toml")
    pure = replace(claim, guarantee=replace(claim.guarantee, delta=0.0))  # a Gaussian is never pure DP: a fit says so
    assert "parametric_noise_fit" in {o.checker for o in implied_obligations(pure, ())}


def test_each_kind_gets_its_own_familys_fit():
    _, added = _added("gpope_step_candidate.toml")
    # a subsampled step releases a mixture, not a Gaussian: its own fit (sigma fitted, the kind's worst pair)
    assert set(added) <= {"randomness_contract", "noise_multiplier_fit"} and "noise_multiplier_fit" in added
    _, end_to_end = _added("gpope_candidate.toml")
    assert not {"parametric_noise_fit", "gaussian_release_fit", "noise_multiplier_fit"} & set(end_to_end)
    _, laplace = _added("laplace_candidate.toml", keep=set())
    assert laplace["empirical_epsilon_lower_bound"].params["samples"] == 1_000_000
    assert laplace["parametric_noise_fit"].params["family"] == "laplace"
    _, dirichlet = _added("dirichlet_candidate.toml", keep={"empirical_epsilon_lower_bound"})  # its pairs
    assert "centres_at_inputs" not in dirichlet["parametric_noise_fit"].params  # Dir(k p) is not p + noise


def test_a_spec_naming_a_simpler_checker_gets_the_black_box_audit_at_its_own_budget_or_the_floor():
    claim = load_spec(builtin_spec_dir() / "examples" / "gaussian_candidate.toml")
    threshold = Obligation(
        "threshold", "mine", "gaussian_threshold_monte_carlo", {"samples": 300_000}, quick_params={"samples": 30_000}
    )
    seeds = Obligation("seeds", "mine", "randomness_contract", {"samples": 900_000})
    (black_box,) = [
        o for o in implied_obligations(claim, (threshold, seeds)) if o.checker == "empirical_epsilon_lower_bound"
    ]
    assert black_box.id == f"{IMPLIED_PREFIX}black-box-epsilon"
    assert black_box.params["samples"] == 300_000  # the seeds of the randomness contract are not draws
    assert black_box.for_run(quick=True).params["samples"] == BLACK_BOX_FLOOR  # not the spec's 30,000
    assert "search" not in black_box.params  # the input search runs (search = "auto" for a candidate)
    tiny = Obligation("threshold", "mine", "gaussian_threshold_monte_carlo", {"samples": 100})
    (black_box,) = [o for o in implied_obligations(claim, (tiny,)) if o.checker == "empirical_epsilon_lower_bound"]
    assert black_box.params["samples"] == black_box.for_run(quick=True).params["samples"] == BLACK_BOX_FLOOR


def test_an_accountant_gets_no_black_box_audit():
    claim = load_spec(builtin_spec_dir() / "examples" / "accountant_candidate.toml")
    assert implied_obligations(claim, claim.obligations) == ()


def test_external_randomness_skips_the_contract_and_refuses_a_spec_that_names_it(tmp_path):
    import pytest

    from dpaudit.errors import SpecError

    text = (builtin_spec_dir() / "examples" / "laplace_candidate.toml").read_text()
    external = text.replace("[claim]", '[candidate]\nrandomness = "external"\n\n[claim]', 1)
    path = tmp_path / "spec.toml"
    path.write_text(external)
    with pytest.raises(SpecError, match="randomness = 'external' declares"):
        load_spec(path)  # the example names the randomness contract
    kept = "[[obligations]]".join(external.split("[[obligations]]")[:-1])  # its last obligation: the contract
    path.write_text(kept)
    claim = load_spec(path)
    assert claim.candidate_call.randomness == "external"
    assert "randomness_contract" not in {o.checker for o in implied_obligations(claim, claim.obligations)}
    path.write_text(kept.replace('randomness = "external"', 'randomness = "os"'))
    with pytest.raises(SpecError, match="expected one of"):
        load_spec(path)


@pytest.mark.parametrize("spec", ["smooth_gaussian_candidate.toml", "dp_lsw_candidate.toml", "dp_lsl_candidate.toml"])
def test_a_release_gaussian_given_its_input_gets_the_unequal_covariance_fit(spec):
    claim, added = _added(spec, keep={"empirical_epsilon_lower_bound"})  # the spec's pairs (no AuditPairsView)
    fit = added["gaussian_release_fit"]
    assert fit.id == f"{IMPLIED_PREFIX}parametric-gaussian-release-fit" and "parametric_noise_fit" not in added
    assert fit.params["confidence"] == 0.999 and fit.for_run(quick=True).params["samples"] < fit.params["samples"]
    pure = replace(claim, guarantee=replace(claim.guarantee, delta=0.0))
    kept = tuple(o for o in claim.obligations if o.checker == "empirical_epsilon_lower_bound")
    assert "gaussian_release_fit" in {o.checker for o in implied_obligations(pure, kept)}  # never pure DP: it says so


def test_a_spec_without_pairs_for_a_kind_that_proposes_none_is_refused_not_audited_with_fewer_checks():
    """A kind without AuditPairsView audits only the pairs the spec gives: with none, dpaudit's own checks would
    have nothing to run on. A spec naming only a check that needs no pairs (a noise multiplier fit) must not
    silently lose them."""
    with pytest.raises(InvalidArgument, match="dpaudit's own black-box checks, added to every candidate audit, need"):
        _added("dirichlet_candidate.toml", keep=set())
    claim = load_spec(builtin_spec_dir() / "examples" / "smooth_gaussian_candidate.toml")
    fit = Obligation("nm", "mine", "noise_multiplier_fit", {})
    with pytest.raises(InvalidArgument, match="proposes no neighbouring pairs"):
        implied_obligations(claim, (fit,))
