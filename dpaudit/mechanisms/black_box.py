"""The ``black_box`` kind: any mechanism, audited from its outputs alone.

dpaudit holds no reference for it. The input is any JSON value (a number, a list of records,
a table), an array, or an ``.npz`` record; the neighbouring pairs are the spec's, and those
the user's own functions make (a dataset generator and a neighbour function, run in the
candidate's worker; see :class:`~dpaudit.mechanisms.interface.CandidateInputs`). Under
``replace_one`` and ``add_remove_one`` the input is a list of records and dpaudit checks that
two inputs differ in one record (as multisets); under ``user(name)`` the relation is the
user's, and the user's distance function (when the spec names one) checks every pair. The
release is whatever the function returns: a real array, an integer, a category (a string),
or an array of them.

References:
    Dwork & Roth 2014, Def. 2.4 (neighbouring datasets, (ε, δ)-DP of any randomised algorithm);
    Ding et al. 2018 and Bichsel et al. 2021 (black-box testing of any mechanism).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import check_json_data
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.inputs import explore_records, multiset_steps
from dpaudit.mechanisms.interface import CandidateSignature, InputDomain, Mechanism, Neighbourhood, OutputSpec
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, USER, Relation

__all__ = ["JSON_VALUE", "MECHANISM", "NoReference", "no_reference"]

#: The most characters of JSON an input may have (its nesting: at most MAX_JSON_DEPTH levels, see _validation).
MAX_INPUT_CHARACTERS = 16 << 20


def _checked_json(value: Any) -> Any:
    plain = check_json_data(value)
    if len(json.dumps(plain)) > MAX_INPUT_CHARACTERS:
        raise InvalidArgument(f"input: more than {MAX_INPUT_CHARACTERS} characters of JSON")
    return plain


JSON_VALUE = InputDomain(
    "json_value",
    "any JSON value (a number, a list of records, a table), an array, or an .npz record",
    _checked_json,
    _checked_json,
)


def _record_key(record: Any) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def _record_steps(first: Any, second: Any, relation: Relation) -> float:
    """How many records one step of ``relation`` changes between two lists of records (inf when the
    inputs are not lists or differ by more than one step); records compare by their JSON text."""
    if not isinstance(first, list) or not isinstance(second, list):
        return float("inf")
    return multiset_steps([_record_key(r) for r in first], [_record_key(r) for r in second], relation)


def _distance(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
    if relation.kind == USER:
        return 0.0  # the user's relation: checked by the user's distance function during the audit
    return _record_steps(first, second, relation)


def _explore(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    return [] if relation.kind == USER else explore_records(pairs, params, relation)


@dataclass(frozen=True)
class NoReference:
    """The public parameters of a kind dpaudit holds no reference for: it audits candidates only.

    Attributes:
        kind: the mechanism kind.
        params: the public parameters the spec gives (kept for reports).
    """

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Refuse: there is nothing to release without a candidate."""
        raise no_reference(self.kind)


def no_reference(kind: str) -> InvalidArgument:
    """The error of a kind without a reference asked to release (only a candidate releases)."""
    return InvalidArgument(
        f"mechanism {kind!r} has no reference implementation: audit your implementation with "
        "dpaudit check SPEC --candidate MODULE:CALLABLE"
    )


def _black_box(**params: Any) -> NoReference:
    return NoReference("black_box", check_json_data(params, "params"))


MECHANISM = Mechanism(
    name="black_box",
    description="any mechanism from its outputs alone: your inputs and neighbours, any output (numbers or categories)",
    factory=_black_box,
    input_domain=JSON_VALUE,
    relations=(REPLACE_ONE, ADD_REMOVE_ONE, USER),
    neighbourhood=Neighbourhood(
        "replace_one / add_remove_one: lists of records that differ in one record; user(name): your distance "
        "function says (<= 1)",
        _distance,
        lambda params, relation: 1.0,
        explore=_explore,
    ),
    output=OutputSpec("whatever your function returns: numbers, an array, or a category (a string)"),
    candidate=CandidateSignature("dataset", "black_box(dataset, *, <your [candidate] params>, rng) -> output"),
    source="Dwork & Roth 2014, Def. 2.4",
    has_reference=False,
    categorical_outputs=True,
)
