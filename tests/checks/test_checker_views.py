"""Checkers state the white-box views they read (``requires_views``, view Protocols) instead of a
mechanism's name: a mechanism that offers the views is accepted, one that does not is refused, by the
validator, the spec loader and ``context.view`` alike, naming the view."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec import load_spec
from dpaudit.errors import InvalidArgument, SpecError
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.mechanisms.laplace import LaplaceMechanism
from dpaudit.mechanisms.views import ConcentrationView, GaussianShiftView, PrivacyProfileView
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
    assert entry.requires_views == {GaussianShiftView}
    entry.validate({}, _claim(GAUSSIAN))
    with pytest.raises(InvalidArgument, match=r"does not offer the white-box views \['GaussianShiftView'\]"):
        entry.validate({}, _claim(LAPLACE))


def test_the_gaussian_shift_view_is_the_stated_sensitivity_and_sigma():
    assert build_mechanism("gaussian", {"sigma": 2.5, "sensitivity": 0.5}).gaussian_shift() == (0.5, 2.5)


@pytest.mark.parametrize("checker", ["dirichlet_exact_profile", "dirichlet_composition_profile"])
def test_the_dirichlet_checks_read_the_concentration_view(checker):
    entry = get_checker(checker)
    assert entry.requires_views == {ConcentrationView}
    params = {"rows": 2, "reading": "one_row"} if checker == "dirichlet_composition_profile" else {}
    entry.validate(params, _claim(DIRICHLET, simplex_adjacent(0.1)))
    with pytest.raises(InvalidArgument, match=r"does not offer the white-box views \['ConcentrationView'\]"):
        entry.validate(params, _claim(GAUSSIAN, simplex_adjacent(0.1)))


def test_a_spec_pairing_a_checker_with_a_mechanism_without_its_view_is_refused(write_gaussian_spec):
    path = write_gaussian_spec()
    text = path.read_text()
    path.write_text(text.replace('checker = "gaussian_exact_profile"', 'checker = "dirichlet_exact_profile"'))
    with pytest.raises(SpecError, match=r"needs the white-box views \['ConcentrationView'\]"):
        load_spec(path)


def _context(mechanism: MechanismSpec, factory=None) -> CheckContext:
    claim = _claim(mechanism)
    seed = np.random.SeedSequence(0)
    return CheckContext(claim, claim.relations[0], np.random.default_rng(seed), seed, mechanism_factory=factory)


def test_context_view_is_the_mechanism_under_audit_typed_as_the_view():
    view = _context(LAPLACE).view(PrivacyProfileView)
    assert isinstance(view, LaplaceMechanism)
    assert view.privacy_profile(2.0) == 0


def test_context_view_refuses_a_mechanism_without_the_view_naming_it():
    missing = r"'gaussian' does not offer the white-box views \['PrivacyProfileView'\]"
    with pytest.raises(InvalidArgument, match=missing):
        _context(GAUSSIAN).view(PrivacyProfileView)


@dataclass(frozen=True)
class _LaplaceWithoutProfile:
    """A mutant of the Laplace reference that lost the view its mechanism declares."""

    scale: float
    sensitivity: float


def test_context_view_refuses_a_mutant_without_a_declared_view_naming_it():
    context = _context(LAPLACE, factory=_LaplaceWithoutProfile)
    missing = r"\(_LaplaceWithoutProfile\) does not implement the white-box views \['PrivacyProfileView'\]"
    with pytest.raises(InvalidArgument, match=missing):
        context.view(PrivacyProfileView)


def test_a_checker_run_on_a_mechanism_without_its_view_is_refused_naming_it():
    entry = get_checker("exact_privacy_profile")
    context = _context(GAUSSIAN)
    with pytest.raises(InvalidArgument, match=r"\['PrivacyProfileView'\]"):
        entry.function(context.claim.obligations[0], context)
