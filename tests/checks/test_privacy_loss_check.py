"""The privacy-loss histogram checker: violated on planted wrong deltas, consistent on true claims."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpaudit.audit.execution import run_claim
from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec import load_spec
from dpaudit.checks.empirical.loss_histogram import GaussianLogDensityRatio
from dpaudit.checks.empirical.privacy_loss_check import (
    FIGURE_BINS,
    IsotropicGaussianLogDensityRatio,
    log_density_ratio,
)
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.errors import CheckerError, InvalidArgument, InvalidType
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.policy_evaluation.private import DPLSW
from dpaudit.privacy.guarantees import ApproxDP, RenyiDP
from dpaudit.report.figure_checks import check_figure

SPECS = Path(__file__).resolve().parents[2] / "specs"


def _histogram_claim(guarantee=None, **params):
    claim = load_spec(SPECS / "gaussian_mechanism.toml")
    (obligation,) = [o for o in claim.obligations if o.checker == "privacy_loss_histogram"]
    obligation = replace(obligation, params={**obligation.params, **params})
    claim = replace(claim, obligations=(obligation,), relations=claim.relations[:1])
    return claim if guarantee is None else replace(claim, guarantee=guarantee)


def _evidence(claim, *, quick=True, seed=0, factory=None):
    result = run_claim(claim, seed=seed, quick=quick, mechanism_factory=factory)
    return result.relations[0].obligations[0].evidence


def test_spec_claim_is_consistent_with_a_figure():
    evidence = _evidence(_histogram_claim())
    assert evidence.verdict is Verdict.CONSISTENT
    (figure,) = evidence.details["figures"]
    check_figure(figure)
    series = figure["series"][0]
    assert figure["kind"] == "histogram"
    assert len(series["y"]) <= FIGURE_BINS
    assert len(series["x"]) == len(series["y"]) + 1
    assert sum(series["y"]) == 200_000
    assert np.all(np.diff(series["x"]) > 0)


# sigma = 1, Delta = 1: the exact delta(1) is 0.1269 (Balle & Wang 2018, Theorem 8).
@pytest.mark.parametrize(
    ("planted", "verdict"), [(0.01, Verdict.VIOLATED), (0.12, Verdict.VIOLATED), (0.13, Verdict.CONSISTENT)]
)
def test_planted_wrong_delta_is_violated_and_the_true_one_is_not(planted, verdict):
    evidence = _evidence(_histogram_claim(ApproxDP(1.0, planted)))
    assert evidence.verdict is verdict
    assert 0.12 < evidence.measurements[1].measured < 0.133
    if verdict is Verdict.VIOLATED:
        assert evidence.counterexample["delta_lower_bound"] > planted


def test_tiny_planted_delta_is_caught_with_the_full_budget():
    # exact delta(4.38) = 9.9e-6; a claim of 1e-7 is wrong by two orders of magnitude.
    evidence = _evidence(_histogram_claim(ApproxDP(4.38, 1e-7), samples=4_000_000), quick=False)
    assert evidence.verdict is Verdict.VIOLATED
    assert 1e-7 < evidence.measurements[0].measured < 9.9e-6


def test_true_claim_never_violated_in_twenty_runs():
    claim = _histogram_claim(ApproxDP(1.0, 0.127), samples=20_000, pilot_samples=1_000)
    verdicts = {_evidence(claim, quick=False, seed=seed).verdict for seed in range(20)}
    assert verdicts == {Verdict.CONSISTENT}


def test_same_seed_same_bound():
    claim = _histogram_claim()
    assert _evidence(claim, seed=5).measurements == _evidence(claim, seed=5).measurements


def test_unequal_variances_match_scipy_log_densities():
    rng = np.random.default_rng(0)
    ratio = IsotropicGaussianLogDensityRatio((0.0, 1.0, -2.0), (0.5, 0.0, -1.0), 1.3, 0.7)
    outputs = rng.standard_normal((50, 3))
    expected = stats.multivariate_normal([0.0, 1.0, -2.0], 1.3**2).logpdf(outputs) - stats.multivariate_normal(
        [0.5, 0.0, -1.0], 0.7**2
    ).logpdf(outputs)
    np.testing.assert_allclose(ratio.scores(outputs), expected, rtol=1e-12, atol=1e-12)


def test_equal_variances_use_the_gaussian_ratio():
    mechanism = GaussianMechanism(2.0, 1.0)
    pair = NeighbourPair(np.zeros(2), np.ones(2))
    assert isinstance(log_density_ratio(mechanism, pair), GaussianLogDensityRatio)


CHAIN = {"n_states": 5, "features": "tabular", "gamma": 0.99, "r_max": 1.0, "epsilon": 1.0, "delta": 0.1, "f_max": 1.0}


@dataclass(frozen=True)
class HalvedSigmaDPLSW(DPLSW):
    """DP-LSW releasing with σ_X / 2 (its white-box view says so too)."""

    def gaussian_view(self, data):
        theta, sigma = super().gaussian_view(data)
        return theta, sigma / 2


@pytest.mark.parametrize(("factory", "verdict"), [(None, Verdict.CONSISTENT), (HalvedSigmaDPLSW, Verdict.VIOLATED)])
def test_dp_lsw_with_unequal_variances(factory, verdict):
    claim = load_spec(SPECS / "balle2016_dp_lsw_empirical.toml")
    obligation = replace(
        claim.obligations[0],
        checker="privacy_loss_histogram",
        params={"samples": 20_000, "pilot_samples": 1_000},
        quick_params={},
    )
    params = {**claim.mechanism.params, "constant_set": "tight"}
    claim = replace(claim, mechanism=replace(claim.mechanism, params=params), obligations=(obligation,))
    assert isinstance(
        log_density_ratio(DPLSW(**params), NeighbourPair(*DPLSW(**params).audit_pairs(claim.relations[0])[0])),
        IsotropicGaussianLogDensityRatio,
    )
    assert _evidence(claim, factory=factory).verdict is verdict


@dataclass(frozen=True)
class _NoView:
    def release(self, data, *, rng, size=None):
        return np.asarray(data) + np.random.default_rng(rng).standard_normal((size or 1, 1))

    def audit_pairs(self, relation):
        return [(np.zeros(1), np.ones(1), "pair")]


def test_mechanism_without_a_density_is_an_error():
    evidence = _evidence(_histogram_claim(), factory=lambda **_: _NoView())
    assert evidence.verdict is Verdict.ERROR
    assert "gaussian_view" in evidence.summary
    with pytest.raises(CheckerError, match="gaussian_view"):
        log_density_ratio(_NoView(), NeighbourPair(np.zeros(1), np.ones(1)))


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"colour": 1}, InvalidArgument),
        ({"samples": 0}, InvalidArgument),
        ({"samples": 99}, InvalidArgument),
        ({"samples": 1e6}, InvalidType),
        ({"confidence": 1.0}, InvalidArgument),
        ({"confidence": 1 - 2**-53}, None),
        ({"confidence": float("nan")}, InvalidArgument),
        ({"confidence": -0.0}, InvalidArgument),
        ({"bins": 1}, InvalidArgument),
        ({"pilot_samples": 5}, InvalidArgument),
        ({"pairs": []}, InvalidArgument),
        ({"pairs": [{"first": [0.0], "second": [float("inf")]}]}, InvalidArgument),
        ({"pairs": [{"first": [0.0], "second": [1.0], "label": "p"}]}, None),
    ],
)
def test_params_are_validated(params, error):
    claim = _histogram_claim()
    validate = get_checker("privacy_loss_histogram").validate
    if error is None:
        validate(params, claim)
    else:
        with pytest.raises(error):
            validate(params, claim)


def test_non_approx_dp_claims_are_rejected():
    claim = replace(_histogram_claim(), guarantee=RenyiDP((2.0,), (1.0,)))
    with pytest.raises(InvalidArgument, match=r"a renyi_dp claim without delta: .*give claim\.guarantee\.delta"):
        get_checker("privacy_loss_histogram").validate({}, claim)
