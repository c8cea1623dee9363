"""A callable sent to its worker by value (dpaudit.check on a function, not a "module:callable" name):
what it wraps travels with it, the standard library stays a name, and what cannot travel is a load error."""

from __future__ import annotations

import functools
import importlib
import threading

import numpy as np
import pytest

from dpaudit.audit.candidates.process import CandidateProcess
from dpaudit.audit.candidates.refs import candidate_by_value
from dpaudit.errors import CandidateLoadError
from dpaudit.mechanisms.interface import CandidateCall

PARAMS = {"sigma": 1.0}
CALL = CandidateCall().to_json(list(PARAMS))


def _users_module(tmp_path, monkeypatch):
    """A module of the user's (importable here, not installed) that is gone by the time the worker starts."""
    (tmp_path / "users_noise.py").write_text(
        "import numpy as np\n"
        "def shifted(value, shift, *, sigma, rng):\n"
        "    return np.asarray(value, dtype=float) + shift + sigma * rng.standard_normal(len(value))\n"
        "class Mechanism:\n"
        "    def __init__(self, shift):\n        self.shift = shift\n"
        "    def release(self, value, *, sigma, rng):\n"
        "        return shifted(value, self.shift, sigma=sigma, rng=rng)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("users_noise")
    (tmp_path / "users_noise.py").unlink()
    monkeypatch.delitem(__import__("sys").modules, "users_noise")
    return module


@pytest.mark.parametrize("wrap", ["partial", "partial_of_partial", "bound_method"])
def test_a_partial_or_a_bound_method_of_the_users_code_travels_with_that_code(wrap, tmp_path, monkeypatch):
    module = _users_module(tmp_path, monkeypatch)
    function = {
        "partial": lambda: functools.partial(module.shifted, shift=100.0),
        "partial_of_partial": lambda: functools.partial(functools.partial(module.shifted, shift=100.0)),
        "bound_method": lambda: module.Mechanism(100.0).release,
    }[wrap]()
    ref = candidate_by_value(function, str(tmp_path))
    with CandidateProcess(ref) as candidate:
        outputs = candidate.sample([0.0, 1.0], PARAMS, CALL, 200, np.random.SeedSequence(3))
    np.testing.assert_allclose(outputs.mean(axis=0), [100.0, 101.0], atol=0.5)


def test_a_partial_of_the_standard_library_is_sent_by_name(tmp_path):
    ref = candidate_by_value(functools.partial(max, 0.0), str(tmp_path))  # functools is not pickled by value
    assert ref.pickled is not None


def test_a_callable_that_cannot_be_pickled_is_a_load_error(tmp_path):
    lock = threading.Lock()

    def holds_a_lock(value, *, sigma, rng):
        with lock:
            return value

    with pytest.raises(CandidateLoadError, match="cannot be sent to its worker by value"):
        candidate_by_value(holds_a_lock, str(tmp_path))
