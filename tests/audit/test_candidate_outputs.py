"""What a candidate returns, as the worker turns it into numbers: outputs that differ must not reach the
audit as the same numbers (two texts with one code, text and its code, a boolean and its 0/1)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.audit.candidates import outputs
from dpaudit.audit.candidates.outputs import BadOutput, as_real, category_code


@pytest.fixture(autouse=True)
def _a_fresh_worker(monkeypatch):
    monkeypatch.setattr(outputs, "_TEXTS", {})
    monkeypatch.setattr(outputs, "_SORTS", set())


def test_a_text_and_the_number_that_is_its_code_are_refused_in_either_order():
    as_real("heads", 0, {})
    with pytest.raises(BadOutput, match="returned number where its outputs so far were text"):
        as_real(category_code("heads"), 1, {})


def test_two_texts_whose_codes_coincide_are_refused(monkeypatch):
    monkeypatch.setattr(outputs, "category_code", lambda text: 7)
    as_real("heads", 0, {})
    as_real("heads", 1, {})  # the same text again is the same category
    with pytest.raises(BadOutput, match="'heads' and 'tails', whose codes coincide"):
        as_real("tails", 2, {})


def test_a_boolean_where_numbers_were_is_refused_and_integers_with_floats_are_not():
    as_real(1, 0)
    as_real(0.5, 1)  # max(0, x) returns an int or a float: one sort, numbers
    with pytest.raises(BadOutput, match="returned bool where its outputs so far were number"):
        as_real(True, 2)


def test_one_output_mixing_text_and_numbers_is_refused_and_a_list_numpy_makes_text_of_is_text():
    as_real(["stop", 3.0], 0, {})  # numpy makes both text ('3.0'): one sort
    with pytest.raises(BadOutput, match="number and text"):
        as_real(np.array(["stop", 3.0], dtype=object), 1, {})
