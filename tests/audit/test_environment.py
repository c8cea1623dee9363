"""audit.json records every package that computes a number; recheck says which differ here."""

from __future__ import annotations

from dpaudit.audit.environment import NUMERIC_PACKAGES, environment_differences, numeric_environment


def test_every_numeric_package_and_the_blas_are_recorded():
    found = numeric_environment()
    assert set(NUMERIC_PACKAGES) <= set(found)
    assert {"python", "platform", "machine", "blas", "dpaudit", "dpaudit_commit"} <= set(found)
    assert found["numpy"] not in ("", "absent")


def test_differences_name_the_package_and_both_versions():
    here = numeric_environment()
    recorded = {**here, "scipy": "0.0.1", "dpaudit_commit": "elsewhere", "unknown-key": "x"}
    assert environment_differences(recorded) == [f"scipy: 0.0.1 -> {here['scipy']}"]
    assert environment_differences(here) == []
