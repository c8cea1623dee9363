"""What checkers read from a claim and an obligation's params, checked the same way everywhere."""

from __future__ import annotations

from typing import Any

from dpaudit._validation import check_finite_array
from dpaudit.audit.claims import Claim
from dpaudit.checks.empirical_sampling import NeighbourPair
from dpaudit.errors import InvalidArgument
from dpaudit.privacy.guarantees import ApproxDP

__all__ = ["approx_dp_of", "neighbour_pairs"]


def approx_dp_of(claim: Claim) -> ApproxDP:
    """The claim's (ε, δ) guarantee.

    Raises:
        InvalidArgument: when the claim states another kind of guarantee.
    """
    if not isinstance(claim.guarantee, ApproxDP):
        raise InvalidArgument(
            f"claim {claim.id!r}: guarantee kind={claim.guarantee.kind!r}: this checker needs approx_dp"
        )
    return claim.guarantee


def neighbour_pairs(pairs: Any) -> list[NeighbourPair]:
    """Neighbouring pairs from a spec's ``pairs = [{first = [...], second = [...], label = "..."}]``.

    Raises:
        InvalidArgument: naming the malformed entry.
    """
    if not isinstance(pairs, list) or not pairs:
        raise InvalidArgument("pairs: expected a non-empty list of {first = [...], second = [...]} tables")
    result = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, dict) or not {"first", "second"} <= set(pair) <= {"first", "second", "label"}:
            raise InvalidArgument(f"pairs[{i}]={pair!r}: expected a table with first, second (and optional label)")
        first = check_finite_array(f"pairs[{i}].first", pair["first"])
        second = check_finite_array(f"pairs[{i}].second", pair["second"])
        result.append(NeighbourPair(first, second, str(pair.get("label", f"pairs[{i}]"))))
    return result
