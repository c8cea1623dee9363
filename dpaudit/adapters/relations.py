"""Distance functions for the ``user(...)`` relations of the adapters' black-box specs.

A ``black_box`` spec names one as ``[candidate] distance = "dpaudit.adapters.relations:<name>"``;
dpaudit calls it in the candidate's worker on every pair (the spec's and the generated ones, in
both orders) and accepts the pair as neighbouring when the distance is at most 1. Each function
takes plain JSON values, as the candidate receives them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["absolute_difference", "largest_coordinate_change"]


def absolute_difference(first: float, second: float) -> float:
    """|first - second|: two values of a query of sensitivity 1 are neighbours when it is <= 1."""
    return abs(float(first) - float(second))


def largest_coordinate_change(first: list[Any], second: list[Any]) -> float:
    """max_i |first_i - second_i|: two utility or score vectors are neighbours under a utility of sensitivity 1
    when no score moves by more than 1 (the exponential mechanism's and report-noisy-max's relation). Lists
    of different lengths (other candidates) are never neighbours: 1 + the difference of their lengths."""
    if len(first) != len(second):
        return 1.0 + abs(len(first) - len(second))
    return max((abs(float(a) - float(b)) for a, b in zip(first, second, strict=True)), default=0.0)
