"""dpaudit.adapters.python_dp_mechanisms: Google's python-dp audited with its own parameters
(specs/examples/ecosystem/python_dp_*.toml). Skipped without the python-dp extra (import name pydp)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.adapters import python_dp_mechanisms as adapters
from tests.adapters.conftest import SWEEP_BUDGET, SWEEP_ESCALATIONS

pytest.importorskip("pydp")


MODULE = "dpaudit.adapters.python_dp_mechanisms"


def test_the_adapters_release_through_python_dp():
    rng = np.random.default_rng(0)
    released = adapters.laplace([0.0, 1000.0], epsilon=1.0, rng=rng)
    assert released.shape == (2,) and abs(released[1] - 1000.0) < 50.0
    assert np.ndim(adapters.gaussian(0.0, epsilon=1.0, delta=1e-5, rng=rng)) == 0
    assert isinstance(adapters.count([1, 2, 3], epsilon=1.0, rng=rng), int)
    total = adapters.bounded_sum([0.5, 0.25], epsilon=1.0, lower_bound=0.0, upper_bound=1.0, rng=rng)
    assert isinstance(total, float)
    assert isinstance(adapters.bounded_mean([0.5], epsilon=1.0, lower_bound=0.0, upper_bound=1.0, rng=rng), float)


@pytest.mark.parametrize("name", adapters.__all__)
def test_every_adapter_has_a_loop_as_its_vectorised_entry(name):
    value, params = {
        "laplace": ([0.0, 1.0], {"epsilon": 1.0}),
        "gaussian": ([0.0, 1.0], {"epsilon": 1.0, "delta": 1e-5}),
        "count": ([1, 2, 3], {"epsilon": 1.0}),
    }.get(name, ([0.5, 0.25], {"epsilon": 1.0, "lower_bound": 0.0, "upper_bound": 1.0}))
    many = getattr(adapters, name).sample(value, 20, rng=np.random.default_rng(0), **params)
    assert len(many) == 20 and len(set(np.asarray(many).ravel().tolist())) > 1


def test_laplace_as_documented_is_not_violated(ecosystem_audit):
    verdict, summaries = ecosystem_audit(f"{MODULE}:laplace", "python_dp_laplace", SWEEP_BUDGET)
    assert verdict in ("verified", "consistent", "inconclusive"), summaries  # an error is no pass


def test_a_claim_below_the_library_epsilon_is_violated(ecosystem_audit):
    verdict, summaries = ecosystem_audit(f"{MODULE}:laplace", "python_dp_laplace_misstated", SWEEP_BUDGET)
    assert verdict == "violated", summaries


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "name"),
    [
        ("gaussian", "python_dp_gaussian"),
        ("bounded_sum", "python_dp_bounded_sum"),
        ("count", "python_dp_count"),
        ("bounded_mean", "python_dp_bounded_mean"),
    ],
)
def test_every_mechanism_as_documented_is_not_violated(ecosystem_audit, function, name):
    verdict, summaries = ecosystem_audit(f"{MODULE}:{function}", name, SWEEP_BUDGET, SWEEP_ESCALATIONS)
    assert verdict in ("verified", "consistent", "inconclusive"), summaries  # an error is no pass
