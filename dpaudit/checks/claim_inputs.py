"""What checkers read from a claim and an obligation's params, checked the same way everywhere."""

from __future__ import annotations

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.claims import Claim
from dpaudit.privacy.guarantees import ApproxDP

__all__ = ["approx_dp_of"]


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
