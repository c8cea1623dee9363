"""An unknown name, of a checker or of a mechanism, is one error type: UnknownName, an InvalidArgument
whose message lists the known names and the closest one; one get_checker loads plugins first."""

from __future__ import annotations

import pytest

import dpaudit.kernel.checkers
from dpaudit.audit.mutants.library import get_mutant
from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec import load_spec
from dpaudit.errors import CheckerError, InvalidArgument, SpecError, UnknownName
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism


def test_an_unknown_checker_is_an_unknown_name_with_the_closest_one():
    with pytest.raises(UnknownName) as info:
        get_checker("gaussian_exact_profil")
    assert isinstance(info.value, InvalidArgument) and not isinstance(info.value, CheckerError)
    assert "unknown checker" in str(info.value)
    assert "did you mean 'gaussian_exact_profile'?" in str(info.value)
    assert info.value.kind == "checker" and info.value.name == "gaussian_exact_profil"


def test_an_unknown_mechanism_is_the_same_error():
    with pytest.raises(UnknownName, match=r"unknown mechanism; did you mean 'laplace'\?; known mechanisms: .*gaussian"):
        get_mechanism("laplase")
    with pytest.raises(UnknownName):
        build_mechanism("laplase", {})


def test_an_unknown_mutant_is_the_same_error():
    with pytest.raises(UnknownName, match=r"mutant='gaussian_sigma_as_variance_typo': unknown mutant"):
        get_mutant("gaussian_sigma_as_variance_typo")


def test_no_hint_when_nothing_is_close():
    with pytest.raises(UnknownName) as info:
        get_mechanism("zzzzzzzz")
    assert "did you mean" not in str(info.value)
    assert "known mechanisms: " in str(info.value)


def test_the_kernel_offers_no_second_get_checker():
    assert not hasattr(dpaudit.kernel.checkers, "get_checker")
    assert not hasattr(dpaudit.kernel.checkers, "list_checkers")


def test_a_spec_with_a_misspelt_checker_says_which_it_meant(write_gaussian_spec):
    path = write_gaussian_spec()
    path.write_text(path.read_text().replace('checker = "gaussian_exact_profile"', 'checker = "gaussian_exact_profle"'))
    with pytest.raises(SpecError, match="did you mean 'gaussian_exact_profile'"):
        load_spec(path)
