"""What a candidate returns, as the worker turns it into numbers: outputs that differ must not reach the
audit as the same numbers (two texts with one code, a text and the number that is its code), while text and
numbers that cannot meet may mix (a number, or '⊥' when there is none)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.audit.candidates import outputs
from dpaudit.audit.candidates.outputs import BadOutput, as_real, category_code


@pytest.fixture(autouse=True)
def _a_fresh_worker(monkeypatch):
    monkeypatch.setattr(outputs, "_TEXTS", {})
    monkeypatch.setattr(outputs, "_CODED_NUMBERS", set())


def test_a_text_and_the_number_that_is_its_code_are_refused_in_either_order():
    as_real("heads", 0, {})
    with pytest.raises(BadOutput, match="would reach the audit as the same code"):
        as_real(category_code("heads"), 1, {})


def test_a_number_then_the_text_whose_code_it_is_are_refused():
    as_real(np.array([float(category_code("tails")), 2.0]), 0, {})
    with pytest.raises(BadOutput, match="would reach the audit as the same code"):
        as_real("tails", 1, {})


def test_two_texts_whose_codes_coincide_are_refused(monkeypatch):
    monkeypatch.setattr(outputs, "category_code", lambda text: 7)
    as_real("heads", 0, {})
    as_real("heads", 1, {})  # the same text again is the same category
    with pytest.raises(BadOutput, match="'heads' and 'tails', whose codes coincide"):
        as_real("tails", 2, {})


def test_numbers_booleans_and_text_that_cannot_meet_mix():
    """A callable returning a bool beside a `sample` returning 0/1, and 'a number, or ⊥ when there is none',
    are correct outputs: no sort is refused for its type alone."""
    as_real(True, 0, {})
    as_real(np.int64(1), 1, {})
    as_real(0.5, 2, {})
    as_real(np.array(["⊥", 3.0], dtype=object), 3, {})
    as_real("⊥", 4, {})


def test_a_category_is_named_only_where_its_code_stands_as_a_whole_number():
    from dpaudit.kernel.evidence import named_event

    event = {"event": "y in {12, 123, 1.5, 312}", "categories": {"12": "a", "312": "b\\c"}}
    assert named_event(event) == "y in {'a', 123, 1.5, 'b\\\\c'}"
