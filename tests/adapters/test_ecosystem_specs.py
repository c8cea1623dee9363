"""The ecosystem specs and what every adapter shares; runs without any of the libraries installed."""

from __future__ import annotations

import importlib
import json
import re
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest

from dpaudit.adapters import diffprivlib_mechanisms, opendp_mechanisms, python_dp_mechanisms, relations
from dpaudit.audit.spec import load_spec
from dpaudit.errors import CandidateLoadError

ROOT = Path(__file__).resolve().parents[2]
ECOSYSTEM = ROOT / "specs" / "examples" / "ecosystem"
SPECS = sorted(ECOSYSTEM.glob("*.toml"))
SCHEMA = json.loads((ROOT / "docs" / "spec.schema.json").read_text())
LIBRARIES = {"diffprivlib": "diffprivlib", "opendp": "opendp", "python_dp": "python-dp"}


def test_there_is_a_spec_and_a_misstated_spec_per_library():
    names = {path.stem for path in SPECS}
    for library in LIBRARIES:
        assert any(name.startswith(library) and not name.endswith("_misstated") for name in names), library
        assert any(name.startswith(library) and name.endswith("_misstated") for name in names), library


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_every_ecosystem_spec_loads_validates_and_names_an_adapter(path):
    text = path.read_text()
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(tomllib.loads(text))) == []
    claim = load_spec(path)
    (module, attribute) = re.search(r"--candidate (dpaudit\.adapters\.\w+):(\w+)", text).groups()
    assert callable(getattr(importlib.import_module(module), attribute))  # the library is imported lazily
    library = path.stem.split("_")[0] if not path.stem.startswith("python_dp") else "python_dp"
    assert module == f"dpaudit.adapters.{library}_mechanisms"
    assert f"pip install 'dpaudit[{LIBRARIES[library]}]'" in text
    unseedable = library in {"opendp", "python_dp"}
    assert (claim.candidate_call.randomness == "external") == unseedable


@pytest.mark.parametrize(
    ("function", "arguments", "hidden", "extra"),
    [
        (diffprivlib_mechanisms.laplace, {"epsilon": 1.0, "sensitivity": 1.0}, "diffprivlib.mechanisms", "diffprivlib"),
        (opendp_mechanisms.laplace, {"scale": 1.0}, "opendp.prelude", "opendp"),
        (python_dp_mechanisms.laplace, {"epsilon": 1.0}, "pydp.algorithms.numerical_mechanisms", "python-dp"),
    ],
)
def test_a_missing_library_names_the_extra_to_install(monkeypatch, function, arguments, hidden, extra):
    import numpy as np

    monkeypatch.setitem(sys.modules, hidden, None)  # import of it fails as if it were not installed
    opendp_mechanisms._opendp.cache_clear()
    try:
        with pytest.raises(CandidateLoadError, match=re.escape(f"pip install 'dpaudit[{extra}]'")):
            function([0.0], **arguments, rng=np.random.default_rng(0))
    finally:
        opendp_mechanisms._opendp.cache_clear()


def test_the_distance_functions():
    assert relations.absolute_difference(3, 4.5) == 1.5
    assert relations.largest_coordinate_change([0.0, 2.0], [-1.0, 3.0]) == 1.0
    assert relations.largest_coordinate_change([], []) == 0.0
    assert relations.largest_coordinate_change([0.0], [0.0, 0.0]) > 1
