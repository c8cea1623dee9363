"""Shared fixtures."""

from pathlib import Path

import pytest

GAUSSIAN_SPEC = """
schema = 1

[claim]
id = "{claim_id}"
title = "Gaussian mechanism sigma=1, sensitivity=1"
relations = ["replace_one"]

[claim.source]
paper = "Balle & Wang 2018"
location = "Theorem 8"

[claim.mechanism]
name = "gaussian"
params = {{ sigma = {sigma}, sensitivity = 1.0 }}

[claim.guarantee]
kind = "approx_dp"
epsilon = {epsilon}
delta = {delta}

[[obligations]]
id = "exact-profile"
statement = "the exact profile is below the claim"
checker = "gaussian_exact_profile"
{extra}
"""

MONTE_CARLO_OBLIGATION = """
[[obligations]]
id = "monte-carlo"
statement = "no threshold event refutes the claim"
checker = "gaussian_threshold_monte_carlo"
params = { samples = 20000, confidence = 0.95 }
"""


@pytest.fixture
def write_gaussian_spec(tmp_path: Path):
    """Write a Gaussian-mechanism spec with the given claim and return its path."""

    def write(epsilon="4.38", delta="1e-5", sigma="1.0", claim_id="gaussian", extra="", name="spec.toml"):
        path = tmp_path / name
        path.write_text(
            GAUSSIAN_SPEC.format(epsilon=epsilon, delta=delta, sigma=sigma, claim_id=claim_id, extra=extra),
            encoding="utf-8",
        )
        return path

    return write
