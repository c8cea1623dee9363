"""A claim stated as an RDP curve (orders, ε(α)) with a delta is audited at the (ε(δ), δ) point it implies
(Canonne, Kamath & Steinke 2020, Prop. 12): a candidate with too little noise for its curve is violated,
the right one is not; and a check that holds at the implied point never verifies a zCDP or RDP claim,
which one (ε, δ) point does not imply."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dpaudit
from dpaudit.audit.spec import load_spec
from dpaudit.errors import InvalidArgument, SpecError
from dpaudit.privacy.guarantees import RenyiDP, ZeroConcentratedDP
from dpaudit.privacy.profiles import gaussian_epsilon

ROOT = Path(__file__).resolve().parents[2]
ORDERS = [1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0]


def _gaussian_curve(sigma):
    """The Gaussian mechanism's exact RDP, α Δ²/(2σ²) with Δ = 1 (Mironov 2017, Prop. 7)."""
    return [order / (2 * sigma**2) for order in ORDERS]


@pytest.mark.parametrize("sigma", [0.7, 1.0, 4.0])
def test_the_implied_epsilon_of_the_gaussian_curve_bounds_its_exact_epsilon_from_above(sigma):
    implied = RenyiDP(ORDERS, _gaussian_curve(sigma), delta=1e-5).implied_approx_dp()
    exact = float(gaussian_epsilon(1e-5, 1.0, sigma)[1])
    zcdp = ZeroConcentratedDP(1 / (2 * sigma**2), 1e-5).implied_approx_dp().epsilon
    assert exact <= zcdp <= implied.epsilon <= 1.3 * exact  # sound; a finite grid of orders costs a little


def test_a_curve_needs_delta_to_be_audited_and_an_infinite_order_gives_nothing():
    with pytest.raises(InvalidArgument, match="needs delta"):
        RenyiDP(ORDERS, _gaussian_curve(1.0)).implied_approx_dp()
    finite = RenyiDP([2.0], [1.0], delta=1e-5).implied_approx_dp().epsilon
    assert RenyiDP([2.0, 3.0], [1.0, float("inf")], delta=1e-5).implied_approx_dp().epsilon == finite
    with pytest.raises(InvalidArgument, match="past the 700"):
        RenyiDP([2.0], [float("inf")], delta=1e-5)


def _spec(tmp_path, guarantee, *, base="specs/examples/gaussian_candidate.toml"):
    text = (ROOT / base).read_text(encoding="utf-8")
    start = text.index("[claim.guarantee]")
    end = text.index("\n\n", start)
    path = tmp_path / "claim.toml"
    path.write_text(text[:start] + "[claim.guarantee]\n" + guarantee + text[end:], encoding="utf-8")
    return path


def _curve_table(sigma, delta="1e-5"):
    return f'kind = "renyi_dp"\norders = {ORDERS}\nepsilons = {_gaussian_curve(sigma)}\ndelta = {delta}'


def test_a_renyi_spec_loads_and_a_bad_delta_is_refused(tmp_path):
    assert load_spec(_spec(tmp_path, _curve_table(1.0))).guarantee == RenyiDP(ORDERS, _gaussian_curve(1.0), 1e-5)
    with pytest.raises(SpecError, match="delta"):
        load_spec(_spec(tmp_path, _curve_table(1.0, delta="1.5")))


def _gaussian(sigma_factor):
    def candidate(value, *, sigma, sensitivity, rng):
        value = np.asarray(value, dtype=float)
        return value + rng.normal(0.0, sigma * sigma_factor, value.shape)

    def sample(value, n, *, sigma, sensitivity, rng):
        value = np.asarray(value, dtype=float)
        return value + rng.normal(0.0, sigma * sigma_factor, (n, *value.shape))

    candidate.sample = sample  # drawn in batches: these tests are about the claim, not the per-call path
    return candidate


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_too_little_noise_for_an_rdp_curve_is_violated_and_the_right_noise_is_not(tmp_path):
    spec = _spec(tmp_path, _curve_table(1.0))  # sigma = 1, sensitivity 1: exactly this curve
    right = dpaudit.check(_gaussian(1.0), spec, quick=True, seed=3)
    assert right.claims[0].verdict.value in ("verified", "consistent", "inconclusive")  # an error is no pass
    halved = dpaudit.check(_gaussian(0.4), spec, quick=True, seed=3)
    assert halved.claims[0].verdict.value == "violated"


@pytest.mark.parametrize(
    "guarantee",
    [
        'kind = "zcdp"\nrho = 0.5\ndelta = 1e-5',
        'kind = "renyi_dp"\norders = [2.0, 8.0, 32.0]\nepsilons = [1.0, 4.0, 16.0]\ndelta = 1e-5',
    ],
)
def test_an_exact_check_holding_at_the_implied_point_does_not_verify_the_claim(tmp_path, guarantee):
    """Laplace(1) with sensitivity 1 is (1, 0)-DP, so delta(epsilon) = 0 at every implied epsilon >= 1:
    the exact profile holds there, and the claim is consistent, not verified."""
    spec = _spec(tmp_path, guarantee, base="specs/laplace_mechanism.toml")
    text = spec.read_text(encoding="utf-8")
    only_the_exact_profile = (
        '[[obligations]]\nid = "exact-profile"\nstatement = "holds at the implied point"\n'
        'checker = "exact_privacy_profile"\nparams = { digits = 60 }\n'
    )
    spec.write_text(text[: text.index("[[obligations]]")] + only_the_exact_profile, encoding="utf-8")
    (claim,) = dpaudit.audit_specs([spec], quick=True).claims
    (evidence,) = [o.evidence for relation in claim.relations for o in relation.obligations][:1]
    assert evidence.verdict.value == "consistent"
    assert "does not prove" in evidence.summary and evidence.certificate is None
