"""Tests of the HIV treatment simulator (Adams et al. 2004; Ernst et al. 2006)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.rl.domains.hiv import HIV_START, HIVParameters, HIVTreatment


def test_start_is_the_unhealthy_equilibrium() -> None:
    """Issue 3 acceptance: without treatment every |dx/dt| / x < 1e-2 at the published start."""
    env = HIVTreatment()
    start = np.array(HIV_START)
    relative = np.abs(env.derivatives(start, 0)) / start
    assert (relative < 1e-2).all(), relative


def test_untreated_step_stays_near_equilibrium_and_treatment_lowers_virus() -> None:
    env = HIVTreatment()
    start = env.reset()
    untreated, _, _ = env.step(start, 0)
    assert np.all(np.abs(np.log10(untreated / start)) < 0.05)
    treated, _, done = env.step(start, 3)
    assert treated[4] < start[4] / 5 and not done


def test_solvers_agree() -> None:
    start = np.array(HIV_START)
    lsoda, _, _ = HIVTreatment(rtol=1e-9, atol=1e-9).step(start, 3)
    radau, _, _ = HIVTreatment(method="Radau", rtol=1e-9, atol=1e-9).step(start, 3)
    assert np.allclose(lsoda, radau, rtol=1e-5)


def test_reward_and_observation() -> None:
    env = HIVTreatment()
    state = np.array(HIV_START)
    assert env.reward(state, 3) == pytest.approx(-0.1 * 63919 - 2e4 * 0.49 - 2e3 * 0.09 + 1e3 * 24)
    assert np.allclose(env.observe(state), np.log10(HIV_START))
    assert env.reset(rng=1).tolist() == list(HIV_START)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"step_days": 0.0}, "step_days"),
        ({"method": "RK45"}, "method"),
        ({"rtol": -1.0}, "rtol"),
        ({"start": (1, 1, 1, 1, 1, 0)}, r"start\[5\]"),
        ({"start": (1, 1, 1, 1, 1, math.nan)}, r"start\[5\]=nan"),
    ],
)
def test_invalid_configuration(kwargs: dict, pattern: str) -> None:
    with pytest.raises(InvalidArgument, match=pattern):
        HIVTreatment(**kwargs)


@pytest.mark.parametrize("value", [math.inf, math.nan, -1e-300])
def test_invalid_parameters(value: float) -> None:
    with pytest.raises(InvalidArgument, match="c="):
        HIVParameters(c=value)


@pytest.mark.parametrize("action", [-1, 4, True])
def test_invalid_actions(action) -> None:
    with pytest.raises(InvalidArgument):
        HIVTreatment().step(np.array(HIV_START), action)
