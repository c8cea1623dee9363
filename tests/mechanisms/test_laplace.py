"""The Laplace mechanism (added through the Mechanism interface) and the exact-profile checker."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import integrate

from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import parse_spec
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue import get_mechanism
from dpaudit.mechanisms.laplace import LaplaceMechanism
from dpaudit.privacy.relations import add_remove_one, replace_one

SPEC = Path(__file__).parents[2] / "specs" / "laplace_mechanism.toml"


def _hockey_stick_quadrature(epsilon: float, shift: float) -> float:
    """delta(epsilon) of Lap(0, 1) against Lap(shift, 1) by numerical integration (an independent route)."""

    def excess(x: float) -> float:
        return max(0.0, 0.5 * math.exp(-abs(x)) - math.exp(epsilon) * 0.5 * math.exp(-abs(x - shift)))

    value, _ = integrate.quad(excess, -60.0, 60.0, points=[0.0, shift], limit=400, epsabs=1e-13)
    return value


@pytest.mark.parametrize(("scale", "sensitivity", "epsilon"), [(1.0, 1.0, 0.2), (0.5, 1.0, 1.5), (2.0, 3.0, 0.0)])
def test_exact_profile_matches_quadrature(scale, sensitivity, epsilon):
    profile = float(LaplaceMechanism(scale, sensitivity).privacy_profile(epsilon))
    # scaling x by 1/b maps the pair to Lap(0, 1) vs Lap(sensitivity / b, 1)
    assert profile == pytest.approx(_hockey_stick_quadrature(epsilon, sensitivity / scale), abs=1e-9)


def test_profile_is_zero_from_the_pure_epsilon_on():
    mechanism = LaplaceMechanism(scale=1.0, sensitivity=2.0)
    assert mechanism.privacy_profile(2.0) == 0
    assert mechanism.privacy_profile(3.0) == 0
    assert mechanism.privacy_profile(1.999) > 0


def test_release_has_the_laplace_law():
    draws = LaplaceMechanism(scale=2.0, sensitivity=1.0).release(
        [1.0, -1.0], rng=np.random.default_rng(3), size=200_000
    )
    assert draws.shape == (200_000, 2)
    assert np.mean(draws, axis=0) == pytest.approx([1.0, -1.0], abs=0.03)
    assert np.mean(np.abs(draws - [1.0, -1.0])) == pytest.approx(2.0, rel=0.01)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(InvalidArgument, match="scale"):
        LaplaceMechanism(scale=bad, sensitivity=1.0)


def test_interface_neighbours_and_candidate_kind():
    laplace = get_mechanism("laplace")
    params = {"scale": 1.0, "sensitivity": 1.0}
    assert laplace.check_neighbours([0.0, 0.0], [0.5, -0.5], replace_one(), params) == pytest.approx(1.0)
    with pytest.raises(InvalidArgument, match="not neighbours"):
        laplace.check_neighbours([0.0, 0.0], [1.0, 1.0], add_remove_one(), params)
    assert laplace.candidate is not None and laplace.candidate.first_argument == "value"
    assert laplace.sample(params, [3.0], 5, np.random.default_rng(0)).shape == (5, 1)


def _audit(epsilon: float, delta: float) -> dict[str, str]:
    data = tomllib.loads(SPEC.read_text())
    data["claim"]["guarantee"] = {"kind": "approx_dp", "epsilon": epsilon, "delta": delta}
    data["obligations"] = data["obligations"][:1]
    report = run_audit([(parse_spec(data, str(SPEC)), str(SPEC))], seed=7, quick=True)
    return {relation.relation.name: relation.verdict.value for relation in report.claims[0].relations}


def test_exact_profile_checker_verifies_the_pure_claim():
    assert set(_audit(1.0, 0.0).values()) == {"verified"}


def test_exact_profile_checker_finds_an_understated_delta():
    exact = 1.0 - math.exp((0.9 - 1.0) / 2.0)  # 0.0488 at epsilon = 0.9
    assert set(_audit(0.9, 0.04).values()) == {"violated"}
    assert set(_audit(0.9, exact * (1 + 1e-9)).values()) == {"verified"}
    assert float(mpmath.mpf(LaplaceMechanism(1.0, 1.0).privacy_profile(0.9))) == pytest.approx(exact, rel=1e-14)
