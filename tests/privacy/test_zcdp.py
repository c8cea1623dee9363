"""ρ-zCDP claims are audited at the (ε, δ) point they imply (Canonne, Kamath & Steinke 2020, Prop. 12):
the conversion is an upper bound on the ε(δ) of the Gaussian mechanism, which is ρ-zCDP with
ρ = Δ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6), and close to it; a candidate with too little noise
for its zCDP claim is violated, the right one is not."""

from __future__ import annotations

from pathlib import Path

import pytest

import dpaudit
from dpaudit.audit.spec import load_spec
from dpaudit.errors import SpecError
from dpaudit.privacy.guarantees import ZeroConcentratedDP
from dpaudit.privacy.profiles import gaussian_epsilon

SPEC = Path(__file__).resolve().parents[2] / "specs" / "examples" / "gaussian_candidate.toml"


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0, 10.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-3])
def test_the_implied_epsilon_bounds_the_gaussian_mechanisms_exact_epsilon_from_above(sigma, delta):
    implied = ZeroConcentratedDP(1.0 / (2.0 * sigma**2), delta).implied_approx_dp()
    exact = float(gaussian_epsilon(delta, 1.0, sigma)[1])
    assert implied.delta == delta
    assert exact <= implied.epsilon <= 1.25 * exact  # the conversion is sound, and loose by at most a quarter here


def test_opendps_own_conversion_of_its_gaussian_is_reproduced():
    """OpenDP's make_gaussian(scale = 4) is 1/32-zCDP; its conversion to (epsilon, 1e-5) reads 1.0123."""
    assert ZeroConcentratedDP(1.0 / 32, 1e-5).implied_approx_dp().epsilon == pytest.approx(1.01229, abs=1e-5)


def _zcdp_spec(tmp_path, rho, delta="1e-5"):
    text = SPEC.read_text(encoding="utf-8")
    start = text.index("[claim.guarantee]")
    end = text.index("\n\n", start)
    path = tmp_path / "zcdp.toml"
    path.write_text(text[:start] + f'[claim.guarantee]\nkind = "zcdp"\nrho = {rho}\ndelta = {delta}' + text[end:])
    return path


def test_a_zcdp_spec_loads_and_a_bad_rho_is_refused(tmp_path):
    assert load_spec(_zcdp_spec(tmp_path, 0.5)).guarantee == ZeroConcentratedDP(0.5, 1e-5)
    with pytest.raises(SpecError, match="rho"):
        load_spec(_zcdp_spec(tmp_path, -1.0))


def _gaussian(sigma_factor):
    import numpy as np

    def candidate(value, *, sigma, sensitivity, rng):
        value = np.asarray(value, dtype=float)
        return value + rng.normal(0.0, sigma * sigma_factor, value.shape)

    def sample(value, n, *, sigma, sensitivity, rng):
        value = np.asarray(value, dtype=float)
        return value + rng.normal(0.0, sigma * sigma_factor, (n, *value.shape))

    candidate.sample = sample  # drawn in batches: these tests are about the claim, not the per-call path
    return candidate


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_too_little_noise_for_a_zcdp_claim_is_violated_and_the_right_noise_is_not(tmp_path):
    spec = _zcdp_spec(tmp_path, 0.5)  # sigma = 1, sensitivity 1: exactly 1/2-zCDP
    right = dpaudit.check(_gaussian(1.0), spec, quick=True, seed=3)
    assert right.claims[0].verdict.value in ("verified", "consistent", "inconclusive")  # an error is no pass
    halved = dpaudit.check(_gaussian(0.5), spec, quick=True, seed=3)
    assert halved.claims[0].verdict.value == "violated"


def test_a_rho_whose_epsilon_is_past_the_stated_range_is_refused_not_clipped():
    from dpaudit.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="past the 700"):
        ZeroConcentratedDP(600.0, 1e-5)


def test_a_zcdp_claim_over_a_grid_of_delta_runs_each_obligation_once_per_delta(tmp_path):
    claim = load_spec(_zcdp_spec(tmp_path, 0.5, "[1e-5, 1e-8]"))
    assert claim.guarantee == ZeroConcentratedDP(0.5, 1e-5, (1e-5, 1e-8))
    assert claim.guarantee.to_json()["deltas"] == [1e-5, 1e-8]
    stated = load_spec(SPEC).obligations
    assert [o.id for o in claim.obligations] == [f"{o.id}@delta={d!r}" for o in stated for d in (1e-5, 1e-8)]
    for obligation in claim.obligations:
        audited = claim.for_obligation(obligation).guarantee
        assert audited == ZeroConcentratedDP(0.5, obligation.at_delta)
        assert obligation.to_json()["at_delta"] == obligation.at_delta
    assert load_spec(_zcdp_spec(tmp_path, 0.5)).guarantee.to_json() == {"kind": "zcdp", "rho": 0.5, "delta": 1e-5}


@pytest.mark.parametrize(
    ("grid", "reason"),
    [("[]", "non-empty list"), ("[1e-5, 1e-5]", "each delta once"), ("[1e-5, 1.5]", r"deltas\[1\]=1.5")],
)
def test_a_bad_grid_of_delta_is_refused_naming_the_key(tmp_path, grid, reason):
    with pytest.raises(SpecError, match=reason) as refused:
        load_spec(_zcdp_spec(tmp_path, 0.5, grid))
    assert "claim.guarantee.delta" in str(refused.value)


def _exact_zcdp_grid_spec(tmp_path, rho, deltas):
    """The reference Gaussian (sigma = 1, sensitivity 1: exactly 1/2-zCDP) claimed rho-zCDP over a grid of delta,
    audited by its exact privacy profile alone."""
    text = (Path(__file__).resolve().parents[2] / "specs" / "gaussian_mechanism.toml").read_text(encoding="utf-8")
    text = text.replace(
        'kind = "approx_dp"\nepsilon = 4.38\ndelta = 1e-5', f'kind = "zcdp"\nrho = {rho}\ndelta = {deltas}'
    )
    text = text[: text.index("[[obligations]]", text.index("exact-profile"))]
    path = tmp_path / "zcdp_grid.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("rho", "verdict"), [(0.3, "violated"), (0.5, "consistent")])
def test_each_delta_of_the_grid_is_audited_against_its_own_epsilon(tmp_path, rho, verdict):
    from dpaudit.audit.runner import run_audit

    path = _exact_zcdp_grid_spec(tmp_path, rho, "[1e-5, 1e-3]")
    report = run_audit([(load_spec(path), str(path))], seed=3, quick=True)
    items = {item.obligation.id: item.evidence for item in report.claims[0].relations[0].obligations}
    assert sorted(items) == ["exact-profile@delta=0.001", "exact-profile@delta=1e-05"]
    for delta in (1e-5, 1e-3):
        evidence = items[f"exact-profile@delta={delta!r}"]
        assert evidence.verdict.value == verdict, evidence.summary
        implied = ZeroConcentratedDP(rho, delta).implied_approx_dp()
        assert f"{implied.epsilon:.6g}" in evidence.summary, evidence.summary


def test_an_rdp_curve_takes_the_same_grid_and_each_point_is_the_curves_conversion():
    from dpaudit.errors import InvalidArgument
    from dpaudit.privacy.guarantees import RenyiDP

    curve = RenyiDP((2.0, 8.0), (0.5, 2.0), 1e-5, (1e-5, 1e-3))
    assert [curve.at_delta(d).implied_approx_dp().delta for d in curve.deltas] == [1e-5, 1e-3]
    assert curve.at_delta(1e-3) == RenyiDP((2.0, 8.0), (0.5, 2.0), 1e-3)
    with pytest.raises(InvalidArgument, match="expected one of deltas"):
        RenyiDP((2.0,), (0.5,), None, (1e-5,))
