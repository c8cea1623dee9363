"""Symbolic and exhaustive checks of Lemmas 4, 5 and 9 of Balle et al. 2016."""

import itertools
from fractions import Fraction

import pytest

from dpaudit.checks.symbolic.smoothness import (
    check_lemma4_box,
    lemma5_symbolic,
    lemma9_symbolic,
    lsl_phi_k_closed_form,
    lsw_phi_k_closed_form,
    phi_k_by_enumeration,
)
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import Verdict

ONES = [Fraction(1)] * 2


def test_lemma5_is_proven():
    result = lemma5_symbolic()
    assert result.verdict is Verdict.PROVEN
    assert "Lemma 5" in result.location


def test_lemma5_closed_form_matches_the_definition_on_a_box():
    def phi(point):
        return sum((Fraction(1) / max(v, 1) ** 2 for v in point), Fraction(0))

    for v in itertools.product(range(5), repeat=2):
        for k in range(5):
            assert phi_k_by_enumeration(phi, v, k) == lsw_phi_k_closed_form(v, ONES, k)


def test_lemma9_as_printed_is_violated_with_a_counterexample():
    """Finding: with max{., m} (as printed), 'for k >= m - min v_s, phi_k = (c sqrt(m sum rho) + ||rho||)^2' fails."""
    result = lemma9_symbolic("max")
    assert result.verdict is Verdict.VIOLATED
    example = result.counterexample
    assert example["v"] == [1] and example["k"] == 1 and example["m"] == 1
    assert float(example["difference"]) > 1


def test_lemma9_counterexample_is_found_by_search_and_none_exists_under_min():
    from dpaudit.checks.symbolic.smoothness import _lemma9_counterexample

    found, searched = _lemma9_counterexample(max)
    assert found == ((1,), 1, (1,), 1) and searched == 3
    assert "first of 3 configurations" in lemma9_symbolic("max").counterexample["search"]
    assert _lemma9_counterexample(min) == (None, 502)  # the same search finds nothing under eq. (12)'s min


def test_lemma9_with_min_as_in_eq12_is_proven():
    assert lemma9_symbolic("min").verdict is Verdict.PROVEN


@pytest.mark.parametrize("reading", ["max", "min"])
def test_lemma9_closed_form_matches_the_definition_for_both_readings(reading):
    m = 3
    saturate = max if reading == "max" else min

    def inner(point):
        return sum((saturate(v, m) for v in point), Fraction(0))

    for v in itertools.product(range(4), repeat=2):
        for k in range(3):
            assert phi_k_by_enumeration(inner, v, k) == lsl_phi_k_closed_form(v, ONES, m, k, reading)


@pytest.mark.parametrize("bad", ["median", "", None])
def test_lemma9_rejects_unknown_readings(bad):
    with pytest.raises(InvalidArgument):
        lemma9_symbolic(bad)


def test_lemma4_verified_for_psi_w_on_a_box():
    result = check_lemma4_box(
        lambda v, k: lsw_phi_k_closed_form(v, ONES, k), Fraction(1, 32), n_states=2, v_max=5, k_max=6
    )
    assert result.verdict is Verdict.VERIFIED
    assert result.cases == 16**2


def test_lemma4_verified_for_psi_lambda_min_reading():
    result = check_lemma4_box(
        lambda v, k: lsl_phi_k_closed_form(v, ONES, 4, k, "min"), Fraction(1, 8), n_states=2, v_max=4, k_max=8
    )
    assert result.verdict is Verdict.VERIFIED


def test_lemma4_catches_a_planted_non_smooth_bound():
    """A planted φ_k that ignores k (ψ = φ) is not β-smooth: a concrete pair is returned."""
    result = check_lemma4_box(
        lambda v, k: sum((Fraction(1, (a + 1) ** 2) for a in v), Fraction(0)),
        Fraction(1, 32),
        n_states=2,
        v_max=3,
        k_max=4,
    )
    assert result.verdict is Verdict.VIOLATED
    assert result.counterexample["v"] == [0, 0]
    assert float(result.counterexample["ln_ratio"]) > 1 / 32


@pytest.mark.parametrize("kwargs", [{"n_states": 0}, {"n_states": 5}, {"v_max": -1}, {"v_max": 13}])
def test_lemma4_box_rejects_bad_boxes(kwargs):
    arguments = {"n_states": 2, "v_max": 2} | kwargs
    with pytest.raises(InvalidArgument):
        check_lemma4_box(lambda v, k: Fraction(1), Fraction(1, 2), k_max=2, **arguments)
