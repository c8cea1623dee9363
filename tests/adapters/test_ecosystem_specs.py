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

from dpaudit.adapters import (
    diffprivlib_mechanisms,
    dp_accounting,
    opacus,
    opendp_mechanisms,
    prv_accountant,
    python_dp_mechanisms,
    relations,
)
from dpaudit.audit.spec import load_spec
from dpaudit.errors import CandidateLoadError

ROOT = Path(__file__).resolve().parents[2]
ECOSYSTEM = ROOT / "specs" / "examples" / "ecosystem"
SPECS = sorted(ECOSYSTEM.glob("*.toml"))
SCHEMA = json.loads((ROOT / "docs" / "spec.schema.json").read_text())
POINT = {"records": 10, "noise_multiplier": 1.0, "steps": 10, "delta": 1e-5}
#: a spec name's library prefix -> (its adapter module, the install line its spec gives)
LIBRARIES = {
    "diffprivlib": ("diffprivlib_mechanisms", "pip install 'dpaudit[diffprivlib]'"),
    "opendp": ("opendp_mechanisms", "pip install 'dpaudit[opendp]'"),
    "python_dp": ("python_dp_mechanisms", "pip install 'dpaudit[python-dp]'"),
    "dp_accounting": ("dp_accounting", "pip install 'dpaudit[dp-accounting]'"),
    "prv_accountant": ("prv_accountant", "pip install 'dpaudit[prv-accountant]'"),
    "opacus": ("opacus", "pip install --no-deps 'opacus>=1.5' (torch not needed)"),
}


def _library(stem: str) -> str:
    return next(prefix for prefix in LIBRARIES if stem.startswith(prefix + "_"))


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
    library = _library(path.stem)
    assert module == f"dpaudit.adapters.{LIBRARIES[library][0]}"
    assert LIBRARIES[library][1] in text
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


@pytest.mark.parametrize(
    ("function", "arguments", "hidden", "extra"),
    [
        (dp_accounting.rdp, {}, "dp_accounting", "dp-accounting"),
        (dp_accounting.pld, {}, "dp_accounting", "dp-accounting"),
        (prv_accountant.prv, {"eps_error": 0.1, "delta_error": 1e-10}, "prv_accountant", "prv-accountant"),
    ],
)
def test_a_missing_accountant_library_names_the_extra_to_install(monkeypatch, function, arguments, hidden, extra):
    import numpy as np

    monkeypatch.setitem(sys.modules, hidden, None)
    with pytest.raises(CandidateLoadError, match=re.escape(f"pip install 'dpaudit[{extra}]'")):
        function(POINT, **arguments, rng=np.random.default_rng(0))


def test_without_opacus_its_adapter_says_how_to_install_it_without_torch(monkeypatch):
    import importlib.util

    import numpy as np

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None if name == "opacus" else real(name))
    monkeypatch.delitem(sys.modules, "_dpaudit_opacus_accountants", raising=False)
    with pytest.raises(CandidateLoadError, match=re.escape("pip install --no-deps 'opacus>=1.5' (no torch needed)")):
        opacus.gdp(POINT, rng=np.random.default_rng(0))
    assert "opacus.optimizers" not in sys.modules


def test_the_distance_functions():
    assert relations.absolute_difference(3, 4.5) == 1.5
    assert relations.largest_coordinate_change([0.0, 2.0], [-1.0, 3.0]) == 1.0
    assert relations.largest_coordinate_change([], []) == 0.0
    assert relations.largest_coordinate_change([0.0], [0.0, 0.0]) > 1


@pytest.mark.parametrize(
    ("function", "arguments", "library", "extra", "old"),
    [
        (opendp_mechanisms.laplace, {"scale": 1.0}, "opendp", "opendp", "0.9.2"),
        (diffprivlib_mechanisms.laplace, {"epsilon": 1.0, "sensitivity": 1.0}, "diffprivlib", "diffprivlib", "0.6.3"),
    ],
)
def test_a_library_older_than_its_extra_is_refused_naming_the_version(
    monkeypatch, function, arguments, library, extra, old
):
    """OpenDP 0.9.2 (below the extra's 0.16) made every float adapter an ``error`` of a bare TypeError
    (``atom_domain() got an unexpected keyword argument 'nan'``), with no word of the version needed."""
    import importlib.metadata
    import importlib.util

    import numpy as np

    from dpaudit.adapters import _library

    if importlib.util.find_spec(library) is None:  # the floors' environment has no DP library
        pytest.skip(f"{library} is not installed")
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: old if name == library else real(name))
    _library._check_version.cache_clear()
    opendp_mechanisms._opendp.cache_clear()
    try:
        with pytest.raises(CandidateLoadError, match=re.escape(f"{library} {old} is installed")) as refused:
            function([0.0], **arguments, rng=np.random.default_rng(0))
        assert f"pip install 'dpaudit[{extra}]'" in str(refused.value) and ">=" in str(refused.value)
    finally:
        _library._check_version.cache_clear()
        opendp_mechanisms._opendp.cache_clear()
