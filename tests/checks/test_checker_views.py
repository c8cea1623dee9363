"""Checkers state the white-box views they read (``requires_views``) instead of a mechanism's name:
a mechanism that offers the views is accepted, one that does not is refused, by the validator and
by the spec loader alike."""

from __future__ import annotations

import pytest

from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec import load_spec
from dpaudit.errors import InvalidArgument, SpecError
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import replace_one, simplex_adjacent

GAUSSIAN = MechanismSpec("gaussian", {"sigma": 1.0, "sensitivity": 1.0})
LAPLACE = MechanismSpec("laplace", {"scale": 1.0, "sensitivity": 1.0})
DIRICHLET = MechanismSpec("dirichlet", {"k": 10.0})


def _claim(mechanism: MechanismSpec, relation=None) -> Claim:
    relations = (relation or replace_one(),)
    obligation = Obligation("o", "statement", "gaussian_exact_profile", {})
    return Claim("c", "t", mechanism, ApproxDP(1.0, 1e-5), relations, Source("p", "l"), (obligation,))


@pytest.mark.parametrize("checker", ["gaussian_exact_profile", "gaussian_threshold_monte_carlo"])
def test_the_gaussian_checks_read_the_gaussian_shift_view(checker):
    entry = get_checker(checker)
    assert entry.requires_views == {"gaussian_shift"}
    entry.validate({}, _claim(GAUSSIAN))
    with pytest.raises(InvalidArgument, match=r"does not offer the white-box views \['gaussian_shift'\]"):
        entry.validate({}, _claim(LAPLACE))


def test_the_gaussian_shift_view_is_the_stated_sensitivity_and_sigma():
    assert build_mechanism("gaussian", {"sigma": 2.5, "sensitivity": 0.5}).gaussian_shift() == (0.5, 2.5)


@pytest.mark.parametrize("checker", ["dirichlet_exact_profile", "dirichlet_composition_profile"])
def test_the_dirichlet_checks_read_the_concentration_view(checker):
    entry = get_checker(checker)
    assert entry.requires_views == {"concentration"}
    params = {"rows": 2, "reading": "one_row"} if checker == "dirichlet_composition_profile" else {}
    entry.validate(params, _claim(DIRICHLET, simplex_adjacent(0.1)))
    with pytest.raises(InvalidArgument, match=r"does not offer the white-box views \['concentration'\]"):
        entry.validate(params, _claim(GAUSSIAN, simplex_adjacent(0.1)))


def test_a_spec_pairing_a_checker_with_a_mechanism_without_its_view_is_refused(write_gaussian_spec):
    path = write_gaussian_spec()
    text = path.read_text()
    path.write_text(text.replace('checker = "gaussian_exact_profile"', 'checker = "dirichlet_exact_profile"'))
    with pytest.raises(SpecError, match=r"needs the white-box views \['concentration'\]"):
        load_spec(path)
