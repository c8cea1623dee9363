"""CI pins every runtime dependency to its declared floor (.ci/floors.py) and runs the tests there."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _floors_module():
    spec = importlib.util.spec_from_file_location("ci_floors", ROOT / ".ci" / "floors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_runtime_dependency_is_pinned_to_its_floor():
    pins = _floors_module().floors(ROOT / "pyproject.toml")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert len(pins) == len(declared)
    assert "numpy==1.26" in pins and all("==" in pin for pin in pins)


def test_a_dependency_without_a_floor_is_refused(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["numpy>=1.26", "scipy"]\n')
    with pytest.raises(SystemExit, match="'scipy'"):
        _floors_module().floors(tmp_path / "pyproject.toml")
