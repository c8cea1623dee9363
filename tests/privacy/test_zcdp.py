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


def _zcdp_spec(tmp_path, rho):
    text = SPEC.read_text(encoding="utf-8")
    start = text.index("[claim.guarantee]")
    end = text.index("\n\n", start)
    path = tmp_path / "zcdp.toml"
    path.write_text(text[:start] + f'[claim.guarantee]\nkind = "zcdp"\nrho = {rho}\ndelta = 1e-5' + text[end:])
    return path


def test_a_zcdp_spec_loads_and_a_bad_rho_is_refused(tmp_path):
    assert load_spec(_zcdp_spec(tmp_path, 0.5)).guarantee == ZeroConcentratedDP(0.5, 1e-5)
    with pytest.raises(SpecError, match="rho"):
        load_spec(_zcdp_spec(tmp_path, -1.0))


def _gaussian(sigma_factor):
    def candidate(value, *, sigma, sensitivity, rng):
        import numpy as np

        value = np.asarray(value, dtype=float)
        return value + rng.normal(0.0, sigma * sigma_factor, value.shape)

    return candidate


def test_too_little_noise_for_a_zcdp_claim_is_violated_and_the_right_noise_is_not(tmp_path):
    spec = _zcdp_spec(tmp_path, 0.5)  # sigma = 1, sensitivity 1: exactly 1/2-zCDP
    right = dpaudit.check(_gaussian(1.0), spec, quick=True, seed=3)
    assert right.claims[0].verdict.value != "violated"
    halved = dpaudit.check(_gaussian(0.5), spec, quick=True, seed=3)
    assert halved.claims[0].verdict.value == "violated"


def test_a_rho_whose_epsilon_is_past_the_stated_range_is_refused_not_clipped():
    from dpaudit.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="past the 700"):
        ZeroConcentratedDP(600.0, 1e-5)
