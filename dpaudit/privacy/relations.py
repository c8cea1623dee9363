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

__all__ = [
    "Relation",
    "add_remove_one",
    "parse_relation",
    "replace_one",
    "row_adjacent",
    "simplex_adjacent",
    "user_relation",
]

REPLACE_ONE = "replace_one"
ADD_REMOVE_ONE = "add_remove_one"
SIMPLEX_ADJACENT = "simplex_adjacent"
ROW_ADJACENT = "row_adjacent"
USER = "user"

#: Relation kinds with an L1 radius b: probability vectors (or rows of them) that differ in two coordinates.
BOUNDED_KINDS = (SIMPLEX_ADJACENT, ROW_ADJACENT)

_USER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Relation:
    """A neighbouring relation between datasets.

    Attributes:
        kind: ``replace_one`` (swap one trajectory for another), ``add_remove_one``
            (add or remove one trajectory), ``simplex_adjacent`` (two probability
            vectors that differ in exactly two coordinates, with L1 distance <= ``bound``; for a
            matrix of such vectors, every row may differ so), ``row_adjacent`` (a matrix of
            probability vectors of which exactly one row differs, b-adjacently), or ``user``
            (the user's own relation, named ``label``: neighbours are what the user's neighbour
            function returns, checked by the user's distance function when one is given).
        bound: the L1 radius ``b`` of ``simplex_adjacent`` and ``row_adjacent``; ``None`` for the others.
        label: the name of a ``user`` relation; ``None`` for the others.
    """

    kind: str
    bound: float | None = None
    label: str | None = None

    def __post_init__(self) -> None:
        if self.kind in (REPLACE_ONE, ADD_REMOVE_ONE, USER):
            if self.bound is not None:
                raise InvalidArgument(f"bound={self.bound!r}: relation {self.kind} takes no bound")
        elif self.kind in BOUNDED_KINDS:
            object.__setattr__(self, "bound", check_real("bound", self.bound, low=0.0, high=2.0, low_open=True))
        else:
            raise InvalidArgument(
                f"kind={self.kind!r}: expected one of {REPLACE_ONE}, {ADD_REMOVE_ONE}, {SIMPLEX_ADJACENT}(b), "
                f"{ROW_ADJACENT}(b), {USER}(name)"
            )
        if self.kind == USER:
            if not isinstance(self.label, str) or not _USER_NAME.match(self.label):
                raise InvalidArgument(
                    f"label={self.label!r}: a user relation is named by letters, digits, '_', '.' or '-' "
                    "(at most 64, starting with a letter), e.g. user(edit_one_row)"
                )
        elif self.label is not None:
            raise InvalidArgument(f"label={self.label!r}: only a user relation has a label")

    @property
    def name(self) -> str:
        """The canonical text form, e.g. ``replace_one``, ``simplex_adjacent(0.1)`` or ``user(hamming_one)``."""
        if self.kind in BOUNDED_KINDS:
            return f"{self.kind}({self.bound!r})"
        if self.kind == USER:
            return f"{USER}({self.label})"
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
    """Probability vectors differing in two coordinates, with L1 distance at most ``bound``
    (for a matrix of probability vectors: every row may differ so)."""
    return Relation(SIMPLEX_ADJACENT, bound)


def row_adjacent(bound: float) -> Relation:
    """Matrices of probability vectors of which exactly one row differs, in two coordinates, by at
    most ``bound`` in L1."""
    return Relation(ROW_ADJACENT, bound)


def user_relation(label: str) -> Relation:
    """The user's own relation ``label``: neighbours come from the user's neighbour function or pairs."""
    return Relation(USER, label=label)


_BOUNDED_PATTERN = re.compile(r"^(simplex_adjacent|row_adjacent)\(\s*([^)]+?)\s*\)$")
_USER_PATTERN = re.compile(r"^user\(\s*([^)]*?)\s*\)$")


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
    match = _BOUNDED_PATTERN.match(stripped)
    if match:
        try:
            bound = float(match.group(2))
        except ValueError as exc:
            raise InvalidArgument(f"relation={text!r}: the bound of {match.group(1)}(b) must be a number") from exc
        return Relation(match.group(1), bound)
    match = _USER_PATTERN.match(stripped)
    if match:
        return user_relation(match.group(1))
    raise InvalidArgument(
        f"relation={text!r}: expected 'replace_one', 'add_remove_one', 'simplex_adjacent(b)' or 'row_adjacent(b)' "
        "with 0 < b <= 2, or 'user(name)' for a relation of your own (the black_box kind)"
    )
