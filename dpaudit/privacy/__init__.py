"""Privacy mathematics: relations, guarantees, exact profiles and accountants (knows nothing of mechanisms)."""

from dpaudit.privacy.guarantees import (
    AccountedEpsilon,
    ApproxDP,
    Concentration,
    Guarantee,
    MomentsBound,
    RenyiDP,
    SensitivityBound,
    SmoothUpperBound,
)
from dpaudit.privacy.relations import (
    Relation,
    add_remove_one,
    parse_relation,
    replace_one,
    simplex_adjacent,
)

__all__ = [
    "AccountedEpsilon",
    "ApproxDP",
    "Concentration",
    "Guarantee",
    "MomentsBound",
    "Relation",
    "RenyiDP",
    "SensitivityBound",
    "SmoothUpperBound",
    "add_remove_one",
    "parse_relation",
    "replace_one",
    "simplex_adjacent",
]
