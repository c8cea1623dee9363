"""Neighbouring relations: part of the type of every claim.

References:
    Balle et al. 2016, Sec. 2 (datasets of trajectories differing in one trajectory);
    Xie et al. 2019, Sec. 3 (neighbouring datasets); Gohari et al. 2020, Def. 2
    (adjacent transition-probability vectors, b-adjacency).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dpaudit._validation import check_real
from dpaudit.errors import InvalidArgument

__all__ = ["Relation", "add_remove_one", "parse_relation", "replace_one", "simplex_adjacent"]

REPLACE_ONE = "replace_one"
ADD_REMOVE_ONE = "add_remove_one"
SIMPLEX_ADJACENT = "simplex_adjacent"


@dataclass(frozen=True)
class Relation:
    """A neighbouring relation between datasets.

    Attributes:
        kind: ``replace_one`` (swap one trajectory for another), ``add_remove_one``
            (add or remove one trajectory), or ``simplex_adjacent`` (two probability
            vectors that differ in exactly two coordinates, with L1 distance <= ``bound``).
        bound: the L1 radius ``b`` of ``simplex_adjacent``; ``None`` for the others.
    """

    kind: str
    bound: float | None = None

    def __post_init__(self) -> None:
        if self.kind in (REPLACE_ONE, ADD_REMOVE_ONE):
            if self.bound is not None:
                raise InvalidArgument(f"bound={self.bound!r}: relation {self.kind} takes no bound")
        elif self.kind == SIMPLEX_ADJACENT:
            object.__setattr__(self, "bound", check_real("bound", self.bound, low=0.0, high=2.0, low_open=True))
        else:
            raise InvalidArgument(
                f"kind={self.kind!r}: expected one of {REPLACE_ONE}, {ADD_REMOVE_ONE}, {SIMPLEX_ADJACENT}(b)"
            )

    @property
    def name(self) -> str:
        """The canonical text form, e.g. ``replace_one`` or ``simplex_adjacent(0.1)``."""
        if self.kind == SIMPLEX_ADJACENT:
            return f"{SIMPLEX_ADJACENT}({self.bound!r})"
        return self.kind

    def __str__(self) -> str:
        return self.name


def replace_one() -> Relation:
    """Datasets of equal size that differ in one trajectory."""
    return Relation(REPLACE_ONE)


def add_remove_one() -> Relation:
    """Datasets where one is the other with one trajectory added."""
    return Relation(ADD_REMOVE_ONE)


def simplex_adjacent(bound: float) -> Relation:
    """Probability vectors differing in two coordinates, with L1 distance at most ``bound``."""
    return Relation(SIMPLEX_ADJACENT, bound)


_SIMPLEX_PATTERN = re.compile(r"^simplex_adjacent\(\s*([^)]+?)\s*\)$")


def parse_relation(text: str) -> Relation:
    """Parse the canonical text form of a relation.

    Raises:
        InvalidArgument: naming the accepted forms.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"relation={text!r}: expected a string such as 'replace_one'")
    stripped = text.strip()
    if stripped in (REPLACE_ONE, ADD_REMOVE_ONE):
        return Relation(stripped)
    match = _SIMPLEX_PATTERN.match(stripped)
    if match:
        try:
            bound = float(match.group(1))
        except ValueError as exc:
            raise InvalidArgument(f"relation={text!r}: the bound of simplex_adjacent(b) must be a number") from exc
        return simplex_adjacent(bound)
    raise InvalidArgument(
        f"relation={text!r}: expected 'replace_one', 'add_remove_one' or 'simplex_adjacent(b)' with 0 < b <= 2"
    )
